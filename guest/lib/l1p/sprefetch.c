/* libl1p: BG/Q's SPI calls for the L1P stream prefetcher (guest/include/l1p/sprefetch.h) over
 * the register L1P_CFG_PF_USR of /dev/hpm/l1p (guest/include/hpm/l1p.h). The window is mapped
 * once per process, on the first call; each call is then a load and, for a change, a store of
 * the register, as BG/Q's inline calls were. */
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hpm/l1p.h"
#include "l1p/sprefetch.h"

static volatile uint64_t* window;

/* The register, or null where there is no device. */
static volatile uint64_t* reg(void) {
  volatile uint64_t* w = __atomic_load_n(&window, __ATOMIC_ACQUIRE);
  if (w != NULL) return w + HPM_L1P_CFG_PF_USR / sizeof(uint64_t);
  const int fd = open("/dev/hpm/l1p", O_RDWR);
  if (fd < 0) return NULL;
  void* m = mmap(NULL, HPM_L1P_WINDOW_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (m == MAP_FAILED) return NULL;
  volatile uint64_t* expected = NULL;
  if (!__atomic_compare_exchange_n(&window, &expected, (volatile uint64_t*)m, 0, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    munmap(m, HPM_L1P_WINDOW_BYTES); /* another thread mapped it first */
  }
  return __atomic_load_n(&window, __ATOMIC_ACQUIRE) + HPM_L1P_CFG_PF_USR / sizeof(uint64_t);
}

static const uint64_t kDepthField = (uint64_t)7 << HPM_L1P_PF_DEPTH_SHIFT;
static const uint64_t kTotalField = (uint64_t)15 << HPM_L1P_PF_TOTAL_SHIFT;

int L1P_GetStreamPolicy(L1P_StreamPolicy_t* policy) {
  volatile uint64_t* r = reg();
  if (r == NULL) return L1P_NOTAVAILABLE;
  const uint64_t v = *r;
  if ((v & HPM_L1P_PF_PREFETCH_ENABLE) == 0)
    *policy = L1P_stream_disable;
  else if (v & HPM_L1P_PF_OPTIMISTIC)
    *policy = L1P_stream_optimistic;
  else if (v & HPM_L1P_PF_EST_ON_DCBT)
    *policy = L1P_confirmed_or_dcbt;
  else
    *policy = L1P_stream_confirmed;
  return 0;
}

int L1P_SetStreamPolicy(L1P_StreamPolicy_t policy) {
  volatile uint64_t* r = reg();
  if (r == NULL) return L1P_NOTAVAILABLE;
  const uint64_t on = HPM_L1P_PF_PREFETCH_ENABLE | HPM_L1P_PF_ESTABLISH_ENABLE;
  /* (Disabling keeps the kind of establishment, as BG/Q's call did.) */
  const uint64_t v = *r & ~(uint64_t)(HPM_L1P_PF_OPTIMISTIC | HPM_L1P_PF_EST_ON_DCBT);
  switch (policy) {
    case L1P_stream_disable: *r = *r & ~on; break;
    case L1P_stream_optimistic: *r = v | on | HPM_L1P_PF_OPTIMISTIC; break;
    case L1P_stream_confirmed: *r = v | on; break;
    case L1P_confirmed_or_dcbt: *r = v | on | HPM_L1P_PF_EST_ON_DCBT; break;
    default: return L1P_PARMRANGE;
  }
  return 0;
}

int L1P_GetStreamDepth(uint32_t* depth) {
  volatile uint64_t* r = reg();
  if (r == NULL) return L1P_NOTAVAILABLE;
  *depth = (uint32_t)((*r & kDepthField) >> HPM_L1P_PF_DEPTH_SHIFT) + 1;
  return 0;
}

int L1P_SetStreamDepth(uint32_t depth) {
  volatile uint64_t* r = reg();
  if (r == NULL) return L1P_NOTAVAILABLE;
  if (depth < 1 || depth > 8) return L1P_PARMRANGE;
  *r = (*r & ~kDepthField) | ((uint64_t)(depth - 1) << HPM_L1P_PF_DEPTH_SHIFT);
  return 0;
}

int L1P_GetStreamTotalDepth(uint32_t* depth) {
  volatile uint64_t* r = reg();
  if (r == NULL) return L1P_NOTAVAILABLE;
  *depth = (uint32_t)((*r & kTotalField) >> HPM_L1P_PF_TOTAL_SHIFT) + 1;
  return 0;
}

int L1P_SetStreamTotalDepth(uint32_t depth) {
  volatile uint64_t* r = reg();
  if (r == NULL) return L1P_NOTAVAILABLE;
  if (depth < 1 || depth > 16) return L1P_PARMRANGE;
  *r = (*r & ~kTotalField) | ((uint64_t)(depth - 1) << HPM_L1P_PF_TOTAL_SHIFT);
  return 0;
}

int L1P_GetStreamAdaptiveMode(int* adaptiveState) {
  volatile uint64_t* r = reg();
  if (r == NULL) return L1P_NOTAVAILABLE;
  *adaptiveState = (*r & HPM_L1P_PF_ADAPTIVE_ENABLE) != 0;
  return 0;
}

int L1P_SetStreamAdaptiveMode(int enable) {
  volatile uint64_t* r = reg();
  if (r == NULL) return L1P_NOTAVAILABLE;
  if (enable)
    *r = *r | HPM_L1P_PF_ADAPTIVE_ENABLE;
  else
    *r = *r & ~(uint64_t)HPM_L1P_PF_ADAPTIVE_ENABLE;
  return 0;
}
