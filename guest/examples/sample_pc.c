/* Example: a sampling profiler on threshold interrupts (hpmctr_overflow).
 *
 * Every 2000 instructions of this thread the unit interrupts; the handler takes the interrupted
 * pc from the signal's context and charges the sample to the function it falls in. Two work
 * functions do 1 and 3 units of work: the second gets about three times the samples.
 *
 *   hpmsim run --machine bgq -- example_sample_pc
 */
#include <stdint.h>
#include <stdio.h>
#include <ucontext.h>

#include "hpm/counters.h"

static volatile double sink;

__attribute__((noinline)) static void light(int n) {
  double x = 1;
  for (int i = 0; i < n; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
}

__attribute__((noinline)) static void heavy(int n) {
  double x = 1;
  for (int i = 0; i < 3 * n; ++i) x = x * 0.9999999 + 1e-9;
  sink = x;
}

__attribute__((noinline)) static void end_of_work(void) {
  sink = 0;
}

static uint64_t samples[3]; /* light, heavy, elsewhere */

static void on_sample(hpmctr_unit* u, int counter, uint64_t count, uint64_t cycle, void* context,
                      void* arg) {
  (void)u;
  (void)counter;
  (void)count;
  (void)cycle;
  (void)arg;
  const uintptr_t pc = (uintptr_t)((ucontext_t*)context)->uc_mcontext.__gregs[0];
  /* GCC lays light, heavy and end_of_work out in source order (main checks it). */
  if (pc >= (uintptr_t)light && pc < (uintptr_t)heavy) {
    ++samples[0];
  } else if (pc >= (uintptr_t)heavy && pc < (uintptr_t)end_of_work) {
    ++samples[1];
  } else {
    ++samples[2];
  }
}

int main(void) {
  if (!((uintptr_t)light < (uintptr_t)heavy && (uintptr_t)heavy < (uintptr_t)end_of_work)) {
    fprintf(stderr, "unexpected function layout\n");
    return 1;
  }
  hpmctr_unit u;
  if (hpmctr_open_core(&u) != 0) {
    fprintf(stderr, "no counter unit: run under hpmsim's timing mode\n");
    return 1;
  }
  /* This thread's instructions: "PU0_INSTRUCTIONS" on bgp, "PEVT_INST_ALL@t0" on bgq. */
  const int input = hpmctr_thread_event(&u, "Instructions");
  const char* name = input < 0 ? "Instructions" : hpmctr_event_name(&u, input);
  const int c = hpmctr_add(&u, input, HPMCTR_LEVEL_HIGH);
  if (c < 0 || hpmctr_overflow(&u, c, 2000, on_sample, NULL) != 0) {
    fprintf(stderr, "cannot sample %s\n", name);
    return 1;
  }
  hpmctr_start(&u);
  for (int round = 0; round < 20; ++round) {
    light(2000);
    heavy(2000);
  }
  end_of_work();
  hpmctr_stop(&u);
  printf("%s: %llu instructions, %llu samples\n", name, (unsigned long long)hpmctr_count(&u, c),
         (unsigned long long)hpmctr_overflow_calls(&u, c));
  printf("light     %6llu samples\nheavy     %6llu samples\nelsewhere %6llu samples\n",
         (unsigned long long)samples[0], (unsigned long long)samples[1],
         (unsigned long long)samples[2]);
  hpmctr_close(&u);
  return 0;
}
