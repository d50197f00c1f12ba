// The L2 speculation's rules (node/speculation.h) on a small node: conflicts at line
// granularity, who wins, rollbacks writing the committed bytes back, capacity, the lines each
// end clears; and the guest's header of the device's window (guest/include/hpm/tm.h) against
// the model's declaration of it.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "guest/include/hpm/tm.h"
#include "node/speculation.h"

namespace hpm {

static_assert(HPM_TM_BEGIN == tmreg::kBegin && HPM_TM_COMMIT == tmreg::kCommit &&
              HPM_TM_ABORT == tmreg::kAbort && HPM_TM_STATUS == tmreg::kStatus &&
              HPM_TM_WINDOW_BYTES == tmreg::kWindowBytes);
static_assert(HPM_TM_CONFLICT == tmreg::kConflict && HPM_TM_SYSTEM_CALL == tmreg::kSystemCall &&
              HPM_TM_EXPLICIT == tmreg::kExplicit && HPM_TM_CAPACITY == tmreg::kCapacity &&
              HPM_TM_PREEMPTED == tmreg::kPreempted);

namespace {

// 4 KiB of memory at address 0: 32 lines of 128 bytes, two slices (even and odd lines), four
// sets (line mod 4) of at most two versions each.
struct Memory final : Speculation::LineMemory {
  std::vector<u8> bytes = std::vector<u8>(4096, 0);
  bool readLine(u64 addr, u8* out, u32 n) override {
    std::memcpy(out, bytes.data() + addr, n);
    return true;
  }
  bool writeLine(u64 addr, const u8* in, u32 n) override {
    std::memcpy(bytes.data() + addr, in, n);
    return true;
  }
};

struct SpeculationTest : ::testing::Test {
  Memory memory;
  Speculation spec{[] {
                     Speculation::Params p;
                     p.threads = 4;
                     p.slices = 2;
                     p.versions_per_set = 2;
                     p.slice_of = [](u64 a) { return static_cast<u32>(a / 128 % 2); };
                     p.set_of = [](u64 a) { return static_cast<u32>(a / 128 % 4); };
                     return p;
                   }(),
                   &memory};
  // A store of `value` by hw at addr, as the driver makes one: checked first, then performed
  // unless hw's own transaction lost.
  Speculation::Outcome store(u32 hw, u64 addr, u8 value) {
    const Speculation::Outcome out = spec.access(hw, addr, 1, true);
    if (out.own_abort == 0) memory.bytes[addr] = value;
    return out;
  }
};

TEST_F(SpeculationTest, ARollbackWritesTheCommittedBytesBackAndACommitKeepsTheNewOnes) {
  memory.bytes[5] = 7;
  ASSERT_TRUE(spec.begin(0));
  EXPECT_TRUE(spec.active());
  store(0, 5, 9);
  spec.rollback(0, tmreg::kExplicit);
  EXPECT_EQ(memory.bytes[5], 7);
  EXPECT_FALSE(spec.active());
  spec.begin(0);
  store(0, 5, 9);
  spec.commit(0);
  EXPECT_EQ(memory.bytes[5], 9);
  EXPECT_EQ(spec.stats(0).begun, 2u);
  EXPECT_EQ(spec.stats(0).committed, 1u);
  EXPECT_EQ(spec.stats(0).rolled_back, 1u);
  EXPECT_EQ(spec.stats(0).conflicts, 0u);
}

TEST_F(SpeculationTest, AnAccessOfAThreadNotSpeculatingRollsBackTheTransactionsItConflictsWith) {
  spec.begin(0);
  store(0, 10, 1);                // line 0 written by 0
  spec.access(0, 300, 8, false);  // line 2 read by 0
  spec.begin(1);
  spec.access(1, 300, 8, false);  // line 2 read by 1
  // A read of another line of nobody's conflicts with nothing; a read of line 2 neither.
  EXPECT_EQ(spec.access(2, 600, 8, false).victims, 0u);
  EXPECT_EQ(spec.access(2, 300, 8, false).victims, 0u);
  // A read of a written line rolls its writer back, before the read: it reads the committed 0.
  const Speculation::Outcome out = spec.access(2, 0, 8, false);
  EXPECT_EQ(out.victims, 1u);
  EXPECT_EQ(out.own_abort, 0u);
  EXPECT_EQ(memory.bytes[10], 0);
  // A write of a line both read rolls back the one left.
  EXPECT_EQ(spec.access(3, 300, 1, true).victims, 2u);
  EXPECT_FALSE(spec.active());
  EXPECT_EQ(spec.stats(0).conflicts, 1u);
  EXPECT_EQ(spec.stats(1).conflicts, 1u);
}

TEST_F(SpeculationTest, BetweenTwoTransactionsTheOlderWins) {
  spec.begin(0);  // older
  spec.begin(1);
  spec.access(1, 128, 8, false);
  // The older writes a line the younger read: the younger rolls back.
  EXPECT_EQ(store(0, 130, 4).victims, 2u);
  EXPECT_FALSE(spec.speculating(1));
  // The younger (begun again) reads a line the older wrote: it loses, and reads nothing.
  spec.begin(1);
  const Speculation::Outcome out = spec.access(1, 129, 1, false);
  EXPECT_EQ(out.own_abort, tmreg::kConflict);
  EXPECT_EQ(out.victims, 0u);
  EXPECT_TRUE(spec.speculating(0));
  EXPECT_FALSE(spec.speculating(1));
  spec.commit(0);
  EXPECT_EQ(memory.bytes[130], 4);
  EXPECT_EQ(spec.stats(1).conflicts, 2u);
}

TEST_F(SpeculationTest, ReadersShareALineAndConflictsAreByLineNotByByte) {
  spec.begin(0);
  spec.begin(1);
  spec.access(0, 256, 8, false);
  EXPECT_EQ(spec.access(1, 256, 8, false).victims, 0u);
  // Another byte of the same 128-byte line conflicts; the next line does not.
  EXPECT_EQ(store(1, 384, 1).own_abort, 0u);
  EXPECT_EQ(store(1, 383, 1).own_abort, tmreg::kConflict);
  // An access straddling two lines is checked on both.
  spec.begin(2);
  EXPECT_EQ(spec.access(2, 380, 8, false).victims, 0u);
  EXPECT_EQ(store(3, 382, 1).victims, 0b101u);
}

TEST_F(SpeculationTest, OneVersionMoreThanItsSetHoldsRollsTheWriterBack) {
  spec.begin(0);
  spec.begin(1);
  store(0, 0 * 128, 1);                                         // set 0
  store(1, 4 * 128, 1);                                         // set 0: its second version
  EXPECT_EQ(store(0, 1 * 128, 1).own_abort, 0u);                // set 1
  EXPECT_EQ(store(0, 8 * 128, 1).own_abort, tmreg::kCapacity);  // set 0: a third
  EXPECT_EQ(memory.bytes[0], 0);
  EXPECT_EQ(memory.bytes[128], 0);
  EXPECT_EQ(spec.stats(0).rolled_back, 1u);
  EXPECT_EQ(spec.stats(0).conflicts, 0u);
  // The rollback freed set 0's version: thread 1 can write another line there.
  EXPECT_EQ(store(1, 12 * 128, 1).own_abort, 0u);
}

TEST_F(SpeculationTest, EveryEndClearsItsLinesOnTheirSlices) {
  spec.begin(0);
  spec.access(0, 0, 8, false);    // line 0: slice 0
  store(0, 128, 1);               // line 1: slice 1
  spec.access(0, 130, 8, false);  // line 1 again
  spec.access(0, 384, 8, false);  // line 3: slice 1
  spec.commit(0);
  EXPECT_EQ(spec.linesCleaned(0), 1u);
  EXPECT_EQ(spec.linesCleaned(1), 2u);
  spec.begin(0);
  spec.access(0, 512, 8, false);  // line 4: slice 0
  spec.rollback(0, tmreg::kSystemCall);
  EXPECT_EQ(spec.linesCleaned(0), 2u);
  // A begin inside a transaction is flattened into it.
  spec.begin(1);
  spec.begin(1);
  EXPECT_EQ(spec.stats(1).begun, 1u);
}

}  // namespace
}  // namespace hpm
