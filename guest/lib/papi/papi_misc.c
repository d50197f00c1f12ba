/* libpapi: the rest of PAPI 7's calls. The rate helpers (PAPI_flops_rate, PAPI_flips_rate,
 * PAPI_ipc, PAPI_epc, PAPI_rate_stop) over a per-thread event set; PAPI_write; the event's
 * component; attach and the device queries, which the node's components do not offer (their
 * PAPI errors, as PAPI gives them for components without them). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <string.h>

#include "papi_impl.h"

/* ---- rates ------------------------------------------------------------------------------- */

/* One rate helper's measurement per thread: its events, from the first call on. */
struct rate {
  int set;    /* PAPI_NULL: none running */
  int kind;   /* which helper started it: its calls may not mix */
  int events; /* how many (PAPI_epc: 3) */
  long long start_usec, start_vusec, last_usec;
  long long last[3];
};

static __thread struct rate rate = {PAPI_NULL, 0, 0, 0, 0, 0, {0, 0, 0}};

enum { kFlops = 1, kFlips, kIpc, kEpc };

/* Starts (first call) or reads (later calls) the thread's rate set of `codes`; rtime and ptime
 * in seconds since the start, values since the start, and the real time since the last call. */
static int rate_read(int kind, const int* codes, int n, float* rtime, float* ptime,
                     long long* values, float* since_last_usec) {
  if (!papix_initialized && PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
    return PAPI_EMISC;
  }
  if (rate.set != PAPI_NULL && rate.kind != kind) return PAPI_EINVAL; /* stop the other first */
  const long long now = PAPI_get_real_usec(), vnow = PAPI_get_virt_usec();
  if (rate.set == PAPI_NULL) {
    int set = PAPI_NULL;
    int r = PAPI_create_eventset(&set);
    for (int i = 0; r == PAPI_OK && i < n; ++i) r = PAPI_add_event(set, codes[i]);
    if (r == PAPI_OK) r = PAPI_start(set);
    if (r != PAPI_OK) {
      PAPI_cleanup_eventset(set);
      PAPI_destroy_eventset(&set);
      return r;
    }
    rate = (struct rate){set, kind, n, now, vnow, now, {0, 0, 0}};
    *rtime = *ptime = 0;
    for (int i = 0; i < n; ++i) values[i] = 0;
    *since_last_usec = 0;
    return PAPI_OK;
  }
  const int r = PAPI_read(rate.set, values);
  if (r != PAPI_OK) return r;
  *rtime = (float)(now - rate.start_usec) / 1e6f;
  *ptime = (float)(vnow - rate.start_vusec) / 1e6f;
  *since_last_usec = (float)(now - rate.last_usec);
  rate.last_usec = now;
  return PAPI_OK;
}

/* The per-microsecond rate of `count` since the last call, given its count then. */
static float per_usec(long long count, long long before, float usec) {
  return usec > 0 ? (float)(count - before) / usec : 0.0f;
}

static int fp_rate(int kind, int event, float* rtime, float* ptime, long long* count,
                   float* mrate) {
  if (rtime == NULL || ptime == NULL || count == NULL || mrate == NULL) return PAPI_EINVAL;
  const int code = event != 0 ? event : kind == kFlops ? PAPI_FP_OPS : PAPI_FP_INS;
  long long v[1];
  float usec;
  const int r = rate_read(kind, &code, 1, rtime, ptime, v, &usec);
  if (r != PAPI_OK) return r;
  *mrate = per_usec(v[0], rate.last[0], usec); /* per microsecond: millions per second */
  rate.last[0] = v[0];
  *count = v[0];
  return PAPI_OK;
}

int PAPI_flops_rate(int event, float* rtime, float* ptime, long long* flpops, float* mflops) {
  return fp_rate(kFlops, event, rtime, ptime, flpops, mflops);
}

int PAPI_flips_rate(int event, float* rtime, float* ptime, long long* flpins, float* mflips) {
  return fp_rate(kFlips, event, rtime, ptime, flpins, mflips);
}

/* PAPI_ipc and PAPI_epc: `code`'s count since the first call, and its rate per cycle since the
 * last call, into *count and *per_cycle; *cycles gets the cycles since the first call. */
static int per_cycle(int kind, int code, float* rtime, float* ptime, long long* count,
                     long long* cycles, float* per_cycle_rate) {
  const int codes[2] = {code, PAPI_TOT_CYC};
  long long v[2];
  float usec;
  const int r = rate_read(kind, codes, 2, rtime, ptime, v, &usec);
  if (r != PAPI_OK) return r;
  const long long elapsed = v[1] - rate.last[1];
  *per_cycle_rate = elapsed > 0 ? (float)(v[0] - rate.last[0]) / (float)elapsed : 0.0f;
  rate.last[0] = v[0];
  rate.last[1] = v[1];
  *count = v[0];
  *cycles = v[1];
  return PAPI_OK;
}

int PAPI_ipc(float* rtime, float* ptime, long long* ins, float* ipc) {
  if (rtime == NULL || ptime == NULL || ins == NULL || ipc == NULL) return PAPI_EINVAL;
  long long cycles;
  return per_cycle(kIpc, PAPI_TOT_INS, rtime, ptime, ins, &cycles, ipc);
}

int PAPI_epc(int event, float* rtime, float* ptime, long long* ref, long long* core, long long* evt,
             float* epc) {
  if (rtime == NULL || ptime == NULL || ref == NULL || core == NULL || evt == NULL || epc == NULL) {
    return PAPI_EINVAL;
  }
  const int r = per_cycle(kEpc, event != 0 ? event : PAPI_TOT_INS, rtime, ptime, evt, core, epc);
  if (r == PAPI_OK) *ref = *core; /* the reference cycles are the core's (one clock here) */
  return r;
}

int PAPI_rate_stop(void) {
  if (rate.set == PAPI_NULL) return PAPI_ENOTRUN;
  long long values[3];
  PAPI_stop(rate.set, values);
  PAPI_cleanup_eventset(rate.set);
  PAPI_destroy_eventset(&rate.set);
  memset(&rate, 0, sizeof rate);
  rate.set = PAPI_NULL;
  return PAPI_OK;
}

/* ---- the rest ---------------------------------------------------------------------------- */

int PAPI_get_event_component(int EventCode) {
  if (!papix_initialized) return papix_error(PAPI_ENOINIT, __func__);
  if (IS_PRESET(EventCode)) return papix_preset(EventCode) != NULL ? 0 : PAPI_ENOEVNT;
  const int cidx = papix_native_cidx(EventCode);
  return cidx >= 0 ? cidx : papix_error(PAPI_ENOEVNT, __func__);
}

int PAPI_write(int EventSet, long long* values) {
  if (!papix_initialized) return papix_error(PAPI_ENOINIT, __func__);
  if (EventSet < 0 || EventSet >= PAPIX_MAX_SETS || !papix_sets[EventSet].used) {
    return papix_error(PAPI_ENOEVST, __func__);
  }
  const struct papix_set* s = &papix_sets[EventSet];
  if (values == NULL) return papix_error(PAPI_EINVAL, __func__);
  /* A counter takes a value; a derived event's terms or the truth's statistics do not. */
  if (s->bgpm < 0 || !s->plain) return papix_error(PAPI_ECMP, __func__);
  for (int i = 0; i < s->n; ++i) {
    const int r = Bgpm_WriteEvent((unsigned)s->bgpm, (unsigned)s->ev[i].first, (uint64_t)values[i]);
    if (r != 0) return papix_error(papix_from_bgpm(r), __func__);
  }
  return PAPI_OK;
}

/* The node's components count the threads that start their sets (BGPM's software-thread
 * mode): none attaches to another thread or process (their info's attach is 0). */
int PAPI_attach(int EventSet, unsigned long tid) {
  (void)tid;
  if (!papix_initialized) return papix_error(PAPI_ENOINIT, __func__);
  if (EventSet < 0 || EventSet >= PAPIX_MAX_SETS || !papix_sets[EventSet].used) {
    return papix_error(PAPI_ENOEVST, __func__);
  }
  return papix_error(PAPI_ECMP, __func__);
}

int PAPI_detach(int EventSet) {
  return PAPI_attach(EventSet, 0);
}
