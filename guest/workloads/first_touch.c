/* Page placement and remote traffic for sunfire's locality analysis (docs/sunfire.md): an OpenMP
 * program whose array of THREADS chunks of 64 KiB is initialised by the main thread alone ("one")
 * or each chunk by the thread that later uses it ("each"), then every thread sums its own chunk
 * ROUNDS times.
 * Under first-touch placement "one" puts the whole array on the main thread's board, so the
 * other boards' threads read it remotely; "each" puts every chunk on its user's board. At the end
 * the program reads /proc/self/pagemap and prints, per thread, its CPU and the boards its chunk's
 * pages are on (a physical address's bits 41:37 are its board).
 *
 *   first_touch one|each THREADS ROUNDS */
#define _GNU_SOURCE
#include <fcntl.h>
#include <omp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 16
#define CHUNK (64 * 1024)
#define PAGE 4096

static void init_chunk(char* array, long id) {
  long* p = (long*)(array + id * CHUNK);
  for (unsigned i = 0; i < CHUNK / sizeof(long); ++i) p[i] = id + (long)i;
}

int main(int argc, char** argv) {
  if (argc != 4 || (strcmp(argv[1], "one") != 0 && strcmp(argv[1], "each") != 0)) {
    fprintf(stderr, "usage: first_touch one|each THREADS ROUNDS\n");
    return 2;
  }
  const int each = strcmp(argv[1], "each") == 0;
  const int threads = atoi(argv[2]);
  const long rounds = atol(argv[3]);
  if (threads < 1 || threads > MAX_THREADS) return 2;
  char* array = aligned_alloc(PAGE, (size_t)threads * CHUNK);
  if (!array) return 1;
  if (!each) {
    for (long id = 0; id < threads; ++id) init_chunk(array, id);
  }
  int cpu_of[MAX_THREADS];
  long sums[MAX_THREADS];
#pragma omp parallel num_threads(threads)
  {
    const int id = omp_get_thread_num();
    cpu_of[id] = sched_getcpu();
    if (each) init_chunk(array, id);
#pragma omp barrier
    const long* p = (const long*)(array + (long)id * CHUNK);
    long sum = 0;
    for (long r = 0; r < rounds; ++r) {
      for (unsigned i = 0; i < CHUNK / sizeof(long); i += 8) sum += p[i];
    }
    sums[id] = sum;
  }
  long total = 0;
  for (int id = 0; id < threads; ++id) total += sums[id];

  const int fd = open("/proc/self/pagemap", O_RDONLY);
  if (fd < 0) return 1;
  printf("first_touch: %s, %d threads x %ld rounds, array at %p, sum %ld\n", argv[1], threads,
         rounds, (void*)array, total);
  for (long id = 0; id < threads; ++id) {
    unsigned boards = 0; /* bit b: a page of the chunk is on board b */
    int absent = 0;
    for (long off = 0; off < CHUNK; off += PAGE) {
      uint64_t e = 0;
      const off_t at = (off_t)((uintptr_t)(array + id * CHUNK + off) / PAGE * 8);
      if (pread(fd, &e, sizeof e, at) != (ssize_t)sizeof e || !(e >> 63)) {
        absent = 1;
        continue;
      }
      const uint64_t pa = (e & ((UINT64_C(1) << 55) - 1)) * PAGE;
      boards |= 1u << (pa >> 37);
    }
    printf("thread %ld cpu %d boards 0x%x%s\n", id, cpu_of[id], boards, absent ? " (absent)" : "");
  }
  close(fd);
  return 0;
}
