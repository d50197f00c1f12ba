/* The interconnect monitor from a program (hpm/imon.h; tests/counters, Interconnect*): a
 * 1 MiB-aligned buffer of 1 MiB, never touched before, is read once, line by line; counter 0
 * counts the reads and prefetches whose address trits put them in the buffer, counter 1 the same
 * and feeds the FIFO, which the program samples as it reads, every `every` L2 lines.
 *
 *   imon_stream LINE_BYTES EVERY [EXPECT]
 *
 * Checks: every record sampled is a read or prefetch of the buffer, in address order, each line
 * at most once; the records taken plus those lost plus those left equal counter 1; counters 0 and
 * 1 agree; and with EXPECT (the L2 lines of the buffer, when the run disables the L1P's
 * prefetcher) counter 0 equals it and, sampling often enough to lose nothing, every line was seen
 * exactly once. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ctr_common.h"
#include "hpm/imon.h"

#define BUFFER_BYTES (UINT64_C(1) << 20)

int main(int argc, char** argv) {
  if (argc < 3) {
    printf("usage: imon_stream LINE_BYTES EVERY [EXPECT]\n");
    return 2;
  }
  const uint64_t line = strtoull(argv[1], 0, 0);
  const uint64_t every = strtoull(argv[2], 0, 0);
  const int exact = argc > 3;
  const uint64_t expect = exact ? strtoull(argv[3], 0, 0) : 0;
  hpm_imon m;
  const int err = hpm_imon_open(&m);
  if (err != 0) die("hpm_imon_open", err);
  check_true("the unit has a FIFO of 8 and two monitors", m.fifo_entries == 8 && m.monitors == 2);

  volatile uint64_t* buf = aligned_alloc(BUFFER_BYTES, BUFFER_BYTES);
  if (!buf) die("aligned_alloc", 0);
  const uint64_t base = (uint64_t)(uintptr_t)buf;

  struct hpm_imon_filter f;
  hpm_imon_filter_any(&f);
  f.types = HPM_IMON_BIT(HPM_IMON_READ) | HPM_IMON_BIT(HPM_IMON_PREFETCH);
  f.addr_match = base;
  f.addr_mask = ~(BUFFER_BYTES - 1); /* the low 20 trits X: the buffer */
  if (hpm_imon_set_filter(&m, 0, &f) != 0 || hpm_imon_set_filter(&m, 1, &f) != 0) {
    die("hpm_imon_set_filter", 0);
  }
  check_true("counter 4 does not exist", hpm_imon_set_filter(&m, 4, &f) != 0);
  hpm_imon_fifo_enable(&m, 0, 1);
  hpm_imon_run(&m, 1);

  const uint64_t lines = BUFFER_BYTES / line;
  static struct hpm_imon_record records[8];
  uint64_t sum = 0, taken = 0, lost = 0, last = 0, order_ok = 1, inside = 1, reads = 1;
  unsigned char* seen = calloc(lines, 1);
  for (uint64_t l = 0; l < lines; ++l) {
    for (uint64_t w = 0; w < line / 8; ++w) sum += buf[l * line / 8 + w];
    if ((l + 1) % every != 0 && l + 1 != lines) continue;
    const unsigned n = hpm_imon_fifo_sample(&m, 0, records, 8, &lost);
    for (unsigned i = 0; i < n; ++i) {
      const uint64_t a = records[i].address;
      inside &= a >= base && a < base + BUFFER_BYTES;
      reads &= records[i].type == HPM_IMON_READ || records[i].type == HPM_IMON_PREFETCH;
      order_ok &= taken == 0 || a > last;
      last = a;
      if (a >= base && a < base + BUFFER_BYTES) seen[(a - base) / line]++;
      ++taken;
    }
  }
  hpm_imon_run(&m, 0);
  hpm_imon_fifo_enable(&m, 0, 0);
  const uint64_t count0 = hpm_imon_read(&m, 0), count1 = hpm_imon_read(&m, 1);
  /* What the FIFO still holds after the last sample (none: the last line was sampled). */
  const unsigned left = hpm_imon_fifo_sample(&m, 0, records, 8, &lost);

  check_eq("buffer sum (never written: zero)", sum, 0);
  check_true("every record is a read or prefetch of the buffer", inside && reads);
  check_true("records come in address order", order_ok);
  check_eq("counters 0 and 1 agree", count0, count1);
  check_eq("records taken + lost + left = counter 1", taken + lost + left, count1);
  uint64_t once = 0;
  for (uint64_t l = 0; l < lines; ++l) once += seen[l] == 1;
  printf("imon: %" PRIu64 " counted, %" PRIu64 " taken, %" PRIu64 " lost\n", count1, taken, lost);
  if (exact) {
    check_eq("counter 0 = the buffer's lines", count0, expect);
    if (every < 8) {
      check_eq("nothing lost", lost, 0);
      check_eq("every line seen exactly once", once, lines);
    } else {
      check_true("sampling every 8 lines or more loses records", lost > 0);
    }
  }
  hpm_imon_close(&m);
  return finish();
}
