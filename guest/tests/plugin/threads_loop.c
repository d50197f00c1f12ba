// For checking the qemu plugin on parallel guest threads: 4 threads each run a loop of exactly
// 2,000,001 instructions (li, then 1,000,000 x addi + bnez), then wait on a barrier, so that
// all of them exist at once (each has its own vCPU index). The plugin must attribute at least
// that many instructions to each of 5 vCPUs (main thread included) and lose none of them.
#include <pthread.h>
#include <stdio.h>

static pthread_barrier_t barrier;

static void* worker(void* arg) {
  (void)arg;
  __asm__ volatile(
      "li t0, 1000000\n"
      "1: addi t0, t0, -1\n"
      "bnez t0, 1b\n" ::
          : "t0");
  pthread_barrier_wait(&barrier);
  return NULL;
}

int main(void) {
  enum { kThreads = 4 };
  pthread_t t[kThreads];
  pthread_barrier_init(&barrier, NULL, kThreads + 1);
  for (int i = 0; i < kThreads; ++i) pthread_create(&t[i], NULL, worker, NULL);
  pthread_barrier_wait(&barrier);
  for (int i = 0; i < kThreads; ++i) pthread_join(t[i], NULL);
  puts("threads done");
  return 0;
}
