// The process's signal state: the action of each signal (rt_sigaction) and the signals queued
// for the process as a whole (kill, timers). Each thread's own mask and queue are in its
// Thread; Kernel's signal code (signals.cpp) sends, delivers and builds frames.
#pragma once

#include <array>
#include <vector>

#include "base/types.h"
#include "kernel/thread.h"

namespace hpm {

struct SignalAction {
  u64 handler = 0;  // SIG_DFL (0), SIG_IGN (1) or the handler's address
  u64 flags = 0;
  u64 mask = 0;
};

class SignalState {
 public:
  static constexpr u64 kSigDfl = 0;
  static constexpr u64 kSigIgn = 1;
  // A signal's bit in a mask (bit n-1 for signal n).
  static constexpr u64 bit(int signal) { return u64{1} << (signal - 1); }
  // Whether the default action of `signal` ignores it (SIGCHLD, SIGURG, SIGWINCH, SIGCONT and,
  // without job control, the stop signals); else it terminates the process.
  static bool defaultIgnores(int signal);

  // By signal number, 1 to 64.
  SignalAction& action(int signal) { return actions_[signal]; }
  const SignalAction& action(int signal) const { return actions_[signal]; }
  // Whether `signal` is ignored where it comes: SIG_IGN, or SIG_DFL that ignores it.
  bool ignores(int signal) const;

  // The signals queued for the process, in arrival order.
  std::vector<SigInfo>& processPending() { return process_pending_; }
  const std::vector<SigInfo>& processPending() const { return process_pending_; }
  // (At every pick of the scheduler loop.)
  bool anyProcessPending() const { return !process_pending_.empty(); }
  // Queues `info` for the process, unless it is a standard signal already queued (standard
  // signals do not queue). Returns whether it was queued.
  bool queueForProcess(const SigInfo& info);
  // Whether `t` has a signal pending, its own or the process's, that it does not block.
  bool pendingFor(const Thread& t) const;
  // The signals pending for `t` or the process that `t` blocks (rt_sigpending).
  u64 blockedPending(const Thread& t) const;
  // Takes the next signal of `set` for `t` into `out`: lower-numbered first, as Linux dequeues,
  // and thread-directed before shared. False if none is pending.
  bool take(Thread& t, u64 set, SigInfo& out);

 private:
  std::array<SignalAction, 65> actions_{};  // by signal number
  std::vector<SigInfo> process_pending_;
};

}  // namespace hpm
