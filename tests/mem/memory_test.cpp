// Unit tests of the memory hierarchy: the tag arrays, the L1D/L1P/L2/DDR timing of single
// accesses, the stream prefetcher, coherence, and parameter validation (docs/timing.md "Memory").
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "base/error.h"
#include "mem/cache.h"
#include "mem/crossbar.h"
#include "mem/memory_system.h"
#include "stats/probe.h"

namespace hpm::mem {
namespace {

// ---- Cache ----

TEST(Cache, FindsInstalledLinesAndNothingElse) {
  Cache c(4, 2, 0, Replacement::kLru, 1);
  EXPECT_EQ(c.find(5), Cache::kNone);
  const u32 s = c.victim(5);
  c.install(s, 5, 100);
  EXPECT_EQ(c.find(5), s);
  EXPECT_EQ(c.ready(s), 100u);
  EXPECT_EQ(c.find(9), Cache::kNone);  // same set (9 & 3 == 1), other tag
}

TEST(Cache, FindAnswersTheLinesCurrentSlotAfterItsSlotWasReusedOrItMoved) {
  // (find() remembers the slot it found last per line's low bits: a remembered slot that holds
  // another line now, or none, must not be answered.)
  Cache c(1, 4, 0, Replacement::kLru, 1);
  const u32 first = c.victim(5);
  c.install(first, 5, 0);
  ASSERT_EQ(c.find(5), first);  // remembered
  c.invalidate(first);
  EXPECT_EQ(c.find(5), Cache::kNone);
  c.install(first, 5 + 256, 0);  // the same low bits, in the remembered slot
  EXPECT_EQ(c.find(5), Cache::kNone);
  EXPECT_EQ(c.find(5 + 256), first);
  const u32 other = first == 0 ? 1 : 0;
  c.install(other, 5, 0);  // the line again, in another slot
  EXPECT_EQ(c.find(5), other);
  EXPECT_EQ(c.find(5 + 256), first);
}

TEST(Cache, LruEvictsTheLeastRecentlyUsedLine) {
  Cache c(1, 2, 0, Replacement::kLru, 1);
  c.install(c.victim(10), 10, 0);
  c.install(c.victim(11), 11, 0);
  c.touch(c.find(10));  // 11 is now the least recently used
  EXPECT_EQ(c.tag(c.victim(12)), 11u);
}

TEST(Cache, FifoEvictsTheOldestFillEvenIfItWasJustHit) {
  Cache c(1, 2, 0, Replacement::kFifo, 1);
  c.install(c.victim(10), 10, 0);
  c.install(c.victim(11), 11, 0);
  c.touch(c.find(10));
  EXPECT_EQ(c.tag(c.victim(12)), 10u);
}

TEST(Cache, RandomReplacementIsDeterministicForASeed) {
  auto victims = [](u64 seed) {
    Cache c(1, 8, 0, Replacement::kRandom, seed);
    for (u64 l = 0; l < 8; ++l) c.install(c.victim(l), l, 0);
    std::vector<u64> v;
    for (u64 l = 8; l < 40; ++l) {
      const u32 s = c.victim(l);
      v.push_back(c.tag(s));
      c.install(s, l, 0);
    }
    return v;
  };
  EXPECT_EQ(victims(7), victims(7));
  EXPECT_NE(victims(7), victims(8));
}

TEST(Cache, InvalidSlotsAreFilledBeforeAnyEviction) {
  Cache c(1, 4, 0, Replacement::kLru, 1);
  c.install(c.victim(1), 1, 0);
  c.install(c.victim(2), 2, 0);
  c.invalidate(c.find(1));
  EXPECT_FALSE(c.valid(c.victim(3)));
}

TEST(Cache, SetShiftSkipsTheSliceBits) {
  // Lines 0..3 differ only in the two bits a 4-slice L2 uses for the slice: same set.
  Cache c(8, 1, 2, Replacement::kLru, 1);
  c.install(c.victim(0), 0, 0);
  EXPECT_EQ(c.tag(c.victim(3)), 0u);   // 3 >> 2 == 0: conflicts with line 0
  EXPECT_FALSE(c.valid(c.victim(4)));  // 4 >> 2 == 1: another set
}

// ---- Memory system ----

// The crossbar below m's private caches (its statistics are the crossbar's own).
const Crossbar& xbar(const MemorySystem& m) {
  return dynamic_cast<const Crossbar&>(m.interconnect());
}

MemParams small() {
  MemParams p;
  p.cores = 2;
  return p;
}

TEST(MemorySystem, ColdLoadIsServedByDdrThenL1ThenL1p) {
  MemParams p = small();
  p.l1p.prefetch = false;
  MemorySystem m(p);
  const u64 a = 0x100000;
  LoadResult r = m.load(0, a, 1000, 0);
  EXPECT_EQ(r.level, Level::kDdr);
  EXPECT_TRUE(r.l1_miss);
  EXPECT_EQ(r.ready, 1000u + p.ddr.latency);
  // The same line later: an L1D hit of hit_latency cycles.
  r = m.load(0, a + 8, 2000, 0);
  EXPECT_EQ(r.level, Level::kL1);
  EXPECT_FALSE(r.l1_miss);
  EXPECT_EQ(r.ready, 2000u + p.l1d.hit_latency);
  // The other 64-byte half of the 128-byte L2 line came into the L1P with it.
  r = m.load(0, a + 64, 3000, 0);
  EXPECT_EQ(r.level, Level::kL1p);
  EXPECT_EQ(r.ready, 3000u + p.l1p.hit_latency);
  // Another core: the L2 has the line.
  r = m.load(1, a, 4000, 0);
  EXPECT_EQ(r.level, Level::kL2);
  EXPECT_EQ(r.ready, 4000u + p.l2.hit_latency);
  EXPECT_EQ(m.l1dStats(0).accesses, 3u);
  EXPECT_EQ(m.l1dStats(0).hits, 1u);
  EXPECT_EQ(m.l1dStats(0).misses, 2u);
  EXPECT_EQ(m.l1pStats(0).hits, 1u);
}

TEST(MemorySystem, ALoadToALineInFlightWaitsForItsFill) {
  MemParams p = small();
  MemorySystem m(p);
  const LoadResult first = m.load(0, 0x100000, 100, 0);
  const LoadResult second = m.load(0, 0x100008, 101, 0);
  EXPECT_FALSE(second.l1_miss);  // the line is allocated at the miss
  EXPECT_EQ(second.ready, first.ready);
}

TEST(MemorySystem, L1dIsWriteThroughWithNoAllocationOnAStoreMiss) {
  MemorySystem m(small());
  m.storeIssue(0, 0x200000, 10);
  EXPECT_FALSE(m.l1dPresent(0, 0x200000));
  EXPECT_EQ(m.l1dStats(0).writes, 1u);
  EXPECT_EQ(m.l1dStats(0).misses, 1u);
  m.load(0, 0x200000, 20, 0);
  m.storeIssue(0, 0x200000, 1000);  // a hit: updated in place
  EXPECT_TRUE(m.l1dPresent(0, 0x200000));
  EXPECT_EQ(m.l1dStats(0).hits, 1u);
  EXPECT_EQ(m.l1dStats(0).writebacks, 0u);
}

TEST(MemorySystem, L1dLruEvictsAfterWaysConflictingLines) {
  MemParams p = small();
  MemorySystem m(p);
  const u64 stride = u64{p.l1d.sets()} * p.l1d.line_bytes;  // same set
  for (u64 i = 0; i <= p.l1d.ways; ++i) m.load(0, 0x400000 + i * stride, 10 * i, 0);
  EXPECT_FALSE(m.l1dPresent(0, 0x400000));  // the first of ways + 1 lines is gone
  EXPECT_TRUE(m.l1dPresent(0, 0x400000 + stride));
  EXPECT_EQ(m.l1dStats(0).evictions, 1u);
}

TEST(MemorySystem, StoreRemovesTheLineFromOtherCoresOnly) {
  MemorySystem m(small());
  const u64 a = 0x300000;
  m.load(0, a, 10, 0);
  m.load(1, a, 20, 0);
  ASSERT_TRUE(m.l1dPresent(1, a));
  m.storeIssue(0, a, 30);
  EXPECT_TRUE(m.l1dPresent(0, a));
  EXPECT_FALSE(m.l1dPresent(1, a));
  EXPECT_EQ(m.l1dStats(1).invalidations, 1u);
  EXPECT_EQ(m.l1pStats(1).invalidations, 1u);
  // Core 1 reads it again from the L2: a true-sharing miss.
  const LoadResult r = m.load(1, a, 1000, 0);
  EXPECT_EQ(r.level, Level::kL2);
}

TEST(MemorySystem, StoreInvalidatesBothL1dHalvesOfTheL2Line) {
  MemorySystem m(small());
  const u64 a = 0x300000;
  m.load(1, a, 10, 0);
  m.load(1, a + 64, 1000, 0);
  m.storeIssue(0, a + 64, 2000);
  EXPECT_FALSE(m.l1dPresent(1, a));
  EXPECT_FALSE(m.l1dPresent(1, a + 64));
  EXPECT_EQ(m.l1dStats(1).invalidations, 2u);
}

TEST(MemorySystem, AtomicGoesToTheL2AndInvalidatesEveryCopy) {
  MemParams p = small();
  MemorySystem m(p);
  const u64 a = 0x500000;
  m.load(0, a, 10, 0);
  m.load(1, a, 20, 0);
  const Cycle ready = m.atomic(0, a, 1000, 0);
  EXPECT_EQ(ready, 1000u + p.l2.hit_latency);
  EXPECT_FALSE(m.l1dPresent(0, a));
  EXPECT_FALSE(m.l1dPresent(1, a));
}

// A device (the message unit) writing memory goes through the L2 and takes the cores' copies
// away; its reads are L2 requests too; no core is charged.
TEST(MemorySystem, ADeviceWriteGoesToTheL2AndRemovesEveryCoresCopy) {
  MemParams p = small();
  p.l1p.prefetch = false;
  MemorySystem m(p);
  const u64 a = 0x600000;
  m.load(0, a, 10, 0);
  m.load(1, a, 20, 0);
  const u32 sid = xbar(m).sliceOf(a);
  const SliceStats before = xbar(m).sliceStats(sid);
  m.deviceLines(a + 8, 16, 1000, true, true);
  EXPECT_FALSE(m.l1dPresent(0, a));
  EXPECT_FALSE(m.l1dPresent(1, a));
  EXPECT_EQ(xbar(m).sliceStats(sid).requests, before.requests + 1);
  EXPECT_EQ(xbar(m).sliceStats(sid).writes, before.writes + 1);
  EXPECT_EQ(xbar(m).sliceStats(sid).bytes, before.bytes + 16);
  EXPECT_EQ(xbar(m).sliceStats(sid).hits, before.hits + 1);
  EXPECT_EQ(xbar(m).trafficStats(0).l2_writes, 0u);  // no core's request
  // The receiving core reads the written line from the L2.
  EXPECT_EQ(m.load(0, a, 5000, 0).level, Level::kL2);
}

TEST(MemorySystem, ADeviceAccessMissReadsDdrUnlessAWriteCoversTheWholeLine) {
  MemParams p = small();
  MemorySystem m(p);
  const u64 line = p.l2.line_bytes;
  const u64 a = 0x700000;
  u64 ddr_reads = 0;
  const auto reads = [&] {
    u64 n = 0;
    for (u32 c = 0; c < p.ddr.controllers; ++c) n += xbar(m).ddrStats(c).reads;
    return n;
  };
  m.deviceLines(a, line, 100, true, true);  // whole line: nothing to read
  EXPECT_EQ(reads(), ddr_reads);
  m.deviceLines(a + 4 * line, 8, 200, true, true);  // part of a line: the rest from DDR
  EXPECT_EQ(reads(), ++ddr_reads);
  m.deviceLines(a + 8 * line, 2 * line, 300, false, true);  // two lines read: two misses
  EXPECT_EQ(reads(), ddr_reads += 2);
  m.deviceLines(a + 8 * line, 2 * line, 400, false, true);  // now both in the L2
  EXPECT_EQ(reads(), ddr_reads);
  // A core's load of a line the device wrote whole hits the L2.
  EXPECT_EQ(m.load(0, a, 5000, 0).level, Level::kL2);
}

// What the message unit's ports' model reads of a device access (mem::DeviceLineTimes): each
// line's first byte, when the slice took it and when it was done, a miss later than a hit; both
// the access's cycle untimed.
TEST(MemorySystem, ADeviceAccessGivesEachLinesTakenAndDoneCycles) {
  MemParams p = small();
  MemorySystem m(p);
  const u64 line = p.l2.line_bytes;
  const u64 a = 0x740000;
  std::vector<DeviceLineTimes> t;
  m.deviceLines(a, 2 * line, 300, false, true, &t);  // two misses
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].addr, a);
  EXPECT_EQ(t[1].addr, a + line);
  for (const DeviceLineTimes& l : t) {
    EXPECT_GE(l.taken, 300u);
    EXPECT_GT(l.done, l.taken + p.l2.hit_latency);  // from DDR
  }
  t.clear();
  m.deviceLines(a + 8, 8, 5000, false, true, &t);  // a hit
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].addr, a);
  EXPECT_EQ(t[0].done, t[0].taken + p.l2.hit_latency);
  t.clear();
  m.deviceLines(a + 8, 8, 6000, true, false, &t);  // untimed
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].taken, 6000u);
  EXPECT_EQ(t[0].done, 6000u);
}

TEST(MemorySystem, QueuedStoresDelayALoadsL2Request) {
  MemParams p = small();
  MemorySystem m(p);
  m.load(1, 0x600000, 0, 0);  // now in the L2
  const LoadResult r = m.load(0, 0x600000, 1000, 1040);
  EXPECT_EQ(r.ready, 1040u + p.l2.hit_latency);
}

// small() without prefetching, with the crossbar's data widths given (0: no limit).
MemParams withWidths(u32 slice_bytes, u32 port_bytes) {
  MemParams p = small();
  p.l1p.prefetch = false;
  p.l2.slice_bytes_per_cycle = slice_bytes;
  p.l2.core_port_bytes_per_cycle = port_bytes;
  return p;
}

// The first line after `a` in a's slice, after core 1 has read both into the L2.
u64 secondLineOfTheSlice(MemorySystem& m, u64 a) {
  u64 b = a + 128;
  while (xbar(m).sliceOf(b) != xbar(m).sliceOf(a)) b += 128;
  m.load(1, a, 0, 0);
  m.load(1, b, 0, 0);
  return b;
}

TEST(MemorySystem, SlicePortServesOneRequestPerBusyPeriod) {
  // The request rule alone (the data widths: the next tests).
  const MemParams p = withWidths(0, 0);
  MemorySystem m(p);
  const u64 a = 0x700000;
  const u64 b = secondLineOfTheSlice(m, a);
  const LoadResult ra = m.load(0, a, 5000, 0);
  const LoadResult rb = m.load(0, b, 5000, 0);
  EXPECT_EQ(ra.ready, 5000u + p.l2.hit_latency);
  EXPECT_EQ(rb.ready, 5000u + p.l2.slice_busy_cycles + p.l2.hit_latency);
  EXPECT_EQ(xbar(m).sliceStats(xbar(m).sliceOf(a)).busy_cycles, 4u * p.l2.slice_busy_cycles);
}

TEST(MemorySystem, AReadHoldsItsSliceForTheLineOverTheSlicesWidth) {
  for (u32 width : {16u, 4u}) {
    const MemParams p = withWidths(width, 0);
    MemorySystem m(p);
    const u64 a = 0x700000;
    const u64 b = secondLineOfTheSlice(m, a);
    const u64 hold = 128 / width;  // 8 or 32 cycles, above slice_busy_cycles (2)
    EXPECT_EQ(m.load(0, a, 5000, 0).ready, 5000u + p.l2.hit_latency) << width;
    EXPECT_EQ(m.load(0, b, 5000, 0).ready, 5000u + hold + p.l2.hit_latency) << width;
    EXPECT_EQ(xbar(m).sliceStats(xbar(m).sliceOf(a)).busy_cycles, 4u * hold) << width;
  }
}

TEST(MemorySystem, ACoresReadsLeaveOneLinePerLineOverItsPortsWidth) {
  for (u32 width : {16u, 8u}) {
    const MemParams p = withWidths(0, width);
    MemorySystem m(p);
    // Three lines of three different slices, in the L2 (read by core 1).
    std::vector<u64> lines = {0x700000};
    for (u64 x = 0x700080; lines.size() < 3; x += 128) {
      bool fresh = true;
      for (u64 l : lines) fresh = fresh && xbar(m).sliceOf(l) != xbar(m).sliceOf(x);
      if (fresh) lines.push_back(x);
    }
    for (u64 l : lines) m.load(1, l, 0, 0);
    const u64 hold = 128 / width;
    // Core 0 reads them in one cycle: the k-th leaves k holds later; core 1's port is its own.
    for (u64 k = 0; k < 3; ++k) {
      EXPECT_EQ(m.load(0, lines[k], 5000, 0).ready, 5000 + k * hold + p.l2.hit_latency) << width;
    }
    EXPECT_EQ(xbar(m).trafficStats(0).port_busy_cycles, 3 * hold) << width;
    EXPECT_EQ(xbar(m).trafficStats(0).port_wait_cycles, hold + 2 * hold) << width;
    // An atomic's 8-byte result holds the port one cycle (8 / width rounded up).
    const u64 before = xbar(m).trafficStats(1).port_busy_cycles;
    m.atomic(1, lines[0] + 8, 9000, 0);
    EXPECT_EQ(xbar(m).trafficStats(1).port_busy_cycles - before, 1u) << width;
  }
}

TEST(MemorySystem, DdrControllerTransfersOneLineAtATime) {
  MemParams p = small();
  p.l1p.prefetch = false;
  MemorySystem m(p);
  const u32 busy = p.ddr.busyCycles(p.l2.line_bytes);
  EXPECT_EQ(busy, 10u);  // ceil(128 / 13.33)
  const u64 a = 0x800000;
  u64 b = a + 128;
  while (m.controllerOf(b) != m.controllerOf(a) || xbar(m).sliceOf(b) == xbar(m).sliceOf(a))
    b += 128;
  const LoadResult ra = m.load(0, a, 100, 0);
  const LoadResult rb = m.load(0, b, 100, 0);
  EXPECT_EQ(ra.ready, 100u + p.ddr.latency);
  EXPECT_EQ(rb.ready, 100u + busy + p.ddr.latency);
  const DdrStats& s = xbar(m).ddrStats(m.controllerOf(a));
  EXPECT_EQ(s.reads, 2u);
  EXPECT_EQ(s.bytes, 256u);
  EXPECT_EQ(s.busy_cycles, 2u * busy);
}

TEST(MemorySystem, SlicesAndControllersSpreadSequentialLines) {
  MemorySystem m(small());
  std::vector<int> slices(16), ctrl(2);
  for (u64 l = 0; l < 1024; ++l) {
    ++slices[xbar(m).sliceOf(l * 128)];
    ++ctrl[m.controllerOf(l * 128)];
  }
  for (int n : slices) EXPECT_EQ(n, 64);
  EXPECT_EQ(ctrl[0], 512);
}

TEST(MemorySystem, StreamPrefetcherStartsOnTheSecondSequentialMiss) {
  MemParams p = small();
  p.l1p.prefetch_depth = 2;  // (a fixed depth of two: tests/mem/stream_prefetcher_test.cpp
  p.l1p.adaptive = false;    // holds bgq's depth and its adaptation)
  MemorySystem m(p);
  const u64 a = 0x900000;
  m.load(0, a, 0, 0);  // L1P line n: a new stream
  EXPECT_EQ(m.l1pStats(0).prefetches, 0u);
  m.load(0, a + 128, 1000, 0);  // line n + 1 confirms it: n + 2, n + 3 are fetched
  EXPECT_EQ(m.l1pStats(0).prefetches, 2u);
  const LoadResult r = m.load(0, a + 256, 5000, 0);
  EXPECT_EQ(r.level, Level::kL1p);
  EXPECT_EQ(m.l1pStats(0).prefetch_hits, 1u);
  EXPECT_EQ(m.l1pStats(0).prefetches, 3u);  // and n + 4, to stay two ahead
}

TEST(MemorySystem, AHitOnAPrefetchInFlightWaitsForIt) {
  MemParams p = small();
  MemorySystem m(p);
  const u64 a = 0xA00000;
  m.load(0, a, 0, 0);
  m.load(0, a + 128, 1000, 0);  // prefetches a + 256 from DDR at cycle 1000
  const LoadResult r = m.load(0, a + 256, 1001, 0);
  EXPECT_EQ(r.level, Level::kL1p);
  EXPECT_GT(r.ready, 1001u + p.l1p.hit_latency);
  EXPECT_GE(r.ready, 1000u + p.ddr.latency);
}

TEST(MemorySystem, PrefetchOffMeansNoPrefetches) {
  MemParams p = small();
  p.l1p.prefetch = false;
  MemorySystem m(p);
  for (u64 i = 0; i < 8; ++i) m.load(0, 0xB00000 + 128 * i, 1000 * i, 0);
  EXPECT_EQ(m.l1pStats(0).prefetches, 0u);
}

TEST(MemorySystem, DirtyL2EvictionIsWrittenBackToDdr) {
  MemParams p = small();
  p.l2.size_kib = 1;  // 4 sets of 2 ways, one slice
  p.l2.ways = 2;
  p.l2.slices = 1;
  p.l1p.prefetch = false;
  MemorySystem m(p);
  const u64 stride = 4 * 128;  // same set
  m.drain(0, 0xC00000, 8, 0);  // allocates the line dirty
  m.load(0, 0xC00000 + stride, 100, 0);
  m.load(0, 0xC00000 + 2 * stride, 1000, 0);  // evicts the dirty line
  EXPECT_EQ(xbar(m).sliceStats(0).writebacks, 1u);
  EXPECT_EQ(xbar(m).sliceStats(0).evictions, 1u);
  EXPECT_EQ(xbar(m).ddrStats(m.controllerOf(0xC00000)).writes, 1u);
}

TEST(MemorySystem, L2EvictionRemovesPrivateCopies) {
  MemParams p = small();
  p.l2.size_kib = 1;
  p.l2.ways = 2;
  p.l2.slices = 1;
  p.l1p.prefetch = false;
  MemorySystem m(p);
  const u64 stride = 4 * 128;
  m.load(1, 0xD00000, 0, 0);
  m.load(0, 0xD00000 + stride, 1000, 0);
  m.load(0, 0xD00000 + 2 * stride, 2000, 0);
  EXPECT_FALSE(m.l1dPresent(1, 0xD00000));  // inclusion
  EXPECT_EQ(xbar(m).sliceStats(0).back_invalidations, 1u);
}

TEST(MemorySystem, FetchHitCostsL1iHitLatencyAndMissGoesToL2) {
  MemParams p = small();
  MemorySystem m(p);
  EXPECT_EQ(m.fetchProbe(0, 0x10000, 50), 50u + p.ddr.latency);
  EXPECT_EQ(m.fetch(0, 0x10000, 50), 50u + p.ddr.latency);
  EXPECT_EQ(m.fetch(0, 0x10010, 1000), 1000u + p.l1i.hit_latency);
  EXPECT_EQ(m.fetch(1, 0x10000, 2000), 2000u + p.l2.hit_latency);
  EXPECT_EQ(m.l1iStats(0).misses, 1u);
  EXPECT_EQ(m.l1iStats(0).hits, 1u);
}

TEST(MemorySystem, WarmUpChangesStateButTakesNoTime) {
  MemParams p = small();
  MemorySystem m(p);
  m.warmLoad(0, 0xE00000, 10);
  EXPECT_TRUE(m.l1dPresent(0, 0xE00000));
  EXPECT_EQ(m.load(0, 0xE00000, 20, 0).ready, 20u + p.l1d.hit_latency);
  EXPECT_EQ(xbar(m).ddrStats(m.controllerOf(0xE00000)).busy_cycles, 0u);
}

TEST(MemParams, InconsistentGeometryIsRefusedWithTheParameterName) {
  MemParams p;
  p.l1d.size_kib = 12;  // 12 KiB / (8 x 64) = 24 sets: not a power of two
  try {
    p.validate();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("l1d"), std::string::npos) << e.what();
    EXPECT_EQ(e.code(), ExitCode::kConfig);
  }
  MemParams q;
  q.l1d.line_bytes = 256;  // larger than the L2 line
  EXPECT_THROW(q.validate(), Error);
}

TEST(MemorySystem, ASlicesTallyVersionChangesWheneverOneOfItsStatisticsDoes) {
  // The monitor skips reading a slice's statistics while its version stays: every operation
  // that changes one of them (reads, writes, atomics, fetches, evictions, write-backs, combined
  // bytes, warm-up) must change the version too.
  MemParams p = small();
  p.l2.size_kib = 64;  // small: evictions and write-backs come soon
  MemorySystem m(p);
  probe::Topology topology;
  topology.cores = p.cores;
  topology.threads = p.cores;
  topology.slices = p.l2.slices;
  topology.controllers = p.ddr.controllers;
  probe::Bus bus(topology, 1);
  const u64 core_version = 0;
  m.registerTallies(bus, [&](u32) { return &core_version; });
  std::vector<u32> inputs;
  for (u32 e = 0; e < static_cast<u32>(probe::kEventCount); ++e) {
    const auto event = static_cast<probe::Event>(e);
    if (probe::kEventInfo[e].scope != probe::Scope::kL2Slice) continue;
    for (u32 sid = 0; sid < p.l2.slices; ++sid) {
      const u32 input = bus.input(event, sid);
      if (bus.tallyKind(input) != probe::Bus::TallyKind::kTerms) continue;
      ASSERT_NE(bus.tallyVersion(input), nullptr) << probe::kEventInfo[e].name;
      inputs.push_back(input);
    }
  }
  ASSERT_FALSE(inputs.empty());
  auto snapshot = [&] {
    std::vector<std::pair<u64, u64>> out;
    for (u32 input : inputs) out.emplace_back(bus.tallyValue(input), *bus.tallyVersion(input));
    return out;
  };
  u64 seed = 12345;
  auto next = [&] { return seed = seed * 6364136223846793005u + 1442695040888963407u; };
  Cycle now = 100;
  u32 changed = 0;
  for (int i = 0; i < 20000; ++i) {
    const auto before = snapshot();
    const u32 core = static_cast<u32>(next() >> 60) % p.cores;
    const u64 addr = 0x100000 + ((next() >> 20) % (1u << 22)) * 8;
    now += 1 + (next() >> 62);
    switch ((next() >> 59) % 7) {
      case 0: m.load(core, addr, now, 0); break;
      case 1: m.storeIssue(core, addr, now); break;
      case 2: m.drain(core, addr, 8, m.drainFree(core, addr, now)); break;
      case 3: m.drainCombined(core, addr, 8); break;
      case 4: m.atomic(core, addr, now, 0); break;
      case 5: m.fetch(core, addr & ~u64{15}, now); break;
      default: m.warmLoad(core, addr, now); break;
    }
    const auto after = snapshot();
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      if (after[k].first == before[k].first) continue;
      ++changed;
      ASSERT_NE(after[k].second, before[k].second) << "operation " << i << ", input " << k;
    }
  }
  EXPECT_GT(changed, 10000u);
}

}  // namespace
}  // namespace hpm::mem
