// The exact timing conventions of docs/upc.md: when an event counts, when a carry is latched,
// when the state machine visits an entry, when start/stop, arming and interrupts take effect.
#include <gtest/gtest.h>

#include "pmu/upc/unit.h"
#include "tests/pmu/upc/reference.h"

namespace hpm::upc {
namespace {

using testing::configure;

Unit startedUnit(Params p = {}) {
  Unit unit(p);
  unit.write(unit.map().start_stop, 1, 0);
  return unit;
}

TEST(UpcTiming, ReadAtCycleTExcludesEventsOfCycleT) {
  Unit unit = startedUnit();
  EXPECT_EQ(unit.read(unit.map().counter(7), 10), 0u);
  unit.pulse(7, 10);
  EXPECT_EQ(unit.read(unit.map().counter(7), 11), 1u);
}

TEST(UpcTiming, RegisterAccessMustPrecedeInputsOfItsCycle) {
  Unit unit = startedUnit();
  unit.pulse(7, 10);
  EXPECT_THROW(unit.read(unit.map().counter(7), 10), Error);
}

TEST(UpcTiming, InputsBeforeTheLastAccessAreRefused) {
  Unit unit = startedUnit();
  unit.read(0, 20);
  EXPECT_THROW(unit.pulse(0, 19), Error);
  EXPECT_THROW(unit.level(0, 19, 30), Error);
}

TEST(UpcTiming, StateMachineVisitsEntryCEverySlotOfItsPhase) {
  Params p;
  Unit unit(p);
  EXPECT_EQ(unit.nextVisit(0, 0), 0u);
  EXPECT_EQ(unit.nextVisit(5, 0), 80u);
  EXPECT_EQ(unit.nextVisit(5, 80), 80u);
  EXPECT_EQ(unit.nextVisit(5, 81), 80u + 4096u);
  p.service_phase = 3;
  Unit shifted(p);
  EXPECT_EQ(shifted.nextVisit(0, 0), 4093u);
  EXPECT_EQ(shifted.nextVisit(1, 0), 13u);
}

TEST(UpcTiming, CarryIsLatchedInTheWrapCycleAndServicedAtTheNextVisit) {
  Unit unit = startedUnit();
  const u32 c = 5;  // visited at 80 + 4096 k
  unit.write(unit.map().counter(c), 4095, 0);
  unit.pulse(c, 100);
  CounterState s = unit.inspect(c, 101);
  EXPECT_TRUE(s.carry);
  EXPECT_EQ(s.sram_word, 0u);
  EXPECT_EQ(s.low, 0u);
  EXPECT_EQ(s.value, 4096u);  // a read adds the pending carry
  s = unit.inspect(c, 4176);  // state before the visit of cycle 4176
  EXPECT_TRUE(s.carry);
  s = unit.inspect(c, 4177);
  EXPECT_FALSE(s.carry);
  EXPECT_EQ(s.sram_word, 1u);
  EXPECT_EQ(unit.stats().max_service_latency, 4176u - 100u);
}

TEST(UpcTiming, CarryInAVisitCycleWaitsAFullRound) {
  Unit unit = startedUnit();
  const u32 c = 5;
  unit.write(unit.map().counter(c), 4095, 0);
  unit.pulse(c, 80);  // the visit of cycle 80 happens before the event of cycle 80
  EXPECT_TRUE(unit.inspect(c, 81).carry);
  EXPECT_TRUE(unit.inspect(c, 80 + 4096).carry);
  EXPECT_FALSE(unit.inspect(c, 81 + 4096).carry);
  EXPECT_EQ(unit.stats().max_service_latency, 4096u);
}

TEST(UpcTiming, StartAndStopTakeEffectInTheCycleOfTheWrite) {
  Unit unit(Params{});
  unit.level(3, 40, 70);
  unit.write(unit.map().start_stop, 1, 50);
  unit.pulse(4, 50);
  unit.write(unit.map().start_stop, 0, 60);
  unit.pulse(4, 60);
  EXPECT_EQ(unit.read(unit.map().counter(3), 100), 10u);  // cycles 50..59
  EXPECT_EQ(unit.read(unit.map().counter(4), 100), 1u);   // the pulse at 50 only
}

TEST(UpcTiming, ArmingAtAVisitAndInterruptAtTheNextCarryOut) {
  Unit unit = startedUnit();
  const u32 c = 5;
  configure(unit, c, 0, SignalMode::kLevelHigh, true, 0);
  unit.write(unit.map().threshold, 4096, 0);   // high-order part 1
  unit.write(unit.map().counter(c), 4095, 0);  // high 0, low 4095
  unit.pulse(c, 100);                          // carry at 100, serviced (high = 1) at 4176
  EXPECT_FALSE(unit.inspect(c, 4176).armed);
  EXPECT_TRUE(unit.inspect(c, 4177).armed);
  unit.level(c, 4177, 4177 + 4096);  // the 4096th event of the run carries out at 8272
  unit.advanceTo(9000);
  const auto irqs = unit.takeInterrupts();
  ASSERT_EQ(irqs.size(), 1u);
  EXPECT_EQ(irqs[0], (Interrupt{c, 4177 + 4095}));
  EXPECT_FALSE(unit.inspect(c, 9000).armed);
  EXPECT_TRUE(unit.interruptLine());
  EXPECT_EQ(unit.read(unit.map().interrupt_status, 9000), u64{1} << c);
}

TEST(UpcTiming, ArmedCounterCarryingInTheArmingCycleInterruptsInThatCycle) {
  Unit unit = startedUnit();
  const u32 c = 5;
  configure(unit, c, 0, SignalMode::kLevelHigh, true, 0);
  unit.write(unit.map().threshold, 0, 0);
  unit.write(unit.map().counter(c), 4095, 0);  // high 0 matches: armed at the visit of 80
  unit.pulse(c, 80);
  const auto irqs = unit.takeInterrupts();
  ASSERT_EQ(irqs.size(), 1u);
  EXPECT_EQ(irqs[0].cycle, 80u);
}

TEST(UpcTiming, CarryBeforeTheArmingVisitRaisesNothing) {
  Unit unit = startedUnit();
  const u32 c = 5;
  configure(unit, c, 0, SignalMode::kLevelHigh, true, 0);
  unit.write(unit.map().counter(c), 4095, 0);
  unit.pulse(c, 79);  // carry one cycle before the visit that would have armed
  unit.advanceTo(20000);
  EXPECT_TRUE(unit.takeInterrupts().empty());
  EXPECT_FALSE(unit.inspect(c, 20000).armed);  // high is 1 now: no match with threshold 0
}

TEST(UpcTiming, EdgeAndLevelModesCountOnTheDocumentedCycles) {
  // Signal of event 0: high in cycles 10..12 and 20, low elsewhere; read at 15 and 30.
  for (SignalMode mode : {SignalMode::kLevelHigh, SignalMode::kLevelLow, SignalMode::kRisingEdge,
                          SignalMode::kFallingEdge}) {
    Unit unit = startedUnit();
    configure(unit, 0, 0, mode, false, 0);
    unit.level(0, 10, 13);
    const u64 at15 = unit.read(0, 15);
    unit.pulse(0, 20);
    const u64 at30 = unit.read(0, 30);
    switch (mode) {
      case SignalMode::kLevelHigh:
        EXPECT_EQ(at15, 3u);
        EXPECT_EQ(at30, 4u);
        break;
      case SignalMode::kLevelLow:
        EXPECT_EQ(at15, 12u);
        EXPECT_EQ(at30, 26u);
        break;
      case SignalMode::kRisingEdge:
        EXPECT_EQ(at15, 1u);
        EXPECT_EQ(at30, 2u);
        break;
      case SignalMode::kFallingEdge:
        EXPECT_EQ(at15, 1u);
        EXPECT_EQ(at30, 2u);
        break;
    }
  }
}

TEST(UpcTiming, FallingEdgeCountsInTheFirstLowCycle) {
  Unit unit = startedUnit();
  configure(unit, 0, 0, SignalMode::kFallingEdge, false, 0);
  unit.level(0, 10, 13);
  EXPECT_EQ(unit.read(0, 13), 0u);  // cycle 13 is the first low cycle: not yet counted
  EXPECT_EQ(unit.read(0, 14), 1u);
}

TEST(UpcTiming, PulsesOfOneCycleAddUpAndCountOneEdge) {
  Unit unit = startedUnit();
  configure(unit, 1, 0, SignalMode::kRisingEdge, false, 0);
  unit.pulse(0, 5, 3);
  unit.pulse(0, 5, 2);
  unit.pulse(1, 5, 3);
  unit.pulse(1, 5, 2);
  EXPECT_EQ(unit.read(0, 6), 5u);
  EXPECT_EQ(unit.read(unit.map().counter(1), 6), 1u);
}

TEST(UpcTiming, EdgeDetectorFollowsTheMultiplexerAcrossASelectChange) {
  // Counter 0 counts rising edges of event 0, high from cycle 0; at cycle 10 it switches to
  // event 256, also high: no edge, because the detector saw the old input high in cycle 9.
  Unit unit = startedUnit();
  configure(unit, 0, 0, SignalMode::kRisingEdge, false, 0);
  unit.level(0, 0, 100);
  unit.level(256, 0, 100);
  configure(unit, 0, 1, SignalMode::kRisingEdge, false, 10);
  EXPECT_EQ(unit.read(0, 50), 1u);
}

TEST(UpcTiming, LevelPendingAcrossAccessesCountsUnderTheConfigurationOfEachCycle) {
  Unit unit = startedUnit();
  unit.level(256 + 2, 0, 1000);  // counter 2, bank 1: not selected yet
  configure(unit, 2, 1, SignalMode::kLevelHigh, false, 100);
  unit.write(unit.map().start_stop, 0, 300);
  EXPECT_EQ(unit.read(unit.map().counter(2), 500), 200u);
}

TEST(UpcTiming, InterestFilterFollowsTheSelects) {
  Unit unit(Params{});
  const u64 epoch = unit.interest().epoch;
  EXPECT_TRUE(unit.interest().test(9));
  EXPECT_FALSE(unit.interest().test(256 + 9));
  configure(unit, 9, 1, SignalMode::kLevelHigh, false, 5);
  EXPECT_FALSE(unit.interest().test(9));
  EXPECT_TRUE(unit.interest().test(256 + 9));
  EXPECT_NE(unit.interest().epoch, epoch);
}

TEST(UpcTiming, MultiCarryPulseLosesAllButOneCarry) {
  Params p;
  Unit unit(p);
  unit.write(unit.map().start_stop, 1, 0);
  unit.pulse(0, 1, 3 * 4096);  // three carries in one cycle: the latch takes one
  EXPECT_EQ(unit.stats().lost_carries, 2u);
  EXPECT_EQ(unit.read(0, 2), 4096u);
}

}  // namespace
}  // namespace hpm::upc
