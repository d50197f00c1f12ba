/* The micro-benchmarks behind docs/timing.md's table of the presets next to the published
 * figures (tests/docs/published_figures.cmake runs them):
 *
 *   mem_figures chase NODES STRIDE LOADS
 *     a random cyclic chain (Sattolo) of NODES nodes STRIDE bytes apart, walked once to warm
 *     the caches, then LOADS dependent loads (`p = *p`, a multiple of 8) in region "chase":
 *     the region's cycles per load are the load-to-use latency of the level the ring lives in
 *     (a ring larger than a cache and smaller than the next level mostly misses the first and
 *     hits the second: the average an lmbench-style chase measures);
 *   mem_figures fresh LOADS
 *     LOADS dependent loads (a multiple of 8) of never-touched memory, 256 bytes apart (never
 *     the next line, so no stream is prefetched), in region "fresh": each misses every cache
 *     and goes to DDR. Fresh memory reads as zero, so each address is the previous one's base
 *     plus the value loaded: one add per load, the region's cycles per load are the DDR's
 *     load-to-use latency plus the add's latency;
 *   mem_figures seq BYTES
 *     8-byte loads summed over BYTES written before (so in the L2), once to warm and once in
 *     region "seq": run with and without `l1p.prefetch`, the stream prefetcher's gain;
 *   mem_figures triad ELEMENTS THREADS CORES
 *     STREAM's triad a[i] = b[i] + s * c[i] over ELEMENTS elements in all, split among THREADS
 *     threads, each over its own arrays of never-touched memory, thread i on hardware thread
 *     (i mod CORES) * (hardware threads / CORES) + i / CORES (cores first, as spread
 *     placement); one pass to reach the steady state (the arrays, larger than the last cache,
 *     leave it full of the pass's lines, `a` dirty), then one pass in region "triad". The
 *     generator takes the span from the first thread's entry to the last thread's exit.
 *
 * Output: checksums that do not depend on addresses, so qemu-riscv64 prints the same. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hpm/region.h"

HPM_REGION_NAME(1, "chase");
HPM_REGION_NAME(2, "seq");
HPM_REGION_NAME(3, "triad");
HPM_REGION_NAME(4, "fresh");

enum { kMaxThreads = 64 };

static void usage(void) {
  fprintf(stderr,
          "usage: mem_figures chase NODES STRIDE LOADS | fresh LOADS | seq BYTES | "
          "triad ELEMENTS THREADS CORES\n");
  exit(2);
}

/* Never-touched memory, page aligned. */
static void* fresh(size_t bytes) {
  void* p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  return p;
}

static int chase(long nodes, long stride, long loads) {
  if (nodes < 2 || stride < (long)sizeof(void*) || stride % (long)sizeof(void*) != 0 || loads < 8 ||
      loads % 8 != 0) {
    usage();
  }
  char* base = fresh((size_t)nodes * (size_t)stride);
  uint32_t* order = malloc((size_t)nodes * sizeof *order);
  if (order == NULL) return 1;
  for (long i = 0; i < nodes; ++i) order[i] = (uint32_t)i;
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (long i = nodes - 1; i > 0; --i) { /* Sattolo: one cycle through every node */
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const long j = (long)(x % (uint64_t)i);
    const uint32_t t = order[i];
    order[i] = order[j], order[j] = t;
  }
  for (long i = 0; i < nodes; ++i) {
    *(char**)(base + (size_t)order[i] * (size_t)stride) =
        base + (size_t)order[(i + 1) % nodes] * (size_t)stride;
  }
  char* p = base + (size_t)order[0] * (size_t)stride;
  free(order);
  for (long i = 0; i < nodes; ++i) p = *(char**)p; /* warm: back at the first node */
  HPM_REGION_BEGIN(1);
  for (long i = 0; i < loads; i += 8) {
    p = *(char**)p, p = *(char**)p, p = *(char**)p, p = *(char**)p;
    p = *(char**)p, p = *(char**)p, p = *(char**)p, p = *(char**)p;
  }
  HPM_REGION_END(1);
  printf("chase nodes=%ld stride=%ld loads=%ld end=%ld\n", nodes, stride, loads,
         (long)(p - base) / stride);
  return 0;
}

static int fresh_chase(long loads) {
  if (loads < 8 || loads % 8 != 0) usage();
  const char* q = fresh((size_t)loads * 256);
  long v = 0;
  HPM_REGION_BEGIN(4);
  for (long i = 0; i < loads; i += 8, q += 2048) {
    v = *(const long*)(q + v), v = *(const long*)(q + 256 + v);
    v = *(const long*)(q + 512 + v), v = *(const long*)(q + 768 + v);
    v = *(const long*)(q + 1024 + v), v = *(const long*)(q + 1280 + v);
    v = *(const long*)(q + 1536 + v), v = *(const long*)(q + 1792 + v);
  }
  HPM_REGION_END(4);
  printf("fresh loads=%ld value=%ld\n", loads, v);
  return 0;
}

static uint64_t sum(const uint64_t* v, long n) {
  uint64_t s = 0;
  for (long i = 0; i < n; ++i) s += v[i];
  return s;
}

static int seq(long bytes) {
  if (bytes < 1024 || bytes % 8 != 0) usage();
  const long n = bytes / 8;
  uint64_t* v = fresh((size_t)bytes);
  for (long i = 0; i < n; ++i) v[i] = (uint64_t)i;
  uint64_t s = sum(v, n);
  HPM_REGION_BEGIN(2);
  s += sum(v, n);
  HPM_REGION_END(2);
  printf("seq bytes=%ld sum=%llu\n", bytes, (unsigned long long)s);
  return 0;
}

struct triad_job {
  long elements; /* per thread */
  int index;
  int hw;
  pthread_barrier_t* barrier;
  double checksum;
};

/* Unrolled by four, as STREAM's compilers do: the simulation's cost is per instruction. */
static void triad_pass(double* a, const double* b, const double* c, long n) {
  const double s = 3.0;
  long i = 0;
  for (; i + 4 <= n; i += 4) {
    a[i] = b[i] + s * c[i];
    a[i + 1] = b[i + 1] + s * c[i + 1];
    a[i + 2] = b[i + 2] + s * c[i + 2];
    a[i + 3] = b[i + 3] + s * c[i + 3];
  }
  for (; i < n; ++i) a[i] = b[i] + s * c[i];
}

static void* triad_thread(void* arg) {
  struct triad_job* j = arg;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(j->hw, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    perror("sched_setaffinity");
    exit(1);
  }
  const size_t bytes = (size_t)j->elements * sizeof(double);
  double* a = fresh(bytes);
  double* b = fresh(bytes);
  double* c = fresh(bytes);
  pthread_barrier_wait(j->barrier);
  triad_pass(a, b, c, j->elements);
  pthread_barrier_wait(j->barrier);
  HPM_REGION_BEGIN(3);
  triad_pass(a, b, c, j->elements);
  HPM_REGION_END(3);
  j->checksum = a[0] + a[j->elements - 1];
  return NULL;
}

static int triad(long elements, int threads, int cores) {
  const long hw_threads = sysconf(_SC_NPROCESSORS_ONLN);
  if (threads < 1 || threads > kMaxThreads || threads > hw_threads || cores < 1 ||
      hw_threads % cores != 0 || elements < threads) {
    usage();
  }
  static struct triad_job jobs[kMaxThreads];
  static pthread_t tids[kMaxThreads];
  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, NULL, (unsigned)threads);
  const int per_core = (int)(hw_threads / cores);
  for (int i = 0; i < threads; ++i) {
    jobs[i].elements = elements / threads;
    jobs[i].index = i;
    jobs[i].hw = (i % cores) * per_core + i / cores;
    jobs[i].barrier = &barrier;
  }
  for (int i = 1; i < threads; ++i) {
    if (pthread_create(&tids[i], NULL, triad_thread, &jobs[i]) != 0) return 1;
  }
  triad_thread(&jobs[0]);
  double checksum = 0;
  for (int i = 0; i < threads; ++i) {
    if (i > 0) pthread_join(tids[i], NULL);
    checksum += jobs[i].checksum;
  }
  printf("triad elements=%ld threads=%d checksum=%.1f\n", elements, threads, checksum);
  return 0;
}

int main(int argc, char** argv) {
  if (argc >= 5 && strcmp(argv[1], "chase") == 0) {
    return chase(atol(argv[2]), atol(argv[3]), atol(argv[4]));
  }
  if (argc >= 3 && strcmp(argv[1], "fresh") == 0) return fresh_chase(atol(argv[2]));
  if (argc >= 3 && strcmp(argv[1], "seq") == 0) return seq(atol(argv[2]));
  if (argc >= 5 && strcmp(argv[1], "triad") == 0) {
    return triad(atol(argv[2]), atoi(argv[3]), atoi(argv[4]));
  }
  usage();
  return 2;
}
