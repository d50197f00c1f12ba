// `hpmsim c2c`: who supplies the data, and which lines the agents pass between them (seed 004
// section 4.2, in the spirit of perf c2c), on the interconnect monitor. Two counters count every
// line read by snoop result (exactly: the L2 or memory on bgq, which has no cache-to-cache
// transfers; memory or another CPU's cache on sunfire's Fireplane bus); the FIFO, filtered to
// reads, writes, atomics and invalidations (Fireplane: line requests and upgrades) and sampled
// every interval, gives each source agent's reads by supplier (on Fireplane each record names
// the CPU whose cache supplied the line) and the lines several agents touch with at least one
// writing: true or false sharing, which invalidations make costly.
// The measurement is lib/c2c_measure.h's, the analysis and printers lib/c2c_analysis.h's.
#include <utility>
#include <variant>

#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/lib/c2c_analysis.h"
#include "tools/hpmsim/lib/c2c_measure.h"
#include "tools/hpmsim/lib/interconnect_tool.h"

namespace hpm::tools {
namespace {

struct C2cOptions {
  SessionOptions run;
  FifoSampling sampling{500, 5, false, {}, 0, 0};
};

// (Takes a copy: the sampling interval is resolved at the machine's clock.)
int run(C2cOptions opt) {
  Session session = openSession(opt.run, "c2c", kToolSession);
  const RunOptions ro = toolRunOptions(session);
  resolveFifoSampling(opt.sampling, session.machine, "c2c");
  // (-o's file checked as every command's outputs are: not the program, not another output.)
  session.files.output(opt.sampling.output, "-o", !opt.sampling.output.empty());
  session.files.check();
  C2cRun measured = measureC2c(session, ro, opt.sampling.interval);
  // The report on standard error or in -o's file (--json: the object).
  if (auto* bus = std::get_if<FireplaneRecords>(&measured.records)) {
    const FireplaneReport report = c2cFireplane(std::move(*bus), opt.sampling.top);
    printReport(opt.sampling, c2cJson(report), c2cText(report));
  } else {
    const CrossbarReport report =
        c2cCrossbar(std::get<CrossbarRecords>(std::move(measured.records)), opt.sampling.top);
    printReport(opt.sampling, c2cJson(report), c2cText(report));
  }
  return measured.status;
}

}  // namespace

void addC2cCommand(CLI::App& root, Action& selected) {
  auto opt = std::make_shared<C2cOptions>();
  CLI::App* cmd = root.add_subcommand(
      "c2c",
      "Who supplies the lines a program reads, and the lines its threads share (seed 004's "
      "cache-to-cache analysis, in the spirit of perf c2c)");
  addSessionOptions(*cmd, opt->run, kToolSession);
  addFifoSampling(*cmd, opt->sampling, "busiest shared lines");
  addSessionProgram(*cmd, opt->run, kToolSession);
  cmd->callback([opt, &selected] {
    placeOutputs(opt->run, {&opt->sampling.output});
    selected = [opt] { return run(*opt); };
  });
}

}  // namespace hpm::tools
