/* Reading every counter of a unit (hpmctr_read_all, one load per counter).
 *
 * bgp: all 256 UPC-P counters with the select that holds this thread's core (select 0: cores 0
 * and 1, the seed's Table 1 layout), around a loop of n iterations: every counter has a catalogue
 * name, read_all equals the single reads, this core's instruction counter is exactly 1 + 2n and
 * every counter of the other (idle) core of the select is 0.
 * bgq: all 24 counters of this core's PUnit (inputs 0..23): a 25th does not fit, read_all equals
 * the single reads, the thread's instruction counter is exactly 1 + 2n, and once the sweep has
 * passed (800 cycles) the lagging COUNTER registers equal COUNTER_EXACT. The node units: the
 * CNKUnit counts exactly 10 system calls between two reads; the IOUnit exactly 5 writes once
 * swept; the L2Unit has its 6 combined counters.
 * Exits 0 when every check holds. Argument: n (default 5000). */
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ctr_common.h"

static void pause_cycles(int n) {
  for (volatile int i = 0; i < n; ++i) {
  }
}

static void read_all_upcp(hpmctr_unit* u, uint64_t n) {
  char name[96];
  thread_event(u, "Instructions", name, sizeof name);
  const int input = hpmctr_event(u, name);
  if (input < 0) die(name, input);
  const int select = input / (int)u->counters;
  check_eq("counters programmed", (uint64_t)hpmctr_program_select(u, select), u->counters);
  int named = 0;
  for (unsigned c = 0; c < u->counters; ++c) {
    named += hpmctr_event_name(u, select * (int)u->counters + (int)c) != NULL;
  }
  check_eq("counters with a catalogue name", (uint64_t)named, u->counters);
  loop_counted(run_register(u), n);
  uint64_t values[4096];
  check_eq("read_all counters", (uint64_t)hpmctr_read_all(u, values), u->counters);
  int same = 1;
  for (unsigned c = 0; c < u->counters; ++c) same = same && values[c] == hpmctr_read(u, (int)c);
  check_true("read_all equals the single reads", same);
  check_eq(name, values[input % (int)u->counters], 1 + 2 * n);
  char mine[16];
  snprintf(mine, sizeof mine, "PU%d_", hpmctr_core());
  int other_zero = 1, other = 0, mine_nonzero = 0;
  for (unsigned c = 0; c < u->counters; ++c) {
    const char* event = hpmctr_event_name(u, select * (int)u->counters + (int)c);
    if (strncmp(event, "PU", 2) != 0) continue;
    if (strncmp(event, mine, strlen(mine)) == 0) {
      mine_nonzero += values[c] != 0;
    } else {
      ++other;
      if (values[c] != 0) {
        other_zero = 0;
        printf("  %s (counter %u) = %" PRIu64 "\n", event, c, values[c]);
      }
    }
  }
  printf("%d counters of the other core, %d nonzero counters of this core\n", other, mine_nonzero);
  check_true("the idle core's counters are 0", other > 0 && other_zero);
  check_true("this core counted several events", mine_nonzero >= 5);
  /* UPC-P counts an input on its own counter only, in one signal mode: adding it again (in any
   * mode), or another input of its counter, is refused and leaves the counter as it was. */
  const int counter = input % (int)u->counters;
  const uint64_t before = hpmctr_read(u, counter);
  check_eq("adding a counted input again, in another mode, is refused (-EBUSY)",
           (uint64_t)-hpmctr_add(u, input, HPMCTR_RISING_EDGE), 16);
  check_eq("adding another input of its counter is refused (-EBUSY)",
           (uint64_t)-hpmctr_add(u, (input + (int)u->counters) % (int)u->events, HPMCTR_LEVEL_HIGH),
           16);
  check_eq("the counter keeps its count", hpmctr_read(u, counter), before);
}

static void read_all_punit(hpmctr_unit* u, uint64_t n) {
  /* Every counter in use: the first inputs on all but the last, the calling thread's
   * instructions on that one. */
  char name[96];
  thread_event(u, "Instructions", name, sizeof name);
  const int instructions = hpmctr_event(u, name);
  if (instructions < 0) die(name, instructions);
  for (int input = 0; input + 1 < (int)u->counters; ++input) {
    if (hpmctr_add(u, input, HPMCTR_LEVEL_HIGH) != input) die("hpmctr_add", input);
  }
  const int counter = hpmctr_add(u, instructions, HPMCTR_LEVEL_HIGH);
  check_eq("the thread's instructions on the last counter", (uint64_t)counter, u->counters - 1);
  check_eq("a 25th counter is refused (-EBUSY)", (uint64_t)-hpmctr_add(u, 30, HPMCTR_LEVEL_HIGH),
           16);
  loop_counted(run_register(u), n);
  uint64_t values[64];
  check_eq("read_all counters", (uint64_t)hpmctr_read_all(u, values), u->counters);
  int same = 1;
  for (unsigned c = 0; c < u->counters; ++c) same = same && values[c] == hpmctr_read(u, (int)c);
  check_true("read_all equals the single reads", same);
  check_eq(name, values[counter], 1 + 2 * n);
  pause_cycles(1000); /* more than the 800-cycle sweep */
  int settled = 1;
  for (unsigned c = 0; c < u->counters; ++c) {
    settled = settled && u->regs[u->counter_reg + c] == hpmctr_read(u, (int)c);
  }
  check_true("after a sweep period COUNTER equals COUNTER_EXACT", settled);
}

/* kStores stores to one line, each its own L2 write request (the line's two 8-byte halves
 * alternate: no store-queue combining). */
enum { kStores = 1000 };
static volatile uint64_t one_line[16] __attribute__((aligned(128)));
static void store_to_one_line(void) {
  for (int i = 0; i < kStores; ++i) one_line[(i & 1) * 8] = (uint64_t)i;
}
/* The stores between a start and a stop: one code path for every measurement, so that no
 * instruction fetch of new code reaches the L2 between them. */
static void __attribute__((noinline)) counted_stores(hpmctr_unit* l2) {
  hpmctr_start(l2);
  store_to_one_line();
  hpmctr_stop(l2);
}

/* The L2 unit counts one line's write requests combined (counter j sums the slices) and sliced
 * (counter 6 s + j per slice): the same total, all of it on the line's one slice. */
static void l2_combined_and_sliced(hpmctr_unit* l2) {
  const int combined = hpmctr_add_name(l2, "PEVT_L2_REQ_RETIRE", HPMCTR_LEVEL_HIGH);
  if (combined < 0) die("PEVT_L2_REQ_RETIRE", combined);
  hpmctr_stop(l2);
  counted_stores(l2); /* warms the code and the line */
  hpmctr_write(l2, combined, 0);
  counted_stores(l2);
  pause_cycles(2000); /* two sweep periods: every slice's local count has reached COUNTER */
  check_eq("L2 requests of the stores (combined)", hpmctr_read(l2, combined), kStores);

  check_eq("L2 unit counters (sliced)", (uint64_t)hpmctr_l2_mode(l2, 1), 96);
  const int input = hpmctr_event(l2, "PEVT_L2_REQ_RETIRE_SLICE");
  const int j = hpmctr_add_slices(l2, input, HPMCTR_LEVEL_HIGH);
  if (j < 0) die("hpmctr_add_slices", j);
  counted_stores(l2);
  pause_cycles(2000);
  uint64_t sum = 0, most = 0;
  for (unsigned s = 0; s < l2->ports; ++s) {
    const uint64_t v = hpmctr_read(l2, (int)(s * l2->per_port) + j);
    sum += v;
    if (v > most) most = v;
  }
  check_eq("L2 requests of the stores (sliced, the sum of the slices)", sum, kStores);
  check_eq("L2 requests of the stores on the line's slice", most, kStores);
  check_eq("L2 unit counters (combined again)", (uint64_t)hpmctr_l2_mode(l2, 0), 6);
}

static void node_units(void) {
  hpmctr_unit cnk, io, l2;
  int r = hpmctr_open(&cnk, HPMCTR_CNK, 0);
  if (r != 0) die("open cnk", r);
  const int syscalls = hpmctr_add_name(&cnk, "PEVT_CNKHWT_SYSCALL", HPMCTR_LEVEL_HIGH);
  if (syscalls < 0) die("PEVT_CNKHWT_SYSCALL", syscalls);
  const uint64_t before = hpmctr_read(&cnk, syscalls);
  for (int i = 0; i < 10; ++i) syscall(SYS_getppid);
  check_eq("CNK system calls between two reads", hpmctr_read(&cnk, syscalls) - before, 10);
  hpmctr_close(&cnk);

  r = hpmctr_open(&io, HPMCTR_IO, 0);
  if (r != 0) die("open io", r);
  const int writes = hpmctr_add_name(&io, "PEVT_IO_WRITES", HPMCTR_LEVEL_HIGH);
  if (writes < 0) die("PEVT_IO_WRITES", writes);
  const int fd = open("/dev/null", O_WRONLY);
  hpmctr_start(&io);
  for (int i = 0; i < 5; ++i) (void)!write(fd, "x", 1);
  hpmctr_stop(&io);
  close(fd);
  pause_cycles(1000);
  check_eq("I/O writes (after a sweep period)", hpmctr_read(&io, writes), 5);
  uint64_t values[64];
  check_eq("I/O unit counters", (uint64_t)hpmctr_read_all(&io, values), 43);
  hpmctr_close(&io);

  r = hpmctr_open(&l2, HPMCTR_L2, 0);
  if (r != 0) die("open l2", r);
  check_eq("L2 unit counters (combined)", (uint64_t)hpmctr_read_all(&l2, values), 6);
  l2_combined_and_sliced(&l2);
  hpmctr_close(&l2);
}

int main(int argc, char** argv) {
  const uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 5000;
  hpmctr_unit u = open_core_unit();
  if (u.machine == HPMCTR_BGP) {
    read_all_upcp(&u, n);
  } else {
    read_all_punit(&u, n);
    node_units();
  }
  hpmctr_close(&u);
  return finish();
}
