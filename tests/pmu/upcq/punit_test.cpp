// PUnit rules of docs/upcq.md, each pinned to exact cycles: the sweep schedule, what COUNTER,
// COUNTER_EXACT and LOCAL return at each cycle, fast overflow (interrupt D cycles after the
// crossing event, counting through the interrupt cycle, frozen until acknowledged), run control,
// reset, local wraps, and the four signal modes on pulses and levels.
#include <gtest/gtest.h>

#include "pmu/upcq/units.h"

namespace hpm::upcq {
namespace {

// Core 0 of a default PUnit, counter c counting event e (level high), started at cycle 0.
PUnit started(u32 c, u32 e, bool overflow = false, PUnitParams p = {}, u32 core = 0) {
  PUnit unit(p, core);
  unit.write(unit.map().config(c), configValue(e, SignalMode::kLevelHigh, overflow), 0);
  unit.write(unit.map().run, kRunBit, 0);
  return unit;
}

TEST(UpcqPUnit, SweepVisitsCoresInOrderAndEachCoresCountersOneSlotApart) {
  PUnitParams p;
  const PUnit core0(p, 0), core2(p, 2);
  EXPECT_EQ(core0.nextVisit(0, 0), 0u);
  EXPECT_EQ(core0.nextVisit(23, 0), 23u);
  EXPECT_EQ(core2.nextVisit(5, 0), 2u * 24 + 5);  // slot 53
  EXPECT_EQ(core2.nextVisit(5, 53), 53u);
  EXPECT_EQ(core2.nextVisit(5, 54), 853u);
  EXPECT_EQ(core2.lastVisitBefore(5, 53), Unit::kNone);
  EXPECT_EQ(core2.lastVisitBefore(5, 54), 53u);
  EXPECT_EQ(core2.lastVisitBefore(5, 853), 53u);
  p.sweep.period = 1000;
  p.sweep.phase = 10;
  p.sweep.slot_cycles = 2;
  const PUnit shifted(p, 1);
  EXPECT_EQ(shifted.nextVisit(0, 0), 48u - 10);  // slot 24 x 2 cycles, minus the phase
  EXPECT_EQ(shifted.nextVisit(1, 0), 50u - 10);
  EXPECT_EQ(shifted.nextVisit(1, 41), 1040u);
  const PUnit wrapped(p, 0);
  EXPECT_EQ(wrapped.nextVisit(0, 0), 990u);  // (990 + 10) mod 1000 == 0
}

TEST(UpcqPUnit, CounterReturnsTheCountAsOfTheLastVisitAndExactTheCountNow) {
  PUnit unit = started(3, 7);  // counter 3 is visited at 3, 803, 1603, ...
  unit.pulse(7, 100);
  const RegisterMap& m = unit.map();
  EXPECT_EQ(unit.read(m.counter(3), 101), 0u);
  EXPECT_EQ(unit.read(m.exact(3), 101), 1u);
  EXPECT_EQ(unit.read(m.local(3), 101), 1u);
  EXPECT_EQ(unit.read(m.counter(3), 803), 0u);  // the visit of 803 comes after the access
  EXPECT_EQ(unit.read(m.counter(3), 804), 1u);
  EXPECT_EQ(unit.read(m.local(3), 804), 0u);
  EXPECT_EQ(unit.read(m.exact(3), 804), 1u);
}

TEST(UpcqPUnit, EventInAVisitCycleIsMovedByTheNextVisit) {
  PUnit unit = started(3, 7);
  unit.pulse(7, 803);  // the visit of 803 sees the events of the cycles before 803 only
  EXPECT_EQ(unit.read(unit.map().counter(3), 1603), 0u);
  EXPECT_EQ(unit.read(unit.map().counter(3), 1604), 1u);
}

TEST(UpcqPUnit, CounterSettlesOneSweepPeriodAfterTheLastEvent) {
  PUnit unit = started(3, 7);
  unit.level(7, 0, 5000);  // one event per cycle over [0, 5000); visits at 3 + 800 k
  EXPECT_EQ(unit.read(unit.map().counter(3), 4804), 4803u);
  EXPECT_EQ(unit.read(unit.map().counter(3), 5603), 4803u);
  EXPECT_EQ(unit.read(unit.map().counter(3), 5604), 5000u);  // 5000 + 800 >= settled
  EXPECT_EQ(unit.read(unit.map().counter(3), 5800), 5000u);
}

TEST(UpcqPUnit, FastOverflowInterruptsLatencyCyclesAfterTheCrossingEvent) {
  PUnit unit = started(3, 7, true);
  unit.write(unit.map().threshold(3), 10, 0);
  for (Cycle t = 100; t < 120; ++t) unit.pulse(7, t);  // the 10th event is at cycle 109
  EXPECT_EQ(unit.pendingInterruptCycle(), 113u);       // 109 + overflow_latency 4
  EXPECT_EQ(unit.read(unit.map().overflowStatus(0), 120), u64{1} << 3);
  const std::vector<Interrupt> irqs = unit.takeInterrupts();
  ASSERT_EQ(irqs.size(), 1u);
  EXPECT_EQ(irqs[0], (Interrupt{UnitKind::kPUnit, 0, 3, 113}));
  EXPECT_EQ(unit.pendingInterruptCycle(), Unit::kNone);
}

TEST(UpcqPUnit, StatusIsVisibleFromTheCycleAfterTheInterrupt) {
  PUnit unit = started(3, 7, true);
  unit.write(unit.map().threshold(3), 1, 0);
  unit.pulse(7, 100);  // interrupt at 104
  EXPECT_EQ(unit.read(unit.map().overflowStatus(0), 104), 0u);
  EXPECT_EQ(unit.read(unit.map().interrupt_line, 104), 0u);
  EXPECT_EQ(unit.read(unit.map().overflowStatus(0), 105), u64{1} << 3);
  EXPECT_EQ(unit.read(unit.map().interrupt_line, 105), 1u);
  EXPECT_TRUE(unit.interruptLine());
}

TEST(UpcqPUnit, CounterCountsThroughTheInterruptCycleThenFreezesUntilAcknowledged) {
  PUnit unit = started(3, 7, true);
  unit.write(unit.map().threshold(3), 10, 0);
  unit.level(7, 100, 1000);  // 10th event at 109, interrupt at 113: counts cycles 100..113
  EXPECT_EQ(unit.read(unit.map().exact(3), 500), 14u);
  EXPECT_TRUE(unit.inspect(3, 500).frozen);
  unit.write(unit.map().overflowStatus(0), u64{1} << 3, 600);  // acknowledge: counts from 600
  EXPECT_FALSE(unit.inspect(3, 600).frozen);
  EXPECT_EQ(unit.read(unit.map().exact(3), 700), 14u + 100);
  EXPECT_EQ(unit.read(unit.map().counter(3), 2000), 14u + 400);  // settled: 600..999
}

TEST(UpcqPUnit, AcknowledgeBeforeTheInterruptCycleDoesNotUnfreeze) {
  PUnit unit = started(3, 7, true);
  unit.write(unit.map().threshold(3), 10, 0);
  unit.level(7, 100, 1000);
  unit.write(unit.map().overflowStatus(0), u64{1} << 3, 111);  // status not yet set: no effect
  EXPECT_EQ(unit.read(unit.map().overflowStatus(0), 114), u64{1} << 3);
  EXPECT_EQ(unit.read(unit.map().exact(3), 500), 14u);
}

TEST(UpcqPUnit, OverflowPreloadInterruptsOnTheNthEventAsTheSeedsThresholdConversion) {
  for (u64 n : {1ull, 2ull, 16383ull, 16384ull, 100000ull}) {
    PUnit unit = started(3, 7, true);
    unit.write(unit.map().counter(3), overflowPreload(n), 0);  // threshold 0: the 64-bit wrap
    unit.level(7, 50, 50 + n + 100);
    unit.advanceTo(50 + n + 200);
    const std::vector<Interrupt> irqs = unit.takeInterrupts();
    ASSERT_EQ(irqs.size(), 1u) << n;
    EXPECT_EQ(irqs[0].cycle, 50 + (n - 1) + 4) << n;
    EXPECT_EQ(unit.read(unit.map().exact(3), 50 + n + 300), 4u) << n;  // wrapped to 0, +4 skid
  }
}

TEST(UpcqPUnit, AnEventOfManyOccurrencesThatPassesTheThresholdReachesIt) {
  PUnit unit = started(3, 7, true);
  unit.write(unit.map().threshold(3), 10, 0);
  unit.pulse(7, 100, 8);
  unit.pulse(7, 101, 8);  // 8 -> 16 passes 10
  EXPECT_EQ(unit.pendingInterruptCycle(), 105u);
}

TEST(UpcqPUnit, APreloadOntoTheThresholdDoesNotReachIt) {
  PUnit unit = started(3, 7, true);
  unit.write(unit.map().threshold(3), 50, 0);
  unit.write(unit.map().counter(3), 50, 10);
  unit.level(7, 20, 1000);
  unit.advanceTo(2000);
  EXPECT_TRUE(unit.takeInterrupts().empty());
  EXPECT_EQ(unit.read(unit.map().counter(3), 2000), 50u + 980);
}

TEST(UpcqPUnit, OverflowDisabledCountersNeitherInterruptNorFreeze) {
  PUnit unit = started(3, 7, false);
  unit.write(unit.map().threshold(3), 10, 0);
  unit.level(7, 100, 1000);
  EXPECT_EQ(unit.read(unit.map().exact(3), 1000), 900u);
  EXPECT_TRUE(unit.takeInterrupts().empty());
}

TEST(UpcqPUnit, CoreRunAndGlobalRunBothGateCountingFromTheCycleOfTheChange) {
  PUnit unit = started(3, 7);
  unit.level(7, 0, 1000);
  unit.setGlobalRun(false, 100);
  unit.setGlobalRun(true, 200);
  unit.write(unit.map().run, 0, 300);
  unit.setGlobalRun(false, 350);  // both off
  unit.write(unit.map().run, kRunBit, 400);
  unit.setGlobalRun(true, 500);
  EXPECT_EQ(unit.read(unit.map().exact(3), 1000), 100u + 100 + 500);
  EXPECT_EQ(unit.read(unit.map().global_run, 1000), 1u);
}

TEST(UpcqPUnit, ResetClearsCountsStatusAndFreezeButKeepsConfigurationAndThresholds) {
  PUnit unit = started(3, 7, true);
  unit.write(unit.map().threshold(3), 10, 0);
  unit.level(7, 100, 1000);
  unit.write(unit.map().reset, 1, 500);  // frozen at 14 since 114
  EXPECT_EQ(unit.read(unit.map().overflowStatus(0), 500), 0u);
  EXPECT_EQ(unit.read(unit.map().exact(3), 505), 5u);  // counting again from 500
  EXPECT_EQ(unit.read(unit.map().config(3), 505), configValue(7, SignalMode::kLevelHigh, true));
  EXPECT_EQ(unit.read(unit.map().threshold(3), 505), 10u);
  // The threshold is watched again: 10 events later it interrupts and freezes as before.
  EXPECT_EQ(unit.read(unit.map().exact(3), 600), 14u);
  unit.advanceTo(600);  // a counter read brings only that counter forward; this reports
  const std::vector<Interrupt> irqs = unit.takeInterrupts();
  ASSERT_EQ(irqs.size(), 2u);
  EXPECT_EQ(irqs[0].cycle, 113u);
  EXPECT_EQ(irqs[1].cycle, 513u);
}

TEST(UpcqPUnit, ExplorationModeLosesTwoToTheLEventsPerWrap) {
  PUnitParams p;
  p.local_bits = 4;
  p.exploration = true;
  PUnit unit = started(3, 7, false, p);
  unit.level(7, 4, 104);  // 100 events between the visits of 3 and 803: 6 wraps of 16
  EXPECT_EQ(unit.read(unit.map().counter(3), 900), 100u - 6 * 16);
  EXPECT_EQ(unit.lostWraps()[3], 6u);
  EXPECT_EQ(unit.stats().lost_wraps, 6u);
}

TEST(UpcqPUnit, EverySignalModeCountsPulsesAndLevels) {
  PUnit unit(PUnitParams{}, 0);
  const u32 e = 9;
  unit.write(unit.map().config(0), configValue(e, SignalMode::kLevelHigh, false), 0);
  unit.write(unit.map().config(1), configValue(e, SignalMode::kLevelLow, false), 0);
  unit.write(unit.map().config(2), configValue(e, SignalMode::kRisingEdge, false), 0);
  unit.write(unit.map().config(3), configValue(e, SignalMode::kFallingEdge, false), 0);
  unit.write(unit.map().run, kRunBit, 0);
  // High over [10, 20), pulses at 30 and 31, high over [40, 45) with 3 more occurrences at 44.
  unit.level(e, 10, 20);
  unit.pulse(e, 30);
  unit.pulse(e, 31);
  unit.level(e, 40, 45);
  unit.pulse(e, 44, 3);
  const RegisterMap& m = unit.map();
  EXPECT_EQ(unit.read(m.exact(0), 50), 10u + 2 + 5 + 3);
  EXPECT_EQ(unit.read(m.exact(1), 50), 50u - 17);  // low cycles of [0, 50)
  EXPECT_EQ(unit.read(m.exact(2), 50), 3u);        // 10, 30, 40
  EXPECT_EQ(unit.read(m.exact(3), 50), 3u);        // 20, 32, 45
}

TEST(UpcqPUnit, EdgesAreSampledWhileStoppedAndOnlyCountingIsGated) {
  PUnit unit(PUnitParams{}, 0);
  unit.write(unit.map().config(0), configValue(9, SignalMode::kRisingEdge, false), 0);
  unit.level(9, 10, 30);                    // rises at 10 while stopped
  unit.write(unit.map().run, kRunBit, 20);  // still high: no edge to count
  EXPECT_EQ(unit.read(unit.map().exact(0), 40), 0u);
}

TEST(UpcqPUnit, ALevelPendingAcrossAConfigurationChangeCountsUnderEachConfiguration) {
  PUnit unit = started(0, 9);
  unit.level(9, 10, 110);
  unit.write(unit.map().config(0), configValue(8, SignalMode::kLevelHigh, false), 60);
  unit.write(unit.map().config(0), configValue(9, SignalMode::kLevelHigh, false), 80);
  EXPECT_EQ(unit.read(unit.map().exact(0), 200), 50u + 30);
}

TEST(UpcqPUnit, InterestListsTheSelectedEventsAndItsEpochChangesWithThem) {
  PUnit unit(PUnitParams{}, 0);
  const Interest before = unit.interest();
  EXPECT_TRUE(before.test(0));  // reset configuration selects event 0
  EXPECT_FALSE(before.test(300));
  unit.write(unit.map().config(5), configValue(300, SignalMode::kLevelHigh, false), 1);
  const Interest after = unit.interest();
  EXPECT_TRUE(after.test(300));
  EXPECT_NE(after.epoch, before.epoch);
  EXPECT_TRUE(before.test(300));  // the span stays valid and current
  unit.write(unit.map().config(5), configValue(300, SignalMode::kLevelLow, false), 2);
  EXPECT_EQ(unit.interest().epoch, after.epoch);  // same events: same epoch
}

TEST(UpcqPUnit, InputsOutOfTimeOrderAreRefused) {
  PUnit unit = started(3, 7);
  unit.pulse(7, 100);
  EXPECT_THROW(unit.read(unit.map().counter(3), 100), Error);  // access after a pulse of its cycle
  unit.read(unit.map().counter(3), 200);
  EXPECT_THROW(unit.pulse(7, 150), Error);
  EXPECT_THROW(unit.level(7, 199, 300), Error);
  EXPECT_THROW(unit.pulse(PUnitParams{}.events, 300), Error);  // no such event
}

TEST(UpcqPUnit, LongIdleStretchesCostNothingPerCycle) {
  PUnit unit = started(3, 7);
  unit.level(7, 0, Cycle{1} << 40);  // 2^40 cycles of one event per cycle
  EXPECT_EQ(unit.read(unit.map().exact(3), Cycle{1} << 41), u64{1} << 40);
  EXPECT_EQ(unit.stats().events_counted, u64{1} << 40);
  EXPECT_EQ(unit.stats().max_transfer, 800u);  // whole sweep windows, computed not stepped
}

TEST(UpcqPUnit, AThresholdFarAheadOnALongRunIsReachedAtItsExactCycle) {
  PUnit unit = started(3, 7, true);
  const u64 n = (u64{1} << 39) + 12345;
  unit.write(unit.map().threshold(3), n, 0);
  unit.level(7, 100, Cycle{1} << 41);
  unit.advanceTo(Cycle{1} << 40);
  const std::vector<Interrupt> irqs = unit.takeInterrupts();
  ASSERT_EQ(irqs.size(), 1u);
  EXPECT_EQ(irqs[0].cycle, 100 + (n - 1) + 4);
  EXPECT_EQ(unit.read(unit.map().exact(3), Cycle{1} << 40), n + 4);
}

}  // namespace
}  // namespace hpm::upcq
