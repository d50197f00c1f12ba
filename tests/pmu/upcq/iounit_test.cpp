// IOUnit rules of docs/upcq.md: byte counts arrive as large pulses and are counted whole, the
// readable value lags by the sweep, slow overflow as the L2Unit, hold through RUN.hold.
#include <gtest/gtest.h>

#include "pmu/upcq/units.h"

namespace hpm::upcq {
namespace {

IOUnit started(u32 c, u32 e, bool overflow = false, IOUnitParams p = {}) {
  IOUnit unit(p);
  unit.write(unit.map().config(c), configValue(e, SignalMode::kLevelHigh, overflow), 0);
  unit.write(unit.map().run, kRunBit, 0);
  return unit;
}

TEST(UpcqIO, ByteCountsArriveAsOnePulsePerCallAndAreCountedWhole) {
  IOUnit unit = started(4, 2);  // counter 4 visited at 4 + 800 k
  unit.pulse(2, 100, 1000000);
  unit.pulse(2, 101, 3000000000ull);  // one 3 GB write; the local register has 32 bits
  EXPECT_EQ(unit.read(unit.map().counter(4), 804), 0u);
  EXPECT_EQ(unit.read(unit.map().counter(4), 805), 3001000000ull);
  EXPECT_EQ(unit.lostWraps()[4], 0u);
}

TEST(UpcqIO, ABurstBeyondTheLocalWidthLosesWrapsAndCountsThem) {
  IOUnit unit = started(4, 2);
  unit.pulse(2, 100, 3000000000ull);
  unit.pulse(2, 200, 3000000000ull);  // 6e9 > 2^32 - 1 before the next visit
  EXPECT_EQ(unit.read(unit.map().counter(4), 900), 6000000000ull - (u64{1} << 32));
  EXPECT_EQ(unit.lostWraps()[4], 1u);
}

TEST(UpcqIO, SlowOverflowIsDetectedAtTheVisitAndCountingContinues) {
  IOUnitParams p;
  p.overflow_latency = 2;
  IOUnit unit = started(4, 2, true, p);
  unit.write(unit.map().threshold(4), 4096, 0);
  unit.pulse(2, 100, 4000);
  unit.pulse(2, 900, 100);  // reaches 4096 in the local register; moved at 1604
  unit.pulse(2, 1000, 1);
  unit.advanceTo(3000);
  const std::vector<Interrupt> irqs = unit.takeInterrupts();
  ASSERT_EQ(irqs.size(), 1u);
  EXPECT_EQ(irqs[0], (Interrupt{UnitKind::kIOUnit, 0, 4, 1606}));
  EXPECT_EQ(unit.read(unit.map().counter(4), 3000), 4101u);
}

TEST(UpcqIO, HoldStopsCountingUntilAStatusWriteLeavesNoBitSet) {
  IOUnit unit = started(4, 2, true);
  unit.write(unit.map().threshold(4), 1, 0);
  unit.level(2, 0, 1000);                               // overflow at the visit of 4
  unit.write(unit.map().run, kRunBit | kHoldBit, 100);  // software may hold too
  unit.write(unit.map().run, kRunBit, 300);
  unit.interruptDelivered(500);
  unit.write(unit.map().overflowStatus(0), 1, 600);  // bit 4 still set: still held
  EXPECT_EQ(unit.read(unit.map().run, 600), kRunBit | kHoldBit);
  unit.write(unit.map().overflowStatus(0), u64{1} << 4, 700);  // clears the last bit: released
  EXPECT_EQ(unit.read(unit.map().run, 700), kRunBit);
  EXPECT_EQ(unit.inspect(4, 1000).exact, 100u + 200 + 300);
}

TEST(UpcqIO, EverySignalModeCountsPulsesAndLevels) {
  IOUnit unit(IOUnitParams{});
  for (u32 j = 0; j < 4; ++j) {
    unit.write(unit.map().config(j), configValue(9, static_cast<SignalMode>(j), false), 0);
  }
  unit.write(unit.map().run, kRunBit, 0);
  unit.level(9, 10, 20);
  unit.pulse(9, 20, 4);  // extends the high run to 21 with 4 more occurrences
  unit.level(9, 30, 35);
  EXPECT_EQ(unit.inspect(0, 100).exact, 10u + 4 + 5);
  EXPECT_EQ(unit.inspect(1, 100).exact, 100u - 16);
  EXPECT_EQ(unit.inspect(2, 100).exact, 2u);
  EXPECT_EQ(unit.inspect(3, 100).exact, 2u);
}

TEST(UpcqIO, AThresholdFarAheadOnALongRunIsDetectedAtTheFirstVisitAfterIt) {
  IOUnit unit = started(4, 2, true);
  const u64 n = 1000000000000ull;
  unit.write(unit.map().threshold(4), n, 0);
  unit.level(2, 100, Cycle{1} << 41);  // the n-th event is in cycle 100 + n - 1
  unit.advanceTo(Cycle{1} << 40);
  const std::vector<Interrupt> irqs = unit.takeInterrupts();
  ASSERT_EQ(irqs.size(), 1u);
  EXPECT_EQ(irqs[0].cycle, unit.nextVisit(4, 100 + n));
}

}  // namespace
}  // namespace hpm::upcq
