#include "hart/code_cache.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "hart/hart.h"
#include "hart/interpreter.h"
#include "tests/hart/encode.h"

namespace hpm {
namespace {

using namespace test;  // NOLINT: the encoders read like assembly

constexpr u64 kCode = 0x10000;
constexpr u64 kCodePages = 64;
constexpr u64 kCapacity = u64{256} << 10;

// kCodePages pages of `addi t0, t0, 1`: every 4-byte address starts a block of its own, up to
// 64 instructions or the end of its page.
void fillWithAddi(GuestMemory& memory) {
  memory.map(kCode, kCodePages * GuestMemory::kPageSize, GuestMemory::kRead | GuestMemory::kExec);
  const u32 inst = addi(5, 5, 1);
  for (u64 a = kCode; a < kCode + kCodePages * GuestMemory::kPageSize; a += 4) {
    std::memcpy(memory.hostUnchecked(a), &inst, 4);
  }
}

TEST(CodeCache, DecodedCodeStaysWithinItsCapacityAndStartsAgainEmptyPastIt) {
  GuestMemory memory;
  fillWithAddi(memory);
  CodeCache code(memory, kCapacity);
  u64 peak = 0;
  for (u64 pc = kCode; pc < kCode + kCodePages * GuestMemory::kPageSize; pc += 4) {
    u64 fault = 0;
    const Block* b = code.lookup(pc, fault);
    ASSERT_NE(b, nullptr);
    ASSERT_EQ(b->pc, pc);
    const u64 to_page_end = ((pc | (GuestMemory::kPageSize - 1)) + 1 - pc) / 4;
    EXPECT_EQ(b->count, std::min<u64>(CodeCache::kMaxBlockInstructions, to_page_end));
    EXPECT_EQ(b->insts[0].op, isa::Op::kAddi);
    peak = std::max(peak, code.bytesInUse());
  }
  EXPECT_LE(peak, kCapacity);
  EXPECT_GT(peak, kCapacity / 2) << "the cache fills before it starts again";
  // 16,384 blocks of about 1 KiB each need some 60 capacity flushes of 256 KiB.
  EXPECT_GT(code.capacityFlushCount(), 40u);
  EXPECT_EQ(code.flushCount(), code.capacityFlushCount());
  EXPECT_EQ(code.blocksBuilt(), kCodePages * GuestMemory::kPageSize / 4);
}

TEST(CodeCache, AHartRunsTheSameUnderASmallCapacityAsUnderALargeOne) {
  // A loop over every block start: each pass jumps to the next address's block, so the small
  // cache starts again many times while the hart executes.
  auto run = [](u64 capacity, u64& flushes) {
    GuestMemory memory;
    fillWithAddi(memory);
    CodeCache code(memory, capacity);
    Hart hart(memory, code);
    const u64 end = kCode + kCodePages * GuestMemory::kPageSize - 4 * 2 * 64;
    for (u64 pc = kCode; pc < end; pc += 4 * 97) {
      hart.state().pc = pc;
      const Stop stop = hart.run(40);
      EXPECT_EQ(stop.reason, StopReason::kBudget);
    }
    flushes = code.capacityFlushCount();
    EXPECT_EQ(hart.state().x[5], hart.state().instret) << "every instruction an addi";
    return hart.state().instret;
  };
  u64 small_flushes = 0, large_flushes = 0;
  const u64 small = run(u64{64} << 10, small_flushes);
  const u64 large = run(u64{64} << 20, large_flushes);
  EXPECT_EQ(small, large);
  EXPECT_GT(small_flushes, 0u);
  EXPECT_EQ(large_flushes, 0u);
}

}  // namespace
}  // namespace hpm
