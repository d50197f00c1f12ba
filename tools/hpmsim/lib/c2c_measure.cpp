#include "tools/hpmsim/lib/c2c_measure.h"

#include <optional>
#include <utility>

#include "base/error.h"
#include "node/machine.h"
#include "node/simulation.h"
#include "tools/hpmsim/lib/imon_host.h"
#include "tools/hpmsim/lib/interconnect_tool.h"

namespace hpm::tools {
namespace {

using probe::Snoop;
using probe::TransactionType;

// What both interconnects' records start with.
C2cSampling samplingOf(const Session& session, u64 interval) {
  C2cSampling s;
  s.program = commandLine(session);
  s.machine = session.machine.name;
  s.interval = interval;
  return s;
}

}  // namespace

std::array<imon::Filter, 4> c2cFilters(probe::Interconnect ic) {
  if (ic == probe::Interconnect::kFireplane) {
    const u64 requests = typeBit(TransactionType::kReadToShare) |
                         typeBit(TransactionType::kReadToShareAlways) |
                         typeBit(TransactionType::kReadToOwn);
    const u64 owning =
        typeBit(TransactionType::kReadToOwn) | typeBit(TransactionType::kReadToOwnUpgrade);
    const u64 from_cache = snoopBit(Snoop::kOwned) | snoopBit(Snoop::kModified);
    return {typeFilter(requests, from_cache), typeFilter(requests | owning),
            typeFilter(requests, kAllSnoops & ~from_cache), typeFilter(requests)};
  }
  const u64 reads = typeBit(TransactionType::kRead) | typeBit(TransactionType::kFetch) |
                    typeBit(TransactionType::kPrefetch) | typeBit(TransactionType::kAtomic);
  const u64 changes = typeBit(TransactionType::kWrite) | typeBit(TransactionType::kInvalidate);
  return {typeFilter(reads, snoopBit(Snoop::kL2)), typeFilter(reads | changes),
          typeFilter(reads, snoopBit(Snoop::kMemory)), typeFilter(reads)};
}

C2cRun measureC2c(const Session& session, const RunOptions& ro, u64 interval) {
  const MachineConfig& machine = session.machine;
  Simulation sim(machine, ro);
  ImonHost unit(sim, "c2c");
  if (unit.counters() < 4) fail(ExitCode::kUsage, "c2c: needs two monitors (imon.monitors >= 2)");
  const bool fireplane = machine.node.interconnect == probe::Interconnect::kFireplane;
  const std::array<imon::Filter, 4> filters = c2cFilters(machine.node.interconnect);
  for (u32 c = 0; c < filters.size(); ++c) unit.program(c, filters[c], 0);
  unit.enableFifo(0, 0);
  unit.run(monitorsOf(4), 0);

  CrossbarRecords crossbar;
  FireplaneRecords bus;
  C2cSampling& sampling = fireplane ? bus.sampling : crossbar.sampling;
  sampling = samplingOf(session, interval);
  if (fireplane) {
    const u32 boards = machine.timing.fireplane.boards;
    bus.cpus_per_board = (machine.node.cores + boards - 1) / boards;
  } else {
    crossbar.threads_per_core = machine.node.threads_per_core;
  }
  const auto sample = [&](Cycle now) {
    for (const probe::Transaction& t : unit.sampleFifo(0, now, sampling.lost)) {
      if (fireplane) {
        tallyFireplane(bus, t);
      } else {
        tallyCrossbar(crossbar, t);
      }
    }
  };
  sim.setIntervalHook(interval, sample);
  runSessionProgram(sim, session);
  const Cycle end = sim.elapsedCycles();
  sample(end);
  sampling.cycles = end;
  // Counter 1 is the FIFO's: what it matched is what the samples could have seen.
  const u64 counts[4] = {unit.read(0, end), unit.read(1, end), unit.read(2, end),
                         unit.read(3, end)};
  sampling.matched = counts[1];
  C2cRun run;
  run.status = sim.kernel().termination().status;
  if (!fireplane) {
    crossbar.from_l2 = counts[0];
    crossbar.from_memory = counts[2];
    crossbar.reads = counts[3];
    run.records = std::move(crossbar);
    return run;
  }
  bus.from_cache = counts[0];
  bus.from_memory = counts[2];
  bus.requests = counts[3];
  // The shared lines' virtual addresses, in the process's mappings at the end.
  for (const auto& [address, line] : bus.sampling.lines) {
    if (!sharedLine(line)) continue;
    if (const std::optional<u64> va = sim.virtualOf(address)) bus.virtual_addresses[address] = *va;
  }
  run.records = std::move(bus);
  return run;
}

}  // namespace hpm::tools
