// Loads and stores through the core's queues and the memory hierarchy (docs/timing.md "Loads",
// "Stores", "Memory"): load-to-use at each level as pointer chases, the load-miss queue, the
// store queue with and without combining, stores winning the crossbar, fences, atomics, the L1P
// prefetcher, cache geometry, and coherence between cores.
#include "mem/crossbar.h"
#include "mem/memory_system.h"
#include "tests/core/harness.h"

namespace hpm::timing::test {
namespace {

TimingParams wide() {
  TimingParams p = oneThread();
  p.core.ibuffer_entries = 16;
  return p;
}

// A chase of `n` dependent loads (ld x5, 0(x5)) and the loop branch; load i of iteration `it`
// reads address(it, i).
Loop chase(u32 n, std::function<u64(u64, u32)> address) {
  Loop l;
  for (u32 i = 0; i < n; ++i) l.body.push_back(ld(5, 5, 0));
  l.body.push_back(bne(30, 0, -4 * static_cast<i32>(n)));
  l.addr = std::move(address);
  return l;
}

constexpr u64 kBase = 0x800000;
constexpr u64 kSameL1dSet = 2048;  // 16 KiB / 8 ways: addresses 2 KiB apart share an L1D set

TEST(Loads, L1HitLoadToUseIsL1dHitLatency) {
  for (u32 lat : {6u, 4u}) {
    TimingParams p = wide();
    p.l1d.hit_latency = lat;
    EXPECT_EQ(steadyPeriod(p, chase(8, [](u64, u32) { return kBase; })), 8u * lat) << lat;
  }
}

TEST(Loads, L1pHitLoadToUseIsL1pHitLatency) {
  // 16 lines in one L1D set (8 ways, LRU: every access misses) but in 16 of the 32 L1P entries.
  for (u32 lat : {24u, 30u}) {
    TimingParams p = wide();
    p.l1p.hit_latency = lat;
    EXPECT_EQ(steadyPeriod(p, chase(16, [](u64, u32 i) { return kBase + i * kSameL1dSet; })),
              16u * lat)
        << lat;
  }
}

TEST(Loads, L2HitLoadToUseIsL2HitLatency) {
  // 40 lines, 2 KiB apart (so not sequential: no prefetch), cycled through: every access misses
  // the L1D (one set) and the L1P (40 > 32 entries, LRU) and hits the L2 once it has them.
  for (u32 lat : {82u, 60u}) {
    TimingParams p = wide();
    p.l2.hit_latency = lat;
    const Loop l = chase(1, [](u64 it, u32) { return kBase + (it % 40) * kSameL1dSet; });
    EXPECT_EQ(steadyPeriod(p, l, 45, 80), u64{lat}) << lat;
  }
}

// `n` addresses whose L2 lines fall in one set of one slice.
std::vector<u64> oneL2Set(const TimingParams& p, u32 n) {
  mem::MemorySystem m(p.memParams());
  const u64 set_stride = u64{p.l2.line_bytes} * p.l2.slices * p.l2.setsPerSlice();
  std::vector<u64> out;
  for (u64 a = 0x10000000; out.size() < n; a += set_stride) {
    const auto& xbar = dynamic_cast<const mem::Crossbar&>(m.interconnect());
    if (xbar.sliceOf(a) == xbar.sliceOf(0x10000000)) out.push_back(a);
  }
  return out;
}

TEST(Loads, DdrLoadToUseIsDdrLatency) {
  for (u32 lat : {350u, 200u}) {
    TimingParams p = wide();
    p.ddr.latency = lat;
    // 32 lines in one 16-way L2 set, cycled: every access misses the whole hierarchy.
    const std::vector<u64> lines = oneL2Set(p, 32);
    const Loop l = chase(16, [lines](u64 it, u32 i) { return lines[(it % 2) * 16 + i]; });
    EXPECT_EQ(steadyPeriod(p, l, 4, 10), 16u * lat) << lat;
  }
}

TEST(Loads, AThreadRunsPastAPendingLoadUntilItsResultIsUsed) {
  TimingParams p = wide();
  Loop l;
  l.body.push_back(ld(5, 20, 0));  // an L2 hit
  for (u32 i = 0; i < 10; ++i) l.body.push_back(addi(6 + i % 4, 6 + i % 4, 1));
  l.body.push_back(add(7, 5, 5));  // the first use
  l.body.push_back(bne(30, 0, -48));
  l.addr = [](u64 it, u32) { return kBase + (it % 40) * kSameL1dSet; };
  l.iterations = 81;
  NodeTiming m(p);
  const Stream s = unroll(l);
  const auto at = runOne(m, 0, s.steps);
  const std::size_t b = s.iteration_start[60];
  for (u32 i = 1; i <= 10; ++i) EXPECT_EQ(at[b + i], at[b] + i);  // no wait for the load
  EXPECT_EQ(at[b + 11], at[b] + p.l2.hit_latency);                // the use waits
}

TEST(Loads, LoadMissQueueLimitsOutstandingMisses) {
  for (u32 entries : {8u, 4u}) {
    TimingParams p = wide();
    p.core.load_miss_queue_entries = entries;
    p.l2.slice_busy_cycles = 1;  // back-to-back misses never wait for a slice here
    // Eight independent L2-hit loads per iteration: each holds an entry for the L2 latency, so
    // an iteration takes ceil(8 / entries) x 82 cycles.
    Loop l;
    for (u32 i = 0; i < 8; ++i) l.body.push_back(ld(6 + i, 20, 0));
    l.body.push_back(bne(30, 0, -32));
    l.addr = [](u64 it, u32 i) { return kBase + ((it % 5) * 8 + i) * kSameL1dSet; };
    NodeTiming m(p);
    l.iterations = 61;
    const Stream s = unroll(l);
    const auto at = runOne(m, 0, s.steps);
    EXPECT_EQ(span(s, at, 20, 60), 40u * (8 / entries) * 82) << entries;
    const auto j = statsJson(m);
    EXPECT_GT(j["cores"][0]["lmq_full_cycles"].get<u64>(), 0u);
    EXPECT_GT(j["cores"][0]["stalls"]["lmq_full"].get<u64>(), 0u);
    // A snapshot counts the full cycles up to the core's clock.
    EXPECT_GT(m.snapshot(0).lmq_full_cycles, 0u);
    EXPECT_LE(m.snapshot(0).lmq_full_cycles, j["cores"][0]["lmq_full_cycles"].get<u64>());
  }
}

// ---- Stores ----

// n stores (sd, or sw when `words`), store i to 0x900000 + i x stride, then the loop branch.
Loop stores(u32 n, u64 stride, bool words = false) {
  Loop l;
  for (u32 i = 0; i < n; ++i) l.body.push_back(words ? sw(0, 21, 0) : sd(0, 21, 0));
  l.body.push_back(bne(30, 0, -4 * static_cast<i32>(n)));
  l.addr = [stride](u64, u32 i) { return 0x900000 + i * stride; };
  return l;
}

TEST(Stores, SaturatedStoreQueueDrainsOneEntryPerDrainCycles) {
  for (u32 d : {2u, 3u}) {
    TimingParams p = wide();
    p.core.store_drain_cycles = d;
    // Sixteen stores to distinct 16-byte blocks: sixteen entries per iteration.
    EXPECT_EQ(steadyPeriod(p, stores(16, 16)), 16u * d) << d;
  }
}

TEST(Stores, AdjacentAlignedStoresCombineIntoOneEntry) {
  for (u32 d : {2u, 3u}) {
    TimingParams p = wide();
    p.core.store_drain_cycles = d;
    // Eight pairs of 8-byte stores to the halves of aligned 16-byte blocks: eight entries, so
    // max(17 instructions, 8 x drain) cycles.
    EXPECT_EQ(steadyPeriod(p, stores(16, 8)), std::max(17u, 8 * d)) << d;
    p.l1p.write_combining = false;
    EXPECT_EQ(steadyPeriod(p, stores(16, 8)), 16u * d) << d;
  }
  TimingParams p = wide();
  NodeTiming m(p);
  Loop l = stores(16, 8);
  l.iterations = 10;
  runOne(m, 0, unroll(l).steps);
  const auto j = statsJson(m);
  EXPECT_EQ(j["cores"][0]["sq_combined"].get<u64>(), 80u);
  EXPECT_EQ(j["cores"][0]["sq_allocations"].get<u64>(), 80u);
}

TEST(Stores, StoresContinuingAnEntryCombineWithinOneAlignedBlock) {
  // Sixteen 4-byte stores to consecutive words (64 bytes) per iteration: an entry takes
  // combine_bytes / 4 of them, so 64 / combine_bytes entries of 16 drain cycles each.
  for (u32 b : {8u, 16u, 32u}) {
    TimingParams p = wide();
    p.core.store_drain_cycles = 16;
    p.l1p.combine_bytes = b;
    EXPECT_EQ(steadyPeriod(p, stores(16, 4, true)), (64 / b) * 16u) << b;
  }
  // A store rewriting the bytes of the youngest entry does not continue them: a new entry each.
  TimingParams p = wide();
  EXPECT_EQ(steadyPeriod(p, stores(16, 0)), 16u * p.core.store_drain_cycles);
  // A block larger than an L2 line is refused (an entry drains to one line).
  p.l1p.combine_bytes = 256;
  EXPECT_THROW(NodeTiming{p}, Error);
}

TEST(Stores, AFullStoreQueueStallsTheStoringThread) {
  for (u32 entries : {20u, 40u}) {
    TimingParams p = wide();
    p.core.store_queue_entries = entries;
    // Bursts of 48 stores, separated by two divides that leave time to drain the queue. Stores
    // enter one per cycle and leave one per two cycles: store k waits for the departure of
    // store k - entries, at t0 + 2 (k - entries + 1). With 20 entries store 47 issues at
    // t0 + 56; with 40 the queue never fills and it issues at t0 + 47.
    Loop l = stores(48, 16);
    l.body.pop_back();
    l.body.push_back(div(7, 7, 8));
    l.body.push_back(div(7, 7, 8));
    l.body.push_back(bne(30, 0, -200));
    l.iterations = 41;
    NodeTiming m(p);
    const Stream s = unroll(l);
    const auto at = runOne(m, 0, s.steps);
    const std::size_t b = s.iteration_start[30];
    EXPECT_EQ(at[b + 47] - at[b], entries == 20 ? 56u : 47u) << entries;
    const auto j = statsJson(m);
    if (entries == 20) {
      EXPECT_GT(j["cores"][0]["stalls"]["sq_full"].get<u64>(), 0u);
      EXPECT_GT(j["cores"][0]["sq_full_cycles"].get<u64>(), 0u);
    } else {
      EXPECT_EQ(j["cores"][0]["sq_full_cycles"].get<u64>(), 0u);
    }
  }
}

TEST(Stores, QueuedStoresWinTheCrossbarOverALoadMiss) {
  for (u32 n : {0u, 10u}) {
    TimingParams p = wide();
    // n stores, then an L2-hit load and its use; two divides let the queue drain.
    Loop l;
    for (u32 i = 0; i < n; ++i) l.body.push_back(sd(0, 21, 0));
    l.body.push_back(ld(5, 20, 0));
    l.body.push_back(add(6, 5, 5));
    l.body.push_back(div(7, 7, 8));
    l.body.push_back(div(7, 7, 8));
    l.body.push_back(bne(30, 0, -4 * static_cast<i32>(n + 4)));
    l.addr = [n](u64 it, u32 i) {
      return i < n ? 0x900000 + u64{i} * 16 : kBase + (it % 40) * kSameL1dSet;
    };
    l.iterations = 81;
    NodeTiming m(p);
    const Stream s = unroll(l);
    const auto at = runOne(m, 0, s.steps);
    const std::size_t b = s.iteration_start[60];
    // Store k leaves at t0 + 2 (k + 1); the load's request follows the last: the use issues at
    // max(load issue, t0 + 2n) + l2 latency.
    EXPECT_EQ(at[b + n + 1] - at[b], std::max<Cycle>(n, 2 * n) + p.l2.hit_latency) << n;
  }
}

TEST(Stores, WritesInFlightLeaveOnlyAfterTheAcknowledgementOfTheWriteThatManyBefore) {
  // A saturated stream of 16 stores (drain 1, slices never busy): store k leaves once the write
  // of store k - W is acknowledged, R cycles after it left: W stores per R cycles.
  for (u32 r : {3u, 5u}) {
    for (u32 w : {1u, 2u}) {
      TimingParams p = wide();
      p.core.store_drain_cycles = 1;
      p.l2.slice_busy_cycles = 1;
      p.core.store_queue_entries = 64;
      p.core.store_ack_cycles = r;
      p.core.store_writes_in_flight = w;
      EXPECT_EQ(steadyPeriod(p, stores(16, 16)), 16u * r / w) << r << " " << w;
      p.core.store_writes_in_flight = 0;
      EXPECT_EQ(steadyPeriod(p, stores(16, 16)), 17u) << r;
    }
  }
}

TEST(Stores, AnEntryIsHeldUntilItsWriteIsAcknowledged) {
  // Ten stores and the branch per iteration, each store's entry held until R cycles after it
  // leaves (a cycle after it issues): store k waits for the entry of store k - E, so E stores
  // issue per R + 1 cycles. R = 0: the queue never binds, 11 cycles.
  for (u32 entries : {5u, 10u}) {
    TimingParams p = wide();
    p.core.store_drain_cycles = 1;
    p.l2.slice_busy_cycles = 1;
    p.core.store_queue_entries = entries;
    p.core.store_ack_cycles = 40;
    EXPECT_EQ(steadyPeriod(p, stores(10, 16)), 10 / entries * 41u) << entries;
    p.core.store_ack_cycles = 0;
    EXPECT_EQ(steadyPeriod(p, stores(10, 16)), 11u) << entries;
  }
}

TEST(Stores, WithoutForwardingALoadOverlappingAQueuedStoreWaitsForItToLeave) {
  // sd to A, then a load (8 bytes at A, at A + 4 after a 4-byte store to A + 4, or at A + 8),
  // its use and two divides that let the queue drain. The store leaves `drain` cycles after it
  // issues; a load that overlaps it issues then, one that does not (or with forwarding) at once.
  for (u32 drain : {2u, 6u}) {
    for (bool forwarding : {true, false}) {
      for (u64 offset : {0u, 4u, 8u}) {
        TimingParams p = wide();
        p.core.store_drain_cycles = drain;
        p.core.store_forwarding = forwarding;
        Loop l;
        l.body = {offset == 4 ? sw(0, 21, 0) : sd(0, 21, 0),
                  ld(5, 20, 0),
                  add(6, 5, 5),
                  div(7, 7, 8),
                  div(7, 7, 8),
                  bne(30, 0, -20)};
        l.addr = [offset](u64, u32 i) {
          return i == 0 ? 0x900000 + (offset == 4 ? 4 : 0) : 0x900000 + (offset == 8 ? 8 : 0);
        };
        l.iterations = 20;
        NodeTiming m(p);
        const Stream s = unroll(l);
        const auto at = runOne(m, 0, s.steps);
        const std::size_t b = s.iteration_start[10];
        const bool waits = !forwarding && offset != 8;
        EXPECT_EQ(at[b + 1] - at[b], waits ? drain : 1u) << drain << forwarding << offset;
      }
    }
  }
}

TEST(Stores, FenceWaitsForTheThreadsStoresToLeave) {
  TimingParams p = wide();
  Loop l = stores(10, 16);
  l.body.pop_back();
  l.body.push_back(kFence);
  l.body.push_back(addi(5, 5, 1));
  l.body.push_back(bne(30, 0, -48));
  l.iterations = 41;
  NodeTiming m(p);
  const Stream s = unroll(l);
  const auto at = runOne(m, 0, s.steps);
  const std::size_t b = s.iteration_start[30];
  EXPECT_EQ(at[b + 10] - at[b], 2u * 10);  // the tenth store leaves at t0 + 20
}

TEST(Atomics, AtomicsTakeTheL2LatencyAndHoldALoadMissQueueEntry) {
  for (u32 lat : {82u, 60u}) {
    TimingParams p = wide();
    p.l2.hit_latency = lat;
    // amoadd.d x5, x5, (x20): each depends on the one before through x5.
    Loop l;
    for (u32 i = 0; i < 8; ++i) l.body.push_back(amoaddD(5, 5, 20));
    l.body.push_back(bne(30, 0, -32));
    l.addr = [](u64, u32) { return 0xA00000; };
    EXPECT_EQ(steadyPeriod(p, l), 8u * lat) << lat;
  }
}

TEST(Atomics, AnAtomicRemovesTheLineFromItsOwnL1d) {
  TimingParams p = wide();
  Loop l;
  l.body = {ld(5, 20, 0), amoaddD(6, 0, 20), ld(5, 5, 0), bne(30, 0, -12)};
  l.addr = [](u64, u32) { return 0xA00000; };
  // ld (L1 hit, 6), amoadd (independent), then a load that must go to the L2 for the line.
  NodeTiming m(p);
  l.iterations = 20;
  runOne(m, 0, unroll(l).steps);
  const auto j = statsJson(m);
  EXPECT_GE(j["cores"][0]["l1d"]["invalidations"].get<u64>(), 19u);
}

// ---- L1P prefetcher ----

TEST(Prefetch, StreamPrefetchHidesDdrLatencyInProportionToItsDepth) {
  // A chase along consecutive lines of cold memory. Without prefetching each load waits for
  // DDR. With it, line X is requested when line X - depth is used, so in steady state each line
  // costs max(l1p latency, ddr latency / (depth + 1)).
  const Loop l = chase(16, [](u64 it, u32 i) { return 0x4000000 + (it * 16 + i) * 128; });
  TimingParams p = wide();
  p.l1p.prefetch = false;
  EXPECT_EQ(steadyPeriod(p, l, 20, 20), 16u * 350);
  for (u32 depth : {2u, 8u, 16u}) {
    TimingParams q = wide();
    q.l1p.prefetch_depth = depth;
    q.l1p.adaptive = false;  // (a fixed depth: tests/mem/stream_prefetcher_test.cpp adapts it)
    NodeTiming m(q);
    Loop r = l;
    r.iterations = 41;
    const Stream s = unroll(r);
    const auto at = runOne(m, 0, s.steps);
    const double per = static_cast<double>(span(s, at, 20, 40)) / (20 * 16);
    EXPECT_NEAR(per, std::max(24.0, 350.0 / (depth + 1)), 1.0) << depth;
    EXPECT_GT(statsJson(m)["cores"][0]["l1p"]["prefetch_hits"].get<u64>(), 500u);
  }
}

TEST(Prefetch, TwoInterleavedStreamsNeedTwoStreamEntries) {
  // Alternate between two sequential streams.
  const Loop l = chase(16, [](u64 it, u32 i) {
    const u64 n = it * 8 + i / 2;
    return (i % 2 == 0 ? 0x4000000 : 0x8000000) + n * 128;
  });
  TimingParams one = wide();
  one.l1p.streams = 1;  // each stream's miss replaces the other's entry: never confirmed
  TimingParams two = wide();
  two.l1p.streams = 2;
  // (A fixed depth of two, as before bgq's firmware depth and adaptation: a whole period.)
  one.l1p.adaptive = two.l1p.adaptive = false;
  one.l1p.prefetch_depth = two.l1p.prefetch_depth = 2;
  EXPECT_EQ(steadyPeriod(one, l, 20, 20), 16u * 350);
  EXPECT_LT(steadyPeriod(two, l, 20, 20), 16u * 130);
}

TEST(Prefetch, L1pEntriesBoundItsWorkingSet) {
  // 40 lines cycled through, each in the L1D set of the others: they fit in 64 L1P entries, not
  // in 32.
  for (u32 entries : {32u, 64u}) {
    TimingParams p = wide();
    p.l1p.entries = entries;
    const Loop l = chase(1, [](u64 it, u32) { return kBase + (it % 40) * kSameL1dSet; });
    EXPECT_EQ(steadyPeriod(p, l, 45, 80), entries == 32 ? 82u : 24u) << entries;
  }
}

// ---- L1D geometry ----

TEST(L1dGeometry, WaysDecideWhetherConflictingLinesHit) {
  // Nine lines of one set: eight ways miss them all (LRU, cycled), sixteen hold them.
  for (u32 ways : {8u, 16u}) {
    TimingParams p = wide();
    p.l1d.ways = ways;
    p.l1d.size_kib = 16 * ways / 8;  // keep the 32 sets
    const Loop l = chase(9, [](u64, u32 i) { return kBase + i * kSameL1dSet; });
    EXPECT_EQ(steadyPeriod(p, l), ways == 8 ? 9u * 24 : 9u * 6) << ways;
  }
}

TEST(L1dGeometry, SizeDecidesWhetherAWorkingSetFits) {
  // The same nine lines are spread over two sets of a 32 KiB L1D (64 sets).
  for (u32 kib : {16u, 32u}) {
    TimingParams p = wide();
    p.l1d.size_kib = kib;
    const Loop l = chase(9, [](u64, u32 i) { return kBase + i * kSameL1dSet; });
    EXPECT_EQ(steadyPeriod(p, l), kib == 16 ? 9u * 24 : 9u * 6) << kib;
  }
}

TEST(L1dGeometry, LineSizeDecidesWhetherNeighboursShareALine) {
  // A chase along a 32 KiB region, 64 bytes per step, cycled (no prefetching): twice the L1D,
  // so every line misses in every pass. Each 128-byte L1P line serves two steps: the first from
  // the L2, the second from the L1P with 64-byte L1D lines, or from the L1D with 128-byte ones.
  for (u32 line : {64u, 128u}) {
    TimingParams p = wide();
    p.l1d.line_bytes = line;
    p.l1p.prefetch = false;
    const Loop l = chase(16, [](u64 it, u32 i) { return kBase + ((it * 16 + i) % 512) * 64; });
    EXPECT_EQ(steadyPeriod(p, l, 40, 32), 8u * (82 + (line == 64 ? 24 : 6))) << line;
  }
}

TEST(L1dGeometry, LruKeepsAHotLineThatFifoEvicts) {
  // A hot line read between each of eight others of the same set (nine lines, eight ways).
  const Loop l =
      chase(16, [](u64, u32 i) { return i % 2 == 0 ? kBase : kBase + (1 + i / 2) * kSameL1dSet; });
  TimingParams lru = wide();
  TimingParams fifo = wide();
  fifo.l1d.replacement = mem::Replacement::kFifo;
  // LRU: the hot line always hits (6), the eight others always miss (L1P, 24).
  EXPECT_EQ(steadyPeriod(lru, l), 8u * 6 + 8u * 24);
  EXPECT_GT(steadyPeriod(fifo, l), 8u * 6 + 8u * 24);
}

// ---- L2 geometry ----

TEST(L2Geometry, WaysDecideWhetherConflictingLinesHit) {
  // Twenty lines of one L2 set: sixteen ways miss them all (DDR), thirty-two hold them. (An
  // 8-entry L1P so that the L1P does not hold them either.)
  for (u32 ways : {16u, 32u}) {
    TimingParams p = wide();
    p.l1p.entries = 8;
    const std::vector<u64> lines = oneL2Set(p, 20);
    p.l2.ways = ways;
    p.l2.size_kib = 32768 / 16 * ways;  // keep the sets
    const Loop l = chase(20, [lines](u64, u32 i) { return lines[i]; });
    EXPECT_EQ(steadyPeriod(p, l, 4, 6), 20u * (ways == 16 ? 350 : 82)) << ways;
  }
}

TEST(L2Geometry, SizeDecidesWhetherAWorkingSetFits) {
  // The same twenty lines spread over two sets when the L2 is twice as large.
  for (u32 kib : {32768u, 65536u}) {
    TimingParams p = wide();
    p.l1p.entries = 8;
    const std::vector<u64> lines = oneL2Set(p, 20);
    p.l2.size_kib = kib;
    const Loop l = chase(20, [lines](u64, u32 i) { return lines[i]; });
    EXPECT_EQ(steadyPeriod(p, l, 4, 6), 20u * (kib == 32768 ? 350 : 82)) << kib;
  }
}

TEST(L2Geometry, LineSizeDecidesWhatOneDdrAccessBrings) {
  // A walk over twice the L2, 128 bytes per step (no prefetching): with 128-byte lines every
  // step goes to DDR; with 256-byte lines every other step finds its data in the L1P entry the
  // step before brought.
  for (u32 line : {128u, 256u}) {
    TimingParams p = wide();
    p.l1p.prefetch = false;
    p.l2.size_kib = 64;
    p.l2.line_bytes = line;
    const Loop l =
        chase(16, [](u64 it, u32 i) { return 0x4000000 + ((it * 16 + i) % 1024) * 128; });
    EXPECT_EQ(steadyPeriod(p, l, 70, 10), 8u * (350 + (line == 128 ? 350 : 24))) << line;
  }
}

TEST(L2Geometry, LruKeepsAHotLineThatFifoEvicts) {
  // A direct-mapped L1D and a one-entry L1P, so that every access reaches the L2 (otherwise the
  // L1D would hide the hot line's uses from the L2's LRU and it would become an inclusion victim).
  TimingParams lru = wide();
  lru.l1d.size_kib = 1;
  lru.l1d.ways = 1;
  lru.l1p.entries = 1;
  const std::vector<u64> lines = oneL2Set(lru, 17);
  // The hot line, then each of sixteen others of the set: seventeen lines, sixteen ways.
  const Loop l =
      chase(32, [lines](u64, u32 i) { return i % 2 == 0 ? lines[0] : lines[1 + i / 2]; });
  TimingParams fifo = lru;
  fifo.l2.replacement = mem::Replacement::kFifo;
  // LRU: the hot line always hits the L2, the others miss it in turn (DDR).
  EXPECT_EQ(steadyPeriod(lru, l, 4, 6), 16u * 82 + 16u * 350);
  EXPECT_GT(steadyPeriod(fifo, l, 4, 6), 16u * 82 + 16u * 350);
}

// ---- Coherence ----

// Core 0 stores to `target` every ~13 cycles; core 1 chases loads of `probe`.
std::vector<Cycle> sharing(u64 target, u64 probe) {
  TimingParams p;
  p.cores = 2;
  p.threads_per_core = 1;
  NodeTiming m(p);
  Loop writer;
  writer.body = {sd(0, 21, 0)};
  for (u32 i = 0; i < 10; ++i) writer.body.push_back(addi(5 + i % 4, 5 + i % 4, 1));
  writer.body.push_back(bne(30, 0, -44));
  writer.addr = [target](u64, u32) { return target; };
  writer.iterations = 2000;  // it runs longer than the reader
  Loop reader = chase(8, [probe](u64, u32) { return probe; });
  reader.base = 0x20000;
  reader.iterations = 22;  // measured after the predictor has learnt the loop
  const Stream w = unroll(writer);
  const Stream r = unroll(reader);
  const auto at = runMany(m, {0, 1}, {&w, &r});
  const auto j = statsJson(m);
  return {span(r, at[1], 12, 20) / 8, j["cores"][1]["l1d"]["invalidations"].get<u64>()};
}

TEST(Coherence, AnotherCoresStoresMakeTrueSharingMisses) {
  // The reader's line is invalidated by every store of the writer: each load goes to the L2
  // (about 82 cycles, more when it waits for the slice behind the writer's stores).
  const std::vector<Cycle> shared = sharing(0xB00000, 0xB00000);
  EXPECT_GE(shared[0], 8u * 82);
  EXPECT_LE(shared[0], 8u * 90);
  EXPECT_GE(shared[1], 150u);
  // Stores to another line leave the reader's copy alone: L1 hits.
  const std::vector<Cycle> apart = sharing(0xC00000, 0xB00000);
  EXPECT_EQ(apart[0], 8u * 6);
  EXPECT_EQ(apart[1], 0u);
}

}  // namespace
}  // namespace hpm::timing::test
