/* papi_version: the PAPI version the library implements, in PAPI 7's layout. */
#include <papi.h>
#include <stdio.h>

int main(void) {
  printf("PAPI Version: %d.%d.%d.%d\n", PAPI_VERSION_MAJOR(PAPI_VERSION),
         PAPI_VERSION_MINOR(PAPI_VERSION), PAPI_VERSION_REVISION(PAPI_VERSION),
         PAPI_VERSION_INCREMENT(PAPI_VERSION));
  return 0;
}
