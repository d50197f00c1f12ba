/* Threshold interrupts through the library (hpmctr_overflow): the handler is called exactly
 * floor(count / period) times, once per interrupt, each time with the count just past a multiple
 * of the period, at increasing cycles.
 *
 *   ctr_threshold EVENT N PERIOD...   (EVENT a generic per-thread event: InstIntMul or
 * Instructions)
 *
 * The thread runs N iterations of (mul, addi, bnez) between a start and a stop store, with a
 * threshold of PERIOD events on its core's counter of EVENT. Checks, per period:
 *   - calls == floor(count / period), and one call per interrupt (no period was passed over);
 *   - the k-th call saw a count in [k x period, k x period + slack]: bgq's PUnit freezes the
 *     counter 4 cycles after the reaching event (docs/upcq.md), so slack = 4 (one instruction per
 *     cycle); on bgp the unit counts until the library's handler stops it, so slack = the events
 *     of the delivery latency (at most one per cycle; bound 192);
 *   - InstIntMul: no handler code multiplies, so on bgp the count is exactly N (the unit is
 *     stopped while the interrupt is handled); on bgq the count is N minus the multiplications
 *     issued while the counter was frozen (between the interrupt and the handler): at most
 *     (latency / 3) each time, bound 64 per call;
 *   - the interrupt cycles increase.
 */
#include <string.h>

#include "ctr_common.h"

#define kMaxRecords 4096

struct record {
  uint64_t count, cycle;
  int counter;
};
static struct record records[kMaxRecords];
static int calls;

static void on_period(hpmctr_unit* u, int counter, uint64_t count, uint64_t cycle, void* context,
                      void* arg) {
  (void)u;
  (void)context;
  (void)arg;
  if (calls < kMaxRecords) records[calls] = (struct record){count, cycle, counter};
  ++calls;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: ctr_threshold EVENT N PERIOD...\n");
    return 2;
  }
  const char* event = argv[1];
  const int muls = strcmp(event, "InstIntMul") == 0;
  const uint64_t n = strtoull(argv[2], NULL, 0);
  hpmctr_unit u = open_core_unit();
  const int bgp = u.machine == HPMCTR_BGP;
  for (int a = 3; a < argc; ++a) {
    const uint64_t period = strtoull(argv[a], NULL, 0);
    hpmctr_reset(&u);
    const int c = add_thread_event(&u, event);
    calls = 0;
    const int r = hpmctr_overflow(&u, c, period, on_period, NULL);
    if (r != 0) die("hpmctr_overflow", r);
    mul_loop_counted(run_register(&u), n);
    /* An interrupt raised just before the stop is delivered within monitor.poll_cycles. */
    for (volatile int i = 0; i < 200; ++i) {
    }
    const uint64_t count = hpmctr_count(&u, c);
    char what[128];
    printf("period %" PRIu64 ": %s count %" PRIu64 ", %d calls\n", period, event, count, calls);
    snprintf(what, sizeof what, "period=%" PRIu64 " calls == floor(count / period)", period);
    check_eq(what, (uint64_t)calls, count / period);
    snprintf(what, sizeof what, "period=%" PRIu64 " interrupts == calls", period);
    check_eq(what, hpmctr_overflow_signals(&u, c), (uint64_t)calls);
    if (muls && bgp) {
      snprintf(what, sizeof what, "period=%" PRIu64 " count == N", period);
      check_eq(what, count, n);
    } else if (muls) {
      snprintf(what, sizeof what, "period=%" PRIu64 " count (N less frozen)", period);
      check_range(what, count, n > 64 * (uint64_t)calls ? n - 64 * (uint64_t)calls : 0, n);
    }
    const uint64_t slack = bgp ? 192 : 4;
    uint64_t worst = 0;
    int in_range = 1, increasing = 1, right_counter = 1;
    for (int k = 0; k < calls && k < kMaxRecords; ++k) {
      const uint64_t target = (uint64_t)(k + 1) * period;
      const uint64_t seen = records[k].count;
      if (seen < target || seen > target + slack) {
        in_range = 0;
        printf("  call %d: count %" PRIu64 ", want [%" PRIu64 ", %" PRIu64 "]\n", k + 1, seen,
               target, target + slack);
      }
      if (seen >= target && seen - target > worst) worst = seen - target;
      if (k > 0 && records[k].cycle <= records[k - 1].cycle) increasing = 0;
      if (records[k].counter != c) right_counter = 0;
    }
    snprintf(what, sizeof what,
             "period=%" PRIu64 " each call's count in [k period, k period + %" PRIu64
             "] (worst +%" PRIu64 ")",
             period, slack, worst);
    check_true(what, in_range);
    snprintf(what, sizeof what, "period=%" PRIu64 " interrupt cycles increase", period);
    check_true(what, increasing);
    snprintf(what, sizeof what, "period=%" PRIu64 " siginfo names the counter", period);
    check_true(what, right_counter);
    hpmctr_overflow(&u, c, 0, NULL, NULL);
  }
  hpmctr_close(&u);
  return finish();
}
