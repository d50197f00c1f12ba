// Interval timers (setitimer) and POSIX timers, on simulated time.
//
// Real-time timers (ITIMER_REAL; CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME timers) are
// events at a node cycle. CPU-time timers (ITIMER_VIRTUAL, ITIMER_PROF; the process and thread
// CPU clocks) expire when the CPU time they measure reaches their value; the scheduler ends a
// thread's slice when it does, so they fire within one block of instructions of that time.
#include <signal.h>
#include <sys/resource.h>
#include <time.h>

#include <cstring>

#include "kernel/kernel.h"

namespace hpm {
namespace {

constexpr int kSigevSignal = 0;
constexpr int kSigevNone = 1;
constexpr int kSigevThreadId = 4;
constexpr u64 kTimerAbstime = 1;

constexpr i32 kSiTimer = -2;

}  // namespace

bool Kernel::cpuClock(u64 clock, const Thread& caller, const Thread** owner) const {
  *owner = nullptr;
  if (clock == CLOCK_PROCESS_CPUTIME_ID) return true;
  if (clock == CLOCK_THREAD_CPUTIME_ID) {
    *owner = &caller;
    return true;
  }
  // Dynamic ids (a clockid_t is an int): ~pid << 3 | type for a process, with bit 2 set for a
  // thread (~tid << 3 | 4 | type); type 0..2 (profiling, virtual, scheduler time) are all the
  // CPU time here, type 3 is a clock descriptor.
  const i32 id = static_cast<i32>(clock);
  if (id >= 0 || (id & 3) == 3 || static_cast<u64>(static_cast<i64>(id)) != clock) return false;
  const i32 pid = ~(id >> 3);
  if (id & 4) {
    if (pid == 0) {
      *owner = &caller;
      return true;
    }
    for (const auto& th : threads_) {
      if (th->tid() == pid && !th->exited) {
        *owner = th.get();
        return true;
      }
    }
    return false;
  }
  return pid == 0 || pid == 1;  // this process (its pid is 1)
}

u64 Kernel::cpuTimerNow(const PosixTimer& pt) const {
  if (pt.cpu_tid == 0) return processCpuCycles();
  for (const auto& th : threads_) {
    if (th->tid() == pt.cpu_tid) return th->busy_cycles;  // frozen once the thread has exited
  }
  return 0;
}

u64 Kernel::cpuTimerBudget() const {
  // Ends the running thread's slice when a CPU-time timer may expire. A thread's timer only
  // advances while its thread runs; counting it for every thread is conservative.
  const u64 cpu = processCpuCycles();
  u64 budget = ~u64{0};
  for (int which = 1; which <= 2; ++which) {
    const IntervalTimer& timer = timers_.interval(which);
    if (timer.armed) budget = std::min(budget, timer.value > cpu ? timer.value - cpu : 0);
  }
  for (const PosixTimer& pt : timers_.posix()) {
    if (pt.in_use && pt.timer.armed && pt.cpu_time) {
      const u64 now = cpuTimerNow(pt);
      budget = std::min(budget, pt.timer.value > now ? pt.timer.value - now : 0);
    }
  }
  return budget;
}

void Kernel::expirePosixTimer(std::size_t id, u64 expirations, u64 when) {
  stats_.timer_expirations += expirations;
  HPM_PROBE(bus_, kTimerExpirations, 0, expirations);
  PosixTimer& pt = timers_.posix()[id];
  constexpr i64 kMaxOverrun = INT32_MAX;
  if (pt.notify == kSigevNone) return;
  if (pt.signal_queued) {
    // As Linux: one signal per timer is queued; later expirations count as its overrun.
    pt.pending_overrun = static_cast<i32>(
        std::min<i64>(kMaxOverrun, pt.pending_overrun + static_cast<i64>(expirations)));
    return;
  }
  pt.signal_queued = true;
  pt.pending_overrun = static_cast<i32>(std::min<i64>(kMaxOverrun, expirations - 1));
  SigInfo info;
  info.signo = pt.signo;
  info.code = kSiTimer;
  info.setTimer(static_cast<i32>(id), 0, pt.value);  // the overrun is filled in when taken
  Thread* target = nullptr;
  for (const auto& th : threads_) {
    if (th->tid() == pt.target_tid && !th->exited) target = th.get();
  }
  if (pt.notify == kSigevThreadId && target != nullptr) {
    sendToThread(*target, info, when, nullptr);  // (the decrementer's: no other thread's)
  } else {
    sendToProcess(info, when, nullptr);
  }
  // It may have been discarded (ignored) or taken at once (a thread waiting in sigwait).
  if (pt.signal_queued) {
    auto queued = [&](const std::vector<SigInfo>& q) {
      for (const SigInfo& p : q) {
        i32 timer_id = -1;
        std::memcpy(&timer_id, p.fields, 4);
        if (p.code == kSiTimer && timer_id == static_cast<i32>(id)) return true;
      }
      return false;
    };
    bool found = queued(signals_.processPending());
    for (const auto& th : threads_) found = found || queued(th->pending);
    pt.signal_queued = found;
  }
}

void Kernel::timerSignalTaken(SigInfo& info) {
  if (info.code != kSiTimer) return;
  i32 timer_id = -1;
  std::memcpy(&timer_id, info.fields, 4);
  if (timer_id < 0 || static_cast<std::size_t>(timer_id) >= timers_.posix().size()) return;
  PosixTimer& pt = timers_.posix()[timer_id];
  if (!pt.signal_queued) return;
  pt.signal_queued = false;
  pt.overrun = pt.pending_overrun;  // what timer_getoverrun reports from now on
  pt.pending_overrun = 0;
  std::memcpy(info.fields + 4, &pt.overrun, 4);
}

void Kernel::checkCpuTimers(u64 when) {
  const u64 cpu = processCpuCycles();
  static constexpr int kSignals[3] = {SIGALRM, SIGVTALRM, SIGPROF};
  for (int which = 1; which <= 2; ++which) {
    IntervalTimer& timer = timers_.interval(which);
    if (!timer.armed || cpu < timer.value) continue;
    SigInfo info;
    ++stats_.timer_expirations;
    HPM_PROBE(bus_, kTimerExpirations, 0, 1);
    info.signo = kSignals[which];
    info.code = 0x80;  // SI_KERNEL
    sendToProcess(info, when, nullptr);
    if (timer.interval != 0) {
      // Expirations missed within this slice are folded into one signal, as Linux does.
      while (timer.value <= cpu) timer.value = cyclesAfter(timer.value, timer.interval);
    } else {
      timer.armed = false;
    }
  }
  for (std::size_t id = 0; id < timers_.posix().size(); ++id) {
    PosixTimer& pt = timers_.posix()[id];
    if (!pt.in_use || !pt.timer.armed || !pt.cpu_time) continue;
    const u64 now = cpuTimerNow(pt);
    if (now < pt.timer.value) continue;
    u64 expirations = 1;
    if (pt.timer.interval != 0) {
      pt.timer.value = cyclesAfter(pt.timer.value, pt.timer.interval);
      while (pt.timer.value <= now) {
        pt.timer.value = cyclesAfter(pt.timer.value, pt.timer.interval);
        ++expirations;
      }
    } else {
      pt.timer.armed = false;
    }
    expirePosixTimer(id, expirations, when);
  }
  timers_.noteArmed();
}

i64 Kernel::armItimer(Thread& t, const SyscallArgs& a) {
  const u64 which = a[0];
  if (which > 2) return -abi::kEINVAL;
  if (a[2] != 0) {
    const i64 r = sysGetitimer(t, abi::kGetitimer, {which, a[2], 0, 0, 0, 0});
    if (r != 0) return r;
  }
  if (a[1] == 0) return 0;
  abi::Timeval tv[2];  // it_interval, it_value
  if (!memory_.read(a[1], tv, sizeof tv)) return -abi::kEFAULT;
  for (const abi::Timeval& v : tv) {
    if (v.sec < 0 || v.usec < 0 || v.usec >= 1'000'000) return -abi::kEINVAL;
  }
  auto toCycles = [this](const abi::Timeval& v) {
    return cyclesFor(spanNanos(v.sec, v.usec * 1000));
  };
  IntervalTimer& timer = timers_.interval(which);
  ++timer.generation;
  timer.interval = toCycles(tv[0]);
  const u64 value = toCycles(tv[1]);
  timer.armed = value != 0 || tv[1].usec != 0 || tv[1].sec != 0;
  if (!timer.armed) return 0;
  if (which == 0) {
    timer.value = cyclesAfter(t.clock(), std::max<u64>(value, 1));
    scheduler_.addEvent(
        Event{timer.value, 0, Event::Kind::kItimerReal, nullptr, timer.generation, 0});
  } else {
    timer.value = cyclesAfter(processCpuCycles(), std::max<u64>(value, 1));
  }
  return 0;
}

i64 Kernel::sysGetitimer(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  const u64 which = a[0];
  if (which > 2) return -abi::kEINVAL;
  const IntervalTimer& timer = timers_.interval(which);
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

i64 Kernel::sysTimerCreate(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  const u64 clock = a[0];
  const Thread* cpu_owner = nullptr;
  const bool cpu_time = cpuClock(clock, t, &cpu_owner);
  if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC && clock != CLOCK_BOOTTIME && !cpu_time) {
    return -abi::kEINVAL;
  }
  PosixTimer pt;
  pt.in_use = true;
  pt.clock = clock;
  pt.cpu_time = cpu_time;
  pt.cpu_tid = cpu_owner != nullptr ? cpu_owner->tid() : 0;
  pt.signo = SIGALRM;
  pt.notify = kSigevSignal;
  pt.target_tid = t.tid();
  const std::size_t id = timers_.freeId();
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
    // SIGEV_THREAD is implemented by glibc on top of SIGEV_THREAD_ID: the kernel never sees it.
    if (notify != kSigevSignal && notify != kSigevNone && notify != kSigevThreadId) {
      return -abi::kEINVAL;
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
  timers_.install(id, pt);
  return 0;
}

i64 Kernel::armPosixTimer(Thread& t, const SyscallArgs& a) {
  const u64 id = static_cast<u32>(a[0]);
  PosixTimer* timer = timers_.find(id);
  if (timer == nullptr) return -abi::kEINVAL;
  if (a[1] & ~kTimerAbstime) return -abi::kEINVAL;
  PosixTimer& pt = *timer;
  if (a[3] != 0) {
    const i64 r = sysTimerGettime(t, abi::kTimerGettime, {a[0], a[3], 0, 0, 0, 0});
    if (r != 0) return r;
  }
  abi::Timespec ts[2];  // it_interval, it_value
  if (!memory_.read(a[2], ts, sizeof ts)) return -abi::kEFAULT;
  for (const abi::Timespec& v : ts) {
    if (v.sec < 0 || v.nsec < 0 || v.nsec >= 1'000'000'000) return -abi::kEINVAL;
  }
  auto nanosOf = [](const abi::Timespec& v) { return spanNanos(v.sec, v.nsec); };
  ++pt.timer.generation;
  pt.timer.interval = cyclesFor(nanosOf(ts[0]));
  pt.timer.armed = nanosOf(ts[1]) != 0;
  pt.overrun = 0;
  if (!pt.timer.armed) return 0;
  u64 delay = nanosOf(ts[1]);
  if (a[1] & kTimerAbstime) {
    const u64 now = pt.cpu_time ? nanosAt(cpuTimerNow(pt)) : clockNanos(t, pt.clock);
    delay = delay > now ? delay - now : 0;
  }
  const u64 cycles = std::max<u64>(cyclesFor(delay), 1);
  if (pt.cpu_time) {
    pt.timer.value = cyclesAfter(cpuTimerNow(pt), cycles);
  } else {
    pt.timer.value = cyclesAfter(t.clock(), cycles);
    scheduler_.addEvent(Event{pt.timer.value, 0, Event::Kind::kPosixTimer, nullptr,
                              pt.timer.generation, static_cast<int>(id)});
  }
  return 0;
}

i64 Kernel::sysTimerGettime(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  const u64 id = static_cast<u32>(a[0]);
  const PosixTimer* timer = timers_.find(id);
  if (timer == nullptr) return -abi::kEINVAL;
  const PosixTimer& pt = *timer;
  u64 left = 0;
  if (pt.timer.armed) {
    const u64 now = pt.cpu_time ? cpuTimerNow(pt) : t.clock();
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

i64 Kernel::deletePosixTimer(const SyscallArgs& a) {
  const u64 id = static_cast<u32>(a[0]);
  if (timers_.find(id) == nullptr) return -abi::kEINVAL;
  timers_.remove(id);
  return 0;
}

// ---- the clocks and the calls that read them ----

i64 Kernel::writeTimespec(u64 addr, u64 nanos) {
  const abi::Timespec ts{static_cast<i64>(nanos / 1'000'000'000),
                         static_cast<i64>(nanos % 1'000'000'000)};
  return memory_.write(addr, &ts, sizeof ts) ? 0 : -abi::kEFAULT;
}

i64 Kernel::sysClockGettime(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  u64 clock = a[0], out = a[1];
  const Thread* cpu_owner = nullptr;
  if ((clock > 11 || clock == 8 || clock == 9 || clock == 10) && !cpuClock(clock, t, &cpu_owner)) {
    return -abi::kEINVAL;
  }
  return writeTimespec(out, clockNanos(t, clock));
}

i64 Kernel::sysClockGetres(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  const Thread* cpu_owner = nullptr;
  if (a[0] > 11 && !cpuClock(a[0], t, &cpu_owner)) return -abi::kEINVAL;
  if (a[1] == 0) return 0;
  return writeTimespec(a[1], 1);  // one nanosecond: simulated clocks are exact
}

i64 Kernel::sysGettimeofday(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  if (a[0] != 0) {
    const u64 nanos = clockNanos(t, CLOCK_REALTIME);
    const abi::Timeval tv{static_cast<i64>(nanos / 1'000'000'000),
                          static_cast<i64>(nanos % 1'000'000'000 / 1000)};
    if (!memory_.write(a[0], &tv, sizeof tv)) return -abi::kEFAULT;
  }
  if (a[1] != 0) {
    const i32 tz[2] = {0, 0};
    if (!memory_.write(a[1], tz, sizeof tz)) return -abi::kEFAULT;
  }
  return 0;
}

i64 Kernel::sysTimes(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  const u64 ticks = nanosAt(elapsedCycles()) / 10'000'000;
  if (a[0] != 0) {
    const abi::Tms tms{static_cast<i64>(clockNanos(t, CLOCK_PROCESS_CPUTIME_ID) / 10'000'000), 0, 0,
                       0};
    if (!memory_.write(a[0], &tms, sizeof tms)) return -abi::kEFAULT;
  }
  return static_cast<i64>(ticks);
}

i64 Kernel::sysGetrusage(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  if (static_cast<i64>(a[0]) != RUSAGE_SELF && a[0] != RUSAGE_THREAD &&
      static_cast<i64>(a[0]) != RUSAGE_CHILDREN) {
    return -abi::kEINVAL;
  }
  abi::Rusage ru{};
  if (static_cast<i64>(a[0]) != RUSAGE_CHILDREN) {
    const u64 nanos =
        clockNanos(t, static_cast<i64>(a[0]) == RUSAGE_THREAD ? CLOCK_THREAD_CPUTIME_ID
                                                              : CLOCK_PROCESS_CPUTIME_ID);
    ru.utime = {static_cast<i64>(nanos / 1'000'000'000),
                static_cast<i64>(nanos % 1'000'000'000 / 1000)};
    u64 mapped = 0;
    for (const auto& [start, vma] : space_.vmas().areas()) mapped += vma.end - vma.start;
    ru.fields[0] = static_cast<i64>(mapped / 1024);  // maxrss in KiB
  }
  if (!memory_.write(a[1], &ru, sizeof ru)) return -abi::kEFAULT;
  return 0;
}

// ---- the timer calls (a change to the timers is noted: TimerTable::noteArmed) ----

i64 Kernel::sysSetitimer(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  const i64 r = armItimer(t, a);
  timers_.noteArmed();
  return r;
}

i64 Kernel::sysTimerSettime(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  const i64 r = armPosixTimer(t, a);
  timers_.noteArmed();
  return r;
}

i64 Kernel::sysTimerDelete(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  const i64 r = deletePosixTimer(a);
  timers_.noteArmed();
  return r;
}

i64 Kernel::sysTimerGetoverrun(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  const u64 id = static_cast<u32>(a[0]);
  const PosixTimer* timer = timers_.find(id);
  return timer != nullptr ? timer->overrun : -abi::kEINVAL;
}

}  // namespace hpm
