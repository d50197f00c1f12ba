// The process's timers (kernel/timer_table.h): ids, deletion, and whether a CPU-time timer is
// armed.
#include "kernel/timer_table.h"

#include <gtest/gtest.h>

namespace hpm {
namespace {

PosixTimer inUse(bool cpu_time = false) {
  PosixTimer pt;
  pt.in_use = true;
  pt.cpu_time = cpu_time;
  return pt;
}

TEST(TimerTable, ADeletedTimersIdIsReusedOnlyOnceItsSignalIsNoLongerPending) {
  TimerTable timers;
  EXPECT_EQ(timers.freeId(), 0u);
  timers.install(0, inUse());
  timers.install(1, inUse());
  EXPECT_EQ(timers.freeId(), 2u);
  timers.posix()[0].signal_queued = true;
  timers.remove(0);
  EXPECT_EQ(timers.find(0), nullptr);
  EXPECT_TRUE(timers.posix()[0].signal_queued);  // still delivered
  EXPECT_EQ(timers.freeId(), 2u);
  timers.posix()[0].signal_queued = false;  // taken
  EXPECT_EQ(timers.freeId(), 0u);
  EXPECT_NE(timers.find(1), nullptr);
  EXPECT_EQ(timers.find(7), nullptr);
}

TEST(TimerTable, AReusedIdKeepsItsGenerationSoTheDeletedTimersEventsStayStale) {
  TimerTable timers;
  timers.install(0, inUse());
  timers.posix()[0].timer.generation = 5;
  timers.remove(0);
  EXPECT_EQ(timers.posix()[0].timer.generation, 6u);
  timers.install(0, inUse());
  EXPECT_EQ(timers.find(0)->timer.generation, 6u);
}

TEST(TimerTable, OnlyAnArmedCpuTimeTimerCountsAsArmedOnceNoted) {
  TimerTable timers;
  timers.noteArmed();
  EXPECT_FALSE(timers.cpuArmed());
  timers.interval(0).armed = true;  // ITIMER_REAL: a node-time event
  timers.install(0, inUse(false));
  timers.posix()[0].timer.armed = true;  // a CLOCK_MONOTONIC timer
  timers.install(1, inUse(true));        // CPU time, not armed
  timers.noteArmed();
  EXPECT_FALSE(timers.cpuArmed());
  timers.posix()[1].timer.armed = true;
  EXPECT_FALSE(timers.cpuArmed());  // (until noted)
  timers.noteArmed();
  EXPECT_TRUE(timers.cpuArmed());
  timers.remove(1);
  timers.interval(2).armed = true;  // ITIMER_PROF
  timers.noteArmed();
  EXPECT_TRUE(timers.cpuArmed());
}

}  // namespace
}  // namespace hpm
