// System call emulation: dispatch and the calls of a single-threaded process.
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "base/bits.h"
#include "kernel/kernel.h"

namespace hpm {
namespace {

constexpr int kGuestAtFdcwd = -100;
constexpr u64 kPid = 1;  // guest thread ids are 1, 2, ...; the process is its main thread

i64 hostResult(long r) {
  return r < 0 ? -static_cast<i64>(errno) : r;
}

// A length rounded up to whole pages; 0 when the rounding would wrap around (a length within a
// page of 2^64), which every caller treats as out of range, as Linux's PAGE_ALIGN does.
u64 pageLength(u64 length) {
  return length > ~u64{0} - (GuestMemory::kPageSize - 1) ? 0
                                                         : alignUp(length, GuestMemory::kPageSize);
}

u8 protToPerm(u64 prot) {
  u8 perm = 0;
  if (prot & PROT_READ) perm |= GuestMemory::kRead;
  if (prot & PROT_WRITE) perm |= GuestMemory::kRead | GuestMemory::kWrite;  // W implies R
  if (prot & PROT_EXEC) perm |= GuestMemory::kExec;
  return perm;
}

}  // namespace

std::string_view abi::syscallName(u64 number) {
  static constexpr std::pair<u32, std::string_view> kNames[] = {
      {kGetcwd, "getcwd"},
      {kDup, "dup"},
      {kDup3, "dup3"},
      {kFcntl, "fcntl"},
      {kIoctl, "ioctl"},
      {kMkdirat, "mkdirat"},
      {kUnlinkat, "unlinkat"},
      {kSymlinkat, "symlinkat"},
      {kLinkat, "linkat"},
      {kRenameat, "renameat"},
      {kStatfs, "statfs"},
      {kFstatfs, "fstatfs"},
      {kTruncate, "truncate"},
      {kFtruncate, "ftruncate"},
      {kFallocate, "fallocate"},
      {kFaccessat, "faccessat"},
      {kChdir, "chdir"},
      {kFchdir, "fchdir"},
      {kFchmod, "fchmod"},
      {kFchmodat, "fchmodat"},
      {kFchownat, "fchownat"},
      {kFchown, "fchown"},
      {kOpenat, "openat"},
      {kClose, "close"},
      {kPipe2, "pipe2"},
      {kGetdents64, "getdents64"},
      {kLseek, "lseek"},
      {kRead, "read"},
      {kWrite, "write"},
      {kReadv, "readv"},
      {kWritev, "writev"},
      {kPread64, "pread64"},
      {kPwrite64, "pwrite64"},
      {kPreadv, "preadv"},
      {kPwritev, "pwritev"},
      {kPpoll, "ppoll"},
      {kReadlinkat, "readlinkat"},
      {kNewfstatat, "newfstatat"},
      {kFstat, "fstat"},
      {kFsync, "fsync"},
      {kFdatasync, "fdatasync"},
      {kUtimensat, "utimensat"},
      {kExit, "exit"},
      {kExitGroup, "exit_group"},
      {kSetTidAddress, "set_tid_address"},
      {kFutex, "futex"},
      {kSetRobustList, "set_robust_list"},
      {kGetRobustList, "get_robust_list"},
      {kNanosleep, "nanosleep"},
      {kGetitimer, "getitimer"},
      {kSetitimer, "setitimer"},
      {kTimerCreate, "timer_create"},
      {kTimerGettime, "timer_gettime"},
      {kTimerGetoverrun, "timer_getoverrun"},
      {kTimerSettime, "timer_settime"},
      {kTimerDelete, "timer_delete"},
      {kClockGettime, "clock_gettime"},
      {kClockGetres, "clock_getres"},
      {kClockNanosleep, "clock_nanosleep"},
      {kSchedSetaffinity, "sched_setaffinity"},
      {kSchedGetaffinity, "sched_getaffinity"},
      {kSchedYield, "sched_yield"},
      {kKill, "kill"},
      {kTkill, "tkill"},
      {kTgkill, "tgkill"},
      {kSigaltstack, "sigaltstack"},
      {kRtSigsuspend, "rt_sigsuspend"},
      {kRtSigaction, "rt_sigaction"},
      {kRtSigprocmask, "rt_sigprocmask"},
      {kRtSigpending, "rt_sigpending"},
      {kRtSigtimedwait, "rt_sigtimedwait"},
      {kRtSigqueueinfo, "rt_sigqueueinfo"},
      {kRtSigreturn, "rt_sigreturn"},
      {kRtTgsigqueueinfo, "rt_tgsigqueueinfo"},
      {kTimes, "times"},
      {kSetpgid, "setpgid"},
      {kGetpgid, "getpgid"},
      {kGetsid, "getsid"},
      {kSetsid, "setsid"},
      {kUname, "uname"},
      {kGetrlimit, "getrlimit"},
      {kSetrlimit, "setrlimit"},
      {kGetrusage, "getrusage"},
      {kUmask, "umask"},
      {kPrctl, "prctl"},
      {kGetcpu, "getcpu"},
      {kGettimeofday, "gettimeofday"},
      {kGetpid, "getpid"},
      {kGetppid, "getppid"},
      {kGetuid, "getuid"},
      {kGeteuid, "geteuid"},
      {kGetgid, "getgid"},
      {kGetegid, "getegid"},
      {kGettid, "gettid"},
      {kSysinfo, "sysinfo"},
      {kBrk, "brk"},
      {kMunmap, "munmap"},
      {kMremap, "mremap"},
      {kClone, "clone"},
      {kExecve, "execve"},
      {kMmap, "mmap"},
      {kMprotect, "mprotect"},
      {kMsync, "msync"},
      {kMadvise, "madvise"},
      {kWait4, "wait4"},
      {kRiscvHwprobe, "riscv_hwprobe"},
      {kRiscvFlushIcache, "riscv_flush_icache"},
      {kPrlimit64, "prlimit64"},
      {kRenameat2, "renameat2"},
      {kGetrandom, "getrandom"},
      {kMembarrier, "membarrier"},
      {kStatx, "statx"},
      {kRseq, "rseq"},
      {kClone3, "clone3"},
      {kFaccessat2, "faccessat2"},
  };
  for (const auto& [n, name] : kNames) {
    if (n == number) return name;
  }
  return "unknown";
}

abi::SyscallCategory abi::syscallCategory(u64 number) {
  switch (number) {
    case kGetcwd:
    case kDup:
    case kDup3:
    case kFcntl:
    case kIoctl:
    case kMkdirat:
    case kUnlinkat:
    case kSymlinkat:
    case kLinkat:
    case kRenameat:
    case kStatfs:
    case kFstatfs:
    case kTruncate:
    case kFtruncate:
    case kFallocate:
    case kFaccessat:
    case kChdir:
    case kFchdir:
    case kFchmod:
    case kFchmodat:
    case kFchownat:
    case kFchown:
    case kOpenat:
    case kClose:
    case kPipe2:
    case kGetdents64:
    case kLseek:
    case kRead:
    case kWrite:
    case kReadv:
    case kWritev:
    case kPread64:
    case kPwrite64:
    case kPreadv:
    case kPwritev:
    case kPpoll:
    case kReadlinkat:
    case kNewfstatat:
    case kFstat:
    case kFsync:
    case kFdatasync:
    case kUtimensat:
    case kRenameat2:
    case kStatx:
    case kFaccessat2: return SyscallCategory::kFile;
    case kBrk:
    case kMunmap:
    case kMremap:
    case kMmap:
    case kMprotect:
    case kMsync:
    case kMadvise:
    case kRiscvFlushIcache:
    case kMembarrier: return SyscallCategory::kMemory;
    case kExit:
    case kExitGroup:
    case kSetTidAddress:
    case kFutex:
    case kSetRobustList:
    case kGetRobustList:
    case kSchedSetaffinity:
    case kSchedGetaffinity:
    case kSchedYield:
    case kClone:
    case kClone3:
    case kGettid:
    case kGetcpu:
    case kRseq: return SyscallCategory::kThread;
    case kKill:
    case kTkill:
    case kTgkill:
    case kSigaltstack:
    case kRtSigsuspend:
    case kRtSigaction:
    case kRtSigprocmask:
    case kRtSigpending:
    case kRtSigtimedwait:
    case kRtSigreturn: return SyscallCategory::kSignal;
    case kNanosleep:
    case kGetitimer:
    case kSetitimer:
    case kTimerCreate:
    case kTimerGettime:
    case kTimerGetoverrun:
    case kTimerSettime:
    case kTimerDelete:
    case kClockGettime:
    case kClockGetres:
    case kClockNanosleep:
    case kTimes:
    case kGettimeofday: return SyscallCategory::kTime;
    default: return SyscallCategory::kOther;
  }
}

i64 Kernel::dispatch(Thread& t, u64 number, const std::array<u64, 6>& a) {
  HartState& s = t.hart().state();
  const i64 fd = static_cast<i32>(a[0]);
  switch (number) {
    // ---- process and thread identity ----
    case abi::kExit: threadExit(t, static_cast<int>(a[0] & 0xff)); return kBlocked;
    case abi::kExitGroup:
      for (auto& th : threads_) th->exited = true;
      terminate(Termination{static_cast<int>(a[0] & 0xff), false, 0, {}, false});
      return kBlocked;
    case abi::kClone: return sysClone(t, a);
    case abi::kFutex: return sysFutex(t, a);
    case abi::kGetpid: return kPid;
    case abi::kGetppid: return 0;
    case abi::kGettid: return t.tid();
    case abi::kGetuid: return ::getuid();
    case abi::kGeteuid: return ::geteuid();
    case abi::kGetgid: return ::getgid();
    case abi::kGetegid: return ::getegid();
    case abi::kGetpgid:
    case abi::kGetsid: return kPid;
    case abi::kSetTidAddress: t.clear_child_tid = a[0]; return t.tid();
    case abi::kSetRobustList:
      if (!config_.params.robust_futex_lists) return -abi::kENOSYS;
      if (a[1] != 24) return -abi::kEINVAL;  // sizeof(struct robust_list_head)
      t.robust_list = a[0];
      t.robust_list_len = a[1];
      return 0;
    case abi::kRseq: return unknownSyscall(number);  // glibc falls back when it is missing
    case abi::kClone3: return -abi::kENOSYS;         // glibc falls back to clone
    case abi::kUmask: {
      const u32 old = umask_;
      umask_ = a[0] & 0777;
      return old;
    }
    case abi::kPrctl: return -abi::kEINVAL;
    case abi::kSchedYield:
      // Every system call ends the thread's slice anyway. A thread parked while it polled
      // (functional mode) is given the processor as Linux would give it a waiting thread: the
      // yielding thread may be waiting for it.
      if (!parked_.empty()) wakeParkedPolls();
      return 0;

    // ---- memory ----
    case abi::kBrk: return sysBrk(a[0]);
    case abi::kMmap: return sysMmap(a[0], a[1], a[2], a[3], static_cast<i32>(a[4]), a[5]);
    case abi::kMunmap: return sysMunmap(a[0], a[1]);
    case abi::kMprotect: return sysMprotect(a[0], a[1], a[2]);
    case abi::kMremap: return sysMremap(a[0], a[1], a[2], a[3], a[4]);
    case abi::kMadvise:
      if (a[0] & (GuestMemory::kPageSize - 1)) return -abi::kEINVAL;
      if (a[2] == MADV_DONTNEED) {
        // Private anonymous pages read back as zero after MADV_DONTNEED.
        const u64 len = pageLength(a[1]);
        if ((a[1] != 0 && len == 0) || a[0] + len < a[0]) return -abi::kEINVAL;  // wraps around
        if (len == 0) return 0;
        if (!memory_.inRange(a[0], len) || !vmas_.isFullyMapped(a[0], a[0] + len)) {
          return -abi::kENOMEM;
        }
        // One host call per run of pages with the same protection (map() zero-fills).
        for (u64 run = a[0]; run < a[0] + len;) {
          const u8 perm = memory_.pagePerm(run);
          u64 end = run + GuestMemory::kPageSize;
          while (end < a[0] + len && memory_.pagePerm(end) == perm) end += GuestMemory::kPageSize;
          if (!(perm & GuestMemory::kDevice)) memory_.map(run, end - run, perm);
          run = end;
        }
      }
      return 0;
    case abi::kMsync: return 0;
    case abi::kRiscvFlushIcache: code_.flush(); return 0;
    case abi::kMembarrier:
      return a[0] == 0 ? 0 : 0;  // one hart runs at a time: always ordered

    // ---- files ----
    case abi::kOpenat: return sysOpenat(static_cast<i32>(a[0]), a[1], a[2], a[3]);
    case abi::kClose: return fds_.close(static_cast<int>(fd)) ? 0 : -abi::kEBADF;
    case abi::kRead:
    case abi::kWrite:
    case abi::kReadv:
    case abi::kWritev:
    case abi::kPread64:
    case abi::kPwrite64:
    case abi::kPreadv:
    case abi::kPwritev: return sysReadWrite(t, number, a);
    case abi::kLseek: {
      FdEntry* e = fds_.get(static_cast<int>(fd));
      if (e == nullptr) return -abi::kEBADF;
      if (e->kind == FdKind::kRandom) return 0;
      return hostResult(::lseek(e->host_fd, static_cast<off_t>(a[1]), static_cast<int>(a[2])));
    }
    case abi::kNewfstatat: return sysStat(static_cast<i32>(a[0]), a[1], a[2], a[3]);
    case abi::kFstat: return sysFstat(fd, a[1]);
    case abi::kStatx: return sysStatx(static_cast<i32>(a[0]), a[1], a[2], a[3], a[4]);
    case abi::kIoctl: return sysIoctl(t, fd, a[1], a[2]);
    case abi::kFcntl: return sysFcntl(fd, a[1], a[2]);
    case abi::kDup: {
      auto copy = fds_.duplicate(static_cast<int>(fd));
      if (!copy) return -abi::kEBADF;
      return fds_.install(std::move(*copy));
    }
    case abi::kDup3: {
      const int newfd = static_cast<i32>(a[1]);
      if (newfd == fd) return -abi::kEINVAL;
      if (a[2] & ~static_cast<u64>(O_CLOEXEC)) return -abi::kEINVAL;
      if (newfd < 0 || newfd >= FdTable::kMaxFds) return -abi::kEBADF;
      auto copy = fds_.duplicate(static_cast<int>(fd));
      if (!copy) return -abi::kEBADF;
      copy->cloexec = (a[2] & O_CLOEXEC) != 0;
      fds_.installAt(newfd, std::move(*copy));
      return newfd;
    }
    case abi::kPipe2: {
      if (a[1] & ~static_cast<u64>(O_CLOEXEC | O_NONBLOCK | O_DIRECT)) return -abi::kEINVAL;
      int host[2];
      if (::pipe2(host, static_cast<int>(a[1] & (O_NONBLOCK | O_DIRECT)) | O_CLOEXEC) < 0) {
        return -static_cast<i64>(errno);
      }
      const bool cloexec = (a[1] & O_CLOEXEC) != 0;
      const int r = fds_.install(FdEntry{FdKind::kHost, host[0], cloexec, "", true});
      if (r < 0) {
        ::close(host[1]);
        return r;
      }
      const int w = fds_.install(FdEntry{FdKind::kHost, host[1], cloexec, "", true});
      if (w < 0) {
        fds_.close(r);
        return w;
      }
      const i32 pair[2] = {r, w};
      if (!memory_.write(a[0], pair, sizeof pair)) {
        fds_.close(r);
        fds_.close(w);
        return -abi::kEFAULT;
      }
      return 0;
    }
    case abi::kGetcwd: {
      const std::string& cwd = fs_->cwd();
      if (a[1] < cwd.size() + 1) return -abi::kERANGE;
      if (!memory_.write(a[0], cwd.c_str(), cwd.size() + 1)) return -abi::kEFAULT;
      return static_cast<i64>(cwd.size() + 1);
    }
    case abi::kChdir: {
      std::string path;
      if (i64 e = readPath(a[0], path)) return e;
      i64 error = 0;
      const std::string guest = guestPath(kGuestAtFdcwd, path, &error);
      if (error) return error;
      return fs_->chdir(guest);
    }
    case abi::kFchdir: {
      FdEntry* e = fds_.get(static_cast<int>(fd));
      if (e == nullptr) return -abi::kEBADF;
      if (e->guest_path.empty()) return -abi::kENOTDIR;
      return fs_->chdir(e->guest_path);
    }
    case abi::kReadlinkat: return sysReadlinkat(static_cast<i32>(a[0]), a[1], a[2], a[3]);
    case abi::kGetdents64: return sysGetdents(fd, a[1], a[2]);
    case abi::kPpoll: return sysPpoll(t, a);
    case abi::kMkdirat:
    case abi::kUnlinkat:
    case abi::kRenameat:
    case abi::kRenameat2:
    case abi::kFaccessat:
    case abi::kFaccessat2:
    case abi::kSymlinkat:
    case abi::kLinkat:
    case abi::kFchmodat:
    case abi::kUtimensat:
    case abi::kTruncate: return sysPathOp(number, a);
    case abi::kFtruncate: {
      FdEntry* e = fds_.get(static_cast<int>(fd));
      if (e == nullptr || e->host_fd < 0) return -abi::kEBADF;
      return hostResult(::ftruncate(e->host_fd, static_cast<off_t>(a[1])));
    }
    case abi::kFsync:
    case abi::kFdatasync: {
      FdEntry* e = fds_.get(static_cast<int>(fd));
      return e == nullptr ? -abi::kEBADF : 0;
    }
    case abi::kFchmod: {
      FdEntry* e = fds_.get(static_cast<int>(fd));
      if (e == nullptr || e->host_fd < 0) return -abi::kEBADF;
      return hostResult(::fchmod(e->host_fd, static_cast<mode_t>(a[1] & 07777)));
    }

    // ---- time ----
    case abi::kClockGettime: return sysClockGettime(t, a[0], a[1]);
    case abi::kClockGetres: {
      const Thread* cpu_owner = nullptr;
      if (a[0] > 11 && !cpuClock(a[0], t, &cpu_owner)) return -abi::kEINVAL;
      if (a[1] == 0) return 0;
      return writeTimespec(a[1], 1);  // one nanosecond: simulated clocks are exact
    }
    case abi::kGettimeofday: {
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
    case abi::kNanosleep:
    case abi::kClockNanosleep: return sysSleep(t, number, a);
    case abi::kSetitimer: {
      const i64 r = sysSetitimer(t, a);
      noteCpuTimers();
      return r;
    }
    case abi::kGetitimer: return sysGetitimer(t, a);
    case abi::kTimerCreate: return sysTimerCreate(t, a);
    case abi::kTimerSettime: {
      const i64 r = sysTimerSettime(t, a);
      noteCpuTimers();
      return r;
    }
    case abi::kTimerGettime: return sysTimerGettime(t, a);
    case abi::kTimerGetoverrun: {
      const u64 id = static_cast<u32>(a[0]);
      if (id >= posix_timers_.size() || !posix_timers_[id].in_use) return -abi::kEINVAL;
      return posix_timers_[id].overrun;
    }
    case abi::kTimerDelete: {
      const i64 r = sysTimerDelete(a);
      noteCpuTimers();
      return r;
    }
    case abi::kTimes: {
      const u64 ticks = nanosAt(elapsedCycles()) / 10'000'000;
      if (a[0] != 0) {
        const abi::Tms tms{static_cast<i64>(clockNanos(t, CLOCK_PROCESS_CPUTIME_ID) / 10'000'000),
                           0, 0, 0};
        if (!memory_.write(a[0], &tms, sizeof tms)) return -abi::kEFAULT;
      }
      return static_cast<i64>(ticks);
    }
    case abi::kGetrusage: {
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
        for (const auto& [start, vma] : vmas_.areas()) mapped += vma.end - vma.start;
        ru.fields[0] = static_cast<i64>(mapped / 1024);  // maxrss in KiB
      }
      if (!memory_.write(a[1], &ru, sizeof ru)) return -abi::kEFAULT;
      return 0;
    }

    // ---- system information ----
    case abi::kUname: {
      abi::Utsname u{};
      std::snprintf(u.sysname, sizeof u.sysname, "Linux");
      std::snprintf(u.nodename, sizeof u.nodename, "hpmsim-%s", config_.node_name.c_str());
      std::snprintf(u.release, sizeof u.release, "6.1.0-hpmsim");
      std::snprintf(u.version, sizeof u.version, "#1 SMP hpmsim compute-node kernel");
      std::snprintf(u.machine, sizeof u.machine, "riscv64");
      std::snprintf(u.domainname, sizeof u.domainname, "(none)");
      if (!memory_.write(a[0], &u, sizeof u)) return -abi::kEFAULT;
      return 0;
    }
    case abi::kSysinfo: {
      abi::Sysinfo info{};
      info.uptime = static_cast<i64>(nanosAt(s.cycle) / 1'000'000'000);
      u64 mapped = 0;
      for (const auto& [start, vma] : vmas_.areas()) mapped += vma.end - vma.start;
      info.totalram = config_.memory_bytes;
      info.freeram = config_.memory_bytes > mapped ? config_.memory_bytes - mapped : 0;
      info.procs = static_cast<u16>(std::count_if(threads_.begin(), threads_.end(),
                                                  [](const auto& th) { return !th->exited; }));
      info.mem_unit = 1;
      if (!memory_.write(a[0], &info, sizeof info)) return -abi::kEFAULT;
      return 0;
    }
    case abi::kPrlimit64:
    case abi::kGetrlimit:
    case abi::kSetrlimit: {
      const bool is_prlimit = number == abi::kPrlimit64;
      if (is_prlimit && a[0] != 0 && a[0] != kPid) return -abi::kESRCH;
      const u64 resource = is_prlimit ? a[1] : a[0];
      const u64 new_addr = is_prlimit ? a[2] : (number == abi::kSetrlimit ? a[1] : 0);
      const u64 old_addr = is_prlimit ? a[3] : (number == abi::kGetrlimit ? a[1] : 0);
      if (resource >= rlimits_.size()) return -abi::kEINVAL;
      abi::Rlimit old = rlimits_[resource];
      if (new_addr != 0) {
        abi::Rlimit next{};
        if (!memory_.read(new_addr, &next, sizeof next)) return -abi::kEFAULT;
        if (next.cur > next.max) return -abi::kEINVAL;
        rlimits_[resource] = next;
      }
      if (old_addr != 0 && !memory_.write(old_addr, &old, sizeof old)) return -abi::kEFAULT;
      return 0;
    }
    case abi::kGetrandom: {
      if (a[2] & ~u64{0x7}) return -abi::kEINVAL;  // GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE
      const u64 n = std::min<u64>(a[1], 33554431);
      std::vector<u8> bytes(n);
      fillRandom(bytes.data(), bytes.size());
      if (!memory_.write(a[0], bytes.data(), bytes.size())) return -abi::kEFAULT;
      return static_cast<i64>(n);
    }

    // ---- signals ----
    case abi::kRtSigaction: return sysSigaction(a);
    case abi::kRtSigprocmask: return sysSigprocmask(t, a);
    case abi::kSigaltstack: return sysSigaltstack(t, a);
    case abi::kRtSigreturn: return sysSigreturn(t);
    case abi::kRtSigsuspend: return sysSigsuspend(t, a);
    case abi::kRtSigtimedwait: return sysSigtimedwait(t, a);
    case abi::kRtSigpending: {
      if (a[1] != 8) return -abi::kEINVAL;
      u64 set = 0;
      for (const SigInfo& info : t.pending) set |= u64{1} << (info.signo - 1);
      for (const SigInfo& info : process_pending_) set |= u64{1} << (info.signo - 1);
      set &= t.blocked;
      return memory_.write(a[0], &set, 8) ? 0 : -abi::kEFAULT;
    }
    case abi::kKill:
    case abi::kTkill:
    case abi::kTgkill:
    case abi::kRtSigqueueinfo:
    case abi::kRtTgsigqueueinfo: return sysKill(t, number, a);
    case abi::kSchedGetaffinity:
    case abi::kSchedSetaffinity: {
      // The thread (0: the caller; the process id 1 is the main thread's id).
      Thread* target = &t;
      if (static_cast<i32>(a[0]) != 0) {
        target = nullptr;
        for (const auto& th : threads_) {
          if (th->tid() == static_cast<i32>(a[0]) && !th->exited) target = th.get();
        }
        if (target == nullptr) return -abi::kESRCH;
      }
      const u32 n = config_.hardwareThreads();
      if (number == abi::kSchedGetaffinity) {
        const u64 bytes = alignUp((n + 7) / 8, 8);
        if (a[1] < bytes || (a[1] & 7)) return -abi::kEINVAL;
        std::vector<u8> mask(bytes, 0);
        for (u32 i = 0; i < n; ++i) {
          if (allows(target->affinity, i)) mask[i / 8] |= static_cast<u8>(1u << (i % 8));
        }
        if (!memory_.write(a[2], mask.data(), mask.size())) return -abi::kEFAULT;
        return static_cast<i64>(bytes);
      }
      // The mask is kept (limited to the machine's hardware threads); the thread stays where it
      // is if the mask allows it, or moves to the least loaded hardware thread it allows.
      const u64 bytes = std::min<u64>(a[1], 1024);
      std::vector<u8> given(bytes);
      if (!memory_.read(a[2], given.data(), given.size())) return -abi::kEFAULT;
      std::vector<u8> mask((n + 7) / 8, 0);
      bool any = false;
      for (u32 cpu = 0; cpu < n && cpu / 8 < bytes; ++cpu) {
        if (given[cpu / 8] & (1u << (cpu % 8))) {
          mask[cpu / 8] |= static_cast<u8>(1u << (cpu % 8));
          any = true;
        }
      }
      if (!any) return -abi::kEINVAL;
      target->affinity = std::move(mask);
      if (!allows(target->affinity, target->slot)) {
        const u32 cpu = pickHardwareThread(target->affinity);
        unschedule(*target);
        if (cpu != target->slot) ++stats_.migrations;
        target->place(cpu);
        if (target->wait == WaitKind::kNone && !target->exited) schedule(*target);
      }
      return 0;
    }
    case abi::kGetcpu: {
      const u32 cpu = t.slot;
      const u32 node = 0;
      if (a[0] != 0 && !memory_.write(a[0], &cpu, 4)) return -abi::kEFAULT;
      if (a[1] != 0 && !memory_.write(a[1], &node, 4)) return -abi::kEFAULT;
      return 0;
    }

    default: return unknownSyscall(number);
  }
}

// ---------------------------------------------------------------------------------------------
// Memory management

i64 Kernel::sysBrk(u64 addr) {
  if (addr == 0 || addr < brk_start_ || addr > mmap_base_) return static_cast<i64>(brk_current_);
  const u64 old_end = alignUp(brk_current_, GuestMemory::kPageSize);
  const u64 new_end = alignUp(addr, GuestMemory::kPageSize);
  if (new_end > old_end) {
    if (new_end > mmap_base_ || !vmas_.isFree(old_end, new_end) ||
        !fitsNodeMemory(new_end - old_end, 0)) {
      return static_cast<i64>(brk_current_);  // Linux's failed brk: the break stays
    }
    mapRange(old_end, new_end - old_end, GuestMemory::kRead | GuestMemory::kWrite, "[heap]");
  } else if (new_end < old_end) {
    unmapRange(new_end, old_end - new_end);
  }
  brk_current_ = addr;
  return static_cast<i64>(brk_current_);
}

i64 Kernel::sysMmap(u64 addr, u64 length, u64 prot, u64 flags, i64 fd, u64 offset) {
  if (length == 0 || (offset & (GuestMemory::kPageSize - 1))) return -abi::kEINVAL;
  if (length > memory_.limit()) return -abi::kENOMEM;
  // Linux's vm.max_map_count: every mapping counts (device windows as much as memory).
  if (vmas_.count() >= kMaxMapCount) return -abi::kENOMEM;
  const u64 len = alignUp(length, GuestMemory::kPageSize);
  const u64 type = flags & MAP_TYPE;
  if (type != MAP_PRIVATE && type != MAP_SHARED && type != MAP_SHARED_VALIDATE) {
    return -abi::kEINVAL;
  }
  const bool anonymous = (flags & MAP_ANONYMOUS) != 0;
  FdEntry* file = nullptr;
  if (!anonymous) {
    FdEntry* dev = fds_.get(static_cast<int>(fd));
    if (dev != nullptr && dev->kind == FdKind::kDevice) {
      return mapDevice(*dev, addr, length, prot, flags, offset);
    }
    file = fds_.get(static_cast<int>(fd));
    if (file == nullptr || file->host_fd < 0) return -abi::kEBADF;
    struct stat st {};
    if (::fstat(file->host_fd, &st) < 0 || S_ISDIR(st.st_mode)) return -abi::kENODEV;
    // A writable shared file mapping would need write-back to the file: not supported.
    if (type != MAP_PRIVATE && (prot & PROT_WRITE)) return -abi::kEINVAL;
  }
  u64 where = 0;
  if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
    if (addr & (GuestMemory::kPageSize - 1)) return -abi::kEINVAL;
    if (!memory_.inRange(addr, len)) return -abi::kENOMEM;
    if ((flags & MAP_FIXED_NOREPLACE) && !(flags & MAP_FIXED) && !vmas_.isFree(addr, addr + len)) {
      return -abi::kEEXIST;
    }
    where = addr;
  } else {
    const u64 hint = alignDown(addr, GuestMemory::kPageSize);
    if (hint != 0 && hint >= brk_start_ && len <= mmap_base_ && hint <= mmap_base_ - len &&
        vmas_.isFree(hint, hint + len)) {
      where = hint;
    } else {
      auto found = vmas_.findFreeTopDown(
          len, alignUp(brk_current_, GuestMemory::kPageSize) + (u64{64} << 20), mmap_base_);
      if (!found) return -abi::kENOMEM;
      where = *found;
    }
  }
  const u8 perm = protToPerm(prot);
  if (!fitsNodeMemory(VmaMap::commits(perm) ? len : 0, vmas_.committedIn(where, where + len))) {
    return -abi::kENOMEM;  // (a MAP_FIXED request leaves what was there in place)
  }
  if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) unmapRange(where, len);
  mapRange(where, len, perm, file ? file->guest_path : std::string());
  if (file != nullptr) {
    // Private file mappings are copies: read the file's bytes in; past its end reads zero.
    u8* dst = memory_.hostUnchecked(where);
    u64 done = 0;
    while (done < length) {
      const ssize_t n =
          ::pread(file->host_fd, dst + done, length - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<u64>(n);
    }
  }
  if (perm & GuestMemory::kExec) code_.flush();
  return static_cast<i64>(where);
}

i64 Kernel::sysMunmap(u64 addr, u64 length) {
  if ((addr & (GuestMemory::kPageSize - 1)) || length == 0) return -abi::kEINVAL;
  const u64 len = pageLength(length);
  if (len == 0 || !memory_.inRange(addr, len)) return -abi::kEINVAL;
  unmapRange(addr, len);
  return 0;
}

i64 Kernel::sysMprotect(u64 addr, u64 length, u64 prot) {
  if (addr & (GuestMemory::kPageSize - 1)) return -abi::kEINVAL;
  if (prot & ~u64{PROT_READ | PROT_WRITE | PROT_EXEC | PROT_GROWSDOWN | PROT_GROWSUP}) {
    return -abi::kEINVAL;
  }
  if (length == 0) return 0;
  const u64 len = pageLength(length);
  if (len == 0 || !memory_.inRange(addr, len) || !vmas_.isFullyMapped(addr, addr + len)) {
    return -abi::kENOMEM;
  }
  const u8 perm = protToPerm(prot);
  bool has_device = false;
  for (u64 page = addr; page < addr + len && !has_device; page += GuestMemory::kPageSize) {
    has_device = (memory_.pagePerm(page) & GuestMemory::kDevice) != 0;
  }
  // A device window is never executable: mprotect refuses PROT_EXEC on it as mmap does, and
  // other protections leave it the device's (its loads and stores go to the device).
  if (has_device && (prot & PROT_EXEC)) return -abi::kEACCES;
  if (!fitsNodeMemory(VmaMap::commits(perm) ? len : 0, vmas_.committedIn(addr, addr + len))) {
    return -abi::kENOMEM;
  }
  bool touches_code = (perm & GuestMemory::kExec) != 0;
  for (u64 page = addr; page < addr + len && !touches_code; page += GuestMemory::kPageSize) {
    touches_code = (memory_.pagePerm(page) & GuestMemory::kExec) != 0;
  }
  if (has_device) {
    for (u64 page = addr; page < addr + len; page += GuestMemory::kPageSize) {
      if (!(memory_.pagePerm(page) & GuestMemory::kDevice)) {
        memory_.protect(page, GuestMemory::kPageSize, perm);
        vmas_.protect(page, page + GuestMemory::kPageSize, perm);
      }
    }
    if (touches_code) code_.flush();
    return 0;
  }
  memory_.protect(addr, len, perm);
  vmas_.protect(addr, addr + len, perm);
  if (touches_code) code_.flush();
  return 0;
}

i64 Kernel::sysMremap(u64 old_addr, u64 old_length, u64 new_length, u64 flags, u64 new_addr) {
  if ((old_addr & (GuestMemory::kPageSize - 1)) || new_length == 0) return -abi::kEINVAL;
  if (flags & ~u64{MREMAP_MAYMOVE | MREMAP_FIXED}) return -abi::kEINVAL;
  if ((flags & MREMAP_FIXED) && !(flags & MREMAP_MAYMOVE)) return -abi::kEINVAL;
  const u64 old_len = pageLength(old_length);
  const u64 new_len = pageLength(new_length);
  if (old_len == 0 || new_len == 0) return -abi::kEINVAL;
  if (!memory_.inRange(old_addr, old_len)) return -abi::kEFAULT;
  if (new_len > memory_.limit()) return -abi::kENOMEM;
  const Vma* vma = vmas_.find(old_addr);
  if (vma == nullptr || !vmas_.isFullyMapped(old_addr, old_addr + old_len)) return -abi::kEFAULT;
  const u8 perm = vma->perm;
  const std::string name = vma->name;
  // Growing commits the new part (a move releases the old range as it takes the new one).
  const u64 growth = VmaMap::commits(perm) && new_len > old_len ? new_len - old_len : 0;
  if (!(flags & MREMAP_FIXED)) {
    if (new_len <= old_len) {
      if (new_len < old_len) unmapRange(old_addr + new_len, old_len - new_len);
      return static_cast<i64>(old_addr);
    }
    const u64 growth_limit = stack_top_ - (u64{8} << 20);  // the stack's reserved 8 MiB below
    if (!fitsNodeMemory(growth, 0)) return -abi::kENOMEM;
    if (new_len <= growth_limit && old_addr <= growth_limit - new_len &&
        vmas_.isFree(old_addr + old_len, old_addr + new_len)) {
      mapRange(old_addr + old_len, new_len - old_len, perm, name);
      return static_cast<i64>(old_addr);
    }
    if (!(flags & MREMAP_MAYMOVE)) return -abi::kENOMEM;
    auto found = vmas_.findFreeTopDown(
        new_len, alignUp(brk_current_, GuestMemory::kPageSize) + (u64{64} << 20), mmap_base_);
    if (!found) return -abi::kENOMEM;
    new_addr = *found;
  } else {
    if (new_addr & (GuestMemory::kPageSize - 1)) return -abi::kEINVAL;
    if (!memory_.inRange(new_addr, new_len)) return -abi::kEINVAL;
    if (new_addr < old_addr + old_len && old_addr < new_addr + new_len) return -abi::kEINVAL;
    if (!fitsNodeMemory(growth, vmas_.committedIn(new_addr, new_addr + new_len))) {
      return -abi::kENOMEM;
    }
    unmapRange(new_addr, new_len);
  }
  const u64 moved = std::min(old_len, new_len);
  memory_.move(old_addr, new_addr, moved);
  vmas_.remove(old_addr, old_addr + old_len);
  if (old_len > moved) unmapRange(old_addr + moved, old_len - moved);
  vmas_.insert(new_addr, new_addr + moved, perm, name);
  if (new_len > moved) mapRange(new_addr + moved, new_len - moved, perm, name);
  if (perm & GuestMemory::kExec) code_.flush();
  return static_cast<i64>(new_addr);
}

}  // namespace hpm

namespace hpm {

i64 Kernel::mapDevice(const FdEntry& entry, u64 addr, u64 length, u64 prot, u64 flags, u64 offset) {
  // The whole register window, shared (all threads see the same registers), never executable.
  const u64 window = devices_->windowBytes(entry.device);
  const u64 len = alignUp(length, GuestMemory::kPageSize);
  if (offset != 0 || len > window) return -abi::kEINVAL;
  if ((flags & MAP_TYPE) != MAP_SHARED && (flags & MAP_TYPE) != MAP_SHARED_VALIDATE) {
    return -abi::kEINVAL;
  }
  if (prot & PROT_EXEC) return -abi::kEACCES;
  u64 where = 0;
  if (flags & MAP_FIXED) {
    if (addr & (GuestMemory::kPageSize - 1)) return -abi::kEINVAL;
    if (!memory_.inRange(addr, len)) return -abi::kENOMEM;
    where = addr;
    unmapRange(where, len);
  } else {
    auto found = vmas_.findFreeTopDown(
        len, alignUp(brk_current_, GuestMemory::kPageSize) + (u64{64} << 20), mmap_base_);
    if (!found) return -abi::kENOMEM;
    where = *found;
  }
  mapRange(where, len, GuestMemory::kDevice, entry.guest_path);
  device_windows_.emplace(where, DeviceWindow{where, len, entry.device});
  return static_cast<i64>(where);
}

}  // namespace hpm
