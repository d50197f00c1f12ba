/* The simulated cost of a counter read against a load that hits the L1D and a load that misses
 * every cache (bench/monitor_overhead.sh, docs/PERFORMANCE.md "Monitoring").
 *
 * Each measurement is a chain of K dependent iterations of the same four instructions
 *     ld t0, 0(a1);  and t0, t0, zero;  add a1, a1, t0;  addi a1, a1, STRIDE
 * timed with rdcycle, so cycles per iteration = load-to-use latency + 3:
 *   counter   a1 = a counter register of the unit counting this core (STRIDE 0; warm)
 *   l1        a1 = an ordinary variable (STRIDE 0; warm, an L1D hit)
 *   uncached  a1 = fresh memory, STRIDE 256: every load misses the L1D, the L1P and the L2 and
 *             goes to DDR (as guest/validation's ddr chase)
 * and one cold counter read (the first access to the register window). Prints one line
 * "cost counter=X l1=Y uncached=Z cold_counter=W" (cycles per iteration) and exits 0 when a
 * counter read costs no more than an uncached load. Argument: K (default 2000). */
#include <sys/mman.h>

#include "ctr_common.h"

static inline uint64_t rdcycle(void) {
  uint64_t c;
  __asm__ volatile("rdcycle %0" : "=r"(c));
  return c;
}

/* Cycles of k chained iterations starting at address p. */
static uint64_t chain(const volatile void* p, uint64_t k, long stride) {
  uint64_t a = (uint64_t)(uintptr_t)p;
  uint64_t t;
  const uint64_t start = rdcycle();
  __asm__ volatile(
      "1: ld %[t], 0(%[a])\n"
      "and %[t], %[t], zero\n"
      "add %[a], %[a], %[t]\n"
      "add %[a], %[a], %[s]\n"
      "addi %[k], %[k], -1\n"
      "bnez %[k], 1b\n"
      : [a] "+r"(a), [k] "+r"(k), [t] "=&r"(t)
      : [s] "r"(stride)
      : "memory");
  return rdcycle() - start;
}

int main(int argc, char** argv) {
  const uint64_t k = argc > 1 ? strtoull(argv[1], NULL, 0) : 2000;
  hpmctr_unit u = open_core_unit();
  const int c = add_thread_event(&u, "Instructions");
  hpmctr_start(&u);
  const volatile uint64_t* reg = counter_register(&u, c);

  /* The cold read: the first load of the window (its line is in no cache yet). */
  uint64_t t;
  const uint64_t cold_start = rdcycle();
  __asm__ volatile("ld %[t], 0(%[r])\nand %[t], %[t], zero\nadd %[t], %[t], %[t]\n"
                   : [t] "=&r"(t)
                   : [r] "r"(reg)
                   : "memory");
  const uint64_t cold = rdcycle() - cold_start + t;

  static volatile uint64_t variable;
  chain(reg, 100, 0);
  chain(&variable, 100, 0);
  const uint64_t counter_cycles = chain(reg, k, 0);
  const uint64_t l1_cycles = chain(&variable, k, 0);
  char* fresh =
      mmap(NULL, (size_t)(k + 1) * 256, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (fresh == MAP_FAILED) die("mmap", -1);
  const uint64_t uncached_cycles = chain(fresh, k, 256);
  hpmctr_stop(&u);

  /* The loop adds two instructions (addi, bnez) per iteration, off the dependence chain. */
  const double counter = (double)counter_cycles / (double)k;
  const double l1 = (double)l1_cycles / (double)k;
  const double uncached = (double)uncached_cycles / (double)k;
  printf("cost counter=%.2f l1=%.2f uncached=%.2f cold_counter=%" PRIu64 "\n", counter, l1,
         uncached, cold);
  check_true("a counter read costs no more than an uncached load", counter <= uncached);
  hpmctr_close(&u);
  return finish();
}
