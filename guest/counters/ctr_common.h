/* Shared by the programs of the counters tests (tests/counters/counters_test.cpp): checks that
 * print one line each, the calling thread's event names, and loops in inline assembly whose
 * instruction counts are known exactly.
 *
 * The conventions the exact counts rest on (docs/counters.md):
 *   - a register store at cycle t acts on the events of cycle t, and an instruction's events are
 *     those of its issue cycle: the start store is counted, the stop store is not;
 *   - a register load at cycle t returns the events of the cycles before t: of two reads, the
 *     first load is counted in the difference, the second is not;
 *   - one instruction per hardware thread per cycle, so no other instruction of the thread shares
 *     the store's cycle.
 */
#ifndef CTR_COMMON_H
#define CTR_COMMON_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hpm/counters.h"

static int ctr_failures;

/* One line per check: "ok <what> = <got>" or "FAIL <what> = <got>, want <want>". */
static inline void check_eq(const char* what, uint64_t got, uint64_t want) {
  if (got == want) {
    printf("ok %s = %" PRIu64 "\n", what, got);
  } else {
    printf("FAIL %s = %" PRIu64 ", want %" PRIu64 "\n", what, got, want);
    ++ctr_failures;
  }
}

static inline void check_range(const char* what, uint64_t got, uint64_t lo, uint64_t hi) {
  if (got >= lo && got <= hi) {
    printf("ok %s = %" PRIu64 " in [%" PRIu64 ", %" PRIu64 "]\n", what, got, lo, hi);
  } else {
    printf("FAIL %s = %" PRIu64 ", want [%" PRIu64 ", %" PRIu64 "]\n", what, got, lo, hi);
    ++ctr_failures;
  }
}

static inline void check_true(const char* what, int ok) {
  printf("%s %s\n", ok ? "ok" : "FAIL", what);
  if (!ok) ++ctr_failures;
}

static inline int finish(void) {
  printf("%s: %d failure(s)\n", ctr_failures ? "FAILED" : "PASSED", ctr_failures);
  fflush(stdout);
  return ctr_failures ? 1 : 0;
}

static inline void die(const char* what, int err) {
  printf("FAIL %s: error %d\n", what, err);
  fflush(stdout);
  exit(2);
}

/* The calling thread's native event for a generic event such as "Instructions"
 * (hpmctr_thread_event: "PU<core>_INSTRUCTIONS" on bgp, "PEVT_INST_ALL@t<thread>" on bgq): its
 * input, and its name in `out`. */
static inline int thread_event(const hpmctr_unit* u, const char* generic, char* out, size_t size) {
  const int input = hpmctr_thread_event(u, generic);
  if (input < 0) die(generic, input);
  snprintf(out, size, "%s", hpmctr_event_name(u, input));
  return input;
}

static inline int add_thread_event(hpmctr_unit* u, const char* generic) {
  char name[96];
  const int input = thread_event(u, generic, name, sizeof name);
  const int c = hpmctr_add(u, input, HPMCTR_LEVEL_HIGH);
  if (c < 0) die(name, c);
  return c;
}

static inline hpmctr_unit open_core_unit(void) {
  hpmctr_unit u;
  const int r = hpmctr_open_core(&u);
  if (r != 0) die("hpmctr_open_core", r);
  return u;
}

/* start store; n x (addi, bnez); stop store. Counted: 1 + 2n instructions (n >= 1), n integer
 * ALU instructions, n conditional branches, 1 store. */
static inline void loop_counted(volatile uint64_t* run, uint64_t n) {
  const uint64_t one = 1, zero = 0;
  __asm__ volatile(
      "sd %[one], 0(%[run])\n"
      "1: addi %[n], %[n], -1\n"
      "bnez %[n], 1b\n"
      "sd %[zero], 0(%[run])\n"
      : [n] "+r"(n)
      : [one] "r"(one), [zero] "r"(zero), [run] "r"(run)
      : "memory");
}

/* start store; n x (mul, addi, bnez); stop store. Counted: n multiplications, 1 + 3n
 * instructions. */
static inline void mul_loop_counted(volatile uint64_t* run, uint64_t n) {
  const uint64_t one = 1, zero = 0;
  uint64_t x = 3;
  __asm__ volatile(
      "sd %[one], 0(%[run])\n"
      "1: mul %[x], %[x], %[x]\n"
      "addi %[n], %[n], -1\n"
      "bnez %[n], 1b\n"
      "sd %[zero], 0(%[run])\n"
      : [n] "+r"(n), [x] "+r"(x)
      : [one] "r"(one), [zero] "r"(zero), [run] "r"(run)
      : "memory");
}

/* n x (mul, addi, bnez), not touching the unit: n multiplications, 3n instructions. */
static inline void mul_loop(uint64_t n) {
  uint64_t x = 3;
  __asm__ volatile(
      "1: mul %[x], %[x], %[x]\n"
      "addi %[n], %[n], -1\n"
      "bnez %[n], 1b\n"
      : [n] "+r"(n), [x] "+r"(x)
      :
      : "memory");
}

/* first = load; n x (addi, bnez); last = load, of the same counter register: last - first =
 * 1 + 2n instructions (the first load and the loop). */
static inline void loop_between_reads(const volatile uint64_t* reg, uint64_t n, uint64_t* first,
                                      uint64_t* last) {
  uint64_t a, b;
  __asm__ volatile(
      "ld %[a], 0(%[reg])\n"
      "1: addi %[n], %[n], -1\n"
      "bnez %[n], 1b\n"
      "ld %[b], 0(%[reg])\n"
      : [n] "+r"(n), [a] "=&r"(a), [b] "=&r"(b)
      : [reg] "r"(reg)
      : "memory");
  *first = a;
  *last = b;
}

/* The register hpmctr_read loads for a counter. */
static inline const volatile uint64_t* counter_register(const hpmctr_unit* u, int counter) {
  return &u->regs[u->read_reg + (unsigned)counter];
}

static inline volatile uint64_t* run_register(hpmctr_unit* u) {
  return &u->regs[u->run_reg];
}

#endif
