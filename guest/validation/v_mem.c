// v_mem: memory-hierarchy validation kernels (tests/validation, docs/timing.md sections 5, 6).
//
//   v_mem KERNEL N [THREADS [STRIDE]]
//
// Runs KERNEL for N measured iterations (after three warm-up calls of 20 iterations) on
// THREADS threads (default 1), thread i on hardware thread i * STRIDE (default 1; 4 puts one
// thread on each core), each with its own data and in the kernel's region.
//
// Pointer chases (8 dependent loads per iteration) over a random cyclic order of nodes, one
// node per line, all nodes of one L1D set (2 KiB apart) except for l1:
//   l1     32 nodes 64 bytes apart: every load hits the L1D
//   l1p    16 nodes 2 KiB apart: one 8-way L1D set cycles through 16 lines (every load misses
//          the L1D) while the 16 L2 lines fit in the 32-entry L1P (every load hits it)
//   l2     40 nodes 4 KiB apart: misses the L1D and the L1P (40 lines cycle through 32 entries),
//          hits the L2 (the nodes were written first)
// Each warm-up call walks 160 nodes, a whole number of rings, so the measured walk starts at
// the ring's least recently used node and continues the cycle (no leftover hits).
//   ddr    dependent loads of fresh memory, 256 bytes apart: every load goes to DDR
// Streams (16 independent loads per iteration, one per 256 bytes of a 4 KiB block; 16 L2 lines
// in 16 different slices, never the next line, so the L1P does not prefetch):
//   l2stream   over a buffer written first (L2 hits): bound by the load-miss queue
//   ddrstream  over fresh memory (L2 misses): with many cores, bound by DDR bandwidth
#include <stdint.h>
#include <sys/mman.h>

#include "hpm/region.h"
#include "vmain.h"

HPM_REGION_NAME(10, "chase");
HPM_REGION_NAME(11, "fresh_chase");
HPM_REGION_NAME(12, "stream");

void vk_chase(long n, long p, long x, long n_warm, long p_warm);
void vk_fresh_chase(long n, long p, long x, long n_warm, long p_warm);
void vk_stream(long n, long p, long x, long n_warm, long p_warm);

enum { kWarm = 20 };

static const struct vk_kernel kKernels[] = {
    {"l1", vk_chase},        {"l1p", vk_chase},        {"l2", vk_chase}, {"ddr", vk_fresh_chase},
    {"l2stream", vk_stream}, {"ddrstream", vk_stream}, {NULL, NULL},
};

// Fresh, page-aligned memory (mmap): never touched until the kernel or the setup touches it.
static char* fresh(size_t bytes) {
  void* p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  return (char*)p;
}

// A random cyclic order (Sattolo) of `count` nodes `spacing` bytes apart: each node holds the
// address of the next. Returns the first node.
static long chase_ring(char* base, int count, size_t spacing, uint64_t seed) {
  int order[64];
  for (int i = 0; i < count; ++i) order[i] = i;
  for (int i = count - 1; i > 0; --i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const int j = (int)((seed >> 33) % (uint64_t)i);
    const int t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (int i = 0; i < count; ++i) {
    *(char**)(base + (size_t)order[i] * spacing) = base + (size_t)order[(i + 1) % count] * spacing;
  }
  return (long)(base + (size_t)order[0] * spacing);
}

struct job {
  const struct vk_kernel* kernel;
  long n;
  long p[VK_MAX_THREADS];       // each thread's data (measured call)
  long p_warm[VK_MAX_THREADS];  // and for its warm-up calls
};

static void setup(int index, void* arg) {
  struct job* j = (struct job*)arg;
  const char* name = j->kernel->name;
  const uint64_t seed = 12345u + (uint64_t)index;
  long p = 0, p_warm = 0;
  if (strcmp(name, "l1") == 0) {
    p = p_warm = chase_ring(fresh(4096), 32, 64, seed);
  } else if (strcmp(name, "l1p") == 0) {
    p = p_warm = chase_ring(fresh(16 * 2048), 16, 2048, seed);
  } else if (strcmp(name, "l2") == 0) {
    p = p_warm = chase_ring(fresh(40 * 4096), 40, 4096, seed);
  } else if (strcmp(name, "ddr") == 0) {
    p = (long)fresh((size_t)j->n * 2048);
    p_warm = (long)fresh(kWarm * 2048);
  } else {
    char* measured = fresh((size_t)j->n * 4096);
    if (strcmp(name, "l2stream") == 0) memset(measured, 1, (size_t)j->n * 4096);
    p = (long)measured;
    p_warm = (long)fresh(kWarm * 4096);
  }
  j->p[index] = p;
  j->p_warm[index] = p_warm;
}

static void run(int index, void* arg) {
  const struct job* j = (const struct job*)arg;
  j->kernel->driver(j->n, j->p[index], 0, kWarm, j->p_warm[index]);
}

int main(int argc, char** argv) {
  const struct vk_kernel* k = argc > 1 ? vk_find(kKernels, argv[1]) : NULL;
  if (k == NULL) vk_usage(argv[0], kKernels, "N [THREADS [STRIDE]]");
  static struct job j;
  j.kernel = k;
  j.n = vk_arg(argc, argv, 2, 100);
  const int threads = (int)vk_arg(argc, argv, 3, 1);
  const int stride = (int)vk_arg(argc, argv, 4, 1);
  if (j.n < 1 || stride < 1) vk_usage(argv[0], kKernels, "N [THREADS [STRIDE]]");
  vk_run_threads(threads, stride, setup, run, &j);
  printf("v_mem %s n=%ld threads=%d stride=%d\n", k->name, j.n, threads, stride);
  return 0;
}
