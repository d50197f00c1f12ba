/* libpapi on the bgq node: PAPI's rules and codes, exact counts of known loops, presets against
 * their native terms, and seed 001's work-arounds (tests/papi). Prints one "ok ..." or "FAIL ..."
 * line per check and a final PASSED/FAILED line (guest/counters' contract). */
#include <papi.h>
#include <papi_hpmsim.h>
#include <string.h>
#include <unistd.h>

#include "ctr_common.h"

static void check_code(const char* what, int got, int want) {
  if (got == want) {
    printf("ok %s = %d\n", what, got);
  } else {
    printf("FAIL %s = %d (%s), want %d\n", what, got, PAPI_strerror(got) ? PAPI_strerror(got) : "",
           want);
    ++ctr_failures;
  }
}

/* 2n instructions (n >= 1): n additions and n conditional branches. */
__attribute__((noinline)) static void loop(long long n) {
  __asm__ volatile("1: addi %0, %0, -1\n bnez %0, 1b" : "+r"(n));
}

/* 3n instructions: n fused multiply-adds (2n floating-point operations), n additions, n
 * branches. */
__attribute__((noinline)) static void fma_loop(long long n) {
  double acc = 0, a = 1.5, b = 2.0;
  __asm__ volatile("1: fmadd.d %1, %2, %3, %1\n addi %0, %0, -1\n bnez %0, 1b"
                   : "+r"(n), "+f"(acc)
                   : "f"(a), "f"(b));
}

/* n loads and n stores over a 1 MiB array, one per 64-byte line (L1D misses). */
static volatile char buffer[1 << 20];
static void touch(int rounds) {
  for (int r = 0; r < rounds; ++r) {
    for (unsigned i = 0; i < sizeof buffer; i += 64) buffer[i] = (char)(buffer[i] + 1);
  }
}

__attribute__((noinline)) static void run_loop(int set, long long n, long long* values) {
  PAPI_start(set);
  loop(n);
  PAPI_stop(set, values);
}

/* The same instructions around both loops (the compiler schedules inline calls differently). */
__attribute__((noinline)) static void run_fma(int set, long long n, long long* values) {
  PAPI_start(set);
  fma_loop(n);
  PAPI_stop(set, values);
}

static void check_library(void) {
  /* Before PAPI_library_init, as PAPI's compiled-in components (ctests/disable_component). */
  const PAPI_component_info_t* early = PAPI_get_component_info(0);
  check_true("before init: component 0's information is there (bgpm/PUnit)",
             early != NULL && strcmp(early->name, "bgpm/PUnit") == 0);
  check_code("PAPI_library_init with another version: PAPI_EINVAL",
             PAPI_library_init(PAPI_VER_CURRENT + 0x10000), PAPI_EINVAL);
  check_code("PAPI_library_init", PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
  check_code("PAPI_is_initialized", PAPI_is_initialized(), PAPI_LOW_LEVEL_INITED);
  check_code("seven components (the five BGPM units', the ground truth and sysdetect)",
             PAPI_num_components(), 7);
  const PAPI_component_info_t* cpu = PAPI_get_component_info(0);
  check_true("component 0 is bgpm/PUnit with the 12 counters a thread's set can hold",
             cpu != NULL && strcmp(cpu->name, "bgpm/PUnit") == 0 && cpu->num_cntrs == 12 &&
                 !cpu->disabled);
  check_code("PAPI_num_hwctrs: component 0's counters", PAPI_num_hwctrs(), 12);
  PAPI_option_t opt;
  memset(&opt, 0, sizeof opt);
  check_code("PAPI_get_opt(PAPI_COMPONENTINFO)", PAPI_get_opt(PAPI_COMPONENTINFO, &opt), PAPI_OK);
  check_true("  gives component 0's information", opt.cmp_info == cpu);
  memset(&opt, 0, sizeof opt);
  check_code("PAPI_get_cmp_opt(PAPI_COMPONENTINFO, 4)",
             PAPI_get_cmp_opt(PAPI_COMPONENTINFO, &opt, 4), PAPI_OK);
  check_true("  gives component 4's (bgpm/NWUnit)",
             opt.cmp_info != NULL && strcmp(opt.cmp_info->name, "bgpm/NWUnit") == 0);
  check_code("PAPI_get_opt(PAPI_COMPONENTINFO, NULL): PAPI_EINVAL",
             PAPI_get_opt(PAPI_COMPONENTINFO, NULL), PAPI_EINVAL);
  const PAPI_component_info_t* nw = PAPI_get_component_info(PAPI_get_component_index("NWUnit"));
  check_true(
      "bgpm/NWUnit is enabled with 66 counters, BGPM's 31 network events and hpmsim's "
      "PEVT_NW_PACKETS_SENT",
      nw != NULL && !nw->disabled && nw->num_cntrs == 66 && nw->num_native_events == 32);
  check_code("PAPI_disable_component after init: PAPI_ENOINIT", PAPI_disable_component(1),
             PAPI_ENOINIT);
  const PAPI_hw_info_t* hw = PAPI_get_hardware_info();
  check_true("hardware info: 64 hardware threads of 16 cores at 1600 MHz",
             hw != NULL && hw->totalcpus == 64 && hw->cores == 16 && hw->threads == 4 &&
                 hw->cpu_max_mhz == 1600);
  const PAPI_exe_info_t* exe = PAPI_get_executable_info();
  check_true("executable info names the program",
             exe != NULL && strcmp(exe->address_info.name, "papi_basic") == 0 &&
                 exe->address_info.text_start < exe->address_info.text_end);
  check_true(
      "PAPI_strerror(PAPI_ECNFLCT)",
      strcmp(PAPI_strerror(PAPI_ECNFLCT),
             "Event exists, but cannot be counted due to counter resource limitations") == 0);
}

static void check_events(void) {
  int code = 0;
  check_code("PAPI_event_name_to_code PAPI_TOT_INS", PAPI_event_name_to_code("PAPI_TOT_INS", &code),
             PAPI_OK);
  check_true("  is PAPI_TOT_INS (0x80000032)", code == PAPI_TOT_INS && code == (int)0x80000032);
  check_code("PAPI_query_event PAPI_TOT_INS", PAPI_query_event(PAPI_TOT_INS), PAPI_OK);
  check_code("PAPI_query_event PAPI_VEC_INS: not here", PAPI_query_event(PAPI_VEC_INS),
             PAPI_ENOEVNT);
  int native = 0, qualified = 0;
  PAPI_event_name_to_code("PEVT_INST_ALL", &native);
  PAPI_event_name_to_code("bgpm/PUnit:::PEVT_INST_ALL", &qualified);
  check_true("a native code, the same with its component named",
             IS_NATIVE(native) && native == qualified);
  char name[PAPI_MAX_STR_LEN];
  PAPI_event_code_to_name(native, name);
  check_true("code to name", strcmp(name, "PEVT_INST_ALL") == 0);
  check_code("an unknown name: PAPI_ENOEVNT", PAPI_event_name_to_code("PEVT_NO_SUCH", &code),
             PAPI_ENOEVNT);
  PAPI_event_info_t info;
  PAPI_get_event_info(PAPI_BR_NTK, &info);
  check_true("PAPI_BR_NTK: DERIVED_POSTFIX of 3 terms, the first PEVT_INST_XU_BRC",
             info.count == 3 && strcmp(info.derived, "DERIVED_POSTFIX") == 0 &&
                 strcmp(info.name[0], "PEVT_INST_XU_BRC") == 0 &&
                 strcmp(info.postfix, "N0|N1|-|N2|+|") == 0);
  int presets = 0;
  code = PAPI_PRESET_MASK;
  if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) == PAPI_OK) {
    do {
      if (PAPI_query_event(code) == PAPI_OK) ++presets;
    } while (PAPI_enum_event(&code, PAPI_PRESET_ENUM_AVAIL) == PAPI_OK);
  }
  check_eq("available presets enumerated", (uint64_t)presets, 37);
  int natives = 0;
  code = PAPI_NATIVE_MASK;
  if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, 1) == PAPI_OK) {
    do ++natives;
    while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, 1) == PAPI_OK);
  }
  check_eq("L2Unit native events enumerated = its num_native_events", (uint64_t)natives,
           (uint64_t)PAPI_get_component_info(1)->num_native_events);
}

static void check_set_rules(void) {
  int set = PAPI_NULL, other = 3;
  check_code("PAPI_create_eventset with a handle not PAPI_NULL: PAPI_EINVAL",
             PAPI_create_eventset(&other), PAPI_EINVAL);
  check_code("PAPI_create_eventset", PAPI_create_eventset(&set), PAPI_OK);
  check_code("add PAPI_TOT_INS", PAPI_add_event(set, PAPI_TOT_INS), PAPI_OK);
  check_code("add PAPI_TOT_CYC by name", PAPI_add_named_event(set, "PAPI_TOT_CYC"), PAPI_OK);
  check_code("add PAPI_TOT_INS again: PAPI_ECNFLCT", PAPI_add_event(set, PAPI_TOT_INS),
             PAPI_ECNFLCT);
  check_code("add an L2Unit event to a PUnit set: PAPI_EINVAL",
             PAPI_add_named_event(set, "PEVT_L2_HITS"), PAPI_EINVAL);
  long long v[2], r[2], a[2] = {0, 0};
  check_code("PAPI_start", PAPI_start(set), PAPI_OK);
  check_code("PAPI_start of a running set: PAPI_EISRUN", PAPI_start(set), PAPI_EISRUN);
  check_code("PAPI_cleanup_eventset of a running set: PAPI_EISRUN", PAPI_cleanup_eventset(set),
             PAPI_EISRUN);
  check_code("PAPI_destroy_eventset of a running set: PAPI_EISRUN", PAPI_destroy_eventset(&set),
             PAPI_EISRUN);
  int state = 0;
  PAPI_state(set, &state);
  check_true("PAPI_state: running", state == PAPI_RUNNING);
  loop(1000);
  check_code("PAPI_stop", PAPI_stop(set, v), PAPI_OK);
  check_code("PAPI_stop of a stopped set: PAPI_ENOTRUN", PAPI_stop(set, v), PAPI_ENOTRUN);
  PAPI_read(set, r);
  check_true("a read after stop returns the stopped values", r[0] == v[0] && r[1] == v[1]);
  PAPI_accum(set, a);
  check_true("accum adds the values", a[0] == v[0] && a[1] == v[1]);
  PAPI_read(set, r);
  check_true("  and zeroes the counters", r[0] == 0 && r[1] == 0);
  PAPI_start(set);
  loop(1000);
  PAPI_stop(set, v);
  PAPI_reset(set);
  PAPI_read(set, r);
  check_true("a reset stopped set reads 0", r[0] == 0 && r[1] == 0);
  check_code("PAPI_destroy_eventset of a non-empty set: PAPI_EINVAL", PAPI_destroy_eventset(&set),
             PAPI_EINVAL);
  check_code("PAPI_cleanup_eventset", PAPI_cleanup_eventset(set), PAPI_OK);
  check_code("PAPI_destroy_eventset", PAPI_destroy_eventset(&set), PAPI_OK);
  check_true("  sets the handle to PAPI_NULL", set == PAPI_NULL);

  /* More PUnit events than a BGPM set takes (12 for one thread): PAPI_ECNFLCT. */
  PAPI_create_eventset(&set);
  static const char* const names[] = {
      "PEVT_INST_ALL",     "PEVT_CYCLES",         "PEVT_INST_XU_BRC",  "PEVT_INST_XU_BRU",
      "PEVT_XU_BR_COMMIT", "PEVT_LSU_COMMIT_STS", "PEVT_INST_XU_IADD", "PEVT_INST_XU_LD",
      "PEVT_INST_XU_ST",   "PEVT_INST_QFPU_ALL",  "PEVT_INST_XU_ILOG", "PEVT_INST_XU_ICMP",
      "PEVT_INST_XU_BITS"};
  int last = PAPI_OK;
  for (int i = 0; i < 13; ++i) last = PAPI_add_named_event(set, names[i]);
  check_code("the 13th PUnit event: counters exhausted, PAPI_ECNFLCT", last, PAPI_ECNFLCT);
  check_eq("  and the set keeps its 12", (uint64_t)PAPI_num_events(set), 12);
  check_eq("  which is PAPI_num_hwctrs", (uint64_t)PAPI_num_events(set),
           (uint64_t)PAPI_num_hwctrs());

  /* What no component here can do: PAPI_ECMP, as PAPI's components that cannot say. */
  PAPI_option_t opt;
  memset(&opt, 0, sizeof opt);
  opt.inherit.eventset = set;
  opt.inherit.inherit = PAPI_INHERIT_ALL;
  check_code("PAPI_set_opt(PAPI_INHERIT): PAPI_ECMP", PAPI_set_opt(PAPI_INHERIT, &opt), PAPI_ECMP);
  memset(&opt, 0, sizeof opt);
  opt.cpu.eventset = set;
  opt.cpu.cpu_num = 1;
  check_code("PAPI_set_opt(PAPI_CPU_ATTACH): PAPI_ECMP", PAPI_set_opt(PAPI_CPU_ATTACH, &opt),
             PAPI_ECMP);
  memset(&opt, 0, sizeof opt);
  opt.attach.eventset = set;
  opt.attach.tid = 1;
  check_code("PAPI_set_opt(PAPI_ATTACH): PAPI_ECMP", PAPI_set_opt(PAPI_ATTACH, &opt), PAPI_ECMP);
  PAPI_cleanup_eventset(set);
  PAPI_destroy_eventset(&set);
  PAPI_create_eventset(&set);
  memset(&opt, 0, sizeof opt);
  opt.inherit.eventset = set;
  check_code("PAPI_set_opt(PAPI_INHERIT) on a set of no component: PAPI_ENOCMP",
             PAPI_set_opt(PAPI_INHERIT, &opt), PAPI_ENOCMP);
  PAPI_destroy_eventset(&set);
  memset(&opt, 0, sizeof opt);
  opt.inherit.eventset = 9999;
  check_code("PAPI_set_opt(PAPI_INHERIT) on no set: PAPI_ENOEVST", PAPI_set_opt(PAPI_INHERIT, &opt),
             PAPI_ENOEVST);
}

static void check_exact(void) {
  int set = PAPI_NULL;
  PAPI_create_eventset(&set);
  int events[] = {PAPI_TOT_INS, PAPI_BR_CN, PAPI_FP_OPS, PAPI_FP_INS, PAPI_FMA_INS};
  check_code("add five presets", PAPI_add_events(set, events, 5), PAPI_OK);
  long long a[5], b[5];
  run_loop(set, 1000, a);
  run_loop(set, 51000, b);
  check_eq("PAPI_TOT_INS difference of loops of 51000 and 1000", (uint64_t)(b[0] - a[0]),
           2 * 50000);
  check_eq("PAPI_BR_CN difference", (uint64_t)(b[1] - a[1]), 50000);
  run_fma(set, 1000, a);
  run_fma(set, 31000, b);
  check_eq("PAPI_FP_OPS of 30000 more fused multiply-adds", (uint64_t)(b[2] - a[2]), 2 * 30000);
  check_eq("PAPI_FP_INS difference", (uint64_t)(b[3] - a[3]), 30000);
  check_eq("PAPI_FMA_INS difference", (uint64_t)(b[4] - a[4]), 30000);
  check_eq("PAPI_TOT_INS difference", (uint64_t)(b[0] - a[0]), 3 * 30000);
  PAPI_cleanup_eventset(set);
  PAPI_destroy_eventset(&set);

  /* Presets against their natives, counted together. */
  PAPI_create_eventset(&set);
  const char* const names[] = {"PAPI_L1_DCM",
                               "PEVT_LSU_COMMIT_LD_MISSES",
                               "PEVT_LSU_COMMIT_ST_MISSES",
                               "PAPI_BR_CN",
                               "PAPI_BR_TKN",
                               "PAPI_BR_NTK"};
  for (int i = 0; i < 6; ++i) PAPI_add_named_event(set, names[i]);
  long long v[6];
  PAPI_start(set);
  touch(2);
  loop(777);
  PAPI_stop(set, v);
  check_true("PAPI_L1_DCM = load misses + store misses", v[0] == v[1] + v[2] && v[0] > 0);
  check_true("PAPI_BR_TKN + PAPI_BR_NTK = PAPI_BR_CN", v[4] + v[5] == v[3] && v[3] > 777);
  printf("L1 misses %lld (%lld + %lld), conditional branches %lld = %lld taken + %lld not\n", v[0],
         v[1], v[2], v[3], v[4], v[5]);
  PAPI_cleanup_eventset(set);
  PAPI_destroy_eventset(&set);
}

static int handler_calls, handler_set = -1, handler_index = -1;
static long long handler_read = -1;
static void on_overflow(int set, void* address, long long vector, void* context) {
  (void)address;
  (void)context;
  ++handler_calls;
  handler_set = set;
  int index[2], n = 2;
  if (PAPI_get_overflow_event_index(set, vector, index, &n) == PAPI_OK && n == 1) {
    handler_index = index[0];
  }
  long long values[2];
  if (PAPI_read(set, values) == PAPI_OK) handler_read = values[0];
}

static void check_overflow(void) {
  int set = PAPI_NULL;
  PAPI_create_eventset(&set);
  PAPI_add_event(set, PAPI_TOT_CYC);
  PAPI_add_event(set, PAPI_TOT_INS);
  const int before = papix_rebuilds(set);
  /* The set is applied (frozen in BGPM): PAPI rebuilds it to set the overflow. */
  check_code("PAPI_overflow on an applied set",
             PAPI_overflow(set, PAPI_TOT_INS, 25000, 0, on_overflow), PAPI_OK);
  check_eq("  rebuilt the BGPM set once", (uint64_t)(papix_rebuilds(set) - before), 1);
  PAPI_add_event(set, PAPI_STL_CCY);
  check_code("PAPI_overflow on a derived preset: PAPI_EINVAL",
             PAPI_overflow(set, PAPI_STL_CCY, 100, 0, on_overflow), PAPI_EINVAL);
  check_code("PAPI_overflow on an event not in the set: PAPI_ENOEVNT",
             PAPI_overflow(set, PAPI_BR_CN, 100, 0, on_overflow), PAPI_ENOEVNT);
  long long v[3];
  PAPI_start(set);
  loop(600000);
  PAPI_stop(set, v);
  check_eq("handler calls = floor(PAPI_TOT_INS / threshold)", (uint64_t)handler_calls,
           (uint64_t)(v[1] / 25000));
  check_true("the handler gets the event set and the event's index",
             handler_set == set && handler_index == 1);
  check_true("PAPI_read works in the handler", handler_read >= 0);
  check_code("threshold 0 turns overflow off", PAPI_overflow(set, PAPI_TOT_INS, 0, 0, NULL),
             PAPI_OK);
  const int calls = handler_calls;
  run_loop(set, 100000, v);
  check_eq("  no more handler calls", (uint64_t)handler_calls, (uint64_t)calls);
  PAPI_cleanup_eventset(set);
  PAPI_destroy_eventset(&set);
}

static void check_multiplex(void) {
  const long long n = 2000000;
  int set = PAPI_NULL;
  PAPI_create_eventset(&set);
  PAPI_add_event(set, PAPI_TOT_INS);
  long long reference;
  run_loop(set, n, &reference);
  PAPI_cleanup_eventset(set);
  PAPI_destroy_eventset(&set);

  check_code("PAPI_multiplex_init", PAPI_multiplex_init(), PAPI_OK);
  PAPI_create_eventset(&set);
  PAPI_add_event(set, PAPI_TOT_INS); /* not empty: BGPM alone would refuse to multiplex it */
  const int before = papix_rebuilds(set);
  check_code("PAPI_set_multiplex on a non-empty set", PAPI_set_multiplex(set), PAPI_OK);
  check_eq("  rebuilt the BGPM set once", (uint64_t)(papix_rebuilds(set) - before), 1);
  check_code("PAPI_get_multiplex", PAPI_get_multiplex(set), 1);
  static const char* const names[] = {
      "PEVT_CYCLES",         "PEVT_INST_XU_BRC",  "PEVT_INST_XU_BRU",  "PEVT_XU_BR_COMMIT",
      "PEVT_LSU_COMMIT_STS", "PEVT_INST_XU_IADD", "PEVT_INST_XU_LD",   "PEVT_INST_XU_ST",
      "PEVT_INST_QFPU_ALL",  "PEVT_INST_XU_ILOG", "PEVT_INST_XU_ICMP", "PEVT_INST_XU_BITS",
      "PEVT_INST_XU_IMUL"};
  int added = 0;
  for (int i = 0; i < 13; ++i) added += PAPI_add_named_event(set, names[i]) == PAPI_OK;
  check_eq("14 events in a multiplexed set (more than the 12 a set takes)",
           (uint64_t)PAPI_num_events(set), 14);
  long long v[14];
  /* Reads while it runs never decrease, whichever group counts. */
  PAPI_start(set);
  long long last[14] = {0};
  int monotonic = 1;
  for (int k = 0; k < 40; ++k) {
    loop(n / 40);
    PAPI_read(set, v);
    for (int e = 0; e < 14; ++e) {
      monotonic &= v[e] >= last[e];
      last[e] = v[e];
    }
  }
  PAPI_stop(set, v);
  check_true("multiplexed reads while counting never decrease", monotonic);
  run_loop(set, n, v);
  check_range("multiplexed PAPI_TOT_INS, scaled, within 10% of a single-set run", (uint64_t)v[0],
              (uint64_t)(reference - reference / 10), (uint64_t)(reference + reference / 10));
  PAPI_cleanup_eventset(set);
  PAPI_destroy_eventset(&set);
  (void)added;
}

/* PAPI multiplexes the L2 unit's sets itself (BGPM multiplexes only PUnit sets): more L2 events
 * than its 6 counters, each scaled from its share of the time. */
static void check_node_multiplex(void) {
  static volatile char first[4 << 20], second[4 << 20]; /* each swept once: every line misses */
  int set = PAPI_NULL;
  PAPI_create_eventset(&set);
  PAPI_add_named_event(set, "PEVT_L2_MISSES");
  long long reference = 0;
  PAPI_start(set);
  for (unsigned i = 0; i < sizeof first; i += 128) first[i] = 1;
  PAPI_stop(set, &reference);
  PAPI_cleanup_eventset(set);

  PAPI_add_named_event(set, "PEVT_L2_MISSES");
  check_code("PAPI_set_multiplex on an L2Unit set", PAPI_set_multiplex(set), PAPI_OK);
  static const char* const more[] = {"PEVT_L2_HITS",       "PEVT_L2_PREFETCH",
                                     "PEVT_L2_FETCH_LINE", "PEVT_L2_STORE_LINE",
                                     "PEVT_L2_REQ_RETIRE", "PEVT_L2_REQ_MISS_AND_EVICT",
                                     "PEVT_L2_READS",      "PEVT_L2_WRITES"};
  int added = 1;
  for (int i = 0; i < 8; ++i) added += PAPI_add_named_event(set, more[i]) == PAPI_OK;
  check_eq("9 L2 events in a multiplexed set (the unit has 6 counters)", (uint64_t)added, 9);
  long long v[9];
  PAPI_start(set);
  for (unsigned i = 0; i < sizeof second; i += 128) second[i] = 1;
  PAPI_stop(set, v);
  check_range("multiplexed PEVT_L2_MISSES, scaled, within 10% of a single-set count",
              (uint64_t)v[0], (uint64_t)(reference - reference / 10),
              (uint64_t)(reference + reference / 10));
  PAPI_cleanup_eventset(set);
  PAPI_destroy_eventset(&set);
}

static void check_node_components(void) {
  int set = PAPI_NULL;
  PAPI_create_eventset(&set);
  check_code("a CNKUnit event", PAPI_add_named_event(set, "PEVT_CNKHWT_SYSCALL"), PAPI_OK);
  check_code("  in component 3", PAPI_get_eventset_component(set), 3);
  long long calls;
  PAPI_start(set);
  for (int i = 0; i < 40; ++i) (void)getppid();
  PAPI_stop(set, &calls);
  check_eq("PEVT_CNKHWT_SYSCALL counts the 40 getppid calls", (uint64_t)calls, 40);
  int syscalls = 0;
  PAPI_event_name_to_code("PEVT_CNKHWT_SYSCALL", &syscalls);
  check_code("no overflow on the CNKUnit: PAPI_ECMP",
             PAPI_overflow(set, syscalls, 10, 0, on_overflow), PAPI_ECMP);
  PAPI_cleanup_eventset(set);
  PAPI_destroy_eventset(&set);

  PAPI_create_eventset(&set);
  check_code("an L2Unit event by its qualified name",
             PAPI_add_named_event(set, "bgpm/L2Unit:::PEVT_L2_MISSES"), PAPI_OK);
  long long lines;
  static volatile char fresh[1 << 20]; /* never touched before: every line misses in the L2 */
  PAPI_start(set);
  for (unsigned i = 0; i < sizeof fresh; i += 64) fresh[i] = 1;
  PAPI_stop(set, &lines);
  /* bgq's L2 lines are 128 bytes: 8192 of them; the array's first and last lines may share
   * lines touched before. */
  check_range("PEVT_L2_MISSES of a first 1 MiB sweep: its 8192 L2 lines", (uint64_t)lines, 8190,
              8192 + 256);
  PAPI_cleanup_eventset(set);
  PAPI_destroy_eventset(&set);
}

static int slow_calls;
static void on_slow(int set, void* address, long long vector, void* context) {
  (void)set;
  (void)address;
  (void)vector;
  (void)context;
  ++slow_calls;
}

/* Slow overflow: the L2 unit's counter interrupts up to a sweep late and holds the unit until
 * the handler returns; still one handler call per threshold period. */
static void check_slow_overflow(void) {
  static volatile char fresh[4 << 20]; /* never touched before: its 32768 L2 lines miss */
  int set = PAPI_NULL;
  PAPI_create_eventset(&set);
  PAPI_add_named_event(set, "PEVT_L2_MISSES");
  int code = 0;
  PAPI_event_name_to_code("PEVT_L2_MISSES", &code);
  check_code("PAPI_overflow on PEVT_L2_MISSES", PAPI_overflow(set, code, 1000, 0, on_slow),
             PAPI_OK);
  long long misses = 0;
  PAPI_start(set);
  for (unsigned i = 0; i < sizeof fresh; i += 128) fresh[i] = 1;
  PAPI_stop(set, &misses);
  check_range("PEVT_L2_MISSES of a first 4 MiB sweep", (uint64_t)misses, 32760, 32768 + 512);
  check_eq("slow overflow: handler calls = floor(count / threshold)", (uint64_t)slow_calls,
           (uint64_t)(misses / 1000));
  PAPI_cleanup_eventset(set);
  PAPI_destroy_eventset(&set);
}

/* The rest of PAPI's calls: PAPI_write, the rate helpers, the event's component, attach and the
 * device queries the node's components do not offer. */
static void check_rest(void) {
  int set = PAPI_NULL;
  PAPI_create_eventset(&set);
  PAPI_add_event(set, PAPI_TOT_INS);
  PAPI_start(set);
  long long w = 1000000, v = 0;
  check_code("PAPI_write", PAPI_write(set, &w), PAPI_OK);
  loop(500);
  PAPI_stop(set, &v);
  /* The loop's 1000 instructions, and the library's own after the write and before the stop. */
  check_range("  counting goes on from the written value", (uint64_t)v, 1000000 + 1000,
              1000000 + 5000);
  check_code("PAPI_attach: PAPI_ECMP (the node's components count their own threads)",
             PAPI_attach(set, 1), PAPI_ECMP);
  PAPI_cleanup_eventset(set);
  PAPI_destroy_eventset(&set);
  check_code("PAPI_get_event_component(PAPI_TOT_INS)", PAPI_get_event_component(PAPI_TOT_INS), 0);
  int l2 = 0;
  PAPI_event_name_to_code("PEVT_L2_HITS", &l2);
  check_code("PAPI_get_event_component(PEVT_L2_HITS)", PAPI_get_event_component(l2), 1);
  void* handle = NULL;
  check_code("PAPI_enum_dev_type (sysdetect)", PAPI_enum_dev_type(PAPI_DEV_TYPE_ENUM__ALL, &handle),
             PAPI_OK);
  int dev_id = -1, dev_count = 0;
  unsigned cores = 0, threads = 0;
  PAPI_get_dev_type_attr(handle, PAPI_DEV_TYPE_ATTR__INT_PAPI_ID, &dev_id);
  PAPI_get_dev_type_attr(handle, PAPI_DEV_TYPE_ATTR__INT_COUNT, &dev_count);
  PAPI_get_dev_attr(handle, 0, PAPI_DEV_ATTR__CPU_UINT_CORE_COUNT, &cores);
  PAPI_get_dev_attr(handle, 0, PAPI_DEV_ATTR__CPU_UINT_THREAD_COUNT, &threads);
  check_true("  first the CPU type: one device of 16 cores and 64 hardware threads",
             dev_id == PAPI_DEV_TYPE_ID__CPU && dev_count == 1 && cores == 16 && threads == 64);
  int types = 1, gpus = 0;
  while (PAPI_enum_dev_type(PAPI_DEV_TYPE_ENUM__ALL, &handle) == PAPI_OK) {
    PAPI_get_dev_type_attr(handle, PAPI_DEV_TYPE_ATTR__INT_COUNT, &dev_count);
    gpus += dev_count;
    ++types;
  }
  check_true("  then CUDA and ROCm, with no devices", types == 3 && gpus == 0);

  float rtime, ptime, ipc, mflops;
  long long ins, flpops;
  check_code("PAPI_ipc starts", PAPI_ipc(&rtime, &ptime, &ins, &ipc), PAPI_OK);
  check_true("  with zeros", ins == 0 && ipc == 0 && rtime == 0);
  loop(100000);
  check_code("PAPI_ipc reads", PAPI_ipc(&rtime, &ptime, &ins, &ipc), PAPI_OK);
  check_true("  instructions, a rate and the time",
             ins > 200000 && ipc > 0.1f && ipc <= 1.0f && rtime > 0);
  check_code("PAPI_flops_rate while PAPI_ipc counts: PAPI_EINVAL",
             PAPI_flops_rate(PAPI_FP_OPS, &rtime, &ptime, &flpops, &mflops), PAPI_EINVAL);
  check_code("PAPI_rate_stop", PAPI_rate_stop(), PAPI_OK);
  PAPI_flops_rate(PAPI_FP_OPS, &rtime, &ptime, &flpops, &mflops);
  fma_loop(10000);
  PAPI_flops_rate(PAPI_FP_OPS, &rtime, &ptime, &flpops, &mflops);
  check_range("PAPI_flops_rate counts the 20000 operations of 10000 fused multiply-adds",
              (uint64_t)flpops, 20000, 20010);
  check_true("  at a rate", mflops > 0);
  PAPI_rate_stop();
  long long ref, core, evt;
  float epc;
  check_code("PAPI_epc starts", PAPI_epc(PAPI_BR_CN, &rtime, &ptime, &ref, &core, &evt, &epc),
             PAPI_OK);
  loop(100000);
  check_code("PAPI_epc reads", PAPI_epc(PAPI_BR_CN, &rtime, &ptime, &ref, &core, &evt, &epc),
             PAPI_OK);
  check_true(
      "  the loop's 100000 branches (and the library's few hundred) per cycle, reference "
      "cycles the core's",
      evt >= 100000 && evt < 100500 && epc > 0.05f && epc <= 1.0f && ref == core && core > evt);
  PAPI_rate_stop();
}

static void check_timers(void) {
  const long long c0 = PAPI_get_real_cyc(), u0 = PAPI_get_real_usec();
  loop(1000000);
  const long long c1 = PAPI_get_real_cyc(), u1 = PAPI_get_real_usec();
  const long long mhz = PAPI_get_opt(PAPI_CLOCKRATE, NULL);
  check_true(
      "real cycles and microseconds advance together at the clock rate",
      c1 > c0 && u1 > u0 && (c1 - c0) / mhz - (u1 - u0) <= 2 && (u1 - u0) - (c1 - c0) / mhz <= 2);
}

int main(void) {
  check_library();
  check_events();
  check_set_rules();
  check_exact();
  check_overflow();
  check_multiplex();
  check_node_components();
  check_node_multiplex();
  check_slow_overflow();
  check_rest();
  check_timers();
  return finish();
}
