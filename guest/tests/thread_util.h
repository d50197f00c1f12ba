// Helpers shared by the multi-threaded guest tests: clocks, sleeping, absolute deadlines and
// thread creation that checks its result. Output built with these stays independent of the
// schedule: tests print totals and outcomes, never which thread did what first.
#ifndef HPM_GUEST_TESTS_THREAD_UTIL_H
#define HPM_GUEST_TESTS_THREAD_UTIL_H

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "common.h"

static inline int64_t now_ns(clockid_t clock) {
  struct timespec ts;
  CHECK(clock_gettime(clock, &ts) == 0);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline struct timespec ts_from_ns(int64_t ns) {
  struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
  return ts;
}

// An absolute deadline `ms` milliseconds from now on `clock`.
static inline struct timespec deadline_ms(clockid_t clock, int64_t ms) {
  return ts_from_ns(now_ns(clock) + ms * 1000000);
}

static inline void sleep_ms(int64_t ms) {
  struct timespec ts = ts_from_ns(ms * 1000000);
  while (nanosleep(&ts, &ts) != 0) CHECK(errno == EINTR);
}

static inline pthread_t start_thread(void* (*fn)(void*), void* arg) {
  pthread_t t;
  CHECK(pthread_create(&t, NULL, fn, arg) == 0);
  return t;
}

static inline void* join_thread(pthread_t t) {
  void* result = NULL;
  CHECK(pthread_join(t, &result) == 0);
  return result;
}

#endif  // HPM_GUEST_TESTS_THREAD_UTIL_H
