// The Linux riscv64 user ABI as the guest sees it: system call numbers (asm-generic), and the
// layouts of the structures our kernel writes. Facts from the Linux UAPI headers.
#pragma once

#include <span>
#include <string_view>

#include "base/types.h"
#include "kernel/syscall_table.h"

namespace hpm::abi {

// System call numbers (include/uapi/asm-generic/unistd.h), from kernel/syscall_table.h.
enum Syscall : u32 {
#define HPM_SYSCALL_ENUMERATOR(id, number, name, category, handler) id = number,
  HPM_SYSCALL_TABLE(HPM_SYSCALL_ENUMERATOR)
#undef HPM_SYSCALL_ENUMERATOR
};

enum class SyscallCategory : u8 { kFile, kMemory, kThread, kSignal, kTime, kOther };
// The kind of a system call, as the CNK unit counts them (kOther for a number with no row).
SyscallCategory syscallCategory(u64 number);

// A row of kernel/syscall_table.h without its handler (for tests and tools).
struct SyscallRow {
  u32 number;
  std::string_view name;
  SyscallCategory category;
};
std::span<const SyscallRow> syscallRows();
// One more than the largest number of a row: the size of the tables indexed by number.
inline constexpr u32 kSyscallLimit = [] {
  u32 limit = 0;
#define HPM_SYSCALL_LIMIT(id, number, name, category, handler) \
  limit = number + 1 > limit ? number + 1 : limit;
  HPM_SYSCALL_TABLE(HPM_SYSCALL_LIMIT)
#undef HPM_SYSCALL_LIMIT
  return limit;
}();

// Name of a system call for statistics and messages ("unknown" for a number with no row).
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
