// The process's timers: its three interval timers (setitimer) and its POSIX timers, by id.
// Kernel's timer calls and the scheduler loop (timers.cpp, run.cpp) arm and expire them; this
// keeps them, allocates ids, and knows whether a CPU-time timer is armed (which the loop asks at
// every slice).
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "base/types.h"

namespace hpm {

// A timer's deadline. CPU-time timers count the process's CPU time (ITIMER_VIRTUAL,
// ITIMER_PROF, CLOCK_PROCESS_CPUTIME_ID) or one thread's (CLOCK_THREAD_CPUTIME_ID).
struct IntervalTimer {
  u64 value = 0;     // deadline: node cycle (real) or process CPU cycles (virtual, prof)
  u64 interval = 0;  // cycles, 0 for one-shot
  bool armed = false;
  u64 generation = 0;  // bumped by each change, so stale expiry events are ignored
};

struct PosixTimer {
  bool in_use = false;
  u64 clock = 0;          // CLOCK_* id
  bool cpu_time = false;  // counts CPU time: the process's, or thread cpu_tid's
  int cpu_tid = 0;
  bool signal_queued = false;  // its signal is pending and not yet taken
  i32 pending_overrun = 0;     // expirations since that signal was queued
  int signo = 0;
  int notify = 0;  // SIGEV_SIGNAL, SIGEV_NONE, SIGEV_THREAD_ID
  int target_tid = 0;
  u64 value = 0;  // sigev_value
  IntervalTimer timer;
  i32 overrun = 0;
};

class TimerTable {
 public:
  // ITIMER_REAL (0), ITIMER_VIRTUAL (1) or ITIMER_PROF (2).
  IntervalTimer& interval(u64 which) { return itimers_[which]; }
  const IntervalTimer& interval(u64 which) const { return itimers_[which]; }

  // Every POSIX timer slot by id, in use or not (a deleted one's signal may still be pending).
  std::vector<PosixTimer>& posix() { return posix_; }
  const std::vector<PosixTimer>& posix() const { return posix_; }
  // The POSIX timer `id` if it is in use, else null.
  PosixTimer* find(u64 id) {
    return id < posix_.size() && posix_[id].in_use ? &posix_[id] : nullptr;
  }
  // The id a new timer gets: the lowest of a deleted timer whose signal is no longer pending,
  // else a new one.
  std::size_t freeId() const;
  // Puts `timer` at `id` (from freeId); a reused slot keeps its generation.
  void install(std::size_t id, PosixTimer timer);
  // Deletes timer `id` (in use). A signal it queued is still delivered, as on Linux; the
  // generation survives, so its pending expiry events stay stale when the id is reused.
  void remove(std::size_t id);

  // Recomputes cpuArmed() after any change to the timers.
  void noteArmed();
  // Whether some CPU-time timer is armed.
  bool cpuArmed() const { return cpu_armed_; }

 private:
  std::array<IntervalTimer, 3> itimers_{};
  std::vector<PosixTimer> posix_;
  bool cpu_armed_ = false;
};

}  // namespace hpm
