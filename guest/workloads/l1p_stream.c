/* The L1P stream prefetcher's depth adaptation (docs/timing.md "The stream prefetcher"):
 *
 *   l1p_stream ADAPTIVE [KIB]   (ADAPTIVE 1: L1P_SetStreamAdaptiveMode(1), 0: off; default 1;
 *                                KIB per array, default 128)
 *
 * first checks that the stream prefetcher's register reads back what the SPI calls write (exit
 * status 3 if not), then sums never-touched arrays (so every line comes from DDR) in three
 * regions, each a loop that outruns the prefetches of the initial depth (they are late):
 *
 *   region 1 "one"    one stream: with adaptation on, its late hits deepen it within the budget
 *   region 2 "two"    two streams
 *   region 3 "four"   four streams, whose initial depths already use the whole budget: each late
 *                     hit's line of depth is stolen from another stream
 * (PEVT_L1P_STRM_STRM_DEPTH_STEAL)
 *
 * It prints only checksums, so its output is the same under qemu-riscv64, where the calls do
 * nothing (no /dev/hpm/l1p). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hpm/region.h"
#include "l1p/sprefetch.h"

HPM_REGION_NAME(1, "one");
HPM_REGION_NAME(2, "two");
HPM_REGION_NAME(3, "four");

/* Every field the calls set reads back as written; out-of-range values change nothing. */
static int registerReadsBack(void) {
  uint32_t depth = 0, total = 0;
  int adaptive = -1;
  L1P_StreamPolicy_t policy = 0;
  if (L1P_SetStreamDepth(5) != 0 || L1P_GetStreamDepth(&depth) != 0 || depth != 5) return 0;
  if (L1P_SetStreamDepth(9) != L1P_PARMRANGE || L1P_SetStreamDepth(0) != L1P_PARMRANGE) return 0;
  if (L1P_GetStreamDepth(&depth) != 0 || depth != 5) return 0;
  if (L1P_SetStreamTotalDepth(16) != 0 || L1P_GetStreamTotalDepth(&total) != 0 || total != 16)
    return 0;
  if (L1P_SetStreamTotalDepth(17) != L1P_PARMRANGE) return 0;
  if (L1P_GetStreamTotalDepth(&total) != 0 || total != 16) return 0;
  const L1P_StreamPolicy_t all[] = {L1P_stream_optimistic, L1P_stream_confirmed,
                                    L1P_confirmed_or_dcbt, L1P_stream_disable};
  for (int k = 0; k < 4; ++k) {
    if (L1P_SetStreamPolicy(all[k]) != 0 || L1P_GetStreamPolicy(&policy) != 0) return 0;
    if (policy != all[k]) return 0;
  }
  if (L1P_SetStreamPolicy((L1P_StreamPolicy_t)7) != L1P_PARMRANGE) return 0;
  for (int on = 0; on < 2; ++on) {
    if (L1P_SetStreamAdaptiveMode(on) != 0 || L1P_GetStreamAdaptiveMode(&adaptive) != 0) return 0;
    if (adaptive != on) return 0;
  }
  return 1;
}

/* Sums of every fourth element (four of a 128-byte line): faster than DDR delivers lines to
 * streams of the initial depth. */
static uint64_t one(const uint64_t* a, size_t n) {
  uint64_t s = 1;
  for (size_t i = 0; i < n; i += 4) s += a[i];
  return s;
}

static uint64_t two(const uint64_t* a, const uint64_t* b, size_t n) {
  uint64_t s = 1;
  for (size_t i = 0; i < n; i += 4) s += a[i] + b[i];
  return s;
}

static uint64_t four(const uint64_t* a, const uint64_t* b, const uint64_t* c, const uint64_t* d,
                     size_t n) {
  uint64_t s = 1;
  for (size_t i = 0; i < n; i += 4) s += (a[i] + b[i]) + (c[i] + d[i]);
  return s;
}

int main(int argc, char** argv) {
  const int adaptive = argc > 1 ? atoi(argv[1]) : 1;
  const size_t kib = argc > 2 ? strtoul(argv[2], NULL, 0) : 128;
  const size_t n = kib * 1024 / sizeof(uint64_t);
  uint64_t* arrays[7];
  for (int k = 0; k < 7; ++k) {
    arrays[k] = aligned_alloc(128, n * sizeof(uint64_t)); /* never written: zeros from DDR */
    if (arrays[k] == NULL) return 2;
  }
  uint32_t depth = 0, total = 0;
  L1P_StreamPolicy_t policy = 0;
  if (L1P_GetStreamDepth(&depth) == 0) {
    /* (A machine with the device: its register, then the machine's policy and depths again.) */
    if (L1P_GetStreamTotalDepth(&total) != 0 || L1P_GetStreamPolicy(&policy) != 0) return 3;
    if (!registerReadsBack()) return 3;
    if (L1P_SetStreamPolicy(policy) != 0 || L1P_SetStreamDepth(depth) != 0 ||
        L1P_SetStreamTotalDepth(total) != 0 || L1P_SetStreamAdaptiveMode(adaptive) != 0) {
      return 3;
    }
  }

  uint64_t sums[3];
  HPM_REGION_BEGIN(1);
  sums[0] = one(arrays[0], n);
  HPM_REGION_END(1);
  HPM_REGION_BEGIN(2);
  sums[1] = two(arrays[1], arrays[2], n);
  HPM_REGION_END(2);
  HPM_REGION_BEGIN(3);
  sums[2] = four(arrays[3], arrays[4], arrays[5], arrays[6], n);
  HPM_REGION_END(3);
  for (int k = 0; k < 3; ++k) printf("sum %d: %llu\n", k, (unsigned long long)sums[k]);
  return 0;
}
