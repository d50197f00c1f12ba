// The futex wait queues (kernel/futex.h): arrival order, bitsets, and requeueing.
#include "kernel/futex.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace hpm {
namespace {

struct FutexTest : ::testing::Test {
  GuestMemory memory{u64{1} << 30};
  CodeCache code{memory, u64{1} << 20};
  std::vector<std::unique_ptr<Thread>> threads;
  FutexQueues queues;

  Thread& waiter(u64 addr, u32 bitset = ~0u) {
    threads.push_back(std::make_unique<Thread>(static_cast<int>(threads.size() + 1), memory, code));
    Thread& t = *threads.back();
    t.futex_bitset = bitset;
    queues.add(t, addr);
    return t;
  }
};

TEST_F(FutexTest, AWakeTakesTheFirstWaitersUpToItsCountWhoseBitsetsMeetItsOwn) {
  Thread& a = waiter(0x1000, 0b01);
  Thread& b = waiter(0x1000, 0b10);
  Thread& c = waiter(0x1000, 0b11);
  waiter(0x2000);
  EXPECT_EQ(queues.wakeable(0x1000, 10, 0b10), (std::vector<Thread*>{&b, &c}));
  EXPECT_EQ(queues.wakeable(0x1000, 1, ~0u), (std::vector<Thread*>{&a}));
  EXPECT_TRUE(queues.wakeable(0x3000, 10, ~0u).empty());
  // A wake does not dequeue: the end of each thread's wait does.
  EXPECT_EQ(queues.waiters(0x1000).size(), 3u);
  queues.remove(a);
  EXPECT_EQ(queues.waiters(0x1000), (std::vector<Thread*>{&b, &c}));
  EXPECT_EQ(a.futex_addr, 0x1000u);
}

TEST_F(FutexTest, RequeueMovesTheFirstWaitersToTheBackOfTheTargetAndRetargetsThem) {
  Thread& a = waiter(0x1000);
  Thread& b = waiter(0x1000);
  Thread& c = waiter(0x1000);
  Thread& d = waiter(0x2000);
  EXPECT_EQ(queues.requeue(0x1000, 0x2000, 2), 2u);
  EXPECT_EQ(queues.waiters(0x1000), (std::vector<Thread*>{&c}));
  EXPECT_EQ(queues.waiters(0x2000), (std::vector<Thread*>{&d, &a, &b}));
  EXPECT_EQ(a.futex_addr, 0x2000u);
  queues.remove(a);  // (its queue is now the target's)
  EXPECT_EQ(queues.waiters(0x2000), (std::vector<Thread*>{&d, &b}));
  EXPECT_EQ(queues.requeue(0x3000, 0x2000, 5), 0u);
}

TEST_F(FutexTest, RequeueOntoTheSameWordMovesTheWaitersToItsBack) {
  Thread& a = waiter(0x1000);
  Thread& b = waiter(0x1000);
  Thread& c = waiter(0x1000);
  EXPECT_EQ(queues.requeue(0x1000, 0x1000, 2), 2u);
  EXPECT_EQ(queues.waiters(0x1000), (std::vector<Thread*>{&c, &a, &b}));
  EXPECT_EQ(queues.requeue(0x1000, 0x1000, 3), 3u);
  EXPECT_EQ(queues.waiters(0x1000), (std::vector<Thread*>{&c, &a, &b}));
}

}  // namespace
}  // namespace hpm
