// How `hpmsim c2c` measures: the interconnect monitor's four counters count every line read by
// who supplied it, exactly (the L2 or memory on bgq's crossbar, which has no cache-to-cache
// transfers; memory or another CPU's cache on sunfire's Fireplane bus), and FIFO 0, filtered to
// what moves or takes lines and sampled every interval, gives the records c2c_analysis.h tallies
// (each source's reads by supplier, the lines several agents share).
#pragma once

#include <array>
#include <variant>

#include "base/types.h"
#include "pmu/imon/unit.h"
#include "stats/transaction.h"
#include "tools/hpmsim/lib/c2c_analysis.h"
#include "tools/hpmsim/lib/session.h"

namespace hpm::tools {

// The filters of counters 0 to 3 on interconnect `ic` (FIFO 0 records counter 1's matches).
// Crossbar: 0 the reads (reads, fetches, prefetches, atomics) the L2 supplied, 1 every read,
// write and invalidation, 2 the reads memory supplied, 3 every read. Fireplane: 0 the line
// requests (RTS, RTSA, RTO) a cache supplied (snoop result Owned or Modified), 1 every request
// and upgrade (RTOU), 2 the requests memory supplied, 3 every request.
std::array<imon::Filter, 4> c2cFilters(probe::Interconnect ic);

// One run's records (c2c_analysis.h), the crossbar's or Fireplane's, and the guest's exit status.
struct C2cRun {
  std::variant<CrossbarRecords, FireplaneRecords> records;
  int status = 0;
};

// Runs the session's program with the counters programmed (c2cFilters) and FIFO 0 sampled every
// `interval` cycles and at the end. Fails (ExitCode::kUsage) when the machine has no
// interconnect monitor or fewer than two monitors.
C2cRun measureC2c(const Session& session, const RunOptions& ro, u64 interval);

}  // namespace hpm::tools
