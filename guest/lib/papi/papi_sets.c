/* libpapi: event sets over libbgpm (papi_impl.h). Each PAPI event set owns one BGPM event set
 * holding the native terms of its events, applied as soon as events are added, as PAPI's BG/Q
 * components do; so BGPM's restrictions apply underneath and are worked around exactly as seed
 * 001 describes:
 *   - PAPI_overflow on an applied (frozen) BGPM set: delete it, create a new one, rebuild it as it
 *     was, set the overflow (the threshold converted to the value BGPM programs into the
 *     counter: UINT64_MAX - threshold + 1) and apply;
 *   - PAPI_set_multiplex on a non-empty set: delete it, create a new empty one, enable
 *     multiplexing (Bgpm_SetMultiplex) and re-add its events.
 * A preset's value is computed from its terms (DERIVED_ADD, DERIVED_SUB, DERIVED_POSTFIX). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "papi_impl.h"

int papix_default_domain(void);

/* The calling thread's running event set of each component, or -1. */
static __thread int running_set[PAPIX_COMPONENTS] = {-1, -1, -1, -1, -1, -1, -1};

static struct papix_set* set_of(int h) {
  if (h < 0 || h >= PAPIX_MAX_SETS || !papix_sets[h].used) return NULL;
  return &papix_sets[h];
}

#define SET_OR_FAIL(h)                                                \
  if (!papix_initialized) return papix_error(PAPI_ENOINIT, __func__); \
  struct papix_set* s = set_of(h);                                    \
  if (s == NULL) return papix_error(PAPI_ENOEVST, __func__);

int papix_rebuilds(int h) {
  const struct papix_set* s = set_of(h);
  return s != NULL ? s->rebuilds : -1;
}

/* Taking a free slot of the set table (threads create sets concurrently). */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

int PAPI_create_eventset(int* EventSet) {
  if (!papix_initialized) return papix_error(PAPI_ENOINIT, __func__);
  if (EventSet == NULL || *EventSet != PAPI_NULL) return papix_error(PAPI_EINVAL, __func__);
  pthread_mutex_lock(&table_lock);
  for (int h = 0; h < PAPIX_MAX_SETS; ++h) {
    if (papix_sets[h].used) continue;
    struct papix_set* s = &papix_sets[h];
    memset(s, 0, sizeof *s);
    s->used = 1;
    s->cidx = -1;
    s->state = PAPI_STOPPED;
    s->bgpm = -1;
    s->domain = papix_default_domain();
    s->granularity = PAPI_GRN_THR;
    *EventSet = h;
    pthread_mutex_unlock(&table_lock);
    return PAPI_OK;
  }
  pthread_mutex_unlock(&table_lock);
  return papix_error(PAPI_ENOMEM, __func__);
}

int PAPI_assign_eventset_component(int EventSet, int cidx) {
  SET_OR_FAIL(EventSet);
  if (cidx < 0 || cidx >= PAPIX_COMPONENTS) return papix_error(PAPI_ENOCMP, __func__);
  if (s->cidx >= 0 && s->cidx != cidx) return papix_error(PAPI_EINVAL, __func__);
  if (papix_components[cidx].info.disabled) return papix_error(PAPI_ECMP_DISABLED, __func__);
  s->cidx = cidx;
  return PAPI_OK;
}

int PAPI_get_eventset_component(int EventSet) {
  SET_OR_FAIL(EventSet);
  return s->cidx >= 0 ? s->cidx : papix_error(PAPI_ENOCMP, __func__);
}

/* Builds the set's BGPM event set from scratch (the rebuild of seed 001's work-arounds):
 * multiplexing first (on the empty set), then every native term, then the overflows, then
 * apply. A PAPI error, or PAPI_OK. */
static int build(struct papix_set* s) {
  papix_bgpm_thread();
  s->plain = !s->multiplex && s->natives == s->n;
  for (int i = 0; i < s->n && s->plain; ++i) s->plain = s->ev[i].how == PAPIX_NOT_DERIVED;
  if (s->bgpm >= 0) {
    Bgpm_DeleteEventSet((unsigned)s->bgpm);
    ++s->rebuilds;
  }
  s->bgpm = -1;
  s->fast = 0;
  if (s->natives == 0 || s->cidx == PAPIX_SIM) return PAPI_OK; /* sim: read from its device */
  const int h = Bgpm_CreateEventSet();
  if (h < 0) return papix_from_bgpm(h);
  s->bgpm = h;
  s->bgpm_tid = papix_tid();
  int r = 0;
  if (s->multiplex) {
    /* The multiplexing period: PAPI's default interval, 100 us of simulated time. BGPM
     * multiplexes PUnit sets; the other units' PAPI multiplexes itself, here through hpmsim's
     * extension of BGPM that does the same for them. */
    const uint64_t period = (uint64_t)papix_mhz() * 100;
    r = s->cidx == 0 ? Bgpm_SetMultiplex((unsigned)h, period, BGPM_NOTNORMAL)
                     : Bgpm_HpmSetNodeMultiplex((unsigned)h, period);
  }
  if (r == 0) r = Bgpm_AddEventList((unsigned)h, s->native_ids, (unsigned)s->natives);
  for (int i = 0; r == 0 && i < s->n; ++i) {
    const struct papix_event* ev = &s->ev[i];
    if (ev->threshold > 0 && !s->overflow_sw) {
      /* Seed 001's conversion: PAPI's threshold to the value BGPM programs into the counter. */
      r = Bgpm_SetOverflow((unsigned)h, (unsigned)ev->first,
                           UINT64_MAX - (uint64_t)ev->threshold + 1);
    }
  }
  /* PAPI's NWUnit component counts every link: it attaches them all (seed 001: "all network
   * links are attached and this is hard-coded in the PAPI NWUnit component"). */
  if (r == 0 && s->cidx == papix_cidx_of_unit(BGPMUnitType_NW)) {
    r = Bgpm_Attach((unsigned)h, UPC_NW_ALL_LINKS, 0);
  }
  if (r == 0) r = Bgpm_Apply((unsigned)h);
  s->fast = r == 0 && s->plain;
  return papix_from_bgpm(r);
}

static void overflow_trampoline(int hEvtSet, uint64_t address, uint64_t ovfVector,
                                const ucontext_t* context);

/* The set's BGPM set is usable by the calling thread (a set created by another thread is built
 * again here: BGPM lets only its creator control a set). */
static int own(struct papix_set* s) {
  if (s->bgpm >= 0 && s->bgpm_tid == papix_tid()) return PAPI_OK;
  const int r = build(s);
  if (r == PAPI_OK && s->bgpm >= 0 && s->handler != NULL) {
    Bgpm_SetOverflowHandler((unsigned)s->bgpm, overflow_trampoline);
  }
  return r;
}

/* The event's component; PAPI_ENOEVNT (or disabled) otherwise. */
static int component_of(int code) {
  if (IS_PRESET(code)) return papix_preset(code) != NULL ? 0 : PAPI_ENOEVNT;
  const int cidx = papix_native_cidx(code);
  return cidx >= 0 ? cidx : PAPI_ENOEVNT;
}

int PAPI_add_event(int EventSet, int EventCode) {
  SET_OR_FAIL(EventSet);
  if (s->state & PAPI_RUNNING) return papix_error(PAPI_EISRUN, __func__);
  const int cidx = component_of(EventCode);
  if (cidx < 0) return papix_error(cidx, __func__);
  if (s->cidx >= 0 && s->cidx != cidx) return papix_error(PAPI_EINVAL, __func__);
  for (int i = 0; i < s->n; ++i) {
    if (s->ev[i].code == EventCode) return papix_error(PAPI_ECNFLCT, __func__);
  }
  if (s->n == PAPIX_MAX_EVENTS) return papix_error(PAPI_ECOUNT, __func__);
  struct papix_event ev = {EventCode, PAPIX_NOT_DERIVED, s->natives, 1, papix_preset(EventCode), 0};
  if (ev.preset != NULL) {
    ev.terms = ev.preset->terms;
    ev.how = strcmp(ev.preset->derived, "DERIVED_ADD") == 0       ? PAPIX_ADD
             : strcmp(ev.preset->derived, "DERIVED_SUB") == 0     ? PAPIX_SUB
             : strcmp(ev.preset->derived, "DERIVED_POSTFIX") == 0 ? PAPIX_POSTFIX
                                                                  : PAPIX_NOT_DERIVED;
  }
  if (s->natives + ev.terms > PAPIX_MAX_NATIVES) return papix_error(PAPI_ECOUNT, __func__);
  for (int t = 0; t < ev.terms; ++t) {
    s->native_ids[s->natives + t] =
        ev.preset != NULL   ? (unsigned)Bgpm_GetEventIdFromLabel(ev.preset->natives[t])
        : cidx == PAPIX_SIM ? papix_native_id(EventCode) - 1 /* the truth's register row */
                            : papix_native_id(EventCode);
  }
  const int was_cidx = s->cidx;
  s->cidx = cidx;
  s->natives += ev.terms;
  s->ev[s->n++] = ev;
  /* Apply now, as PAPI's BG/Q components do (the BGPM set is then frozen). */
  const int r = build(s);
  if (r != PAPI_OK) {
    --s->n;
    s->natives -= ev.terms;
    s->cidx = s->n > 0 ? cidx : was_cidx;
    build(s);
    return papix_error(r, __func__);
  }
  if (s->handler != NULL && s->bgpm >= 0) {
    Bgpm_SetOverflowHandler((unsigned)s->bgpm, overflow_trampoline);
  }
  return PAPI_OK;
}

int PAPI_add_named_event(int EventSet, const char* EventName) {
  int code;
  const int r = PAPI_event_name_to_code(EventName, &code);
  return r != PAPI_OK ? r : PAPI_add_event(EventSet, code);
}

int PAPI_add_events(int EventSet, int* Events, int number) {
  if (Events == NULL || number <= 0) return papix_error(PAPI_EINVAL, __func__);
  for (int i = 0; i < number; ++i) {
    const int r = PAPI_add_event(EventSet, Events[i]);
    if (r != PAPI_OK) return i > 0 ? i : r; /* PAPI: how many were added, or the error */
  }
  return PAPI_OK;
}

int PAPI_remove_event(int EventSet, int EventCode) {
  SET_OR_FAIL(EventSet);
  if (s->state & PAPI_RUNNING) return papix_error(PAPI_EISRUN, __func__);
  int i = 0;
  while (i < s->n && s->ev[i].code != EventCode) ++i;
  if (i == s->n) return papix_error(PAPI_EINVAL, __func__);
  const struct papix_event gone = s->ev[i];
  memmove(&s->native_ids[gone.first], &s->native_ids[gone.first + gone.terms],
          (size_t)(s->natives - gone.first - gone.terms) * sizeof s->native_ids[0]);
  s->natives -= gone.terms;
  memmove(&s->ev[i], &s->ev[i + 1], (size_t)(s->n - i - 1) * sizeof s->ev[0]);
  --s->n;
  for (int k = i; k < s->n; ++k) s->ev[k].first -= gone.terms;
  if (s->n == 0 && !s->multiplex) s->cidx = s->cidx; /* stays assigned, as in PAPI */
  return papix_error(build(s), __func__);
}

int PAPI_remove_named_event(int EventSet, const char* EventName) {
  int code;
  const int r = PAPI_event_name_to_code(EventName, &code);
  return r != PAPI_OK ? r : PAPI_remove_event(EventSet, code);
}

int PAPI_remove_events(int EventSet, int* Events, int number) {
  if (Events == NULL || number <= 0) return papix_error(PAPI_EINVAL, __func__);
  for (int i = 0; i < number; ++i) {
    const int r = PAPI_remove_event(EventSet, Events[i]);
    if (r != PAPI_OK) return i > 0 ? i : r;
  }
  return PAPI_OK;
}

int PAPI_num_events(int EventSet) {
  SET_OR_FAIL(EventSet);
  return s->n;
}

int PAPI_list_events(int EventSet, int* Events, int* number) {
  SET_OR_FAIL(EventSet);
  if (number == NULL || *number < 0 || (Events == NULL && *number > 0)) {
    return papix_error(PAPI_EINVAL, __func__);
  }
  for (int i = 0; i < s->n && i < *number; ++i) Events[i] = s->ev[i].code;
  *number = s->n;
  return PAPI_OK;
}

int PAPI_cleanup_eventset(int EventSet) {
  SET_OR_FAIL(EventSet);
  if (s->state & PAPI_RUNNING) return papix_error(PAPI_EISRUN, __func__);
  if (s->bgpm >= 0) Bgpm_DeleteEventSet((unsigned)s->bgpm);
  s->bgpm = -1;
  s->fast = 0;
  s->n = 0;
  s->natives = 0;
  s->multiplex = 0;
  s->handler = NULL;
  s->overflow_sw = 0;
  s->state = PAPI_STOPPED;
  return PAPI_OK;
}

int PAPI_destroy_eventset(int* EventSet) {
  if (!papix_initialized) return papix_error(PAPI_ENOINIT, __func__);
  if (EventSet == NULL) return papix_error(PAPI_EINVAL, __func__);
  struct papix_set* s = set_of(*EventSet);
  if (s == NULL) return papix_error(PAPI_ENOEVST, __func__);
  if (s->state & PAPI_RUNNING) return papix_error(PAPI_EISRUN, __func__);
  if (s->n > 0) return papix_error(PAPI_EINVAL, __func__); /* PAPI: clean it up first */
  if (s->bgpm >= 0) Bgpm_DeleteEventSet((unsigned)s->bgpm);
  s->fast = 0;
  pthread_mutex_lock(&table_lock);
  s->used = 0;
  pthread_mutex_unlock(&table_lock);
  *EventSet = PAPI_NULL;
  return PAPI_OK;
}

int PAPI_state(int EventSet, int* status) {
  SET_OR_FAIL(EventSet);
  if (status == NULL) return papix_error(PAPI_EINVAL, __func__);
  *status = s->state;
  return PAPI_OK;
}

/* ---- counting ---------------------------------------------------------------------------- */

/* Evaluates a DERIVED_POSTFIX formula ("N0|N1|-|N2|+|") over the term values. */
static long long postfix(const char* formula, const long long* terms, int count) {
  long long stack[16];
  int top = 0;
  for (const char* p = formula; *p != '\0';) {
    const char* end = strchr(p, '|');
    const size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
    if (len > 0) {
      if (p[0] == 'N') {
        const int t = atoi(p + 1);
        if (top < 16) stack[top++] = t >= 0 && t < count ? terms[t] : 0;
      } else if (top >= 2) {
        const long long b = stack[--top], a = stack[--top];
        stack[top++] = p[0] == '+'   ? a + b
                       : p[0] == '-' ? a - b
                       : p[0] == '*' ? a * b
                       : b != 0      ? a / b
                                     : 0;
      }
    }
    p += len + (end != NULL ? 1 : 0);
  }
  return top > 0 ? stack[top - 1] : 0;
}

/* Multiplexed: each term scaled to the whole time, as PAPI scales multiplexed counts. An
 * estimate can fall between two reads (a group counts a slower phase than the one before); the
 * value read never does, as in PAPI: a term keeps its last value until the estimate passes it. */
__attribute__((noinline)) static void scale(struct papix_set* s, uint64_t* raw, unsigned len) {
  Bgpm_MuxStats_t stats;
  Bgpm_GetMultiplex((unsigned)s->bgpm, &stats);
  for (unsigned k = 0; k < len; ++k) {
    if (stats.numGrps > 1) {
      const uint64_t mine = Bgpm_GetMuxEventElapsedCycles((unsigned)s->bgpm, k);
      raw[k] = mine == 0 ? 0 : (uint64_t)((unsigned __int128)raw[k] * stats.elapsedCycles / mine);
    }
    if (raw[k] < s->mpx_last[k]) raw[k] = s->mpx_last[k];
    s->mpx_last[k] = raw[k];
  }
}

/* A derived preset's value from its terms. */
__attribute__((noinline)) static long long derive(const struct papix_event* ev, const uint64_t* t) {
  long long v = (long long)t[0];
  switch (ev->how) {
    case PAPIX_NOT_DERIVED: break;
    case PAPIX_ADD:
      for (int k = 1; k < ev->terms; ++k) v += (long long)t[k];
      break;
    case PAPIX_SUB:
      for (int k = 1; k < ev->terms; ++k) v -= (long long)t[k];
      break;
    case PAPIX_POSTFIX: {
      long long terms[12];
      for (int k = 0; k < ev->terms; ++k) terms[k] = (long long)t[k];
      v = postfix(ev->preset->postfix, terms, ev->terms);
      break;
    }
  }
  return v;
}

/* The events' values from the BGPM set (PAPI_read's path: kept short). */
int papix_read(struct papix_set* s, long long* values) {
  if (s->cidx == PAPIX_SIM) {
    const int running = (s->state & PAPI_RUNNING) != 0;
    for (int i = 0; i < s->n; ++i) {
      const uint64_t now = running ? papix_sim_value(s->native_ids[s->ev[i].first]) : 0;
      values[i] = (long long)(s->sim_acc[i] + (running ? now - s->sim_base[i] : 0));
    }
    return PAPI_OK;
  }
  if (s->bgpm < 0) {
    for (int i = 0; i < s->n; ++i) values[i] = 0;
    return PAPI_OK;
  }
  if (s->plain) {
    unsigned len = (unsigned)s->n;
    const int r = Bgpm_ReadEventList((unsigned)s->bgpm, (uint64_t*)values, &len);
    return r == 0 ? PAPI_OK : papix_from_bgpm(r);
  }
  uint64_t raw[PAPIX_MAX_NATIVES];
  unsigned len = PAPIX_MAX_NATIVES;
  const int r = Bgpm_ReadEventList((unsigned)s->bgpm, raw, &len);
  if (r != 0) return papix_from_bgpm(r);
  if (s->multiplex) scale(s, raw, len);
  for (int i = 0; i < s->n; ++i) {
    const struct papix_event* ev = &s->ev[i];
    values[i] =
        ev->how == PAPIX_NOT_DERIVED ? (long long)raw[ev->first] : derive(ev, &raw[ev->first]);
  }
  return PAPI_OK;
}

int PAPI_start(int EventSet) {
  SET_OR_FAIL(EventSet);
  if (s->state & PAPI_RUNNING) return papix_error(PAPI_EISRUN, __func__);
  if (s->n == 0) return papix_error(PAPI_EINVAL, __func__);
  /* One running event set per component per thread, as in PAPI. */
  const int other = running_set[s->cidx];
  if (other >= 0 && other != EventSet && papix_sets[other].used &&
      (papix_sets[other].state & PAPI_RUNNING)) {
    return papix_error(PAPI_EISRUN, __func__);
  }
  int r = PAPI_OK;
  if (s->cidx == PAPIX_SIM) { /* the truth: each value's start, then counting is reading */
    for (int i = 0; i < s->n; ++i) {
      s->sim_acc[i] = 0;
      s->sim_base[i] = papix_sim_value(s->native_ids[s->ev[i].first]);
    }
    s->state = (s->state & ~PAPI_STOPPED) | PAPI_RUNNING;
    running_set[s->cidx] = EventSet;
    if (s->overflow_sw && (s->state & PAPI_OVERFLOWING)) r = papix_sw_start(EventSet);
    return r == PAPI_OK ? PAPI_OK : papix_error(r, __func__);
  }
  r = own(s);
  if (r != PAPI_OK) return papix_error(r, __func__);
  if (s->multiplex) memset(s->mpx_last, 0, sizeof s->mpx_last);
  r = Bgpm_ResetStart((unsigned)s->bgpm);
  if (r < 0) return papix_error(papix_from_bgpm(r), __func__);
  s->state = (s->state & ~PAPI_STOPPED) | PAPI_RUNNING;
  running_set[s->cidx] = EventSet;
  if (s->overflow_sw && (s->state & PAPI_OVERFLOWING)) {
    r = papix_sw_start(EventSet);
    if (r != PAPI_OK) return papix_error(r, __func__);
  }
  return PAPI_OK;
}

int PAPI_stop(int EventSet, long long* values) {
  SET_OR_FAIL(EventSet);
  if (!(s->state & PAPI_RUNNING)) return papix_error(PAPI_ENOTRUN, __func__);
  papix_sw_stop(EventSet);
  if (s->cidx == PAPIX_SIM) {
    for (int i = 0; i < s->n; ++i) {
      s->sim_acc[i] += papix_sim_value(s->native_ids[s->ev[i].first]) - s->sim_base[i];
    }
    s->state = (s->state & ~PAPI_RUNNING) | PAPI_STOPPED;
    if (running_set[s->cidx] == EventSet) running_set[s->cidx] = -1;
    return values != NULL ? papix_read(s, values) : PAPI_OK;
  }
  const int r = Bgpm_Stop((unsigned)s->bgpm);
  if (r < 0) return papix_error(papix_from_bgpm(r), __func__);
  s->state = (s->state & ~PAPI_RUNNING) | PAPI_STOPPED;
  if (running_set[s->cidx] == EventSet) running_set[s->cidx] = -1;
  return values != NULL ? papix_error(papix_read(s, values), __func__) : PAPI_OK;
}

__attribute__((noinline)) static int read_slow(int EventSet, long long* values) {
  SET_OR_FAIL(EventSet);
  if (values == NULL) return papix_error(PAPI_EINVAL, "PAPI_read");
  const int r = papix_read(s, values);
  return r == PAPI_OK ? PAPI_OK : papix_error(r, "PAPI_read");
}

int PAPI_read(int EventSet, long long* values) {
  /* The hot path, a tail call: a plain set's values are its BGPM set's, read straight into
   * `values` (its n equals its BGPM set's, which Bgpm_ReadEventList stores back unchanged). A
   * valid BGPM set with room for its values cannot fail to read. */
  if ((unsigned)EventSet < PAPIX_MAX_SETS && papix_sets[EventSet].fast && values != NULL) {
    struct papix_set* p = &papix_sets[EventSet];
    return Bgpm_ReadEventList((unsigned)p->bgpm, (uint64_t*)values, (unsigned*)&p->n);
  }
  return read_slow(EventSet, values);
}

int PAPI_read_ts(int EventSet, long long* values, long long* cycles) {
  const int r = PAPI_read(EventSet, values);
  if (r == PAPI_OK && cycles != NULL) *cycles = PAPI_get_real_cyc();
  return r;
}

int PAPI_reset(int EventSet) {
  SET_OR_FAIL(EventSet);
  if (s->multiplex) memset(s->mpx_last, 0, sizeof s->mpx_last);
  if (s->cidx == PAPIX_SIM) {
    const int running = (s->state & PAPI_RUNNING) != 0;
    for (int i = 0; i < s->n; ++i) {
      s->sim_acc[i] = 0;
      if (running) s->sim_base[i] = papix_sim_value(s->native_ids[s->ev[i].first]);
    }
    return PAPI_OK;
  }
  if (s->bgpm < 0) return PAPI_OK;
  const int r = Bgpm_Reset((unsigned)s->bgpm);
  return r < 0 ? papix_error(papix_from_bgpm(r), __func__) : PAPI_OK;
}

int PAPI_accum(int EventSet, long long* values) {
  SET_OR_FAIL(EventSet);
  if (values == NULL) return papix_error(PAPI_EINVAL, __func__);
  long long now[PAPIX_MAX_EVENTS];
  const int r = papix_read(s, now);
  if (r != PAPI_OK) return papix_error(r, __func__);
  for (int i = 0; i < s->n; ++i) values[i] += now[i];
  return PAPI_reset(EventSet);
}

/* ---- overflow ---------------------------------------------------------------------------- */

static void overflow_trampoline(int hEvtSet, uint64_t address, uint64_t ovfVector,
                                const ucontext_t* context) {
  for (int h = 0; h < PAPIX_MAX_SETS; ++h) {
    struct papix_set* s = &papix_sets[h];
    if (!s->used || s->bgpm != hEvtSet || s->handler == NULL) continue;
    /* PAPI's overflow vector: a bit per native position of the overflowed events. */
    unsigned idx[64], len = 64;
    Bgpm_GetOverflowEventIndices((unsigned)hEvtSet, ovfVector, idx, &len);
    long long vector = 0;
    for (unsigned k = 0; k < len; ++k) {
      if (idx[k] < 63) vector |= 1LL << idx[k];
    }
    s->handler(h, (void*)(uintptr_t)address, vector, (void*)context);
    return;
  }
}

int PAPI_overflow(int EventSet, int EventCode, int threshold, int flags,
                  PAPI_overflow_handler_t handler) {
  SET_OR_FAIL(EventSet);
  if (s->state & PAPI_RUNNING) return papix_error(PAPI_EISRUN, __func__);
  if (threshold < 0) return papix_error(PAPI_EINVAL, __func__);
  int i = 0;
  while (i < s->n && s->ev[i].code != EventCode) ++i;
  if (i == s->n) return papix_error(PAPI_ENOEVNT, __func__);
  struct papix_event* ev = &s->ev[i];
  if (threshold > 0 && handler == NULL) return papix_error(PAPI_EINVAL, __func__);
  /* Hardware overflow counts one counter: not a derived event's sum. */
  if (ev->terms != 1 && !(flags & PAPI_OVERFLOW_FORCE_SW))
    return papix_error(PAPI_EINVAL, __func__);
  const int sw = (flags & PAPI_OVERFLOW_FORCE_SW) != 0;
  int others = 0;
  for (int k = 0; k < s->n; ++k) others |= k != i && s->ev[k].threshold > 0;
  if (threshold > 0 && others && sw != s->overflow_sw) {
    return papix_error(PAPI_ECOMBO, __func__); /* one kind of overflow per set */
  }
  if (threshold > 0 && !sw && !papix_components[s->cidx].info.hardware_intr) {
    return papix_error(PAPI_ECMP, __func__);
  }
  if (threshold > 0) s->overflow_sw = sw;
  if (s->multiplex && threshold > 0) return papix_error(PAPI_ECOMBO, __func__);
  ev->threshold = threshold;
  int any = 0;
  for (int k = 0; k < s->n; ++k) any |= s->ev[k].threshold > 0;
  s->handler = any ? handler : NULL;
  if (any) {
    s->state |= PAPI_OVERFLOWING;
  } else {
    s->state &= ~PAPI_OVERFLOWING;
  }
  /* Seed 001: the applied BGPM set is frozen, so it is deleted, rebuilt as it was with the
   * overflow set, and applied again. */
  const int r = build(s);
  if (r != PAPI_OK) return papix_error(r, __func__);
  if (s->bgpm >= 0 && s->handler != NULL) {
    Bgpm_SetOverflowHandler((unsigned)s->bgpm, overflow_trampoline);
  }
  return PAPI_OK;
}

int PAPI_get_overflow_event_index(int EventSet, long long overflow_vector, int* array,
                                  int* number) {
  SET_OR_FAIL(EventSet);
  if (array == NULL || number == NULL || *number <= 0) return papix_error(PAPI_EINVAL, __func__);
  int found = 0;
  for (int i = 0; i < s->n && found < *number; ++i) {
    const int pos = s->ev[i].first;
    if (pos < 63 && (overflow_vector >> pos & 1)) array[found++] = i;
  }
  *number = found;
  return PAPI_OK;
}

/* ---- multiplexing ------------------------------------------------------------------------ */

int PAPI_multiplex_init(void) {
  return papix_initialized ? PAPI_OK : papix_error(PAPI_ENOINIT, __func__);
}

int PAPI_set_multiplex(int EventSet) {
  SET_OR_FAIL(EventSet);
  if (s->state & PAPI_RUNNING) return papix_error(PAPI_EISRUN, __func__);
  if (s->multiplex) return papix_error(PAPI_EINVAL, __func__);
  if (s->cidx < 0) return papix_error(PAPI_EINVAL, __func__); /* assign a component first */
  if (s->state & PAPI_OVERFLOWING) return papix_error(PAPI_ECOMBO, __func__);
  s->multiplex = 1;
  s->state |= PAPI_MULTIPLEXING;
  /* Seed 001: BGPM multiplexes only an empty set, so a non-empty one is deleted, created empty,
   * made multiplexed and rebuilt. */
  const int r = build(s);
  if (r != PAPI_OK) {
    s->multiplex = 0;
    s->state &= ~PAPI_MULTIPLEXING;
    build(s);
    return papix_error(r, __func__);
  }
  return PAPI_OK;
}

int PAPI_get_multiplex(int EventSet) {
  SET_OR_FAIL(EventSet);
  return s->multiplex;
}
