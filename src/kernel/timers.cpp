// Interval timers (setitimer) and POSIX timers, on simulated time.
//
// Real-time timers (ITIMER_REAL; CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME timers) are
// events at a node cycle. CPU-time timers (ITIMER_VIRTUAL, ITIMER_PROF; the process and thread
// CPU clocks) expire when the CPU time they measure reaches their value; the scheduler ends a
// thread's slice when it does, so they fire within one block of instructions of that time.
#include <signal.h>
#include <time.h>

#include <cstring>

#include "kernel/kernel.h"

namespace hpm {
namespace {

constexpr int kSigevSignal = 0;
constexpr int kSigevNone = 1;
constexpr int kSigevThread = 2;
constexpr int kSigevThreadId = 4;
constexpr u64 kTimerAbstime = 1;

bool isCpuClock(u64 clock) {
  return clock == CLOCK_PROCESS_CPUTIME_ID || clock == CLOCK_THREAD_CPUTIME_ID;
}

}  // namespace

u64 Kernel::cpuTimerBudget() const {
  const u64 cpu = processCpuCycles();
  u64 budget = ~u64{0};
  for (int which = 1; which <= 2; ++which) {
    const IntervalTimer& timer = itimers_[which];
    if (timer.armed) budget = std::min(budget, timer.value > cpu ? timer.value - cpu : 0);
  }
  for (const PosixTimer& pt : posix_timers_) {
    if (pt.in_use && pt.timer.armed && isCpuClock(pt.clock)) {
      budget = std::min(budget, pt.timer.value > cpu ? pt.timer.value - cpu : 0);
    }
  }
  return budget;
}

void Kernel::checkCpuTimers(u64 when) {
  const u64 cpu = processCpuCycles();
  static constexpr int kSignals[3] = {SIGALRM, SIGVTALRM, SIGPROF};
  for (int which = 1; which <= 2; ++which) {
    IntervalTimer& timer = itimers_[which];
    if (!timer.armed || cpu < timer.value) continue;
    SigInfo info;
    info.signo = kSignals[which];
    info.code = 0x80;  // SI_KERNEL
    sendToProcess(info, when);
    if (timer.interval != 0) {
      // Expirations missed within this slice are folded into one signal, as Linux does.
      while (timer.value <= cpu) timer.value += timer.interval;
    } else {
      timer.armed = false;
    }
  }
  for (std::size_t id = 0; id < posix_timers_.size(); ++id) {
    PosixTimer& pt = posix_timers_[id];
    if (!pt.in_use || !pt.timer.armed || !isCpuClock(pt.clock) || cpu < pt.timer.value) continue;
    pt.overrun = 0;
    if (pt.timer.interval != 0) {
      pt.timer.value += pt.timer.interval;
      while (pt.timer.value <= cpu) {
        pt.timer.value += pt.timer.interval;
        ++pt.overrun;
      }
    } else {
      pt.timer.armed = false;
    }
    if (pt.notify != kSigevNone) {
      SigInfo info;
      info.signo = pt.signo;
      info.code = -2;  // SI_TIMER
      info.setTimer(static_cast<i32>(id), pt.overrun, pt.value);
      Thread* target = nullptr;
      for (const auto& th : threads_) {
        if (th->tid() == pt.target_tid && !th->exited) target = th.get();
      }
      if (pt.notify == kSigevThreadId && target != nullptr) {
        sendToThread(*target, info, when);
      } else {
        sendToProcess(info, when);
      }
    }
  }
}

i64 Kernel::sysSetitimer(Thread& t, const std::array<u64, 6>& a) {
  const u64 which = a[0];
  if (which > 2) return -abi::kEINVAL;
  if (a[2] != 0) {
    const i64 r = sysGetitimer(t, {which, a[2], 0, 0, 0, 0});
    if (r != 0) return r;
  }
  if (a[1] == 0) return 0;
  abi::Timeval tv[2];  // it_interval, it_value
  if (!memory_.read(a[1], tv, sizeof tv)) return -abi::kEFAULT;
  for (const abi::Timeval& v : tv) {
    if (v.sec < 0 || v.usec < 0 || v.usec >= 1'000'000) return -abi::kEINVAL;
  }
  auto toCycles = [this](const abi::Timeval& v) {
    return cyclesFor(static_cast<u64>(v.sec) * 1'000'000'000 + static_cast<u64>(v.usec) * 1000);
  };
  IntervalTimer& timer = itimers_[which];
  ++timer.generation;
  timer.interval = toCycles(tv[0]);
  const u64 value = toCycles(tv[1]);
  timer.armed = value != 0 || tv[1].usec != 0 || tv[1].sec != 0;
  if (!timer.armed) return 0;
  if (which == 0) {
    timer.value = t.clock() + std::max<u64>(value, 1);
    addEvent(Event{timer.value, 0, Event::Kind::kItimerReal, nullptr, timer.generation, 0});
  } else {
    timer.value = processCpuCycles() + std::max<u64>(value, 1);
  }
  return 0;
}

i64 Kernel::sysGetitimer(Thread& t, const std::array<u64, 6>& a) {
  const u64 which = a[0];
  if (which > 2) return -abi::kEINVAL;
  const IntervalTimer& timer = itimers_[which];
  u64 left = 0;
  if (timer.armed) {
    const u64 now = which == 0 ? t.clock() : processCpuCycles();
    left = timer.value > now ? timer.value - now : 1;
  }
  auto toTimeval = [this](u64 cycles) {
    const u64 nanos = nanosAt(cycles);
    // Round up so a running timer never reads as zero (disarmed).
    const u64 micros = (nanos + 999) / 1000;
    return abi::Timeval{static_cast<i64>(micros / 1'000'000), static_cast<i64>(micros % 1'000'000)};
  };
  const abi::Timeval tv[2] = {toTimeval(timer.armed ? timer.interval : 0), toTimeval(left)};
  return memory_.write(a[1], tv, sizeof tv) ? 0 : -abi::kEFAULT;
}

i64 Kernel::sysTimerCreate(Thread& t, const std::array<u64, 6>& a) {
  const u64 clock = a[0];
  if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC && clock != CLOCK_BOOTTIME &&
      !isCpuClock(clock)) {
    return -abi::kEINVAL;
  }
  PosixTimer pt;
  pt.in_use = true;
  pt.clock = clock;
  pt.signo = SIGALRM;
  pt.notify = kSigevSignal;
  pt.target_tid = t.tid();
  std::size_t id = 0;
  while (id < posix_timers_.size() && posix_timers_[id].in_use) ++id;
  pt.value = id;
  if (a[1] != 0) {
    // struct sigevent: sigev_value (8), sigev_signo (4), sigev_notify (4), then the tid.
    u8 ev[24];
    if (!memory_.read(a[1], ev, sizeof ev)) return -abi::kEFAULT;
    i32 signo = 0, notify = 0, tid = 0;
    std::memcpy(&pt.value, ev, 8);
    std::memcpy(&signo, ev + 8, 4);
    std::memcpy(&notify, ev + 12, 4);
    std::memcpy(&tid, ev + 16, 4);
    if (notify != kSigevSignal && notify != kSigevNone && notify != kSigevThreadId) {
      // SIGEV_THREAD is implemented by glibc on top of SIGEV_THREAD_ID.
      return notify == kSigevThread ? -abi::kEINVAL : -abi::kEINVAL;
    }
    if (notify != kSigevNone && (signo < 1 || signo > 64)) return -abi::kEINVAL;
    pt.signo = signo;
    pt.notify = notify;
    if (notify == kSigevThreadId) {
      bool found = false;
      for (const auto& th : threads_) found = found || (th->tid() == tid && !th->exited);
      if (!found) return -abi::kEINVAL;
      pt.target_tid = tid;
    }
  }
  const i32 timer_id = static_cast<i32>(id);
  if (!memory_.write(a[2], &timer_id, 4)) return -abi::kEFAULT;
  if (id == posix_timers_.size()) {
    posix_timers_.push_back(pt);
  } else {
    posix_timers_[id] = pt;
  }
  return 0;
}

i64 Kernel::sysTimerSettime(Thread& t, const std::array<u64, 6>& a) {
  const u64 id = static_cast<u32>(a[0]);
  if (id >= posix_timers_.size() || !posix_timers_[id].in_use) return -abi::kEINVAL;
  if (a[1] & ~kTimerAbstime) return -abi::kEINVAL;
  PosixTimer& pt = posix_timers_[id];
  if (a[3] != 0) {
    const i64 r = sysTimerGettime(t, {a[0], a[3], 0, 0, 0, 0});
    if (r != 0) return r;
  }
  abi::Timespec ts[2];  // it_interval, it_value
  if (!memory_.read(a[2], ts, sizeof ts)) return -abi::kEFAULT;
  for (const abi::Timespec& v : ts) {
    if (v.sec < 0 || v.nsec < 0 || v.nsec >= 1'000'000'000) return -abi::kEINVAL;
  }
  auto nanosOf = [](const abi::Timespec& v) {
    return static_cast<u64>(v.sec) * 1'000'000'000 + static_cast<u64>(v.nsec);
  };
  ++pt.timer.generation;
  pt.timer.interval = cyclesFor(nanosOf(ts[0]));
  pt.timer.armed = nanosOf(ts[1]) != 0;
  pt.overrun = 0;
  if (!pt.timer.armed) return 0;
  u64 delay = nanosOf(ts[1]);
  if (a[1] & kTimerAbstime) {
    const u64 now = clockNanos(t, pt.clock);
    delay = delay > now ? delay - now : 0;
  }
  const u64 cycles = std::max<u64>(cyclesFor(delay), 1);
  if (isCpuClock(pt.clock)) {
    pt.timer.value = processCpuCycles() + cycles;
  } else {
    pt.timer.value = t.clock() + cycles;
    addEvent(Event{pt.timer.value, 0, Event::Kind::kPosixTimer, nullptr, pt.timer.generation,
                   static_cast<int>(id)});
  }
  return 0;
}

i64 Kernel::sysTimerGettime(Thread& t, const std::array<u64, 6>& a) {
  const u64 id = static_cast<u32>(a[0]);
  if (id >= posix_timers_.size() || !posix_timers_[id].in_use) return -abi::kEINVAL;
  const PosixTimer& pt = posix_timers_[id];
  u64 left = 0;
  if (pt.timer.armed) {
    const u64 now = isCpuClock(pt.clock) ? processCpuCycles() : t.clock();
    left = pt.timer.value > now ? pt.timer.value - now : 1;
  }
  auto toTimespec = [this](u64 cycles) {
    const u64 nanos = nanosAt(cycles);
    return abi::Timespec{static_cast<i64>(nanos / 1'000'000'000),
                         static_cast<i64>(nanos % 1'000'000'000)};
  };
  const abi::Timespec ts[2] = {toTimespec(pt.timer.armed ? pt.timer.interval : 0),
                               toTimespec(left)};
  return memory_.write(a[1], ts, sizeof ts) ? 0 : -abi::kEFAULT;
}

i64 Kernel::sysTimerDelete(const std::array<u64, 6>& a) {
  const u64 id = static_cast<u32>(a[0]);
  if (id >= posix_timers_.size() || !posix_timers_[id].in_use) return -abi::kEINVAL;
  posix_timers_[id] = PosixTimer{};
  return 0;
}

}  // namespace hpm
