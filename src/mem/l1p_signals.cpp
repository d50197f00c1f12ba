// The signals of Blue Gene/P's L2 prefetch unit events (UPC-P's PU<k>_L2_PAGE_ALREADY_IN_L2,
// _L2_CYCLES_PREFETCH_PENDING, _L2_CYCLES_READ_REQUEST_PENDING and PU<k>_DCACHE_LINEFILLINPROG;
// docs/timing.md "L1P"), as the model's L1P makes them: what it observes of the prefetcher and
// of its requests, never a change of their timing. Each statistic is counted and published here,
// at its one site.
#include "mem/memory_system.h"

namespace hpm::mem {

using probe::Event;

namespace {

// Adds [start, end) to `u` and publishes the cycles it newly covers as level `e` of `core`.
void addLevel(probe::Bus* bus, Event e, u32 core, IntervalUnion& u, Cycle start, Cycle end) {
  const auto [first, second] = u.add(start, end);
  if (bus != nullptr && first < second && bus->wants(e, core)) [[unlikely]] {
    bus->level(e, core, first, second);
  }
}

}  // namespace

void MemorySystem::streamPrefetch(u32 core, u64 line, Cycle at, bool timed, bool miss) {
  // Blue Gene/P's unit drops a prefetch whose line it already holds ("page already in L2"). The
  // model's prefetcher may look at several lines for one access: the access counts once, so the
  // signal stays one bit per cycle (an L1P access a cycle at most).
  prefetch_dropped_ = false;
  if (miss) {
    streamOnMiss(core, line, at, timed);
  } else {
    streamOnPrefetchHit(core, line, at, timed);
  }
  if (prefetch_dropped_) {
    probe::count(bus_, Event::kL1pPrefetchAlreadyPresent, core, signals_[core].already_present);
  }
}

void MemorySystem::prefetchRequested(u32 core, Cycle at, Cycle ready) {
  addLevel(bus_, Event::kL1pPrefetchPending, core, signals_[core].prefetch_pending, at, ready);
}

void MemorySystem::readRequested(u32 core, Cycle departure, Cycle ready) {
  addLevel(bus_, Event::kL1pReadPending, core, signals_[core].read_pending, departure, ready);
}

void MemorySystem::lineFilled(u32 core, Cycle at, Cycle ready) {
  addLevel(bus_, Event::kL1dFillPending, core, signals_[core].fill_pending, at, ready);
}

}  // namespace hpm::mem
