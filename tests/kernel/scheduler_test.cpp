// The scheduler's state (kernel/scheduler.h): the order of hardware threads, their queues, the
// placement of new threads and the timed events.
#include "kernel/scheduler.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace hpm {
namespace {

struct SchedulerTest : ::testing::Test {
  GuestMemory memory{u64{1} << 30};
  CodeCache code{memory, u64{1} << 20};
  std::vector<std::unique_ptr<Thread>> threads;

  // A guest thread on hardware thread `slot` whose clock is `clock`.
  Thread& thread(u32 slot, u64 clock) {
    threads.push_back(std::make_unique<Thread>(static_cast<int>(threads.size() + 1), memory, code));
    Thread& t = *threads.back();
    t.place(slot);
    t.hart().state().cycle = clock;
    return t;
  }
};

TEST_F(SchedulerTest, HardwareThreadsBelongToCoresInBlocksAndNoneIsReadyAtFirst) {
  Scheduler s(8, 4);
  ASSERT_EQ(s.slots().size(), 8u);
  EXPECT_EQ(s.slots()[3].core, 0u);
  EXPECT_EQ(s.slots()[4].core, 1u);
  EXPECT_EQ(s.ready().min(), MinTree::kNone);
}

TEST_F(SchedulerTest, TheHardwareThreadWhoseFrontStartsEarliestIsPickedAndLeavesWhenEmpty) {
  Scheduler s(4, 4);
  Thread& a = thread(0, 500);
  Thread& b = thread(2, 200);
  s.schedule(a);
  s.schedule(b);
  EXPECT_EQ(s.ready().min(), 2u);
  EXPECT_EQ(s.slots()[2].front, &b);
  // A hardware thread used up to a later cycle starts its thread then.
  s.slots()[2].clock = 900;
  s.refreshSlot(2);
  EXPECT_EQ(s.ready().min(), 0u);
  EXPECT_EQ(s.ready().key(2).time, 900u);
  s.unschedule(a);
  EXPECT_EQ(s.ready().min(), 2u);
  EXPECT_EQ(s.slots()[0].front, nullptr);
  s.unschedule(b);
  EXPECT_EQ(s.ready().min(), MinTree::kNone);
}

TEST_F(SchedulerTest, AtATieTheHardwareThreadThatRanLeastRecentlyGoesFirst) {
  Scheduler s(2, 2);
  Thread& a = thread(0, 100);
  Thread& b = thread(1, 100);
  s.slots()[0].last_run = s.nextRun();
  s.slots()[1].last_run = s.nextRun();
  s.schedule(a);
  s.schedule(b);
  EXPECT_EQ(s.ready().min(), 0u);
  s.slots()[0].last_run = s.nextRun();
  s.placeSlot(0, a, true);
  EXPECT_EQ(s.ready().min(), 1u);
}

TEST_F(SchedulerTest, ThreadsSharingAHardwareThreadTakeTurnsOnlyWhenATurnEnds) {
  Scheduler s(1, 1);
  Thread& a = thread(0, 0);
  Thread& b = thread(0, 0);
  s.schedule(a);
  s.schedule(b);
  s.schedule(a);  // (already queued: stays once)
  ASSERT_EQ(s.slots()[0].queue.size(), 2u);
  EXPECT_EQ(s.slots()[0].front, &a);
  s.placeSlot(0, a, false);  // a cut slice: its thread goes on
  EXPECT_EQ(s.slots()[0].front, &a);
  s.placeSlot(0, a, true);
  EXPECT_EQ(s.slots()[0].front, &b);
  EXPECT_EQ(s.slots()[0].queue.back(), &a);
}

TEST_F(SchedulerTest, ANewThreadGoesToTheLeastLoadedAllowedHardwareThreadLowestFirst) {
  Scheduler s(4, 2);
  EXPECT_EQ(s.pickHardwareThread(threads), 0u);
  thread(0, 0);
  thread(1, 0);
  EXPECT_EQ(s.pickHardwareThread(threads), 2u);
  thread(2, 0).exited = true;  // an exited thread loads nothing
  EXPECT_EQ(s.pickHardwareThread(threads), 2u);
  const std::vector<u8> only_1_and_3 = {0b1010};
  EXPECT_EQ(s.pickHardwareThread(threads, only_1_and_3), 3u);
  EXPECT_TRUE(Scheduler::allows({}, 63));
  EXPECT_TRUE(Scheduler::allows(only_1_and_3, 1));
  EXPECT_FALSE(Scheduler::allows(only_1_and_3, 2));
  EXPECT_FALSE(Scheduler::allows(only_1_and_3, 9));  // past the mask
}

TEST_F(SchedulerTest, EventsComeInTimeOrderAndAtOneTimeInTheOrderTheyWereAdded) {
  Scheduler s(1, 1);
  EXPECT_EQ(s.nextEventTime(), ~u64{0});
  using Kind = Scheduler::Event::Kind;
  s.addEvent({30, 0, Kind::kOutside, nullptr, 1, 0});
  s.addEvent({10, 0, Kind::kOutside, nullptr, 2, 0});
  s.addEvent({30, 0, Kind::kOutside, nullptr, 3, 0});
  s.addEvent({10, 0, Kind::kOutside, nullptr, 4, 0});
  EXPECT_EQ(s.nextEventTime(), 10u);
  std::vector<u64> order;
  while (s.nextEventTime() != ~u64{0}) order.push_back(s.popEvent().generation);
  EXPECT_EQ(order, (std::vector<u64>{2, 4, 1, 3}));
}

TEST_F(SchedulerTest, APickCountsACoreSwitchOnlyWhenItsCoreDiffersFromThePickBefore) {
  Scheduler s(8, 4);
  EXPECT_EQ(s.switchTo(0), 0u);
  EXPECT_EQ(s.switchTo(1), 1u);
  EXPECT_EQ(s.switchTo(1), 0u);
  s.addBusy(5);
  s.addBusy(7);
  EXPECT_EQ(s.busyCycles(), 12u);
}

}  // namespace
}  // namespace hpm
