// System queries that must succeed but whose values depend on the host or on time, so only
// success and invariants are printed: getrandom (blocking and GRND_NONBLOCK, buffer filled),
// uname (sysname "Linux", machine "riscv64"), sysinfo (nonzero total RAM, mem_unit >= 1),
// clock_gettime/clock_getres on several clocks (monotonic never goes back; nanoseconds below
// 1e9), gettimeofday, time, times, getrusage, nanosleep of a millisecond (time advances),
// getpid/getppid/gettid/getuid/getgid (consistent with each other), getcwd, and sched_yield.
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

static int ts_le(struct timespec a, struct timespec b) {
  return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec <= b.tv_nsec);
}

int main(void) {
  unsigned char buf[64];
  memset(buf, 0, sizeof buf);
  CHECK(getrandom(buf, sizeof buf, 0) == (ssize_t)sizeof buf);
  int nonzero = 0;
  for (size_t i = 0; i < sizeof buf; ++i) nonzero |= buf[i];
  CHECK(nonzero != 0);  // 64 zero bytes from a random source: probability 2^-512
  CHECK(getrandom(buf, 16, GRND_NONBLOCK) == 16);
  printf("getrandom ok\n");

  struct utsname u;
  CHECK(uname(&u) == 0);
  printf("uname ok: sysname=%s machine=%s\n", u.sysname, u.machine);

  struct sysinfo si;
  CHECK(sysinfo(&si) == 0);
  CHECK(si.totalram > 0 && si.mem_unit >= 1 && si.procs >= 1);
  printf("sysinfo ok\n");

  static const clockid_t clocks[] = {
      CLOCK_REALTIME,      CLOCK_MONOTONIC,       CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID,
      CLOCK_MONOTONIC_RAW, CLOCK_REALTIME_COARSE, CLOCK_MONOTONIC_COARSE,   CLOCK_BOOTTIME};
  for (size_t i = 0; i < sizeof clocks / sizeof clocks[0]; ++i) {
    struct timespec a, b, res;
    CHECK(clock_gettime(clocks[i], &a) == 0);
    CHECK(clock_gettime(clocks[i], &b) == 0);
    CHECK(clock_getres(clocks[i], &res) == 0);
    CHECK(a.tv_nsec >= 0 && a.tv_nsec < 1000000000 && b.tv_nsec < 1000000000);
    if (clocks[i] != CLOCK_REALTIME && clocks[i] != CLOCK_REALTIME_COARSE) CHECK(ts_le(a, b));
    CHECK(res.tv_sec >= 0 && res.tv_nsec >= 0);
  }
  printf("clock_gettime ok on %zu clocks\n", sizeof clocks / sizeof clocks[0]);
  errno = 0;
  struct timespec bad;
  CHECK(clock_gettime((clockid_t)12345, &bad) == -1 && errno == EINVAL);
  printf("clock_gettime of a bad clock: EINVAL\n");

  struct timeval tv;
  CHECK(gettimeofday(&tv, NULL) == 0 && tv.tv_usec >= 0 && tv.tv_usec < 1000000);
  CHECK(time(NULL) > 0);
  printf("gettimeofday/time ok\n");

  struct tms t;
  clock_t ticks = times(&t);
  CHECK(ticks != (clock_t)-1);
  CHECK(t.tms_utime >= 0 && t.tms_stime >= 0 && t.tms_cutime == 0 && t.tms_cstime == 0);
  struct rusage ru;
  CHECK(getrusage(RUSAGE_SELF, &ru) == 0);
  CHECK(ru.ru_utime.tv_usec >= 0 && ru.ru_utime.tv_usec < 1000000);
  CHECK(getrusage(RUSAGE_CHILDREN, &ru) == 0);
  printf("times/getrusage ok\n");

  struct timespec before, after, req = {0, 1000000};
  CHECK(clock_gettime(CLOCK_MONOTONIC, &before) == 0);
  CHECK(nanosleep(&req, NULL) == 0);
  CHECK(clock_gettime(CLOCK_MONOTONIC, &after) == 0);
  long long ns = (after.tv_sec - before.tv_sec) * 1000000000LL + (after.tv_nsec - before.tv_nsec);
  CHECK(ns >= 1000000);
  printf("nanosleep(1 ms) ok: monotonic advanced at least 1 ms\n");

  pid_t pid = getpid();
  CHECK(pid > 0 && getppid() >= 0);
  CHECK(gettid() == pid);  // the main thread's id is the process id
  CHECK(getuid() == geteuid() && getgid() == getegid());
  char cwd[4096];
  CHECK(getcwd(cwd, sizeof cwd) != NULL && cwd[0] == '/');
  CHECK(sched_yield() == 0);
  printf("ids, getcwd, sched_yield ok\n");
  return 0;
}
