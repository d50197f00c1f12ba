/* papi_clockres: the latency and resolution of PAPI's four clocks (consecutive readings: their
 * smallest, largest and mean difference, its standard deviation, and the mean per reading and
 * per distinct reading), in PAPI 7's layout (its testlib's clockcore). PAPI takes 1,000,000
 * readings of each clock; here 10,000 (-n N to change), so that a simulated run takes a second. */
#include <math.h>
#include <unistd.h>

#include "papi_tools.h"

static long long read_clock(int which) {
  switch (which) {
    case 0: return PAPI_get_real_cyc();
    case 1: return PAPI_get_real_usec();
    case 2: return PAPI_get_virt_cyc();
    default: return PAPI_get_virt_usec();
  }
}

/* Prints one clock's figures; -1 if it ran backwards. */
static int check(int which, long long* t, int n) {
  static const char* const names[] = {"PAPI_get_real_cyc", "PAPI_get_real_usec",
                                      "PAPI_get_virt_cyc", "PAPI_get_virt_usec"};
  for (int i = 0; i < n; ++i) t[i] = read_clock(which);
  double min = (double)(t[1] - t[0]), max = min;
  long long total = 0, distinct = 0;
  for (int i = 1; i < n; ++i) {
    const long long d = t[i] - t[i - 1];
    if (d < 0) {
      fprintf(stderr, "Error! Negative elapsed time\n");
      return -1;
    }
    min = fmin(min, (double)d);
    max = fmax(max, (double)d);
    distinct += d != 0;
    total += d;
  }
  const double mean = (double)total / (n - 1);
  double sq = 0;
  for (int i = 1; i < n; ++i)
    sq += ((double)(t[i] - t[i - 1]) - mean) * ((double)(t[i] - t[i - 1]) - mean);
  printf("%s: min %.3lf  max %.3lf \n", names[which], min, max);
  printf("                   average %.3lf std %.3lf\n", mean, sqrt(sq / (n - 2)));
  const double per_reading = (double)total / n;
  if (distinct == n - 1) {
    printf("%s : %7.3f   <%7.3f\n", names[which], per_reading, (double)total / (double)distinct);
  } else if (distinct > 0) {
    printf("%s : %7.3f    %7.3f\n", names[which], per_reading, (double)total / (double)distinct);
  } else {
    printf("%s : %7.3f   >%7.3f\n", names[which], per_reading, (double)total);
  }
  return 0;
}

int main(int argc, char** argv) {
  int n = 10000;
  for (int c; (c = getopt(argc, argv, "n:")) != -1;) {
    if (c != 'n' || (n = atoi(optarg)) < 3) {
      fprintf(stderr, "Usage: %s [-n READINGS (at least 3)]\n", argv[0]);
      return 1;
    }
  }
  papi_tools_init();
  if (PAPI_set_debug(PAPI_VERB_ECONT) != PAPI_OK) {
    fprintf(stderr, "Error with PAPI_set_debug!\n");
    return 1;
  }
  printf("Printing Clock latency and resolution.\n");
  printf("-----------------------------------------------\n");
  long long* t = calloc((size_t)n, sizeof *t);
  if (t == NULL) {
    fprintf(stderr, "Error allocating memory!\n");
    return 1;
  }
  for (int which = 0; which < 4; ++which) {
    if (check(which, t, n) != 0) {
      fprintf(stderr, "Error reading clock!\n");
      return 1;
    }
  }
  free(t);
  return 0;
}
