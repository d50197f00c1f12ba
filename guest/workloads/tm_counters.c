/* Threads updating shared data inside transactions (libtm, guest/include/tm/tm.h): one counter
 * every thread increments (conflicts), bins on their own L2 lines that threads share in turns
 * (some conflicts), a private slot per thread (none), a transfer between accounts whose sum is
 * invariant, a nested transaction, and now and then a system call inside one (which makes it
 * irrevocable). Its output is the same under qemu (no device: every transaction runs under the
 * lock) and under hpmsim's timing mode (speculative, with rollbacks): tests/guest compares them,
 * tests/node/tm_test.cpp counts the transactions' events.
 * Usage: tm_counters [threads [iterations]]. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tm/tm.h"

enum { kMaxThreads = 64, kBins = 8, kAccounts = 16 };

struct line {
  long value;
  char pad[120];
} __attribute__((aligned(128)));

static struct line total;
static struct line bins[kBins];
static struct line mine[kMaxThreads];
static long accounts[kAccounts];
static int iterations = 200;
static long syscalls_seen;

static void* worker(void* arg) {
  const long t = (long)arg;
  unsigned seed = (unsigned)t * 2654435761u + 1;
  for (int i = 0; i < iterations; ++i) {
    seed = seed * 1103515245u + 12345u;
    tm_atomic_begin();
    total.value += 1;
    bins[(i + t) % kBins].value += t + 1;
    mine[t].value += i;
    const int from = (int)(seed >> 8) % kAccounts, to = (int)(seed >> 16) % kAccounts;
    const long amount = (long)(seed >> 24) % 50;
    accounts[from] -= amount;
    tm_atomic_begin(); /* nested: flattened into the outer transaction */
    accounts[to] += amount;
    tm_atomic_end();
    if (t == 0 && i % 50 == 49) syscalls_seen += getpid() > 0; /* irrevocable from here */
    tm_atomic_end();
  }
  return NULL;
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 4;
  if (argc > 2) iterations = atoi(argv[2]);
  if (threads < 1 || threads > kMaxThreads) return 2;
  for (int a = 0; a < kAccounts; ++a) accounts[a] = 1000;
  pthread_t th[kMaxThreads];
  for (long t = 0; t < threads; ++t) pthread_create(&th[t], NULL, worker, (void*)t);
  for (int t = 0; t < threads; ++t) pthread_join(th[t], NULL);
  long sum = 0;
  for (int a = 0; a < kAccounts; ++a) sum += accounts[a];
  printf("total %ld (expected %ld)\n", total.value, (long)threads * iterations);
  for (int b = 0; b < kBins; ++b) printf("bin %d: %ld\n", b, bins[b].value);
  int mine_ok = 1;
  for (int t = 0; t < threads; ++t)
    mine_ok &= mine[t].value == (long)iterations * (iterations - 1) / 2;
  printf("private slots %s\n", mine_ok ? "ok" : "WRONG");
  printf("accounts sum %ld (expected %ld)\n", sum, 1000L * kAccounts);
  printf("system calls in transactions %ld\n", syscalls_seen);
  const int ok = total.value == (long)threads * iterations && mine_ok && sum == 1000L * kAccounts;
  return ok ? 0 : 1;
}
