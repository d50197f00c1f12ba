// SRAM parity: every read checks it, every single-bit error is detected, errors are reported
// with the counter index.
#include <gtest/gtest.h>

#include <vector>

#include "pmu/upc/unit.h"
#include "tests/pmu/upc/reference.h"

namespace hpm::upc {
namespace {

TEST(UpcParity, SeedWordHas52DataAndFourParityBits) {
  Unit unit(Params{});
  EXPECT_EQ(unit.sramDataBits(), 52u);
  EXPECT_EQ(unit.parityBits(), 4u);
}

TEST(UpcParity, EverySingleBitErrorIsDetectedByARegisterRead) {
  for (u32 group : {13u, 1u, 8u, 52u}) {
    Params p;
    p.parity_group_bits = group;
    Unit probe(p);
    const u32 bits = probe.sramDataBits() + probe.parityBits();
    for (u32 bit = 0; bit < bits; ++bit) {
      Unit unit(p);
      const u32 c = (bit * 37) % 256;
      unit.write(unit.map().counter(c), 0xDEADBEEF12345ull, 0);
      unit.flipSramBit(c, bit, 1);
      unit.read(unit.map().counter(c), 2);
      const u64 status = unit.read(unit.map().parity_status, 3);
      EXPECT_EQ(status, u64{1} << 63 | c) << "group " << group << " bit " << bit;
      EXPECT_EQ(unit.read(unit.map().parity_errors + 8 * (c / 64), 3), u64{1} << (c % 64));
      EXPECT_EQ(unit.stats().parity_errors, 1u);
    }
  }
}

TEST(UpcParity, EverySingleBitErrorIsDetectedByTheStateMachine) {
  Params p;
  Unit probe(p);
  const u32 bits = probe.sramDataBits() + probe.parityBits();
  for (u32 bit = 0; bit < bits; ++bit) {
    Unit unit(p);
    unit.write(unit.map().start_stop, 1, 0);
    const u32 c = 17;  // visited at 272 + 4096 k
    unit.write(unit.map().counter(c), 4095, 0);
    unit.flipSramBit(c, bit, 0);
    unit.pulse(c, 10);  // carry: the visit at 272 reads, checks, increments and writes back
    unit.advanceTo(300);
    EXPECT_EQ(unit.read(unit.map().parity_status, 300), u64{1} << 63 | c) << "bit " << bit;
    // The write-back stored fresh parity: no further error.
    unit.write(unit.map().parity_status, u64{1} << 63, 301);
    unit.read(unit.map().counter(c), 302);
    EXPECT_EQ(unit.read(unit.map().parity_status, 303), 0u);
  }
}

TEST(UpcParity, FirstErrorByCycleIsReportedAndClearingReportsAgain) {
  Unit unit(Params{});
  unit.flipSramBit(40, 3, 0);
  unit.flipSramBit(20, 3, 0);
  unit.read(unit.map().counter(40), 5);
  unit.read(unit.map().counter(20), 6);
  EXPECT_EQ(unit.read(unit.map().parity_status, 7), u64{1} << 63 | 40);
  EXPECT_EQ(unit.read(unit.map().parity_errors, 7), (u64{1} << 40) | (u64{1} << 20));
  unit.write(unit.map().parity_status, u64{1} << 63, 8);
  EXPECT_EQ(unit.read(unit.map().parity_status, 8), 0u);
  unit.read(unit.map().counter(20), 9);  // still corrupt: reported again
  EXPECT_EQ(unit.read(unit.map().parity_status, 10), u64{1} << 63 | 20);
  unit.write(unit.map().parity_errors, u64{1} << 40, 11);
  EXPECT_EQ(unit.read(unit.map().parity_errors, 11), u64{1} << 20);
}

TEST(UpcParity, ADataBitFlipChangesTheCounterValue) {
  Unit unit(Params{});
  unit.flipSramBit(1, 0, 0);
  EXPECT_EQ(unit.read(unit.map().counter(1), 1), u64{1} << 12);
}

TEST(UpcParity, TwoFlipsInOneGroupAreNotDetected) {
  // The documented limit of one parity bit per group.
  Unit unit(Params{});
  unit.flipSramBit(1, 0, 0);
  unit.flipSramBit(1, 1, 0);
  unit.read(unit.map().counter(1), 1);
  EXPECT_EQ(unit.read(unit.map().parity_status, 2), 0u);
}

TEST(UpcParity, WithParityInterruptsEnabledAnErrorInterruptsNamingTheCounter) {
  Unit unit(Params{});
  std::vector<Interrupt> seen;
  unit.onInterrupt([&](const Interrupt& irq) { seen.push_back(irq); });
  unit.write(unit.map().start_stop, 3, 0);  // counting, parity interrupts on
  EXPECT_EQ(unit.read(unit.map().start_stop, 0), 3u);
  unit.flipSramBit(9, 0, 5);
  unit.read(unit.map().counter(9), 7);
  ASSERT_EQ(seen, (std::vector<Interrupt>{{9, 7}}));
  // Not a threshold interrupt: INTERRUPT_STATUS stays clear; the line is up until software
  // clears PARITY_STATUS.
  EXPECT_EQ(unit.read(unit.map().interrupt_status, 8), 0u);
  EXPECT_EQ(unit.read(unit.map().interrupt_line, 8), 1u);
  unit.write(unit.map().parity_status, u64{1} << 63, 9);
  EXPECT_EQ(unit.read(unit.map().interrupt_line, 10), 0u);
  EXPECT_EQ(unit.stats().parity_interrupts, 1u);
  // The entry is still corrupt: the next read reports, and interrupts, again.
  unit.read(unit.map().counter(9), 11);
  EXPECT_EQ(seen.size(), 2u);
  // Rewritten (a preload), it is sound again.
  unit.write(unit.map().counter(9), 0, 12);
  unit.write(unit.map().parity_status, u64{1} << 63, 13);
  unit.read(unit.map().counter(9), 14);
  EXPECT_EQ(seen.size(), 2u);
  ASSERT_EQ(unit.parityReports().size(), 2u);
  EXPECT_EQ(unit.parityReports()[1].cycle, 11u);
  EXPECT_TRUE(unit.parityReports()[1].interrupted);
}

TEST(UpcParity, WithParityInterruptsOffAnErrorOnlySetsTheStatus) {
  Unit unit(Params{});
  std::vector<Interrupt> seen;
  unit.onInterrupt([&](const Interrupt& irq) { seen.push_back(irq); });
  unit.write(unit.map().start_stop, 1, 0);
  unit.flipSramBit(9, 0, 5);
  unit.read(unit.map().counter(9), 7);
  EXPECT_TRUE(seen.empty());
  EXPECT_EQ(unit.read(unit.map().parity_status, 8), u64{1} << 63 | 9);
  EXPECT_EQ(unit.read(unit.map().interrupt_line, 8), 0u);
  ASSERT_EQ(unit.parityReports().size(), 1u);
  EXPECT_FALSE(unit.parityReports()[0].interrupted);
  // START_STOP's bits above 1 stay reserved.
  unit.write(unit.map().start_stop, 4, 9);
  EXPECT_NE(unit.read(unit.map().access_error, 10), 0u);
}

}  // namespace
}  // namespace hpm::upc
