/* libpapi: what PAPI tells of the node and the program (hardware, memory hierarchy, executable,
 * memory use), timers on simulated time, and threads. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "papi_impl.h"

static PAPI_hw_info_t hw_info;
static PAPI_exe_info_t exe_info;
static PAPI_shlib_info_t shlib_info;
static unsigned long (*thread_id_fn)(void);
static pthread_mutex_t user_locks[PAPI_NUM_LOCK] = {PTHREAD_MUTEX_INITIALIZER,
                                                    PTHREAD_MUTEX_INITIALIZER};
static __thread void* thread_data[PAPI_NUM_TLS];

int papix_mhz(void) {
  return hw_info.cpu_max_mhz > 0 ? hw_info.cpu_max_mhz : 1600;
}

static void read_caches(void);

/* The simulated node from /proc/cpuinfo: processors, cores, threads per core, clock. */
static void read_hardware(void) {
  memset(&hw_info, 0, sizeof hw_info);
  FILE* f = fopen("/proc/cpuinfo", "r");
  int cpus = 0, max_core = -1, max_thread = -1, mhz = 0;
  char uarch[PAPI_MAX_STR_LEN] = "";
  if (f != NULL) {
    char line[256];
    while (fgets(line, sizeof line, f) != NULL) {
      int v;
      if (sscanf(line, "processor : %d", &v) == 1) ++cpus;
      if (sscanf(line, "core : %d", &v) == 1 && v > max_core) max_core = v;
      if (sscanf(line, "thread : %d", &v) == 1 && v > max_thread) max_thread = v;
      if (sscanf(line, "clock : %d", &v) == 1) mhz = v;
      if (strncmp(line, "uarch", 5) == 0) {
        const char* comma = strchr(line, ',');
        if (comma != NULL) snprintf(uarch, sizeof uarch, "%s", comma + 1);
        uarch[strcspn(uarch, "\n")] = '\0';
      }
    }
    fclose(f);
  }
  hw_info.ncpu = cpus > 0 ? cpus : 1;
  hw_info.threads = max_thread + 1 > 0 ? max_thread + 1 : 1;
  hw_info.cores = max_core + 1 > 0 ? max_core + 1 : 1;
  hw_info.sockets = 1;
  hw_info.nnodes = 1;
  hw_info.totalcpus = hw_info.ncpu;
  hw_info.vendor = PAPI_VENDOR_IBM;
  snprintf(hw_info.vendor_string, sizeof hw_info.vendor_string, "hpmsim");
  hw_info.model = 0;
  snprintf(hw_info.model_string, sizeof hw_info.model_string, "%s node, RV64GC cores (hpmsim)",
           uarch[0] != '\0' ? uarch : "simulated");
  hw_info.revision = 1.0f;
  hw_info.cpu_max_mhz = mhz;
  hw_info.cpu_min_mhz = mhz;
  hw_info.mhz = (float)mhz;
  hw_info.clock_mhz = mhz;
  hw_info.virtualized = 1; /* the node is simulated */
  read_caches();
  snprintf(hw_info.virtual_vendor_string, sizeof hw_info.virtual_vendor_string, "hpmsim");
}

/* The cache hierarchy, from Linux's /sys description (which hpmsim's kernel gives from the
 * machine's configuration). */
static int sys_value(int index, const char* field, char* out, size_t size) {
  char path[128];
  snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/%s", index, field);
  FILE* f = fopen(path, "r");
  if (f == NULL) return 0;
  const int ok = fgets(out, (int)size, f) != NULL;
  fclose(f);
  out[strcspn(out, "\n")] = '\0';
  return ok;
}

static void read_caches(void) {
  PAPI_mh_info_t* mh = &hw_info.mem_hierarchy;
  for (int index = 0; index < 16; ++index) {
    char level[16], type[32], size[32], line[16], ways[16];
    if (!sys_value(index, "level", level, sizeof level) ||
        !sys_value(index, "type", type, sizeof type) ||
        !sys_value(index, "size", size, sizeof size) ||
        !sys_value(index, "coherency_line_size", line, sizeof line) ||
        !sys_value(index, "ways_of_associativity", ways, sizeof ways)) {
      break;
    }
    const int l = atoi(level) - 1;
    if (l < 0 || l >= PAPI_MAX_MEM_HIERARCHY_LEVELS) continue;
    PAPI_mh_cache_info_t* c = mh->level[l].cache;
    int slot = 0;
    while (slot < PAPI_MH_MAX_LEVELS && c[slot].type != PAPI_MH_TYPE_EMPTY) ++slot;
    if (slot == PAPI_MH_MAX_LEVELS) continue;
    c[slot].type = (strcmp(type, "Data") == 0          ? PAPI_MH_TYPE_DATA
                    : strcmp(type, "Instruction") == 0 ? PAPI_MH_TYPE_INST
                                                       : PAPI_MH_TYPE_UNIFIED) |
                   PAPI_MH_TYPE_LRU;
    c[slot].size = atoi(size) * 1024; /* "16K" */
    c[slot].line_size = atoi(line);
    c[slot].associativity = atoi(ways);
    c[slot].num_lines = c[slot].line_size > 0 ? c[slot].size / c[slot].line_size : 0;
    if (l + 1 > mh->levels) mh->levels = l + 1;
  }
}

/* The program's path and text/data/bss ranges (from the linker's symbols: a static program). */
extern char __executable_start[], etext[], __data_start[] __attribute__((weak)), edata[],
    __bss_start[], end[];

static void read_executable(void) {
  memset(&exe_info, 0, sizeof exe_info);
  char path[PAPI_HUGE_STR_LEN];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  path[n > 0 ? n : 0] = '\0';
  snprintf(exe_info.fullname, sizeof exe_info.fullname, "%s", path);
  const char* base = strrchr(path, '/');
  snprintf(exe_info.address_info.name, sizeof exe_info.address_info.name, "%s",
           base != NULL ? base + 1 : path);
  exe_info.address_info.text_start = (vptr_t)__executable_start;
  exe_info.address_info.text_end = (vptr_t)etext;
  exe_info.address_info.data_start = (vptr_t)(__data_start != NULL ? __data_start : etext);
  exe_info.address_info.data_end = (vptr_t)edata;
  exe_info.address_info.bss_start = (vptr_t)__bss_start;
  exe_info.address_info.bss_end = (vptr_t)end;
  shlib_info.map = &exe_info.address_info;
  shlib_info.count = 1;
}

void papix_read_node(void) {
  read_hardware();
  read_executable();
}

/* ---- information ------------------------------------------------------------------------- */

const PAPI_hw_info_t* PAPI_get_hardware_info(void) {
  return papix_initialized ? &hw_info : NULL;
}

const PAPI_exe_info_t* PAPI_get_executable_info(void) {
  return papix_initialized ? &exe_info : NULL;
}

const PAPI_shlib_info_t* PAPI_get_shared_lib_info(void) {
  return papix_initialized ? &shlib_info : NULL;
}

int PAPI_get_dmem_info(PAPI_dmem_info_t* dest) {
  if (!papix_initialized) return papix_error(PAPI_ENOINIT, __func__);
  if (dest == NULL) return papix_error(PAPI_EINVAL, __func__);
  memset(dest, 0, sizeof *dest);
  FILE* f = fopen("/proc/self/status", "r");
  long long pagesize = sysconf(_SC_PAGESIZE);
  dest->pagesize = pagesize;
  if (f == NULL) return PAPI_OK;
  char line[256];
  while (fgets(line, sizeof line, f) != NULL) {
    long long kb;
    if (sscanf(line, "VmSize: %lld", &kb) == 1) dest->size = kb;
    if (sscanf(line, "VmRSS: %lld", &kb) == 1) dest->resident = kb;
    if (sscanf(line, "VmHWM: %lld", &kb) == 1) dest->high_water_mark = kb;
    if (sscanf(line, "VmPeak: %lld", &kb) == 1) dest->peak = kb;
    if (sscanf(line, "VmExe: %lld", &kb) == 1) dest->text = kb;
    if (sscanf(line, "VmLib: %lld", &kb) == 1) dest->library = kb;
    if (sscanf(line, "VmData: %lld", &kb) == 1) dest->heap = kb;
    if (sscanf(line, "VmStk: %lld", &kb) == 1) dest->stack = kb;
    if (sscanf(line, "VmLck: %lld", &kb) == 1) dest->locked = kb;
    if (sscanf(line, "VmPTE: %lld", &kb) == 1) dest->pte = kb;
  }
  fclose(f);
  return PAPI_OK;
}

/* ---- timers (simulated time) -------------------------------------------------------------- */

static long long nsec(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

long long PAPI_get_real_cyc(void) {
  long long c;
  __asm__ volatile("rdcycle %0" : "=r"(c));
  return c;
}

long long PAPI_get_real_nsec(void) {
  return nsec(CLOCK_MONOTONIC);
}

long long PAPI_get_real_usec(void) {
  return nsec(CLOCK_MONOTONIC) / 1000;
}

long long PAPI_get_virt_nsec(void) {
  return nsec(CLOCK_THREAD_CPUTIME_ID);
}

long long PAPI_get_virt_usec(void) {
  return nsec(CLOCK_THREAD_CPUTIME_ID) / 1000;
}

long long PAPI_get_virt_cyc(void) {
  return nsec(CLOCK_THREAD_CPUTIME_ID) * papix_mhz() / 1000;
}

/* ---- threads ----------------------------------------------------------------------------- */

int PAPI_thread_init(unsigned long (*id_fn)(void)) {
  if (!papix_initialized) return papix_error(PAPI_ENOINIT, __func__);
  thread_id_fn = id_fn;
  papix_initialized |= PAPI_THREAD_LEVEL_INITED;
  return PAPI_OK;
}

unsigned long PAPI_thread_id(void) {
  if (thread_id_fn == NULL) return (unsigned long)PAPI_EMISC;
  return thread_id_fn();
}

int PAPI_register_thread(void) {
  if (!papix_initialized) return papix_error(PAPI_ENOINIT, __func__);
  papix_bgpm_thread();
  return PAPI_OK;
}

int PAPI_unregister_thread(void) {
  if (!papix_initialized) return papix_error(PAPI_ENOINIT, __func__);
  return PAPI_OK;
}

int PAPI_list_threads(unsigned long* tids, int* number) {
  if (number == NULL) return papix_error(PAPI_EINVAL, __func__);
  if (tids != NULL && *number > 0) tids[0] = thread_id_fn != NULL ? thread_id_fn() : 0;
  *number = 1;
  return PAPI_OK;
}

int PAPI_get_thr_specific(int tag, void** ptr) {
  if (tag < 0 || tag >= PAPI_NUM_TLS || ptr == NULL) return papix_error(PAPI_EINVAL, __func__);
  *ptr = thread_data[tag];
  return PAPI_OK;
}

int PAPI_set_thr_specific(int tag, void* ptr) {
  if (tag < 0 || tag >= PAPI_NUM_TLS) return papix_error(PAPI_EINVAL, __func__);
  thread_data[tag] = ptr;
  return PAPI_OK;
}

int PAPI_lock(int lock) {
  if (lock < 0 || lock >= PAPI_NUM_LOCK) return papix_error(PAPI_EINVAL, __func__);
  pthread_mutex_lock(&user_locks[lock]);
  return PAPI_OK;
}

int PAPI_unlock(int lock) {
  if (lock < 0 || lock >= PAPI_NUM_LOCK) return papix_error(PAPI_EINVAL, __func__);
  pthread_mutex_unlock(&user_locks[lock]);
  return PAPI_OK;
}
