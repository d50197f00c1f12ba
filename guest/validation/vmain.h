/* Common C side of the validation programs: a table of kernels (vkernel.h drivers), argument
 * parsing, and threads placed on chosen hardware threads that start the kernel together. */
#ifndef HPM_VALIDATION_VMAIN_H
#define HPM_VALIDATION_VMAIN_H

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VK_MAX_THREADS 64

/* A driver from vkernel.h: three warm-up calls with (n_warm, p_warm, x), then the measured call
 * with (n, p, x) inside the kernel's region. */
typedef void (*vk_driver)(long n, long p, long x, long n_warm, long p_warm);

struct vk_kernel {
  const char* name;
  vk_driver driver;
};

static inline const struct vk_kernel* vk_find(const struct vk_kernel* table, const char* name) {
  for (; table->name != NULL; ++table) {
    if (strcmp(table->name, name) == 0) return table;
  }
  return NULL;
}

static inline void vk_usage(const char* program, const struct vk_kernel* table, const char* args) {
  fprintf(stderr, "usage: %s KERNEL %s\nkernels:", program, args);
  for (; table->name != NULL; ++table) fprintf(stderr, " %s", table->name);
  fprintf(stderr, "\n");
  exit(2);
}

static inline long vk_arg(int argc, char** argv, int i, long fallback) {
  return argc > i ? atol(argv[i]) : fallback;
}

/* Pins the calling thread to hardware thread `hw` (the kernel moves it there at once). */
static inline void vk_pin(int hw) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(hw, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    perror("sched_setaffinity");
    exit(1);
  }
}

/* Runs setup(i, arg) (if not NULL) and then fn(i, arg) on `count` threads, thread i pinned to
 * hardware thread i * stride (thread 0 is the calling thread). All threads pass a barrier
 * between the two, so they start fn within a few hundred cycles of each other (the last
 * arrival's futex wake sets the others' clocks to its own). */
typedef void (*vk_thread_fn)(int index, void* arg);

struct vk_thread_start {
  int index;
  int stride;
  vk_thread_fn setup;
  vk_thread_fn fn;
  void* arg;
  pthread_barrier_t* barrier;
};

static inline void* vk_thread_main(void* p) {
  struct vk_thread_start* s = (struct vk_thread_start*)p;
  vk_pin(s->index * s->stride);
  if (s->setup != NULL) s->setup(s->index, s->arg);
  pthread_barrier_wait(s->barrier);
  s->fn(s->index, s->arg);
  return NULL;
}

static inline void vk_run_threads(int count, int stride, vk_thread_fn setup, vk_thread_fn fn,
                                  void* arg) {
  if (count < 1 || count > VK_MAX_THREADS) {
    fprintf(stderr, "thread count %d out of range\n", count);
    exit(2);
  }
  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, NULL, (unsigned)count);
  struct vk_thread_start starts[VK_MAX_THREADS];
  pthread_t threads[VK_MAX_THREADS];
  for (int i = 0; i < count; ++i) {
    starts[i] = (struct vk_thread_start){i, stride, setup, fn, arg, &barrier};
  }
  for (int i = 1; i < count; ++i) {
    if (pthread_create(&threads[i], NULL, vk_thread_main, &starts[i]) != 0) {
      fprintf(stderr, "pthread_create failed\n");
      exit(1);
    }
  }
  vk_thread_main(&starts[0]);
  for (int i = 1; i < count; ++i) pthread_join(threads[i], NULL);
  pthread_barrier_destroy(&barrier);
}

#endif /* HPM_VALIDATION_VMAIN_H */
