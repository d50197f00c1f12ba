// The process's signal state (kernel/signal_state.h): actions, the process's queue, and the
// order signals are taken in.
#include "kernel/signal_state.h"

#include <gtest/gtest.h>
#include <signal.h>

namespace hpm {
namespace {

SigInfo signal(int signo, i32 code = 0) {
  SigInfo info;
  info.signo = signo;
  info.code = code;
  return info;
}

struct SignalStateTest : ::testing::Test {
  GuestMemory memory{u64{1} << 30};
  CodeCache code{memory, u64{1} << 20};
  Thread thread{1, memory, code};
  SignalState state;
};

TEST_F(SignalStateTest, ASignalIsIgnoredBySigIgnOrByADefaultThatIgnoresIt) {
  EXPECT_TRUE(state.ignores(SIGCHLD));
  EXPECT_TRUE(state.ignores(SIGTSTP));  // no job control
  EXPECT_FALSE(state.ignores(SIGTERM));
  state.action(SIGTERM).handler = SignalState::kSigIgn;
  EXPECT_TRUE(state.ignores(SIGTERM));
  state.action(SIGCHLD).handler = 0x10000;  // a handler
  EXPECT_FALSE(state.ignores(SIGCHLD));
}

TEST_F(SignalStateTest, AStandardSignalQueuesOnceForTheProcessARealTimeOneEveryTime) {
  EXPECT_TRUE(state.queueForProcess(signal(SIGUSR1)));
  EXPECT_FALSE(state.queueForProcess(signal(SIGUSR1)));
  EXPECT_TRUE(state.queueForProcess(signal(40)));
  EXPECT_TRUE(state.queueForProcess(signal(40)));
  EXPECT_EQ(state.processPending().size(), 3u);
  EXPECT_TRUE(state.anyProcessPending());
}

TEST_F(SignalStateTest, TheLowestSignalOfTheSetIsTakenTheThreadsBeforeTheProcesss) {
  thread.pending = {signal(SIGUSR2, 1), signal(SIGINT, 2)};
  state.queueForProcess(signal(SIGHUP, 3));
  state.queueForProcess(signal(SIGINT, 4));
  SigInfo out;
  ASSERT_TRUE(state.take(thread, ~u64{0}, out));
  EXPECT_EQ(out.code, 2);  // SIGINT, the thread's: lower than SIGUSR2, and before the process's
  ASSERT_TRUE(state.take(thread, SignalState::bit(SIGINT) | SignalState::bit(SIGHUP), out));
  EXPECT_EQ(out.code, 3);  // the thread has none of the set: the process's lowest
  EXPECT_FALSE(state.take(thread, SignalState::bit(SIGTERM), out));
  EXPECT_EQ(thread.pending.size(), 1u);
  EXPECT_EQ(state.processPending().size(), 1u);
}

TEST_F(SignalStateTest, PendingForAThreadIsWhatItDoesNotBlockBlockedPendingWhatItDoes) {
  EXPECT_FALSE(state.pendingFor(thread));
  state.queueForProcess(signal(SIGUSR1));
  EXPECT_TRUE(state.pendingFor(thread));
  thread.blocked = SignalState::bit(SIGUSR1);
  EXPECT_FALSE(state.pendingFor(thread));
  thread.pending = {signal(SIGUSR2)};
  EXPECT_TRUE(state.pendingFor(thread));
  EXPECT_EQ(state.blockedPending(thread), SignalState::bit(SIGUSR1));
}

}  // namespace
}  // namespace hpm
