/* Slow overflow end to end (bgq's I/O unit; docs/upcq.md, "Slow overflow: L2Unit and IOUnit"):
 * a threshold is detected at the sweep, counting continues until the handler runs, the unit is
 * held while the handler runs and released by its acknowledge.
 *
 *   ctr_slow_overflow N PERIOD HANDLER_WRITES
 *
 * The I/O unit counts PEVT_IO_WRITES with a threshold of PERIOD (hpmctr_overflow); the program
 * makes N one-byte writes to /dev/null, and the handler makes HANDLER_WRITES more each time it is
 * called. Checks:
 *   - the handler is called exactly floor(N / PERIOD) times (several times from one interrupt
 *     when the count passed several periods by the sweep that detected it: the library calls it
 *     once per period), and every interrupt calls it at least once;
 *   - each interrupt is raised in a cycle of the counter's sweep slot (counter c of the I/O unit
 *     is visited at the cycles v with v mod S = c, S the sweep period from SWEEP_INFO; the
 *     machine's sweep phase is 0): detected at the sweep, not at the event;
 *   - in the handler RUN reads run | hold (3): the unit is held from the delivery;
 *   - in the handler, the count once settled (read after more than a sweep period) is at least
 *     k x PERIOD on the k-th call (the reaching write came before the interrupt) and does not
 *     change over the handler's own writes (held: they are not counted);
 *   - after the handler, RUN reads run (1): the acknowledge released the hold;
 *   - the final count is exactly N: every write of the program is counted, also those made
 *     between the detection and the handler (counting continues: nothing is frozen), and none of
 *     the handler's;
 *   - some writes were counted between a detection and its handler (settled count in the handler
 *     above the lagging count the library read at the detection's sweep): the previous check
 *     would catch a freeze.
 */
#include <fcntl.h>
#include <unistd.h>

#include "ctr_common.h"

#define kMaxRecords 1024

struct record {
  uint64_t count;         /* what the library read (COUNTER, as of the last sweep) */
  uint64_t settled;       /* COUNTER after a sweep period in the handler */
  uint64_t settled_after; /* ... and after the handler's writes and another sweep period */
  uint64_t run;           /* RUN in the handler */
  uint64_t cycle;         /* when the unit raised the interrupt */
  int counter;
};
static struct record records[kMaxRecords];
static int calls;
static int fd = -1;
static uint64_t handler_writes;

static void pause_cycles(int n) {
  for (volatile int i = 0; i < n; ++i) {
  }
}

static void on_period(hpmctr_unit* u, int counter, uint64_t count, uint64_t cycle, void* context,
                      void* arg) {
  (void)context;
  (void)arg;
  struct record r = {count, 0, 0, u->regs[u->run_reg], cycle, counter};
  pause_cycles(1000); /* more than a sweep period: the local register moved into COUNTER */
  r.settled = hpmctr_read(u, counter);
  for (uint64_t i = 0; i < handler_writes; ++i) (void)!write(fd, "h", 1);
  pause_cycles(1000);
  r.settled_after = hpmctr_read(u, counter);
  if (calls < kMaxRecords) records[calls] = r;
  ++calls;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: ctr_slow_overflow N PERIOD HANDLER_WRITES\n");
    return 2;
  }
  const uint64_t n = strtoull(argv[1], NULL, 0);
  const uint64_t period = strtoull(argv[2], NULL, 0);
  handler_writes = strtoull(argv[3], NULL, 0);
  hpmctr_unit u;
  int r = hpmctr_open(&u, HPMCTR_IO, 0);
  if (r != 0) die("hpmctr_open io", r);
  const uint64_t sweep_info = u.regs[u.run_reg + 4]; /* SWEEP_INFO, control block + 0x20 */
  const uint64_t sweep = sweep_info & 0xffffffffu;
  const uint64_t slot_cycles = sweep_info >> 48;
  const int c = hpmctr_add_name(&u, "PEVT_IO_WRITES", HPMCTR_LEVEL_HIGH);
  if (c < 0) die("PEVT_IO_WRITES", c);
  fd = open("/dev/null", O_WRONLY);
  if (fd < 0) die("open /dev/null", -1);
  r = hpmctr_overflow(&u, c, period, on_period, NULL);
  if (r != 0) die("hpmctr_overflow", r);
  hpmctr_start(&u);
  for (uint64_t i = 0; i < n; ++i) (void)!write(fd, "x", 1);
  /* The last crossing is detected within a sweep period, delivered within monitor.poll_cycles. */
  pause_cycles(2000);
  const uint64_t run_after = u.regs[u.run_reg];
  hpmctr_stop(&u);
  pause_cycles(1000); /* settle COUNTER */
  const uint64_t count = hpmctr_count(&u, c);
  const uint64_t interrupts = hpmctr_overflow_signals(&u, c);
  printf("period %" PRIu64 ": PEVT_IO_WRITES count %" PRIu64 ", %d calls, %" PRIu64 " interrupts\n",
         period, count, calls, interrupts);

  check_eq("count == N (none of the handler's writes, none of the program's lost)", count, n);
  check_eq("calls == floor(N / period)", (uint64_t)calls, n / period);
  check_eq("RUN after the handlers (run, no hold)", run_after, 1);
  int at_sweep = 1, held = 1, reached = 1, unchanged = 1, right_counter = 1, increasing = 1;
  uint64_t after_detection = 0, calling_interrupts = 0;
  for (int k = 0; k < calls && k < kMaxRecords; ++k) {
    const struct record* rec = &records[k];
    const uint64_t target = (uint64_t)(k + 1) * period;
    printf("  call %d: cycle %" PRIu64 " (slot %" PRIu64 "), count %" PRIu64 ", settled %" PRIu64
           " then %" PRIu64 ", RUN %" PRIu64 "\n",
           k + 1, rec->cycle, sweep ? rec->cycle % sweep : 0, rec->count, rec->settled,
           rec->settled_after, rec->run);
    if (sweep == 0 || rec->cycle % sweep != ((uint64_t)c * slot_cycles) % sweep) at_sweep = 0;
    if (rec->run != 3) held = 0;
    if (rec->settled < target || rec->count < target) reached = 0;
    if (rec->settled_after != rec->settled) unchanged = 0;
    if (rec->counter != c) right_counter = 0;
    if (k > 0 && rec->cycle < records[k - 1].cycle) increasing = 0;
    if (k == 0 || rec->cycle != records[k - 1].cycle) ++calling_interrupts;
    if (rec->settled > rec->count) after_detection += rec->settled - rec->count;
  }
  check_true("each interrupt raised in a cycle of the counter's sweep slot", at_sweep);
  check_true("RUN in the handler = run | hold", held);
  check_true("the k-th call's count is at least k x period", reached);
  check_true("the settled count does not change over the handler's writes", unchanged);
  check_true("siginfo names the counter", right_counter);
  check_true("interrupt cycles do not decrease", increasing);
  check_eq("interrupts that called the handler == interrupts", calling_interrupts, interrupts);
  printf("writes counted between a detection and its handler: %" PRIu64 "\n", after_detection);
  check_true("writes counted between a detection and its handler", after_detection > 0);
  hpmctr_overflow(&u, c, 0, NULL, NULL);
  close(fd);
  hpmctr_close(&u);
  return finish();
}
