// Simulated time. Under hpmsim every value printed here is a pure function of the program and
// the machine, so two runs print the same text. The checks hold on Linux too, except the bound
// on a sleep's overshoot (20 us: the code around the call), which an argument can loosen.
// - CLOCK_MONOTONIC starts near 0 (the node boots with the program); CLOCK_REALTIME starts at
//   2026-01-01T00:00:00Z (with --host-time: the host's time); gettimeofday and time agree
//   with clock_gettime(CLOCK_REALTIME).
// - nanosleep and clock_nanosleep (relative, and absolute on CLOCK_MONOTONIC and
//   CLOCK_REALTIME) take what was asked plus the few cycles of the code around them.
// - CPU clocks: a thread's CLOCK_THREAD_CPUTIME_ID counts only its own running time (a thread
//   that works twice as long has about twice the CPU time; a sleeping thread almost none);
//   pthread_getcpuclockid reads another thread's clock; the process clock is at least the sum
//   of its threads'; getrusage (RUSAGE_THREAD, RUSAGE_SELF) and times() agree with them.
// With the argument "realtime" it prints only the wall-clock seconds (for the --host-time test).
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/times.h>
#include <unistd.h>

#include "thread_util.h"

static const int64_t kMs = 1000000;
static int64_t max_overhead_ns = 20000;  // the code around a sleep: well under 20 us

static void check_overhead(const char* what, int64_t asked, int64_t took) {
  printf("%s: asked %ld ns, took %ld ns (%+ld)\n", what, (long)asked, (long)took,
         (long)(took - asked));
  CHECK(took >= asked && took - asked < max_overhead_ns);
}

static volatile unsigned long sink;

static void burn(unsigned long iterations) {
  for (unsigned long i = 0; i < iterations; ++i) sink += i;
}

struct Burner {
  unsigned long iterations;
  int64_t cpu_ns;
  int64_t wall_ns;
  int64_t rusage_us;
};

static pthread_barrier_t measured;

static void* burner(void* arg) {
  struct Burner* b = arg;
  int64_t wall0 = now_ns(CLOCK_MONOTONIC);
  if (b->iterations == 0) {
    sleep_ms(5);
  } else {
    burn(b->iterations);
  }
  b->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID);
  b->wall_ns = now_ns(CLOCK_MONOTONIC) - wall0;
  struct rusage ru;
  CHECK(getrusage(RUSAGE_THREAD, &ru) == 0);
  b->rusage_us = ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec;
  pthread_barrier_wait(&measured);  // stay alive until main has read our CPU clock
  pthread_barrier_wait(&measured);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "realtime") == 0) {
    struct timeval tv;
    CHECK(gettimeofday(&tv, NULL) == 0);
    printf("realtime %ld %ld %ld\n", (long)time(NULL), (long)tv.tv_sec,
           (long)(now_ns(CLOCK_REALTIME) / 1000000000));
    return 0;
  }
  if (argc > 1) max_overhead_ns = atol(argv[1]);  // looser bounds for slow hosts under qemu
  int64_t mono = now_ns(CLOCK_MONOTONIC);
  int64_t real = now_ns(CLOCK_REALTIME);
  printf("monotonic at start: %ld ns (under 1 s: %d)\n", (long)mono, mono < 1000000000);
  time_t secs = (time_t)(real / 1000000000);
  struct tm tm;
  CHECK(gmtime_r(&secs, &tm) != NULL);
  printf("realtime at start: %04d-%02d-%02d %02d:%02d:%02d +%09ld ns\n", tm.tm_year + 1900,
         tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (long)(real % 1000000000));
  struct timeval tv;
  CHECK(gettimeofday(&tv, NULL) == 0);
  time_t t = time(NULL);
  int64_t real2 = now_ns(CLOCK_REALTIME);
  CHECK(tv.tv_sec * 1000000000L + tv.tv_usec * 1000L >= real - 1000);
  CHECK(tv.tv_sec * 1000000000L + tv.tv_usec * 1000L <= real2);
  CHECK(t >= secs && t <= real2 / 1000000000);
  const clockid_t clocks[] = {CLOCK_REALTIME,           CLOCK_MONOTONIC,
                              CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID,
                              CLOCK_MONOTONIC_RAW,      CLOCK_BOOTTIME};
  printf("clock_getres:");
  for (unsigned i = 0; i < sizeof clocks / sizeof clocks[0]; ++i) {
    struct timespec res;
    CHECK(clock_getres(clocks[i], &res) == 0);
    printf(" %ld", res.tv_sec * 1000000000L + res.tv_nsec);
  }
  printf("\n");

  // Sleeps.
  int64_t t0 = now_ns(CLOCK_MONOTONIC);
  struct timespec req = ts_from_ns(1 * kMs);
  CHECK(nanosleep(&req, NULL) == 0);
  check_overhead("nanosleep 1 ms", 1 * kMs, now_ns(CLOCK_MONOTONIC) - t0);
  t0 = now_ns(CLOCK_MONOTONIC);
  req = ts_from_ns(2 * kMs + 345);
  CHECK(clock_nanosleep(CLOCK_MONOTONIC, 0, &req, NULL) == 0);
  check_overhead("clock_nanosleep monotonic relative 2.000345 ms", 2 * kMs + 345,
                 now_ns(CLOCK_MONOTONIC) - t0);
  int64_t deadline = now_ns(CLOCK_MONOTONIC) + 3 * kMs;
  req = ts_from_ns(deadline);
  CHECK(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &req, NULL) == 0);
  int64_t late = now_ns(CLOCK_MONOTONIC) - deadline;
  printf("clock_nanosleep monotonic absolute: woke %ld ns after the deadline\n", (long)late);
  CHECK(late >= 0 && late < max_overhead_ns);
  deadline = now_ns(CLOCK_REALTIME) + 4 * kMs;
  req = ts_from_ns(deadline);
  CHECK(clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &req, NULL) == 0);
  late = now_ns(CLOCK_REALTIME) - deadline;
  printf("clock_nanosleep realtime absolute: woke %ld ns after the deadline\n", (long)late);
  CHECK(late >= 0 && late < max_overhead_ns);
  req = ts_from_ns(now_ns(CLOCK_MONOTONIC) - kMs);  // in the past: returns at once
  t0 = now_ns(CLOCK_MONOTONIC);
  CHECK(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &req, NULL) == 0);
  check_overhead("clock_nanosleep to a past deadline", 0, now_ns(CLOCK_MONOTONIC) - t0);
  req = ts_from_ns(kMs);
  printf("clock_nanosleep on CLOCK_THREAD_CPUTIME_ID: %s\n",
         clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &req, NULL) == EINVAL ? "EINVAL" : "other");
  t0 = now_ns(CLOCK_MONOTONIC);
  CHECK(sleep(1) == 0);
  check_overhead("sleep(1)", 1000 * kMs, now_ns(CLOCK_MONOTONIC) - t0);
  CHECK(usleep(1500) == 0);

  // CPU clocks.
  CHECK(pthread_barrier_init(&measured, NULL, 4) == 0);
  struct Burner b[3] = {{200000, 0, 0, 0}, {400000, 0, 0, 0}, {0, 0, 0, 0}};
  int64_t process_before = now_ns(CLOCK_PROCESS_CPUTIME_ID);
  pthread_t th[3];
  for (int i = 0; i < 3; ++i) th[i] = start_thread(burner, &b[i]);
  pthread_barrier_wait(&measured);
  int64_t via_clockid[3];
  for (int i = 0; i < 3; ++i) {
    clockid_t cid;
    CHECK(pthread_getcpuclockid(th[i], &cid) == 0);
    via_clockid[i] = now_ns(cid);
  }
  pthread_barrier_wait(&measured);
  for (int i = 0; i < 3; ++i) join_thread(th[i]);
  int64_t process_after = now_ns(CLOCK_PROCESS_CPUTIME_ID);
  for (int i = 0; i < 3; ++i) {
    printf(
        "thread %d (%lu iterations): cpu %ld ns, wall %ld ns, rusage %ld us, via "
        "pthread_getcpuclockid %ld ns\n",
        i, b[i].iterations, (long)b[i].cpu_ns, (long)b[i].wall_ns, (long)b[i].rusage_us,
        (long)via_clockid[i]);
    // getrusage ran a little after the clock was read: the same microsecond, or the next.
    CHECK(b[i].rusage_us >= b[i].cpu_ns / 1000 && b[i].rusage_us <= b[i].cpu_ns / 1000 + 1);
    CHECK(via_clockid[i] >= b[i].cpu_ns && via_clockid[i] - b[i].cpu_ns < 1 * kMs);
  }
  double ratio = (double)b[1].cpu_ns / (double)b[0].cpu_ns;
  printf("twice the work, CPU time ratio %.2f; the sleeper used under 1%% of its wall time: %d\n",
         ratio, b[2].cpu_ns * 100 < b[2].wall_ns);
  CHECK(ratio > 1.8 && ratio < 2.2 && b[2].cpu_ns * 100 < b[2].wall_ns && b[2].wall_ns >= 5 * kMs);
  int64_t own = now_ns(CLOCK_THREAD_CPUTIME_ID);
  printf("process CPU grew by %ld ns, at least the threads' sum %ld: %d\n",
         (long)(process_after - process_before), (long)(b[0].cpu_ns + b[1].cpu_ns + b[2].cpu_ns),
         process_after - process_before >= b[0].cpu_ns + b[1].cpu_ns + b[2].cpu_ns);
  CHECK(process_after - process_before >= b[0].cpu_ns + b[1].cpu_ns + b[2].cpu_ns);
  CHECK(own < process_after);
  struct rusage self;
  CHECK(getrusage(RUSAGE_SELF, &self) == 0);
  int64_t self_us = self.ru_utime.tv_sec * 1000000L + self.ru_utime.tv_usec;
  struct tms tms;
  clock_t ticks = times(&tms);
  int64_t process_now = now_ns(CLOCK_PROCESS_CPUTIME_ID);
  printf("getrusage(RUSAGE_SELF) %ld us, times() utime %ld ticks of %ld per second\n",
         (long)self_us, (long)tms.tms_utime, sysconf(_SC_CLK_TCK));
  CHECK(self_us <= process_now / 1000 && self_us >= process_after / 1000);
  CHECK(tms.tms_utime <= process_now / 10000000 && ticks != (clock_t)-1);
  clockid_t pclock;
  CHECK(clock_getcpuclockid(0, &pclock) == 0);
  int64_t via_pclock = now_ns(pclock);
  printf("clock_getcpuclockid(0) reads the process CPU clock: %d\n",
         via_pclock >= process_now && via_pclock < process_now + kMs);
  CHECK(via_pclock >= process_now && via_pclock < process_now + kMs);
  return 0;
}
