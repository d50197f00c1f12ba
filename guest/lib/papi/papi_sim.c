/* libpapi: the ground-truth component `sim` (index 5): the simulator's own statistics, read from
 * the /dev/hpm/sim device (node/truth_unit.h in the simulator): what no real machine offers, and
 * the reference every other count can be checked against inside a program. Its events are the
 * simulator's probe events (`sim:::Instructions`, `sim:::L1dMisses`, ...): a hardware thread's
 * events are the calling thread's, a core's its core's, the others the node's sum. A set of them
 * counts from its start to its stop like any other (each value the difference of two loads of
 * the statistic); there are no counters to run out of and no overflow. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hpm/counters.h"
#include "papi_impl.h"

static volatile const uint64_t* window;
static uint64_t stride, events, kinds_base;

int papix_sim_open(void) {
  if (window != NULL) return 1;
  const int fd = open("/dev/hpm/sim", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  struct stat st;
  void* p = fstat(fd, &st) == 0 ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0)
                                : MAP_FAILED;
  close(fd);
  if (p == MAP_FAILED) return 0;
  window = p;
  stride = window[0];
  events = window[1];
  kinds_base = 2;
  return 1;
}

/* Event e exists here and the simulator keeps it. */
int papix_sim_available(unsigned e) {
  return window != NULL && e < events && (int)e < papi_sim_event_count &&
         window[kinds_base + e] != 0;
}

/* Event e's value for the calling thread (its hardware thread's, its core's, or the node's). */
uint64_t papix_sim_value(unsigned e) {
  const volatile uint64_t* row = window + kinds_base + events + (uint64_t)e * stride;
  switch (papi_sim_events[e].scope) {
    case 0: return row[hpmctr_cpu()];
    case 1: return row[hpmctr_core()];
    default: {
      uint64_t sum = 0;
      for (uint64_t s = 0; s < stride; ++s) sum += row[s];
      return sum;
    }
  }
}
