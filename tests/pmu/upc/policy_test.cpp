// The largest-counter-first policy: what a slot flushes, exact counts when the total rate is
// bounded, and agreement of its bit-sliced (per-cycle) and scalar (batched) implementations.
#include <gtest/gtest.h>

#include <random>

#include "pmu/upc/unit.h"

namespace hpm::upc {
namespace {

Params largestFirst(u32 counters, u32 service, u32 low_bits, double total_rate) {
  Params p;
  p.counters = counters;
  p.events = counters * 4;
  p.service_cycles = service;
  p.low_bits = low_bits;
  p.policy = Policy::kLargestFirst;
  p.max_total_rate = total_rate;
  return p;
}

TEST(UpcLargestFirst, EachSlotFlushesTheLargestRegisterLowestIndexFirst) {
  Params p = largestFirst(8, 2, 4, 1.0);
  p.exploration = true;
  Unit unit(p);
  unit.write(unit.map().start_stop, 1, 0);
  unit.pulse(2, 1, 5);
  unit.pulse(5, 1, 3);
  unit.pulse(6, 1, 5);
  // Slot at 2 flushes counter 2 (5, lowest index of the two largest); 4: counter 6; 6: counter 5.
  EXPECT_EQ(unit.inspect(2, 3).sram_word, 5u);
  EXPECT_EQ(unit.inspect(2, 3).low, 0u);
  EXPECT_EQ(unit.inspect(6, 3).low, 5u);
  EXPECT_EQ(unit.inspect(6, 5).sram_word, 5u);
  EXPECT_EQ(unit.inspect(5, 5).low, 3u);
  EXPECT_EQ(unit.inspect(5, 7).sram_word, 3u);
  EXPECT_EQ(unit.read(unit.map().counter(5), 7), 3u);
  EXPECT_EQ(unit.stats().flushes, 3u);
  EXPECT_EQ(unit.stats().max_flushed_value, 5u);
}

TEST(UpcLargestFirst, SafeWidthFollowsTheTotalRate) {
  // One event per cycle over all 256 counters: 7 bits suffice (Shah et al.), round-robin needs 12.
  EXPECT_NO_THROW(Unit{largestFirst(256, 16, 7, 1.0)});
  EXPECT_THROW(Unit{largestFirst(256, 16, 6, 1.0)}, Error);
  // Every counter at one event per cycle: largest-first needs 15 bits, round-robin 12.
  EXPECT_THROW(Unit{largestFirst(256, 16, 14, 0.0)}, Error);
  EXPECT_NO_THROW(Unit{largestFirst(256, 16, 15, 0.0)});
}

// A stream of one event per cycle in total: each cycle one counter, mostly a few hot ones.
TEST(UpcLargestFirst, CountsExactlyWhenTheTotalRateIsBoundedWhereRoundRobinLosesCarries) {
  std::mt19937_64 rng(9);
  Unit lcf(largestFirst(256, 16, 7, 1.0));
  Params rr_params;
  rr_params.low_bits = 7;
  rr_params.exploration = true;
  Unit rr(rr_params);
  std::vector<u64> ideal(256, 0);
  lcf.write(lcf.map().start_stop, 1, 0);
  rr.write(rr.map().start_stop, 1, 0);
  for (Cycle t = 0; t < 300'000; ++t) {
    const u32 c = rng() % 4 != 0 ? static_cast<u32>(rng() % 3) : static_cast<u32>(rng() % 256);
    lcf.pulse(c, t);
    rr.pulse(c, t);
    ++ideal[c];
  }
  for (u32 c = 0; c < 256; ++c) {
    EXPECT_EQ(lcf.read(lcf.map().counter(c), 300'000), ideal[c]) << "counter " << c;
  }
  EXPECT_EQ(lcf.stats().lost_carries, 0u);
  EXPECT_LE(static_cast<double>(lcf.stats().max_flushed_value), largestFirstMaxValue(256, 16, 1.0));
  rr.advanceTo(300'000);
  EXPECT_GT(rr.stats().lost_carries, 1000u);
}

TEST(UpcLargestFirst, BitSlicedAndScalarImplementationsAgree) {
  std::mt19937_64 rng(21);
  Params p = largestFirst(64, 4, 5, 1.0);
  p.exploration = true;  // narrow enough to lose carries: the loss must agree too
  p.service_phase = 3;
  Unit per_cycle(p), batched(p);
  per_cycle.write(per_cycle.map().start_stop, 1, 0);
  batched.write(batched.map().start_stop, 1, 0);
  std::vector<u64> levels(4, 0);
  for (Cycle t = 0; t < 50'000; ++t) {
    levels.assign(4, 0);
    const u32 burst = t % 5000 < 2500 ? 64 : 6;  // phases of all counters busy, and few
    for (u32 c = 0; c < burst; ++c) {
      if (rng() % 3 == 0) continue;
      levels[0] |= u64{1} << c;
      batched.pulse(c, t);
    }
    per_cycle.cycle(t, levels);
    if (t % 997 == 0) {
      const u32 c = static_cast<u32>(rng() % 64);
      ASSERT_EQ(per_cycle.read(per_cycle.map().counter(c), t + 1),
                batched.read(batched.map().counter(c), t + 1))
          << "counter " << c << " cycle " << t;
    }
  }
  per_cycle.advanceTo(50'000);
  batched.advanceTo(50'000);
  EXPECT_GT(batched.stats().lost_carries, 0u);
  EXPECT_EQ(per_cycle.stats().lost_carries, batched.stats().lost_carries);
  EXPECT_EQ(per_cycle.stats().flushes, batched.stats().flushes);
  EXPECT_EQ(per_cycle.stats().events_counted, batched.stats().events_counted);
  EXPECT_EQ(per_cycle.stats().carries, batched.stats().carries);
  EXPECT_EQ(per_cycle.stats().max_flushed_value, batched.stats().max_flushed_value);
  EXPECT_EQ(per_cycle.lostCarries(), batched.lostCarries());
}

}  // namespace
}  // namespace hpm::upc
