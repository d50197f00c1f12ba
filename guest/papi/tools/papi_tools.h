/* Shared by the PAPI utilities (papi_avail, papi_native_avail, ...): the hardware information
 * header they print first, in PAPI 7's layout. */
#ifndef PAPI_TOOLS_H
#define PAPI_TOOLS_H

#include <papi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#define PAPI_TOOLS_RULE \
  "--------------------------------------------------------------------------------\n"

/* PAPI_library_init, or the error printed and exit status 1. */
static inline void papi_tools_init(void) {
  const int r = PAPI_library_init(PAPI_VER_CURRENT);
  if (r != PAPI_VER_CURRENT) {
    fprintf(stderr, "PAPI_library_init failed: %s\n", PAPI_strerror(r) ? PAPI_strerror(r) : "?");
    exit(1);
  }
}

static inline void papi_tools_header(const char* title) {
  const PAPI_hw_info_t* hw = PAPI_get_hardware_info();
  struct utsname u;
  uname(&u);
  const int v = PAPI_VERSION;
  printf("%s\n", title);
  printf(PAPI_TOOLS_RULE);
  printf("PAPI version             : %d.%d.%d.%d\n", PAPI_VERSION_MAJOR(v), PAPI_VERSION_MINOR(v),
         PAPI_VERSION_REVISION(v), PAPI_VERSION_INCREMENT(v));
  printf("Operating system         : %s %s\n", u.sysname, u.release);
  printf("Vendor string and code   : %s (%d, 0x%x)\n", hw->vendor_string, hw->vendor, hw->vendor);
  printf("Model string and code    : %s (%d, 0x%x)\n", hw->model_string, hw->model, hw->model);
  printf("CPU revision             : %f\n", hw->revision);
  printf("CPU Max MHz              : %d\n", hw->cpu_max_mhz);
  printf("CPU Min MHz              : %d\n", hw->cpu_min_mhz);
  printf("Total cores              : %d\n", hw->totalcpus);
  printf("SMT threads per core     : %d\n", hw->threads);
  printf("Cores per socket         : %d\n", hw->cores);
  printf("Sockets                  : %d\n", hw->sockets);
  printf("Cores per NUMA region    : %d\n", hw->ncpu / (hw->nnodes > 0 ? hw->nnodes : 1));
  printf("NUMA regions             : %d\n", hw->nnodes);
  printf("Running in a VM          : %s\n", hw->virtualized ? "yes" : "no");
  if (hw->virtualized) printf("VM Vendor                : %s\n", hw->virtual_vendor_string);
  printf("Number Hardware Counters : %d\n", PAPI_get_opt(PAPI_MAX_HWCTRS, NULL));
  printf("Max Multiplex Counters   : %d\n", PAPI_get_opt(PAPI_MAX_MPX_CTRS, NULL));
  printf("Fast counter read (rdpmc): yes\n");
  printf(PAPI_TOOLS_RULE);
  printf("\n");
}

#endif
