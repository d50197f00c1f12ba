// `hpmsim c2c`: who supplies the data, and which lines the agents pass between them (seed 004
// section 4.2, in the spirit of perf c2c), on the interconnect monitor. Two counters count every
// line read by snoop result (exactly: the L2 or memory on bgq, which has no cache-to-cache
// transfers; memory or another CPU's cache on sunfire's Fireplane bus); the FIFO, filtered to
// reads, writes, atomics and invalidations (Fireplane: line requests and upgrades) and sampled
// every interval, gives each source agent's reads by supplier (on Fireplane each record names
// the CPU whose cache supplied the line) and the lines several agents touch with at least one
// writing: true or false sharing, which invalidations make costly.
#include <fmt/core.h>
#include <fmt/format.h>

#include <utility>

#include "base/error.h"
#include "node/machine.h"
#include "node/simulation.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/lib/c2c_analysis.h"
#include "tools/hpmsim/lib/imon_host.h"
#include "tools/hpmsim/lib/interconnect_tool.h"
#include "tools/hpmsim/lib/output.h"

namespace hpm::tools {
namespace {

using probe::Snoop;
using probe::TransactionType;

struct C2cOptions {
  SessionOptions run;
  FifoSampling sampling{500, 5, false, {}, 0, 0};
};

constexpr u64 bit(TransactionType t) {
  return u64{1} << static_cast<u32>(t);
}
constexpr u64 kReads = bit(TransactionType::kRead) | bit(TransactionType::kFetch) |
                       bit(TransactionType::kPrefetch) | bit(TransactionType::kAtomic);

// The report on standard error or in -o's file (--json: the object), the guest's status back.
template <typename Report>
int finish(const C2cOptions& opt, const Report& report, Simulation& sim) {
  printReport(opt.sampling, c2cJson(report), c2cText(report));
  return sim.kernel().termination().status;
}

// What both interconnects' records start with.
C2cSampling samplingOf(const C2cOptions& opt, const MachineConfig& machine) {
  C2cSampling s;
  s.program = fmt::format("{}", fmt::join(opt.run.command, " "));
  s.machine = machine.name;
  s.interval = opt.sampling.interval;
  return s;
}

// Fireplane (sunfire): line requests (RTS, RTSA, RTO) supplied by memory or by another CPU's
// cache, counted exactly; the FIFO's records of requests and upgrades (RTOU) name their supplier.
int runFireplane(const C2cOptions& opt, const Session& session, Simulation& sim, ImonHost& unit) {
  const MachineConfig& machine = session.machine;
  const u64 requests = bit(TransactionType::kReadToShare) |
                       bit(TransactionType::kReadToShareAlways) | bit(TransactionType::kReadToOwn);
  const u64 owning = bit(TransactionType::kReadToOwn) | bit(TransactionType::kReadToOwnUpgrade);
  const auto filter = [](u64 types, u64 snoops) {
    imon::Filter f;
    f.types = types;
    f.snoops = snoops;
    return f;
  };
  const u64 from_cache_snoops =
      u64{1} << static_cast<u32>(Snoop::kOwned) | u64{1} << static_cast<u32>(Snoop::kModified);
  const u64 all_snoops = (u64{1} << probe::kSnoopResults) - 1;
  // Monitor 0: counter 0 the requests a cache supplied, counter 1 (the FIFO's) every request
  // and upgrade. Monitor 1: the requests memory supplied, and every request.
  unit.program(0, filter(requests, from_cache_snoops), 0);
  unit.program(1, filter(requests | owning, all_snoops), 0);
  unit.program(2, filter(requests, all_snoops & ~from_cache_snoops), 0);
  unit.program(3, filter(requests, all_snoops), 0);
  unit.enableFifo(0, 0);
  unit.run(3, 0);

  FireplaneRecords records;
  records.sampling = samplingOf(opt, machine);
  records.cpus_per_board =
      (machine.node.cores + machine.timing.fireplane.boards - 1) / machine.timing.fireplane.boards;
  auto sample = [&](Cycle now) {
    for (const probe::Transaction& t : unit.sampleFifo(0, now, records.sampling.lost)) {
      tallyFireplane(records, t);
    }
  };
  sim.setIntervalHook(opt.sampling.interval, sample);
  runSessionProgram(sim, session);
  const Cycle end = sim.elapsedCycles();
  sample(end);
  records.sampling.cycles = end;
  records.from_cache = unit.read(0, end);
  records.sampling.matched = unit.read(1, end);
  records.from_memory = unit.read(2, end);
  records.requests = unit.read(3, end);

  FireplaneReport report = c2cFireplane(std::move(records), opt.sampling.top);
  // The shown lines' virtual addresses, in the process's mappings at the end.
  for (SharedLine& line : report.shared.top) {
    line.virtual_address = sim.virtualOf(line.address).value_or(0);
  }
  return finish(opt, report, sim);
}

// (Takes a copy: the sampling interval is resolved at the machine's clock.)
int run(C2cOptions opt) {
  Session session = openSession(opt.run, "c2c", kToolSession);
  const RunOptions ro = toolRunOptions(session);
  MachineConfig& machine = session.machine;
  resolveFifoSampling(opt.sampling, machine, "c2c");
  Simulation sim(machine, ro);
  ImonHost unit(sim, "c2c");
  if (unit.counters() < 4) fail(ExitCode::kUsage, "c2c: needs two monitors (imon.monitors >= 2)");
  if (machine.node.interconnect == probe::Interconnect::kFireplane)
    return runFireplane(opt, session, sim, unit);

  // Monitor 0: counter 0 the reads the L2 supplied, counter 1 (the FIFO's) every read, write,
  // atomic and invalidation. Monitor 1: the reads memory supplied, and every read.
  const auto filter = [](u64 types, Snoop only, bool any) {
    imon::Filter f;
    f.types = types;
    if (!any) f.snoops = u64{1} << static_cast<u32>(only);
    return f;
  };
  unit.program(0, filter(kReads, Snoop::kL2, false), 0);
  unit.program(1,
               filter(kReads | bit(TransactionType::kWrite) | bit(TransactionType::kInvalidate),
                      Snoop::kNone, true),
               0);
  unit.program(2, filter(kReads, Snoop::kMemory, false), 0);
  unit.program(3, filter(kReads, Snoop::kNone, true), 0);
  unit.enableFifo(0, 0);
  unit.run(3, 0);

  CrossbarRecords records;
  records.sampling = samplingOf(opt, machine);
  records.threads_per_core = machine.node.threads_per_core;
  auto sample = [&](Cycle now) {
    for (const probe::Transaction& t : unit.sampleFifo(0, now, records.sampling.lost)) {
      tallyCrossbar(records, t);
    }
  };
  sim.setIntervalHook(opt.sampling.interval, sample);
  runSessionProgram(sim, session);
  const Cycle end = sim.elapsedCycles();
  sample(end);
  records.sampling.cycles = end;
  records.from_l2 = unit.read(0, end);
  records.sampling.matched = unit.read(1, end);
  records.from_memory = unit.read(2, end);
  records.reads = unit.read(3, end);
  return finish(opt, c2cCrossbar(std::move(records), opt.sampling.top), sim);
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
