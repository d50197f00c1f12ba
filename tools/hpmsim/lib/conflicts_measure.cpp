#include "tools/hpmsim/lib/conflicts_measure.h"

#include <optional>
#include <utility>

#include "hart/memory.h"
#include "node/simulation.h"
#include "tools/hpmsim/lib/imon_host.h"
#include "tools/hpmsim/lib/interconnect_tool.h"

namespace hpm::tools {

imon::Filter writebackFilter(probe::Interconnect ic) {
  return typeFilter(typeBit(ic == probe::Interconnect::kFireplane
                                ? probe::TransactionType::kWriteBack
                                : probe::TransactionType::kMemWrite));
}

CacheShape writebackCache(const MachineConfig& machine) {
  const u32 sets = timingParamsFor(machine).memParams().l2SetsPerInstance();
  if (machine.node.interconnect == probe::Interconnect::kFireplane) {
    const mem::FireplaneParams& ecache = machine.timing.fireplane;
    return {.fireplane = true,
            .slices = 1,
            .sets = sets,
            .ways = ecache.ecache_ways,
            .line_bytes = ecache.line_bytes};
  }
  const mem::L2Params& l2 = machine.timing.l2;
  return {.fireplane = false,
          .slices = l2.slices,
          .sets = sets,
          .ways = l2.ways,
          .line_bytes = l2.line_bytes};
}

ConflictsRun measureConflicts(const Session& session, const RunOptions& ro, u64 interval) {
  const MachineConfig& machine = session.machine;
  Simulation sim(machine, ro);
  ImonHost unit(sim, "conflicts");
  const imon::Filter writebacks = writebackFilter(machine.node.interconnect);
  unit.program(0, writebacks, 0);
  unit.program(1, writebacks, 0);
  unit.enableFifo(0, 0);
  unit.run(monitorsOf(2), 0);

  ConflictsRecords records;
  records.program = commandLine(session);
  records.machine = machine.name;
  records.interval = interval;
  records.cache = writebackCache(machine);
  const auto sample = [&](Cycle now) {
    for (const probe::Transaction& t : unit.sampleFifo(0, now, records.lost)) {
      PageRecord& page = countWriteback(records, *sim.cacheBlockOf(t.address), t.address);
      if (page.writebacks == 1) {  // a new page: its mapping now
        const std::optional<u64> va = sim.virtualOf(t.address);
        page.virtual_page = va ? *va / GuestMemory::kPageSize * GuestMemory::kPageSize : 0;
        page.segment = va ? segmentAt(sim.kernel().memoryMap(), *va) : "(no page)";
      }
    }
  };
  sim.setIntervalHook(interval, sample);
  runSessionProgram(sim, session);
  const Cycle end = sim.elapsedCycles();
  sample(end);
  records.cycles = end;
  records.writebacks = unit.read(0, end);
  return {.records = std::move(records), .status = sim.kernel().termination().status};
}

}  // namespace hpm::tools
