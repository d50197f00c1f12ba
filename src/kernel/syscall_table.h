// The system calls the kernel knows, one row each: from these rows alone come the numbers
// (abi::Syscall), the names (abi::syscallName), the kinds the CNK unit counts
// (abi::syscallCategory) and Kernel's dispatch table (kernel/syscalls.cpp).
//
// A row is X(id, number, name, category, handler):
//   id        the enumerator of abi::Syscall (kGetcwd)
//   number    the riscv64 number (include/uapi/asm-generic/unistd.h)
//   name      the call's name in statistics and messages (a token: it is stringised)
//   category  its abi::SyscallCategory without the scope (kFile, kMemory, kThread, kSignal,
//             kTime or kOther): required, so a row that forgets it does not compile (the macro
//             takes exactly five arguments)
//   handler   the Kernel member that emulates it, i64 (Thread&, u64 number, const SyscallArgs&);
//             sysUnsupported answers a known call we do not emulate as an unknown one (ENOSYS,
//             counted in unknown_syscalls)
// Rows are in number order.
//
// Adding a call: one row here, and its handler (declared in kernel.h, defined beside its kind).
#pragma once

// clang-format off
#define HPM_SYSCALL_TABLE(X) \
  X(kGetcwd, 17, getcwd, kFile, sysGetcwd)                               \
  X(kDup, 23, dup, kFile, sysDup)                                        \
  X(kDup3, 24, dup3, kFile, sysDup3)                                     \
  X(kFcntl, 25, fcntl, kFile, sysFcntl)                                  \
  X(kIoctl, 29, ioctl, kFile, sysIoctl)                                  \
  X(kMkdirat, 34, mkdirat, kFile, sysPathOp)                             \
  X(kUnlinkat, 35, unlinkat, kFile, sysPathOp)                           \
  X(kSymlinkat, 36, symlinkat, kFile, sysPathOp)                         \
  X(kLinkat, 37, linkat, kFile, sysPathOp)                               \
  X(kRenameat, 38, renameat, kFile, sysPathOp)                           \
  X(kStatfs, 43, statfs, kFile, sysUnsupported)                          \
  X(kFstatfs, 44, fstatfs, kFile, sysUnsupported)                        \
  X(kTruncate, 45, truncate, kFile, sysPathOp)                           \
  X(kFtruncate, 46, ftruncate, kFile, sysFtruncate)                      \
  X(kFallocate, 47, fallocate, kFile, sysUnsupported)                    \
  X(kFaccessat, 48, faccessat, kFile, sysPathOp)                         \
  X(kChdir, 49, chdir, kFile, sysChdir)                                  \
  X(kFchdir, 50, fchdir, kFile, sysFchdir)                               \
  X(kFchmod, 52, fchmod, kFile, sysFchmod)                               \
  X(kFchmodat, 53, fchmodat, kFile, sysPathOp)                           \
  X(kFchownat, 54, fchownat, kFile, sysUnsupported)                      \
  X(kFchown, 55, fchown, kFile, sysUnsupported)                          \
  X(kOpenat, 56, openat, kFile, sysOpenat)                               \
  X(kClose, 57, close, kFile, sysClose)                                  \
  X(kPipe2, 59, pipe2, kFile, sysPipe2)                                  \
  X(kGetdents64, 61, getdents64, kFile, sysGetdents)                     \
  X(kLseek, 62, lseek, kFile, sysLseek)                                  \
  X(kRead, 63, read, kFile, sysReadWrite)                                \
  X(kWrite, 64, write, kFile, sysReadWrite)                              \
  X(kReadv, 65, readv, kFile, sysReadWrite)                              \
  X(kWritev, 66, writev, kFile, sysReadWrite)                            \
  X(kPread64, 67, pread64, kFile, sysReadWrite)                          \
  X(kPwrite64, 68, pwrite64, kFile, sysReadWrite)                        \
  X(kPreadv, 69, preadv, kFile, sysReadWrite)                            \
  X(kPwritev, 70, pwritev, kFile, sysReadWrite)                          \
  X(kPpoll, 73, ppoll, kFile, sysPpoll)                                  \
  X(kReadlinkat, 78, readlinkat, kFile, sysReadlinkat)                   \
  X(kNewfstatat, 79, newfstatat, kFile, sysStat)                         \
  X(kFstat, 80, fstat, kFile, sysFstat)                                  \
  X(kFsync, 82, fsync, kFile, sysFsync)                                  \
  X(kFdatasync, 83, fdatasync, kFile, sysFsync)                          \
  X(kUtimensat, 88, utimensat, kFile, sysPathOp)                         \
  X(kExit, 93, exit, kThread, sysExit)                                   \
  X(kExitGroup, 94, exit_group, kThread, sysExitGroup)                   \
  X(kSetTidAddress, 96, set_tid_address, kThread, sysSetTidAddress)      \
  X(kFutex, 98, futex, kThread, sysFutex)                                \
  X(kSetRobustList, 99, set_robust_list, kThread, sysSetRobustList)      \
  X(kGetRobustList, 100, get_robust_list, kThread, sysUnsupported)       \
  X(kNanosleep, 101, nanosleep, kTime, sysSleep)                         \
  X(kGetitimer, 102, getitimer, kTime, sysGetitimer)                     \
  X(kSetitimer, 103, setitimer, kTime, sysSetitimer)                     \
  X(kTimerCreate, 107, timer_create, kTime, sysTimerCreate)              \
  X(kTimerGettime, 108, timer_gettime, kTime, sysTimerGettime)           \
  X(kTimerGetoverrun, 109, timer_getoverrun, kTime, sysTimerGetoverrun)  \
  X(kTimerSettime, 110, timer_settime, kTime, sysTimerSettime)           \
  X(kTimerDelete, 111, timer_delete, kTime, sysTimerDelete)              \
  X(kClockGettime, 113, clock_gettime, kTime, sysClockGettime)           \
  X(kClockGetres, 114, clock_getres, kTime, sysClockGetres)              \
  X(kClockNanosleep, 115, clock_nanosleep, kTime, sysSleep)              \
  X(kSchedSetaffinity, 122, sched_setaffinity, kThread, sysAffinity)     \
  X(kSchedGetaffinity, 123, sched_getaffinity, kThread, sysAffinity)     \
  X(kSchedYield, 124, sched_yield, kThread, sysSchedYield)               \
  X(kKill, 129, kill, kSignal, sysKill)                                  \
  X(kTkill, 130, tkill, kSignal, sysKill)                                \
  X(kTgkill, 131, tgkill, kSignal, sysKill)                              \
  X(kSigaltstack, 132, sigaltstack, kSignal, sysSigaltstack)             \
  X(kRtSigsuspend, 133, rt_sigsuspend, kSignal, sysSigsuspend)           \
  X(kRtSigaction, 134, rt_sigaction, kSignal, sysSigaction)              \
  X(kRtSigprocmask, 135, rt_sigprocmask, kSignal, sysSigprocmask)        \
  X(kRtSigpending, 136, rt_sigpending, kSignal, sysSigpending)           \
  X(kRtSigtimedwait, 137, rt_sigtimedwait, kSignal, sysSigtimedwait)     \
  X(kRtSigqueueinfo, 138, rt_sigqueueinfo, kSignal, sysKill)             \
  X(kRtSigreturn, 139, rt_sigreturn, kSignal, sysSigreturn)              \
  X(kTimes, 153, times, kTime, sysTimes)                                 \
  X(kSetpgid, 154, setpgid, kOther, sysUnsupported)                      \
  X(kGetpgid, 155, getpgid, kOther, sysGetpid)                           \
  X(kGetsid, 156, getsid, kOther, sysGetpid)                             \
  X(kSetsid, 157, setsid, kOther, sysUnsupported)                        \
  X(kUname, 160, uname, kOther, sysUname)                                \
  X(kGetrlimit, 163, getrlimit, kOther, sysRlimit)                       \
  X(kSetrlimit, 164, setrlimit, kOther, sysRlimit)                       \
  X(kGetrusage, 165, getrusage, kOther, sysGetrusage)                    \
  X(kUmask, 166, umask, kOther, sysUmask)                                \
  X(kPrctl, 167, prctl, kOther, sysPrctl)                                \
  X(kGetcpu, 168, getcpu, kThread, sysGetcpu)                            \
  X(kGettimeofday, 169, gettimeofday, kTime, sysGettimeofday)            \
  X(kGetpid, 172, getpid, kOther, sysGetpid)                             \
  X(kGetppid, 173, getppid, kOther, sysGetppid)                          \
  X(kGetuid, 174, getuid, kOther, sysGetuid)                             \
  X(kGeteuid, 175, geteuid, kOther, sysGeteuid)                          \
  X(kGetgid, 176, getgid, kOther, sysGetgid)                             \
  X(kGetegid, 177, getegid, kOther, sysGetegid)                          \
  X(kGettid, 178, gettid, kThread, sysGettid)                            \
  X(kSysinfo, 179, sysinfo, kOther, sysSysinfo)                          \
  X(kBrk, 214, brk, kMemory, sysBrk)                                     \
  X(kMunmap, 215, munmap, kMemory, sysMunmap)                            \
  X(kMremap, 216, mremap, kMemory, sysMremap)                            \
  X(kClone, 220, clone, kThread, sysClone)                               \
  X(kExecve, 221, execve, kOther, sysUnsupported)                        \
  X(kMmap, 222, mmap, kMemory, sysMmap)                                  \
  X(kMprotect, 226, mprotect, kMemory, sysMprotect)                      \
  X(kMsync, 227, msync, kMemory, sysMsync)                               \
  X(kMadvise, 233, madvise, kMemory, sysMadvise)                         \
  X(kRtTgsigqueueinfo, 240, rt_tgsigqueueinfo, kSignal, sysKill)         \
  X(kRiscvHwprobe, 258, riscv_hwprobe, kOther, sysUnsupported)           \
  X(kRiscvFlushIcache, 259, riscv_flush_icache, kMemory, sysFlushIcache) \
  X(kWait4, 260, wait4, kOther, sysUnsupported)                          \
  X(kPrlimit64, 261, prlimit64, kOther, sysRlimit)                       \
  X(kRenameat2, 276, renameat2, kFile, sysPathOp)                        \
  X(kGetrandom, 278, getrandom, kOther, sysGetrandom)                    \
  X(kMembarrier, 283, membarrier, kMemory, sysMembarrier)                \
  X(kStatx, 291, statx, kFile, sysStatx)                                 \
  X(kRseq, 293, rseq, kThread, sysUnsupported)                           \
  X(kClone3, 435, clone3, kThread, sysClone3)                            \
  X(kFaccessat2, 439, faccessat2, kFile, sysPathOp)
// clang-format on
