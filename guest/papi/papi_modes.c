/* What each of hpmsim's run modes counts, through PAPI and BGPM (tests/papi; docs/papi.md "Run
 * modes"). Run as `papi_modes MODE` under `hpmsim run --mode MODE`:
 *   functional  no memory system and no pipeline: the cache events and the pipeline's are
 *               refused when added (PAPI_ENOEVNT, BGPM_ENOT_IN_RUN_MODE), not counted as 0;
 *               instructions, conditional branches, loads and stores count, exactly as the
 *               simulator's statistics (component sim) say;
 *   warmup      the caches but no pipeline: the events of taken branches, issue and stalls are
 *               refused; instructions, conditional branches, loads, stores and L1D misses count,
 *               exactly as the simulator's statistics say;
 *   timing      the same, and the pipeline's events are taken and count exactly;
 * and in each, an overflow handler is called once for each threshold's instructions.
 * Prints one "ok ..." or "FAIL ..." line per check and a final PASSED/FAILED line. */
#include <bgpm.h>
#include <papi.h>
#include <string.h>

#include "ctr_common.h"

static volatile uint64_t cells[2];

/* n iterations of one load, one store and one conditional branch (taken n - 1 times). */
__attribute__((noinline)) static void loop(long long n) {
  __asm__ volatile("1: ld t0, 0(%1)\n sd t0, 8(%1)\n addi %0, %0, -1\n bnez %0, 1b"
                   : "+r"(n)
                   : "r"(cells)
                   : "t0", "memory");
}

static volatile char buffer[1 << 18];

/* A region counted by the truth's set (started first, stopped last) and the counters' set. */
__attribute__((noinline)) static void both(int truth, int counters, long long n, int touch,
                                           long long* t, long long* c) {
  PAPI_start(truth);
  PAPI_start(counters);
  loop(n);
  for (int i = 0; i < touch; i += 64) buffer[i] = (char)(buffer[i] + 1);
  PAPI_stop(counters, c);
  PAPI_stop(truth, t);
}

enum { kEvents = 5 };
static const char* const kTruths[kEvents] = {"sim:::Instructions", "sim:::InstBranch",
                                             "sim:::InstLoad", "sim:::InstStore",
                                             "sim:::L1dMisses"};
static const int kPresets[kEvents] = {PAPI_TOT_INS, PAPI_BR_CN, PAPI_LD_INS, PAPI_SR_INS,
                                      PAPI_L1_DCM};
static const char* const kPresetNames[kEvents] = {"PAPI_TOT_INS", "PAPI_BR_CN", "PAPI_LD_INS",
                                                  "PAPI_SR_INS", "PAPI_L1_DCM"};

/* The functional mode: no memory system, so the caches' events are no events there. */
static void cache_events_refused(void) {
  int set = PAPI_NULL;
  PAPI_create_eventset(&set);
  check_eq("PAPI_query_event(PAPI_L1_DCM) is PAPI_ENOEVNT",
           (uint64_t)-PAPI_query_event(PAPI_L1_DCM), (uint64_t)-PAPI_ENOEVNT);
  check_eq("PAPI_add_event(PAPI_L1_DCM) is PAPI_ENOEVNT",
           (uint64_t)-PAPI_add_event(set, PAPI_L1_DCM), (uint64_t)-PAPI_ENOEVNT);
  check_eq("PAPI_add_named_event(PEVT_L2_HITS) is PAPI_ENOEVNT",
           (uint64_t)-PAPI_add_named_event(set, "PEVT_L2_HITS"), (uint64_t)-PAPI_ENOEVNT);
  check_eq("PAPI_add_named_event(sim:::L1dMisses) is PAPI_ENOEVNT (no statistic in this mode)",
           (uint64_t)-PAPI_add_named_event(set, "sim:::L1dMisses"), (uint64_t)-PAPI_ENOEVNT);
  check_eq("Bgpm_HpmEventCountsInRunMode(PEVT_L1P_BAS_MISS)",
           (uint64_t)Bgpm_HpmEventCountsInRunMode(PEVT_L1P_BAS_MISS), 0);
  const int h = Bgpm_CreateEventSet();
  check_eq("Bgpm_AddEvent(PEVT_L2_HITS) is BGPM_ENOT_IN_RUN_MODE",
           (uint64_t)-Bgpm_AddEvent((unsigned)h, PEVT_L2_HITS), (uint64_t)-BGPM_ENOT_IN_RUN_MODE);
  check_eq("Bgpm_AddEvent(PEVT_CYCLES) is 0", (uint64_t)-Bgpm_AddEvent((unsigned)h, PEVT_CYCLES),
           0);
  Bgpm_DeleteEventSet((unsigned)h);
  PAPI_cleanup_eventset(set);
  PAPI_destroy_eventset(&set);
}

/* The events the warm-up mode refuses and the timing mode takes. */
static void pipeline_events(int counts) {
  const int presets[] = {PAPI_BR_TKN, PAPI_BR_MSP, PAPI_STL_ICY, PAPI_TOT_IIS};
  const char* names[] = {"PAPI_BR_TKN", "PAPI_BR_MSP", "PAPI_STL_ICY", "PAPI_TOT_IIS"};
  for (int i = 0; i < 4; ++i) {
    int set = PAPI_NULL;
    PAPI_create_eventset(&set);
    char what[128];
    const int want = counts ? PAPI_OK : PAPI_ENOEVNT;
    snprintf(what, sizeof what, "PAPI_query_event(%s) is %s", names[i], PAPI_strerror(want));
    check_eq(what, (uint64_t)-PAPI_query_event(presets[i]), (uint64_t)-want);
    snprintf(what, sizeof what, "PAPI_add_event(%s) is %s", names[i], PAPI_strerror(want));
    check_eq(what, (uint64_t)-PAPI_add_event(set, presets[i]), (uint64_t)-want);
    PAPI_cleanup_eventset(set);
    PAPI_destroy_eventset(&set);
  }
  int set = PAPI_NULL;
  PAPI_create_eventset(&set);
  check_eq(counts ? "PAPI_add_named_event(PEVT_XU_BR_TAKEN_COMMIT) is PAPI_OK"
                  : "PAPI_add_named_event(PEVT_XU_BR_TAKEN_COMMIT) is PAPI_ENOEVNT",
           (uint64_t)-PAPI_add_named_event(set, "PEVT_XU_BR_TAKEN_COMMIT"),
           (uint64_t) - (counts ? PAPI_OK : PAPI_ENOEVNT));
  if (counts) {
    /* Taken branches of the loop: n - 1 per call, so 50000 more for 50000 more iterations. */
    long long a = 0, b = 0;
    PAPI_start(set);
    loop(1000);
    PAPI_stop(set, &a);
    PAPI_start(set);
    loop(51000);
    PAPI_stop(set, &b);
    check_eq("PEVT_XU_BR_TAKEN_COMMIT of 50000 more iterations", (uint64_t)(b - a), 50000);
  }
  PAPI_cleanup_eventset(set);
  PAPI_destroy_eventset(&set);

  /* BGPM's own answer, on a set of its own. */
  Bgpm_ExitOnError(0);
  Bgpm_PrintOnError(0);
  const int init = Bgpm_Init(BGPM_MODE_SWDISTRIB);
  check_true("Bgpm_Init (or already initialised by libpapi)", init == 0 || init == BGPM_EINITED);
  check_eq("Bgpm_HpmEventCountsInRunMode(PEVT_XU_BR_TAKEN_COMMIT)",
           (uint64_t)Bgpm_HpmEventCountsInRunMode(PEVT_XU_BR_TAKEN_COMMIT), counts ? 1 : 0);
  check_eq("Bgpm_HpmEventCountsInRunMode(PEVT_INST_ALL)",
           (uint64_t)Bgpm_HpmEventCountsInRunMode(PEVT_INST_ALL), 1);
  const int h = Bgpm_CreateEventSet();
  check_eq(counts ? "Bgpm_AddEvent(PEVT_XU_BR_TAKEN_COMMIT) is 0"
                  : "Bgpm_AddEvent(PEVT_XU_BR_TAKEN_COMMIT) is BGPM_ENOT_IN_RUN_MODE",
           (uint64_t)-Bgpm_AddEvent((unsigned)h, PEVT_XU_BR_TAKEN_COMMIT),
           (uint64_t) - (counts ? 0 : BGPM_ENOT_IN_RUN_MODE));
  check_eq("Bgpm_AddEvent(PEVT_INST_ALL) is 0",
           (uint64_t)-Bgpm_AddEvent((unsigned)h, PEVT_INST_ALL), 0);
  Bgpm_DeleteEventSet((unsigned)h);
}

/* Instructions, conditional branches, loads, stores and (with `caches`) L1D misses, held to the
 * truth. */
static void counting(int caches) {
  const int events = caches ? kEvents : kEvents - 1;
  int truth = PAPI_NULL, counters = PAPI_NULL;
  PAPI_create_eventset(&truth);
  PAPI_create_eventset(&counters);
  for (int i = 0; i < events; ++i) {
    char what[96];
    snprintf(what, sizeof what, "add %s", kTruths[i]);
    check_true(what, PAPI_add_named_event(truth, kTruths[i]) == PAPI_OK);
    snprintf(what, sizeof what, "add %s", kPresetNames[i]);
    check_true(what, PAPI_add_event(counters, kPresets[i]) == PAPI_OK);
  }
  long long t1[kEvents], c1[kEvents], t2[kEvents], c2[kEvents], t3[kEvents], c3[kEvents];
  both(truth, counters, 1000, 0, t1, c1);
  both(truth, counters, 1000, 0, t1, c1); /* warm: the second run's caches as the next one's */
  both(truth, counters, 51000, 0, t2, c2);
  const uint64_t more[4] = {200000, 50000, 50000, 50000}; /* 4 instructions an iteration */
  for (int i = 0; i < 4; ++i) {
    char what[128];
    snprintf(what, sizeof what, "%s of 50000 more iterations", kTruths[i]);
    check_eq(what, (uint64_t)(t2[i] - t1[i]), more[i]);
    snprintf(what, sizeof what, "%s of 50000 more iterations", kPresetNames[i]);
    check_eq(what, (uint64_t)(c2[i] - c1[i]), more[i]);
    snprintf(what, sizeof what, "%s against %s: the same difference in both regions",
             kPresetNames[i], kTruths[i]);
    check_eq(what, (uint64_t)((t2[i] - c2[i]) - (t1[i] - c1[i])), 0);
  }
  if (!caches) return;
  /* L1D misses of the library code between the two sets' starts and stops depend on the
   * caches: the truth exceeds the counter by that code's share, a few percent at most. */
  both(truth, counters, 1000, 1 << 18, t3, c3);
  check_range("PAPI_L1_DCM within sim:::L1dMisses (enclosing it by the library's code)",
              (uint64_t)t3[4], (uint64_t)c3[4], (uint64_t)(c3[4] + c3[4] / 20 + 200));
  check_true("  at least one for each 128-byte line of the buffer", c3[4] >= (1 << 18) / 128);
}

/* Overflow in every mode: a handler called once for each 100000 instructions counted. (The
 * counter units' interrupts reach the library by their devices' numbers: in the functional
 * mode, whose units are built at the first open of one, too.) */
static volatile long long overflow_calls;
static void on_overflow(int set, void* address, long long vector, void* context) {
  (void)set;
  (void)address;
  (void)vector;
  (void)context;
  ++overflow_calls;
}

static void overflows(void) {
  int set = PAPI_NULL;
  PAPI_create_eventset(&set);
  check_true("add PAPI_TOT_INS to overflow on it", PAPI_add_event(set, PAPI_TOT_INS) == PAPI_OK);
  check_eq("PAPI_overflow(PAPI_TOT_INS, 100000) is PAPI_OK",
           (uint64_t)-PAPI_overflow(set, PAPI_TOT_INS, 100000, 0, on_overflow), 0);
  long long counted = 0;
  PAPI_start(set);
  loop(250000); /* 1,000,000 instructions and the library's */
  PAPI_stop(set, &counted);
  check_range("instructions counted while overflowing", (uint64_t)counted, 1000000, 1010000);
  /* The last crossing's interrupt may still be on its way when the counter stops. */
  check_range("overflow handler calls: one for each 100000 instructions counted",
              (uint64_t)overflow_calls, (uint64_t)(counted / 100000 - 1),
              (uint64_t)(counted / 100000));
  PAPI_cleanup_eventset(set);
  PAPI_destroy_eventset(&set);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "timing";
  PAPI_library_init(PAPI_VER_CURRENT);
  const int functional = strcmp(mode, "functional") == 0;
  const int warmup = strcmp(mode, "warmup") == 0;
  check_true("hpmctr_run_mode() is the mode",
             hpmctr_run_mode() == (functional ? HPMCTR_RUN_FUNCTIONAL
                                   : warmup   ? HPMCTR_RUN_WARMUP
                                              : HPMCTR_RUN_TIMING));
  const PAPI_component_info_t* punit = PAPI_get_component_info(0);
  check_true("component bgpm/PUnit is enabled", punit != NULL && !punit->disabled);
  const PAPI_component_info_t* sim = PAPI_get_component_info(5);
  check_true("component sim is enabled", sim != NULL && !sim->disabled);
  pipeline_events(!warmup && !functional);
  if (functional) cache_events_refused();
  counting(!functional);
  overflows();
  return finish();
}
