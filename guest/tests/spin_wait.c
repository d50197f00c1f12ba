// spin_wait MODE: threads that wait by spinning on memory (the functional mode parks them,
// kernel/polling.cpp; under qemu and in the timing mode they spin). The output is the same
// whatever the schedule.
//   flags      eight workers wait, 20 times, on a generation word the main thread bumps after
//              some work of its own (a barrier with active waiting), and add to a sum
//   countdown  a worker spins a fixed number of times on a word nobody writes while the main
//              thread waits for it in pthread_join: every iteration must run
//   yield      a worker spins a fixed number of times on a word nobody writes while the main
//              thread waits for the worker's "done" in a sched_yield loop
//   signal     a worker spins on a flag that its own SIGUSR1 handler sets; the main thread sends
//              the signal after some work
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "thread_util.h"

enum { kThreads = 8, kRounds = 20, kWork = 20000, kSpins = 50000 };

static atomic_ulong generation;
static atomic_ulong sum;
static atomic_int done;
static atomic_int never;  // nobody writes it
static volatile sig_atomic_t got_signal;

// Work that stores (it is not a poll): a small linear congruential walk over a buffer.
static unsigned long work(unsigned long seed, int n) {
  static unsigned long buffer[64];
  for (int i = 0; i < n; ++i) {
    seed = seed * 6364136223846793005ul + 1442695040888963407ul;
    buffer[i & 63] += seed >> 33;
  }
  return buffer[seed & 63];
}

static void* flag_worker(void* arg) {
  const unsigned long id = (unsigned long)arg;
  unsigned long seen = 0;
  for (int r = 0; r < kRounds; ++r) {
    while (atomic_load_explicit(&generation, memory_order_acquire) == seen) {
    }
    seen = atomic_load_explicit(&generation, memory_order_acquire);
    atomic_fetch_add(&sum, seen * (id + 1));
  }
  return NULL;
}

static void* countdown_worker(void* arg) {
  (void)arg;
  long spins = 0;
  while (spins < kSpins && atomic_load_explicit(&never, memory_order_relaxed) == 0) ++spins;
  atomic_store(&done, 1);
  return (void*)spins;
}

static void on_usr1(int signo) {
  (void)signo;
  got_signal = 1;
}

static void* signal_worker(void* arg) {
  (void)arg;
  while (!got_signal) {
  }
  return (void*)1;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "flags";
  if (strcmp(mode, "flags") == 0) {
    pthread_t threads[kThreads];
    for (unsigned long i = 0; i < kThreads; ++i) threads[i] = start_thread(flag_worker, (void*)i);
    unsigned long check = 0;
    for (int r = 0; r < kRounds; ++r) {
      check += work(r, kWork);
      atomic_fetch_add_explicit(&generation, 1, memory_order_release);
      // The next round starts once every worker has counted this one.
      const unsigned long want =
          (unsigned long)(r + 1) * (r + 2) / 2 * kThreads * (kThreads + 1) / 2;
      while (atomic_load(&sum) != want) {
      }
    }
    for (int i = 0; i < kThreads; ++i) join_thread(threads[i]);
    printf("flags: %d rounds, sum %lu, work %lu\n", kRounds, atomic_load(&sum), check);
  } else if (strcmp(mode, "countdown") == 0 || strcmp(mode, "yield") == 0) {
    pthread_t t = start_thread(countdown_worker, NULL);
    if (strcmp(mode, "yield") == 0) {
      while (!atomic_load(&done)) sched_yield();
    }
    printf("%s: the worker spun %ld times\n", mode, (long)join_thread(t));
  } else if (strcmp(mode, "signal") == 0) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
    pthread_t t = start_thread(signal_worker, NULL);
    const unsigned long check = work(1, kWork);
    CHECK(pthread_kill(t, SIGUSR1) == 0);
    printf("signal: the handler ended the wait (%ld), work %lu\n", (long)join_thread(t), check);
  } else {
    fprintf(stderr, "spin_wait: unknown mode %s\n", mode);
    return 2;
  }
  return 0;
}
