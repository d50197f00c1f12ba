/* libpapi: software overflow (PAPI_OVERFLOW_FORCE_SW) on the simulated interval timer, and
 * PAPI_profil/PAPI_sprofil on top of overflow (hardware or software).
 *
 * Software overflow: while a set with software thresholds runs, ITIMER_PROF (the process's CPU
 * time, simulated) interrupts every PAPI_DEF_ITIMER_NS (default 1 ms); the handler reads the set
 * and calls the overflow handler once for each threshold period an event has passed since the
 * last call, with the interrupted pc. So the calls arrive up to one timer interval late (and the
 * pc is the timer's, not the event's), and the periods passed after the last tick before a stop
 * are not seen, as in PAPI: floor(count / threshold) calls less at most one interval's worth.
 *
 * Profiling: each overflow of the profiled event adds to the bucket of the interrupted pc, as
 * profil(3) maps it: bucket = ((pc - offset) / 2) * scale / 65536, in 16-, 32- or 64-bit buckets;
 * pcs outside every region are dropped. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <ucontext.h>

#include "papi_impl.h"

/* ---- software overflow ------------------------------------------------------------------- */

static long long itimer_ns = 1000000;
static int sw_set = -1; /* the set the timer serves (one at a time, as PAPI's itimer) */
static long long sw_next[PAPIX_MAX_EVENTS];

long long papix_itimer_ns(void) {
  return itimer_ns;
}

int papix_set_itimer_ns(long long ns) {
  if (ns <= 0) return PAPI_EINVAL;
  itimer_ns = ns;
  return PAPI_OK;
}

static void on_timer(int signo, siginfo_t* info, void* context) {
  (void)signo;
  (void)info;
  if (sw_set < 0) return;
  struct papix_set* s = &papix_sets[sw_set];
  if (!s->used || !(s->state & PAPI_RUNNING) || s->handler == NULL) return;
  long long values[PAPIX_MAX_EVENTS];
  if (papix_read(s, values) != PAPI_OK) return;
  const ucontext_t* uc = context;
  void* pc = (void*)(uintptr_t)uc->uc_mcontext.__gregs[0];
  for (int i = 0; i < s->n; ++i) {
    const long long t = s->ev[i].threshold;
    if (t <= 0) continue;
    while (values[i] >= sw_next[i]) {
      sw_next[i] += t;
      s->handler(sw_set, pc, 1LL << (s->ev[i].first & 63), context);
    }
  }
}

int papix_sw_start(int h) {
  struct papix_set* s = &papix_sets[h];
  for (int i = 0; i < s->n; ++i) sw_next[i] = s->ev[i].threshold;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_timer;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGPROF, &sa, NULL) != 0) return PAPI_ESYS;
  sw_set = h;
  struct itimerval it;
  it.it_interval.tv_sec = itimer_ns / 1000000000;
  it.it_interval.tv_usec = (itimer_ns % 1000000000) / 1000;
  if (it.it_interval.tv_sec == 0 && it.it_interval.tv_usec == 0) it.it_interval.tv_usec = 1;
  it.it_value = it.it_interval;
  return setitimer(ITIMER_PROF, &it, NULL) == 0 ? PAPI_OK : PAPI_ESYS;
}

void papix_sw_stop(int h) {
  if (sw_set != h) return;
  struct itimerval off;
  memset(&off, 0, sizeof off);
  setitimer(ITIMER_PROF, &off, NULL);
  sw_set = -1;
}

/* ---- profiling --------------------------------------------------------------------------- */

struct profile {
  int set, code; /* the profiled event (set -1: none) */
  PAPI_sprofil_t* regions;
  int count;
  int flags;
  unsigned random; /* PAPI_PROFIL_RANDOM's generator */
};

static struct profile profiles[PAPIX_MAX_SETS];

static void add_to_bucket(const PAPI_sprofil_t* r, int flags, unsigned long long index,
                          unsigned long long weight) {
  if (flags & PAPI_PROFIL_BUCKET_64) {
    unsigned long long* b = (unsigned long long*)r->pr_base + index;
    *b = *b + weight < *b ? ~0ULL : *b + weight;
  } else if (flags & PAPI_PROFIL_BUCKET_32) {
    unsigned* b = (unsigned*)r->pr_base + index;
    *b = *b + weight > 0xFFFFFFFFULL ? 0xFFFFFFFFu : (unsigned)(*b + weight);
  } else {
    unsigned short* b = (unsigned short*)r->pr_base + index;
    *b = *b + weight > 0xFFFFULL ? 0xFFFFu : (unsigned short)(*b + weight);
  }
}

static unsigned bucket_bytes(int flags) {
  return (flags & PAPI_PROFIL_BUCKET_64) ? 8 : (flags & PAPI_PROFIL_BUCKET_32) ? 4 : 2;
}

static void on_profile_overflow(int EventSet, void* address, long long vector, void* context) {
  (void)context;
  (void)vector;
  struct profile* p = &profiles[EventSet];
  if (p->set != EventSet || p->regions == NULL) return;
  if (p->flags & PAPI_PROFIL_RANDOM) {
    /* Drop a pseudo-random quarter of the samples (deterministic, as the runs are). */
    p->random = p->random * 1103515245u + 12345u;
    if (((p->random >> 16) & 3) == 0) return;
  }
  const unsigned long long pc = (unsigned long long)(uintptr_t)address;
  for (int k = 0; k < p->count; ++k) {
    const PAPI_sprofil_t* r = &p->regions[k];
    if (pc < (unsigned long long)r->pr_off) continue;
    const unsigned long long index =
        (((pc - (unsigned long long)r->pr_off) >> 1) * (unsigned long long)r->pr_scale) >> 16;
    if (index >= r->pr_size / bucket_bytes(p->flags)) continue;
    add_to_bucket(r, p->flags, index, 1);
    return;
  }
}

int PAPI_sprofil(PAPI_sprofil_t* prof, int profcnt, int EventSet, int EventCode, int threshold,
                 int flags) {
  if (!papix_initialized) return papix_error(PAPI_ENOINIT, __func__);
  if (EventSet < 0 || EventSet >= PAPIX_MAX_SETS || !papix_sets[EventSet].used) {
    return papix_error(PAPI_ENOEVST, __func__);
  }
  const int known = PAPI_PROFIL_POSIX | PAPI_PROFIL_RANDOM | PAPI_PROFIL_WEIGHTED |
                    PAPI_PROFIL_COMPRESS | PAPI_PROFIL_BUCKETS | PAPI_PROFIL_FORCE_SW;
  const int buckets = flags & PAPI_PROFIL_BUCKETS;
  if ((flags & ~known) != 0 || (buckets != 0 && (buckets & (buckets - 1)) != 0)) {
    return papix_error(PAPI_EINVAL, __func__);
  }
  if (threshold < 0 || (threshold > 0 && (prof == NULL || profcnt <= 0))) {
    return papix_error(PAPI_EINVAL, __func__);
  }
  struct profile* p = &profiles[EventSet];
  const int r = PAPI_overflow(EventSet, EventCode, threshold,
                              (flags & PAPI_PROFIL_FORCE_SW) ? PAPI_OVERFLOW_FORCE_SW : 0,
                              threshold > 0 ? on_profile_overflow : NULL);
  if (r != PAPI_OK) return r;
  if (threshold == 0) {
    memset(p, 0, sizeof *p);
    p->set = -1;
    papix_sets[EventSet].state &= ~PAPI_PROFILING;
    return PAPI_OK;
  }
  *p = (struct profile){EventSet, EventCode, prof, profcnt, flags, 1u};
  papix_sets[EventSet].state |= PAPI_PROFILING;
  return PAPI_OK;
}

int PAPI_profil(void* buf, unsigned bufsiz, vptr_t offset, unsigned scale, int EventSet,
                int EventCode, int threshold, int flags) {
  if (threshold > 0 && (buf == NULL || bufsiz == 0 || scale == 0)) {
    return papix_error(PAPI_EINVAL, __func__);
  }
  if (EventSet < 0 || EventSet >= PAPIX_MAX_SETS) return papix_error(PAPI_ENOEVST, __func__);
  /* The region lives with the set's profile (PAPI_sprofil keeps a pointer to it). */
  static PAPI_sprofil_t one[PAPIX_MAX_SETS];
  one[EventSet] = (PAPI_sprofil_t){buf, bufsiz, offset, scale};
  return PAPI_sprofil(&one[EventSet], 1, EventSet, EventCode, threshold, flags);
}
