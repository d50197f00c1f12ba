// A simulation's statistics that other code reads (the report, sweep): its groups and its
// regions', declared once here, written by Simulation::visitStats (simulation_results.cpp) and
// read through these constants (stats/measure.h says why).
#pragma once

#include <string_view>

#include "stats/measure.h"

namespace hpm::node_stat {

using stats::Stat;
using stats::Unit;

// The groups of a simulation's statistics.
inline constexpr std::string_view kKernel = "kernel";
inline constexpr std::string_view kTiming = "timing";  // the timing model's (core/timing_stats.h)

// Each region's totals, over its threads and per thread.
inline constexpr std::string_view kRegions = "regions";
inline constexpr Stat kRegionId{"id", stats::kLabel, ""};
inline constexpr Stat kRegionName{"name", stats::kText, ""};
inline constexpr Stat kRegionEntries{"entries", stats::total(Unit::kCount),
                                     "Times the region was entered"};
inline constexpr Stat kRegionInstructions{"instructions", stats::total(Unit::kInstructions),
                                          "Instructions retired inside the region"};
inline constexpr Stat kRegionCycles{"cycles", stats::total(Unit::kCycles),
                                    "Cycles inside the region (across threads: the longest)"};
// A group: one statistic of this measure per stall cause (timing::stallName).
inline constexpr Stat kRegionStalls{"stalls", stats::total(Unit::kCycles), ""};

// Each stay of a thread in a region, in simulated cycles.
inline constexpr std::string_view kRegionSpans = "region_spans";
inline constexpr Stat kSpanTid{"tid", stats::kLabel, ""};
inline constexpr Stat kSpanId{"id", stats::kLabel, ""};
inline constexpr Stat kSpanBegin{"begin", stats::level(Unit::kCycles), ""};
inline constexpr Stat kSpanEnd{"end", stats::level(Unit::kCycles), ""};

}  // namespace hpm::node_stat
