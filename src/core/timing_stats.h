// The timing model's statistics that other code reads (the report): declared once here, written
// by NodeTiming::visitStats (node_timing_state.cpp) and read through these constants
// (stats/measure.h says why).
#pragma once

#include <string_view>

#include "stats/measure.h"

namespace hpm::timing::stat {

using stats::Stat;
using stats::Unit;

// The list of cores, each with its threads' totals (a core's clock: its latest thread's).
inline constexpr std::string_view kCores = "cores";

inline constexpr Stat kInstructions{"instructions", stats::total(Unit::kInstructions),
                                    "Instructions issued"};
inline constexpr Stat kCycles{"cycles", stats::total(Unit::kCycles),
                              "Clock of the latest hardware thread: cycles simulated"};
// A group: one statistic of this measure and doc per stall cause (timing::stallName).
inline constexpr Stat kStalls{"stalls", stats::total(Unit::kCycles),
                              "Cycles instructions waited past their thread's clock, charged to "
                              "the first constraint not met"};
inline constexpr Stat kLmqFullCycles{"lmq_full_cycles", stats::total(Unit::kCycles),
                                     "Cycles the load-miss queue was full"};
inline constexpr Stat kSqFullCycles{"sq_full_cycles", stats::total(Unit::kCycles),
                                    "Cycles the store queue was full"};

}  // namespace hpm::timing::stat
