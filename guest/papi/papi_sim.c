/* The ground-truth component `sim` on the bgq node (tests/papi): the simulator's own statistics
 * read from the program, and PUnit counters held against them. Prints one "ok ..." or "FAIL ..."
 * line per check and a final PASSED/FAILED line (guest/counters' contract). */
#include <papi.h>
#include <string.h>

#include "ctr_common.h"

__attribute__((noinline)) static void loop(long long n) {
  __asm__ volatile("1: addi %0, %0, -1\n bnez %0, 1b" : "+r"(n));
}

static volatile char buffer[1 << 20];

/* A region counted by two sets at once, the truth's started first and stopped last, so the
 * truth's window encloses the counters' by the library's start and stop code: the same code
 * around every region, so for instruction events truth - counter is the same in every region,
 * whatever its size. */
__attribute__((noinline)) static void both(int truth, int counters, long long n, int touch,
                                           long long* t, long long* c) {
  PAPI_start(truth);
  PAPI_start(counters);
  loop(n);
  for (int i = 0; i < touch; i += 64) buffer[i] = (char)(buffer[i] + 1);
  PAPI_stop(counters, c);
  PAPI_stop(truth, t);
}

int main(void) {
  PAPI_library_init(PAPI_VER_CURRENT);
  const int cidx = PAPI_get_component_index("sim");
  const PAPI_component_info_t* sim = PAPI_get_component_info(cidx);
  check_true("component sim (index 5) is enabled", cidx == 5 && sim != NULL && !sim->disabled);
  check_true("  with the simulator's events", sim->num_native_events > 50);
  int code = 0;
  check_true("sim:::Instructions", PAPI_event_name_to_code("sim:::Instructions", &code) == PAPI_OK);
  char name[PAPI_MAX_STR_LEN];
  PAPI_event_code_to_name(code, name);
  check_true("  named back", strcmp(name, "sim:::Instructions") == 0);

  int truth = PAPI_NULL, counters = PAPI_NULL;
  PAPI_create_eventset(&truth);
  PAPI_create_eventset(&counters);
  const char* truths[] = {"sim:::Instructions", "sim:::Cycles", "sim:::L1dMisses",
                          "sim:::InstBranch"};
  const char* natives[] = {"PAPI_TOT_INS", "PAPI_TOT_CYC", "PAPI_L1_DCM", "PAPI_BR_CN"};
  for (int i = 0; i < 4; ++i) {
    char what[64];
    snprintf(what, sizeof what, "add %s", truths[i]);
    check_true(what, PAPI_add_named_event(truth, truths[i]) == PAPI_OK);
    PAPI_add_named_event(counters, natives[i]);
  }
  check_true("an overflow on the truth is refused (PAPI_ECMP)",
             PAPI_overflow(truth, code, 1000, 0, NULL) != PAPI_OK);

  long long t1[4], c1[4], t2[4], c2[4], t3[4], c3[4];
  both(truth, counters, 1000, 0, t1, c1);
  both(truth, counters, 1000, 0, t1, c1); /* warm: the second run's caches as the next one's */
  both(truth, counters, 51000, 0, t2, c2);
  check_eq("sim:::Instructions of 50000 more iterations", (uint64_t)(t2[0] - t1[0]), 100000);
  check_eq("sim:::InstBranch of 50000 more iterations", (uint64_t)(t2[3] - t1[3]), 50000);
  check_eq("PAPI_TOT_INS against sim:::Instructions: the same difference in both regions",
           (uint64_t)((t2[0] - c2[0]) - (t1[0] - c1[0])), 0);
  check_eq("PAPI_BR_CN against sim:::InstBranch: the same difference in both regions",
           (uint64_t)((t2[3] - c2[3]) - (t1[3] - c1[3])), 0);
  /* Cycles and cache misses of the library code between the two sets' starts and stops depend
   * on the caches: the truth exceeds the counters by that code's share, a few percent at most. */
  both(truth, counters, 1000, 1 << 20, t3, c3);
  for (int i = 1; i < 3; ++i) {
    char what[96];
    snprintf(what, sizeof what, "%s within the truth %s (enclosing it by the library's code)",
             natives[i], truths[i]);
    check_range(what, (uint64_t)t3[i], (uint64_t)c3[i], (uint64_t)(c3[i] + c3[i] / 20 + 200));
  }
  printf(
      "truth - counter: instructions %lld, cycles %lld, L1D misses %lld (%lld of them), "
      "branches %lld\n",
      t3[0] - c3[0], t3[1] - c3[1], t3[2] - c3[2], t3[2], t3[3] - c3[3]);
  return finish();
}
