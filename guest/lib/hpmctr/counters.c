/* libhpmctr: guest access to hpmsim's counter units (hpm/counters.h; docs/counters.md).
 * Register layouts: docs/upc.md (UPC-P) and docs/upcq.md (UPC-Q). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "hpm/counters.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "hpmctr_events.h"

/* kernel/device.h */
#define HPMCTR_IOCTL_SET_SIGNAL 0x48500001UL
#define HPMCTR_SI_COUNTER 0x4850
#define HPMCTR_DEVICE_MINOR_BASE 240
#define HPMCTR_MAX_DEVICES 256

static hpmctr_unit* registry[HPMCTR_MAX_DEVICES]; /* by device number: whose interrupts */

static unsigned long align_up(unsigned long v, unsigned long a) {
  return (v + a - 1) / a * a;
}

static int open_path(const char* path) {
  return open(path, O_RDWR | O_CLOEXEC);
}

static int exists(const char* path) {
  const int fd = open_path(path);
  if (fd < 0) return 0;
  close(fd);
  return 1;
}

enum hpmctr_machine hpmctr_machine(void) {
  static int cached = -1;
  if (cached < 0) {
    cached = exists("/dev/hpm/upc")      ? HPMCTR_BGP
             : exists("/dev/hpm/punit0") ? HPMCTR_BGQ
                                         : HPMCTR_NONE;
  }
  return (enum hpmctr_machine)cached;
}

enum hpmctr_run_mode hpmctr_run_mode(void) {
  static int cached = -1;
  if (cached < 0) {
    static const char* const names[] = {"functional", "warmup", "timing", "profile"};
    char text[32] = {0};
    const int fd = open("/proc/hpmsim/mode", O_RDONLY | O_CLOEXEC);
    cached = HPMCTR_RUN_UNKNOWN;
    if (fd >= 0) {
      const ssize_t n = read(fd, text, sizeof text - 1);
      close(fd);
      for (int m = 0; n > 0 && m < 4; ++m) {
        const size_t len = strlen(names[m]);
        if (strncmp(text, names[m], len) == 0 && (text[len] == '\n' || text[len] == 0)) {
          cached = HPMCTR_RUN_FUNCTIONAL + m;
        }
      }
    }
  }
  return (enum hpmctr_run_mode)cached;
}

int hpmctr_counts_in_run_mode(unsigned modes) {
  const enum hpmctr_run_mode m = hpmctr_run_mode();
  /* (No modes: an event that never counts on this node, in any mode, which is offered
   * everywhere and reads 0, as the seed's software expects: docs/events.md.) */
  return modes == 0 || m == HPMCTR_RUN_UNKNOWN || ((modes >> (m - 1)) & 1u) != 0;
}

/* bgq: the number of PUnits (cores). */
static int punit_count(void) {
  static int cached = -1;
  if (cached < 0) {
    char path[64];
    int k = 0;
    for (;; ++k) {
      snprintf(path, sizeof path, "/dev/hpm/punit%d", k);
      if (!exists(path)) break;
    }
    cached = k;
  }
  return cached;
}

/* The hardware threads (glibc reads /sys for it at each call: once is enough). */
static int cpus(void) {
  static int cached = -1;
  if (cached < 0) cached = get_nprocs_conf();
  return cached;
}

static const struct hpmctr_catalogue* catalogue_of(enum hpmctr_machine m) {
  for (unsigned i = 0; i < hpmctr_catalogue_count; ++i) {
    if (hpmctr_catalogues[i].family == (int)m) return &hpmctr_catalogues[i];
  }
  return NULL;
}

static int threads_per_core(void) {
  const int n = cpus();
  if (hpmctr_machine() == HPMCTR_BGQ) {
    const int cores = punit_count();
    return cores > 0 && n % cores == 0 ? n / cores : 1;
  }
  /* UPC-P does not show the cores: the preset's threads per core, if the machine is its size. */
  const struct hpmctr_catalogue* cat = catalogue_of(HPMCTR_BGP);
  if (cat != NULL && n == cat->cores * cat->threads_per_core) return cat->threads_per_core;
  return 1;
}

int hpmctr_cpu(void) {
  return sched_getcpu();
}

int hpmctr_core(void) {
  const int cpu = sched_getcpu();
  return cpu < 0 ? cpu : cpu / threads_per_core();
}

int hpmctr_thread(void) {
  const int cpu = sched_getcpu();
  return cpu < 0 ? cpu : cpu % threads_per_core();
}

/* ---- opening: the register layout from UNIT_INFO ---------------------------------------- */

/* UPC-P: with N counters, UNIT_INFO is at 9N + 0x30 and reads N in bits [15:0]. */
static int upcp_layout_fits(hpmctr_unit* u, unsigned n) {
  const unsigned words = (n + 63) / 64;
  const unsigned long start = 9UL * n;
  if (align_up(start + 0x40 + 24UL * words, 4096) != u->window) return 0;
  const uint64_t info = u->regs[(start + 0x30) / 8];
  const unsigned low_bits = (unsigned)(info >> 16) & 0xff;
  const unsigned banks = (unsigned)(info >> 24) & 0xff;
  if ((info & 0xffff) != n || low_bits == 0 || low_bits > 63 || banks == 0 || banks > 4) return 0;
  u->counters = n;
  u->ports = 1;
  u->per_port = n;
  u->events = n * banks;
  u->low_bits = low_bits;
  u->counter_reg = 0;
  u->read_reg = 0;
  u->config_reg = n;
  u->run_reg = (unsigned)(start / 8);
  u->threshold_reg = (unsigned)((start + 0x10) / 8);
  u->status_reg = (unsigned)((start + 0x40) / 8);
  u->armed_reg = u->status_reg + words;
  return 1;
}

/* UPC-Q: five arrays of stride A = 8 n rounded up to 256, then the control block at 5 A, whose
 * UNIT_INFO (at + 0x18) gives the kind, the shape and the events. */
static int upcq_layout_fits(hpmctr_unit* u, unsigned long stride) {
  const unsigned long control = 5 * stride;
  if (control + 0x48 > u->window) return 0;
  const uint64_t info = u->regs[(control + 0x18) / 8];
  const unsigned kind = (unsigned)info & 0xff;
  const unsigned per_port = (unsigned)(info >> 16) & 0xff;
  const unsigned ports = (unsigned)(info >> 24) & 0xff;
  const unsigned n = per_port * ports;
  if (kind + 1 != (unsigned)u->kind || n == 0 || align_up(8UL * n, 0x100) != stride) return 0;
  if (align_up(control + 0x40 + 8UL * ((n + 63) / 64), 4096) != u->window) return 0;
  const int combined = (int)((info >> 40) & 1);
  u->counters = combined ? per_port : n;
  u->ports = ports;
  u->per_port = per_port;
  u->events = (unsigned)(info >> 48) + 1;
  u->low_bits = (unsigned)(info >> 32) & 0xff;
  u->counter_reg = 0;
  u->read_reg = u->kind == HPMCTR_PUNIT ? (unsigned)(3 * stride / 8) : 0; /* COUNTER_EXACT */
  u->config_reg = (unsigned)(stride / 8);
  u->threshold_reg = (unsigned)(2 * stride / 8);
  u->run_reg = (unsigned)(control / 8);
  u->status_reg = (unsigned)((control + 0x40) / 8);
  u->armed_reg = 0;
  return 1;
}

static int find_layout(hpmctr_unit* u) {
  if (u->kind == HPMCTR_UPC) {
    if (upcp_layout_fits(u, 256)) return 0; /* the preset first: no stray reads */
    for (unsigned n = 8; 9UL * n + 0x38 <= u->window; n += 8) {
      if (upcp_layout_fits(u, n)) return 0;
    }
    return -ENODEV;
  }
  static const unsigned preset[] = {0, 24, 96, 43, 32, 66}; /* counters of the bgq units */
  if (upcq_layout_fits(u, align_up(8UL * preset[u->kind], 0x100))) return 0;
  for (unsigned long stride = 0x100; 5 * stride + 0x48 <= u->window; stride += 0x100) {
    if (upcq_layout_fits(u, stride)) {
      u->regs[u->run_reg + 2] = 0xf; /* ACCESS_ERROR: clear what the probing may have set */
      return 0;
    }
  }
  return -ENODEV;
}

int hpmctr_open(hpmctr_unit* u, enum hpmctr_kind kind, int instance) {
  static const char* const names[] = {"upc", "punit", "l2", "io", "cnk", "nw"};
  memset(u, 0, sizeof *u);
  u->fd = -1;
  if ((unsigned)kind > HPMCTR_NW || (kind == HPMCTR_PUNIT && instance < 0)) return -EINVAL;
  char path[64];
  if (kind == HPMCTR_PUNIT) {
    snprintf(path, sizeof path, "/dev/hpm/punit%d", instance);
  } else {
    snprintf(path, sizeof path, "/dev/hpm/%s", names[kind]);
  }
  const int fd = open_path(path);
  if (fd < 0) return errno == ENOENT ? -ENODEV : -errno;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int e = errno;
    close(fd);
    return -e;
  }
  void* regs = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (regs == MAP_FAILED) {
    const int e = errno;
    close(fd);
    return -e;
  }
  u->fd = fd;
  u->regs = (volatile uint64_t*)regs;
  u->window = (unsigned long)st.st_size;
  u->device = (int)minor(st.st_rdev) - HPMCTR_DEVICE_MINOR_BASE;
  u->kind = kind;
  u->instance = kind == HPMCTR_PUNIT ? instance : 0;
  u->machine = kind == HPMCTR_UPC ? HPMCTR_BGP : HPMCTR_BGQ;
  u->signo = SIGRTMIN + 1;
  int r = find_layout(u);
  if (r == 0) {
    /* Room for every counter of every port (the L2 unit may switch to sliced). */
    const unsigned all = u->ports * u->per_port;
    u->input = malloc(all * sizeof *u->input);
    u->overflow = calloc(all, sizeof *u->overflow);
    if (u->input == NULL || u->overflow == NULL) r = -ENOMEM;
  }
  if (r != 0) {
    hpmctr_close(u);
    return r;
  }
  for (unsigned c = 0; c < u->ports * u->per_port; ++c) u->input[c] = -1;
  return 0;
}

int hpmctr_open_core(hpmctr_unit* u) {
  switch (hpmctr_machine()) {
    case HPMCTR_BGP: return hpmctr_open(u, HPMCTR_UPC, 0);
    case HPMCTR_BGQ: {
      const int core = hpmctr_core();
      return core < 0 ? -errno : hpmctr_open(u, HPMCTR_PUNIT, core);
    }
    default:
      memset(u, 0, sizeof *u);
      u->fd = -1;
      return -ENODEV;
  }
}

void hpmctr_close(hpmctr_unit* u) {
  if (u->device >= 0 && u->device < HPMCTR_MAX_DEVICES && registry[u->device] == u) {
    ioctl(u->fd, HPMCTR_IOCTL_SET_SIGNAL, 0);
    registry[u->device] = NULL;
  }
  if (u->regs != NULL) munmap((void*)u->regs, u->window);
  if (u->fd >= 0) close(u->fd);
  free(u->input);
  free(u->overflow);
  memset(u, 0, sizeof *u);
  u->fd = -1;
}

/* ---- event names ------------------------------------------------------------------------- */

/* The catalogue for this unit, if the machine has the preset's shape. */
static const struct hpmctr_catalogue* names_for(const hpmctr_unit* u) {
  const struct hpmctr_catalogue* cat = catalogue_of(u->machine);
  if (cat == NULL || cpus() != cat->cores * cat->threads_per_core) return NULL;
  if (u->machine == HPMCTR_BGP && (int)u->counters != cat->counters) return NULL;
  if (u->machine == HPMCTR_BGQ && punit_count() != cat->cores) return NULL;
  return cat;
}

int hpmctr_event(const hpmctr_unit* u, const char* name) {
  const struct hpmctr_catalogue* cat = names_for(u);
  if (cat == NULL) return -1;
  for (unsigned i = 0; i < cat->count; ++i) {
    const struct hpmctr_event_entry* e = &cat->events[i];
    if (e->kind == (unsigned char)u->kind && strcmp(e->name, name) == 0) return e->input;
  }
  return -1;
}

int hpmctr_thread_event(const hpmctr_unit* u, const char* generic) {
  const struct hpmctr_catalogue* cat = names_for(u);
  if (cat == NULL || generic == NULL || generic[0] == '\0') return -1;
  const int core = hpmctr_core(), thread = hpmctr_thread();
  /* UPC-P: the calling thread's core's event. A PUnit: the calling thread's own, or for an
   * event of the whole core (an L1D miss) the core's. */
  for (int pass = 0; pass < 2; ++pass) {
    for (unsigned i = 0; i < cat->count; ++i) {
      const struct hpmctr_event_entry* e = &cat->events[i];
      if (e->kind != (unsigned char)u->kind || strcmp(e->generic, generic) != 0) continue;
      const int mine = u->kind == HPMCTR_UPC ? e->core == core
                       : pass == 0           ? e->thread == thread
                                             : e->thread < 0;
      if (mine) return e->input;
    }
  }
  return -1;
}

const char* hpmctr_event_name(const hpmctr_unit* u, int input) {
  const struct hpmctr_catalogue* cat = names_for(u);
  if (cat == NULL) return NULL;
  for (unsigned i = 0; i < cat->count; ++i) {
    const struct hpmctr_event_entry* e = &cat->events[i];
    if (e->kind == (unsigned char)u->kind && e->input == input) return e->name;
  }
  return NULL;
}

/* ---- programming ------------------------------------------------------------------------- */

static const uint64_t kUpcpIntEnable = 0x10;            /* configuration byte bit 4 */
static const uint64_t kUpcqOverflowEnable = 1ULL << 18; /* CONFIG bit 18 */
static const uint64_t kUpcqHold = 2;                    /* RUN bit 1 (L2, I/O units) */

/* UPC-P: counter c's configuration byte. */
static void upcp_set_byte(hpmctr_unit* u, int c, uint64_t byte) {
  volatile uint64_t* reg = &u->regs[u->config_reg + (unsigned)c / 8];
  const unsigned shift = 8 * ((unsigned)c % 8);
  *reg = (*reg & ~(0xffULL << shift)) | (byte & 0xff) << shift;
}

static uint64_t upcp_byte(const hpmctr_unit* u, int c) {
  return (u->regs[u->config_reg + (unsigned)c / 8] >> (8 * ((unsigned)c % 8))) & 0xff;
}

int hpmctr_set(hpmctr_unit* u, int counter, int input, enum hpmctr_mode mode) {
  if (counter < 0 || (unsigned)counter >= u->counters || input < 0 ||
      (unsigned)input >= u->events || (unsigned)mode > HPMCTR_FALLING_EDGE) {
    return -EINVAL;
  }
  if (u->kind == HPMCTR_UPC) {
    if ((unsigned)input % u->counters != (unsigned)counter) return -EINVAL;
    upcp_set_byte(u, counter, (unsigned)input / u->counters | (uint64_t)mode << 2);
  } else {
    u->regs[u->config_reg + (unsigned)counter] = (uint64_t)input | (uint64_t)mode << 16;
  }
  u->input[counter] = input;
  memset(&u->overflow[counter], 0, sizeof u->overflow[counter]); /* no threshold */
  hpmctr_write(u, counter, 0);
  return counter;
}

int hpmctr_add(hpmctr_unit* u, int input, enum hpmctr_mode mode) {
  if (input < 0 || (unsigned)input >= u->events) return -EINVAL;
  if (u->kind == HPMCTR_UPC) {
    /* The input's one counter, unless it counts something already: another input, or this one
     * (in whatever mode; reprogramming it would silently restart its count). */
    const int c = (int)((unsigned)input % u->counters);
    if (u->input[c] >= 0) return -EBUSY;
    return hpmctr_set(u, c, input, mode);
  }
  for (unsigned c = 0; c < u->counters; ++c) {
    if (u->input[c] < 0) return hpmctr_set(u, (int)c, input, mode);
  }
  return -EBUSY;
}

int hpmctr_remove(hpmctr_unit* u, int counter) {
  if (counter < 0 || (unsigned)counter >= u->counters || u->input[counter] < 0) return -EINVAL;
  if (u->kind == HPMCTR_UPC) {
    upcp_set_byte(u, counter, 0);
  } else {
    u->regs[u->config_reg + (unsigned)counter] = 0; /* event 0, level high, overflow off */
    u->regs[u->threshold_reg + (unsigned)counter] = 0;
  }
  u->input[counter] = -1;
  memset(&u->overflow[counter], 0, sizeof u->overflow[counter]);
  hpmctr_write(u, counter, 0);
  return 0;
}

int hpmctr_add_name(hpmctr_unit* u, const char* name, enum hpmctr_mode mode) {
  const int input = hpmctr_event(u, name);
  return input < 0 ? -ENOENT : hpmctr_add(u, input, mode);
}

int hpmctr_program_select(hpmctr_unit* u, int select) {
  if (u->kind != HPMCTR_UPC) return -EINVAL;
  if (select < 0 || (unsigned)select >= u->events / u->counters) return -EINVAL;
  for (unsigned c = 0; c < u->counters; ++c) {
    memset(&u->overflow[c], 0, sizeof u->overflow[c]);
    u->input[c] = (int)(select * u->counters + c);
  }
  for (unsigned g = 0; g < u->counters / 8; ++g) {
    u->regs[u->config_reg + g] = 0x0101010101010101ULL * (uint64_t)select;
  }
  for (unsigned c = 0; c < u->counters; ++c) u->regs[u->counter_reg + c] = 0;
  return (int)u->counters;
}

int hpmctr_reset(hpmctr_unit* u) {
  u->run_bits = 0; /* parity interrupts off too */
  u->parity_fn = NULL;
  hpmctr_stop(u);
  const unsigned words = (u->counters + 63) / 64;
  if (u->kind == HPMCTR_UPC) {
    for (unsigned g = 0; g < u->counters / 8; ++g) u->regs[u->config_reg + g] = 0;
    u->regs[u->threshold_reg] = 0;
    for (unsigned c = 0; c < u->counters; ++c) u->regs[u->counter_reg + c] = 0;
    for (unsigned w = 0; w < words; ++w) u->regs[u->status_reg + w] = ~0ULL;
  } else {
    for (unsigned c = 0; c < u->counters; ++c) {
      u->regs[u->config_reg + c] = 0;
      u->regs[u->threshold_reg + c] = 0;
    }
    u->regs[u->run_reg + 1] = 1; /* RESET: counts, status bits, freezes, hold */
  }
  for (unsigned c = 0; c < u->counters; ++c) {
    u->input[c] = -1;
    memset(&u->overflow[c], 0, sizeof u->overflow[c]);
  }
  return 0;
}

int hpmctr_read_all(const hpmctr_unit* u, uint64_t* values) {
  for (unsigned c = 0; c < u->counters; ++c) values[c] = u->regs[u->read_reg + c];
  return (int)u->counters;
}

void hpmctr_write(hpmctr_unit* u, int counter, uint64_t value) {
  u->regs[u->counter_reg + (unsigned)counter] = value;
}

uint64_t hpmctr_count(const hpmctr_unit* u, int counter) {
  const uint64_t raw = hpmctr_read(u, counter);
  const struct hpmctr_overflow* ov = &u->overflow[counter];
  if (u->kind == HPMCTR_UPC && ov->period != 0) return ov->base + (raw - ov->preload);
  return raw;
}

/* ---- thresholds -------------------------------------------------------------------------- */

/* UPC-P: the (threshold, preload) pair that interrupts at the r-th event counted from now
 * (docs/upc.md, thresholdForCount): q = ceil(r / 2^L), preload q 2^L - r, threshold (q - 1) 2^L.
 * With q = 1 no carry precedes the interrupting one, so only the counter's first visit after the
 * preload can arm it: wait for it (the caller keeps the unit stopped, so no event is missed). */
static void upcp_arm(hpmctr_unit* u, int c, uint64_t r, uint64_t count_now) {
  struct hpmctr_overflow* ov = &u->overflow[c];
  const unsigned l = u->low_bits;
  const uint64_t q = (r + (1ULL << l) - 1) >> l;
  ov->base = count_now;
  ov->preload = (q << l) - r;
  u->regs[u->threshold_reg] = (q - 1) << l;
  u->regs[u->counter_reg + (unsigned)c] = ov->preload; /* clears carry and armed */
  if (q == 1) {
    const volatile uint64_t* armed = &u->regs[u->armed_reg + (unsigned)c / 64];
    while (!((*armed >> ((unsigned)c % 64)) & 1)) {
    }
  }
}

/* Calls the handler once per period the count has reached. */
static void call_periods(hpmctr_unit* u, int c, uint64_t count, uint64_t cycle, void* context) {
  struct hpmctr_overflow* ov = &u->overflow[c];
  while (count >= ov->next) {
    ++ov->calls;
    ov->next += ov->period;
    if (ov->fn != NULL) ov->fn(u, c, count, cycle, context, ov->arg);
  }
}

static void upcp_interrupt(hpmctr_unit* u, int c, uint64_t cycle, void* context) {
  struct hpmctr_overflow* ov = &u->overflow[c];
  const uint64_t was_running = u->regs[u->run_reg] & 1;
  u->regs[u->run_reg] = u->run_bits; /* nothing counts while the interrupt is handled */
  const uint64_t count = hpmctr_count(u, c);
  call_periods(u, c, count, cycle, context);
  upcp_arm(u, c, ov->next - count, count);
  u->regs[u->status_reg + (unsigned)c / 64] = 1ULL << ((unsigned)c % 64); /* acknowledge */
  if (was_running) u->regs[u->run_reg] = u->run_bits | 1;
}

static void upcq_interrupt(hpmctr_unit* u, int c, uint64_t cycle, void* context) {
  struct hpmctr_overflow* ov = &u->overflow[c];
  /* A PUnit counter is frozen, an L2/IO/NW unit holds: nothing new is counted until
   * acknowledged. */
  call_periods(u, c, hpmctr_read(u, c), cycle, context);
  u->regs[u->threshold_reg + (unsigned)c] = ov->next;
  u->regs[u->status_reg + (unsigned)c / 64] = 1ULL << ((unsigned)c % 64); /* acknowledge */
  if (u->kind != HPMCTR_L2 && u->kind != HPMCTR_IO && u->kind != HPMCTR_NW) return;
  /* A slow unit's COUNTER lags by up to a sweep period: the events counted before the hold reach
   * it at sweeps while the handler runs, when the counter does not watch its threshold (its
   * status bit is set), and can pass the new threshold unseen; it would then never interrupt
   * again. Periods passed by the acknowledge are handled here, with the unit held by software so
   * that the handler's own events are not counted; a crossing after the acknowledge interrupts
   * as usual (that interrupt then may find no period to call). */
  uint64_t count = hpmctr_read(u, c);
  if (count < ov->next) return;
  const uint64_t run = u->regs[u->run_reg];
  u->regs[u->run_reg] = run | kUpcqHold;
  do {
    call_periods(u, c, count, cycle, context);
    u->regs[u->threshold_reg + (unsigned)c] = ov->next;
    count = hpmctr_read(u, c);
  } while (count >= ov->next);
  u->regs[u->run_reg] = run & ~kUpcqHold;
}

/* UPC-P register indices of the parity state (docs/upc.md): PARITY_STATUS at START_STOP + 0x20,
 * PARITY_ERRORS after INTERRUPT_STATUS and ARMED_STATUS. */
static unsigned upcp_parity_status_reg(const hpmctr_unit* u) {
  return u->run_reg + 4;
}
static unsigned upcp_parity_errors_reg(const hpmctr_unit* u) {
  return u->armed_reg + (u->armed_reg - u->status_reg);
}

/* A parity error recorded: calls the parity handler and clears it. Returns 1 when the signal
 * was for the parity error alone (its counter has no threshold interrupt pending). */
static int upcp_parity(hpmctr_unit* u, int counter, uint64_t cycle, void* context) {
  const uint64_t status = u->regs[upcp_parity_status_reg(u)];
  if (!(status >> 63)) return 0;
  const unsigned failing = (unsigned)(status & 0xFFFFFFFFu);
  u->regs[upcp_parity_status_reg(u)] = 1ULL << 63;
  u->regs[upcp_parity_errors_reg(u) + failing / 64] = 1ULL << (failing % 64);
  ++u->parity_calls;
  u->parity_fn(u, (int)failing, cycle, context, u->parity_arg);
  const uint64_t pending = u->regs[u->status_reg + (unsigned)counter / 64];
  return !((pending >> ((unsigned)counter % 64)) & 1);
}

static void on_signal(int signo, siginfo_t* info, void* context) {
  (void)signo;
  if (info->si_code != HPMCTR_SI_COUNTER) return;
  int device = 0, counter = 0;
  uint64_t cycle = 0;
  memcpy(&device, (const char*)info + 16, sizeof device);
  memcpy(&counter, (const char*)info + 20, sizeof counter);
  memcpy(&cycle, (const char*)info + 24, sizeof cycle);
  if (device < 0 || device >= HPMCTR_MAX_DEVICES) return;
  hpmctr_unit* u = registry[device];
  if (u == NULL || counter < 0 || (unsigned)counter >= u->counters) return;
  const int saved_errno = errno;
  if (u->kind == HPMCTR_UPC && u->parity_fn != NULL && upcp_parity(u, counter, cycle, context)) {
    errno = saved_errno;
    return;
  }
  struct hpmctr_overflow* ov = &u->overflow[counter];
  ++ov->signals;
  if (ov->period == 0) {
    u->regs[u->status_reg + (unsigned)counter / 64] = 1ULL << ((unsigned)counter % 64);
  } else if (u->kind == HPMCTR_UPC) {
    upcp_interrupt(u, counter, cycle, context);
  } else {
    upcq_interrupt(u, counter, cycle, context);
  }
  errno = saved_errno;
}

static int take_interrupts(hpmctr_unit* u) {
  if (u->device < 0 || u->device >= HPMCTR_MAX_DEVICES) return -ENODEV;
  if (registry[u->device] == u) return 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(u->signo, &sa, NULL) != 0) return -errno;
  if (ioctl(u->fd, HPMCTR_IOCTL_SET_SIGNAL, (unsigned long)u->signo) != 0) return -errno;
  registry[u->device] = u;
  return 0;
}

int hpmctr_overflow(hpmctr_unit* u, int counter, uint64_t period, hpmctr_handler fn, void* arg) {
  if (counter < 0 || (unsigned)counter >= u->counters || u->input[counter] < 0) return -EINVAL;
  struct hpmctr_overflow* ov = &u->overflow[counter];
  if (u->kind == HPMCTR_UPC) {
    for (unsigned c = 0; c < u->counters && period != 0; ++c) {
      if ((int)c != counter && u->overflow[c].period != 0) return -EBUSY;
    }
    const uint64_t count = hpmctr_count(u, counter);
    if (period == 0) {
      upcp_set_byte(u, counter, upcp_byte(u, counter) & ~kUpcpIntEnable);
      memset(ov, 0, sizeof *ov);
      hpmctr_write(u, counter, count); /* the count goes on from where it was */
      return 0;
    }
    const int r = take_interrupts(u);
    if (r != 0) return r;
    *ov = (struct hpmctr_overflow){period, count + period, 0, 0, 0, 0, fn, arg};
    upcp_set_byte(u, counter, upcp_byte(u, counter) | kUpcpIntEnable);
    upcp_arm(u, counter, period, count);
    return 0;
  }
  volatile uint64_t* config = &u->regs[u->config_reg + (unsigned)counter];
  if (period == 0) {
    *config &= ~kUpcqOverflowEnable;
    memset(ov, 0, sizeof *ov);
    return 0;
  }
  const int r = take_interrupts(u);
  if (r != 0) return r;
  *ov = (struct hpmctr_overflow){period, hpmctr_read(u, counter) + period, 0, 0, 0, 0, fn, arg};
  u->regs[u->threshold_reg + (unsigned)counter] = ov->next;
  *config |= kUpcqOverflowEnable;
  return 0;
}

uint64_t hpmctr_overflow_signals(const hpmctr_unit* u, int counter) {
  return u->overflow[counter].signals;
}

uint64_t hpmctr_overflow_calls(const hpmctr_unit* u, int counter) {
  return u->overflow[counter].calls;
}

int hpmctr_on_parity_error(hpmctr_unit* u, hpmctr_parity_handler fn, void* arg) {
  if (u->kind != HPMCTR_UPC) return -EINVAL;
  if (fn != NULL) {
    const int r = take_interrupts(u);
    if (r != 0) return r;
  }
  u->parity_fn = fn;
  u->parity_arg = arg;
  u->run_bits = fn != NULL ? 2 : 0;
  const uint64_t running = u->regs[u->run_reg] & 1;
  u->regs[u->run_reg] = u->run_bits | running;
  return 0;
}

int hpmctr_parity_status(const hpmctr_unit* u) {
  if (u->kind != HPMCTR_UPC) return -1;
  const uint64_t status = u->regs[upcp_parity_status_reg(u)];
  return status >> 63 ? (int)(status & 0xFFFFFFFFu) : -1;
}

int hpmctr_l2_mode(hpmctr_unit* u, int sliced) {
  if (u->kind != HPMCTR_L2) return -EINVAL;
  u->regs[u->run_reg + 5] = sliced ? 1 : 0; /* MODE, at the control block + 0x28 */
  u->counters = sliced ? u->ports * u->per_port : u->per_port;
  for (unsigned c = 0; c < u->ports * u->per_port; ++c) {
    u->input[c] = -1;
    memset(&u->overflow[c], 0, sizeof u->overflow[c]);
  }
  return (int)u->counters;
}

int hpmctr_add_slices(hpmctr_unit* u, int input, enum hpmctr_mode mode) {
  if ((u->kind != HPMCTR_L2 && u->kind != HPMCTR_NW) || u->counters != u->ports * u->per_port) {
    return -EINVAL;
  }
  if (input < 0 || (unsigned)input >= u->events) return -EINVAL;
  for (unsigned j = 0; j < u->per_port; ++j) {
    int free_everywhere = 1;
    for (unsigned s = 0; s < u->ports; ++s) free_everywhere &= u->input[s * u->per_port + j] < 0;
    if (!free_everywhere) continue;
    for (unsigned s = 0; s < u->ports; ++s) {
      const int r = hpmctr_set(u, (int)(s * u->per_port + j), input, mode);
      if (r < 0) return r;
    }
    return (int)j;
  }
  return -EBUSY;
}
