/* An SRAM parity fault injected by the host (hpmsim run --sram-fault, docs/counters.md "Fault
 * injection"), seen by the program on UPC-P (bgp).
 *
 *   ctr_parity interrupt|poll [DEADLINE]
 *
 * Counts the thread's instructions on its core's counter and reads it in a loop until the unit
 * reports a parity error, or until cycle DEADLINE (default 4,000,000). interrupt: with
 * hpmctr_on_parity_error, whose handler notes the counter and cycle and repairs the entry by
 * writing back the last good value; poll: with parity interrupts off, watching PARITY_STATUS
 * (hpmctr_parity_status). Prints "parity error: counter C at cycle X" (interrupt) or "parity
 * status: counter C" (poll), and checks that one read was off by 2^L, the flipped bit's weight
 * in the entry's lowest data bit (besides the loop's own instructions), and in interrupt mode
 * that the repaired counter then counts on normally. Exits 0 when the checks hold. */
#include <string.h>

#include "ctr_common.h"

static inline uint64_t rdcycle(void) {
  uint64_t c;
  __asm__ volatile("rdcycle %0" : "=r"(c));
  return c;
}

static volatile int reported = -1;
static volatile uint64_t reported_cycle;
static volatile uint64_t last_good;

static void on_parity(hpmctr_unit* u, int counter, uint64_t cycle, void* context, void* arg) {
  (void)context;
  (void)arg;
  reported = counter;
  reported_cycle = cycle;
  hpmctr_write(u, counter, last_good); /* a fresh word with fresh parity */
}

int main(int argc, char** argv) {
  const int interrupt = argc > 1 && strcmp(argv[1], "interrupt") == 0;
  const uint64_t deadline = argc > 2 ? strtoull(argv[2], NULL, 0) : 4000000;
  hpmctr_unit u = open_core_unit();
  if (u.kind != HPMCTR_UPC) {
    printf("no SRAM: UPC-P (bgp) only\n");
    return 2;
  }
  const int c = add_thread_event(&u, "Instructions");
  printf("counter %d, parity interrupts %s\n", c, interrupt ? "on" : "off");
  if (interrupt) {
    const int r = hpmctr_on_parity_error(&u, on_parity, NULL);
    if (r != 0) die("hpmctr_on_parity_error", r);
  }
  hpmctr_start(&u);
  int64_t largest = 0; /* the largest difference of two consecutive reads, signed by size */
  uint64_t previous = hpmctr_read(&u, c);
  int status = -1;
  while (rdcycle() < deadline) {
    const uint64_t now = hpmctr_read(&u, c);
    const int64_t step = (int64_t)(now - previous);
    if ((step < 0 ? -step : step) > (largest < 0 ? -largest : largest)) largest = step;
    previous = now;
    if (interrupt ? reported >= 0 : (status = hpmctr_parity_status(&u)) >= 0) break;
    last_good = now;
  }
  hpmctr_stop(&u);
  const uint64_t weight = 1ULL << u.low_bits;
  const uint64_t off = (uint64_t)(largest < 0 ? -largest : largest);
  if (interrupt) {
    if (reported < 0) die("no parity interrupt by the deadline", -1);
    printf("parity error: counter %d at cycle %" PRIu64 "\n", reported, reported_cycle);
    check_eq("the failing counter", (uint64_t)reported, (uint64_t)c);
    check_eq("parity handler calls", u.parity_calls, 1);
    /* Repaired: counting goes on from the value written back. */
    const uint64_t repaired = hpmctr_read(&u, c);
    hpmctr_start(&u);
    for (int i = 0; i < 100; ++i) (void)hpmctr_read(&u, c);
    hpmctr_stop(&u);
    check_range("counted after the repair", hpmctr_read(&u, c) - repaired, 200, 2000);
    check_eq("no parity error since", (uint64_t)(hpmctr_parity_status(&u) + 1), 0);
  } else {
    if (status < 0) die("no parity status by the deadline", -1);
    printf("parity status: counter %d\n", status);
    check_eq("the failing counter", (uint64_t)status, (uint64_t)c);
  }
  check_range("the largest step between two reads (2^L off)", off, weight - 64, weight + 64);
  hpmctr_close(&u);
  return finish();
}
