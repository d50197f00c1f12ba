// The Linux riscv64 user ABI as the guest sees it: system call numbers (asm-generic), and the
// layouts of the structures our kernel writes. Facts from the Linux UAPI headers.
#pragma once

#include <string_view>

#include "base/types.h"

namespace hpm::abi {

// System call numbers (include/uapi/asm-generic/unistd.h).
enum Syscall : u32 {
  kGetcwd = 17,
  kDup = 23,
  kDup3 = 24,
  kFcntl = 25,
  kIoctl = 29,
  kMkdirat = 34,
  kUnlinkat = 35,
  kSymlinkat = 36,
  kLinkat = 37,
  kRenameat = 38,
  kStatfs = 43,
  kFstatfs = 44,
  kTruncate = 45,
  kFtruncate = 46,
  kFallocate = 47,
  kFaccessat = 48,
  kChdir = 49,
  kFchdir = 50,
  kFchmod = 52,
  kFchmodat = 53,
  kFchownat = 54,
  kFchown = 55,
  kOpenat = 56,
  kClose = 57,
  kPipe2 = 59,
  kGetdents64 = 61,
  kLseek = 62,
  kRead = 63,
  kWrite = 64,
  kReadv = 65,
  kWritev = 66,
  kPread64 = 67,
  kPwrite64 = 68,
  kPreadv = 69,
  kPwritev = 70,
  kPpoll = 73,
  kReadlinkat = 78,
  kNewfstatat = 79,
  kFstat = 80,
  kFsync = 82,
  kFdatasync = 83,
  kUtimensat = 88,
  kExit = 93,
  kExitGroup = 94,
  kSetTidAddress = 96,
  kFutex = 98,
  kSetRobustList = 99,
  kGetRobustList = 100,
  kNanosleep = 101,
  kGetitimer = 102,
  kSetitimer = 103,
  kTimerCreate = 107,
  kTimerGettime = 108,
  kTimerGetoverrun = 109,
  kTimerSettime = 110,
  kTimerDelete = 111,
  kClockGettime = 113,
  kClockGetres = 114,
  kClockNanosleep = 115,
  kSchedSetaffinity = 122,
  kSchedGetaffinity = 123,
  kSchedYield = 124,
  kKill = 129,
  kTkill = 130,
  kTgkill = 131,
  kSigaltstack = 132,
  kRtSigsuspend = 133,
  kRtSigaction = 134,
  kRtSigprocmask = 135,
  kRtSigpending = 136,
  kRtSigtimedwait = 137,
  kRtSigqueueinfo = 138,
  kRtSigreturn = 139,
  kTimes = 153,
  kSetpgid = 154,
  kGetpgid = 155,
  kGetsid = 156,
  kSetsid = 157,
  kUname = 160,
  kGetrlimit = 163,
  kSetrlimit = 164,
  kGetrusage = 165,
  kUmask = 166,
  kPrctl = 167,
  kGetcpu = 168,
  kGettimeofday = 169,
  kGetpid = 172,
  kGetppid = 173,
  kGetuid = 174,
  kGeteuid = 175,
  kGetgid = 176,
  kGetegid = 177,
  kGettid = 178,
  kSysinfo = 179,
  kBrk = 214,
  kMunmap = 215,
  kMremap = 216,
  kClone = 220,
  kExecve = 221,
  kMmap = 222,
  kMprotect = 226,
  kMsync = 227,
  kMadvise = 233,
  kRtTgsigqueueinfo = 240,
  kWait4 = 260,
  kRiscvHwprobe = 258,
  kRiscvFlushIcache = 259,
  kPrlimit64 = 261,
  kRenameat2 = 276,
  kGetrandom = 278,
  kMembarrier = 283,
  kStatx = 291,
  kRseq = 293,
  kClone3 = 435,
  kFaccessat2 = 439,
};

enum class SyscallCategory : u8 { kFile, kMemory, kThread, kSignal, kTime, kOther };
// The kind of a system call, as the CNK unit counts them.
SyscallCategory syscallCategory(u64 number);

// Name of a system call for statistics and messages ("syscall_<n>" when unknown).
std::string_view syscallName(u64 number);

// errno values (asm-generic/errno-base.h, errno.h).
enum Errno : i64 {
  kEPERM = 1,
  kENOENT = 2,
  kESRCH = 3,
  kEINTR = 4,
  kEIO = 5,
  kEBADF = 9,
  kECHILD = 10,
  kEAGAIN = 11,
  kENOMEM = 12,
  kEACCES = 13,
  kEFAULT = 14,
  kEEXIST = 17,
  kENODEV = 19,
  kENOTDIR = 20,
  kEISDIR = 21,
  kEINVAL = 22,
  kEMFILE = 24,
  kENOTTY = 25,
  kESPIPE = 29,
  kERANGE = 34,
  kENAMETOOLONG = 36,
  kENOSYS = 38,
  kENOTEMPTY = 39,
  kELOOP = 40,
  kETIMEDOUT = 110,
  kERESTARTSYS = 512,  // kernel-internal: restart or EINTR depending on SA_RESTART
};

// struct stat of asm-generic (riscv64), 128 bytes.
struct Stat {
  u64 dev;
  u64 ino;
  u32 mode;
  u32 nlink;
  u32 uid;
  u32 gid;
  u64 rdev;
  u64 pad1;
  i64 size;
  i32 blksize;
  i32 pad2;
  i64 blocks;
  i64 atime_sec;
  u64 atime_nsec;
  i64 mtime_sec;
  u64 mtime_nsec;
  i64 ctime_sec;
  u64 ctime_nsec;
  u32 unused4;
  u32 unused5;
};
static_assert(sizeof(Stat) == 128);

struct Timespec {
  i64 sec;
  i64 nsec;
};
struct Timeval {
  i64 sec;
  i64 usec;
};

struct Rusage {
  Timeval utime;
  Timeval stime;
  i64 fields[14];  // maxrss, ixrss, idrss, isrss, minflt, majflt, nswap, inblock, oublock,
                   // msgsnd, msgrcv, nsignals, nvcsw, nivcsw
};
static_assert(sizeof(Rusage) == 144);

struct Tms {
  i64 utime, stime, cutime, cstime;
};

struct Utsname {
  char sysname[65];
  char nodename[65];
  char release[65];
  char version[65];
  char machine[65];
  char domainname[65];
};

struct Sysinfo {
  i64 uptime;
  u64 loads[3];
  u64 totalram;
  u64 freeram;
  u64 sharedram;
  u64 bufferram;
  u64 totalswap;
  u64 freeswap;
  u16 procs;
  u16 pad;
  u32 pad2;
  u64 totalhigh;
  u64 freehigh;
  u32 mem_unit;
  u32 pad3;
};
static_assert(sizeof(Sysinfo) == 112);

struct Rlimit {
  u64 cur;
  u64 max;
};

struct Iovec {
  u64 base;
  u64 len;
};

// Auxiliary vector tags.
enum Auxv : u64 {
  kAtNull = 0,
  kAtPhdr = 3,
  kAtPhent = 4,
  kAtPhnum = 5,
  kAtPagesz = 6,
  kAtBase = 7,
  kAtFlags = 8,
  kAtEntry = 9,
  kAtUid = 11,
  kAtEuid = 12,
  kAtGid = 13,
  kAtEgid = 14,
  kAtPlatform = 15,
  kAtHwcap = 16,
  kAtClktck = 17,
  kAtSecure = 23,
  kAtRandom = 25,
  kAtExecfn = 31,
};

}  // namespace hpm::abi
