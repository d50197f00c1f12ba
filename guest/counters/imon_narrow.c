/* Narrow stores to the interconnect monitor's registers (tests/counters, GuestInterconnect):
 * a 1-, 2- or 4-byte store never runs a register's read side effects. Counter 1 of monitor 0
 * feeds the 8-entry FIFO with the reads of a fresh 64 KiB buffer (more lines than the FIFO
 * holds: it drops records and counts them); then, with the monitor stopped:
 *   - a 1-byte store to FIFO_POP pops nothing (the FIFO still holds its 8 records),
 *   - 1-, 2- and 4-byte stores to FIFO_STATUS leave the lost count (a read clears it),
 *   - a 1-byte store to a filter register merges into its value (no read side effects there).
 *
 *   imon_narrow */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ctr_common.h"
#include "hpm/imon.h"

#define BUFFER_BYTES (UINT64_C(1) << 16)

/* Register `off` of monitor 0, as bytes. */
static volatile uint8_t* reg8(hpm_imon* m, unsigned off) {
  return (volatile uint8_t*)m->regs + HPM_IMON_REG_MONITOR(0) + off;
}

int main(void) {
  hpm_imon m;
  const int err = hpm_imon_open(&m);
  if (err != 0) die("hpm_imon_open", err);
  volatile uint64_t* buf = aligned_alloc(BUFFER_BYTES, BUFFER_BYTES);
  if (!buf) die("aligned_alloc", 0);
  struct hpm_imon_filter f;
  hpm_imon_filter_any(&f);
  f.types = HPM_IMON_BIT(HPM_IMON_READ) | HPM_IMON_BIT(HPM_IMON_PREFETCH);
  f.addr_match = (uint64_t)(uintptr_t)buf;
  f.addr_mask = ~(BUFFER_BYTES - 1);
  if (hpm_imon_set_filter(&m, 1, &f) != 0) die("hpm_imon_set_filter", 0);
  hpm_imon_fifo_enable(&m, 0, 1);
  hpm_imon_run(&m, 1);
  uint64_t sum = 0;
  for (uint64_t w = 0; w < BUFFER_BYTES / 8; ++w) sum += buf[w];
  hpm_imon_run(&m, 0);
  hpm_imon_fifo_enable(&m, 0, 0);
  check_eq("buffer sum (never written: zero)", sum, 0);
  const uint64_t count = hpm_imon_read(&m, 1);
  check_true("more matches than the FIFO holds", count > 8);

  /* Stores to FIFO_POP and FIFO_STATUS: none may pop or clear. */
  *reg8(&m, HPM_IMON_FIFO_POP_OFF) = 1;
  *reg8(&m, HPM_IMON_FIFO_POP_OFF + 3) = 1;
  *(volatile uint16_t*)reg8(&m, HPM_IMON_FIFO_POP_OFF + 2) = 1;
  *(volatile uint32_t*)reg8(&m, HPM_IMON_FIFO_POP_OFF + 4) = 1;
  *reg8(&m, HPM_IMON_FIFO_STATUS_OFF) = 0;
  *(volatile uint16_t*)reg8(&m, HPM_IMON_FIFO_STATUS_OFF + 6) = 0;
  *(volatile uint32_t*)reg8(&m, HPM_IMON_FIFO_STATUS_OFF + 4) = 0;
  static struct hpm_imon_record records[8];
  uint64_t lost = 0;
  const unsigned held = hpm_imon_fifo_sample(&m, 0, records, 8, &lost);
  check_eq("the FIFO still holds its 8 records", held, 8);
  check_eq("records held + lost = counter 1 (none popped, none uncounted)", held + lost, count);

  /* A filter register merges a narrow store into its value. */
  volatile uint64_t* match = (volatile uint64_t*)reg8(&m, HPM_IMON_ADDR_MATCH_OFF);
  *match = UINT64_C(0x1122334455667788);
  *reg8(&m, HPM_IMON_ADDR_MATCH_OFF + 1) = 0xaa;
  *(volatile uint32_t*)reg8(&m, HPM_IMON_ADDR_MATCH_OFF + 4) = 0xccddeeffu;
  check_eq("a filter register takes the narrow stores' bytes", *match,
           UINT64_C(0xccddeeff5566aa88));
  printf("imon_narrow: %" PRIu64 " matched, %u held, %" PRIu64 " lost\n", count, held, lost);
  hpm_imon_close(&m);
  return finish();
}
