// Many threads at once (argument: the count, default 100): every thread is alive at the same
// time (they meet at a barrier of all of them), so on a machine with fewer hardware threads
// the kernel must time-multiplex them. Each thread sums its share of 1..N*1000 in a loop
// that is long enough to be preempted, adds it to a total under a mutex, and increments an
// atomic counter; the results are exact and independent of the schedule.
#include <string.h>

#include "thread_util.h"

enum { kMaxThreads = 512, kPerThread = 3000 };

static pthread_barrier_t all_alive;
static pthread_mutex_t total_lock = PTHREAD_MUTEX_INITIALIZER;
static long total;
static int arrivals;
static int alive_at_barrier;

static void* worker(void* arg) {
  long id = (long)(intptr_t)arg;
  __atomic_add_fetch(&arrivals, 1, __ATOMIC_SEQ_CST);
  int r = pthread_barrier_wait(&all_alive);
  CHECK(r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD);
  if (r == PTHREAD_BARRIER_SERIAL_THREAD)
    alive_at_barrier = __atomic_load_n(&arrivals, __ATOMIC_SEQ_CST);
  long sum = 0;
  for (long i = id * kPerThread + 1; i <= (id + 1) * kPerThread; ++i) {
    volatile long step = i;  // keeps the loop long: about 10 instructions per number
    sum += step;
  }
  CHECK(pthread_mutex_lock(&total_lock) == 0);
  total += sum;
  CHECK(pthread_mutex_unlock(&total_lock) == 0);
  return (void*)(intptr_t)(sum == (id + 1) * kPerThread * ((id + 1) * kPerThread + 1) / 2 -
                                      id * kPerThread * (id * kPerThread + 1) / 2);
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100;
  CHECK(n >= 1 && n <= kMaxThreads);
  CHECK(pthread_barrier_init(&all_alive, NULL, (unsigned)n) == 0);
  static pthread_t t[kMaxThreads];
  // Small stacks: 100 threads with glibc's default 8 MiB each would be 800 MiB of address space.
  pthread_attr_t attr;
  CHECK(pthread_attr_init(&attr) == 0);
  CHECK(pthread_attr_setstacksize(&attr, 64 * 1024) == 0);
  for (int i = 0; i < n; ++i) {
    CHECK(pthread_create(&t[i], &attr, worker, (void*)(intptr_t)i) == 0);
  }
  CHECK(pthread_attr_destroy(&attr) == 0);
  int all_ok = 1;
  for (int i = 0; i < n; ++i) all_ok &= (int)(intptr_t)join_thread(t[i]);
  long m = (long)n * kPerThread;
  printf("%d threads, all alive at once: %d, per-thread sums right: %d\n", n, alive_at_barrier == n,
         all_ok);
  printf("total %ld expected %ld\n", total, m * (m + 1) / 2);
  CHECK(alive_at_barrier == n && all_ok && total == m * (m + 1) / 2);
  return 0;
}
