// A storm of system calls with random numbers and arguments: the kernel must answer every one
// (a result or an error), never crash, hang or report an internal error. Run under hpmsim only
// (never under qemu-user: its system calls reach the host), with a scratch directory as the
// guest's root, since the calls create, rename and remove files there.
//
//   syscall_storm [SEED [CALLS [trace]]]        (defaults 1 and 20000)
//
// `trace` prints a line per call: its number, first arguments, result and a digest of the
// scratch area. The calls that report host metadata (fstat of standard input, stat of files in
// the root, directory entries: docs/kernel.md, "Deviations from Linux") give results that
// differ between runs there; the scratch area is refilled after each of them, so the calls
// after them, and the summary line, are the same on every run.
//
// Arguments are drawn from values that stress argument checking: small integers, -1, huge
// values, null, pointers into a scratch area (valid memory, filled with random bytes and a few
// path names), pointers just below the end of the scratch area, and unmapped addresses. The
// program's own memory is never handed to the kernel, so nothing the kernel writes can change
// the program. Left out are the calls that would legitimately end or stop this process (exit,
// execve, signals sent to itself, handlers installed on its faults and timer signals, blocking
// waits with no waker: the kernel would correctly report a deadlock) or change its own memory
// under it (MAP_FIXED, robust futex lists, the tid address); the calls that change the memory
// map get addresses outside it.
// Prints the number of calls made and how many failed, per the kernel's answers; exit status 0.
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"

enum { kScratchSize = 1 << 16, kMaxSyscall = 460 };

static unsigned char scratch[kScratchSize] __attribute__((aligned(4096)));

static int excluded(long nr) {
  switch (nr) {
    case 93:   // exit
    case 94:   // exit_group
    case 220:  // clone
    case 435:  // clone3
    case 221:  // execve
    case 281:  // execveat
    case 139:  // rt_sigreturn: a frame of random bytes
    case 129:  // kill
    case 130:  // tkill
    case 131:  // tgkill
    case 138:  // rt_sigqueueinfo
    case 240:  // rt_tgsigqueueinfo
    case 424:  // pidfd_send_signal
    case 134:  // rt_sigaction: a random handler for a signal that then arrives
    case 103:  // setitimer: SIGALRM's default action ends the process
    case 107:  // timer_create
    case 110:  // timer_settime
    case 96:   // set_tid_address: the kernel writes there at exit
    case 99:   // set_robust_list: the kernel walks (and writes) the list at exit
    case 98:   // futex: a wait nobody wakes
    case 449:  // futex_waitv
    case 72:   // pselect6: blocks with a null timeout
    case 73:   // ppoll
    case 22:   // epoll_pwait
    case 441:  // epoll_pwait2
    case 133:  // rt_sigsuspend
    case 137:  // rt_sigtimedwait
    case 59:   // pipe2: a read of an empty pipe with a writer blocks forever
    case 19:   // eventfd2: likewise a read of a zero counter
    case 85:   // timerfd_create: likewise a read of an unarmed timer
    case 74:   // signalfd4
    case 26:   // inotify_init1
    case 282:  // userfaultfd
    case 436:  // close_range: would close the saved standard output
    case 270:  // process_vm_readv
    case 271:  // process_vm_writev: this process's memory at random addresses
      return 1;
    default: return 0;
  }
}

// An address above this program's memory (and above hpmsim's 256 GiB guest address space, so
// that no length reaches back into the program): the memory-map calls (munmap, mremap,
// mprotect, madvise, brk) get only these, page aligned or not, up to the end of the 64-bit
// space, where a kernel's range arithmetic can wrap around.
static uint64_t wild_address(Rng* r) {
  switch (rng_below(r, 6)) {
    case 0: return (uint64_t)1 << 38;  // the first page past the guest's 256 GiB
    case 1: return (uint64_t)-4096 * (1 + rng_below(r, 4));
    case 2: return 0xdead0000000ull + 4096 * rng_below(r, 512);
    case 3: return (rng_next(r) | (1ull << 63)) & ~4095ull;
    case 4: return (uint64_t)1 << (38 + rng_below(r, 26));
    default: return rng_next(r) | (1ull << 62);
  }
}

// Calls whose results (written to memory) carry the host's file metadata.
static int reports_host_metadata(long nr) {
  return nr == 43 || nr == 44 || nr == 61 || nr == 79 || nr == 80 || nr == 291;
}

static uint64_t argument(Rng* r) {
  switch (rng_below(r, 10)) {
    case 0:
    case 1: return rng_below(r, 64);  // small integers: descriptors, flags, sizes
    case 2: return (uint64_t)-1;
    case 3: return rng_next(r);  // anything
    case 4: return 0;
    case 5:
    case 6: return (uint64_t)(uintptr_t)(scratch + rng_below(r, kScratchSize));
    case 7: return (uint64_t)(uintptr_t)(scratch + kScratchSize - 1 - rng_below(r, 16));
    case 8: return (uint64_t)(uintptr_t)(scratch + 4096 * rng_below(r, 4));  // a path name
    default: return 0xdead0000000ull + 8 * rng_below(r, 512);                // unmapped
  }
}

// The time a nanosleep or clock_nanosleep gets: a valid or invalid time of at most a second,
// null or an unmapped address. (A valid time of centuries, which random bytes can make, would
// sleep for good, and the run would end as deadlocked, correctly.)
static uint64_t sleep_time(Rng* r) {
  static int64_t ts[2];
  static const int64_t nsecs[] = {0, 1, 999999999, 1000000000, -1};
  switch (rng_below(r, 4)) {
    case 0: return 0;
    case 1: return 0xdead0000000ull;
    default:
      ts[0] = (int64_t)rng_below(r, 2) - (rng_below(r, 8) == 0);  // -1, 0 or 1 seconds
      ts[1] = nsecs[rng_below(r, 5)];
      return (uint64_t)(uintptr_t)ts;
  }
}

static void refill_scratch(Rng* r) {
  for (size_t i = 0; i < kScratchSize; i += 8) {
    const uint64_t v = rng_next(r);
    memcpy(scratch + i, &v, 8);
  }
  // A few path names at the page starts (argument case 8).
  static const char* const names[] = {"storm_a", "storm_dir", "/", "../storm_b"};
  for (int i = 0; i < 4; ++i) strcpy((char*)scratch + 4096 * i, names[i]);
}

int main(int argc, char** argv) {
  const uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
  const long calls = argc > 2 ? strtol(argv[2], NULL, 0) : 20000;
  const int trace = argc > 3;  // a third argument: a line per call (result and scratch digest)
  Rng rng = {seed * 0x9E3779B97F4A7C15ull + 1};
  // The report goes to a copy of standard output; the storm's own writes to descriptors 1 and
  // 2 go to /dev/null.
  const int out = fcntl(1, F_DUPFD, 100);
  CHECK(out >= 100);
  const int null_fd = open("/dev/null", O_RDWR);
  CHECK(null_fd >= 0);
  CHECK(dup2(null_fd, 1) == 1 && dup2(null_fd, 2) == 2);
  long failed = 0;
  for (long i = 0; i < calls; ++i) {
    if (i % 256 == 0) refill_scratch(&rng);
    long nr;
    do {
      nr = (long)rng_below(&rng, kMaxSyscall);
    } while (excluded(nr));
    uint64_t a[6];
    for (int k = 0; k < 6; ++k) a[k] = argument(&rng);
    if (nr == 222) a[3] &= ~(uint64_t)(0x10 | 0x100000);  // mmap: no MAP_FIXED(_NOREPLACE)
    if (nr == 214 || nr == 215 || nr == 216 || nr == 226 || nr == 233) a[0] = wild_address(&rng);
    if (nr == 216) a[4] = wild_address(&rng);  // mremap's new address (MREMAP_FIXED)
    if (nr == 25 && a[1] == 0) a[2] &= 63;     // fcntl F_DUPFD: never onto the saved output
    if (nr == 23 || nr == 24) a[1] &= 63;      // dup, dup3: likewise
    if (nr == 101) a[0] = sleep_time(&rng);    // nanosleep
    if (nr == 115) a[2] = sleep_time(&rng);    // clock_nanosleep
    if (nr == 47) a[3] &= 0xffff;              // fallocate: real blocks on the host's disk
    if (nr == 261 && a[1] <= 1) a[1] = 7;      // prlimit64: not RLIMIT_CPU or RLIMIT_FSIZE
    if (trace) dprintf(out, "%ld nr %ld ...\n", i, nr);  // shows a call that never returns
    const long result = syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
    if (result == -1) ++failed;
    // What the host decides (inode numbers, times, directory order: docs/kernel.md) must not
    // steer later calls through the scratch area, so that the summary is the same on every run.
    if (reports_host_metadata(nr)) refill_scratch(&rng);
    if (trace) {
      dprintf(out, "%ld nr %ld (%llx %llx %llx) -> %ld errno %d scratch %016llx\n", i, nr,
              (unsigned long long)a[0], (unsigned long long)a[1], (unsigned long long)a[2], result,
              result == -1 ? errno : 0, (unsigned long long)fnv1a(scratch, kScratchSize));
    }
    if (i == 0) CHECK(errno == errno);  // errno is readable: the calls did not break the TLS
  }
  dprintf(out, "syscall_storm seed %llu: %ld calls, %ld failed\n", (unsigned long long)seed, calls,
          failed);
  return 0;
}
