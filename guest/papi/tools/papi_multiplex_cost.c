/* papi_multiplex_cost: the cost, in the node's cycles (PAPI_get_real_cyc), of PAPI_start/stop,
 * PAPI_read, PAPI_read_ts, PAPI_accum and PAPI_reset on multiplexed event sets of 1, 2, ...
 * events (PAPI 7's utility: its options, its messages and its five .dat files in the current
 * directory, one row per set size: min, max, mean and standard deviation of the "kernel"
 * multiplexed set, then of the software multiplexed one). Options: -m MIN and -x MAX (set sizes
 * MIN to MAX - 1, as PAPI's loop; defaults 1 and 10), -s (no software multiplexing), -k (no
 * kernel multiplexing), -t N (iterations per figure; default 100, PAPI's 100,000: a simulated
 * run takes seconds), -h.
 *
 * On hpmsim both kinds are BGPM's multiplexing of the PUnit set (docs/papi.md: libpapi
 * multiplexes inside libbgpm, not in PAPI's user-space multiplexer): the "kernel" set by
 * PAPI_set_multiplex, the software one by PAPI_set_opt(PAPI_MULTIPLEX, PAPI_MULTIPLEX_FORCE_SW),
 * which libpapi takes the same way. The events are the component's first natives the mode
 * counts, as PAPI takes the first natives it can add. */
#include <math.h>
#include <unistd.h>

#include "papi_tools.h"

static int iterations = 100;

/* min, max and mean of a[0..n); the sample standard deviation (PAPI's do_stats). */
static double stats(const long long* a, int n, long long* lo, long long* hi, double* mean) {
  *lo = *hi = a[0];
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    *lo = a[i] < *lo ? a[i] : *lo;
    *hi = a[i] > *hi ? a[i] : *hi;
    sum += (double)a[i];
  }
  *mean = sum / n;
  double var = 0;
  for (int i = 0; i < n; ++i) var += ((double)a[i] - *mean) * ((double)a[i] - *mean);
  return n > 1 ? sqrt(var / (n - 1)) : 0.0;
}

/* One .dat file: its two header lines, then a row per set size. */
struct dat {
  FILE* f;
};

static void dat_open(struct dat* d, const char* file, const char* title) {
  d->f = fopen(file, "w");
  if (d->f == NULL) {
    fprintf(stderr, "Unable to open output file, %s, output will not be saved.\n", file);
    return;
  }
  fprintf(d->f,
          "###%s\n#number of events\tmin cycles\tmax cycles\tmean cycles\tstd deviation\t"
          "sw min cycles\tsw max cycles\tsw avg cycles\tsw std dev\n",
          title);
}

/* `c`: the kernel set's figures, then the software set's (2 x iterations). */
static void dat_row(struct dat* d, int events, const long long* c) {
  if (d->f == NULL) return;
  long long lo, hi;
  double mean;
  double sd = stats(c, iterations, &lo, &hi, &mean);
  fprintf(d->f, "%20d\t%10lld\t%10lld\t%10lf\t%10lf", events, lo, hi, mean, sd);
  sd = stats(c + iterations, iterations, &lo, &hi, &mean);
  fprintf(d->f, "\t%10lld\t%10lld\t%10lf\t%10lf\n", lo, hi, mean, sd);
  fflush(d->f);
}

static void dat_close(struct dat* d) {
  if (d->f != NULL) fclose(d->f);
  d->f = NULL;
}

enum test { START_STOP, READ, READ_TS, ACCUM, RESET };

/* Times `test` on `set` (iterations of it) into c[0..iterations). */
static void time_one(enum test test, int set, long long* values, long long* c) {
  long long ts = 0;
  if (test == START_STOP) {
    PAPI_start(set);
    PAPI_stop(set, values);
    for (int i = 0; i < iterations; ++i) {
      const long long t0 = PAPI_get_real_cyc();
      const int a = PAPI_start(set);
      const int b = PAPI_stop(set, values);
      c[i] = PAPI_get_real_cyc() - t0;
      if (a != PAPI_OK || b != PAPI_OK) fprintf(stderr, "PAPI start/stop");
    }
    return;
  }
  PAPI_start(set);
  if (test == READ_TS) {
    PAPI_read_ts(set, values, &ts);
    /* Each read's cost is the time between its timestamp and the one before. */
    for (int i = 0; i < iterations; ++i) PAPI_read_ts(set, values, &c[i]);
    for (int i = iterations - 1; i > 0; --i) c[i] -= c[i - 1];
    c[0] -= ts;
  } else {
    PAPI_read(set, values);
    for (int i = 0; i < iterations; ++i) {
      const long long t0 = PAPI_get_real_cyc();
      if (test == READ) PAPI_read(set, values);
      if (test == ACCUM) PAPI_accum(set, values);
      if (test == RESET) PAPI_reset(set);
      c[i] = PAPI_get_real_cyc() - t0;
    }
  }
  if (PAPI_stop(set, values) != PAPI_OK) fprintf(stderr, "PAPI_stop");
}

static void usage(void) {
  printf(
      "Usage: papi_multiplex_cost [options]\n"
      "\t-m num, number of events to count\n"
      "\t-x num, number of events to count\n"
      "\t-s, Do not run software multiplexing test.\n"
      "\t-k, Do not attempt kernel multiplexed test.\n"
      "\t-t THRESHOLD set the threshold for the number of iterations. Default: 100\n");
}

/* Makes an empty set multiplexed: by PAPI_set_multiplex (kernel) or PAPI_MULTIPLEX_FORCE_SW
 * (PAPI_cleanup_eventset ends multiplexing, so each test does it again, as PAPI's does). */
static void multiplex(int set, int software) {
  int r;
  if (software) {
    PAPI_option_t option;
    memset(&option, 0, sizeof option);
    option.multiplex.flags = PAPI_MULTIPLEX_FORCE_SW;
    option.multiplex.eventset = set;
    option.multiplex.ns = PAPI_get_opt(PAPI_DEF_MPX_NS, NULL);
    r = PAPI_set_opt(PAPI_MULTIPLEX, &option);
  } else {
    r = PAPI_set_multiplex(set);
  }
  if (r != PAPI_OK) {
    fprintf(stderr, "Error! %s\n", software ? "PAPI_set_opt" : "PAPI_set_multiplex");
    exit(1);
  }
}

/* An empty, multiplexed set of component 0 (the PUnit). */
static int make_set(int software) {
  int set = PAPI_NULL;
  if (PAPI_create_eventset(&set) != PAPI_OK || PAPI_assign_eventset_component(set, 0) != PAPI_OK) {
    fprintf(stderr, "Error! PAPI_create_eventset\n");
    exit(1);
  }
  multiplex(set, software);
  return set;
}

int main(int argc, char** argv) {
  int min = 1, max = 10, software = 1, kernel = 1;
  for (int c; (c = getopt(argc, argv, "hm:x:skt:")) != -1;) {
    switch (c) {
      case 'h': usage(); return 0;
      case 'm': min = atoi(optarg); break;
      case 'x': max = atoi(optarg); break;
      case 's': software = 0; break;
      case 'k': kernel = 0; break;
      case 't': iterations = atoi(optarg); break;
      default: break;
    }
  }
  if (iterations < 1) iterations = 1;
  printf("This utility benchmarks the overhead of PAPI multiplexing\n");
  printf("Warning!  This can take a long time (many minutes) to run\n");
  printf("The output goes to multiple .dat files in the current directory\n\n");
  if (min > max) {
    fprintf(stderr, "Error! Min # of Events > Max # of Events");
    return 1;
  }
  if (min < 1) min = 1;
  PAPI_set_debug(PAPI_QUIET);
  papi_tools_init();
  if (PAPI_multiplex_init() != PAPI_OK) {
    fprintf(stderr, "Error! PAPI_multiplex_init\n");
    return 1;
  }
  const PAPI_component_info_t* info = PAPI_get_component_info(0);
  if (info == NULL || info->disabled) {
    fprintf(stderr, "Error! %s: %s\n", info ? info->name : "component 0",
            info ? info->disabled_reason : "none");
    return 1;
  }
  kernel &= info->kernel_multiplex;
  if (!kernel && !software) {
    fprintf(stderr, "No tests to run.");
    return 1;
  }
  fprintf(stderr, "Running test[s]\n");
  if (kernel) fprintf(stderr, "\tKernel multiplexing read\n");
  if (software) fprintf(stderr, "\tSoftware Multiplexing read\n");

  /* The events: the first natives of component 0 a multiplexed set takes. */
  int* events = malloc(sizeof *events * (size_t)max);
  long long* values = malloc(sizeof *values * (size_t)max);
  long long* c = calloc(2 * (size_t)iterations, sizeof *c);
  const int kset = make_set(0), sset = make_set(1);
  int code = PAPI_NATIVE_MASK;
  int found = 0;
  if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, 0) == PAPI_OK) {
    do {
      if (PAPI_add_event(kernel ? kset : sset, code) == PAPI_OK) events[found++] = code;
    } while (found < max && PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, 0) == PAPI_OK);
  }
  if (found < max) fprintf(stderr, "I can't find %d events to count at once.", max);
  if (found < max - 1) max = found + 1;
  PAPI_cleanup_eventset(kset);
  PAPI_cleanup_eventset(sset);

  static const struct {
    enum test test;
    const char* file;
    const char* title;
  } tests[] = {
      /* (PAPI 7 titles its start/stop file "Multiplexed PAPI_read()" too.) */
      {START_STOP, "papi_startstop.dat", "Multiplexed PAPI_read()"},
      {READ, "papi_read.dat", "Multiplexed PAPI_read()"},
      {READ_TS, "papi_read_ts.dat", "Multiplexed PAPI_read_ts()"},
      {ACCUM, "papi_accum.dat", "Multiplexed PAPI_accum()"},
      {RESET, "papi_reset.dat", "Multiplexed PAPI_reset()"},
  };
  for (size_t t = 0; t < sizeof tests / sizeof tests[0]; ++t) {
    struct dat d;
    dat_open(&d, tests[t].file, tests[t].title);
    multiplex(kset, 0);
    multiplex(sset, 1);
    /* The sets start with min - 1 events; each size adds one. */
    for (int i = 0; i < min - 1; ++i) {
      if (kernel) PAPI_add_event(kset, events[i]);
      if (software) PAPI_add_event(sset, events[i]);
    }
    for (int n = min; n < max; ++n) {
      if (kernel) {
        if (PAPI_add_event(kset, events[n - 1]) != PAPI_OK) {
          fprintf(stderr, "PAPI_add_event");
          return 1;
        }
        time_one(tests[t].test, kset, values, c);
      } else {
        memset(c, 0, sizeof *c * (size_t)iterations);
      }
      if (software) {
        if (PAPI_add_event(sset, events[n - 1]) != PAPI_OK) {
          fprintf(stderr, "PAPI_add_event");
          return 1;
        }
        time_one(tests[t].test, sset, values, c + iterations);
      } else {
        memset(c + iterations, 0, sizeof *c * (size_t)iterations);
      }
      dat_row(&d, n, c);
    }
    PAPI_cleanup_eventset(kset);
    PAPI_cleanup_eventset(sset);
    dat_close(&d);
  }
  free(events);
  free(values);
  free(c);
  return 0;
}
