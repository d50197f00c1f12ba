/* Start and stop isolate a region: events outside it are not counted (seed 002, section 6: "a
 * single start/stop facility ... to count data only corresponding to a defined program
 * region"). Two counted loops of n1 and n2 iterations, with uncounted work between and after them
 * (loops with multiplications and stores, printf, system calls): the counters hold exactly the
 * two regions' events. Exits 0 when every check holds. Arguments: n1 n2 (default 1000 3000). */
#include <string.h>
#include <unistd.h>

#include "ctr_common.h"

static volatile uint64_t sink[512];

static void uncounted_work(int rounds) {
  for (int r = 0; r < rounds; ++r) {
    mul_loop(100);
    for (int i = 0; i < 512; ++i) sink[i] = (uint64_t)i * (uint64_t)r;
    (void)getppid();
  }
  printf("(uncounted work: %d rounds)\n", rounds);
}

int main(int argc, char** argv) {
  const uint64_t n1 = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000;
  const uint64_t n2 = argc > 2 ? strtoull(argv[2], NULL, 0) : 3000;
  hpmctr_unit u = open_core_unit();
  const int instructions = add_thread_event(&u, "Instructions");
  const int muls = add_thread_event(&u, "InstIntMul");
  const int stores = add_thread_event(&u, "InstStore");
  const int ecalls = add_thread_event(&u, "Ecalls");

  uncounted_work(5);
  loop_counted(run_register(&u), n1);
  check_eq("after region 1: instructions", hpmctr_read(&u, instructions), 1 + 2 * n1);
  uncounted_work(7);
  check_eq("after uncounted work: instructions", hpmctr_read(&u, instructions), 1 + 2 * n1);
  loop_counted(run_register(&u), n2);
  uncounted_work(3);
  check_eq("both regions: instructions", hpmctr_read(&u, instructions), 2 + 2 * (n1 + n2));
  check_eq("both regions: multiplications", hpmctr_read(&u, muls), 0);
  check_eq("both regions: stores (the two start stores)", hpmctr_read(&u, stores), 2);
  check_eq("both regions: ecalls", hpmctr_read(&u, ecalls), 0);

  /* The other way round: counting everything but a region (stop, work, start). */
  hpmctr_reset(&u);
  const int muls2 = add_thread_event(&u, "InstIntMul");
  hpmctr_start(&u);
  mul_loop(500);
  hpmctr_stop(&u);
  mul_loop(700); /* excluded */
  hpmctr_start(&u);
  mul_loop(300);
  hpmctr_stop(&u);
  check_eq("multiplications outside the excluded region", hpmctr_read(&u, muls2), 800);
  hpmctr_close(&u);
  return finish();
}
