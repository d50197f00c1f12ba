/* libhpmctr's interconnect monitor (hpm/imon.h; docs/interconnect.md). */
#include "hpm/imon.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile uint64_t* reg(const hpm_imon* m, unsigned long offset) {
  return m->regs + offset / 8;
}

int hpm_imon_open(hpm_imon* m) {
  m->regs = 0;
  m->window = 0;
  m->fd = open("/dev/hpm/imon", O_RDWR | O_CLOEXEC);
  if (m->fd < 0) return -errno;
  /* The first page holds INFO, which says how large the window is. */
  void* first = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
  if (first == MAP_FAILED) {
    const int e = errno;
    close(m->fd);
    return -e;
  }
  const uint64_t info = ((volatile uint64_t*)first)[HPM_IMON_REG_INFO / 8];
  munmap(first, 4096);
  m->monitors = (unsigned)HPM_IMON_FIELD(info, HPM_IMON_INFO_MONITORS);
  m->fifo_entries = (unsigned)HPM_IMON_FIELD(info, HPM_IMON_INFO_FIFO_ENTRIES);
  m->counter_bits = (unsigned)HPM_IMON_FIELD(info, HPM_IMON_INFO_COUNTER_BITS);
  m->types = (unsigned)HPM_IMON_FIELD(info, HPM_IMON_INFO_TYPES);
  m->interconnect = (unsigned)HPM_IMON_FIELD(info, HPM_IMON_INFO_INTERCONNECT);
  m->window = ((unsigned long)HPM_IMON_REG_MONITOR(m->monitors) + 4095) / 4096 * 4096;
  void* regs = mmap(0, m->window, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
  if (regs == MAP_FAILED) {
    const int e = errno;
    close(m->fd);
    return -e;
  }
  m->regs = (volatile uint64_t*)regs;
  return 0;
}

void hpm_imon_close(hpm_imon* m) {
  if (m->regs) munmap((void*)m->regs, m->window);
  if (m->fd >= 0) close(m->fd);
  m->regs = 0;
  m->fd = -1;
}

void hpm_imon_filter_any(struct hpm_imon_filter* f) {
  f->types = HPM_IMON_BIT(HPM_IMON_TYPES) - 1;
  f->addr_match = f->addr_mask = 0;
  f->source_match = f->source_mask = 0;
  f->id_match = f->id_mask = 0;
  f->snoops = HPM_IMON_BIT(HPM_IMON_SNOOPS) - 1;
}

int hpm_imon_trits(const char* trits, uint64_t* match, uint64_t* mask) {
  uint64_t a = 0, k = 0;
  unsigned n = 0;
  for (const char* p = trits; *p; ++p, ++n) {
    if (n == 64) return -1;
    a <<= 1;
    k <<= 1;
    if (*p == '1') {
      a |= 1;
      k |= 1;
    } else if (*p == '0') {
      k |= 1;
    } else if (*p != 'X' && *p != 'x') {
      return -1;
    }
  }
  *match = a;
  *mask = k;
  return 0;
}

int hpm_imon_set_filter(hpm_imon* m, unsigned counter, const struct hpm_imon_filter* f) {
  if (counter >= 2 * m->monitors) return -EINVAL;
  const unsigned long base = HPM_IMON_REG_COUNTER(counter / 2, counter % 2);
  *reg(m, base + HPM_IMON_TYPES_OFF) = f->types;
  *reg(m, base + HPM_IMON_ADDR_MATCH_OFF) = f->addr_match;
  *reg(m, base + HPM_IMON_ADDR_MASK_OFF) = f->addr_mask;
  *reg(m, base + HPM_IMON_ID_MATCH_OFF) =
      (uint64_t)f->id_match << HPM_IMON_ID_ID_SHIFT |
      (f->source_match & HPM_IMON_FIELD_MASK(HPM_IMON_ID_SOURCE)) << HPM_IMON_ID_SOURCE_SHIFT;
  *reg(m, base + HPM_IMON_ID_MASK_OFF) = (uint64_t)f->id_mask << HPM_IMON_ID_ID_SHIFT |
                                         (f->source_mask & HPM_IMON_FIELD_MASK(HPM_IMON_ID_SOURCE))
                                             << HPM_IMON_ID_SOURCE_SHIFT;
  *reg(m, base + HPM_IMON_SNOOPS_OFF) = f->snoops;
  return 0;
}

uint64_t hpm_imon_read(const hpm_imon* m, unsigned counter) {
  return *reg(m, HPM_IMON_REG_COUNTER(counter / 2, counter % 2) + HPM_IMON_COUNT_OFF);
}

void hpm_imon_write(hpm_imon* m, unsigned counter, uint64_t value) {
  *reg(m, HPM_IMON_REG_COUNTER(counter / 2, counter % 2) + HPM_IMON_COUNT_OFF) = value;
}

void hpm_imon_run(hpm_imon* m, unsigned monitor_mask) {
  *reg(m, HPM_IMON_REG_RUN) = monitor_mask;
}

void hpm_imon_fifo_enable(hpm_imon* m, unsigned monitor, int on) {
  *reg(m, HPM_IMON_REG_MONITOR(monitor) + HPM_IMON_FIFO_ENABLE_OFF) = on ? 1 : 0;
}

unsigned hpm_imon_fifo_sample(hpm_imon* m, unsigned monitor, struct hpm_imon_record* out,
                              unsigned max, uint64_t* lost) {
  const unsigned long base = HPM_IMON_REG_MONITOR(monitor);
  /* One load: what the FIFO held, and (cleared by that load) what it dropped since the last. */
  const uint64_t status = *reg(m, base + HPM_IMON_FIFO_STATUS_OFF);
  *lost += HPM_IMON_FIELD(status, HPM_IMON_STATUS_LOST);
  unsigned held = (unsigned)HPM_IMON_FIELD(status, HPM_IMON_STATUS_HELD), n = 0;
  while (n < held && n < max) {
    const uint64_t info = *reg(m, base + HPM_IMON_FIFO_POP_OFF);
    if (!HPM_IMON_FIELD(info, HPM_IMON_POP_VALID)) break;
    out[n].type = (unsigned)HPM_IMON_FIELD(info, HPM_IMON_POP_TYPE);
    out[n].snoop = (unsigned)HPM_IMON_FIELD(info, HPM_IMON_POP_SNOOP);
    out[n].source = (unsigned)HPM_IMON_FIELD(info, HPM_IMON_POP_SOURCE);
    out[n].id = (unsigned)HPM_IMON_FIELD(info, HPM_IMON_POP_ID);
    out[n].supplier = (unsigned)HPM_IMON_FIELD(info, HPM_IMON_POP_SUPPLIER);
    out[n].address = *reg(m, base + HPM_IMON_LATCH_ADDRESS_OFF);
    out[n].cycle = *reg(m, base + HPM_IMON_LATCH_CYCLE_OFF);
    ++n;
  }
  return n;
}
