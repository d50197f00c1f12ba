/* papi_error_codes: every PAPI error code with its message (PAPI_strerror), in PAPI 7's layout. */
#include "papi_tools.h"

int main(void) {
  papi_tools_init();
  printf("\n----------------------------------\n");
  printf("For PAPI Version: %d.%d.%d.%d\n", PAPI_VERSION_MAJOR(PAPI_VERSION),
         PAPI_VERSION_MINOR(PAPI_VERSION), PAPI_VERSION_REVISION(PAPI_VERSION),
         PAPI_VERSION_INCREMENT(PAPI_VERSION));
  printf("----------------------------------\n");
  int n = 0;
  for (const char* message; (message = PAPI_strerror(-n)) != NULL; ++n) {
    printf("Error code %4d: %s\n", -n, message);
  }
  printf("There are %d error codes defined\n", n);
  printf("----------------------------------\n\n");
  return 0;
}
