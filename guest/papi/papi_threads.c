/* libpapi with threads on the bgq node (tests/papi): each of 8 threads counts its own loop with
 * its own event set (PAPI_TOT_INS, PAPI_TOT_CYC); threads share cores (and so PUnits), start and
 * stop at different times, and each counts its own instructions exactly. Prints one "ok ..." or
 * "FAIL ..." line per check and a final PASSED/FAILED line (guest/counters' contract). */
#include <papi.h>
#include <pthread.h>
#include <string.h>

#include "ctr_common.h"

enum { kThreads = 8 };

__attribute__((noinline)) static void loop(long long n) {
  __asm__ volatile("1: addi %0, %0, -1\n bnez %0, 1b" : "+r"(n));
}

/* The same code for every thread: start, the loop, stop. */
__attribute__((noinline)) static void counted(int set, long long n, long long* values) {
  PAPI_start(set);
  loop(n);
  PAPI_stop(set, values);
}

static long long counts[kThreads][2];
static int errors[kThreads];
static pthread_barrier_t barrier;

static void* worker(void* arg) {
  const int i = (int)(long)arg;
  int r = PAPI_register_thread();
  int set = PAPI_NULL;
  if (r == PAPI_OK) r = PAPI_create_eventset(&set);
  if (r == PAPI_OK) r = PAPI_add_event(set, PAPI_TOT_INS);
  if (r == PAPI_OK) r = PAPI_add_event(set, PAPI_TOT_CYC);
  pthread_barrier_wait(&barrier);
  if (r == PAPI_OK) counted(set, 100000 * (i + 1), counts[i]);
  errors[i] = r;
  pthread_barrier_wait(&barrier); /* every thread stopped before any set goes away */
  PAPI_cleanup_eventset(set);
  PAPI_destroy_eventset(&set);
  PAPI_unregister_thread();
  return NULL;
}

static unsigned long thread_id(void) {
  return (unsigned long)pthread_self();
}

int main(void) {
  PAPI_library_init(PAPI_VER_CURRENT);
  check_true("PAPI_thread_init", PAPI_thread_init(thread_id) == PAPI_OK);
  check_true("PAPI_thread_id is the calling thread's", PAPI_thread_id() == thread_id());
  pthread_barrier_init(&barrier, NULL, kThreads);
  pthread_t threads[kThreads];
  for (long i = 0; i < kThreads; ++i) pthread_create(&threads[i], NULL, worker, (void*)i);
  for (int i = 0; i < kThreads; ++i) pthread_join(threads[i], NULL);
  for (int i = 0; i < kThreads; ++i) {
    char what[96];
    snprintf(what, sizeof what, "thread %d counted (no error)", i);
    check_true(what, errors[i] == PAPI_OK);
    /* The same code around every loop: the differences are the loops' alone, 2 per iteration. */
    snprintf(what, sizeof what, "thread %d's PAPI_TOT_INS less thread 0's", i);
    check_eq(what, (uint64_t)(counts[i][0] - counts[0][0]), 2 * 100000 * (uint64_t)i);
    snprintf(what, sizeof what, "thread %d's cycles at least its instructions", i);
    check_true(what, counts[i][1] >= counts[i][0]);
  }
  return finish();
}
