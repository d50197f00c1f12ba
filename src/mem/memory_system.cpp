#include "mem/memory_system.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "mem/mem_stats.h"

namespace hpm::mem {

using probe::Event;

namespace {

// The statistics of one private cache: each is the ground truth of the cache's event, and
// described by it (probe::describe); those with no event describe themselves.
struct CacheEvents {
  Event accesses, hits, misses, writes, evictions, prefetches, prefetch_hits, invalidations;
};
constexpr Event kNone = Event::kCount;
constexpr CacheEvents kL1iEvents{Event::kL1iAccesses,
                                 Event::kL1iHits,
                                 Event::kL1iMisses,
                                 kNone,
                                 Event::kL1iEvictions,
                                 kNone,
                                 kNone,
                                 Event::kL1iInvalidations};
constexpr CacheEvents kL1dEvents{Event::kL1dAccesses,
                                 Event::kL1dHits,
                                 Event::kL1dMisses,
                                 Event::kL1dWrites,
                                 Event::kL1dEvictions,
                                 kNone,
                                 kNone,
                                 Event::kL1dInvalidations};
constexpr CacheEvents kL1pEvents{
    Event::kL1pAccesses,  Event::kL1pHits,       Event::kL1pMisses,       kNone,
    Event::kL1pEvictions, Event::kL1pPrefetches, Event::kL1pPrefetchHits, Event::kL1pInvalidations};

std::string_view doc(Event e, std::string_view own) {
  return e == kNone ? own : probe::describe(e);
}

void visitCache(stats::Visitor& v, std::string_view name, const CacheStats& s,
                const CacheEvents& e) {
  v.beginGroup(name);
  v.counter(stat::kAccesses, s.accesses, doc(e.accesses, stat::kAccesses.doc));
  v.counter(stat::kHits, s.hits, doc(e.hits, stat::kHits.doc));
  v.counter(stat::kMisses, s.misses, doc(e.misses, stat::kMisses.doc));
  v.counter("writes", s.writes,
            doc(e.writes, "Store accesses (write-through, no allocation on a miss)"));
  v.counter("evictions", s.evictions, doc(e.evictions, "Valid lines replaced by fills"));
  v.counter("writebacks", s.writebacks, "Dirty lines written back (the L1s are write-through)");
  v.counter(stat::kPrefetches, s.prefetches, doc(e.prefetches, stat::kPrefetches.doc));
  v.counter("prefetch_hits", s.prefetch_hits,
            doc(e.prefetch_hits, "First demand hits on prefetched lines"));
  v.counter("invalidations", s.invalidations, doc(e.invalidations, "Lines removed by coherence"));
  v.endGroup();
}

}  // namespace

MemorySystem::MemorySystem(const MemParams& params) : p_(params) {
  p_.validate();
  l1i_shift_ = std::countr_zero(p_.l1i.line_bytes);
  l1d_shift_ = std::countr_zero(p_.l1d.line_bytes);
  line_shift_ = std::countr_zero(p_.lineBytes());
  l1d_per_l2_shift_ = line_shift_ - l1d_shift_;
  l1i_per_l2_shift_ = line_shift_ - l1i_shift_;
  const u32 n = p_.cores;
  l1i_.reserve(n);
  l1d_.reserve(n);
  l1p_.reserve(n);
  for (u32 c = 0; c < n; ++c) {
    l1i_.emplace_back(p_.l1i.sets(), p_.l1i.ways, 0, p_.l1i.replacement, 0x1000 + c);
    l1d_.emplace_back(p_.l1d.sets(), p_.l1d.ways, 0, p_.l1d.replacement, 0x2000 + c);
    l1p_.emplace_back(1, p_.l1p.entries, 0, Replacement::kLru, 0x3000 + c);
  }
  streams_.assign(std::size_t{n} * p_.l1p.streams, Stream{});
  stream_cores_.assign(n, StreamCore{StreamControl::fromParams(p_.l1p), 0});
  l1i_stats_.assign(n, {});
  l1d_stats_.assign(n, {});
  l1p_stats_.assign(n, {});
  miss_stats_.assign(n, {});
  l1p_extra_.assign(n, {});
  signals_.assign(n, {});
  lists_.assign(std::size_t{n} * p_.threads_per_core, ListPrefetcher{});
  list_stats_.assign(lists_.size(), ListStats{});
  epoch_.assign(n, 0);
  if (p_.snoop.filter) {
    snoop_.reserve(n);
    for (u32 c = 0; c < n; ++c) snoop_.emplace_back(p_.snoop, c, snoopPorts());
    snoop_busy_.assign(n, {0, 0});
  }
  ic_ = makeInterconnect(p_, *this);
  frames_ = ic_->frames();
}

MemorySystem::~MemorySystem() = default;

Cycle MemorySystem::drain(u32 core, u64 addr, u32 bytes, Cycle start) {
  return ic_->drain(core, physical(addr, core) >> line_shift_, bytes, start, true);
}

void MemorySystem::drainCombined(u32 core, u64 addr, u32 bytes) {
  ic_->drainCombined(core, physical(addr, core) >> line_shift_, bytes);
}

// ---- Coherence ----

bool MemorySystem::invalidateCore(u32 core, u64 line) {
  ++epoch_[core];
  bool found = false;
  const u32 p = l1p_[core].find(line);
  if (p != Cache::kNone) {
    found = true;
    untracked(core, l1p_[core], p);
    l1p_[core].invalidate(p);
    probe::count(bus_, Event::kL1pInvalidations, core, l1p_stats_[core].invalidations);
  }
  const u64 first_i = line << l1i_per_l2_shift_;
  for (u64 k = 0; k < (u64{1} << l1i_per_l2_shift_); ++k) {
    const u32 i = l1i_[core].find(first_i + k);
    if (i != Cache::kNone) {
      found = true;
      untracked(core, l1i_[core], i);
      l1i_[core].invalidate(i);
      probe::count(bus_, Event::kL1iInvalidations, core, l1i_stats_[core].invalidations);
    }
  }
  const u64 first = line << l1d_per_l2_shift_;
  for (u64 k = 0; k < (u64{1} << l1d_per_l2_shift_); ++k) {
    const u32 d = l1d_[core].find(first + k);
    if (d != Cache::kNone) {
      found = true;
      untracked(core, l1d_[core], d);
      l1d_[core].invalidate(d);
      probe::count(bus_, Event::kL1dInvalidations, core, l1d_stats_[core].invalidations);
    }
  }
  return found;
}

void MemorySystem::snoopOthers(u32 source, u64 line, Cycle at, bool timed) {
  for (u32 c = 0; c < p_.cores; ++c) {
    if (c == source) continue;
    // Core c's ports take the other cores in order.
    const u32 port = source < c ? source : source - 1;
    if (!snoop_[c].snoop(port, line) || !timed || p_.snoop.l1_cycles == 0) continue;
    // The L1 takes one snoop at a time, from `at` or when the snoops before it are done.
    auto& [start, end] = snoop_busy_[c];
    if (at > end) {
      start = at;
      end = at + p_.snoop.l1_cycles;
    } else {
      end += p_.snoop.l1_cycles;
    }
  }
}

// ---- L1P prefetcher ----

void MemorySystem::prefetchLine(u32 core, u64 l2line, Cycle at, bool timed) {
  Cache& b = l1p_[core];
  if (b.find(l2line) != Cache::kNone) {
    prefetchDropped();
    return;
  }
  probe::count(bus_, Event::kL1pPrefetches, core, l1p_stats_[core].prefetches);
  HPM_PROBE(bus_, kL1pLinesEstablished, core, 1);
  Level level;
  const Cycle ready = ic_->read(core, l2line, at, Request::kPrefetch, timed, &level);
  prefetchRequested(core, at, timed ? ready : at);
  const u32 slot = b.victim(l2line);
  evictL1p(core, slot);
  b.install(slot, l2line, ready);
  tracked(core, b, slot, l2line);
  b.setFlags(slot, Cache::kPrefetched);
}

void MemorySystem::evictL1p(u32 core, u32 slot) {
  const Cache& b = l1p_[core];
  if (!b.valid(slot)) return;
  probe::count(bus_, Event::kL1pEvictions, core, l1p_stats_[core].evictions);
  untracked(core, b, slot);
  if (b.flags(slot) & Cache::kPrefetched) {
    probe::count(bus_, Event::kL1pEvictUnused, core, l1p_extra_[core].evict_unused);
  }
}

void MemorySystem::streamOnMiss(u32 core, u64 l2line, Cycle at, bool timed) {
  Stream* table = &streams_[std::size_t{core} * p_.l1p.streams];
  Stream* oldest = table;
  for (u32 i = 0; i < p_.l1p.streams; ++i) {
    Stream& s = table[i];
    if (s.age != 0 && s.next == l2line) {
      // Confirmed: the miss continues the stream; run its depth ahead (none while establishment
      // is off and the stream is not established).
      if (!s.confirmed) streamEstablish(core, s);
      const u64 last = l2line + s.depth;
      for (u64 x = std::max(s.ahead, l2line) + 1; x <= last; ++x) prefetchLine(core, x, at, timed);
      s.next = l2line + 1;
      s.ahead = std::max(s.ahead, last);
      s.age = ++stream_clock_;
      return;
    }
    if (s.age < oldest->age) oldest = &s;
  }
  streamStart(core, *oldest, l2line, at, timed);
}

void MemorySystem::streamOnPrefetchHit(u32 core, u64 l2line, Cycle at, bool timed) {
  Stream* table = &streams_[std::size_t{core} * p_.l1p.streams];
  for (u32 i = 0; i < p_.l1p.streams; ++i) {
    Stream& s = table[i];
    if (s.age != 0 && s.next == l2line) {
      // (A hit on a prefetched line continuing a recorded stream establishes it too.)
      if (!s.confirmed) streamEstablish(core, s);
      const u64 last = l2line + s.depth;
      for (u64 x = std::max(s.ahead, l2line) + 1; x <= last; ++x) prefetchLine(core, x, at, timed);
      s.next = l2line + 1;
      s.ahead = std::max(s.ahead, last);
      s.age = ++stream_clock_;
      return;
    }
  }
}

// ---- List prefetchers ----

void MemorySystem::listWrite(u32 thread, u64 offset, u64 value) {
  if (list_memory_ == nullptr) return;
  ListPrefetcher& l = lists_[thread];
  const bool was = l.active();
  if (l.write(offset, value, *list_memory_) == ListPrefetcher::Change::kStarted) {
    lists_used_ = true;
    probe::count(bus_, Event::kL1pListStarted, thread, list_stats_[thread].started);
  }
  if (l.active() && !was) ++lists_active_;
  if (!l.active() && was) --lists_active_;
}

void MemorySystem::listOnMiss(u32 core, u64 l2line, Cycle at, bool timed) {
  const u32 thread = thread_;
  ListPrefetcher& l = lists_[thread];
  if (!l.active()) return;
  ListOutcome& o = list_out_;
  l.onMiss(l2line, *list_memory_, o);
  ListStats& st = list_stats_[thread];
  if (o.overflow) probe::count(bus_, Event::kL1pListOverflows, thread, st.overflows);
  if (o.compared) probe::count(bus_, Event::kL1pListCompares, thread, st.compares);
  if (o.skip != 0) {
    static constexpr Event kSkip[] = {
        Event::kL1pListSkip1, Event::kL1pListSkip2, Event::kL1pListSkip3, Event::kL1pListSkip4,
        Event::kL1pListSkip5, Event::kL1pListSkip6, Event::kL1pListSkip7};
    probe::count(bus_, kSkip[o.skip - 1], thread, st.skip_by[o.skip]);
    probe::count(bus_, Event::kL1pListSkips, thread, st.skips);
  }
  if (o.overrun) probe::count(bus_, Event::kL1pListOverruns, thread, st.overruns);
  if (o.mismatch) probe::count(bus_, Event::kL1pListMismatches, thread, st.mismatches);
  if (o.abandoned) probe::count(bus_, Event::kL1pListAbandons, thread, st.abandons);
  Cache& b = l1p_[core];
  for (const u64 line : o.lines) {
    if (b.find(line) != Cache::kNone) continue;  // already there: nothing to establish
    probe::count(bus_, Event::kL1pListPrefetches, thread, st.prefetches);
    HPM_PROBE(bus_, kL1pLinesEstablished, core, 1);
    Level level;
    const Cycle ready = ic_->read(core, line, at, Request::kPrefetch, timed, &level);
    const u32 slot = b.victim(line);
    evictL1p(core, slot);
    b.install(slot, line, timed ? ready : at);
    tracked(core, b, slot, line);
    b.setFlags(slot, Cache::kListPrefetched);
  }
}

// ---- Accesses ----

Cycle MemorySystem::fetchImpl(u32 core, u64 addr, Cycle at, bool timed) {
  Cache& c = l1i_[core];
  CacheStats& st = l1i_stats_[core];
  const u64 line = addr >> l1i_shift_;
  probe::count(bus_, Event::kL1iAccesses, core, st.accesses);
  u32 slot = c.find(line);
  if (slot != Cache::kNone) {
    probe::count(bus_, Event::kL1iHits, core, st.hits);
    c.touch(slot);
    return timed ? std::max(at + p_.l1i.hit_latency, c.ready(slot)) : at;
  }
  probe::count(bus_, Event::kL1iMisses, core, st.misses);
  Level level;
  const Cycle data = ic_->read(core, addr >> line_shift_, at, Request::kFetch, timed, &level);
  const Cycle ready = timed ? data + p_.l1i.hit_latency : at;
  slot = c.victim(line);
  if (c.valid(slot)) {
    probe::count(bus_, Event::kL1iEvictions, core, st.evictions);
    untracked(core, c, slot);
  }
  c.install(slot, line, ready);
  tracked(core, c, slot, line >> l1i_per_l2_shift_);
  return ready;
}

Cycle MemorySystem::fetchProbeMiss(u32 core, u64 addr, Cycle at) const {
  if (frames_ != nullptr) {
    const auto pa = frames_->peek(addr);
    if (!pa) return at + p_.ddr.latency + p_.l1i.hit_latency;  // a page not yet placed
    addr = *pa;
  }
  const Cache& c = l1i_[core];
  const u32 slot = c.find(addr >> l1i_shift_);
  if (slot != Cache::kNone) return std::max(at + p_.l1i.hit_latency, c.ready(slot));
  return ic_->probeRead(core, addr >> line_shift_, at) + p_.l1i.hit_latency;
}

LoadResult MemorySystem::loadImpl(u32 core, u64 addr, Cycle at, Cycle xbar_free, bool timed) {
  // (A snoop that passed the filter has the L1 in its cycles: the load waits for them.)
  if (timed && !snoop_.empty()) at = snoopFree(core, at);
  Cache& d = l1d_[core];
  CacheStats& dst = l1d_stats_[core];
  const u64 line = addr >> l1d_shift_;
  probe::count(bus_, Event::kL1dAccesses, core, dst.accesses);
  u32 slot = d.find(line);
  if (slot != Cache::kNone) {
    probe::count(bus_, Event::kL1dHits, core, dst.hits);
    d.touch(slot);
    return {timed ? std::max(at + p_.l1d.hit_latency, d.ready(slot)) : at, Level::kL1, false};
  }
  probe::count(bus_, Event::kL1dMisses, core, dst.misses);
  probe::count(bus_, Event::kL1dLoadMisses, core, miss_stats_[core].l1d_load_misses);
  LoadResult r;
  r.l1_miss = true;
  const u64 l2line = addr >> line_shift_;
  Cache& b = l1p_[core];
  CacheStats& bst = l1p_stats_[core];
  probe::count(bus_, Event::kL1pAccesses, core, bst.accesses);
  const u32 pslot = b.find(l2line);
  if (pslot != Cache::kNone) {
    probe::count(bus_, Event::kL1pHits, core, bst.hits);
    b.touch(pslot);
    r.ready = timed ? std::max(at + p_.l1p.hit_latency, b.ready(pslot)) : at;
    r.level = Level::kL1p;
    if (b.flags(pslot) & Cache::kPrefetched) {
      probe::count(bus_, Event::kL1pPrefetchHits, core, bst.prefetch_hits);
      b.setFlags(pslot, 0);
      if (timed && b.ready(pslot) > at) streamOnLateHit(core, l2line);
      if (stream_cores_[core].control.prefetch) streamPrefetch(core, l2line, at, timed, false);
    } else if (b.flags(pslot) & Cache::kListPrefetched) [[unlikely]] {
      probe::count(bus_, Event::kL1pListHits, core, l1p_extra_[core].list_hits);
      if (timed && b.ready(pslot) > at) {
        probe::count(bus_, Event::kL1pListLateHits, core, l1p_extra_[core].list_late_hits);
      }
      b.setFlags(pslot, 0);
    }
  } else {
    probe::count(bus_, Event::kL1pMisses, core, bst.misses);
    HPM_PROBE(bus_, kL1pLinesEstablished, core, 1);
    const Cycle departure = std::max(at, xbar_free);
    r.ready = ic_->read(core, l2line, departure, Request::kData, timed, &r.level);
    if (!timed) r.ready = at;
    readRequested(core, departure, r.ready);
    const u32 v = b.victim(l2line);
    evictL1p(core, v);
    b.install(v, l2line, r.ready);
    tracked(core, b, v, l2line);
    if (stream_cores_[core].control.prefetch) streamPrefetch(core, l2line, at, timed, true);
  }
  // (A list runs only between a start and a stop of the guest's: no cost otherwise.)
  if (lists_active_ != 0) [[unlikely]] {
    listOnMiss(core, l2line, at, timed);
  }
  slot = d.victim(line);
  if (d.valid(slot)) {
    probe::count(bus_, Event::kL1dEvictions, core, dst.evictions);
    untracked(core, d, slot);
  }
  d.install(slot, line, r.ready);
  tracked(core, d, slot, l2line);
  lineFilled(core, at, r.ready);
  return r;
}

void MemorySystem::storeImpl(u32 core, u64 addr, Cycle at, bool timed) {
  Cache& d = l1d_[core];
  CacheStats& dst = l1d_stats_[core];
  probe::count(bus_, Event::kL1dAccesses, core, dst.accesses);
  probe::count(bus_, Event::kL1dWrites, core, dst.writes);
  const u32 slot = d.find(addr >> l1d_shift_);
  if (slot != Cache::kNone) {
    probe::count(bus_, Event::kL1dHits, core, dst.hits);
    d.touch(slot);
  } else {
    probe::count(bus_, Event::kL1dMisses, core, dst.misses);
    probe::count(bus_, Event::kL1dStoreMisses, core, miss_stats_[core].l1d_store_misses);
  }
  if (!snoop_.empty()) snoopOthers(core, addr >> line_shift_, at, timed);
  ic_->storeIssued(core, addr >> line_shift_);
}

void MemorySystem::storeIssue(u32 core, u64 addr, Cycle at) {
  storeImpl(core, physical(addr, core), at, true);
}

Cycle MemorySystem::atomicImpl(u32 core, u64 addr, Cycle at, Cycle xbar_free, bool timed) {
  if (!snoop_.empty()) snoopOthers(core, addr >> line_shift_, at, timed);
  const Cycle ready = ic_->own(core, addr >> line_shift_, std::max(at, xbar_free), timed);
  return timed ? ready : at;
}

Cycle MemorySystem::atomic(u32 core, u64 addr, Cycle at, Cycle xbar_free) {
  return atomicImpl(core, physical(addr, core), at, xbar_free, true);
}

void MemorySystem::warmFetch(u32 core, u64 addr, Cycle now) {
  fetchImpl(core, physical(addr, core), now, false);
}
void MemorySystem::warmLoad(u32 core, u64 addr, Cycle now) {
  loadImpl(core, physical(addr, core), now, now, false);
}
void MemorySystem::warmStore(u32 core, u64 addr, Cycle now) {
  addr = physical(addr, core);
  storeImpl(core, addr, now, false);
  ic_->drain(core, addr >> line_shift_, 8, now, false);
}
void MemorySystem::warmAtomic(u32 core, u64 addr, Cycle now) {
  atomicImpl(core, physical(addr, core), now, now, false);
}

bool MemorySystem::timedOnly(probe::Event e) {
  using probe::Event;
  switch (e) {
    case Event::kL2BusyCycles:
    case Event::kDdrBusyCycles:
    case Event::kL3ReturnCollisions:
    case Event::kL3DirWaitCycles:
    case Event::kL3DepositWaitCycles:
    case Event::kL3AllocationWaitCycles:
    case Event::kL1pPrefetchPending:
    case Event::kL1pReadPending:
    case Event::kL1dFillPending: return true;
    default: return false;
  }
}

// ---- Statistics ----

// One row: `stat` (an expression of the model `m` and the instance `i`) is the event's count.
#define HPM_TRUTH(event, stat, changes)                                                     \
  probe::TruthRow<MemorySystem> {                                                           \
    probe::Event::event,                                                                    \
        [](const MemorySystem& m, u32 i, probe::TruthTerms& t) { t.push_back({&(stat)}); }, \
        probe::Changes::changes                                                             \
  }

// A level kept as an IntervalUnion `u`: its cycles, those still to come included, are done +
// until - from. Published as intervals that reach into the future, so counted from events only
// (as the core's queue-full levels).
#define HPM_TRUTH_UNION(event, u)                                               \
  probe::TruthRow<MemorySystem> {                                               \
    probe::Event::event,                                                        \
        [](const MemorySystem& m, u32 i, probe::TruthTerms& t) {                \
          t.insert(t.end(), {{&(u).done}, {&(u).until}, {&(u).from, ~u64{0}}}); \
        },                                                                      \
        probe::Changes::kAnytime, probe::Tally::kNone                           \
  }

// Instance i of a snoop port's event: core i / ports' port i % ports.
#define HPM_SNOOP_PORT m.snoop_[i / m.snoopPorts()].portStats(i % m.snoopPorts())

std::span<const probe::TruthRow<MemorySystem>> MemorySystem::truthTable() {
  // Invalidations come from other cores' accesses: the others are the core's own activity.
  static const probe::TruthRow<MemorySystem> kRows[] = {
      HPM_TRUTH(kL1iAccesses, m.l1i_stats_[i].accesses, kOwnCore),
      HPM_TRUTH(kL1iHits, m.l1i_stats_[i].hits, kOwnCore),
      HPM_TRUTH(kL1iMisses, m.l1i_stats_[i].misses, kOwnCore),
      HPM_TRUTH(kL1iEvictions, m.l1i_stats_[i].evictions, kOwnCore),
      HPM_TRUTH(kL1iInvalidations, m.l1i_stats_[i].invalidations, kAnytime),
      HPM_TRUTH(kL1dAccesses, m.l1d_stats_[i].accesses, kOwnCore),
      HPM_TRUTH(kL1dHits, m.l1d_stats_[i].hits, kOwnCore),
      HPM_TRUTH(kL1dMisses, m.l1d_stats_[i].misses, kOwnCore),
      HPM_TRUTH(kL1dLoadMisses, m.miss_stats_[i].l1d_load_misses, kOwnCore),
      HPM_TRUTH(kL1dStoreMisses, m.miss_stats_[i].l1d_store_misses, kOwnCore),
      HPM_TRUTH(kL1dWrites, m.l1d_stats_[i].writes, kOwnCore),
      HPM_TRUTH(kL1dEvictions, m.l1d_stats_[i].evictions, kOwnCore),
      HPM_TRUTH(kL1dInvalidations, m.l1d_stats_[i].invalidations, kAnytime),
      HPM_TRUTH(kL1pAccesses, m.l1p_stats_[i].accesses, kOwnCore),
      HPM_TRUTH(kL1pHits, m.l1p_stats_[i].hits, kOwnCore),
      HPM_TRUTH(kL1pMisses, m.l1p_stats_[i].misses, kOwnCore),
      HPM_TRUTH(kL1pPrefetches, m.l1p_stats_[i].prefetches, kOwnCore),
      HPM_TRUTH(kL1pPrefetchHits, m.l1p_stats_[i].prefetch_hits, kOwnCore),
      HPM_TRUTH(kL1pEvictions, m.l1p_stats_[i].evictions, kOwnCore),
      HPM_TRUTH(kL1pInvalidations, m.l1p_stats_[i].invalidations, kAnytime),
      HPM_TRUTH(kL1pStreamsEstablished, m.l1p_extra_[i].streams_established, kOwnCore),
      HPM_TRUTH(kL1pEvictUnused, m.l1p_extra_[i].evict_unused, kOwnCore),
      HPM_TRUTH(kL1pStreamLateHits, m.l1p_extra_[i].late_hits, kOwnCore),
      HPM_TRUTH(kL1pDepthSteals, m.l1p_extra_[i].depth_steals, kOwnCore),
      // Every line the L1P fills: a demand miss's, a stream's or a list's prefetch.
      probe::TruthRow<MemorySystem>{probe::Event::kL1pLinesEstablished,
                                    [](const MemorySystem& m, u32 i, probe::TruthTerms& t) {
                                      t.push_back({&m.l1p_stats_[i].misses});
                                      t.push_back({&m.l1p_stats_[i].prefetches});
                                      const u32 n = m.p_.threads_per_core;
                                      for (u32 k = i * n; k < (i + 1) * n; ++k) {
                                        t.push_back({&m.list_stats_[k].prefetches});
                                      }
                                    },
                                    probe::Changes::kOwnCore},
      HPM_TRUTH(kL1pListHits, m.l1p_extra_[i].list_hits, kOwnCore),
      HPM_TRUTH(kL1pListLateHits, m.l1p_extra_[i].list_late_hits, kOwnCore),
      // (A list prefetcher changes with its own thread's accesses and register writes only.)
      HPM_TRUTH(kL1pListStarted, m.list_stats_[i].started, kOwnCore),
      HPM_TRUTH(kL1pListCompares, m.list_stats_[i].compares, kOwnCore),
      HPM_TRUTH(kL1pListSkip1, m.list_stats_[i].skip_by[1], kOwnCore),
      HPM_TRUTH(kL1pListSkip2, m.list_stats_[i].skip_by[2], kOwnCore),
      HPM_TRUTH(kL1pListSkip3, m.list_stats_[i].skip_by[3], kOwnCore),
      HPM_TRUTH(kL1pListSkip4, m.list_stats_[i].skip_by[4], kOwnCore),
      HPM_TRUTH(kL1pListSkip5, m.list_stats_[i].skip_by[5], kOwnCore),
      HPM_TRUTH(kL1pListSkip6, m.list_stats_[i].skip_by[6], kOwnCore),
      HPM_TRUTH(kL1pListSkip7, m.list_stats_[i].skip_by[7], kOwnCore),
      HPM_TRUTH(kL1pListSkips, m.list_stats_[i].skips, kOwnCore),
      HPM_TRUTH(kL1pListMismatches, m.list_stats_[i].mismatches, kOwnCore),
      HPM_TRUTH(kL1pListAbandons, m.list_stats_[i].abandons, kOwnCore),
      HPM_TRUTH(kL1pListOverflows, m.list_stats_[i].overflows, kOwnCore),
      HPM_TRUTH(kL1pListOverruns, m.list_stats_[i].overruns, kOwnCore),
      HPM_TRUTH(kL1pListPrefetches, m.list_stats_[i].prefetches, kOwnCore),
      // The snoop filters change with the other cores' stores and atomics.
      HPM_TRUTH(kSnoopRequests, HPM_SNOOP_PORT.requests, kAnytime),
      HPM_TRUTH(kSnoopCacheRejected, HPM_SNOOP_PORT.cache_rejected, kAnytime),
      HPM_TRUTH(kSnoopRegisterRejected, HPM_SNOOP_PORT.register_rejected, kAnytime),
      HPM_TRUTH(kSnoopBothRejected, HPM_SNOOP_PORT.both_rejected, kAnytime),
      HPM_TRUTH(kSnoopRejected, HPM_SNOOP_PORT.rejected, kAnytime),
      HPM_TRUTH(kSnoopActiveHits, HPM_SNOOP_PORT.active_hits, kAnytime),
      HPM_TRUTH(kSnoopHistoryHits, HPM_SNOOP_PORT.history_hits, kAnytime),
      HPM_TRUTH(kSnoopCacheUpdates, HPM_SNOOP_PORT.cache_updates, kAnytime),
      HPM_TRUTH(kSnoopWraps, m.snoop_[i].wraps(), kAnytime),
      // The signals of the L2 prefetch unit's events (l1p_signals.cpp).
      HPM_TRUTH(kL1pPrefetchAlreadyPresent, m.signals_[i].already_present, kOwnCore),
      HPM_TRUTH_UNION(kL1pPrefetchPending, m.signals_[i].prefetch_pending),
      HPM_TRUTH_UNION(kL1pReadPending, m.signals_[i].read_pending),
      HPM_TRUTH_UNION(kL1dFillPending, m.signals_[i].fill_pending),
  };
  return kRows;
}

#undef HPM_SNOOP_PORT
#undef HPM_TRUTH_UNION
#undef HPM_TRUTH

void MemorySystem::registerTallies(probe::Bus& bus,
                                   const std::function<const u64*(u32)>& core_version) const {
  probe::registerTallies(bus, truthTable(), *this, core_version,
                         [](u32) -> const u64* { return nullptr; });
  ic_->registerTallies(bus, core_version);
}

void MemorySystem::visitLists(u32 core, stats::Visitor& v) const {
  // The core's hardware threads' list prefetchers together (each thread's: the events).
  ListStats sum;
  for (u32 t = core * p_.threads_per_core; t < (core + 1) * p_.threads_per_core; ++t) {
    const ListStats& s = list_stats_[t];
    sum.started += s.started;
    sum.compares += s.compares;
    sum.skips += s.skips;
    sum.mismatches += s.mismatches;
    sum.abandons += s.abandons;
    sum.overflows += s.overflows;
    sum.overruns += s.overruns;
    sum.prefetches += s.prefetches;
  }
  v.beginGroup("l1p_list");
  v.counter("started", sum.started, probe::describe(Event::kL1pListStarted));
  v.counter("compares", sum.compares, probe::describe(Event::kL1pListCompares));
  v.counter("skips", sum.skips, probe::describe(Event::kL1pListSkips));
  v.counter("mismatches", sum.mismatches, probe::describe(Event::kL1pListMismatches));
  v.counter("abandons", sum.abandons, probe::describe(Event::kL1pListAbandons));
  v.counter("overflows", sum.overflows, probe::describe(Event::kL1pListOverflows));
  v.counter("overruns", sum.overruns, probe::describe(Event::kL1pListOverruns));
  v.counter("prefetches", sum.prefetches, probe::describe(Event::kL1pListPrefetches));
  v.counter("hits", l1p_extra_[core].list_hits, probe::describe(Event::kL1pListHits));
  v.counter("late_hits", l1p_extra_[core].list_late_hits, probe::describe(Event::kL1pListLateHits));
  v.endGroup();
}

void MemorySystem::visitCoreStats(u32 core, stats::Visitor& v) const {
  visitCache(v, stat::kL1i, l1i_stats_[core], kL1iEvents);
  visitCache(v, stat::kL1d, l1d_stats_[core], kL1dEvents);
  visitCache(v, stat::kL1p, l1p_stats_[core], kL1pEvents);
  if (lists_used_) visitLists(core, v);
  v.beginGroup("traffic");
  v.counter("l1d_load_misses", miss_stats_[core].l1d_load_misses,
            probe::describe(Event::kL1dLoadMisses));
  v.counter("l1d_store_misses", miss_stats_[core].l1d_store_misses,
            probe::describe(Event::kL1dStoreMisses));
  ic_->visitCoreTraffic(core, v);
  v.endGroup();
  if (!snoop_.empty()) snoop_[core].visit(v);
}

}  // namespace hpm::mem
