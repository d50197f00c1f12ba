/* papi_hardware_avail: the node's devices through the sysdetect component (PAPI_enum_dev_type),
 * in PAPI 7's layout: a summary of each device type, then the CPU's details (GPU types have no
 * devices on a Blue Gene node). Option: -h. */
#include "papi_tools.h"

static void help(const char* program) {
  printf("This is the PAPI hardware avail program.\n");
  printf("It provides availability of system's equipped hardware devices.\n");
  printf("Usage: %s [options]\n", program);
  printf("Options:\n\n");
  printf("  --help, -h    print this help message\n");
}

static unsigned attr(void* handle, int id, PAPI_dev_attr_e which) {
  unsigned value = 0;
  PAPI_get_dev_attr(handle, id, which, &value);
  return value;
}

static void cache_line(const char* name, void* handle, PAPI_dev_attr_e size, PAPI_dev_attr_e line,
                       PAPI_dev_attr_e lines, PAPI_dev_attr_e assoc) {
  printf("%-38s: Size/LineSize/Lines/Assoc %uKB/%uB/%u/%u\n", name, attr(handle, 0, size) >> 10,
         attr(handle, 0, line), attr(handle, 0, lines), attr(handle, 0, assoc));
}

static void cpu(void* handle, int vendor_id, const char* vendor, int count) {
  for (int i = 0; i < count; ++i) {
    const char* name = "";
    PAPI_get_dev_attr(handle, i, PAPI_DEV_ATTR__CPU_CHAR_NAME, &name);
    const unsigned family = attr(handle, i, PAPI_DEV_ATTR__CPU_UINT_FAMILY);
    const unsigned model = attr(handle, i, PAPI_DEV_ATTR__CPU_UINT_MODEL);
    const unsigned stepping = attr(handle, i, PAPI_DEV_ATTR__CPU_UINT_STEPPING);
    const unsigned sockets = attr(handle, i, PAPI_DEV_ATTR__CPU_UINT_SOCKET_COUNT);
    const unsigned numas = attr(handle, i, PAPI_DEV_ATTR__CPU_UINT_NUMA_COUNT);
    const unsigned cores = attr(handle, i, PAPI_DEV_ATTR__CPU_UINT_CORE_COUNT);
    const unsigned threads = attr(handle, i, PAPI_DEV_ATTR__CPU_UINT_THREAD_COUNT);
    printf("Vendor                                : %s (%u,0x%x)\n", vendor, vendor_id, vendor_id);
    printf("Id                                    : %u\n", i);
    printf("Name                                  : %s\n", name);
    printf(
        "CPUID                                 : Family/Model/Stepping %u/%u/%u "
        "0x%02x/0x%02x/0x%02x\n",
        family, model, stepping, family, model, stepping);
    printf("Sockets                               : %u\n", sockets);
    printf("Numa regions                          : %u\n", numas);
    printf("Cores per socket                      : %u\n", cores);
    printf("Cores per NUMA region                 : %u\n", threads / numas);
    printf("SMT threads per core                  : %u\n", threads / sockets / cores);
    if (attr(handle, 0, PAPI_DEV_ATTR__CPU_UINT_L1I_CACHE_SIZE) > 0) {
      cache_line("L1i Cache", handle, PAPI_DEV_ATTR__CPU_UINT_L1I_CACHE_SIZE,
                 PAPI_DEV_ATTR__CPU_UINT_L1I_CACHE_LINE_SIZE,
                 PAPI_DEV_ATTR__CPU_UINT_L1I_CACHE_LINE_COUNT,
                 PAPI_DEV_ATTR__CPU_UINT_L1I_CACHE_ASSOC);
      cache_line("L1d Cache", handle, PAPI_DEV_ATTR__CPU_UINT_L1D_CACHE_SIZE,
                 PAPI_DEV_ATTR__CPU_UINT_L1D_CACHE_LINE_SIZE,
                 PAPI_DEV_ATTR__CPU_UINT_L1D_CACHE_LINE_COUNT,
                 PAPI_DEV_ATTR__CPU_UINT_L1D_CACHE_ASSOC);
    }
    if (attr(handle, 0, PAPI_DEV_ATTR__CPU_UINT_L2U_CACHE_SIZE) > 0) {
      cache_line("L2 Cache", handle, PAPI_DEV_ATTR__CPU_UINT_L2U_CACHE_SIZE,
                 PAPI_DEV_ATTR__CPU_UINT_L2U_CACHE_LINE_SIZE,
                 PAPI_DEV_ATTR__CPU_UINT_L2U_CACHE_LINE_COUNT,
                 PAPI_DEV_ATTR__CPU_UINT_L2U_CACHE_ASSOC);
    }
    if (attr(handle, 0, PAPI_DEV_ATTR__CPU_UINT_L3U_CACHE_SIZE) > 0) {
      cache_line("L3 Cache", handle, PAPI_DEV_ATTR__CPU_UINT_L3U_CACHE_SIZE,
                 PAPI_DEV_ATTR__CPU_UINT_L3U_CACHE_LINE_SIZE,
                 PAPI_DEV_ATTR__CPU_UINT_L3U_CACHE_LINE_COUNT,
                 PAPI_DEV_ATTR__CPU_UINT_L3U_CACHE_ASSOC);
    }
    for (unsigned region = 0; region < numas; ++region) {
      printf("Numa Node %u Memory                    : %uMB\n", region,
             attr(handle, (int)region, PAPI_DEV_ATTR__CPU_UINT_NUMA_MEM_SIZE));
      printf("Numa Node %u Threads                   : ", region);
      for (unsigned t = 0; t < threads; ++t) {
        int affinity = -1;
        PAPI_get_dev_attr(handle, (int)t, PAPI_DEV_ATTR__CPU_UINT_THR_NUMA_AFFINITY, &affinity);
        if (affinity == (int)region) printf("%u ", t);
      }
      printf("\n");
    }
    printf("\n");
  }
}

int main(int argc, char** argv) {
  papi_tools_init();
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      help(argv[0]);
      return 1;
    }
    printf("%s is not supported\n", argv[i]);
  }
  if (PAPI_set_debug(PAPI_VERB_ECONT) != PAPI_OK) {
    fprintf(stderr, "Error!  PAPI_set_debug\n");
    return 1;
  }
  const int sysdetect = PAPI_get_component_index("sysdetect");
  if (sysdetect < 0 || PAPI_get_component_info(sysdetect)->disabled) {
    fprintf(stderr, "Error! Sysdetect component not enabled\n");
    return 0;
  }
  void* handle;
  printf("\nDevice Summary -----------------------------------------------------------------\n");
  printf("Vendor           DevCount \n");
  while (PAPI_enum_dev_type(PAPI_DEV_TYPE_ENUM__ALL, &handle) == PAPI_OK) {
    const char *vendor = "", *status = "";
    int count = 0;
    PAPI_get_dev_type_attr(handle, PAPI_DEV_TYPE_ATTR__CHAR_NAME, &vendor);
    PAPI_get_dev_type_attr(handle, PAPI_DEV_TYPE_ATTR__INT_COUNT, &count);
    PAPI_get_dev_type_attr(handle, PAPI_DEV_TYPE_ATTR__CHAR_STATUS, &status);
    printf("%-18s (%d)\n \\-> Status: %s\n\n", vendor, count, status);
  }
  printf("\nDevice Information -------------------------------------------------------------\n");
  while (PAPI_enum_dev_type(PAPI_DEV_TYPE_ENUM__ALL, &handle) == PAPI_OK) {
    int id = -1, vendor_id = 0, count = 0;
    const char* vendor = "";
    PAPI_get_dev_type_attr(handle, PAPI_DEV_TYPE_ATTR__INT_PAPI_ID, &id);
    PAPI_get_dev_type_attr(handle, PAPI_DEV_TYPE_ATTR__INT_VENDOR_ID, &vendor_id);
    PAPI_get_dev_type_attr(handle, PAPI_DEV_TYPE_ATTR__CHAR_NAME, &vendor);
    PAPI_get_dev_type_attr(handle, PAPI_DEV_TYPE_ATTR__INT_COUNT, &count);
    if (id == PAPI_DEV_TYPE_ID__CPU) cpu(handle, vendor_id, vendor, count);
  }
  printf("--------------------------------------------------------------------------------\n");
  PAPI_shutdown();
  return 0;
}
