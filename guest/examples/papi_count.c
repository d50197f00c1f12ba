/* One PAPI program, two machines: the test build compiles this same source for the host against
 * Debian's PAPI (libpapi-dev) and for the simulated node against hpmsim's (tests/papi). It counts
 * a loop of N iterations (argument 1, default 1000000) with PAPI_TOT_INS and PAPI_TOT_CYC, and
 * the same loop 2N long, and prints:
 *   PAPI_TOT_INS <count> <count of 2N>
 *   PAPI_TOT_CYC <count> <count of 2N>
 * Exit status 0; 77 when PAPI cannot count these events here (a host whose kernel gives no
 * hardware counters), after printing the failing call and PAPI's own message for it. */
#include <papi.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

static void work(long n) {
  for (long i = 0; i < n; ++i) sink += i;
}

static int fail(const char* call, int code, int status) {
  printf("%s: %s (PAPI error %d)\n", call, PAPI_strerror(code), code);
  return status;
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 1000000;
  const int version = PAPI_library_init(PAPI_VER_CURRENT);
  if (version != PAPI_VER_CURRENT) return fail("PAPI_library_init", version, 1);
  const PAPI_component_info_t* cpu = PAPI_get_component_info(0);
  printf("component 0: %s%s%s\n", cpu->name, cpu->disabled ? ", disabled: " : "",
         cpu->disabled ? cpu->disabled_reason : "");
  int set = PAPI_NULL;
  int r = PAPI_create_eventset(&set);
  if (r != PAPI_OK) return fail("PAPI_create_eventset", r, 1);
  r = PAPI_add_event(set, PAPI_TOT_INS);
  if (r != PAPI_OK) return fail("PAPI_add_event(PAPI_TOT_INS)", r, 77);
  r = PAPI_add_event(set, PAPI_TOT_CYC);
  if (r != PAPI_OK) return fail("PAPI_add_event(PAPI_TOT_CYC)", r, 77);
  long long one[2], two[2];
  r = PAPI_start(set);
  if (r != PAPI_OK) return fail("PAPI_start", r, 77);
  work(n);
  PAPI_stop(set, one);
  PAPI_start(set);
  work(2 * n);
  PAPI_stop(set, two);
  printf("PAPI_TOT_INS %lld %lld\n", one[0], two[0]);
  printf("PAPI_TOT_CYC %lld %lld\n", one[1], two[1]);
  PAPI_cleanup_eventset(set);
  PAPI_destroy_eventset(&set);
  PAPI_shutdown();
  return 0;
}
