/* libbgpm on the bgq node: BGPM's rules and error codes, and exact counts (tests/papi). Prints one
 * "ok ..." or "FAIL ..." line per check and a final PASSED/FAILED line (guest/counters'
 * contract). With the argument "exit-on-error" it instead makes one invalid call with BGPM's
 * default error handling, which prints the error and exits the process with status 1. */
#include <bgpm.h>
#include <string.h>
#include <unistd.h>

#include "ctr_common.h"

/* 2n instructions (n >= 1): n additions and n conditional branches. */
static void loop(uint64_t n) {
  __asm__ volatile("1: addi %0, %0, -1\n bnez %0, 1b" : "+r"(n));
}

/* Counts of a PUnit set {instructions, conditional branches} around loop(n). */
static void count_loop(int set, uint64_t n, uint64_t* ins, uint64_t* brc) {
  Bgpm_ResetStart(set);
  loop(n);
  Bgpm_Stop(set);
  Bgpm_ReadEvent(set, 0, ins);
  Bgpm_ReadEvent(set, 1, brc);
}

static uint64_t handler_calls;
static int handler_set = -1;
static uint64_t handler_vector;
static void on_overflow(int set, uint64_t address, uint64_t vector, const ucontext_t* context) {
  (void)address;
  (void)context;
  ++handler_calls;
  handler_set = set;
  handler_vector = vector;
}

/* A call's return code, printed signed. */
static void check_code(const char* what, int got, int want) {
  if (got == want) {
    printf("ok %s = %d\n", what, got);
  } else {
    printf("FAIL %s = %d, want %d\n", what, got, want);
    ++ctr_failures;
  }
}

static void check_rules(void) {
  check_code("Bgpm_Init again: BGPM_EINITED", Bgpm_Init(BGPM_MODE_SWDISTRIB), BGPM_EINITED);
  const int set = Bgpm_CreateEventSet();
  check_true("Bgpm_CreateEventSet gives a handle", set >= 0);
  check_code("Apply of an empty set: BGPM_ENO_CONFIG", Bgpm_Apply((unsigned)set), BGPM_ENO_CONFIG);
  check_code("AddEvent PEVT_INST_ALL", Bgpm_AddEvent((unsigned)set, PEVT_INST_ALL), 0);
  check_code("AddEvent of an L2 event to a PUnit set: BGPM_ECONF_UNIT",
             Bgpm_AddEvent((unsigned)set, PEVT_L2_HITS), BGPM_ECONF_UNIT);
  check_code("AddEvent of an unknown id: BGPM_EINV_EVENT", Bgpm_AddEvent((unsigned)set, 999),
             BGPM_EINV_EVENT);
  check_code("SetMultiplex on a non-empty set: BGPM_ENOT_EMPTY",
             Bgpm_SetMultiplex((unsigned)set, 100000, BGPM_NORMAL), BGPM_ENOT_EMPTY);
  check_eq("unit type PUnit", (uint64_t)Bgpm_GetUnitType((unsigned)set), BGPMUnitType_PUNIT);
  check_code("Apply", Bgpm_Apply((unsigned)set), 0);
  check_code("AddEvent after Apply: BGPM_EES_FROZEN", Bgpm_AddEvent((unsigned)set, PEVT_CYCLES),
             BGPM_EES_FROZEN);
  check_code("SetOverflow after Apply: BGPM_EES_FROZEN",
             Bgpm_SetOverflow((unsigned)set, 0, BGPM_PERIOD2THRES(1000)), BGPM_EES_FROZEN);
  uint64_t values[1];
  unsigned len = 0;
  check_code("ReadEventList into a short array: BGPM_EARRAY_TOO_SMALL",
             Bgpm_ReadEventList((unsigned)set, values, &len), BGPM_EARRAY_TOO_SMALL);
  check_eq("  and the length it needs", len, 1);
  check_eq("label of index 0",
           (uint64_t)strcmp(Bgpm_GetEventLabel((unsigned)set, 0), "PEVT_INST_ALL"), 0);
  check_eq("id from label (case-insensitive)", (uint64_t)Bgpm_GetEventIdFromLabel("pevt_inst_all"),
           PEVT_INST_ALL);
  Bgpm_EventInfo_t info;
  check_code("GetEventIdInfo", Bgpm_GetEventIdInfo(PEVT_L2_MISSES, &info), 0);
  check_true("  an L2 event of node scope",
             info.unitType == BGPMUnitType_L2 && info.scope == UPC_SCOPE_NODE);
  check_code("DeleteEventSet", Bgpm_DeleteEventSet((unsigned)set), 0);
  const int muxed = Bgpm_CreateEventSet();
  Bgpm_SetMultiplex((unsigned)muxed, 100000, BGPM_NORMAL);
  check_code("an L2 event in a multiplexed set: BGPM_EUNSUP_ATTRIB (PUnit sets only)",
             Bgpm_AddEvent((unsigned)muxed, PEVT_L2_HITS), BGPM_EUNSUP_ATTRIB);
  Bgpm_DeleteEventSet((unsigned)muxed);
  const int node = Bgpm_CreateEventSet();
  Bgpm_HpmSetNodeMultiplex((unsigned)node, 100000);
  check_code("an L2 event in a set multiplexed by hpmsim's extension for node units",
             Bgpm_AddEvent((unsigned)node, PEVT_L2_HITS), 0);
  Bgpm_DeleteEventSet((unsigned)node);
  check_code("a deleted handle: BGPM_EINV_SET_HANDLE", Bgpm_Start((unsigned)set),
             BGPM_EINV_SET_HANDLE);
}

static void check_exact_counts(void) {
  const int set = Bgpm_CreateEventSet();
  unsigned ids[] = {PEVT_INST_ALL, PEVT_INST_XU_BRC};
  Bgpm_AddEventList((unsigned)set, ids, 2);
  Bgpm_Apply((unsigned)set);
  uint64_t i1, b1, i2, b2;
  count_loop(set, 1000, &i1, &b1);
  count_loop(set, 101000, &i2, &b2);
  /* The library's own instructions between the start and stop stores are the same in both runs:
   * the difference is the loop's alone. */
  check_eq("PEVT_INST_ALL difference of loops of 101000 and 1000", i2 - i1, 2 * 100000);
  check_eq("PEVT_INST_XU_BRC difference", b2 - b1, 100000);
  uint64_t again;
  Bgpm_ReadEvent((unsigned)set, 0, &again);
  check_eq("a stopped set reads the same again", again, i2);
  Bgpm_Reset((unsigned)set);
  Bgpm_ReadEvent((unsigned)set, 0, &again);
  check_eq("a reset stopped set reads 0", again, 0);
  Bgpm_DeleteEventSet((unsigned)set);

  /* The CNK unit counts system calls from boot; a set takes differences. */
  const int cnk = Bgpm_CreateEventSet();
  Bgpm_AddEvent((unsigned)cnk, PEVT_CNKHWT_SYSCALL);
  Bgpm_Apply((unsigned)cnk);
  Bgpm_Start((unsigned)cnk);
  for (int i = 0; i < 25; ++i) (void)getppid();
  Bgpm_Stop((unsigned)cnk);
  for (int i = 0; i < 5; ++i) (void)getppid();
  uint64_t calls, sampled;
  Bgpm_ReadEvent((unsigned)cnk, 0, &calls);
  Bgpm_CNK_SampleEvent((unsigned)cnk, 0, &sampled);
  check_eq("PEVT_CNKHWT_SYSCALL counts the 25 getppid calls between start and stop", calls, 25);
  /* The CNK counts whatever the set's state: since the counter was programmed at apply. */
  check_eq("CNK_SampleEvent counts the 5 after the stop too", sampled, 30);
  Bgpm_DeleteEventSet((unsigned)cnk);
}

static void check_overflow(void) {
  const uint64_t period = 20000;
  const int set = Bgpm_CreateEventSet();
  Bgpm_AddEvent((unsigned)set, PEVT_INST_ALL);
  check_code("SetOverflow before Apply",
             Bgpm_SetOverflow((unsigned)set, 0, BGPM_PERIOD2THRES(period)), 0);
  Bgpm_SetOverflowHandler((unsigned)set, on_overflow);
  Bgpm_Apply((unsigned)set);
  Bgpm_Start((unsigned)set);
  loop(500000);
  Bgpm_Stop((unsigned)set);
  uint64_t count;
  Bgpm_ReadEvent((unsigned)set, 0, &count);
  check_eq("handler calls = floor(count / period)", handler_calls, count / period);
  check_eq("the handler gets the event set", (uint64_t)handler_set, (uint64_t)set);
  unsigned idx[4], n = 4;
  Bgpm_GetOverflowEventIndices((unsigned)set, handler_vector, idx, &n);
  check_true("the overflow vector names event 0", n == 1 && idx[0] == 0);
  Bgpm_DeleteEventSet((unsigned)set);
}

static void check_multiplex(void) {
  const uint64_t n = 2000000;
  /* Reference: instructions of the loop in a plain set. */
  const int plain = Bgpm_CreateEventSet();
  Bgpm_AddEvent((unsigned)plain, PEVT_INST_ALL);
  Bgpm_Apply((unsigned)plain);
  Bgpm_Start((unsigned)plain);
  loop(n);
  Bgpm_Stop((unsigned)plain);
  uint64_t reference;
  Bgpm_ReadEvent((unsigned)plain, 0, &reference);
  Bgpm_DeleteEventSet((unsigned)plain);

  for (int normalize = 0; normalize < 2; ++normalize) {
    const int set = Bgpm_CreateEventSet();
    check_code("SetMultiplex on an empty set",
               Bgpm_SetMultiplex((unsigned)set, 100000, normalize ? BGPM_NORMAL : BGPM_NOTNORMAL),
               0);
    unsigned ids[] = {PEVT_CYCLES,        PEVT_INST_XU_BRC,
                      PEVT_XU_BR_COMMIT,  PEVT_LSU_COMMIT_STS,
                      PEVT_AXU_IDLE,      PEVT_INST_ALL,
                      PEVT_INST_XU_BRU,   PEVT_XU_PPC_COMMIT,
                      PEVT_INST_QFPU_ALL, PEVT_LSU_COMMIT_LD_MISSES};
    check_code("ten events in a multiplexed set", Bgpm_AddEventList((unsigned)set, ids, 10), 0);
    check_eq("  in two groups of five", (uint64_t)Bgpm_GetMuxGroups((unsigned)set), 2);
    Bgpm_Apply((unsigned)set);
    Bgpm_Start((unsigned)set);
    loop(n);
    Bgpm_Stop((unsigned)set);
    Bgpm_MuxStats_t stats;
    Bgpm_GetMultiplex((unsigned)set, &stats);
    check_true("the groups switched on the period", stats.numSwitches >= 20);
    uint64_t value;
    Bgpm_ReadEvent((unsigned)set, 5, &value);
    const uint64_t g0 = Bgpm_GetMuxElapsedCycles((unsigned)set, 0);
    const uint64_t g1 = Bgpm_GetMuxElapsedCycles((unsigned)set, 1);
    check_eq("elapsed cycles are the groups' sum", stats.elapsedCycles, g0 + g1);
    check_eq("an event's elapsed cycles are its group's",
             Bgpm_GetMuxEventElapsedCycles((unsigned)set, 5), g1);
    if (normalize) {
      /* BGPM_NORMAL scales to the longest time any group counted: the plain count's share of
       * that time. */
      const uint64_t longest = g0 > g1 ? g0 : g1;
      const uint64_t want = (uint64_t)((unsigned __int128)reference * longest / (g0 + g1));
      check_range(
          "BGPM_NORMAL PEVT_INST_ALL within 10% of the plain count's share of the longest "
          "group's time",
          value, want - want / 10, want + want / 10);
    } else {
      /* PAPI's estimate from the raw count: scaled to the whole time. */
      const uint64_t estimate = value * (g0 + g1) / g1;
      check_range("raw PEVT_INST_ALL scaled to the whole time within 10% of the plain count",
                  estimate, reference - reference / 10, reference + reference / 10);
    }
    Bgpm_DeleteEventSet((unsigned)set);
  }
}

/* The L2 unit through BGPM: combined events count the node's sum; a set of _SLICE events puts the
 * unit in sliced mode, its slices read apart (Bgpm_L2_ReadEvent) sum to the combined count; the
 * two kinds do not mix in one set. */
static void check_l2(void) {
  static volatile char fresh[2 << 20]; /* never touched before: its 16384 L2 lines miss */
  const int combined = Bgpm_CreateEventSet();
  Bgpm_AddEvent((unsigned)combined, PEVT_L2_MISSES);
  check_code("a _SLICE event in a combined set: BGPM_ECONF_L2_COMBINE",
             Bgpm_AddEvent((unsigned)combined, PEVT_L2_MISSES_SLICE), BGPM_ECONF_L2_COMBINE);
  int enable = -1;
  Bgpm_GetL2Combine((unsigned)combined, &enable);
  check_eq("Bgpm_GetL2Combine of a combined set", (uint64_t)enable, 1);
  Bgpm_Apply((unsigned)combined);
  Bgpm_Start((unsigned)combined);
  for (unsigned i = 0; i < sizeof fresh / 2; i += 128) fresh[i] = 1;
  Bgpm_Stop((unsigned)combined);
  uint64_t misses = 0;
  Bgpm_ReadEvent((unsigned)combined, 0, &misses);
  check_range("combined PEVT_L2_MISSES of 1 MiB never touched: its 8192 lines", misses, 8190,
              8192 + 256);
  Bgpm_DeleteEventSet((unsigned)combined);

  const int sliced = Bgpm_CreateEventSet();
  check_code("a sliced set", Bgpm_AddEvent((unsigned)sliced, PEVT_L2_MISSES_SLICE), 0);
  Bgpm_GetL2Combine((unsigned)sliced, &enable);
  check_eq("Bgpm_GetL2Combine of a sliced set", (uint64_t)enable, 0);
  check_code("Apply switches the unit to sliced mode", Bgpm_Apply((unsigned)sliced), 0);
  Bgpm_Start((unsigned)sliced);
  for (unsigned i = sizeof fresh / 2; i < sizeof fresh; i += 128) fresh[i] = 1;
  Bgpm_Stop((unsigned)sliced);
  uint64_t total = 0, sum = 0, slice = 0;
  Bgpm_ReadEvent((unsigned)sliced, 0, &total);
  int slices_with_misses = 0;
  for (unsigned k = 0; k < 16; ++k) {
    Bgpm_L2_ReadEvent((unsigned)sliced, k, 0, &slice);
    sum += slice;
    slices_with_misses += slice > 0;
  }
  check_range("sliced PEVT_L2_MISSES_SLICE of the other 1 MiB", total, 8190, 8192 + 256);
  check_eq("  the slices' counts sum to the set's", sum, total);
  check_true("  spread over the slices (an address hash)", slices_with_misses >= 8);
  check_code("slice 16: BGPM_EINV_L2_SLICE", Bgpm_L2_ReadEvent((unsigned)sliced, 16, 0, &slice),
             BGPM_EINV_L2_SLICE);
  Bgpm_DeleteEventSet((unsigned)sliced);
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "exit-on-error") == 0) {
    Bgpm_Init(BGPM_MODE_SWDISTRIB);
    Bgpm_Start(12345); /* prints BGPM_EINV_SET_HANDLE and exits with status 1 */
    printf("FAIL Bgpm_Start of a bad handle returned\n");
    return 3;
  }
  Bgpm_ExitOnError(0);
  Bgpm_PrintOnError(0);
  const int init = Bgpm_Init(BGPM_MODE_SWDISTRIB);
  check_code("Bgpm_Init(BGPM_MODE_SWDISTRIB)", init, 0);
  if (init != 0) return finish(); /* no UPC-Q units: nothing else can work */
  check_rules();
  check_exact_counts();
  check_overflow();
  check_multiplex();
  check_l2();
  return finish();
}
