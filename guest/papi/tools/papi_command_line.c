/* papi_command_line: counts the events named on the command line around a short workload and
 * prints them (PAPI 7's layout). Options: -u (unsigned), -x (hex). */
#include "papi_tools.h"

/* PAPI's own workload here: a fixed loop of integer and floating-point work. */
static double workload(void) {
  volatile double a = 0.5;
  double sum = 0;
  for (int i = 0; i < 1000000; ++i) sum += a * i;
  return sum;
}

int main(int argc, char** argv) {
  int as_unsigned = 0, as_hex = 0;
  papi_tools_init();
  papi_tools_header("");
  printf(
      "\nThis utility lets you add events from the command line interface to see if they "
      "work.\n\n");
  int set = PAPI_NULL;
  PAPI_create_eventset(&set);
  int codes[64], n = 0;
  for (int i = 1; i < argc && n < 64; ++i) {
    if (strcmp(argv[i], "-u") == 0) {
      as_unsigned = 1;
      continue;
    }
    if (strcmp(argv[i], "-x") == 0) {
      as_hex = 1;
      continue;
    }
    int code;
    int r = PAPI_event_name_to_code(argv[i], &code);
    if (r == PAPI_OK) r = PAPI_add_event(set, code);
    if (r != PAPI_OK) {
      printf("Failed adding: %s\nbecause: %s\n", argv[i], PAPI_strerror(r));
      continue;
    }
    printf("Successfully added: %s\n", argv[i]);
    codes[n++] = code;
  }
  if (n == 0) {
    printf("No events specified!\nTry running something like: %s PAPI_TOT_CYC\n\n", argv[0]);
    return 1;
  }
  long long values[64];
  PAPI_start(set);
  const double sum = workload();
  PAPI_stop(set, values);
  printf("\n");
  for (int i = 0; i < n; ++i) {
    char name[PAPI_MAX_STR_LEN];
    PAPI_event_code_to_name(codes[i], name);
    if (as_hex) {
      printf("%s : \t%llx\n", name, (unsigned long long)values[i]);
    } else if (as_unsigned) {
      printf("%s : \t%llu\n", name, (unsigned long long)values[i]);
    } else {
      printf("%s : \t%lld\n", name, values[i]);
    }
  }
  printf("\n----------------------------------\n");
  printf(
      "Verification: Checks for valid event name.\n This utility lets you add events from "
      "the command line interface to see if they work.\n");
  (void)sum;
  printf("command_line.c                          PASSED\n");
  return 0;
}
