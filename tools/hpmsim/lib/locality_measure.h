// How `hpmsim locality` measures, on a machine with boards (a Fireplane bus): counters 0 and 1
// count the coherent transactions (RTS, RTSA, RTO, RTOU, WB), counter 1 feeding FIFO 0; the
// other counters count board pairs (requester board, home board), rotating over the pairs every
// --rotate cycles when there are fewer counters than pairs. The FIFO, sampled every interval,
// gives each address region's local and remote traffic: the records locality_analysis.h
// estimates and prints.
#pragma once

#include <vector>

#include "base/types.h"
#include "node/machine.h"
#include "pmu/imon/unit.h"
#include "tools/hpmsim/lib/locality_analysis.h"
#include "tools/hpmsim/lib/session.h"

namespace hpm::tools {

// The coherent transactions' types (typeBit): what every locality counter counts.
u64 coherentTypes();

// The machine's boards as the counters' filters see them.
struct Boards {
  u32 boards = 1;
  u32 cpus_per_board = 1;     // the last board may have fewer
  u32 threads_per_board = 1;  // hardware threads: a board's are this many consecutive sources
};
// Fails (ExitCode::kUsage) when `machine` has no boards (its interconnect is the crossbar), or
// when a board's hardware threads are not a power of two (the source bits select the board).
Boards localityBoards(const MachineConfig& machine);

// Every (requester, home) pair of `boards` boards, requester-major, counted zero.
std::vector<PairRecord> boardPairs(u32 boards);
// The counters the pairs get of the unit's `counters` (the first two count every coherent
// transaction): one each, up to one per pair; fewer than the pairs rotate over them, counter
// 2 + c watching pair rotatedItem(round, c, pair_counters, pairs) in round `round`.
u32 pairCounters(u32 counters, u32 pairs);
// A counter's filter for `pair`: the coherent transactions to memory on board `pair.home`
// (physical address bits kBoardShift on) from the hardware threads of board `pair.requester`.
imon::Filter pairFilter(const PairRecord& pair, const Boards& boards);

// One run's records (locality_analysis.h) and the guest's exit status.
struct LocalityRun {
  LocalityRecords records;
  int status = 0;
};

// Runs the session's program with FIFO 0 sampled every `interval` cycles and the pairs rotated
// every `rotation` cycles (when they rotate), both at the end too. Fails (kUsage) as
// localityBoards does, when the machine has no interconnect monitor, or fewer than two
// monitors, in that order.
LocalityRun measureLocality(const Session& session, const RunOptions& ro, u64 interval,
                            u64 rotation);

}  // namespace hpm::tools
