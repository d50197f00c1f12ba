// Unit tests of the signals of Blue Gene/P's L2 prefetch unit events (mem/l1p_signals.cpp,
// docs/timing.md "L1P"): the union of intervals they keep, a prefetch dropped for a line the L1P
// holds (once per access), and the three levels, each exactly the union of its requests'
// intervals from issue to fill, on small access sequences whose fill times the loads return.
#include <gtest/gtest.h>

#include <algorithm>

#include "base/interval_union.h"
#include "mem/memory_system.h"

namespace hpm::mem {
namespace {

TEST(IntervalUnion, CountsEachCycleOnceAndReturnsOnlyTheNewlyCoveredPart) {
  IntervalUnion u;
  EXPECT_EQ(u.add(10, 20), (std::pair<Cycle, Cycle>{10, 20}));
  EXPECT_EQ(u.add(12, 18).first, u.add(12, 18).second);  // inside: nothing new
  EXPECT_EQ(u.add(15, 30), (std::pair<Cycle, Cycle>{20, 30}));
  EXPECT_EQ(u.add(30, 31), (std::pair<Cycle, Cycle>{30, 31}));  // abutting: the same run
  EXPECT_EQ(u.total(), 21u);
  EXPECT_EQ(u.add(40, 45), (std::pair<Cycle, Cycle>{40, 45}));  // a gap: a new run
  EXPECT_EQ(u.add(41, 41).first, u.add(41, 41).second);         // empty
  EXPECT_EQ(u.total(), 26u);
  EXPECT_EQ(u.done + u.until - u.from, u.total());  // the terms of the ground truth
}

MemParams oneCore(u32 depth) {
  MemParams p;
  p.cores = 1;
  p.l1p.prefetch_depth = depth;
  p.l1p.adaptive = false;  // (a fixed depth: stream_prefetcher_test.cpp holds the adaptation)
  return p;
}

constexpr u64 kLine = 128;  // the L1P's line (MemParams' default L2 line)

TEST(L1pSignals, AnAccessWhosePrefetchDropsHeldLinesCountsOnce) {
  MemorySystem m(oneCore(2));
  const u64 x = 0x100;
  Cycle at = 0;
  // Misses to x, x + 2 and x + 3: x + 3 continues x + 2's candidate (established: prefetches
  // x + 4 and x + 5). Then x + 1 continues x's: its prefetch would request x + 2 and x + 3, both
  // held, and drops them: one access.
  for (u64 line : {x, x + 2, x + 3}) at = m.load(0, line * kLine, at, 0).ready;
  EXPECT_EQ(m.l1pExtraStats(0).streams_established, 1u);
  EXPECT_EQ(m.l1pSignals(0).already_present, 0u);
  const u64 prefetches = m.l1pStats(0).prefetches;
  EXPECT_EQ(prefetches, 2u);
  at = m.load(0, (x + 1) * kLine, at, 0).ready;
  EXPECT_EQ(m.l1pExtraStats(0).streams_established, 2u);
  EXPECT_EQ(m.l1pSignals(0).already_present, 1u);
  EXPECT_EQ(m.l1pStats(0).prefetches, prefetches);  // nothing requested
  // A first hit on prefetched x + 4 continues the first stream: x + 6 is requested, none held.
  m.load(0, (x + 4) * kLine, at, 0);
  EXPECT_EQ(m.l1pStats(0).prefetches, prefetches + 1);
  EXPECT_EQ(m.l1pSignals(0).already_present, 1u);
}

TEST(L1pSignals, TheLevelsAreTheUnionsOfTheRequestsFromIssueToFill) {
  MemorySystem m(oneCore(2));
  const u32 hit = m.params().l1p.hit_latency;
  const u64 x = 0x200;
  // Two misses (x, then x + 1 at x's fill) establish a stream, which prefetches x + 2 and x + 3
  // at x + 1's issue, r0. Loads right after it find those lines in flight, so each returns its
  // prefetch's fill: x + 3 (not the stream's next line: no prefetch), x + 2 (the next line: it
  // prefetches x + 4 at its issue), x + 4 (past the stream's next line: no prefetch).
  const LoadResult a = m.load(0, x * kLine, 0, 0);
  const Cycle r0 = a.ready;
  const LoadResult b = m.load(0, (x + 1) * kLine, r0, 0);
  const LoadResult p3 = m.load(0, (x + 3) * kLine, r0 + 1, 0);
  const LoadResult p2 = m.load(0, (x + 2) * kLine, r0 + 2, 0);
  const LoadResult p4 = m.load(0, (x + 4) * kLine, r0 + 3, 0);
  EXPECT_EQ(m.l1pStats(0).misses, 2u);
  EXPECT_EQ(m.l1pStats(0).prefetches, 3u);
  EXPECT_EQ(m.l1pStats(0).prefetch_hits, 3u);
  // Each was still in flight: the load's ready is the prefetch's fill.
  EXPECT_GT(p3.ready, r0 + 1 + hit);
  EXPECT_GT(p2.ready, r0 + 2 + hit);
  EXPECT_GT(p4.ready, r0 + 3 + hit);
  const L1pSignalStats& s = m.l1pSignals(0);
  // Demand reads: [0, r0) and [r0, b's fill): one run.
  EXPECT_EQ(s.read_pending.total(), b.ready);
  // Prefetches: [r0, p2) and [r0, p3) from r0, [r0 + 2, p4): one run to the last fill.
  EXPECT_EQ(s.prefetch_pending.total(), std::max({p2.ready, p3.ready, p4.ready}) - r0);
  // L1D fills: every load missed the L1D; [0, r0), [r0, b), [r0 + 1, p3) ...: one run.
  EXPECT_EQ(s.fill_pending.total(), std::max({b.ready, p2.ready, p3.ready, p4.ready}));
  EXPECT_EQ(m.l1dStats(0).misses, 5u);
  // A later miss, after a gap, starts a new run of each: exactly its own interval.
  const Cycle later = 100'000;
  const LoadResult c = m.load(0, 0x9000 * kLine, later, 0);
  EXPECT_EQ(s.read_pending.total(), b.ready + (c.ready - later));
  EXPECT_EQ(s.fill_pending.total(),
            std::max({b.ready, p2.ready, p3.ready, p4.ready}) + (c.ready - later));
}

TEST(L1pSignals, UntimedAccessesRaiseNoLevel) {
  MemorySystem m(oneCore(2));
  for (u64 line = 0x300; line < 0x310; ++line) m.warmLoad(0, line * kLine, 10 * line);
  EXPECT_GT(m.l1pStats(0).prefetches, 0u);
  EXPECT_EQ(m.l1pSignals(0).prefetch_pending.total(), 0u);
  EXPECT_EQ(m.l1pSignals(0).read_pending.total(), 0u);
  EXPECT_EQ(m.l1pSignals(0).fill_pending.total(), 0u);
}

}  // namespace
}  // namespace hpm::mem
