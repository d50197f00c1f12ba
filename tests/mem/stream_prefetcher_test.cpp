// Unit tests of the L1P stream prefetcher's establishment policy and depth adaptation
// (mem/stream_control.h, mem/stream_prefetcher.cpp; docs/timing.md "The stream prefetcher"):
// confirmed and optimistic establishment, a late hit deepening its stream, the budget and the
// depth steal, and the control register (its fields read back as written, its reserved bits
// read as zero, the firmware's value at the start). Also the guest's header
// (guest/include/hpm/l1p.h) against the register's layout.
#include <gtest/gtest.h>

#include "guest/include/hpm/l1p.h"
#include "mem/memory_system.h"
#include "mem/stream_control.h"

namespace hpm::mem {
namespace {

using namespace l1pcfg;

// The guest's header restates the register's contract.
static_assert(HPM_L1P_CFG_PF_USR == kPfUsr && HPM_L1P_PF_DEPTH_SHIFT == kDepthShift);
static_assert(HPM_L1P_PF_TOTAL_SHIFT == kTotalShift);
static_assert(HPM_L1P_PF_IFETCH_DEPTH_SHIFT == kIfetchDepthShift);
static_assert(HPM_L1P_PF_IFETCH_TOTAL_SHIFT == kIfetchTotalShift);
static_assert(HPM_L1P_PF_EST_ON_DCBT == kEstOnDcbt && HPM_L1P_PF_OPTIMISTIC == kOptimistic);
static_assert(HPM_L1P_PF_PREFETCH_ENABLE == kPrefetchEnable);
static_assert(HPM_L1P_PF_ESTABLISH_ENABLE == kEstablishEnable);
static_assert(HPM_L1P_PF_LIST_ENABLE == kListEnable);
static_assert(HPM_L1P_PF_ADAPTIVE_ENABLE == kAdaptiveEnable);
static_assert(HPM_L1P_PF_THROTTLE_MASK == kThrottleMask);

// BG/Q's firmware value of L1P_CFG_PF_USR (fw_l1p_init): dfetch_depth(2),
// dfetch_max_footprint(7), ifetch_depth(0), ifetch_max_footprint(2), est_on_dcbt,
// prefetch_enable, establish_enable, adaptive_enable, adaptive_throttle(0xF), in IBM's bit
// numbering (bit b is 1 << (63 - b)).
constexpr u64 ibm(u32 last_bit, u64 value) {
  return value << (63 - last_bit);
}
constexpr u64 kFirmware = ibm(42, 2) | ibm(46, 7) | ibm(49, 0) | ibm(53, 2) | ibm(54, 1) |
                          ibm(56, 1) | ibm(57, 1) | ibm(59, 1) | ibm(63, 0xF);

TEST(StreamControl, BgqStartsWithTheFirmwaresRegisterValue) {
  EXPECT_EQ(StreamControl::fromParams(L1pParams{}).read(), kFirmware);
}

TEST(StreamControl, EveryFieldReadsBackAsWrittenAndReservedBitsReadZero) {
  StreamControl c;
  for (u64 v : {u64{0}, kDefined, kFirmware, u64{0x5a5a5a}, u64{0xa5a5a5}}) {
    c.write(v);
    EXPECT_EQ(c.read(), v);
    c.write(v | ~kDefined);  // reserved bits: ignored
    EXPECT_EQ(c.read(), v);
  }
  c.write((u64{4} << kDepthShift) | (u64{11} << kTotalShift) | kOptimistic | kPrefetchEnable);
  EXPECT_EQ(c.depth, 5u);
  EXPECT_EQ(c.total, 12u);
  EXPECT_TRUE(c.optimistic && c.prefetch);
  EXPECT_FALSE(c.establish || c.adaptive);
}

TEST(StreamControl, ParametersBeyondTheFieldsReadAsTheLargestValues) {
  L1pParams p;
  p.prefetch_depth = 20;
  p.total_depth = 100;
  const StreamControl c = StreamControl::fromParams(p);
  EXPECT_EQ((c.read() >> kDepthShift) & kDepthMask, kDepthMask);
  EXPECT_EQ((c.read() >> kTotalShift) & kTotalMask, kTotalMask);
}

// One core with bgq's L1P (a stream established at depth 3; a budget of 8 lines; adaptation on).
MemParams oneCore() {
  MemParams p;
  p.cores = 1;
  p.threads_per_core = 4;
  return p;
}

// Loads line `line` (128-byte lines) at `at`; returns when its data is ready.
Cycle load(MemorySystem& m, u64 line, Cycle at) {
  return m.load(0, line * 128, at, 0).ready;
}

TEST(StreamPolicy, ConfirmedEstablishesAStreamOnTheSecondSequentialMiss) {
  MemorySystem m(oneCore());
  load(m, 0x100, 0);
  EXPECT_EQ(m.l1pExtraStats(0).streams_established, 0u);
  EXPECT_EQ(m.l1pStats(0).prefetches, 0u);
  load(m, 0x101, 1000);
  EXPECT_EQ(m.l1pExtraStats(0).streams_established, 1u);
  EXPECT_EQ(m.l1pStats(0).prefetches, 3u);  // 0x102 to 0x104: the initial depth
  EXPECT_EQ(m.streamDepth(0, 0x102), 3u);
}

TEST(StreamPolicy, OptimisticEstablishesAStreamOnEveryMissThatContinuesNone) {
  MemParams p = oneCore();
  p.l1p.stream_policy = StreamPolicy::kOptimistic;
  MemorySystem m(p);
  load(m, 0x100, 0);
  EXPECT_EQ(m.l1pExtraStats(0).streams_established, 1u);
  EXPECT_EQ(m.l1pStats(0).prefetches, 3u);
  EXPECT_EQ(m.streamDepth(0, 0x101), 3u);
  load(m, 0x900, 1000);
  EXPECT_EQ(m.l1pExtraStats(0).streams_established, 2u);
  EXPECT_EQ(m.l1pStats(0).prefetches, 6u);
}

TEST(StreamPolicy, TheRegisterSetsThePolicyOfItsThreadsCore) {
  MemorySystem m(oneCore());
  const u32 thread = 3;  // (core 0's fourth)
  m.streamControlWrite(thread, m.streamControlRead(0) | kOptimistic);
  EXPECT_NE(m.streamControlRead(1) & kOptimistic, 0u);
  load(m, 0x100, 0);
  EXPECT_EQ(m.l1pExtraStats(0).streams_established, 1u);
  // Establishment off: misses establish nothing, nothing is prefetched.
  m.streamControlWrite(0, m.streamControlRead(0) & ~kEstablishEnable);
  load(m, 0x900, 1000);
  load(m, 0x901, 2000);
  EXPECT_EQ(m.l1pExtraStats(0).streams_established, 1u);
  EXPECT_EQ(m.l1pStats(0).prefetches, 3u);
}

TEST(StreamAdaptation, ALateHitDeepensItsStreamByOneLine) {
  MemorySystem m(oneCore());
  load(m, 0x100, 0);
  load(m, 0x101, 1000);  // 0x102 to 0x104 requested from DDR at cycle 1000
  load(m, 0x102, 1001);  // still in flight: a late hit
  EXPECT_EQ(m.l1pExtraStats(0).late_hits, 1u);
  EXPECT_EQ(m.streamDepth(0, 0x103), 4u);
  EXPECT_EQ(m.l1pStats(0).prefetches, 5u);  // 0x105 and 0x106: four ahead of 0x102
  // A hit on a line already there is not late and leaves the depth.
  load(m, 0x103, 100000);
  EXPECT_EQ(m.l1pExtraStats(0).late_hits, 1u);
  EXPECT_EQ(m.streamDepth(0, 0x104), 4u);
  EXPECT_EQ(m.l1pExtraStats(0).depth_steals, 0u);
}

TEST(StreamAdaptation, WithoutAdaptationALateHitIsCountedAndTheDepthStays) {
  MemParams p = oneCore();
  p.l1p.adaptive = false;
  MemorySystem m(p);
  load(m, 0x100, 0);
  load(m, 0x101, 1000);
  load(m, 0x102, 1001);
  EXPECT_EQ(m.l1pExtraStats(0).late_hits, 1u);
  EXPECT_EQ(m.streamDepth(0, 0x103), 3u);
  EXPECT_EQ(m.l1pStats(0).prefetches, 4u);
}

TEST(StreamAdaptation, AStreamGrowsNoDeeperThanTheTotalDepth) {
  MemParams p = oneCore();
  p.l1p.total_depth = 5;
  MemorySystem m(p);
  load(m, 0x100, 0);
  load(m, 0x101, 1000);
  for (u64 line = 0x102; line < 0x110; ++line) load(m, line, 1000 + line - 0x101);  // all late
  EXPECT_EQ(m.streamDepth(0, 0x110), 5u);
  EXPECT_EQ(m.l1pExtraStats(0).depth_steals, 0u);
}

TEST(StreamAdaptation, OnceTheBudgetIsUsedALateHitStealsALineFromTheDeepestStream) {
  MemorySystem m(oneCore());  // a budget of 8 lines
  load(m, 0x100, 0);          // stream A
  load(m, 0x101, 1000);
  for (u64 line = 0x102; line <= 0x106; ++line) load(m, line, 1000 + line - 0x101);  // all late
  EXPECT_EQ(m.streamDepth(0, 0x107), 8u);  // A holds the whole budget
  load(m, 0x200, 2000);                    // stream B: established with one line
  load(m, 0x201, 2010);
  EXPECT_EQ(m.streamDepth(0, 0x202), 1u);
  load(m, 0x202, 2011);  // B's late hit: A, seven lines deeper, gives one
  EXPECT_EQ(m.l1pExtraStats(0).depth_steals, 1u);
  EXPECT_EQ(m.streamDepth(0, 0x107), 7u);
  EXPECT_EQ(m.streamDepth(0, 0x203), 2u);
  load(m, 0x203, 2012);
  load(m, 0x204, 2013);
  EXPECT_EQ(m.l1pExtraStats(0).depth_steals, 3u);
  EXPECT_EQ(m.streamDepth(0, 0x107), 5u);
  EXPECT_EQ(m.streamDepth(0, 0x205), 4u);
  load(m, 0x205, 2014);  // A is one line deeper only: it keeps its lines
  EXPECT_EQ(m.l1pExtraStats(0).late_hits, 9u);
  EXPECT_EQ(m.l1pExtraStats(0).depth_steals, 3u);
  EXPECT_EQ(m.streamDepth(0, 0x107), 5u);
  EXPECT_EQ(m.streamDepth(0, 0x206), 4u);
}

TEST(StreamAdaptation, AStreamIsEstablishedWithWhatTheBudgetLeavesAtLeastOneLine) {
  MemParams p = oneCore();
  p.l1p.total_depth = 7;
  MemorySystem m(p);
  for (u64 base : {0x100, 0x200, 0x300}) {
    load(m, base, base);
    load(m, base + 1, base + 1);
  }
  EXPECT_EQ(m.streamDepth(0, 0x102), 3u);
  EXPECT_EQ(m.streamDepth(0, 0x202), 3u);
  EXPECT_EQ(m.streamDepth(0, 0x302), 1u);
  // Without adaptation every stream runs the initial depth.
  p.l1p.adaptive = false;
  MemorySystem fixed(p);
  for (u64 base : {0x100, 0x200, 0x300}) {
    load(fixed, base, base);
    load(fixed, base + 1, base + 1);
  }
  EXPECT_EQ(fixed.streamDepth(0, 0x302), 3u);
}

TEST(StreamAdaptation, StreamsOfEqualDepthTakeNoLinesFromEachOther) {
  MemParams p = oneCore();
  p.l1p.total_depth = 6;
  MemorySystem m(p);
  load(m, 0x100, 0);
  load(m, 0x101, 10);
  load(m, 0x200, 20);
  load(m, 0x201, 30);  // two streams of 3: the budget is used
  load(m, 0x202, 40);  // late, but A is no deeper
  EXPECT_EQ(m.l1pExtraStats(0).late_hits, 1u);
  EXPECT_EQ(m.l1pExtraStats(0).depth_steals, 0u);
  EXPECT_EQ(m.streamDepth(0, 0x203), 3u);
  EXPECT_EQ(m.streamDepth(0, 0x102), 3u);
}

TEST(StreamAdaptation, AReplacedStreamGivesItsDepthBackToTheBudget) {
  MemParams p = oneCore();
  p.l1p.streams = 2;
  p.l1p.total_depth = 6;
  MemorySystem m(p);
  load(m, 0x100, 0);  // A
  load(m, 0x101, 10);
  load(m, 0x200, 20);  // B: 3 + 3 lines use the budget
  load(m, 0x201, 30);
  load(m, 0x300, 40);  // a new candidate replaces A (the least recent): its 3 lines come back
  load(m, 0x202, 50);  // B's late hit: from the budget
  EXPECT_EQ(m.l1pExtraStats(0).depth_steals, 0u);
  EXPECT_EQ(m.streamDepth(0, 0x203), 4u);
}

TEST(StreamStatistics, EveryLineTheL1pFillsIsEstablishedOnce) {
  MemorySystem m(oneCore());
  load(m, 0x100, 0);
  load(m, 0x101, 1000);
  load(m, 0x102, 100000);  // a hit: nothing new but its stream's next line
  EXPECT_EQ(m.groundTruth(probe::Event::kL1pLinesEstablished, 0),
            m.l1pStats(0).misses + m.l1pStats(0).prefetches);
  EXPECT_EQ(m.l1pStats(0).misses + m.l1pStats(0).prefetches, 6u);
}

}  // namespace
}  // namespace hpm::mem
