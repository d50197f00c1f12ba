// Structural rules beside the pipes (docs/timing.md "Write-back ports", "Divider", "Scoreboard",
// "Straddling fetch"): each at two parameter values, with the cycle counts that follow from the
// rule. Off (the bgq defaults), none of them changes a cycle.
#include "tests/core/harness.h"

namespace hpm::timing::test {
namespace {

TimingParams wide() {
  TimingParams p = oneThread();
  p.core.ibuffer_entries = 16;
  p.core.occupancy.int_mul = 1;
  return p;
}

void onPort(TimingParams& p, isa::InstClass c, u32 port) {
  p.core.writeback.port[static_cast<std::size_t>(c)] = port;
}

// Four pairs of an independent multiply and an independent addition, and the loop branch.
Loop mulAluPairs() {
  Loop l;
  for (u32 k = 0; k < 4; ++k) {
    l.body.push_back(mul(5 + k, 20, 21));
    l.body.push_back(addi(10 + k, 10 + k, 1));
  }
  l.body.push_back(bne(30, 0, -32));
  return l;
}

TEST(WritebackPorts, AnAluOpCannotWriteBackInTheCycleOfAMultiplyOnItsPort) {
  // Multiply latency 2: a multiply issued at t writes back at t + 2, as would the addition
  // issued at t + 1, so on a shared port each addition waits a cycle: pairs take 3 cycles, and
  // the branch (port slot at issue + 1) follows the last addition at once: 4 x 3 + 1.
  // Latency 3: the addition at t + 1 writes back at t + 2, before the multiply, and the
  // multiply at t + 2 writes back at t + 5; only the branch after the last pair (issue t + 8,
  // port t + 9) meets the last multiply (issued t + 6, port t + 9): 9 + 1.
  for (u32 lat : {2u, 3u}) {
    TimingParams shared = wide();
    shared.core.latency.int_mul = lat;
    onPort(shared, isa::InstClass::kIntAlu, 1);
    onPort(shared, isa::InstClass::kIntMul, 1);
    onPort(shared, isa::InstClass::kBranch, 1);
    TimingParams apart = shared;
    apart.core.writeback = {};
    EXPECT_EQ(steadyPeriod(apart, mulAluPairs()), 9u) << lat;
    EXPECT_EQ(steadyPeriod(shared, mulAluPairs()), lat == 2 ? 13u : 10u) << lat;
  }
}

TEST(WritebackPorts, ClassesOnDifferentPortsDoNotMeet) {
  TimingParams p = wide();
  p.core.latency.int_mul = 2;
  onPort(p, isa::InstClass::kIntAlu, 1);
  onPort(p, isa::InstClass::kIntMul, 2);
  onPort(p, isa::InstClass::kBranch, 1);
  EXPECT_EQ(steadyPeriod(p, mulAluPairs()), 9u);
}

TEST(WritebackPorts, APortOnALatencyBeyondTheWindowIsRefused) {
  TimingParams p = oneThread();
  onPort(p, isa::InstClass::kFpDiv, 1);
  p.core.latency.fp_div = WritebackPorts::kWindow;
  EXPECT_THROW(p.validate(), Error);
  p.core.latency.fp_div = WritebackPorts::kWindow - 1;
  EXPECT_NO_THROW(p.validate());
}

TEST(SerialDivider, StepsFollowCva6sDocumentedTiming) {
  using isa::Op;
  // Unsigned: lzc(divisor) - lzc(dividend) + 2 when the dividend has no more leading zeros.
  EXPECT_EQ(serialDividerSteps(Op::kDivu, 0x700000000000, 13), 60u - 17 + 2);
  EXPECT_EQ(serialDividerSteps(Op::kRemu, 0xffff, 0xff), 56u - 48 + 2);
  EXPECT_EQ(serialDividerSteps(Op::kDivu, 1, 1), 2u);
  EXPECT_EQ(serialDividerSteps(Op::kDivu, 5, 100), 1u);  // more leading zeros: one cycle
  EXPECT_EQ(serialDividerSteps(Op::kDivu, 0, 7), 1u);
  EXPECT_EQ(serialDividerSteps(Op::kDivu, 1234, 0), 66u);  // divide by zero: WIDTH + 2
  // Signed: a negative dividend counts as ~a << 1, a negative divisor as ~b; -1 takes 66.
  EXPECT_EQ(serialDividerSteps(Op::kDiv, static_cast<u64>(-1000), 10), 60u - 53 + 2);
  EXPECT_EQ(serialDividerSteps(Op::kDiv, 1000, static_cast<u64>(-10)), 60u - 54 + 2);
  EXPECT_EQ(serialDividerSteps(Op::kRem, 1000, ~u64{0}), 66u);
  EXPECT_EQ(serialDividerSteps(Op::kDiv, 1000, 0), 66u);
  // 32-bit forms see their operands extended from bit 31.
  EXPECT_EQ(serialDividerSteps(Op::kDivuw, 0xdead0000ffffffff, 1), 63u - 32 + 2);
  EXPECT_EQ(serialDividerSteps(Op::kDivw, 0xdead00007fffffff, 1), 63u - 33 + 2);
  EXPECT_EQ(serialDividerSteps(Op::kRemw, 0x1234567800000000, 3), 1u);  // dividend 0
}

// One divide whose steps the driver gives in `addr`, seven independent additions and the branch.
Loop divideThenAdds(u64 steps, bool dependent) {
  Loop l;
  l.body.push_back(dependent ? div(5, 5, 6) : div(5, 20, 21));
  for (u32 k = 0; k < 7; ++k) l.body.push_back(addi(10 + k, 10 + k, 1));
  l.body.push_back(bne(30, 0, -32));
  l.addr = [steps](u64, u32) { return steps; };
  return l;
}

TEST(SerialDivider, ADivideTakesItsStepsPlusTheExtraCyclesAndWorksBesideThePipe) {
  for (u32 extra : {1u, 4u}) {
    for (u64 steps : {10u, 45u}) {
      TimingParams p = wide();
      p.core.divider = Divider::kSerial;
      p.core.divider_extra_cycles = extra;
      p.core.occupancy.int_div = 1;
      // Independent additions issue while the divider works; the next divide waits for it.
      EXPECT_EQ(steadyPeriod(p, divideThenAdds(steps, false)), std::max<Cycle>(9, steps + extra))
          << steps << " + " << extra;
      // A chain of divides: each waits for the one before.
      Loop chain;
      for (u32 k = 0; k < 4; ++k) chain.body.push_back(div(5, 5, 6));
      chain.body.push_back(bne(30, 0, -16));
      chain.addr = [steps](u64, u32) { return steps; };
      EXPECT_EQ(steadyPeriod(p, chain), 4 * (steps + extra)) << steps << " + " << extra;
    }
  }
}

TEST(SerialDivider, TheFixedDividerIgnoresTheSteps) {
  TimingParams p = wide();
  for (u64 steps : {3u, 60u}) {
    EXPECT_EQ(steadyPeriod(p, divideThenAdds(steps, true)), 65u + 8) << steps;
  }
}

// A divide of fixed latency 20 that holds its pipe one cycle, then fifteen independent
// additions and the branch.
Loop longOpThenAdds() {
  Loop l;
  l.body.push_back(div(5, 20, 21));
  for (u32 k = 0; k < 15; ++k) l.body.push_back(addi(6 + k % 8, 6 + k % 8, 1));
  l.body.push_back(bne(30, 0, -64));
  return l;
}

TEST(Scoreboard, TheInstructionEntriesBehindALongOneWaitsForItToComplete) {
  // Entries complete in order, so the instruction E places after the divide (latency 20,
  // issued at 0) issues at 20 and those after it one per cycle: the branch (16 after the
  // divide) at 20 + 16 - E, the next divide a cycle later. No limit: one per cycle, 17.
  for (u32 entries : {4u, 8u}) {
    TimingParams p = wide();
    p.core.ibuffer_entries = 32;
    p.core.latency.int_div = 20;
    p.core.occupancy.int_div = 1;
    p.core.scoreboard_entries = entries;
    EXPECT_EQ(steadyPeriod(p, longOpThenAdds()), 20u + 17 - entries) << entries;
    p.core.scoreboard_entries = 0;
    EXPECT_EQ(steadyPeriod(p, longOpThenAdds()), 17u);
  }
}

TEST(StraddlingFetch, ARedirectToAStraddlingInstructionFetchesBothItsGroups) {
  // Four-byte groups; the loop (addi, bne) starts two bytes into a group, so with straddling
  // fetch each instruction comes with the group after the one it starts in. A taken branch's
  // target group is fetched taken_branch_cycles after the branch's: T + 1 per iteration; with
  // the target straddling, its first group is fetched first: T + 2. An aligned loop: T + 1.
  for (u32 t : {2u, 3u}) {
    for (bool straddle : {false, true}) {
      TimingParams p = fourByteFetch();
      p.core.taken_branch_cycles = t;
      p.core.straddling_fetch = straddle;
      Loop l;
      l.body = {addi(5, 5, 1), bne(30, 0, -4)};
      l.base = 0x10002;
      EXPECT_EQ(steadyPeriod(p, l), t + (straddle ? 2u : 1u)) << t << " " << straddle;
      l.base = 0x10000;
      EXPECT_EQ(steadyPeriod(p, l), t + 1u) << t << " " << straddle;
    }
  }
}

}  // namespace
}  // namespace hpm::timing::test
