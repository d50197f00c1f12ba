/* papi_command_line: adds the events named on the command line to one event set, counts them
 * around known work and prints them, in PAPI 7's layout (its utils/papi_command_line). Options:
 * -u (unsigned), -x (hex), -h (help).
 *
 * The work is PAPI's testlib's, smaller: flops(kFlops) (kFlops iterations of c += a * b over
 * volatile operands: one fused multiply-add each, so PAPI_FP_OPS reads 2 * kFlops and
 * PAPI_FP_INS kFlops) and misses over a 512 KiB buffer (PAPI's L1_MISS_BUFFER_SIZE_INTS). PAPI
 * runs 20,000,000 iterations and flushes a 64 MiB buffer first; here 1,000,000 and no flush, so
 * that a simulated run takes a second. */
#include "papi_tools.h"

enum { kFlops = 1000000, kMissInts = 128 * 1024 };

static volatile double a = 0.5, b = 2.2;
static volatile double flops_sink;
static volatile int buffer[kMissInts];

static void flops(int n) {
  double c = 0.11;
  for (int i = 0; i < n; ++i) c += a * b;
  flops_sink = c;
}

/* Reads, modifies and writes every int of the buffer from both ends (write-allocate caches and
 * naive prefetchers both miss). */
static void misses(void) {
  const int tmp = 1;
  for (int i = 0; i < kMissInts; ++i) {
    buffer[i] += tmp;
    buffer[kMissInts - 1 - i] -= tmp;
  }
}

static void help(const char* program) {
  printf("Usage: %s [options] [EVENTNAMEs]\n", program);
  printf("Options:\n\n");
  printf("General command options:\n");
  printf("\t-u          Display output values as unsigned integers\n");
  printf("\t-x          Display output values as hexadecimal\n");
  printf("\t-h          Print this help message\n");
  printf("\tEVENTNAMEs  Specify one or more preset or native events\n");
  printf("\n");
  printf("This utility performs work while measuring the specified events.\n");
  printf("It can be useful for sanity checks on given events and sets of events.\n");
}

int main(int argc, char** argv) {
  int as_unsigned = 0, as_hex = 0;
  printf(
      "\nThis utility lets you add events from the command line interface to see if they "
      "work.\n\n");
  papi_tools_init();
  int set = PAPI_NULL;
  if (PAPI_create_eventset(&set) != PAPI_OK) {
    fprintf(stderr, "Error! PAPI_create_eventset\n");
    return 1;
  }
  int added[64], n = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "-h") == 0) {
      help(argv[0]);
      return 1;
    }
    if (strcmp(argv[i], "-u") == 0) {
      as_unsigned = 1;
      continue;
    }
    if (strcmp(argv[i], "-x") == 0) {
      as_hex = 1;
      continue;
    }
    const int r = n < 64 ? PAPI_add_named_event(set, argv[i]) : PAPI_ECNFLCT;
    if (r != PAPI_OK) {
      printf("Failed adding: %s\nbecause: %s\n", argv[i], PAPI_strerror(r));
      continue;
    }
    printf("Successfully added: %s\n", argv[i]);
    added[n++] = i;
  }
  if (n == 0) {
    printf("No events specified!\nTry running something like: %s PAPI_TOT_CYC\n\n", argv[0]);
    return 0;
  }
  printf("\n");
  flops(1);
  long long values[64];
  if (PAPI_start(set) != PAPI_OK) {
    fprintf(stderr, "Error! PAPI_start\n");
    return 1;
  }
  flops(kFlops);
  misses();
  if (PAPI_stop(set, values) != PAPI_OK) {
    fprintf(stderr, "Error! PAPI_stop\n");
    return 1;
  }
  for (int j = 0; j < n; ++j) {
    const char* name = argv[added[j]];
    if (!as_unsigned && !as_hex) {
      PAPI_event_info_t info;
      int code = 0;
      int r = PAPI_event_name_to_code(name, &code);
      if (r == PAPI_OK) r = PAPI_get_event_info(code, &info);
      const int type = r == PAPI_OK ? info.data_type : PAPI_DATATYPE_INT64;
      if (type == PAPI_DATATYPE_UINT64) {
        printf("%s : \t%llu(u)", name, (unsigned long long)values[j]);
      } else if (type == PAPI_DATATYPE_FP64) {
        double d;
        memcpy(&d, &values[j], sizeof d);
        printf("%s : \t%0.3f", name, d);
      } else if (type == PAPI_DATATYPE_BIT64) {
        printf("%s : \t%#llX", name, values[j]);
      } else {
        printf("%s : \t%lld", name, values[j]);
      }
      if (r == PAPI_OK) printf(" %s", info.units);
      printf("\n");
    }
    if (as_unsigned) printf("%s : \t%llu(u)\n", name, (unsigned long long)values[j]);
    if (as_hex) printf("%s : \t%#llX\n", name, values[j]);
  }
  printf("\n----------------------------------\n");
  return 0;
}
