/* A loop of known instruction count, counted between start and stop by the unit counting the
 * calling thread's core (bgp: UPC-P, bgq: its PUnit): instructions = 1 + 2n (the start store and
 * the loop; not the stop store), integer ALU = n, branches = n, stores = 1. Also the difference of
 * two counter reads around the loop: 1 + 2n (the first load and the loop). The unit's registers
 * are device memory: the start store takes no L1D access, no store-queue entry and no L2 write
 * (0 of each), and the reads no L1D access. Exits 0 when every check holds. Arguments: loop lengths
 * (default 1 2 10 1000 123457). */
#include <string.h>

#include "ctr_common.h"

int main(int argc, char** argv) {
  static const uint64_t kDefault[] = {1, 2, 10, 1000, 123457};
  hpmctr_unit u = open_core_unit();
  printf("machine %s, device %d, core %d, thread %d\n",
         u.machine == HPMCTR_BGP ? "bgp (UPC-P)" : "bgq (UPC-Q)", u.device, hpmctr_core(),
         hpmctr_thread());
  const int instructions = add_thread_event(&u, "Instructions");
  const int alu = add_thread_event(&u, "InstIntAlu");
  const int branches = add_thread_event(&u, "InstBranch");
  const int stores = add_thread_event(&u, "InstStore");
  const int l1d = add_thread_event(&u, "L1dAccesses");
  const int sq = add_thread_event(&u, "SqAllocations");
  const int l2_writes = add_thread_event(&u, "CoreL2Writes");
  const int programmed[] = {instructions, alu, branches, stores, l1d, sq, l2_writes};
  const int programmed_count = (int)(sizeof programmed / sizeof programmed[0]);
  const int count = argc > 1 ? argc - 1 : (int)(sizeof kDefault / sizeof kDefault[0]);
  for (int i = 0; i < count; ++i) {
    const uint64_t n = argc > 1 ? strtoull(argv[i + 1], NULL, 0) : kDefault[i];
    for (int c = 0; c < programmed_count; ++c) hpmctr_write(&u, programmed[c], 0);
    loop_counted(run_register(&u), n);
    char what[96];
    snprintf(what, sizeof what, "n=%" PRIu64 " instructions", n);
    check_eq(what, hpmctr_read(&u, instructions), 1 + 2 * n);
    snprintf(what, sizeof what, "n=%" PRIu64 " integer ALU", n);
    check_eq(what, hpmctr_read(&u, alu), n);
    snprintf(what, sizeof what, "n=%" PRIu64 " branches", n);
    check_eq(what, hpmctr_read(&u, branches), n);
    snprintf(what, sizeof what, "n=%" PRIu64 " stores", n);
    check_eq(what, hpmctr_read(&u, stores), 1);
    snprintf(what, sizeof what, "n=%" PRIu64 " L1D accesses, store-queue entries, L2 writes", n);
    check_eq(what, hpmctr_read(&u, l1d) + hpmctr_read(&u, sq) + hpmctr_read(&u, l2_writes), 0);

    /* Reads while counting: plain loads of the counter register. */
    uint64_t first = 0, last = 0;
    hpmctr_start(&u);
    loop_between_reads(counter_register(&u, instructions), n, &first, &last);
    hpmctr_stop(&u);
    snprintf(what, sizeof what, "n=%" PRIu64 " read difference", n);
    check_eq(what, last - first, 1 + 2 * n);
  }
  hpmctr_close(&u);
  return finish();
}
