/* libpapi's sysdetect component: PAPI 7's device queries (PAPI_enum_dev_type,
 * PAPI_get_dev_type_attr, PAPI_get_dev_attr) on the simulated node. Its one device type with
 * devices is the CPU: the node's cores and caches as PAPI_get_hardware_info gives them (from the
 * kernel's /proc/cpuinfo and /sys cache description, which hpmsim's kernel writes from the
 * machine's configuration), one NUMA region holding every hardware thread and the node's memory
 * (sysinfo). The GPU types are listed with no devices and the status PAPI's sysdetect gives
 * when it is built without CUDA or ROCm. */
#include <string.h>
#include <sys/sysinfo.h>

#include "papi_impl.h"

struct dev_type {
  int id;
  int vendor_id;
  const char* vendor;
  int count;
  const char* status;
};

/* The CPU's vendor comes from the hardware information at the first query. */
static struct dev_type types[PAPI_DEV_TYPE_ID__MAX_NUM] = {
    {PAPI_DEV_TYPE_ID__CPU, 0, "", 1, "Device Initialized"},
    {PAPI_DEV_TYPE_ID__CUDA, 0, "NVIDIA", 0, "CUDA not configured, no CUDA device available"},
    {PAPI_DEV_TYPE_ID__ROCM, 0, "AMD/ATI", 0, "ROCm not configured, no ROCm device available"}};

/* PAPI_enum_dev_type's position: PAPI's sysdetect keeps one per process, and an enumeration
 * that reaches the end starts again (papi_hardware_avail enumerates twice). */
static int next_type;

int PAPI_enum_dev_type(int enum_modifier, void** handle) {
  if (handle == NULL) return papix_error(PAPI_EINVAL, __func__);
  if (papix_components[PAPIX_SYSDETECT].info.disabled) return papix_error(PAPI_ECMP, __func__);
  const PAPI_hw_info_t* hw = PAPI_get_hardware_info();
  if (hw != NULL) {
    types[PAPI_DEV_TYPE_ID__CPU].vendor = hw->vendor_string;
    types[PAPI_DEV_TYPE_ID__CPU].vendor_id = hw->vendor;
  }
  if (enum_modifier == PAPI_DEV_TYPE_ENUM__FIRST) {
    next_type = 1;
    *handle = &types[0];
    return PAPI_OK;
  }
  while (next_type < PAPI_DEV_TYPE_ID__MAX_NUM) {
    struct dev_type* t = &types[next_type++];
    if ((1 << t->id) & enum_modifier) {
      *handle = t;
      return PAPI_OK;
    }
  }
  *handle = NULL;
  next_type = 0;
  return PAPI_EINVAL; /* the end, as PAPI's sysdetect says it */
}

int PAPI_get_dev_type_attr(void* handle, PAPI_dev_type_attr_e attr, void* value) {
  const struct dev_type* t = handle;
  if (t == NULL || value == NULL) return papix_error(PAPI_EINVAL, __func__);
  switch (attr) {
    case PAPI_DEV_TYPE_ATTR__INT_PAPI_ID: *(int*)value = t->id; return PAPI_OK;
    case PAPI_DEV_TYPE_ATTR__INT_VENDOR_ID: *(int*)value = t->vendor_id; return PAPI_OK;
    case PAPI_DEV_TYPE_ATTR__CHAR_NAME: *(const char**)value = t->vendor; return PAPI_OK;
    case PAPI_DEV_TYPE_ATTR__INT_COUNT: *(int*)value = t->count; return PAPI_OK;
    case PAPI_DEV_TYPE_ATTR__CHAR_STATUS: *(const char**)value = t->status; return PAPI_OK;
    default: return papix_error(PAPI_ENOSUPP, __func__);
  }
}

/* The cache of `level` (0: L1) of `type` (PAPI_MH_TYPE_INST, _DATA or _UNIFIED), or NULL. */
static const PAPI_mh_cache_info_t* cache(const PAPI_hw_info_t* hw, int level, int type) {
  const PAPI_mh_level_t* l = &hw->mem_hierarchy.level[level];
  for (int c = 0; c < PAPI_MH_MAX_LEVELS; ++c) {
    if (PAPI_MH_CACHE_TYPE(l->cache[c].type) == type) return &l->cache[c];
  }
  return NULL;
}

/* A cache attribute: attr - first picks the field (size, line size, lines, associativity) and
 * the cache (L1i, L1d, L2, L3), as PAPI's enumeration orders them; 0 where there is none. */
static unsigned cache_attr(const PAPI_hw_info_t* hw, int attr) {
  const int field = (attr - PAPI_DEV_ATTR__CPU_UINT_L1I_CACHE_SIZE) / 4;
  const int which = (attr - PAPI_DEV_ATTR__CPU_UINT_L1I_CACHE_SIZE) % 4;
  static const int level[] = {0, 0, 1, 2};
  static const int type[] = {PAPI_MH_TYPE_INST, PAPI_MH_TYPE_DATA, PAPI_MH_TYPE_UNIFIED,
                             PAPI_MH_TYPE_UNIFIED};
  const PAPI_mh_cache_info_t* c = cache(hw, level[which], type[which]);
  if (c == NULL) return 0;
  switch (field) {
    case 0: return (unsigned)c->size;
    case 1: return (unsigned)c->line_size;
    case 2: return (unsigned)c->num_lines;
    default: return (unsigned)c->associativity;
  }
}

int PAPI_get_dev_attr(void* handle, int id, PAPI_dev_attr_e attr, void* value) {
  const struct dev_type* t = handle;
  if (t == NULL || value == NULL || id < 0) return papix_error(PAPI_EINVAL, __func__);
  if (t->id != PAPI_DEV_TYPE_ID__CPU) return papix_error(PAPI_ENOSUPP, __func__); /* no GPUs */
  const PAPI_hw_info_t* hw = PAPI_get_hardware_info();
  if (hw == NULL) return papix_error(PAPI_ESYS, __func__);
  const unsigned threads = (unsigned)hw->totalcpus;
  unsigned* out = value;
  switch (attr) {
    case PAPI_DEV_ATTR__CPU_CHAR_NAME: *(const char**)value = hw->model_string; return PAPI_OK;
    case PAPI_DEV_ATTR__CPU_UINT_FAMILY: *out = (unsigned)hw->cpuid_family; return PAPI_OK;
    case PAPI_DEV_ATTR__CPU_UINT_MODEL: *out = (unsigned)hw->cpuid_model; return PAPI_OK;
    case PAPI_DEV_ATTR__CPU_UINT_STEPPING: *out = (unsigned)hw->cpuid_stepping; return PAPI_OK;
    case PAPI_DEV_ATTR__CPU_UINT_SOCKET_COUNT: *out = (unsigned)hw->sockets; return PAPI_OK;
    case PAPI_DEV_ATTR__CPU_UINT_NUMA_COUNT: *out = 1; return PAPI_OK;
    case PAPI_DEV_ATTR__CPU_UINT_CORE_COUNT: *out = (unsigned)hw->cores; return PAPI_OK;
    case PAPI_DEV_ATTR__CPU_UINT_THREAD_COUNT: *out = threads; return PAPI_OK;
    case PAPI_DEV_ATTR__CPU_UINT_THR_PER_NUMA: *out = threads; return PAPI_OK;
    case PAPI_DEV_ATTR__CPU_UINT_THR_NUMA_AFFINITY:
      if ((unsigned)id >= threads) return papix_error(PAPI_EINVAL, __func__);
      *(int*)value = 0; /* every hardware thread in region 0 */
      return PAPI_OK;
    case PAPI_DEV_ATTR__CPU_UINT_NUMA_MEM_SIZE: {
      if (id != 0) return papix_error(PAPI_EINVAL, __func__);
      struct sysinfo si;
      if (sysinfo(&si) != 0) return papix_error(PAPI_ESYS, __func__);
      *out = (unsigned)((unsigned long long)si.totalram * si.mem_unit >> 20); /* MB */
      return PAPI_OK;
    }
    default:
      if (attr >= PAPI_DEV_ATTR__CPU_UINT_L1I_CACHE_SIZE &&
          attr <= PAPI_DEV_ATTR__CPU_UINT_L3U_CACHE_ASSOC) {
        *out = cache_attr(hw, attr);
        return PAPI_OK;
      }
      return papix_error(PAPI_ENOSUPP, __func__);
  }
}
