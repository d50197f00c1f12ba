/* Example: count a region of code by event name with libhpmctr (hpm/counters.h).
 *
 * Counts the instructions, floating-point operations and L1D misses of a small matrix
 * multiplication between hpmctr_start and hpmctr_stop, on the unit that counts this thread's
 * core (UPC-P on bgp, the core's PUnit on bgq), and prints them with their event names.
 *
 *   hpmsim run --machine bgp -- example_count_region
 */
#include <stdint.h>
#include <stdio.h>

#include "hpm/counters.h"

enum { kN = 48 };
static double a[kN][kN], b[kN][kN], c[kN][kN];

static void multiply(void) {
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j) {
      double sum = 0;
      for (int k = 0; k < kN; ++k) sum += a[i][k] * b[k][j];
      c[i][j] = sum;
    }
}

int main(void) {
  hpmctr_unit u;
  int r = hpmctr_open_core(&u);
  if (r != 0) {
    fprintf(stderr, "no counter unit (%d): run under hpmsim's timing mode\n", r);
    return 1;
  }
  /* The calling thread's instructions, fused multiply-adds and its core's L1D misses, by their
   * generic names: the library finds each machine's event ("PU0_INSTRUCTIONS" on bgp,
   * "PEVT_INST_ALL@t0" on bgq, ...). */
  const char* generics[3] = {"Instructions", "InstFpFma", "L1dMisses"};
  const char* names[3];
  int counter[3];
  for (int e = 0; e < 3; ++e) {
    const int input = hpmctr_thread_event(&u, generics[e]);
    names[e] = input < 0 ? generics[e] : hpmctr_event_name(&u, input);
    counter[e] = hpmctr_add(&u, input, HPMCTR_LEVEL_HIGH);
    if (counter[e] < 0) {
      fprintf(stderr, "cannot count %s (%d)\n", names[e], counter[e]);
      return 1;
    }
  }
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j) {
      a[i][j] = i + j;
      b[i][j] = i - j;
    }

  hpmctr_start(&u);
  multiply();
  hpmctr_stop(&u);

  for (int e = 0; e < 3; ++e) {
    printf("%-24s counter %3d  %12llu\n", names[e], counter[e],
           (unsigned long long)hpmctr_read(&u, counter[e]));
  }
  printf("c[%d][%d] = %g\n", kN - 1, kN - 1, c[kN - 1][kN - 1]);
  hpmctr_close(&u);
  return 0;
}
