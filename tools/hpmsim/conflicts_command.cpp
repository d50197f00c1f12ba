// `hpmsim conflicts`: seed 004's cache-conflict tool (section 4.1, Figures 4 and 5) on the
// interconnect monitor. It filters the sequence FIFO to writebacks (a dirty line leaving the
// cache whose misses the interconnect carries: bgq's L2, writing back to DDR), samples it every
// interval, and counts the writebacks it saw by cache block (the set a line competes for), by page
// and by address, naming each page's segment (the process's mapping when it was sampled). The
// hottest blocks say whether their writebacks are capacity misses (many pages, a few each) or
// conflicts (a few addresses contending for one set). Sampling is honest: the FIFO's lost records
// are counted, and the report says how much of the stream it saw.
#include <fmt/core.h>
#include <fmt/format.h>

#include "base/error.h"
#include "hart/memory.h"
#include "node/machine.h"
#include "node/simulation.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/lib/conflicts_analysis.h"
#include "tools/hpmsim/lib/imon_host.h"
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
  MachineConfig& machine = session.machine;
  resolveFifoSampling(opt.sampling, machine, "conflicts");
  RunFiles& files = session.files;
  files.output(opt.csv, "--csv", !opt.csv.empty());
  files.output(opt.sampling.output, "-o", !opt.sampling.output.empty());
  files.check();
  Simulation sim(machine, ro);
  ImonHost unit(sim, "conflicts");

  // Counter 0 counts every writeback (the exact total), counter 1 the same and feeds FIFO 0: on
  // the crossbar an L2 slice's writeback to DDR, on Fireplane an external cache's WriteBack.
  const bool fireplane = machine.node.interconnect == probe::Interconnect::kFireplane;
  imon::Filter writebacks;
  writebacks.types = u64{1} << static_cast<u32>(fireplane ? probe::TransactionType::kWriteBack
                                                          : probe::TransactionType::kMemWrite);
  unit.program(0, writebacks, 0);
  unit.program(1, writebacks, 0);
  unit.enableFifo(0, 0);
  unit.run(1, 0);

  ConflictsRecords records;
  records.program = fmt::format("{}", fmt::join(opt.run.command, " "));
  records.machine = machine.name;
  records.interval = opt.sampling.interval;
  // Fireplane: a block is a set of the CPUs' (equal) external caches.
  const u32 sets = timingParamsFor(machine).memParams().l2SetsPerInstance();
  const mem::L2Params& l2 = machine.timing.l2;
  const mem::FireplaneParams& ecache = machine.timing.fireplane;
  records.cache = fireplane ? CacheShape{.fireplane = true,
                                         .slices = 1,
                                         .sets = sets,
                                         .ways = ecache.ecache_ways,
                                         .line_bytes = ecache.line_bytes}
                            : CacheShape{.fireplane = false,
                                         .slices = l2.slices,
                                         .sets = sets,
                                         .ways = l2.ways,
                                         .line_bytes = l2.line_bytes};
  auto sample = [&](Cycle now) {
    for (const probe::Transaction& t : unit.sampleFifo(0, now, records.lost)) {
      PageRecord& page = countWriteback(records, *sim.cacheBlockOf(t.address), t.address);
      if (page.writebacks == 1) {  // a new page: its mapping now
        const std::optional<u64> va = sim.virtualOf(t.address);
        page.virtual_page = va ? *va / GuestMemory::kPageSize * GuestMemory::kPageSize : 0;
        page.segment = va ? segmentAt(sim.kernel().memoryMap(), *va) : "(no page)";
      }
    }
  };
  sim.setIntervalHook(opt.sampling.interval, sample);
  runSessionProgram(sim, session);
  const Cycle end = sim.elapsedCycles();
  sample(end);
  records.cycles = end;
  records.writebacks = unit.read(0, end);

  const ConflictsReport report = conflictsReport(records, opt.sampling.top);
  if (!opt.csv.empty()) writeTextFile(opt.csv, conflictsCsv(report));
  printReport(opt.sampling, conflictsJson(report), conflictsText(report));
  return sim.kernel().termination().status;
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
