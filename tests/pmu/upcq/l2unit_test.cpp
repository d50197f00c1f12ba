// L2Unit rules of docs/upcq.md: combined mode (node-wide sums, one configuration per counter,
// each slice moved at its own visit), sliced mode, mode switches, and slow overflow (detected at
// the visit that makes the central value reach the threshold, counting continuing, held from
// delivery to acknowledge), with exact cycles.
#include <gtest/gtest.h>

#include <algorithm>

#include "pmu/upcq/units.h"

namespace hpm::upcq {
namespace {

// Default L2 unit (16 slices x 6 counters, combined), counter j counting event e, started.
L2Unit started(u32 j, u32 e, bool overflow = false, L2UnitParams p = {}) {
  L2Unit unit(p);
  unit.write(unit.map().config(j), configValue(e, SignalMode::kLevelHigh, overflow), 0);
  unit.write(unit.map().run, kRunBit, 0);
  return unit;
}

TEST(UpcqL2, CombinedIsTheDefaultAndOneConfigurationServesEverySlice) {
  L2Unit unit = started(2, 5);
  EXPECT_FALSE(unit.sliced());
  EXPECT_EQ(unit.read(unit.map().mode, 1), 0u);
  for (u32 s = 0; s < 16; ++s) {
    EXPECT_EQ(unit.read(unit.map().config(s * 6 + 2), 1),
              configValue(5, SignalMode::kLevelHigh, false));
  }
  EXPECT_TRUE(unit.interest(15).test(5));
}

TEST(UpcqL2, CombinedCounterIsTheNodeWideSumOverSlices) {
  L2Unit unit = started(2, 5);
  unit.pulse(0, 5, 10);
  unit.pulse(7, 5, 10, 2);
  unit.pulse(15, 5, 11);
  unit.level(3, 5, 20, 30);
  EXPECT_EQ(unit.read(unit.map().counter(2), 1000), 1u + 2 + 1 + 10);
  EXPECT_EQ(unit.inspect(2, 1000).exact, 14u);
}

TEST(UpcqL2, CombinedCounterTakesEachSliceAtThatSlicesVisit) {
  L2Unit unit = started(2, 5);  // slice s's counter 2 is visited at 6 s + 2 (mod 800)
  unit.pulse(3, 5, 10);         // moved at 20
  unit.pulse(0, 5, 10);         // moved at 802
  EXPECT_EQ(unit.read(unit.map().counter(2), 20), 0u);
  EXPECT_EQ(unit.read(unit.map().counter(2), 21), 1u);
  EXPECT_EQ(unit.read(unit.map().counter(2), 802), 1u);
  EXPECT_EQ(unit.read(unit.map().counter(2), 803), 2u);
  EXPECT_EQ(unit.lastVisitBefore(3 * 6 + 2, 803), 20u);
}

TEST(UpcqL2, CombinedModeSliceRegistersBeyondTheFirstAreInactive) {
  L2Unit unit = started(2, 5);
  unit.pulse(4, 5, 10);
  EXPECT_EQ(unit.read(unit.map().counter(4 * 6 + 2), 1000), 0u);
  unit.write(unit.map().config(4 * 6 + 2), configValue(1, SignalMode::kLevelLow, false), 1000);
  unit.write(unit.map().counter(4 * 6 + 2), 77, 1000);
  EXPECT_EQ(unit.read(unit.map().access_error, 1000) & kUnmappedWrite, kUnmappedWrite);
  EXPECT_EQ(unit.read(unit.map().config(4 * 6 + 2), 1000),
            configValue(5, SignalMode::kLevelHigh, false));
  EXPECT_EQ(unit.read(unit.map().counter(2), 1000), 1u);
}

TEST(UpcqL2, SlicedModeKeepsOneCounterPerSliceCounter) {
  L2UnitParams p;
  p.sliced = true;
  L2Unit unit(p);
  EXPECT_TRUE(unit.sliced());
  unit.write(unit.map().config(7 * 6 + 2), configValue(5, SignalMode::kLevelHigh, false), 0);
  unit.write(unit.map().config(2), configValue(6, SignalMode::kLevelHigh, false), 0);
  unit.write(unit.map().run, kRunBit, 0);
  EXPECT_FALSE(unit.interest(0).test(5));
  EXPECT_TRUE(unit.interest(7).test(5));
  unit.pulse(7, 5, 10, 3);
  unit.pulse(0, 6, 10);
  unit.pulse(0, 5, 10);  // slice 0's counter 2 counts event 6, not 5
  EXPECT_EQ(unit.read(unit.map().counter(7 * 6 + 2), 1000), 3u);
  EXPECT_EQ(unit.read(unit.map().counter(2), 1000), 1u);
}

TEST(UpcqL2, ModeSwitchClearsCountsAndEnteringCombinedCopiesTheFirstSlicesConfiguration) {
  L2Unit unit = started(2, 5);
  unit.pulse(1, 5, 10);
  unit.write(unit.map().mode, 1, 100);  // sliced: counts start over
  EXPECT_TRUE(unit.sliced());
  EXPECT_EQ(unit.read(unit.map().counter(2), 1000), 0u);
  unit.write(unit.map().config(9 * 6 + 2), configValue(3, SignalMode::kLevelHigh, false), 1000);
  unit.pulse(9, 3, 1010);
  EXPECT_EQ(unit.read(unit.map().counter(9 * 6 + 2), 2000), 1u);
  unit.write(unit.map().mode, 0, 2000);  // combined again
  EXPECT_EQ(unit.read(unit.map().config(9 * 6 + 2), 2000),
            configValue(5, SignalMode::kLevelHigh, false));
  EXPECT_EQ(unit.read(unit.map().counter(2), 2000), 0u);
}

TEST(UpcqL2, SlowOverflowIsDetectedAtTheVisitThatMakesTheCentralValueReachTheThreshold) {
  L2Unit unit = started(0, 5, true);
  unit.write(unit.map().threshold(0), 10, 0);
  unit.level(0, 5, 100, 106);  // 6 events on slice 0 (visited at 0, 800, ...)
  unit.level(2, 5, 100, 104);  // 4 events on slice 2 (visited at 12, 812, ...): reaches 10
  unit.advanceTo(2000);
  const std::vector<Interrupt> irqs = unit.takeInterrupts();
  ASSERT_EQ(irqs.size(), 1u);
  EXPECT_EQ(irqs[0], (Interrupt{UnitKind::kL2Unit, 0, 0, 812}));
}

TEST(UpcqL2, SlowOverflowLatencyDelaysTheInterruptFromTheDetectingVisit) {
  L2UnitParams p;
  p.overflow_latency = 5;
  L2Unit unit = started(0, 5, true, p);
  unit.write(unit.map().threshold(0), 1, 0);
  unit.pulse(0, 5, 100);
  unit.advanceTo(2000);
  const std::vector<Interrupt> irqs = unit.takeInterrupts();
  ASSERT_EQ(irqs.size(), 1u);
  EXPECT_EQ(irqs[0].cycle, 805u);
}

TEST(UpcqL2, CountingContinuesAfterASlowOverflowAndIsHeldFromDeliveryToAcknowledge) {
  L2Unit unit = started(0, 5, true);
  unit.write(unit.map().threshold(0), 10, 0);
  unit.level(0, 5, 100, 5000);  // reaches 10 by the visit of 800: interrupt at 800
  EXPECT_EQ(unit.read(unit.map().overflowStatus(0), 801), 1u);
  EXPECT_EQ(unit.inspect(0, 1000).exact, 900u);  // not frozen
  unit.interruptDelivered(1000);                 // the handler starts: counting held
  EXPECT_EQ(unit.read(unit.map().run, 1000), kRunBit | kHoldBit);
  EXPECT_EQ(unit.inspect(0, 1500).exact, 900u);
  unit.write(unit.map().overflowStatus(0), 1, 1500);  // acknowledge: counting again
  EXPECT_EQ(unit.read(unit.map().run, 1500), kRunBit);
  EXPECT_EQ(unit.inspect(0, 1600).exact, 1000u);
  EXPECT_EQ(unit.read(unit.map().counter(0), 6000), 4400u);  // settled
}

TEST(UpcqL2, HoldLastsUntilTheLastStatusBitIsAcknowledged) {
  L2Unit unit = started(0, 5, true);
  unit.write(unit.map().config(1), configValue(6, SignalMode::kLevelHigh, true), 0);
  unit.write(unit.map().threshold(0), 1, 0);
  unit.write(unit.map().threshold(1), 1, 0);
  unit.pulse(0, 5, 10);
  unit.pulse(0, 6, 10);
  unit.interruptDelivered(900);
  EXPECT_EQ(unit.read(unit.map().overflowStatus(0), 900), 3u);
  unit.write(unit.map().overflowStatus(0), 1, 910);
  EXPECT_EQ(unit.read(unit.map().run, 910), kRunBit | kHoldBit);
  unit.write(unit.map().overflowStatus(0), 2, 920);
  EXPECT_EQ(unit.read(unit.map().run, 920), kRunBit);
}

// The slices of a combined counter may be fed in any order between two accesses (the contract
// orders the inputs of one event only); the detecting visit is still the right one.
TEST(UpcqL2, CombinedOverflowIsOrderedByVisitCycleWhateverOrderTheSlicesAreFedIn) {
  L2Unit unit = started(0, 5, true);
  unit.write(unit.map().threshold(0), 5, 0);
  unit.pulse(0, 5, 30, 3);   // slice 0 (visited at 800 k): 3 events moved at 800
  unit.pulse(0, 5, 900);     // slice 0 runs ahead past its visit of 800
  unit.pulse(15, 5, 50, 4);  // slice 15 (visited at 90 + 800 k): 4 events moved at 90
  unit.advanceTo(2000);      // in visit order: 4 at 90, 7 at 800 reaches 5
  const std::vector<Interrupt> irqs = unit.takeInterrupts();
  ASSERT_EQ(irqs.size(), 1u);
  EXPECT_EQ(irqs[0].cycle, 800u);
}

TEST(UpcqL2, EverySignalModeCountsPulsesAndLevelsOnEverySlice) {
  L2Unit unit(L2UnitParams{});
  for (u32 j = 0; j < 4; ++j) {
    unit.write(unit.map().config(j), configValue(9, static_cast<SignalMode>(j), false), 0);
  }
  unit.write(unit.map().run, kRunBit, 0);
  for (u32 s : {0u, 5u}) {  // high over [10, 20), a pulse at 30, 2 occurrences at 40
    unit.level(s, 9, 10, 20);
    unit.pulse(s, 9, 30);
    unit.pulse(s, 9, 40, 2);
  }
  EXPECT_EQ(unit.read(unit.map().counter(0), 2000), 2u * 13);  // moved at 800 and 830
  // Level low counts on all 16 slices; slices 0 and 5 were high for 12 cycles.
  EXPECT_EQ(unit.inspect(1, 2000).exact, 16u * 2000 - 2 * 12);
  EXPECT_EQ(unit.inspect(2, 2000).exact, 2u * 3);
  EXPECT_EQ(unit.inspect(3, 2000).exact, 2u * 3);
}

TEST(UpcqL2, SweptWindowsLeaveTheCounterAsThePulsesOfEachWindowAndTheirVisitsDo) {
  // Slice 3's counter 2 is visited at 20 + 800 k. Windows k = 0..5 with these counts, one pulse
  // each in the cycle before the visit that ends it; the second unit takes windows 1 to 4 in
  // bulk between the first and the last pulse.
  const u64 counts[] = {5, 16383, 7, 0, 900, 12};
  L2Unit pulsed = started(2, 5);
  L2Unit bulk = started(2, 5);
  pulsed.pulse(0, 5, 400, 4);  // another slice, same central counter
  bulk.pulse(0, 5, 400, 4);
  Unit::SweptWindows w;
  for (u64 k = 0; k < 6; ++k) {
    const Cycle visit = 20 + 800 * k;
    if (counts[k] != 0) pulsed.pulse(3, 5, visit - 1, counts[k]);
    if (k == 0 || k == 5) {
      bulk.pulse(3, 5, visit - 1, counts[k]);
    } else if (counts[k] != 0) {
      if (w.windows == 0) w.first_visit = visit;
      w.last_visit = visit;
      w.amount += counts[k];
      w.max_window = std::max(w.max_window, counts[k]);
      ++w.windows;
    }
    if (k == 4) bulk.sweptWindows(3, 5, w);
  }
  EXPECT_EQ(w.windows, 3u);
  for (const Cycle t : {Cycle{4020}, Cycle{4021}, Cycle{4800}, Cycle{4821}, Cycle{9000}}) {
    EXPECT_EQ(bulk.read(bulk.map().counter(2), t), pulsed.read(pulsed.map().counter(2), t)) << t;
    EXPECT_EQ(bulk.inspect(2, t).exact, pulsed.inspect(2, t).exact) << t;
  }
  EXPECT_EQ(bulk.read(bulk.map().counter(2), 9000), 4u + 5 + 16383 + 7 + 900 + 12);
  EXPECT_EQ(bulk.stats().events_counted, pulsed.stats().events_counted);
  EXPECT_EQ(bulk.stats().transfers, pulsed.stats().transfers);
  EXPECT_EQ(bulk.stats().max_transfer, pulsed.stats().max_transfer);
  EXPECT_EQ(bulk.stats().lost_wraps, 0u);
}

TEST(UpcqL2, SweptWindowsAreRefusedWhereTheyWouldNotBeWholeWindows) {
  L2Unit unit = started(2, 5);
  Unit::SweptWindows w{
      .first_visit = 820, .last_visit = 820, .amount = 3, .windows = 1, .max_window = 3};
  Unit::SweptWindows not_a_visit = w;
  not_a_visit.first_visit = not_a_visit.last_visit = 821;
  EXPECT_THROW(unit.sweptWindows(3, 5, not_a_visit), Error);
  Unit::SweptWindows wraps = w;
  wraps.amount = wraps.max_window = 16384;
  EXPECT_THROW(unit.sweptWindows(3, 5, wraps), Error);
  unit.pulse(3, 5, 810);  // counted in the first window itself: it would move with it
  EXPECT_THROW(unit.sweptWindows(3, 5, w), Error);
  L2Unit watched = started(2, 5, true);
  EXPECT_THROW(watched.sweptWindows(3, 5, w), Error);
}

}  // namespace
}  // namespace hpm::upcq
