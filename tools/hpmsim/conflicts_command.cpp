// `hpmsim conflicts`: seed 004's cache-conflict tool (section 4.1, Figures 4 and 5) on the
// interconnect monitor. It filters the sequence FIFO to writebacks (a dirty line leaving the
// cache whose misses the interconnect carries: bgq's L2, writing back to DDR), samples it every
// interval, and counts the writebacks it saw by cache block (the set a line competes for), by page
// and by address, naming each page's segment (the process's mapping when it was sampled). The
// hottest blocks say whether their writebacks are capacity misses (many pages, a few each) or
// conflicts (a few addresses contending for one set). Sampling is honest: the FIFO's lost records
// are counted, and the report says how much of the stream it saw.
// The measurement is lib/conflicts_measure.h's, the analysis and printers
// lib/conflicts_analysis.h's.
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/lib/conflicts_analysis.h"
#include "tools/hpmsim/lib/conflicts_measure.h"
#include "tools/hpmsim/lib/interconnect_tool.h"
#include "tools/hpmsim/lib/output.h"

namespace hpm::tools {
namespace {

struct ConflictsOptions {
  SessionOptions run;
  FifoSampling sampling{1000, 3, false, {}, 0, 0};
  std::string csv;
};

// (Takes a copy: the sampling interval is resolved at the machine's clock.)
int run(ConflictsOptions opt) {
  Session session = openSession(opt.run, "conflicts", kToolSession);
  const RunOptions ro = toolRunOptions(session);
  resolveFifoSampling(opt.sampling, session.machine, "conflicts");
  RunFiles& files = session.files;
  files.output(opt.csv, "--csv", !opt.csv.empty());
  files.output(opt.sampling.output, "-o", !opt.sampling.output.empty());
  files.check();
  const ConflictsRun measured = measureConflicts(session, ro, opt.sampling.interval);
  const ConflictsReport report = conflictsReport(measured.records, opt.sampling.top);
  if (!opt.csv.empty()) writeTextFile(opt.csv, conflictsCsv(report));
  printReport(opt.sampling, conflictsJson(report), conflictsText(report));
  return measured.status;
}

}  // namespace

void addConflictsCommand(CLI::App& root, Action& selected) {
  auto opt = std::make_shared<ConflictsOptions>();
  CLI::App* cmd = root.add_subcommand(
      "conflicts",
      "Find the cache blocks with the most writebacks by sampling the interconnect monitor's "
      "FIFO (seed 004's cache-conflict tool)");
  addSessionOptions(*cmd, opt->run, kToolSession);
  addFifoSampling(*cmd, opt->sampling, "hottest blocks");
  cmd->add_option("--csv", opt->csv, "Write the writebacks seen per block as CSV");
  addSessionProgram(*cmd, opt->run, kToolSession);
  cmd->callback([opt, &selected] {
    placeOutputs(opt->run, {&opt->sampling.output, &opt->csv});
    selected = [opt] { return run(*opt); };
  });
}

}  // namespace hpm::tools
