// Timeouts and timers too long for the simulated clock (a cycle count holds some 365 years at
// 1.6 GHz) never expire, as on Linux (which clamps them to KTIME_MAX, 292 years): no sleep,
// futex wait, sigtimedwait or ppoll with such a timeout wakes early, and such a timer reports a
// huge remaining time. Each waits in a thread of its own, which the main thread checks after a
// simulated second and then wakes (or leaves, ending the process with exit).
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

static const time_t kHuge[] = {(time_t)1 << 62, INT64_MAX, 20000000000};  // seconds
static volatile int woke[8];
static volatile uint32_t futex_word;
static int pipe_fds[2];

static void* sleeper(void* arg) {
  const long i = (long)arg;
  struct timespec ts = {kHuge[i % 3], 999999999};
  if (i < 3) {
    nanosleep(&ts, NULL);
  } else if (i == 3) {
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
  } else if (i == 4) {
    syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
  } else if (i == 5) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    siginfo_t info;
    sigtimedwait(&set, &info, &ts);
  } else {
    struct pollfd p = {pipe_fds[0], POLLIN, 0};
    ppoll(&p, 1, &ts, NULL);
  }
  woke[i] = 1;
  return NULL;
}

int main(void) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &set, NULL);  // the sigtimedwait thread inherits it
  CHECK(pipe(pipe_fds) == 0);
  pthread_t threads[7];
  for (long i = 0; i < 7; ++i) CHECK(pthread_create(&threads[i], NULL, sleeper, (void*)i) == 0);

  // Timers: armed with huge values, they report a huge time left.
  timer_t timer;
  struct sigevent ev = {0};
  ev.sigev_notify = SIGEV_NONE;
  CHECK(timer_create(CLOCK_MONOTONIC, &ev, &timer) == 0);
  struct itimerspec spec = {{0, 0}, {INT64_MAX, 0}}, left;
  CHECK(timer_settime(timer, 0, &spec, NULL) == 0);
  struct itimerval iv = {{0, 0}, {(time_t)1 << 40, 0}}, iv_left;
  CHECK(setitimer(ITIMER_REAL, &iv, NULL) == 0);

  struct timespec second = {1, 0};
  nanosleep(&second, NULL);
  int early = 0;
  for (int i = 0; i < 7; ++i) early += woke[i];
  printf("threads woken early: %d\n", early);
  CHECK(early == 0);
  CHECK(timer_gettime(timer, &left) == 0);
  printf("posix timer left > 100 years: %d\n", left.it_value.tv_sec > 100LL * 365 * 86400);
  CHECK(left.it_value.tv_sec > 100LL * 365 * 86400);
  CHECK(getitimer(ITIMER_REAL, &iv_left) == 0);
  printf("itimer left > 100 years: %d\n", iv_left.it_value.tv_sec > 100LL * 365 * 86400);
  CHECK(iv_left.it_value.tv_sec > 100LL * 365 * 86400);

  // The waits that can be ended end as usual: a futex wake, a signal, a pipe write.
  futex_word = 1;
  syscall(SYS_futex, &futex_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
  CHECK(pthread_kill(threads[5], SIGUSR1) == 0);
  CHECK(write(pipe_fds[1], "x", 1) == 1);
  for (int i = 4; i < 7; ++i) CHECK(pthread_join(threads[i], NULL) == 0);
  printf("woken by their events: %d %d %d\n", woke[4], woke[5], woke[6]);
  // The sleepers would sleep for centuries: the process ends without them.
  printf("done\n");
  fflush(stdout);
  _exit(0);
}
