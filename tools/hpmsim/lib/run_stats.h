// The top of a run's statistics (hpmsim run --stats-json, one node or many), which the report and
// sweep read: declared once here, written by run_command.cpp and nodes_run.cpp and read through
// these constants (stats/measure.h says why). The models' own: core/timing_stats.h,
// mem/mem_stats.h, node/node_stats.h.
#pragma once

#include <string_view>

#include "base/types.h"
#include "stats/measure.h"
#include "stats/stats.h"

namespace hpm::tools::run_stat {

using stats::Stat;
using stats::Unit;

inline constexpr Stat kInstructions{"instructions", stats::total(Unit::kInstructions),
                                    "Instructions retired by all threads"};
inline constexpr Stat kCycles{"cycles", stats::total(Unit::kCycles),
                              "Simulated time of the run, in cycles"};
inline constexpr Stat kHostSeconds{"host_seconds", stats::total(Unit::kSeconds),
                                   "Host wall-clock time of the simulation"};
inline constexpr Stat kMips{"mips", stats::level(Unit::kMips),
                            "Retired instructions per host second, in millions"};
inline constexpr Stat kHostPeakRssKib{
    "host_peak_rss_kib", stats::level(Unit::kKib),
    "hpmsim's peak resident host memory so far, in KiB (getrusage)"};
inline constexpr Stat kMode{"mode", stats::kText, "Run mode"};
inline constexpr Stat kExitStatus{"exit_status", stats::kLabel, "The guest's exit status"};

// What a run of many nodes says of the same statistics.
inline constexpr std::string_view kNodesInstructionsDoc = "Instructions retired by all nodes";
inline constexpr std::string_view kNodesCyclesDoc =
    "Simulated time of the run: the latest node's, in cycles";
inline constexpr std::string_view kNodesExitStatusDoc =
    "The first failing node's exit status (0: none failed)";

// A run's totals, as the top of its statistics gives them.
struct Totals {
  u64 instructions = 0;
  u64 cycles = 0;  // elapsed: the latest thread's (node's) clock
  double host_seconds = 0;
  std::string_view mode;  // the run mode's name
  u64 exit_status = 0;
  bool many_nodes = false;  // the documentation of a many-node run's
};

// Visits the totals in the order above, with the retired instructions per host second (mips)
// and hpmsim's peak resident memory now.
void visitTotals(stats::Visitor& v, const Totals& t);

}  // namespace hpm::tools::run_stat
