// CNKUnit rules of docs/upcq.md: software counters, exact at every cycle, counting from reset,
// overflow interrupts at the count (plus the latency) with counting going on.
#include <gtest/gtest.h>

#include "pmu/upcq/units.h"

namespace hpm::upcq {
namespace {

TEST(UpcqCNK, CountsFromResetAndEveryReadIsExact) {
  CNKUnit unit(CNKUnitParams{});
  EXPECT_EQ(unit.read(unit.map().run, 0), kRunBit);
  unit.write(unit.map().config(3), configValue(12, SignalMode::kLevelHigh, false), 0);
  unit.pulse(12, 5);
  EXPECT_EQ(unit.read(unit.map().counter(3), 6), 1u);
  unit.pulse(12, 6, 2);
  EXPECT_EQ(unit.read(unit.map().counter(3), 7), 3u);
  EXPECT_EQ(unit.nextVisit(3, 0), Unit::kNone);
}

TEST(UpcqCNK, OverflowInterruptsAtTheCountingCycleAndCountingGoesOn) {
  CNKUnitParams p;
  CNKUnit unit(p);
  unit.write(unit.map().config(3), configValue(12, SignalMode::kLevelHigh, true), 0);
  unit.write(unit.map().threshold(3), 3, 0);
  unit.pulse(12, 10);
  unit.pulse(12, 20);
  unit.pulse(12, 30);  // the 3rd system call
  EXPECT_EQ(unit.pendingInterruptCycle(), 30u);
  unit.pulse(12, 40);
  EXPECT_EQ(unit.read(unit.map().overflowStatus(0), 41), u64{1} << 3);
  EXPECT_EQ(unit.read(unit.map().counter(3), 41), 4u);
  const std::vector<Interrupt> irqs = unit.takeInterrupts();
  ASSERT_EQ(irqs.size(), 1u);
  EXPECT_EQ(irqs[0], (Interrupt{UnitKind::kCNKUnit, 0, 3, 30}));
}

TEST(UpcqCNK, OverflowLatencyDelaysTheInterrupt) {
  CNKUnitParams p;
  p.overflow_latency = 7;
  CNKUnit unit(p);
  unit.write(unit.map().config(0), configValue(1, SignalMode::kLevelHigh, true), 0);
  unit.write(unit.map().threshold(0), 1, 0);
  unit.pulse(1, 10);
  unit.advanceTo(100);
  const std::vector<Interrupt> irqs = unit.takeInterrupts();
  ASSERT_EQ(irqs.size(), 1u);
  EXPECT_EQ(irqs[0].cycle, 17u);
}

TEST(UpcqCNK, EverySignalModeCountsPulsesAndLevels) {
  CNKUnit unit(CNKUnitParams{});
  for (u32 j = 0; j < 4; ++j) {
    unit.write(unit.map().config(j), configValue(2, static_cast<SignalMode>(j), false), 0);
  }
  unit.level(2, 10, 20);  // e.g. cycles a futex wait lasted
  unit.pulse(2, 25);
  const RegisterMap& m = unit.map();
  EXPECT_EQ(unit.read(m.counter(0), 30), 11u);
  EXPECT_EQ(unit.read(m.counter(1), 30), 19u);
  EXPECT_EQ(unit.read(m.counter(2), 30), 2u);
  EXPECT_EQ(unit.read(m.counter(3), 30), 2u);
}

TEST(UpcqCNK, HasNoExactOrLocalRegistersNoHoldAndNoGlobalRun) {
  CNKUnit unit(CNKUnitParams{});
  EXPECT_EQ(unit.read(unit.map().exact(0), 1), 0u);
  EXPECT_EQ(unit.read(unit.map().local(0), 1), 0u);
  EXPECT_EQ(unit.read(unit.map().global_run, 1), 0u);
  EXPECT_EQ(unit.read(unit.map().access_error, 1) & kUnmappedRead, kUnmappedRead);
  unit.write(unit.map().run, kRunBit | kHoldBit, 2);
  EXPECT_EQ(unit.read(unit.map().run, 2), kRunBit);
  EXPECT_NE(unit.read(unit.map().access_error, 2) & kReservedBits, 0u);
}

}  // namespace
}  // namespace hpm::upcq
