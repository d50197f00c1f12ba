// `hpmsim locality`: seed 004's locality analysis (section 4.3) on a machine with boards (a
// Fireplane bus, docs/sunfire.md). The histogramming counters count the coherent transactions
// (RTS, RTSA, RTO, RTOU, WB) by requester board against home board: the address trits select the
// home board's memory (physical address bits 39:37), the source trits the requesting CPUs'
// board. When the unit has fewer counters than board pairs, the pairs rotate through the
// counters every interval (time multiplexing, as the seed does) and each pair's count is
// scaled by the share of the run it was watched; with enough counters every pair is counted
// exactly. The sequence FIFO, filtered to the same transactions and sampled every interval,
// attributes local and remote traffic to the process's address regions (physical addresses
// mapped back to virtual pages): the regions with the most remote traffic are where placement
// (first touch, interleaving) or the initialisation of the data matters.
// The measurement is lib/locality_measure.h's, the analysis and printers
// lib/locality_analysis.h's.
#include <utility>

#include "base/error.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/lib/interconnect_tool.h"
#include "tools/hpmsim/lib/locality_analysis.h"
#include "tools/hpmsim/lib/locality_measure.h"

namespace hpm::tools {
namespace {

struct LocalityOptions {
  SessionOptions run;
  FifoSampling sampling{1000, 5, false, {}, 0, 0};
  u64 rotation = 10000;  // cycles per pair setting when the pairs rotate
};

// (Takes a copy: the sampling interval is resolved at the machine's clock.)
int run(LocalityOptions opt) {
  Session session = openSession(opt.run, "locality", kToolSession);
  const RunOptions ro = toolRunOptions(session);
  if (opt.rotation == 0) fail(ExitCode::kUsage, "locality: --rotate must be at least 1 cycle");
  resolveFifoSampling(opt.sampling, session.machine, "locality");
  // (-o's file checked as every command's outputs are: not the program, not another output.)
  session.files.output(opt.sampling.output, "-o", !opt.sampling.output.empty());
  session.files.check();
  LocalityRun measured = measureLocality(session, ro, opt.sampling.interval, opt.rotation);
  const LocalityReport report = localityReport(std::move(measured.records), opt.sampling.top);
  printReport(opt.sampling, localityJson(report), localityText(report));
  return measured.status;
}

}  // namespace

void addLocalityCommand(CLI::App& root, Action& selected) {
  auto opt = std::make_shared<LocalityOptions>();
  opt->run.machine = "sunfire";
  CLI::App* cmd = root.add_subcommand(
      "locality",
      "Coherent traffic by requester board and home board, and the address regions with the "
      "most remote traffic (seed 004's locality analysis; machines with boards: sunfire)");
  addSessionOptions(*cmd, opt->run, kToolSession);
  addFifoSampling(*cmd, opt->sampling, "regions with the most remote traffic");
  cmd->add_option("--rotate", opt->rotation,
                  "Cycles each board pair keeps a counter when the pairs rotate (the unit has "
                  "fewer counters than pairs)")
      ->capture_default_str();
  addSessionProgram(*cmd, opt->run, kToolSession);
  cmd->callback([opt, &selected] {
    placeOutputs(opt->run, {&opt->sampling.output});
    selected = [opt] { return run(*opt); };
  });
}

}  // namespace hpm::tools
