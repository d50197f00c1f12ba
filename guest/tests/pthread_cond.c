// Condition variables: pthread_cond_signal wakes a waiter per signal (a ping-pong of 200 turns
// between two threads), pthread_cond_broadcast wakes every one of 6 waiters, timed waits time
// out no earlier than their deadline on CLOCK_REALTIME (default), on CLOCK_MONOTONIC (condattr
// setclock) and with pthread_cond_clockwait, and a timed wait that is signalled before its
// deadline returns 0. The mutex is held again whenever a wait returns.
#include <string.h>

#include "thread_util.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_changed = PTHREAD_COND_INITIALIZER;
static int turn;  // 0: ping's turn, 1: pong's turn
static int exchanges;

enum { kTurns = 200, kWaiters = 6 };

static void* pong(void* arg) {
  (void)arg;
  CHECK(pthread_mutex_lock(&lock) == 0);
  for (int i = 0; i < kTurns; ++i) {
    while (turn != 1) CHECK(pthread_cond_wait(&turn_changed, &lock) == 0);
    ++exchanges;
    turn = 0;
    CHECK(pthread_cond_signal(&turn_changed) == 0);
  }
  CHECK(pthread_mutex_unlock(&lock) == 0);
  return NULL;
}

static pthread_cond_t go_cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t ready_cond = PTHREAD_COND_INITIALIZER;
static int go;
static int ready;
static int woken;

static void* waiter(void* arg) {
  (void)arg;
  CHECK(pthread_mutex_lock(&lock) == 0);
  ++ready;
  CHECK(pthread_cond_signal(&ready_cond) == 0);
  while (!go) CHECK(pthread_cond_wait(&go_cond, &lock) == 0);
  ++woken;
  CHECK(pthread_mutex_trylock(&lock) == EBUSY);  // the wait returned with the mutex held
  CHECK(pthread_mutex_unlock(&lock) == 0);
  return NULL;
}

static pthread_cond_t late_cond = PTHREAD_COND_INITIALIZER;
static int late_flag;

static void* late_signaller(void* arg) {
  (void)arg;
  sleep_ms(3);
  CHECK(pthread_mutex_lock(&lock) == 0);
  late_flag = 1;
  CHECK(pthread_cond_signal(&late_cond) == 0);
  CHECK(pthread_mutex_unlock(&lock) == 0);
  return NULL;
}

static const char* err_name(int e) {
  return e == 0 ? "0" : e == ETIMEDOUT ? "ETIMEDOUT" : e == EINVAL ? "EINVAL" : "other";
}

// Waits on a condition nobody signals until `ms` after now on `clock`; returns the result
// and checks the elapsed time.
static int timed_out_wait(pthread_cond_t* cond, clockid_t clock, int use_clockwait, int ms) {
  CHECK(pthread_mutex_lock(&lock) == 0);
  int64_t start = now_ns(clock);
  struct timespec deadline = deadline_ms(clock, ms);
  int r;
  do {
    r = use_clockwait ? pthread_cond_clockwait(cond, &lock, clock, &deadline)
                      : pthread_cond_timedwait(cond, &lock, &deadline);
  } while (r == 0);  // spurious wake-ups are allowed; nobody signals
  int64_t waited = now_ns(clock) - start;
  CHECK(pthread_mutex_unlock(&lock) == 0);
  CHECK(waited >= (int64_t)ms * 1000000);
  return r;
}

int main(void) {
  // Signal: a ping-pong where each side waits for its turn.
  pthread_t t = start_thread(pong, NULL);
  CHECK(pthread_mutex_lock(&lock) == 0);
  for (int i = 0; i < kTurns; ++i) {
    while (turn != 0) CHECK(pthread_cond_wait(&turn_changed, &lock) == 0);
    ++exchanges;
    turn = 1;
    CHECK(pthread_cond_signal(&turn_changed) == 0);
  }
  while (turn != 0) CHECK(pthread_cond_wait(&turn_changed, &lock) == 0);
  CHECK(pthread_mutex_unlock(&lock) == 0);
  join_thread(t);
  printf("signal: %d exchanges (expected %d)\n", exchanges, 2 * kTurns);
  CHECK(exchanges == 2 * kTurns);

  // Broadcast wakes every waiter.
  pthread_t w[kWaiters];
  for (int i = 0; i < kWaiters; ++i) w[i] = start_thread(waiter, NULL);
  CHECK(pthread_mutex_lock(&lock) == 0);
  while (ready < kWaiters) CHECK(pthread_cond_wait(&ready_cond, &lock) == 0);
  go = 1;
  CHECK(pthread_cond_broadcast(&go_cond) == 0);
  CHECK(pthread_mutex_unlock(&lock) == 0);
  for (int i = 0; i < kWaiters; ++i) join_thread(w[i]);
  printf("broadcast: %d of %d waiters woke\n", woken, kWaiters);
  CHECK(woken == kWaiters);

  // Timed waits that time out.
  pthread_cond_t quiet = PTHREAD_COND_INITIALIZER;
  printf("timedwait (realtime, 15 ms): %s\n",
         err_name(timed_out_wait(&quiet, CLOCK_REALTIME, 0, 15)));
  pthread_condattr_t attr;
  CHECK(pthread_condattr_init(&attr) == 0);
  CHECK(pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0);
  clockid_t clock = CLOCK_REALTIME;
  CHECK(pthread_condattr_getclock(&attr, &clock) == 0 && clock == CLOCK_MONOTONIC);
  pthread_cond_t mono;
  CHECK(pthread_cond_init(&mono, &attr) == 0);
  printf("timedwait (monotonic condattr, 12 ms): %s\n",
         err_name(timed_out_wait(&mono, CLOCK_MONOTONIC, 0, 12)));
  printf("clockwait (monotonic, 7 ms): %s\n",
         err_name(timed_out_wait(&quiet, CLOCK_MONOTONIC, 1, 7)));
  CHECK(pthread_cond_destroy(&mono) == 0);
  CHECK(pthread_condattr_destroy(&attr) == 0);

  // A timed wait that is signalled in time.
  t = start_thread(late_signaller, NULL);
  CHECK(pthread_mutex_lock(&lock) == 0);
  struct timespec deadline = deadline_ms(CLOCK_REALTIME, 10000);
  int r = 0;
  while (!late_flag && r == 0) r = pthread_cond_timedwait(&late_cond, &lock, &deadline);
  printf("timedwait signalled before the deadline: %s flag=%d\n", err_name(r), late_flag);
  CHECK(r == 0 && late_flag == 1);
  CHECK(pthread_mutex_unlock(&lock) == 0);
  join_thread(t);
  printf("condition variable tests done\n");
  return 0;
}
