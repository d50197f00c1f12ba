// Interval timers on simulated time: setitimer/getitimer with ITIMER_REAL (SIGALRM at wall-clock
// times: 5 ms, then every 2 ms), ITIMER_VIRTUAL and ITIMER_PROF (SIGVTALRM and SIGPROF after the
// process has used that much CPU time, not while it sleeps), getitimer's view of a running
// timer, disarming (setitimer returns the old setting), a sleep interrupted by SIGALRM (EINTR and
// the remaining time), and alarm() (its return value is the previous alarm's seconds left;
// pause() returns after it). Each signal's time is printed relative to when its timer was
// armed; under hpmsim the values are exact and the same on every run.
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "thread_util.h"

static const int64_t kMs = 1000000;
static volatile sig_atomic_t count;
static int64_t stamps[8];
static clockid_t stamp_clock = CLOCK_MONOTONIC;

static void on_timer(int sig) {
  (void)sig;
  if (count < 8) stamps[count] = now_ns(stamp_clock);
  ++count;
}

static void handle(int sig) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_timer;
  CHECK(sigaction(sig, &sa, NULL) == 0);
}

static void print_stamps(const char* what, int64_t base, int n) {
  printf("%s:", what);
  for (int i = 0; i < n; ++i) printf(" %.3f", (double)(stamps[i] - base) / kMs);
  printf(" ms\n");
}

static volatile unsigned long sink;

int main(void) {
  // ITIMER_REAL.
  handle(SIGALRM);
  struct itimerval it = {.it_interval = {0, 2000}, .it_value = {0, 5000}};
  int64_t armed = now_ns(CLOCK_MONOTONIC);
  CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
  struct itimerval now;
  CHECK(getitimer(ITIMER_REAL, &now) == 0);
  printf("ITIMER_REAL armed: interval %ld us, value at most 5000 us and more than 4900: %d\n",
         (long)now.it_interval.tv_usec,
         now.it_value.tv_sec == 0 && now.it_value.tv_usec <= 5000 && now.it_value.tv_usec > 4900);
  CHECK(now.it_interval.tv_usec == 2000 && now.it_value.tv_usec <= 5000);
  while (count < 4) pause();
  struct itimerval old;
  struct itimerval off = {{0, 0}, {0, 0}};
  CHECK(setitimer(ITIMER_REAL, &off, &old) == 0);
  print_stamps("ITIMER_REAL signals after", armed, 4);
  for (int i = 0; i < 4; ++i) {
    int64_t due = armed + 5 * kMs + i * 2 * kMs;
    CHECK(stamps[i] >= due && stamps[i] < due + kMs);
  }
  CHECK(old.it_interval.tv_usec == 2000 && old.it_value.tv_usec > 0);
  CHECK(getitimer(ITIMER_REAL, &now) == 0);
  printf("disarmed: old interval %ld us; now %ld %ld\n", (long)old.it_interval.tv_usec,
         (long)now.it_value.tv_usec, (long)now.it_interval.tv_usec);
  CHECK(now.it_value.tv_usec == 0 && now.it_value.tv_sec == 0);

  // A sleep interrupted by a one-shot ITIMER_REAL.
  count = 0;
  it = (struct itimerval){.it_interval = {0, 0}, .it_value = {0, 3000}};
  CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
  struct timespec req = {0, 10 * kMs}, rem = {0, 0};
  int r = nanosleep(&req, &rem);
  int64_t remaining = rem.tv_sec * 1000000000L + rem.tv_nsec;
  printf("nanosleep 10 ms interrupted by SIGALRM at 3 ms: %d %s, remaining %.3f ms\n", r,
         r == -1 && errno == EINTR ? "EINTR" : "other", (double)remaining / kMs);
  // 10 ms asked, interrupted 3 ms after the timer was armed, a few cycles before the sleep.
  CHECK(r == -1 && errno == EINTR && count == 1 && remaining >= 7 * kMs &&
        remaining < 7 * kMs + kMs / 10);

  // ITIMER_VIRTUAL and ITIMER_PROF count CPU time.
  const int which[2] = {ITIMER_VIRTUAL, ITIMER_PROF};
  const int sigs[2] = {SIGVTALRM, SIGPROF};
  const char* names[2] = {"ITIMER_VIRTUAL", "ITIMER_PROF"};
  stamp_clock = CLOCK_PROCESS_CPUTIME_ID;
  for (int k = 0; k < 2; ++k) {
    handle(sigs[k]);
    count = 0;
    it = (struct itimerval){.it_interval = {0, 1000}, .it_value = {0, 2000}};
    int64_t cpu0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
    int64_t wall0 = now_ns(CLOCK_MONOTONIC);
    CHECK(setitimer(which[k], &it, NULL) == 0);
    sleep_ms(20);  // sleeping uses no CPU time: no signal
    int during_sleep = count;
    while (count < 3) ++sink;
    CHECK(setitimer(which[k], &off, NULL) == 0);
    print_stamps(names[k], cpu0, 3);
    printf("%s: signals while sleeping %d; wall time %.3f ms\n", names[k], during_sleep,
           (double)(now_ns(CLOCK_MONOTONIC) - wall0) / kMs);
    CHECK(during_sleep == 0);
    for (int i = 0; i < 3; ++i) {
      int64_t due = cpu0 + 2 * kMs + i * kMs;
      CHECK(stamps[i] >= due && stamps[i] < due + kMs / 2);
    }
  }

  // alarm().
  stamp_clock = CLOCK_MONOTONIC;
  count = 0;
  unsigned left = alarm(5);
  int64_t t0 = now_ns(CLOCK_MONOTONIC);
  unsigned previous = alarm(2);
  printf("alarm(5) returned %u; alarm(2) returned %u\n", left, previous);
  CHECK(left == 0 && previous == 5);
  pause();
  printf("pause() returned after SIGALRM at %.3f ms\n", (double)(stamps[0] - t0) / kMs);
  CHECK(count == 1 && stamps[0] - t0 >= 2000 * kMs && stamps[0] - t0 < 2001 * kMs);
  alarm(10);
  left = alarm(0);
  printf("alarm(0) cancels: returned %u\n", left);
  CHECK(left == 10);
  return 0;
}
