/* Example: program every counter of a unit and print them all (hpmctr_read_all).
 *
 * bgp: the 256 UPC-P counters with select 0 (cores 0 and 1, as the seed's Table 1); bgq: the 24
 * counters of this core's PUnit with 24 of this hardware thread's events, and the 32 CNKUnit
 * counters with the kernel's events (system calls, page touches, ... of the printf). Prints
 * "counter name value" for every counter that is not zero.
 *
 *   hpmsim run --machine bgp -- example_all_counters
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hpm/counters.h"

static double work(int n) {
  double s = 0;
  for (int i = 1; i <= n; ++i) s += 1.0 / i;
  return s;
}

static void print_unit(const hpmctr_unit* u, const char* title) {
  uint64_t values[256];
  const int n = hpmctr_read_all(u, values);
  int nonzero = 0;
  printf("%s: %d counters\n", title, n);
  for (int c = 0; c < n; ++c) {
    if (values[c] == 0) continue;
    ++nonzero;
    const char* name = hpmctr_event_name(u, u->input[c]);
    printf("  %3d  %-34s %14llu\n", c, name ? name : "?", (unsigned long long)values[c]);
  }
  printf("%s: %d counters not zero\n", title, nonzero);
}

int main(void) {
  hpmctr_unit u;
  if (hpmctr_open_core(&u) != 0) {
    fprintf(stderr, "no counter unit: run under hpmsim's timing mode\n");
    return 1;
  }
  if (u.machine == HPMCTR_BGP) {
    hpmctr_program_select(&u, 0);
  } else {
    /* The first 24 of this hardware thread's events ("...@t<thread>"). */
    char suffix[8];
    snprintf(suffix, sizeof suffix, "@t%d", hpmctr_thread());
    for (int input = 0; input < (int)u.events; ++input) {
      const char* name = hpmctr_event_name(&u, input);
      const size_t len = name ? strlen(name) : 0;
      if (len < 3 || strcmp(name + len - strlen(suffix), suffix) != 0) continue;
      if (hpmctr_add(&u, input, HPMCTR_LEVEL_HIGH) < 0) break; /* all 24 taken */
    }
  }
  hpmctr_unit cnk;
  const int with_cnk = u.machine == HPMCTR_BGQ && hpmctr_open(&cnk, HPMCTR_CNK, 0) == 0;
  if (with_cnk) {
    /* The CNKUnit counts from boot: its 32 counters with the kernel's first 32 events. */
    for (int input = 0; input < (int)cnk.counters; ++input) {
      if (hpmctr_add(&cnk, input, HPMCTR_LEVEL_HIGH) < 0) break;
    }
  }
  hpmctr_start(&u);
  const double s = work(20000);
  hpmctr_stop(&u);
  printf("harmonic sum %.6f\n", s);
  print_unit(&u, u.machine == HPMCTR_BGP ? "UPC-P" : "PUnit");
  if (with_cnk) {
    print_unit(&cnk, "CNKUnit");
    hpmctr_close(&cnk);
  }
  hpmctr_close(&u);
  return 0;
}
