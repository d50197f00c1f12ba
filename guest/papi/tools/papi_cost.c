/* papi_cost: the cost, in the node's cycles (PAPI_get_real_cyc), of PAPI's start/stop, read,
 * read_ts, accum and reset on a set of two PUnit counters (PAPI 7's report). Options: -t N
 * (iterations, default 10000), -h. */
#include <math.h>

#include "papi_tools.h"

static void report(const char* what, const long long* c, int n) {
  long long lo = c[0], hi = c[0];
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    lo = c[i] < lo ? c[i] : lo;
    hi = c[i] > hi ? c[i] : hi;
    sum += (double)c[i];
  }
  const double mean = sum / n;
  double var = 0;
  for (int i = 0; i < n; ++i) var += ((double)c[i] - mean) * ((double)c[i] - mean);
  printf("\nTotal cost for %s over %d iterations\n", what, n);
  printf("min cycles   : %lld\nmax cycles   : %lld\nmean cycles  : %f\nstd deviation: %f\n", lo, hi,
         mean, sqrt(var / n));
}

int main(int argc, char** argv) {
  int n = 10000;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) {
      n = atoi(argv[++i]);
    } else {
      printf("Usage: %s [-t ITERATIONS]\n", argv[0]);
      return strcmp(argv[i], "-h") == 0 ? 0 : 1;
    }
  }
  if (n < 1) n = 1;
  papi_tools_init();
  printf(
      "Cost of execution for PAPI start/stop, read and accum.\n"
      "This test takes a while. Please be patient...\n");
  long long* c = malloc(sizeof *c * (size_t)n);
  int set = PAPI_NULL;
  PAPI_create_eventset(&set);
  if (PAPI_add_event(set, PAPI_TOT_CYC) != PAPI_OK ||
      PAPI_add_event(set, PAPI_TOT_INS) != PAPI_OK) {
    printf("papi_cost: PAPI_TOT_CYC and PAPI_TOT_INS are not available here\n");
    return 1;
  }
  long long v[2];
  printf("Performing loop latency test...\n");
  for (int i = 0; i < n; ++i) {
    const long long t0 = PAPI_get_real_cyc();
    c[i] = PAPI_get_real_cyc() - t0;
  }
  report("loop latency", c, n);
  printf("\nPerforming start/stop test...\n");
  for (int i = 0; i < n; ++i) {
    const long long t0 = PAPI_get_real_cyc();
    PAPI_start(set);
    PAPI_stop(set, v);
    c[i] = PAPI_get_real_cyc() - t0;
  }
  report("PAPI_start/stop (2 counters)", c, n);
  PAPI_start(set);
  printf("\nPerforming read test...\n");
  for (int i = 0; i < n; ++i) {
    const long long t0 = PAPI_get_real_cyc();
    PAPI_read(set, v);
    c[i] = PAPI_get_real_cyc() - t0;
  }
  report("PAPI_read (2 counters)", c, n);
  printf("\nPerforming read_ts test...\n");
  for (int i = 0; i < n; ++i) {
    long long ts;
    const long long t0 = PAPI_get_real_cyc();
    PAPI_read_ts(set, v, &ts);
    c[i] = PAPI_get_real_cyc() - t0;
  }
  report("PAPI_read_ts (2 counters)", c, n);
  printf("\nPerforming accum test...\n");
  for (int i = 0; i < n; ++i) {
    const long long t0 = PAPI_get_real_cyc();
    PAPI_accum(set, v);
    c[i] = PAPI_get_real_cyc() - t0;
  }
  report("PAPI_accum (2 counters)", c, n);
  printf("\nPerforming reset test...\n");
  for (int i = 0; i < n; ++i) {
    const long long t0 = PAPI_get_real_cyc();
    PAPI_reset(set);
    c[i] = PAPI_get_real_cyc() - t0;
  }
  report("PAPI_reset (2 counters)", c, n);
  PAPI_stop(set, v);
  free(c);
  printf("\ncost.c                                  PASSED\n");
  return 0;
}
