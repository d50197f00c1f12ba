// The register windows (docs/upcq.md, "Register map"): offsets of every unit, unit information,
// and the documented behaviour of unmapped, read-only, misaligned and reserved accesses.
#include <gtest/gtest.h>

#include "pmu/upcq/units.h"

namespace hpm::upcq {
namespace {

TEST(UpcqRegisters, PUnitWindowHasTheDocumentedOffsets) {
  const PUnit unit(PUnitParams{}, 0);
  const RegisterMap& m = unit.map();
  EXPECT_EQ(m.counter(0), 0x000u);
  EXPECT_EQ(m.counter(23), 0x0B8u);
  EXPECT_EQ(m.config(0), 0x100u);
  EXPECT_EQ(m.threshold(0), 0x200u);
  EXPECT_EQ(m.exact(0), 0x300u);
  EXPECT_EQ(m.local(0), 0x400u);
  EXPECT_EQ(m.run, 0x500u);
  EXPECT_EQ(m.reset, 0x508u);
  EXPECT_EQ(m.access_error, 0x510u);
  EXPECT_EQ(m.unit_info, 0x518u);
  EXPECT_EQ(m.sweep_info, 0x520u);
  EXPECT_EQ(m.mode, 0x528u);
  EXPECT_EQ(m.global_run, 0x530u);
  EXPECT_EQ(m.interrupt_line, 0x538u);
  EXPECT_EQ(m.overflowStatus(0), 0x540u);
  EXPECT_EQ(m.window_bytes, 0x1000u);
}

TEST(UpcqRegisters, L2AndIOWindowsScaleTheArraysWithTheirCounters) {
  const L2Unit l2(L2UnitParams{});
  EXPECT_EQ(l2.counterCount(), 96u);
  EXPECT_EQ(l2.map().stride, 0x300u);
  EXPECT_EQ(l2.map().config(95), 0x300u + 95 * 8);
  EXPECT_EQ(l2.map().control, 0xF00u);
  EXPECT_EQ(l2.map().status_words, 2u);
  EXPECT_EQ(l2.map().overflowStatus(1), 0xF48u);
  EXPECT_EQ(l2.map().window_bytes, 0x1000u);
  const IOUnit io(IOUnitParams{});
  EXPECT_EQ(io.map().stride, 0x200u);
  EXPECT_EQ(io.map().control, 0xA00u);
  EXPECT_EQ(io.map().window_bytes, 0x1000u);
}

TEST(UpcqRegisters, UnitInfoAndSweepInfoDescribeTheUnit) {
  PUnit unit(PUnitParams{}, 5);
  EXPECT_EQ(unit.read(unit.map().unit_info, 0), u64{0} | u64{5} << 8 | u64{24} << 16 |
                                                    u64{1} << 24 | u64{14} << 32 |
                                                    u64{PUnitParams{}.events - 1} << 48);
  EXPECT_EQ(unit.read(unit.map().sweep_info, 0), u64{800} | u64{4} << 32 | u64{1} << 48);
  L2Unit l2(L2UnitParams{});
  EXPECT_EQ(l2.read(l2.map().unit_info, 0),
            u64{1} | u64{6} << 16 | u64{16} << 24 | u64{14} << 32 | u64{1} << 40 | u64{31} << 48);
  CNKUnit cnk(CNKUnitParams{});
  EXPECT_EQ(cnk.read(cnk.map().unit_info, 0),
            u64{3} | u64{32} << 16 | u64{1} << 24 | u64{63} << 48);
  EXPECT_EQ(cnk.read(cnk.map().access_error, 0), 0u);
}

TEST(UpcqRegisters, UnmappedReadsReturnZeroAndSetAStickyBitWithTheFirstOffset) {
  PUnit unit(PUnitParams{}, 0);
  const RegisterMap& m = unit.map();
  EXPECT_EQ(unit.read(m.counter(24), 1), 0u);  // beyond the counters of the array
  EXPECT_EQ(unit.read(m.mode, 2), 0u);         // MODE exists on the L2Unit only
  EXPECT_EQ(unit.read(m.overflowStatus(1), 3), 0u);
  EXPECT_EQ(unit.read(0xFF8, 4), 0u);
  EXPECT_EQ(unit.read(m.access_error, 5), kUnmappedRead | u64{m.counter(24)} << 32);
  EXPECT_EQ(unit.stats().access_errors, 4u);
}

TEST(UpcqRegisters, WritesToUnmappedOrReadOnlyOffsetsAreIgnoredAndFlagged) {
  PUnit unit(PUnitParams{}, 0);
  const RegisterMap& m = unit.map();
  for (u64 offset : {m.exact(0), m.local(0), m.unit_info, m.sweep_info, m.global_run,
                     m.interrupt_line, u64{0xFF8}}) {
    unit.write(offset, ~u64{0}, 1);
  }
  EXPECT_EQ(unit.read(m.unit_info, 2) & 0xFF, 0u);
  EXPECT_EQ(unit.read(m.global_run, 2), 1u);
  EXPECT_EQ(unit.read(m.access_error, 2), kUnmappedWrite | u64{m.exact(0)} << 32);
}

TEST(UpcqRegisters, MisalignedAccessesReadZeroIgnoreWritesAndAreFlagged) {
  PUnit unit(PUnitParams{}, 0);
  unit.write(unit.map().counter(1), 5, 0);
  EXPECT_EQ(unit.read(unit.map().counter(1) + 4, 1), 0u);
  unit.write(unit.map().counter(1) + 1, 9, 2);
  EXPECT_EQ(unit.read(unit.map().counter(1), 3), 5u);
  EXPECT_EQ(unit.read(unit.map().access_error, 3) & 0xF, kMisaligned);
}

TEST(UpcqRegisters, ReservedConfigurationBitsAreDroppedAndFlagged) {
  PUnit unit(PUnitParams{}, 0);
  const u64 config = configValue(17, SignalMode::kFallingEdge, true);
  unit.write(unit.map().config(2), config | u64{1} << 40, 0);
  EXPECT_EQ(unit.read(unit.map().config(2), 1), config);
  EXPECT_EQ(unit.read(unit.map().access_error, 1) & 0xF, kReservedBits);
}

TEST(UpcqRegisters, AnEventSelectBeyondTheInputsKeepsTheOldSelect) {
  PUnit unit(PUnitParams{}, 0);
  unit.write(unit.map().config(2), configValue(17, SignalMode::kLevelHigh, false), 0);
  unit.write(unit.map().config(2), configValue(PUnitParams{}.events, SignalMode::kLevelLow, false),
             1);
  EXPECT_EQ(unit.read(unit.map().config(2), 2), configValue(17, SignalMode::kLevelLow, false));
  EXPECT_EQ(unit.read(unit.map().access_error, 2) & 0xF, kReservedBits);
}

TEST(UpcqRegisters, ReservedBitsOfRunResetAndStatusAreFlagged) {
  PUnit unit(PUnitParams{}, 0);
  unit.write(unit.map().run, kRunBit | kHoldBit, 0);  // no hold on the PUnit
  EXPECT_EQ(unit.read(unit.map().run, 1), kRunBit);
  EXPECT_EQ(unit.read(unit.map().reset, 1), 0u);
  unit.write(unit.map().access_error, 0xF, 1);
  unit.write(unit.map().overflowStatus(0), u64{1} << 30, 2);  // no counter 30
  EXPECT_EQ(unit.read(unit.map().access_error, 3) & 0xF, kReservedBits);
  unit.write(unit.map().access_error, 0xF, 3);
  unit.write(unit.map().reset, 6, 4);
  EXPECT_EQ(unit.read(unit.map().access_error, 5) & 0xF, kReservedBits);
}

TEST(UpcqRegisters, AccessErrorBitsClearByWritingOnesAndTheOffsetClearsWithTheLastBit) {
  PUnit unit(PUnitParams{}, 0);
  unit.read(0xFF8, 0);
  unit.read(0xFF1, 1);
  const u64 both = kUnmappedRead | kMisaligned | u64{0xFF8} << 32;
  EXPECT_EQ(unit.read(unit.map().access_error, 2), both);
  unit.write(unit.map().access_error, kMisaligned, 3);
  EXPECT_EQ(unit.read(unit.map().access_error, 4), kUnmappedRead | u64{0xFF8} << 32);
  unit.write(unit.map().access_error, kUnmappedRead, 5);
  EXPECT_EQ(unit.read(unit.map().access_error, 6), 0u);
  unit.read(0xFF0, 7);
  EXPECT_EQ(unit.read(unit.map().access_error, 8), kUnmappedRead | u64{0xFF0} << 32);
}

TEST(UpcqRegisters, ThresholdsAndPreloadsReadBackExactly) {
  PUnit unit(PUnitParams{}, 0);
  unit.write(unit.map().threshold(7), 0x123456789ABCDEF0ull, 0);
  unit.write(unit.map().counter(7), 0xFEDCBA9876543210ull, 0);
  EXPECT_EQ(unit.read(unit.map().threshold(7), 1), 0x123456789ABCDEF0ull);
  EXPECT_EQ(unit.read(unit.map().counter(7), 1), 0xFEDCBA9876543210ull);
  EXPECT_EQ(unit.read(unit.map().exact(7), 1), 0xFEDCBA9876543210ull);
}

}  // namespace
}  // namespace hpm::upcq
