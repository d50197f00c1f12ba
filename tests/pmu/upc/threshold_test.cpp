// thresholdForCount: the interrupt fires in the cycle of the n-th counted event, for every n >= 1,
// at every phase of the maintenance state machine.
#include <gtest/gtest.h>

#include <random>

#include "pmu/upc/unit.h"
#include "tests/pmu/upc/reference.h"

namespace hpm::upc {
namespace {

using testing::configure;

TEST(UpcThreshold, PairIsTheSeedsFormula) {
  // n = 4096 a + b with 0 < b < 4096: threshold 4096 a, preload 4096 - b.
  const ThresholdPreload r = thresholdForCount(4096 * 3 + 5, 12);
  EXPECT_EQ(r.threshold, 4096u * 3);
  EXPECT_EQ(r.preload, 4096u - 5);
  EXPECT_FALSE(r.arm_by_first_visit);
  const ThresholdPreload exact = thresholdForCount(4096 * 3, 12);
  EXPECT_EQ(exact.threshold, 4096u * 2);
  EXPECT_EQ(exact.preload, 0u);
  const ThresholdPreload small = thresholdForCount(1, 12);
  EXPECT_EQ(small.threshold, 0u);
  EXPECT_EQ(small.preload, 4095u);
  EXPECT_TRUE(small.arm_by_first_visit);
  const ThresholdPreload huge = thresholdForCount(~u64{0}, 12);
  EXPECT_EQ(huge.preload, 1u);
  EXPECT_EQ(huge.threshold, (~u64{0} >> 12) << 12);
  EXPECT_THROW(thresholdForCount(0, 12), Error);
}

// Programs counter c for an interrupt after n events at cycle `write`, then feeds it the events
// at the given cycles (strictly increasing, first >= write); returns the raised interrupts.
std::vector<Interrupt> runThreshold(const Params& p, u32 c, u64 n, Cycle write,
                                    const std::vector<Cycle>& event_cycles) {
  Unit unit(p);
  unit.write(unit.map().start_stop, 1, 0);
  const ThresholdPreload r = thresholdForCount(n, p.low_bits);
  configure(unit, c, 0, SignalMode::kLevelHigh, true, write);
  unit.write(unit.map().threshold, r.threshold, write);
  unit.write(unit.map().counter(c), r.preload, write);
  // Consecutive cycles go in as level runs, isolated ones as pulses.
  for (std::size_t i = 0; i < event_cycles.size();) {
    std::size_t j = i + 1;
    while (j < event_cycles.size() && event_cycles[j] == event_cycles[j - 1] + 1) ++j;
    if (j - i == 1) {
      unit.pulse(c, event_cycles[i]);
    } else {
      unit.level(c, event_cycles[i], event_cycles[j - 1] + 1);
    }
    i = j;
  }
  unit.advanceTo(event_cycles.back() + 2 * u64{p.counters} * p.service_cycles);
  return unit.takeInterrupts();
}

// First event cycle: the write cycle, or the arming visit when the pair needs it.
Cycle firstEventCycle(const Params& p, u32 c, u64 n, Cycle write) {
  if (!thresholdForCount(n, p.low_bits).arm_by_first_visit) return write;
  return Unit(p).nextVisit(c, write);
}

TEST(UpcThreshold, SmallUnitInterruptsAtTheNthEventForEveryNAndPhaseAtOneEventPerCycle) {
  Params p;
  p.counters = 8;
  p.events = 32;
  p.service_cycles = 2;
  p.low_bits = 4;  // N x S = 16 = 2^L: the tight safe design, like the seed's
  for (u32 phase = 0; phase < 16; ++phase) {
    p.service_phase = phase;
    for (u32 c : {0u, 3u, 7u}) {
      for (u64 n = 1; n <= 100; ++n) {
        const Cycle write = 5;
        const Cycle first = firstEventCycle(p, c, n, write);
        std::vector<Cycle> cycles;
        for (u64 i = 0; i < n + 40; ++i) cycles.push_back(first + i);  // run on past the n-th
        const auto irqs = runThreshold(p, c, n, write, cycles);
        ASSERT_GE(irqs.size(), 1u) << "phase " << phase << " counter " << c << " n " << n;
        EXPECT_EQ(irqs[0], (Interrupt{c, first + n - 1}))
            << "phase " << phase << " counter " << c << " n " << n;
      }
    }
  }
}

TEST(UpcThreshold, SmallUnitInterruptsAtTheNthEventOnRandomSparseStreams) {
  Params p;
  p.counters = 8;
  p.events = 32;
  p.service_cycles = 2;
  p.low_bits = 4;
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 3000; ++trial) {
    p.service_phase = static_cast<u32>(rng() % 16);
    const u32 c = static_cast<u32>(rng() % 8);
    const u64 n = 1 + rng() % 120;
    const Cycle write = rng() % 50;
    Cycle t = firstEventCycle(p, c, n, write);
    const u32 gap_limit = 1 + static_cast<u32>(rng() % 4);
    std::vector<Cycle> cycles;
    for (u64 i = 0; i < n + 10; ++i) {
      cycles.push_back(t);
      t += 1 + rng() % gap_limit;
    }
    const auto irqs = runThreshold(p, c, n, write, cycles);
    ASSERT_GE(irqs.size(), 1u) << "trial " << trial;
    EXPECT_EQ(irqs[0], (Interrupt{c, cycles[n - 1]})) << "trial " << trial << " n " << n;
  }
}

TEST(UpcThreshold, SeedUnitInterruptsAtTheNthEventForManyNAtOneEventPerCycle) {
  Params p;  // 256 counters, L = 12, S = 16
  for (u64 n = 1; n <= 3 * 4096 + 10;
       n += (n < 300 || (n % 4096) < 20 || (n % 4096) > 4080) ? 1 : 97) {
    const u32 c = static_cast<u32>(n % 256);
    const Cycle write = 1000 + n % 4096;
    const Cycle first = firstEventCycle(p, c, n, write);
    Unit unit(p);
    unit.write(unit.map().start_stop, 1, 0);
    const ThresholdPreload r = thresholdForCount(n, p.low_bits);
    configure(unit, c, 0, SignalMode::kLevelHigh, true, write);
    unit.write(unit.map().threshold, r.threshold, write);
    unit.write(unit.map().counter(c), r.preload, write);
    unit.level(c, first, first + n + 5000);
    unit.advanceTo(first + n + 5000);
    const auto got = unit.takeInterrupts();
    ASSERT_GE(got.size(), 1u) << "n " << n;
    EXPECT_EQ(got[0], (Interrupt{c, first + n - 1})) << "n " << n;
  }
}

TEST(UpcThreshold, SeedUnitInterruptsAtTheNthEventAtEveryPhaseWhenNIsAtLeastNS) {
  // n >= N x S needs no arming precaution even when events start in the write cycle.
  Params p;
  std::mt19937_64 rng(11);
  for (u32 phase = 0; phase < 4096; phase += 1) {
    p.service_phase = phase;
    const u64 n = 4096 + rng() % (5 * 4096);
    const u32 c = static_cast<u32>(rng() % 256);
    Unit unit(p);
    unit.write(unit.map().start_stop, 1, 0);
    const ThresholdPreload r = thresholdForCount(n, p.low_bits);
    const Cycle write = rng() % 8192;
    configure(unit, c, 0, SignalMode::kLevelHigh, true, write);
    unit.write(unit.map().threshold, r.threshold, write);
    unit.write(unit.map().counter(c), r.preload, write);
    unit.level(c, write, write + n + 100);
    unit.advanceTo(write + n + 100);
    const auto got = unit.takeInterrupts();
    ASSERT_EQ(got.size(), 1u) << "phase " << phase << " n " << n;
    EXPECT_EQ(got[0], (Interrupt{c, write + n - 1})) << "phase " << phase << " n " << n;
  }
}

TEST(UpcThreshold, SeedUnitInterruptsAtTheNthEventForRandomLargeN) {
  Params p;
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 60; ++trial) {
    p.service_phase = static_cast<u32>(rng() % 4096);
    const u64 n = 1 + rng() % (u64{1} << 28);
    const u32 c = static_cast<u32>(rng() % 256);
    Unit unit(p);
    unit.write(unit.map().start_stop, 1, 0);
    const ThresholdPreload r = thresholdForCount(n, p.low_bits);
    const Cycle write = rng() % 100000;
    const Cycle first = firstEventCycle(p, c, n, write);
    configure(unit, c, 0, SignalMode::kLevelHigh, true, write);
    unit.write(unit.map().threshold, r.threshold, write);
    unit.write(unit.map().counter(c), r.preload, write);
    // Bursty: runs of random length with one-cycle gaps, until well past the n-th event.
    Cycle t = first;
    u64 seen = 0;
    Cycle nth = 0;
    while (seen < n + 5000) {
      const u64 len = 1 + rng() % 100000;
      unit.level(c, t, t + len);
      if (nth == 0 && seen + len >= n) nth = t + (n - seen) - 1;
      seen += len;
      t += len + 1 + rng() % 3;
    }
    unit.advanceTo(t);
    const auto got = unit.takeInterrupts();
    ASSERT_EQ(got.size(), 1u) << "trial " << trial << " n " << n;
    EXPECT_EQ(got[0], (Interrupt{c, nth})) << "trial " << trial << " n " << n;
  }
}

TEST(UpcThreshold, EarlyEventsBeforeTheArmingVisitMissTheInterruptWhenNIsSmall) {
  // The documented limit: n <= 2^L events all before the first visit leave the counter unarmed.
  Params p;
  const u32 c = 100;  // visited at 1600
  Unit unit(p);
  unit.write(unit.map().start_stop, 1, 0);
  const ThresholdPreload r = thresholdForCount(10, p.low_bits);
  configure(unit, c, 0, SignalMode::kLevelHigh, true, 0);
  unit.write(unit.map().threshold, r.threshold, 0);
  unit.write(unit.map().counter(c), r.preload, 0);
  unit.level(c, 0, 10);
  unit.advanceTo(20000);
  EXPECT_TRUE(unit.takeInterrupts().empty());
}

}  // namespace
}  // namespace hpm::upc
