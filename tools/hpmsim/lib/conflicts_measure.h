// How `hpmsim conflicts` measures: counter 0 counts every writeback the interconnect carries (a
// dirty line leaving bgq's L2 for DDR, or a Fireplane CPU's external cache), exactly; counter 1
// the same, feeding FIFO 0, sampled every interval: each record is counted by the cache block
// it left, its page and its address, the page named by its mapping when first seen. What the
// records mean and how they are printed is conflicts_analysis.h's.
#pragma once

#include "base/types.h"
#include "node/machine.h"
#include "pmu/imon/unit.h"
#include "tools/hpmsim/lib/conflicts_analysis.h"
#include "tools/hpmsim/lib/session.h"

namespace hpm::tools {

// The writebacks on interconnect `ic`: the crossbar's MemWrite (an L2 slice's to DDR), or
// Fireplane's WriteBack (an external cache's).
imon::Filter writebackFilter(probe::Interconnect ic);

// The cache whose writebacks the interconnect carries on `machine`: its L2 (sliced) on the
// crossbar; on Fireplane each CPU's external cache (one slice: a block is one of its sets).
CacheShape writebackCache(const MachineConfig& machine);

// One run's records (conflicts_analysis.h) and the guest's exit status.
struct ConflictsRun {
  ConflictsRecords records;
  int status = 0;
};

// Runs the session's program with FIFO 0 sampled every `interval` cycles and at the end.
// Fails (ExitCode::kUsage) when the machine has no interconnect monitor.
ConflictsRun measureConflicts(const Session& session, const RunOptions& ro, u64 interval);

}  // namespace hpm::tools
