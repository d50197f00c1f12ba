/* Example: counters in an OpenMP program. Each thread measures its own share of a parallel loop
 * with two reads of its core's instruction counter (a read is one load, so threads need no
 * coordination), on the unit of its core: the one UPC-P unit on bgp (select 0 counts cores 0
 * and 1, so two threads), its core's PUnit on bgq (four threads, one per core).
 *
 *   OMP_PROC_BIND=true hpmsim run --machine bgq -- example_threads
 */
#include <omp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>

#include "hpm/counters.h"

enum { kN = 200000 };
static double x[kN];

int main(void) {
  const enum hpmctr_machine machine = hpmctr_machine();
  if (machine == HPMCTR_NONE) {
    fprintf(stderr, "no counter unit: run under hpmsim's timing mode\n");
    return 1;
  }
  const int threads = machine == HPMCTR_BGP ? 2 : 4;
  uint64_t counted[8] = {0};
  int cores[8] = {0};
  double sum = 0;
#pragma omp parallel num_threads(threads) reduction(+ : sum)
  {
    const int t = omp_get_thread_num();
    hpmctr_unit u;
    /* bgq: put each thread on its own core (hardware thread 4 t). */
    if (machine == HPMCTR_BGQ) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(4 * t, &set);
      sched_setaffinity(0, sizeof set, &set);
    }
    if (hpmctr_open_core(&u) == 0) {
      /* This thread's instructions (bgp: the threads share one unit; each programs its own
       * core's counter). */
      const int c = hpmctr_add(&u, hpmctr_thread_event(&u, "Instructions"), HPMCTR_LEVEL_HIGH);
#pragma omp barrier
      if (t == 0 || machine == HPMCTR_BGQ) hpmctr_start(&u);
#pragma omp barrier
      const uint64_t before = hpmctr_read(&u, c);
#pragma omp for schedule(static)
      for (int i = 0; i < kN; ++i) {
        x[i] = (double)i * 0.5;
        sum += x[i];
      }
      counted[t] = hpmctr_read(&u, c) - before;
      cores[t] = hpmctr_core();
      hpmctr_close(&u);
    }
  }
  printf("sum %.1f\n", sum);
  for (int t = 0; t < threads; ++t) {
    printf("thread %d on core %d: %llu instructions in its share of the loop\n", t, cores[t],
           (unsigned long long)counted[t]);
  }
  return 0;
}
