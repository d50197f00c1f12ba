// Threads, futexes, sleeping and descriptor waits.
#include <poll.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "kernel/kernel.h"

namespace hpm {
namespace {

// clone flags (include/uapi/linux/sched.h).
constexpr u64 kCloneVm = 0x00000100;
constexpr u64 kCloneFs = 0x00000200;
constexpr u64 kCloneFiles = 0x00000400;
constexpr u64 kCloneSighand = 0x00000800;
constexpr u64 kCloneVfork = 0x00004000;
constexpr u64 kCloneThread = 0x00010000;
constexpr u64 kCloneSysvsem = 0x00040000;
constexpr u64 kCloneSettls = 0x00080000;
constexpr u64 kCloneParentSettid = 0x00100000;
constexpr u64 kCloneChildCleartid = 0x00200000;
constexpr u64 kCloneDetached = 0x00400000;
constexpr u64 kCloneChildSettid = 0x01000000;
constexpr u64 kCsignal = 0xff;

// futex operations (include/uapi/linux/futex.h).
constexpr u64 kFutexWait = 0;
constexpr u64 kFutexWake = 1;
constexpr u64 kFutexRequeue = 3;
constexpr u64 kFutexCmpRequeue = 4;
constexpr u64 kFutexWakeOp = 5;
constexpr u64 kFutexWaitBitset = 9;
constexpr u64 kFutexWakeBitset = 10;
constexpr u64 kFutexPrivate = 128;
constexpr u64 kFutexClockRealtime = 256;
constexpr u32 kFutexWaiters = 0x80000000u;
constexpr u32 kFutexOwnerDied = 0x40000000u;
constexpr u32 kFutexTidMask = 0x3fffffffu;

}  // namespace

void SigInfo::setPidUid(i32 pid, u32 uid) {
  std::memcpy(fields, &pid, 4);
  std::memcpy(fields + 4, &uid, 4);
}
void SigInfo::setAddr(u64 addr) {
  std::memcpy(fields, &addr, 8);
}
void SigInfo::setTimer(i32 timer_id, i32 overrun, u64 value) {
  std::memcpy(fields, &timer_id, 4);
  std::memcpy(fields + 4, &overrun, 4);
  std::memcpy(fields + 8, &value, 8);
}
void SigInfo::setValue(u64 value) {
  std::memcpy(fields + 8, &value, 8);
}

i64 Kernel::sysClone(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  const u64 flags = a[0];
  constexpr u64 kThreadFlags = kCloneVm | kCloneFs | kCloneFiles | kCloneSighand | kCloneThread;
  // Only threads of this process: no fork, vfork or new namespaces (a compute-node kernel runs
  // one process). glibc's posix_spawn and system() then fail cleanly with ENOSYS.
  if ((flags & kThreadFlags) != kThreadFlags || (flags & kCloneVfork) || (flags & kCsignal)) {
    return -abi::kENOSYS;
  }
  const u64 allowed = kThreadFlags | kCloneSysvsem | kCloneSettls | kCloneParentSettid |
                      kCloneChildCleartid | kCloneDetached | kCloneChildSettid;
  if (flags & ~allowed) return -abi::kEINVAL;
  const int tid = next_tid_;
  if (flags & kCloneParentSettid) {
    const i32 value = tid;
    if (!memory_.write(a[2], &value, 4)) return -abi::kEFAULT;
  }
  ++next_tid_;
  auto child = std::make_unique<Thread>(tid, memory_, code_);
  HartState& cs = child->hart().state();
  cs = t.hart().state();  // registers, pc (past the ecall), FP state, clock
  cs.reserved = false;
  cs.instret = 0;
  cs.x[10] = 0;  // the child sees 0
  if (a[1] != 0) cs.x[2] = a[1];
  if (flags & kCloneSettls) cs.x[4] = a[3];
  child->blocked = t.blocked;
  child->affinity = t.affinity;  // inherited, as on Linux
  child->place(scheduler_.pickHardwareThread(threads_, child->affinity));
  if (flags & kCloneChildCleartid) child->clear_child_tid = a[4];
  if (flags & kCloneChildSettid) {
    const i32 value = tid;
    if (!memory_.write(a[4], &value, 4)) return -abi::kEFAULT;
  }
  threads_.push_back(std::move(child));
  scheduler_.schedule(*threads_.back());
  interProcessorInterrupt(t.slot, threads_.back()->slot);  // (CNK starts it on its own)
  ++stats_.threads_created;
  HPM_PROBE(bus_, kThreadsCreated, 0, 1);
  return tid;
}

void Kernel::threadExit(Thread& t, int code) {
  if (t.exited) return;
  last_exit_code_ = code;
  ++stats_.thread_exits;
  HPM_PROBE(bus_, kThreadExits, 0, 1);
  processRobustList(t);
  if (t.clear_child_tid != 0) {
    // CLONE_CHILD_CLEARTID: the tid word is cleared and one waiter woken (pthread_join).
    const u32 zero = 0;
    if (memory_.write(t.clear_child_tid, &zero, 4)) {
      futexWake(t.clear_child_tid, 1, ~0u, t.clock(), &t);
    }
  }
  if (t.wait != WaitKind::kNone) wake(t, kBlocked, t.clock());
  scheduler_.unschedule(t);
  t.exited = true;
  t.pending.clear();
  if (std::all_of(threads_.begin(), threads_.end(), [](const auto& th) { return th->exited; })) {
    terminate(Termination{last_exit_code_ & 0xff, false, 0, {}, false});
  }
}

void Kernel::processRobustList(Thread& t) {
  // struct robust_list_head { next; long futex_offset; list_op_pending; } (24 bytes). Each
  // entry is a lock word at entry + futex_offset owned by this thread: mark it OWNER_DIED and
  // wake a waiter, as Linux does when a thread dies holding robust mutexes.
  if (t.robust_list == 0) return;
  u64 head[3];
  if (!memory_.read(t.robust_list, head, sizeof head)) return;
  const i64 offset = static_cast<i64>(head[1]);
  auto handle = [&](u64 entry) {
    const u64 word_addr = entry + static_cast<u64>(offset);
    u32 word = 0;
    if (!memory_.read(word_addr, &word, 4)) return;
    if ((word & kFutexTidMask) != static_cast<u32>(t.tid())) return;
    const u32 updated = (word & kFutexWaiters) | kFutexOwnerDied;
    memory_.write(word_addr, &updated, 4);
    if (word & kFutexWaiters) futexWake(word_addr, 1, ~0u, t.clock(), &t);
  };
  u64 entry = head[0];
  for (int limit = 0; entry != t.robust_list && entry != 0 && limit < 2048; ++limit) {
    u64 next = 0;
    if (!memory_.read(entry & ~u64{1}, &next, 8)) break;
    handle(entry & ~u64{1});
    entry = next;
  }
  if (head[2] != 0) handle(head[2] & ~u64{1});
}

i64 Kernel::futexWake(u64 addr, u32 count, u32 bitset, u64 when, const Thread* waker) {
  const std::vector<Thread*> woken = futexes_.wakeable(addr, count, bitset);
  for (Thread* w : woken) {
    wake(*w, 0, when);
    if (waker != nullptr) interProcessorInterrupt(waker->slot, w->slot);
  }
  stats_.futex_wakes += woken.size();
  if (!woken.empty()) HPM_PROBE(bus_, kFutexWakes, 0, woken.size());
  return static_cast<i64>(woken.size());
}

i64 Kernel::sysFutex(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  const u64 addr = a[0];
  const u64 op = a[1];
  const u64 cmd = op & ~(kFutexPrivate | kFutexClockRealtime);
  const u32 val = static_cast<u32>(a[2]);
  if (addr & 3) return -abi::kEINVAL;
  switch (cmd) {
    case kFutexWait:
    case kFutexWaitBitset: {
      const u32 bitset = cmd == kFutexWait ? ~0u : static_cast<u32>(a[5]);
      if (bitset == 0) return -abi::kEINVAL;
      u32 current = 0;
      if (!memory_.read(addr, &current, 4)) return -abi::kEFAULT;
      if (current != val) return -abi::kEAGAIN;
      std::optional<u64> deadline;
      if (a[3] != 0) {
        abi::Timespec ts{};
        if (!memory_.read(a[3], &ts, sizeof ts)) return -abi::kEFAULT;
        if (ts.sec < 0 || ts.nsec < 0 || ts.nsec >= 1'000'000'000) return -abi::kEINVAL;
        const u64 nanos = spanNanos(ts.sec, ts.nsec);
        if (cmd == kFutexWait) {
          deadline = cyclesAfter(t.clock(), cyclesFor(nanos));  // relative, monotonic clock
        } else {
          // Absolute, on CLOCK_MONOTONIC or (with FUTEX_CLOCK_REALTIME) CLOCK_REALTIME.
          const u64 now =
              clockNanos(t, (op & kFutexClockRealtime) ? CLOCK_REALTIME : CLOCK_MONOTONIC);
          deadline = cyclesAfter(t.clock(), nanos > now ? cyclesFor(nanos - now) : 0);
        }
      }
      t.futex_bitset = bitset;
      ++stats_.futex_waits;
      HPM_PROBE(bus_, kFutexWaits, 0, 1);
      block(t, WaitKind::kFutex, deadline);
      futexes_.add(t, addr);
      return kBlocked;
    }
    case kFutexWake:
    case kFutexWakeBitset: {
      const u32 bitset = cmd == kFutexWake ? ~0u : static_cast<u32>(a[5]);
      if (bitset == 0) return -abi::kEINVAL;
      return futexWake(addr, val, bitset, t.clock(), &t);
    }
    case kFutexRequeue:
    case kFutexCmpRequeue: {
      if (a[4] & 3) return -abi::kEINVAL;
      if (cmd == kFutexCmpRequeue) {
        u32 current = 0;
        if (!memory_.read(addr, &current, 4)) return -abi::kEFAULT;
        if (current != static_cast<u32>(a[5])) return -abi::kEAGAIN;
      }
      const i64 woken = futexWake(addr, val, ~0u, t.clock(), &t);
      const u64 limit = static_cast<u32>(a[3]);  // val2: how many to move
      // Moved waiters go to the back of the target's queue.
      const i64 moved = static_cast<i64>(futexes_.requeue(addr, a[4], limit));
      // Linux returns the waiters woken plus those requeued, for FUTEX_REQUEUE too.
      return woken + moved;
    }
    case kFutexWakeOp: {
      // *uaddr2 = *uaddr2 OP oparg; wake val on uaddr; if (old CMP cmparg) wake val2 on uaddr2.
      const u64 addr2 = a[4];
      const u32 encoded = static_cast<u32>(a[5]);
      const u32 opcode = (encoded >> 28) & 0x7;
      const bool shift = (encoded >> 31) & 1;
      const u32 cmp = (encoded >> 24) & 0xf;
      u32 oparg = (encoded >> 12) & 0xfff;
      const u32 cmparg = encoded & 0xfff;
      if (shift) oparg = 1u << (oparg & 31);
      u32 old = 0;
      if (!memory_.read(addr2, &old, 4)) return -abi::kEFAULT;
      u32 updated = old;
      switch (opcode) {
        case 0: updated = oparg; break;
        case 1: updated = old + oparg; break;
        case 2: updated = old | oparg; break;
        case 3: updated = old & ~oparg; break;
        case 4: updated = old ^ oparg; break;
        default: return -abi::kENOSYS;
      }
      if (!memory_.write(addr2, &updated, 4)) return -abi::kEFAULT;
      i64 woken = futexWake(addr, val, ~0u, t.clock(), &t);
      const i32 o = static_cast<i32>(old), c = static_cast<i32>(cmparg);
      bool condition = false;
      switch (cmp) {
        case 0: condition = o == c; break;
        case 1: condition = o != c; break;
        case 2: condition = o < c; break;
        case 3: condition = o <= c; break;
        case 4: condition = o > c; break;
        case 5: condition = o >= c; break;
        default: return -abi::kENOSYS;
      }
      if (condition) woken += futexWake(addr2, static_cast<u32>(a[3]), ~0u, t.clock(), &t);
      return woken;
    }
    default: return -abi::kENOSYS;  // priority-inheritance futexes are not provided
  }
}

i64 Kernel::sysSleep(Thread& t, u64 number, const SyscallArgs& a) {
  const bool is_nanosleep = number == abi::kNanosleep;
  const u64 clock = is_nanosleep ? CLOCK_MONOTONIC : a[0];
  const u64 flags = is_nanosleep ? 0 : a[1];
  const u64 req = is_nanosleep ? a[0] : a[2];
  const u64 rem = is_nanosleep ? a[1] : a[3];
  if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC && clock != CLOCK_BOOTTIME &&
      clock != CLOCK_TAI) {
    return is_nanosleep ? -abi::kEINVAL : -95;  // EOPNOTSUPP for CPU clocks
  }
  abi::Timespec ts{};
  if (!memory_.read(req, &ts, sizeof ts)) return -abi::kEFAULT;
  if (ts.sec < 0 || ts.nsec < 0 || ts.nsec >= 1'000'000'000) return -abi::kEINVAL;
  u64 nanos = spanNanos(ts.sec, ts.nsec);
  if (flags & TIMER_ABSTIME) {
    const u64 now = clockNanos(t, clock);
    nanos = nanos > now ? nanos - now : 0;
  }
  t.sleep_remaining_addr = (flags & TIMER_ABSTIME) ? 0 : rem;
  t.sleep_start = t.clock();
  block(t, WaitKind::kSleep, cyclesAfter(t.clock(), cyclesFor(nanos)));
  return kBlocked;
}

bool Kernel::pollFileWaits(u64 now) {
  // Each waiter's descriptors: its one descriptor for a read or write, those in its pollfd
  // array for a ppoll (wait_fd -1).
  std::vector<pollfd> fds;
  std::vector<std::size_t> first(fd_waiters_.size() + 1);
  std::vector<bool> closed(fd_waiters_.size(), false);
  for (std::size_t w = 0; w < fd_waiters_.size(); ++w) {
    const Thread& waiter = *fd_waiters_[w];
    first[w] = fds.size();
    if (waiter.wait_fd >= 0) {
      const short events = waiter.wait == WaitKind::kFdReadable ? POLLIN : POLLOUT;
      fds.push_back(pollfd{waiter.wait_fd, events, 0});
      continue;
    }
    const u64 nfds = std::min<u64>(waiter.syscall_args[1], FdTable::kMaxFds);
    std::vector<pollfd> polled(nfds);
    if (nfds != 0 && !memory_.read(waiter.syscall_args[0], polled.data(), nfds * sizeof(pollfd))) {
      polled.clear();
    }
    for (const pollfd& p : polled) {
      const FdEntry* e = p.fd >= 0 ? fds_.get(p.fd) : nullptr;
      // A descriptor closed meanwhile is ready (POLLNVAL): the call is completed again.
      if (e == nullptr && p.fd >= 0) closed[w] = true;
      if (e != nullptr && e->host_fd >= 0) fds.push_back(pollfd{e->host_fd, p.events, 0});
    }
  }
  first[fd_waiters_.size()] = fds.size();
  int ready = 0;
  do {
    ready = ::poll(fds.data(), fds.size(), 0);
  } while (ready < 0 && errno == EINTR);
  if (ready < 0) return false;
  std::vector<Thread*> woken;
  for (std::size_t w = 0; w < fd_waiters_.size(); ++w) {
    bool any = closed[w];
    for (std::size_t i = first[w]; i < first[w + 1]; ++i) any = any || fds[i].revents != 0;
    if (any) woken.push_back(fd_waiters_[w]);
  }
  if (woken.empty()) return false;
  for (Thread* w : woken) {
    // The call completes now (it may block again if another thread took the data first).
    wake(*w, kBlocked, now);
    const i64 result = dispatch(*w, w->syscall_number, w->syscall_args);
    if (result != kBlocked) {
      w->hart().state().x[10] = static_cast<u64>(result);
      if (w->saved_mask && result != -abi::kEINTR) {  // ppoll's mask ends with the call
        w->blocked = *w->saved_mask;
        w->saved_mask.reset();
      }
    }
  }
  return true;
}

}  // namespace hpm
