/* libl1p: BG/Q's SPI calls for the L1P list prefetcher (guest/include/l1p/pprefetch.h) over the
 * register window /dev/hpm/l1p (guest/include/hpm/l1p.h). As BG/Q's SPI did, the library owns
 * the two lists: it allocates them, gives their addresses to the hardware, and swaps them when a
 * recording run stops, so the list just recorded is the one the next run replays. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hpm/l1p.h"
#include "l1p/pprefetch.h"

/* One thread's context (BG/Q kept one per hardware thread: _L1P_Context). */
typedef struct {
  volatile uint64_t* regs; /* the window, or null: not configured */
  void* read_list;
  void* write_list;
  uint64_t bytes;
  uint64_t depth_bits;
} l1p_context;

static __thread l1p_context ctx;

static volatile uint64_t* reg(unsigned offset) {
  return ctx.regs + offset / sizeof(uint64_t);
}

int L1P_PatternConfigure(uint64_t n) {
  if (ctx.regs != NULL) return L1P_ALREADYCONFIGURED;
  const int fd = open("/dev/hpm/l1p", O_RDWR);
  if (fd < 0) return L1P_NOTAVAILABLE;
  void* w = mmap(NULL, HPM_L1P_WINDOW_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (w == MAP_FAILED) return L1P_NOTAVAILABLE;
  ctx.bytes = n * HPM_L1P_ENTRY_BYTES;
  ctx.read_list = malloc(ctx.bytes + 1);
  ctx.write_list = malloc(ctx.bytes + 1);
  if (ctx.read_list == NULL || ctx.write_list == NULL) {
    free(ctx.read_list);
    free(ctx.write_list);
    munmap(w, HPM_L1P_WINDOW_BYTES);
    return L1P_NOMEMORY;
  }
  /* Unused entries are all ones: the first replay finds an empty list. */
  memset(ctx.read_list, 0xff, ctx.bytes);
  memset(ctx.write_list, 0xff, ctx.bytes);
  ctx.regs = (volatile uint64_t*)w;
  ctx.depth_bits = 0;
  *reg(HPM_L1P_CTRL) = 0;
  *reg(HPM_L1P_MAXTOL) = ~(uint64_t)0;
  *reg(HPM_L1P_READ_BASE) = (uint64_t)(uintptr_t)ctx.read_list;
  *reg(HPM_L1P_WRITE_BASE) = (uint64_t)(uintptr_t)ctx.write_list;
  *reg(HPM_L1P_SIZE) = ctx.bytes;
  return 0;
}

int L1P_PatternUnconfigure(void) {
  if (ctx.regs == NULL) return L1P_NOTCONFIGURED;
  *reg(HPM_L1P_CTRL) = 0;
  *reg(HPM_L1P_READ_BASE) = 0;
  *reg(HPM_L1P_WRITE_BASE) = 0;
  *reg(HPM_L1P_SIZE) = 0;
  munmap((void*)ctx.regs, HPM_L1P_WINDOW_BYTES);
  free(ctx.read_list);
  free(ctx.write_list);
  memset(&ctx, 0, sizeof ctx);
  return 0;
}

int L1P_PatternStart(int record) {
  if (ctx.regs == NULL) return L1P_NOTCONFIGURED;
  *reg(HPM_L1P_STATUS) =
      HPM_L1P_FINISHED | HPM_L1P_ABANDONED | HPM_L1P_MAXLENGTH | HPM_L1P_ENDOFLIST;
  *reg(HPM_L1P_CTRL) =
      HPM_L1P_START | HPM_L1P_LOAD | (record ? 0 : HPM_L1P_INHIBIT) | ctx.depth_bits;
  return 0;
}

int L1P_PatternStop(void) {
  if (ctx.regs == NULL) return L1P_NOTCONFIGURED;
  const uint64_t ctrl = *reg(HPM_L1P_CTRL);
  *reg(HPM_L1P_CTRL) =
      ctrl & ~(uint64_t)(HPM_L1P_START | HPM_L1P_LOAD | HPM_L1P_INHIBIT | HPM_L1P_PAUSE);
  if ((ctrl & HPM_L1P_START) != 0 && (ctrl & HPM_L1P_INHIBIT) == 0) {
    /* The list just recorded is the one the next run replays. */
    void* t = ctx.read_list;
    ctx.read_list = ctx.write_list;
    ctx.write_list = t;
    *reg(HPM_L1P_READ_BASE) = (uint64_t)(uintptr_t)ctx.read_list;
    *reg(HPM_L1P_WRITE_BASE) = (uint64_t)(uintptr_t)ctx.write_list;
  }
  return 0;
}

int L1P_PatternPause(void) {
  if (ctx.regs == NULL) return L1P_NOTCONFIGURED;
  *reg(HPM_L1P_CTRL) = *reg(HPM_L1P_CTRL) | HPM_L1P_PAUSE;
  return 0;
}

int L1P_PatternResume(void) {
  if (ctx.regs == NULL) return L1P_NOTCONFIGURED;
  *reg(HPM_L1P_CTRL) = *reg(HPM_L1P_CTRL) & ~(uint64_t)HPM_L1P_PAUSE;
  return 0;
}

int L1P_PatternStatus(L1P_Status_t* status) {
  if (ctx.regs == NULL) return L1P_NOTCONFIGURED;
  status->status = *reg(HPM_L1P_STATUS);
  return 0;
}

int L1P_PatternGetCurrentDepth(uint64_t* fetch_depth, uint64_t* generate_depth) {
  if (ctx.regs == NULL) return L1P_NOTCONFIGURED;
  *fetch_depth = *reg(HPM_L1P_READ_POS);
  *generate_depth = *reg(HPM_L1P_WRITE_POS);
  return 0;
}

int L1P_PatternSetAbandonThreshold(uint64_t numL1misses) {
  if (ctx.regs == NULL) return L1P_NOTCONFIGURED;
  *reg(HPM_L1P_MAXTOL) = numL1misses;
  return 0;
}

int L1P_PatternGetAbandonThreshold(uint64_t* numL1misses) {
  if (ctx.regs == NULL) return L1P_NOTCONFIGURED;
  *numL1misses = *reg(HPM_L1P_MAXTOL);
  return 0;
}

int L1P_PatternSetDepth(unsigned depth) {
  if (ctx.regs == NULL) return L1P_NOTCONFIGURED;
  if (depth < 1 || depth > 15) return -1;
  ctx.depth_bits = (uint64_t)depth << HPM_L1P_DEPTH_SHIFT;
  return 0;
}
