/* The L1P list prefetcher's gain (docs/timing.md "The list prefetcher", docs/papi.md):
 *
 *   list_prefetch [NODES]   (default 4096 nodes of 128 bytes: 512 KiB)
 *
 * walks NODES nodes in a fixed random order, each step's address depending on the value the
 * step before loaded (a chase: one L1D miss at a time), several times:
 *
 *   warm-up            no list: the nodes reach the L2, so the runs that follow differ only in
 *                      what the L1P holds
 *   region 1 "record"  L1P_PatternStart(1): the list prefetcher records the misses
 *   region 2 "replay"  L1P_PatternStart(1): it replays them (and records again): the misses
 *                      find their lines in the L1P, the run is faster
 *   deviating          L1P_PatternStart(0): steps skipped (1 to 7 entries) and stray misses
 *                      (compares that skip and that mismatch)
 *   abandoned          a threshold of 4 and another order: the list is abandoned
 *   overflowing        lists of 64 entries: the recording fills its memory
 *
 * It prints only checksums of the walks, so its output is the same under qemu-riscv64, where the
 * list prefetcher calls do nothing (no /dev/hpm/l1p). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hpm/region.h"
#include "l1p/pprefetch.h"

HPM_REGION_NAME(1, "record");
HPM_REGION_NAME(2, "replay");

typedef struct {
  uint64_t link; /* always 0: makes the next step's address depend on this load */
  uint64_t pad[15];
} node;

static node* nodes;
static uint32_t* order;
static uint64_t* stray;

/* Steps through order[first..last) (backwards if `back`), skipping and straying if `deviate`. */
static uint64_t walk(uint32_t n, int deviate, int back, uint32_t steps) {
  uint64_t v = 0, sum = 0;
  for (uint32_t s = 0; s < steps; ++s) {
    const uint32_t i = back ? n - 1 - s : s;
    const uint32_t idx = order[i] ^ (uint32_t)v;
    v = nodes[idx].link;
    sum += idx;
    if (deviate && s % 97 == 50) s += 1 + (s / 97) % 7;                 /* skip 1..7 nodes */
    if (deviate && s % 211 == 100) v += stray[(s * 17u) % 4096u * 16u]; /* a miss off the list */
  }
  return sum;
}

int main(int argc, char** argv) {
  const uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 4096;
  if (n < 64) return 2;
  nodes = aligned_alloc(128, (size_t)n * sizeof(node));
  order = malloc((size_t)n * sizeof(uint32_t));
  stray = aligned_alloc(128, 4096u * 128u);
  if (!nodes || !order || !stray) return 2;
  for (uint32_t i = 0; i < n; ++i) nodes[i].link = 0, order[i] = i;
  for (uint32_t i = 0; i < 4096u * 16u; ++i) stray[i] = 0;
  uint64_t x = 88172645463325252ull;
  for (uint32_t i = n - 1; i > 0; --i) { /* Fisher-Yates with xorshift64 */
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const uint32_t j = (uint32_t)(x % (i + 1));
    const uint32_t t = order[i];
    order[i] = order[j], order[j] = t;
  }

  uint64_t sums[6];
  sums[0] = walk(n, 0, 0, n);
  const int configured = L1P_PatternConfigure(n + n / 8 + 64);

  L1P_PatternStart(1);
  HPM_REGION_BEGIN(1);
  sums[1] = walk(n, 0, 0, n);
  HPM_REGION_END(1);
  L1P_PatternStop();

  L1P_PatternStart(1);
  HPM_REGION_BEGIN(2);
  sums[2] = walk(n, 0, 0, n);
  HPM_REGION_END(2);
  L1P_PatternStop();

  L1P_PatternStart(0);
  sums[3] = walk(n, 1, 0, n);
  L1P_PatternStop();

  L1P_PatternSetAbandonThreshold(4);
  L1P_PatternStart(0);
  sums[4] = walk(n, 0, 1, n / 8);
  L1P_PatternStop();
  L1P_PatternUnconfigure();

  L1P_PatternConfigure(64);
  L1P_PatternStart(1);
  sums[5] = walk(n, 0, 0, n / 16);
  L1P_PatternStop();
  L1P_PatternUnconfigure();

  /* (Whether the list prefetcher exists is not printed: qemu has none.) */
  (void)configured;
  for (int k = 0; k < 6; ++k) printf("walk %d: %llu\n", k, (unsigned long long)sums[k]);
  return 0;
}
