// A guest thread as the kernel keeps it (its hart, where it runs, what it waits for, its
// signals), and the types it is made of. The scheduler, the signal code and the system calls
// share it; it depends on nothing of theirs.
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "base/types.h"
#include "hart/code_cache.h"
#include "hart/hart.h"
#include "hart/memory.h"
#include "kernel/poll_probe.h"

namespace hpm {

// A system call's six arguments (a0..a5).
using SyscallArgs = std::array<u64, 6>;

// The kernel's siginfo (128 bytes, asm-generic layout).
struct SigInfo {
  i32 signo = 0;
  i32 error = 0;
  i32 code = 0;
  i32 pad = 0;
  u8 fields[112] = {};  // the union: pid/uid, addr, timer id/overrun/value, ...

  void setPidUid(i32 pid, u32 uid);
  void setAddr(u64 addr);
  void setTimer(i32 timer_id, i32 overrun, u64 value);
  void setValue(u64 value);  // sigval at offset 24 (queued and timer signals)
};
static_assert(sizeof(SigInfo) == 128);

// What a blocked thread waits for. A wait ends by a wake-up, a timeout (deadline) or a signal.
enum class WaitKind : u8 {
  kNone,
  kFutex,       // futex_addr / futex_bitset
  kSleep,       // nanosleep, clock_nanosleep: only the deadline ends it
  kSigsuspend,  // any delivered signal
  kSigwait,     // a pending signal in sigwait_set
  kFdReadable,  // host descriptor wait_fd has data (or EOF)
  kFdWritable,
  kPoll,  // functional mode: a spin loop on `polled` words (not a system call; kernel/polling.cpp)
};

// (Aligned, and its most used fields first: in the timing modes the scheduler picks a thread
// for about every instruction once several hardware threads run, and with 16 or more of them
// the picked thread's state is no longer in the host's cache: each line it touches is a miss.)
class alignas(64) Thread {
 public:
  Thread(int tid, GuestMemory& memory, CodeCache& code) : tid_(tid), hart_(memory, code) {}

  int tid() const { return tid_; }
  Hart& hart() { return hart_; }
  const Hart& hart() const { return hart_; }
  u64 clock() const { return hart_.state().cycle; }

  // What every scheduling pick reads (then the hart's own most used fields follow).
  bool exited = false;
  WaitKind wait = WaitKind::kNone;  // blocking: see below
  u32 slot = 0;                     // the hardware thread it runs on
  u64 busy_cycles = 0;              // cycles spent running (its CPU time)
  std::vector<SigInfo> pending;     // thread-directed signals, in arrival order

 private:
  int tid_;
  Hart hart_;

 public:
  // Every hardware thread it was placed on, first first (what it counted on: stat --per-thread).
  std::vector<u32> placed_on;
  void place(u32 hardware_thread) {
    slot = hardware_thread;
    if (std::find(placed_on.begin(), placed_on.end(), slot) == placed_on.end()) {
      placed_on.push_back(slot);
    }
  }
  u64 clear_child_tid = 0;  // set_tid_address / CLONE_CHILD_CLEARTID
  u64 robust_list = 0;
  u64 robust_list_len = 0;
  std::vector<u8> affinity;  // hardware threads it may run on, a bit each; empty: all of them

  // Blocking (`wait` above says on what).
  u64 wait_deadline = 0;  // cycle at which the wait times out, when wait_has_deadline
  bool wait_has_deadline = false;
  u64 wait_generation = 0;  // bumped by every wait, so stale timeout events are ignored
  u64 futex_addr = 0;
  u32 futex_bitset = 0;
  u64 sigwait_set = 0;
  u64 sigwait_info_addr = 0;  // where rt_sigtimedwait writes the siginfo
  int wait_fd = -1;
  u64 sleep_remaining_addr = 0;  // nanosleep's rem argument
  u64 sleep_start = 0;
  // kPoll: the words its loop loads, their values then, and how long it stays parked.
  std::array<PolledWord, PollProbe::kMaxWords> polled{};
  u8 polled_count = 0;
  bool probe_first = false;  // its next slice starts with a probe (woken by a change)
  u64 park_cycles = 0;       // its current park's length (0: poll_park_cycles)
  u64 parked_at = 0;
  u64 syscall_number = 0;      // of the blocked call
  SyscallArgs syscall_args{};  // its arguments (a0 is restored when the call restarts)

  // Signals (`pending` above).
  u64 blocked = 0;                // signal mask (bit n-1 for signal n)
  std::optional<u64> saved_mask;  // mask to restore after a sigsuspend's handler
  u64 altstack_sp = 0;
  u64 altstack_size = 0;
  bool altstack_disabled = true;
};

}  // namespace hpm
