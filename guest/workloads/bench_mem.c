// bench_mem: a memory-bound benchmark over a working set of SIZE MiB (argument, default 48):
// STREAM-style copy/scale/add/triad passes over three arrays that together take SIZE MiB,
// then dependent pointer chasing through a random cyclic permutation of 64-byte nodes that
// fills another SIZE MiB (every load misses in any cache smaller than that). Prints a
// checksum. Roughly 560 million instructions at the default size (the work is proportional).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct Node {
  struct Node* next;
  uint64_t payload[7];  // pad to 64 bytes: one node per cache line
} Node;

int main(int argc, char** argv) {
  long mib = argc > 1 ? atol(argv[1]) : 48;
  if (mib < 1 || mib > 4096) {
    fprintf(stderr, "usage: bench_mem [MiB in 1..4096]\n");
    return 2;
  }
  size_t n = (size_t)mib * 1024 * 1024 / (3 * sizeof(double));
  double* a = malloc(n * sizeof *a);
  double* b = malloc(n * sizeof *b);
  double* c = malloc(n * sizeof *c);
  size_t nodes = (size_t)mib * 1024 * 1024 / sizeof(Node);
  Node* pool = malloc(nodes * sizeof *pool);
  uint32_t* order = malloc(nodes * sizeof *order);
  if (!a || !b || !c || !pool || !order) {
    fprintf(stderr, "bench_mem: out of memory\n");
    return 1;
  }
  for (size_t i = 0; i < n; ++i) {
    a[i] = 1.0;
    b[i] = 2.0;
    c[i] = 0.0;
  }
  // STREAM kernels, 8 rounds of the four.
  const double s = 3.0;
  for (int round = 0; round < 8; ++round) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i];
    for (size_t i = 0; i < n; ++i) b[i] = s * c[i];
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    for (size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
  }
  double sum = 0.0;
  for (size_t i = 0; i < n; i += 4096) sum += a[i] + b[i] + c[i];

  // A random cyclic permutation (Sattolo's algorithm) links every node into one cycle.
  uint64_t seed = 0x9e3779b97f4a7c15ULL;
  for (size_t i = 0; i < nodes; ++i) order[i] = (uint32_t)i;
  for (size_t i = nodes - 1; i > 0; --i) {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    size_t j = seed % i;
    uint32_t t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (size_t i = 0; i < nodes; ++i) {
    pool[order[i]].next = &pool[order[(i + 1) % nodes]];
    pool[order[i]].payload[0] = i;
  }
  Node* p = &pool[order[0]];
  uint64_t acc = 0;
  size_t steps = nodes * 24;
  for (size_t i = 0; i < steps; ++i) {
    acc += p->payload[0];
    p = p->next;
  }
  printf("bench_mem size=%ldMiB stream_sum=%.6e chase_steps=%zu chase_acc=%llu\n", mib, sum, steps,
         (unsigned long long)acc);
  free(a);
  free(b);
  free(c);
  free(pool);
  free(order);
  return 0;
}
