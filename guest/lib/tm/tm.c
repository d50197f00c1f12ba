/* libtm: transactions over BG/Q's L2 speculation (guest/include/tm/tm.h) through the register
 * window /dev/hpm/tm (guest/include/hpm/tm.h). As BG/Q's TM runtime (Wang et al., PACT 2012):
 * the begin takes the registers' checkpoint (here the device's, through hpmsim's driver; on
 * BG/Q the runtime's and CNK's), every speculative transaction reads the irrevocable lock, so
 * a thread that takes it rolls them all back, and a transaction that rolled back too often or
 * made a system call runs irrevocably under that lock. */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hpm/tm.h"
#include "tm/tm.h"

static volatile uint64_t* window; /* the device's window, or null: every transaction irrevocable */
/* Rollbacks before a transaction runs irrevocably (BG/Q's runtime reads the same variable; its
 * default there is not documented in what we cite: 10 is an estimate). */
static unsigned max_rollbacks = 10;
static pthread_once_t once = PTHREAD_ONCE_INIT;
/* The irrevocable lock, alone on its L2 line (128 bytes): only taking it conflicts. */
static struct {
  volatile int held;
  char pad[124];
} lock __attribute__((aligned(128)));

static __thread struct {
  unsigned depth; /* nesting: the outermost begin and end count */
  int irrevocable;
  TmReport_t report;
} self;

static void probe(void) {
  const char* env = getenv("TM_MAX_NUM_ROLLBACK");
  if (env != NULL) max_rollbacks = (unsigned)strtoul(env, NULL, 10);
  const int fd = open("/dev/hpm/tm", O_RDWR);
  if (fd < 0) return;
  void* w = mmap(NULL, HPM_TM_WINDOW_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (w != MAP_FAILED) window = (volatile uint64_t*)w;
}

static void acquire(void) {
  while (__atomic_exchange_n(&lock.held, 1, __ATOMIC_ACQUIRE) != 0) {
    while (__atomic_load_n(&lock.held, __ATOMIC_RELAXED) != 0) sched_yield();
  }
}

static void release(void) {
  __atomic_store_n(&lock.held, 0, __ATOMIC_RELEASE);
}

/* The begin: a load into a0 (the device's contract), which returns 0 now and the abort code
 * when the transaction rolls back to just after it. */
static inline uint64_t hw_begin(void) {
  register uint64_t a0 __asm__("a0");
  __asm__ volatile("ld %0, 0(%1)" : "=r"(a0) : "r"(window + HPM_TM_BEGIN / 8) : "memory");
  return a0;
}

static void irrevocably(uint64_t* reason) {
  acquire();
  self.irrevocable = 1;
  ++*reason;
}

int tm_speculative(void) {
  pthread_once(&once, probe);
  return window != NULL;
}

void tm_atomic_begin(void) {
  if (self.depth++ != 0) return; /* flattened */
  pthread_once(&once, probe);
  ++self.report.totalTransactions;
  if (window == NULL) {
    irrevocably(&self.report.totalSerializedOTHER);
    return;
  }
  unsigned rollbacks = 0;
  for (;;) {
    const uint64_t code = hw_begin();
    if (code == 0) {
      /* Speculating, with the lock read: an irrevocable transaction taking it rolls this back. */
      if (__atomic_load_n(&lock.held, __ATOMIC_RELAXED) == 0) return;
      window[HPM_TM_ABORT / 8] = 1; /* one runs now: roll back (to hw_begin) and wait for it */
    }
    ++self.report.totalRollbacks;
    const unsigned why = (unsigned)(code & 0xff);
    if (why == HPM_TM_SYSTEM_CALL) {
      irrevocably(&self.report.totalSerializedJMV);
      return;
    }
    if (why == HPM_TM_CAPACITY) {
      irrevocably(&self.report.totalSerializedOTHER);
      return;
    }
    if (++rollbacks > max_rollbacks) {
      irrevocably(&self.report.totalSerializedMAXRB);
      return;
    }
    while (__atomic_load_n(&lock.held, __ATOMIC_RELAXED) != 0) sched_yield();
  }
}

void tm_atomic_end(void) {
  if (--self.depth != 0) return;
  if (self.irrevocable) {
    self.irrevocable = 0;
    release();
    return;
  }
  window[HPM_TM_COMMIT / 8] = 0;
}

void tm_get_stats(TmReport_t* report) {
  *report = self.report;
}
