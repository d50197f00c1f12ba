// The memory system's statistics that other code reads (the report): declared once here, written
// by the caches' visits (memory_system.cpp, interconnect_base.cpp, crossbar.cpp, fireplane.cpp)
// and read through these constants (stats/measure.h says why).
#pragma once

#include <string_view>

#include "stats/measure.h"
#include "stats/probe.h"

namespace hpm::mem::stat {

using stats::Stat;
using stats::Unit;

// Each core's private caches (groups of CacheStats).
inline constexpr std::string_view kL1i = "l1i";
inline constexpr std::string_view kL1d = "l1d";
inline constexpr std::string_view kL1p = "l1p";
// A private cache's statistics. Each is written with its cache's event's description where the
// cache has that event (probe::describe); these docs are for those it has not.
inline constexpr Stat kAccesses{"accesses", stats::total(Unit::kCount),
                                "Accesses (loads, stores, fetches)"};
inline constexpr Stat kHits{"hits", stats::total(Unit::kCount), "Accesses that found their line"};
inline constexpr Stat kMisses{"misses", stats::total(Unit::kCount), "Accesses that did not"};
inline constexpr Stat kPrefetches{"prefetches", stats::total(Unit::kCount),
                                  "Lines requested by the stream prefetcher"};

// The caches below the L1s: the crossbar's L2 slices, or each CPU's external cache (Fireplane),
// each a SliceStats.
inline constexpr std::string_view kL2Slices = "l2_slices";
inline constexpr std::string_view kEcaches = "ecaches";
inline constexpr Stat kSliceRequests{"requests", stats::total(Unit::kCount),
                                     probe::describe(probe::Event::kL2Requests)};
inline constexpr Stat kSliceHits{"hits", stats::total(Unit::kCount),
                                 probe::describe(probe::Event::kL2Hits)};
inline constexpr Stat kSliceMisses{"misses", stats::total(Unit::kCount),
                                   probe::describe(probe::Event::kL2Misses)};
inline constexpr Stat kSliceEvictions{"evictions", stats::total(Unit::kCount),
                                      probe::describe(probe::Event::kL2Evictions)};
inline constexpr Stat kSliceWritebacks{"writebacks", stats::total(Unit::kCount),
                                       probe::describe(probe::Event::kL2Writebacks)};

}  // namespace hpm::mem::stat
