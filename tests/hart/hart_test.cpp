#include "hart/hart.h"

#include <gtest/gtest.h>

#include <bit>
#include <vector>

#include "hart/interpreter.h"
#include "tests/hart/encode.h"

namespace hpm {
namespace {

using namespace test;  // NOLINT: the encoders read like assembly

constexpr u64 kCode = 0x10000;
constexpr u64 kData = 0x20000;

class HartTest : public ::testing::Test {
 protected:
  HartTest() : code_(memory_, u64{64} << 20), hart_(memory_, code_) {
    memory_.map(kCode, 0x1000, GuestMemory::kRead | GuestMemory::kExec);
    memory_.map(kData, 0x1000, GuestMemory::kRead | GuestMemory::kWrite);
    hart_.state().pc = kCode;
  }
  void load(const std::vector<u32>& program, u64 at = kCode) {
    for (std::size_t i = 0; i < program.size(); ++i) {
      std::memcpy(memory_.hostUnchecked(at + 4 * i), &program[i], 4);
    }
  }
  u64& x(unsigned r) { return hart_.state().x[r]; }

  GuestMemory memory_;
  CodeCache code_;
  Hart hart_;
};

TEST_F(HartTest, WritesToX0AreDiscarded) {
  load({addi(0, 0, 5), add(5, 0, 0), kEcall});
  const Stop stop = hart_.run(100);
  EXPECT_EQ(stop.reason, StopReason::kEcall);
  EXPECT_EQ(x(0), 0u);
  EXPECT_EQ(x(5), 0u);
  EXPECT_EQ(hart_.state().instret, 3u);  // the ecall retires
  EXPECT_EQ(hart_.state().pc, kCode + 12);
}

TEST_F(HartTest, LoopRetiresExactlyItsInstructions) {
  // t0 = 10; loop: t0 -= 1; bne t0, zero, loop; ecall
  load({addi(5, 0, 10), addi(5, 5, -1), bne(5, 0, -4), kEcall});
  hart_.run(1000);
  EXPECT_EQ(hart_.state().instret, 1 + 2 * 10 + 1u);
}

TEST_F(HartTest, BudgetStopsBetweenBlocksDeterministically) {
  load({addi(5, 0, 100), addi(5, 5, -1), bne(5, 0, -4), kEcall});
  const Stop first = hart_.run(10);
  EXPECT_EQ(first.reason, StopReason::kBudget);
  EXPECT_GE(hart_.state().instret, 10u);
  EXPECT_LT(hart_.state().instret, 10u + CodeCache::kMaxBlockInstructions);
  while (hart_.run(7).reason == StopReason::kBudget) {
  }
  EXPECT_EQ(hart_.state().instret, 1 + 2 * 100 + 1u);
}

TEST_F(HartTest, FaultingLoadStopsAtTheLoadWithoutRetiringIt) {
  load({addi(5, 0, 1), ld(6, 0, 8), kEcall});
  const Stop stop = hart_.run(100);
  EXPECT_EQ(stop.reason, StopReason::kLoadFault);
  EXPECT_EQ(stop.addr, 8u);
  EXPECT_EQ(hart_.state().pc, kCode + 4);
  EXPECT_EQ(hart_.state().instret, 1u);
}

TEST_F(HartTest, StoreToReadOnlyPageFaults) {
  load({lui(5, kCode >> 12), sd(0, 5, 0), kEcall});
  const Stop stop = hart_.run(100);
  EXPECT_EQ(stop.reason, StopReason::kStoreFault);
  EXPECT_EQ(stop.addr, kCode);
}

TEST_F(HartTest, FetchFromNonExecutableMemoryFaults) {
  hart_.state().pc = kData;
  const Stop stop = hart_.run(100);
  EXPECT_EQ(stop.reason, StopReason::kFetchFault);
  EXPECT_EQ(stop.addr, kData);
}

TEST_F(HartTest, IllegalInstructionReportsItsEncoding) {
  load({addi(5, 0, 1), 0xffffffffu});
  const Stop stop = hart_.run(100);
  EXPECT_EQ(stop.reason, StopReason::kIllegalInstruction);
  EXPECT_EQ(hart_.state().pc, kCode + 4);
  EXPECT_EQ(hart_.state().instret, 1u);
}

TEST_F(HartTest, MisalignedLoadsAndStoresSucceed) {
  x(5) = kData + 3;
  x(6) = 0x1122334455667788;
  load({sd(6, 5, 0), ld(7, 5, 0), lw(8, 5, 1), kEcall});
  EXPECT_EQ(hart_.run(100).reason, StopReason::kEcall);
  EXPECT_EQ(x(7), 0x1122334455667788u);
  EXPECT_EQ(x(8), 0x44556677u);  // bytes 1..4 of the little-endian doubleword
}

TEST_F(HartTest, ScSucceedsOnlyAfterLrOfTheSameUnchangedAddress) {
  x(5) = kData;
  x(6) = 99;
  load({lrD(7, 5), scD(8, 6, 5), scD(9, 6, 5), kEcall});
  hart_.run(100);
  EXPECT_EQ(x(8), 0u);  // success
  EXPECT_EQ(x(9), 1u);  // the reservation was consumed
  u64 v = 0;
  ASSERT_TRUE(memory_.load(kData, v));
  EXPECT_EQ(v, 99u);
}

TEST_F(HartTest, ScFailsWhenMemoryChangedSinceLr) {
  x(5) = kData;
  x(6) = 5;
  load({lrD(7, 5), kEcall, scD(8, 6, 5), kEcall});
  hart_.run(100);
  ASSERT_TRUE(memory_.store<u64>(kData, 1234));  // another hart's store
  hart_.run(100);
  EXPECT_EQ(x(8), 1u);
}

TEST_F(HartTest, MisalignedAmoStops) {
  x(5) = kData + 2;
  load({amoaddW(6, 0, 5), kEcall});
  const Stop stop = hart_.run(100);
  EXPECT_EQ(stop.reason, StopReason::kMisalignedAtomic);
  EXPECT_EQ(stop.addr, kData + 2);
}

TEST_F(HartTest, FenceIMakesModifiedCodeVisible) {
  // The code page is writable here so the program can patch itself.
  memory_.protect(kCode, 0x1000, GuestMemory::kRead | GuestMemory::kWrite | GuestMemory::kExec);
  load({addi(5, 0, 1), kEcall});
  hart_.run(100);
  EXPECT_EQ(x(5), 1u);
  load({addi(5, 0, 2), kEcall});  // patched behind the cache's back
  hart_.state().pc = kCode;
  hart_.run(100);
  EXPECT_EQ(x(5), 1u) << "predecoded code is kept until fence.i";
  load({kFenceI, kEcall}, kCode + 0x100);
  hart_.state().pc = kCode + 0x100;
  hart_.run(100);
  hart_.state().pc = kCode;
  hart_.run(100);
  EXPECT_EQ(x(5), 2u);
}

// An observer that stops the run before every instruction but the first of each run, as the
// timing modes' observer does when hardware threads share a core.
struct StopEachTime {
  static constexpr bool kActive = true;
  bool first = true;
  bool beforeIssue(const isa::DecodedInst&, u64, const HartState&) {
    const bool go = first;
    first = false;
    return go;
  }
  void retire(const isa::DecodedInst&, u64, u64, u64) {}
};

TEST_F(HartTest, RunsStoppedByTheObserverResumeInTheBlockWithoutBuildingOthers) {
  // One straight-line block of five instructions ending at the ecall.
  load({addi(5, 0, 1), addi(5, 5, 2), addi(5, 5, 3), addi(5, 5, 4), kEcall});
  Stop stop;
  u32 runs = 0;
  do {
    StopEachTime one;
    // (The instruction the run starts with, as the timing driver looks at it first.)
    const isa::DecodedInst* next = hart_.nextInstruction();
    ASSERT_NE(next, nullptr);
    EXPECT_EQ(next->imm, runs < 4 ? static_cast<i32>(runs + 1) : 0);
    stop = hart_.run(1000, one);
    ++runs;
  } while (stop.reason == StopReason::kObserver);
  EXPECT_EQ(stop.reason, StopReason::kEcall);
  EXPECT_EQ(runs, 5u);
  EXPECT_EQ(x(5), 10u);
  EXPECT_EQ(hart_.state().instret, 5u);
  EXPECT_EQ(hart_.state().pc, kCode + 20);
  EXPECT_EQ(code_.blocksBuilt(), 1u) << "the runs went on in the block they stopped in";
}

TEST_F(HartTest, AFlushOfTheCodeCacheEndsTheResumePoint) {
  memory_.protect(kCode, 0x1000, GuestMemory::kRead | GuestMemory::kWrite | GuestMemory::kExec);
  load({addi(5, 0, 1), addi(5, 5, 2), kEcall});
  StopEachTime one;
  EXPECT_EQ(hart_.run(1000, one).reason, StopReason::kObserver);
  EXPECT_EQ(hart_.state().pc, kCode + 4);
  load({addi(5, 0, 1), addi(5, 5, 40), kEcall});  // the stopped-at instruction, patched
  StopEachTime same_code;
  EXPECT_EQ(hart_.run(1000, same_code).reason, StopReason::kObserver);
  EXPECT_EQ(x(5), 3u) << "predecoded code is kept until a flush";
  hart_.state().pc = kCode + 4;
  code_.flush();
  ASSERT_NE(hart_.nextInstruction(), nullptr);
  EXPECT_EQ(hart_.nextInstruction()->imm, 40);
  StopEachTime after_flush;
  EXPECT_EQ(hart_.run(1000, after_flush).reason, StopReason::kObserver);
  EXPECT_EQ(x(5), 43u);
}

TEST_F(HartTest, CountersReadRetiredInstructions) {
  load({addi(5, 0, 0), addi(5, 0, 0), csrrs(6, 0xc02, 0), csrrs(7, 0xc00, 0), kEcall});
  hart_.run(100);
  EXPECT_EQ(x(6), 2u);
  EXPECT_EQ(x(7), 3u);
}

TEST_F(HartTest, WritingAReadOnlyCounterIsIllegal) {
  load({csrrw(6, 0xc00, 5), kEcall});
  EXPECT_EQ(hart_.run(100).reason, StopReason::kIllegalInstruction);
}

TEST_F(HartTest, HostFpFlagsReachFflags) {
  x(5) = std::bit_cast<u64>(1.0);
  x(6) = std::bit_cast<u64>(3.0);
  load({fmvDX(1, 5), fmvDX(2, 6), fdivD(3, 1, 2, 7), csrrs(7, 0x001, 0), kEcall});
  hart_.run(100);
  EXPECT_EQ(x(7), 1u) << "1/3 is inexact (NX)";
  EXPECT_EQ(hart_.state().f[3], std::bit_cast<u64>(1.0 / 3.0));
}

TEST_F(HartTest, DynamicRoundingModeSelectsDirectedRounding) {
  x(5) = std::bit_cast<u64>(1.0);
  x(6) = std::bit_cast<u64>(3.0);
  x(8) = 3;  // RUP
  load({fmvDX(1, 5), fmvDX(2, 6), csrrw(0, 0x002, 8), fdivD(3, 1, 2, 7), kEcall});
  hart_.run(100);
  EXPECT_EQ(hart_.state().f[3], std::bit_cast<u64>(1.0 / 3.0) + 1) << "rounded up";
}

TEST_F(HartTest, ReservedDynamicRoundingModeIsIllegal) {
  x(8) = 5;
  load({csrrw(0, 0x002, 8), fdivD(3, 1, 2, 7), kEcall});
  EXPECT_EQ(hart_.run(100).reason, StopReason::kIllegalInstruction);
}

}  // namespace
}  // namespace hpm
