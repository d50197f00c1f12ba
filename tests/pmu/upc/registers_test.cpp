// The register window: seed Figure 5 offsets, configuration byte layout, preload, status
// registers, and the documented behaviour of unmapped offsets and reserved bits.
#include <gtest/gtest.h>

#include <vector>

#include "pmu/upc/unit.h"
#include "tests/pmu/upc/reference.h"

namespace hpm::upc {
namespace {

using testing::configByte;

TEST(UpcRegisters, SeedUnitHasTheFigure5Offsets) {
  const RegisterMap m(256);
  EXPECT_EQ(m.counter(0), 0x000u);
  EXPECT_EQ(m.counter(255), 0x7F8u);
  EXPECT_EQ(m.config(0), 0x800u);
  EXPECT_EQ(m.config(31), 0x8F8u);
  EXPECT_EQ(m.start_stop, 0x900u);
  EXPECT_EQ(m.threshold, 0x910u);
  EXPECT_EQ(m.access_error, 0x918u);
  EXPECT_EQ(m.parity_status, 0x920u);
  EXPECT_EQ(m.interrupt_line, 0x928u);
  EXPECT_EQ(m.unit_info, 0x930u);
  EXPECT_EQ(m.interrupt_status, 0x940u);
  EXPECT_EQ(m.armed_status, 0x960u);
  EXPECT_EQ(m.parity_errors, 0x980u);
  EXPECT_EQ(m.window_bytes, 0x1000u);
}

TEST(UpcRegisters, CounterWritePreloadsBothPartsAndReadsBackExactly) {
  Unit unit(Params{});
  const u64 value = 0x123456789ABCDEF0ull;
  unit.write(unit.map().counter(9), value, 3);
  EXPECT_EQ(unit.read(unit.map().counter(9), 4), value);
  const CounterState s = unit.inspect(9, 4);
  EXPECT_EQ(s.sram_word, value >> 12);
  EXPECT_EQ(s.low, value & 0xFFF);
}

TEST(UpcRegisters, CounterWriteClearsCarryAndArmedSoTheNextCarryOutRaisesNoInterrupt) {
  // Seed unit, phase 0: counter 9 is visited at 144, 4240, ... Threshold high part 1: a visit
  // that leaves the high-order word at 1 arms the counter.
  Unit unit(Params{});
  const RegisterMap& m = unit.map();
  const u64 bit9 = u64{1} << 9;
  unit.write(m.start_stop, 1, 0);
  testing::configure(unit, 9, 0, SignalMode::kLevelHigh, true, 0);
  unit.write(m.threshold, 1u << 12, 0);
  unit.write(m.counter(9), 4095, 0);
  ASSERT_EQ(unit.nextVisit(9, 1), 144u);
  // Control: counter 8 (visited at 128) is preloaded with word 1, low 4095, and armed by its
  // visit at 128; it is not preloaded again, so its carry-out at 146 does interrupt.
  testing::configure(unit, 8, 0, SignalMode::kLevelHigh, true, 0);
  unit.write(m.counter(8), 2 * 4096 - 1, 0);
  // Carry-out in cycle 1, before any visit: not armed, so no interrupt; the carry is pending.
  unit.pulse(9, 1);
  CounterState s = unit.inspect(9, 2);
  EXPECT_TRUE(s.carry);
  EXPECT_FALSE(s.armed);
  EXPECT_EQ(s.value, 4096u);
  // The visit at 144 services the carry (word 0 -> 1), compares the word with the threshold's
  // high part and arms. It also clears the latch: an armed counter never has a pending carry,
  // since its next carry-out raises the interrupt and disarms it.
  s = unit.inspect(9, 145);
  EXPECT_TRUE(s.armed);
  EXPECT_FALSE(s.carry);
  EXPECT_EQ(s.sram_word, 1u);
  EXPECT_EQ(s.value, 4096u);
  EXPECT_EQ(unit.read(m.armed_status, 145) & bit9, bit9);
  // Preload: clears armed (and the latch).
  unit.write(m.counter(9), 4095, 145);
  s = unit.inspect(9, 146);
  EXPECT_FALSE(s.armed);
  EXPECT_FALSE(s.carry);
  EXPECT_EQ(s.value, 4095u);
  EXPECT_EQ(unit.read(m.armed_status, 146) & bit9, 0u);
  // The next carry-out (cycle 146) raises no interrupt; armed, it would have (counter 8).
  EXPECT_TRUE(unit.inspect(8, 146).armed);
  unit.pulse(8, 146);
  unit.pulse(9, 146);
  s = unit.inspect(9, 147);
  EXPECT_TRUE(s.carry);
  EXPECT_FALSE(s.armed);
  EXPECT_EQ(s.value, 4096u);
  unit.advanceTo(200);
  EXPECT_EQ(unit.takeInterrupts(), (std::vector<Interrupt>{{8, 146}}));
  EXPECT_EQ(unit.read(m.interrupt_status, 200), u64{1} << 8);  // no bit 9
  EXPECT_EQ(unit.stats().interrupts, 1u);
  // Preload with that carry pending: the latch is cleared, so the visit at 4240 adds nothing to
  // the word (0, not 1) and does not arm (word 0 is not the threshold's high part 1).
  unit.write(m.counter(9), 7, 200);
  s = unit.inspect(9, 201);
  EXPECT_FALSE(s.carry);
  EXPECT_FALSE(s.armed);
  EXPECT_EQ(s.value, 7u);
  s = unit.inspect(9, 4241);
  EXPECT_EQ(s.value, 7u);
  EXPECT_EQ(s.sram_word, 0u);
  EXPECT_FALSE(s.armed);
  EXPECT_EQ(unit.inspect(8, 4241).sram_word, 2u);  // counter 8's carry of 146, at 4224
  EXPECT_EQ(unit.stats().carries_serviced, 2u);    // counter 9: only the one of cycle 1
  EXPECT_EQ(unit.stats().lost_carries, 0u);
}

TEST(UpcRegisters, ConfigurationByteLayoutSelectsModeAndInterruptPerCounter) {
  Unit unit(Params{});
  // Group 1 = counters 8..15; counter 8 + j in byte j.
  u64 value = 0;
  value |= configByte(2, SignalMode::kLevelHigh, false) << 0;    // counter 8: event 520
  value |= configByte(1, SignalMode::kLevelLow, true) << 8;      // counter 9: event 265
  value |= configByte(3, SignalMode::kRisingEdge, false) << 56;  // counter 15: event 783
  unit.write(unit.map().config(1), value, 0);
  EXPECT_EQ(unit.read(unit.map().config(1), 1), value);
  EXPECT_TRUE(unit.interest().test(520));
  EXPECT_TRUE(unit.interest().test(265));
  EXPECT_TRUE(unit.interest().test(783));
  EXPECT_FALSE(unit.interest().test(8));
  unit.write(unit.map().start_stop, 1, 1);
  unit.pulse(520, 2);
  unit.pulse(8, 2);  // not selected: ignored
  unit.pulse(783, 3);
  unit.pulse(783, 4);  // still high: no new rising edge
  EXPECT_EQ(unit.read(unit.map().counter(8), 10), 1u);
  EXPECT_EQ(unit.read(unit.map().counter(9), 10), 9u);  // level low, cycles 1..9
  EXPECT_EQ(unit.read(unit.map().counter(15), 10), 1u);
  EXPECT_EQ(unit.inspect(9, 10).config, configByte(1, SignalMode::kLevelLow, true));
}

TEST(UpcRegisters, ReservedConfigurationBitsReadAsZeroAndSetTheErrorBit) {
  Unit unit(Params{});
  unit.write(unit.map().config(0), 0xE0 | configByte(1, SignalMode::kRisingEdge, false), 0);
  EXPECT_EQ(unit.read(unit.map().config(0), 0), configByte(1, SignalMode::kRisingEdge, false));
  const u64 err = unit.read(unit.map().access_error, 0);
  EXPECT_TRUE(err & kReservedBits);
  EXPECT_EQ(err >> 32, unit.map().config(0));
}

TEST(UpcRegisters, SelectOfAMissingBankIsIgnored) {
  Params p;
  p.events = 512;  // two banks
  Unit unit(p);
  unit.write(unit.map().config(0), configByte(3, SignalMode::kLevelLow, false), 0);
  EXPECT_EQ(unit.read(unit.map().config(0), 0), configByte(0, SignalMode::kLevelLow, false));
  EXPECT_TRUE(unit.read(unit.map().access_error, 0) & kReservedBits);
}

TEST(UpcRegisters, UnmappedOffsetsReadZeroIgnoreWritesAndSetStickyBits) {
  Unit unit(Params{});
  const u64 unmapped = 0x908;
  EXPECT_EQ(unit.read(unmapped, 0), 0u);
  u64 err = unit.read(unit.map().access_error, 0);
  EXPECT_EQ(err, kUnmappedRead | unmapped << 32);
  unit.write(0xFF8, 5, 0);
  unit.write(unit.map().unit_info, 5, 0);  // read-only
  unit.write(unit.map().armed_status, 5, 0);
  EXPECT_EQ(unit.read(0xFF8, 0), 0u);
  err = unit.read(unit.map().access_error, 0);
  EXPECT_EQ(err & 0xF, kUnmappedRead | kUnmappedWrite);
  EXPECT_EQ(err >> 32, unmapped);  // the first offending offset stays
  EXPECT_EQ(unit.read(0x10000, 0), 0u);
  EXPECT_EQ(unit.read(3, 0), 0u);
  EXPECT_TRUE(unit.read(unit.map().access_error, 0) & kMisaligned);
  // Write 1 to clear, bit by bit; the offset field clears with the last bit.
  unit.write(unit.map().access_error, kUnmappedRead | kMisaligned, 0);
  EXPECT_EQ(unit.read(unit.map().access_error, 0) & 0xF, kUnmappedWrite);
  unit.write(unit.map().access_error, kUnmappedWrite, 0);
  EXPECT_EQ(unit.read(unit.map().access_error, 0), 0u);
  EXPECT_EQ(unit.stats().access_errors, 7u);
}

TEST(UpcRegisters, ThresholdLowOrderBitsAreReserved) {
  Unit unit(Params{});
  unit.write(unit.map().threshold, 0x5000 | 0x123, 0);
  EXPECT_EQ(unit.read(unit.map().threshold, 0), 0x5000u);
  EXPECT_TRUE(unit.read(unit.map().access_error, 0) & kReservedBits);
}

TEST(UpcRegisters, StartStopHoldsTheRunAndParityInterruptBits) {
  Unit unit(Params{});
  EXPECT_EQ(unit.read(unit.map().start_stop, 0), 0u);
  unit.write(unit.map().start_stop, 3, 0);
  EXPECT_EQ(unit.read(unit.map().start_stop, 0), 3u);
  EXPECT_EQ(unit.read(unit.map().access_error, 0), 0u);
  unit.write(unit.map().start_stop, 7, 0);
  EXPECT_EQ(unit.read(unit.map().start_stop, 0), 3u);
  EXPECT_TRUE(unit.read(unit.map().access_error, 0) & kReservedBits);
}

TEST(UpcRegisters, InterruptStatusIsWriteOneToClearAndDrivesTheLine) {
  Unit unit(Params{});
  unit.write(unit.map().start_stop, 1, 0);
  for (u32 c : {3u, 70u}) {
    testing::configure(unit, c, 0, SignalMode::kLevelHigh, true, 0);
    unit.write(unit.map().counter(c), 4095, 0);
  }
  unit.level(3, 100, 200);
  unit.level(70, 2000, 2100);
  const RegisterMap& m = unit.map();
  EXPECT_EQ(unit.read(m.armed_status, 1), 0u);
  EXPECT_EQ(unit.read(m.armed_status, 60), u64{1} << 3);        // visit of entry 3 at 48
  EXPECT_EQ(unit.read(m.armed_status + 8, 1200), u64{1} << 6);  // entry 70 at 1120
  EXPECT_EQ(unit.read(m.interrupt_status, 3000), u64{1} << 3);
  EXPECT_EQ(unit.read(m.interrupt_status + 8, 3000), u64{1} << 6);
  EXPECT_EQ(unit.read(m.interrupt_line, 3000), 1u);
  unit.write(m.interrupt_status, u64{1} << 3, 3000);
  EXPECT_EQ(unit.read(m.interrupt_status, 3000), 0u);
  EXPECT_EQ(unit.read(m.interrupt_line, 3000), 1u);
  unit.write(m.interrupt_status + 8, u64{1} << 6, 3000);
  EXPECT_EQ(unit.read(m.interrupt_line, 3000), 0u);
  const auto irqs = unit.takeInterrupts();
  ASSERT_EQ(irqs.size(), 2u);
  EXPECT_EQ(irqs[0], (Interrupt{3, 100}));
  EXPECT_EQ(irqs[1], (Interrupt{70, 2000}));
}

TEST(UpcRegisters, UnitInfoDescribesTheParameters) {
  Unit unit(Params{});
  const u64 info = unit.read(unit.map().unit_info, 0);
  EXPECT_EQ(info & 0xFFFF, 256u);
  EXPECT_EQ((info >> 16) & 0xFF, 12u);
  EXPECT_EQ((info >> 24) & 0xFF, 4u);
  EXPECT_EQ((info >> 32) & 0xFFFF, 16u);
}

TEST(UpcRegisters, InterruptCallbackSeesEachInterruptOnce) {
  Unit unit(Params{});
  std::vector<Interrupt> seen;
  unit.onInterrupt([&](const Interrupt& irq) { seen.push_back(irq); });
  unit.write(unit.map().start_stop, 1, 0);
  testing::configure(unit, 0, 0, SignalMode::kLevelHigh, true, 0);
  unit.write(unit.map().counter(0), 4095, 0);
  unit.pulse(0, 0);  // armed at the visit of cycle 0, carry at 0
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], (Interrupt{0, 0}));
}

}  // namespace
}  // namespace hpm::upc
