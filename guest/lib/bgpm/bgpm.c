/* libbgpm: BGPM on an hpmsim bgq node (bgpm.h; docs/papi.md "BGPM"), over libhpmctr, which
 * drives the units through their register windows.
 *
 * How an event set counts. Applying a set programs one unit counter per event (per event of the
 * current group when multiplexed) and zeroes it. The units have one run bit each, shared by every
 * set on the unit, so a set's own start and stop are kept in software: a running set's value is
 * its accumulated count plus what its counters gained since its start (or last switch).
 *   - A PUnit set without thresholds or multiplexing is free-running: its counters run from
 *     apply, and Bgpm_Start and Bgpm_Stop only load them (the first load's cycle is the first
 *     counted, the second's the first not), taking no lock and storing nothing, so they cost
 *     the same in every thread whatever the others do.
 *   - Any other set starts and stops the unit: the unit runs while one of its sets runs (or a
 *     free-running set is applied). With one set on a unit this is exactly the hardware's start
 *     and stop: Bgpm_Start's store of the run bit is the first counted cycle, Bgpm_Stop's the
 *     first not counted; a set with thresholds on a core where a free-running set is applied
 *     keeps counting (and may interrupt) while stopped. The L2 and I/O units' counters lag the
 * events by up to a sweep (800 cycles): Bgpm_Stop waits 1,600 cycles after stopping them, as BGPM
 * does, so a read after a stop is final. The CNK unit counts from boot and is never stopped: its
 * sets take differences.
 *
 * Every call takes one process-wide lock, except reads of a running set, which are loads. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bgpm.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "bgpm_impl.h"

pthread_mutex_t bgpm_lock = PTHREAD_MUTEX_INITIALIZER;
struct bgpm_set bgpm_sets[BGPM_MAX_SETS];
static hpmctr_unit* units[BGPM_UNIT_SLOTS];
unsigned bgpm_runners[BGPM_UNIT_SLOTS];
unsigned bgpm_free_applied[BGPM_UNIT_SLOTS];

__thread int bgpm_inited __attribute__((tls_model("local-exec")));
__thread pid_t bgpm_tid __attribute__((
    tls_model("local-exec"))); /* gettid() once: a system call per control call would be counted */
static __thread int last_err;
static __thread unsigned short print_on_error = 1, exit_on_error = 1;

/* ---- errors ------------------------------------------------------------------------------ */

struct err_text {
  int code;
  const char* text;
};
static const struct err_text err_texts[] = {
    {BGPM_EOK, "operation successful"},
    {BGPM_EINTERNAL, "internal error"},
    {BGPM_ENOTIMPL, "operation or mode not implemented"},
    {BGPM_EINV_EVENT, "invalid event"},
    {BGPM_EINV_PARM, "invalid parameter"},
    {BGPM_ENOT_INIT, "Bgpm_Init has not been called on this thread"},
    {BGPM_ECTRRESERVED, "no counter left for the event"},
    {BGPM_EINV_EVT_IDX, "no event at this index of the event set"},
    {BGPM_EINV_OVF, "invalid overflow threshold"},
    {BGPM_EINITED, "Bgpm is already initialized on this thread"},
    {BGPM_ENOMEM, "out of memory"},
    {BGPM_EINV_SET_HANDLE, "invalid event set handle"},
    {BGPM_ECONF_UNIT, "event's unit conflicts with the unit of the event set"},
    {BGPM_EXHAUSTED, "unable to add event: counters exhausted"},
    {BGPM_EUNSUP_ATTRIB, "attribute not supported by this event set"},
    {BGPM_EUNSUP_OVERFLOW, "overflow not supported for this event"},
    {BGPM_ENO_OVERFLOW, "no overflow applied"},
    {BGPM_EARRAY_TOO_SMALL, "array too small"},
    {BGPM_ENOT_MUXED, "event set is not multiplexed"},
    {BGPM_ECONF_L2_COMBINE, "L2 sliced and combined events cannot be mixed"},
    {BGPM_ENO_CONFIG, "no events configured"},
    {BGPM_ENOT_EMPTY, "event set not empty"},
    {BGPM_EUNREC_EVTID, "unrecognized event id"},
    {BGPM_EINV_OP, "operation invalid for this event set"},
    {BGPM_ENOT_APPLIED, "event set is not applied"},
    {BGPM_EINV_L2_SLICE, "invalid L2 slice"},
    {BGPM_EES_FROZEN, "event set is frozen by a prior apply: no further changes allowed"},
    {BGPM_ENOT_CONTROL_THREAD, "only the thread that created the event set may control it"},
    {BGPM_EUPDATE_DISALLOWED, "update disallowed while the event set is running"},
    {BGPM_EMAX_EVTSETS, "maximum number of event sets reached"},
    {BGPM_ECTRS_IN_USE, "counters needed by the event set are in use by another event set"},
    {BGPM_EINV_WRT2OVF, "write invalid for an event with overflow"},
    {BGPM_ENOT_IN_RUN_MODE, "the event does not count in hpmsim's run mode (hpmsim events)"},
    {BGPM_WALREADY_STARTED, "shared counters are already started"},
    {BGPM_WALREADY_STOPPED, "shared counters are already stopped"},
};

const char* Bgpm_ErrStrg(int errnum) {
  for (unsigned i = 0; i < sizeof err_texts / sizeof err_texts[0]; ++i) {
    if (err_texts[i].code == errnum) return err_texts[i].text;
  }
  if (errnum < 0 && errnum > -1000) return strerror(-errnum);
  return "unknown Bgpm error";
}

int Bgpm_LastErr(void) {
  return last_err;
}

const char* Bgpm_LastErrStrg(void) {
  return Bgpm_ErrStrg(last_err);
}

unsigned short Bgpm_PrintOnError(unsigned short val) {
  const unsigned short old = print_on_error;
  print_on_error = val;
  return old;
}

unsigned short Bgpm_ExitOnError(unsigned short val) {
  const unsigned short old = exit_on_error;
  exit_on_error = val;
  return old;
}

/* An error (negative) or warning (positive) of call `fn`: recorded, printed and, for errors,
 * fatal unless the thread turned that off, as in BGPM. */
int bgpm_report(int err, const char* fn) {
  last_err = err;
  if (err == 0) return 0;
  if (print_on_error)
    fprintf(stderr, "Bgpm %s %d in %s: %s\n", err < 0 ? "error" : "warning", err, fn,
            Bgpm_ErrStrg(err));
  if (err < 0 && exit_on_error) exit(EXIT_FAILURE);
  return err;
}

/* ---- event table ------------------------------------------------------------------------- */

static const struct bgpm_event_entry* event_by_id(unsigned id) {
  unsigned lo = 0, hi = bgpm_event_count;
  while (lo < hi) {
    const unsigned mid = (lo + hi) / 2;
    if (bgpm_events[mid].id < id) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < bgpm_event_count && bgpm_events[lo].id == id ? &bgpm_events[lo] : NULL;
}

/* An event counted by a counter on each port of its unit: the L2's _SLICE events, and every
 * network event (a counter per link). */
static int is_slice_event(const struct bgpm_event_entry* e) {
  const size_t n = strlen(e->label);
  return (e->unit == BGPMUnitType_L2 && n > 6 && strcmp(e->label + n - 6, "_SLICE") == 0) ||
         e->unit == BGPMUnitType_NW;
}

const char* Bgpm_GetEventIdLabel(unsigned evtId) {
  const struct bgpm_event_entry* e = event_by_id(evtId);
  if (e == NULL) bgpm_report(BGPM_EINV_EVENT, __func__);
  return e == NULL ? NULL : e->label;
}

int Bgpm_GetEventIdFromLabel(const char* evtLabel) {
  if (evtLabel == NULL) return bgpm_report(BGPM_EINV_PARM, __func__);
  for (unsigned i = 0; i < bgpm_event_count; ++i) {
    if (strcasecmp(bgpm_events[i].label, evtLabel) == 0) return (int)bgpm_events[i].id;
  }
  return 0;
}

int Bgpm_HpmEventCountsInRunMode(unsigned evtId) {
  const struct bgpm_event_entry* e = event_by_id(evtId);
  if (e == NULL) return bgpm_report(BGPM_EINV_EVENT, __func__);
  return hpmctr_counts_in_run_mode(e->modes);
}

int Bgpm_GetEventIdInfo(unsigned evtId, Bgpm_EventInfo_t* pInfo) {
  const struct bgpm_event_entry* e = event_by_id(evtId);
  if (e == NULL) return bgpm_report(BGPM_EINV_EVENT, __func__);
  if (pInfo == NULL) return bgpm_report(BGPM_EINV_PARM, __func__);
  memset(pInfo, 0, sizeof *pInfo);
  pInfo->evtId = e->id;
  pInfo->label = e->label;
  pInfo->desc = e->desc;
  pInfo->unitType = (BgpmUnitTypes)e->unit;
  pInfo->scope = e->unit != BGPMUnitType_PUNIT ? UPC_SCOPE_NODE
                 : e->per_thread               ? UPC_SCOPE_THREAD
                                               : UPC_SCOPE_CORE;
  pInfo->selVal = e->input;
  return 0;
}

int Bgpm_GetLongDesc(unsigned evtId, char* pBuff, int* pLen) {
  const struct bgpm_event_entry* e = event_by_id(evtId);
  if (e == NULL) return bgpm_report(BGPM_EINV_EVENT, __func__);
  if (pBuff == NULL || pLen == NULL || *pLen <= 0) return bgpm_report(BGPM_EINV_PARM, __func__);
  const int need = (int)strlen(e->desc) + 1;
  if (*pLen < need) {
    *pLen = need;
    return bgpm_report(BGPM_EARRAY_TOO_SMALL, __func__);
  }
  memcpy(pBuff, e->desc, (size_t)need);
  *pLen = need;
  return 0;
}

/* ---- initialisation ---------------------------------------------------------------------- */

int Bgpm_Init(Bgpm_Modes mode) {
  if (bgpm_inited) return bgpm_report(BGPM_EINITED, __func__);
  if (mode == BGPM_MODE_DEFAULT) {
    const char* env = getenv("BGPM_MODE");
    mode = env != NULL ? (Bgpm_Modes)atoi(env) : BGPM_MODE_SWDISTRIB;
  }
  if (mode != BGPM_MODE_SWDISTRIB) return bgpm_report(BGPM_ENOTIMPL, __func__);
  if (hpmctr_machine() != HPMCTR_BGQ) return bgpm_report(BGPM_ENOTIMPL, __func__);
  bgpm_inited = 1;
  bgpm_tid = gettid();
  return 0;
}

int Bgpm_Disable(void) {
  if (!bgpm_inited) return bgpm_report(BGPM_ENOT_INIT, __func__);
  const pid_t me = bgpm_tid;
  pthread_mutex_lock(&bgpm_lock);
  for (unsigned h = 0; h < BGPM_MAX_SETS; ++h) {
    if (bgpm_sets[h].used && bgpm_sets[h].owner == me) {
      bgpm_release(&bgpm_sets[h]);
      bgpm_sets[h].used = 0;
    }
  }
  pthread_mutex_unlock(&bgpm_lock);
  bgpm_inited = 0;
  return 0;
}

/* ---- units ------------------------------------------------------------------------------- */

hpmctr_unit* bgpm_unit(BgpmUnitTypes type, int core, int* slot) {
  int k;
  enum hpmctr_kind kind;
  switch (type) {
    case BGPMUnitType_PUNIT: k = core, kind = HPMCTR_PUNIT; break;
    case BGPMUnitType_L2: k = 64, kind = HPMCTR_L2; break;
    case BGPMUnitType_IO: k = 65, kind = HPMCTR_IO; break;
    case BGPMUnitType_CNK: k = 66, kind = HPMCTR_CNK; break;
    case BGPMUnitType_NW: k = 67, kind = HPMCTR_NW; break;
    default: return NULL;
  }
  if (k < 0 || k >= BGPM_UNIT_SLOTS || (type == BGPMUnitType_PUNIT && k >= 64)) return NULL;
  *slot = k;
  if (units[k] != NULL) return units[k];
  hpmctr_unit* u = calloc(1, sizeof *u);
  if (u == NULL || hpmctr_open(u, kind, core) != 0) {
    free(u);
    return NULL;
  }
  units[k] = u;
  return u;
}

/* ---- event sets -------------------------------------------------------------------------- */

/* The set of a handle, checked; NULL with *err set otherwise. Under the lock. */
struct bgpm_set* bgpm_set_of(unsigned h, int control, int* err) {
  if (!bgpm_inited) {
    *err = BGPM_ENOT_INIT;
    return NULL;
  }
  if (h >= BGPM_MAX_SETS || !bgpm_sets[h].used) {
    *err = BGPM_EINV_SET_HANDLE;
    return NULL;
  }
  if (control && bgpm_sets[h].owner != bgpm_tid) {
    *err = BGPM_ENOT_CONTROL_THREAD;
    return NULL;
  }
  return &bgpm_sets[h];
}

int Bgpm_CreateEventSet(void) {
  if (!bgpm_inited) return bgpm_report(BGPM_ENOT_INIT, __func__);
  pthread_mutex_lock(&bgpm_lock);
  for (unsigned h = 0; h < BGPM_MAX_SETS; ++h) {
    if (!bgpm_sets[h].used) {
      memset(&bgpm_sets[h], 0, sizeof bgpm_sets[h]);
      bgpm_sets[h].used = 1;
      bgpm_sets[h].owner = bgpm_tid;
      bgpm_sets[h].mux_counter = -1;
      bgpm_sets[h].context = BGPM_CTX_BOTH;
      pthread_mutex_unlock(&bgpm_lock);
      return (int)h;
    }
  }
  pthread_mutex_unlock(&bgpm_lock);
  return bgpm_report(BGPM_EMAX_EVTSETS, __func__);
}

int Bgpm_NumEvents(unsigned hEvtSet) {
  if (!bgpm_inited || hEvtSet >= BGPM_MAX_SETS || !bgpm_sets[hEvtSet].used) return 0;
  return (int)bgpm_sets[hEvtSet].n;
}

int Bgpm_NumTargets(unsigned hEvtSet) {
  (void)hEvtSet;
  return 0; /* nothing is attached in the software-thread mode */
}

int Bgpm_GetUnitType(unsigned hEvtSet) {
  BGPM_LOCKED_SET(hEvtSet, 0);
  BGPM_UNLOCK_RETURN((int)s->unit);
}

int Bgpm_IsController(unsigned hEvtSet) {
  BGPM_LOCKED_SET(hEvtSet, 0);
  const int mine = s->owner == bgpm_tid;
  pthread_mutex_unlock(&bgpm_lock);
  return mine;
}

/* The events one multiplexing group (or an unmultiplexed set) may hold on a PUnit. */
static unsigned punit_capacity(const struct bgpm_set* s) {
  return s->mux ? s->per_group : BGPM_PUNIT_PER_SET;
}

static int add_locked(struct bgpm_set* s, unsigned id) {
  if (s->applied) return BGPM_EES_FROZEN;
  const struct bgpm_event_entry* e = event_by_id(id);
  if (e == NULL) return BGPM_EINV_EVENT;
  if (!hpmctr_counts_in_run_mode(e->modes)) return BGPM_ENOT_IN_RUN_MODE;
  if (s->n == 0 && s->unit == BGPMUnitType_UNDEF) {
    s->unit = (BgpmUnitTypes)e->unit;
    s->sliced = is_slice_event(e);
  }
  if (e->unit != s->unit) return BGPM_ECONF_UNIT;
  if (s->mux && s->n == 0) {
    /* BGPM multiplexes PUnit sets only; hpmsim's extension any unit, a group per its counters. */
    if (s->unit != BGPMUnitType_PUNIT && (!s->node_mux || is_slice_event(e))) {
      s->unit = BGPMUnitType_UNDEF;
      return BGPM_EUNSUP_ATTRIB;
    }
    if (s->node_mux) {
      s->per_group = s->unit == BGPMUnitType_L2    ? 6
                     : s->unit == BGPMUnitType_IO  ? 43
                     : s->unit == BGPMUnitType_CNK ? 32
                                                   : BGPMMuxMinEvts;
    }
  }
  if (s->unit == BGPMUnitType_L2 && is_slice_event(e) != s->sliced) return BGPM_ECONF_L2_COMBINE;
  if (s->n == BGPM_MAX_EVENTS) return BGPM_EXHAUSTED;
  if (s->unit == BGPMUnitType_PUNIT && !s->mux && s->n == BGPM_PUNIT_PER_SET) return BGPM_EXHAUSTED;
  if (s->unit == BGPMUnitType_L2 && !s->mux && s->n == 6) return BGPM_EXHAUSTED;
  if (s->unit == BGPMUnitType_IO && !s->mux && s->n == 43) return BGPM_EXHAUSTED;
  if (s->unit == BGPMUnitType_CNK && !s->mux && s->n == 32) return BGPM_EXHAUSTED;
  if (s->mux && s->n / s->per_group >= BGPM_MAX_GROUPS) {
    return BGPM_EXHAUSTED;
  }
  struct bgpm_ev* ev = &s->ev[s->n];
  memset(ev, 0, sizeof *ev);
  ev->e = e;
  ev->counter = -1;
  ev->set = (unsigned)(s - bgpm_sets);
  ev->group = s->mux ? s->n / punit_capacity(s) : 0;
  ++s->n;
  if (s->mux) s->groups = ev->group + 1;
  return 0;
}

int Bgpm_AddEvent(unsigned hEvtSet, unsigned eventId) {
  BGPM_LOCKED_SET(hEvtSet, 1);
  BGPM_UNLOCK_RETURN(add_locked(s, eventId));
}

int Bgpm_AddEventList(unsigned hEvtSet, unsigned* eventIds, unsigned num) {
  if (eventIds == NULL && num > 0) return bgpm_report(BGPM_EINV_PARM, __func__);
  BGPM_LOCKED_SET(hEvtSet, 1);
  for (unsigned i = 0; i < num; ++i) {
    const int r = add_locked(s, eventIds[i]);
    if (r != 0) BGPM_UNLOCK_RETURN(r);
  }
  BGPM_UNLOCK_RETURN(0);
}

const char* Bgpm_GetEventLabel(unsigned hEvtSet, unsigned evtIdx) {
  int err = 0;
  pthread_mutex_lock(&bgpm_lock);
  struct bgpm_set* s = bgpm_set_of(hEvtSet, 0, &err);
  const char* label = s != NULL && evtIdx < s->n ? s->ev[evtIdx].e->label : NULL;
  pthread_mutex_unlock(&bgpm_lock);
  if (label == NULL) bgpm_report(s == NULL ? err : BGPM_EINV_EVT_IDX, __func__);
  return label;
}

int Bgpm_GetEventId(unsigned hEvtSet, unsigned evtIdx) {
  BGPM_LOCKED_SET(hEvtSet, 0);
  if (evtIdx >= s->n) BGPM_UNLOCK_RETURN(BGPM_EINV_EVT_IDX);
  const int id = (int)s->ev[evtIdx].e->id;
  pthread_mutex_unlock(&bgpm_lock);
  return id;
}

int Bgpm_GetEventIndex(unsigned hEvtSet, unsigned evtId, unsigned startIdx) {
  BGPM_LOCKED_SET(hEvtSet, 0);
  unsigned i = startIdx;
  while (i < s->n && s->ev[i].e->id != evtId) ++i;
  const int r = (int)(i < s->n ? i : s->n);
  pthread_mutex_unlock(&bgpm_lock);
  return r;
}

int Bgpm_SetContext(unsigned hEvtSet, Bgpm_Context context) {
  BGPM_LOCKED_SET(hEvtSet, 1);
  if (s->unit != BGPMUnitType_PUNIT && s->unit != BGPMUnitType_UNDEF) {
    BGPM_UNLOCK_RETURN(BGPM_EUNSUP_ATTRIB);
  }
  if ((unsigned)context > BGPM_CTX_BOTH) BGPM_UNLOCK_RETURN(BGPM_EINV_PARM);
  /* The PUnit cannot tell guest user code from the simulated kernel's work (docs/papi.md): every
   * context counts both. */
  s->context = context == BGPM_CTX_DEFAULT ? BGPM_CTX_BOTH : context;
  BGPM_UNLOCK_RETURN(0);
}

int Bgpm_GetContext(unsigned hEvtSet, Bgpm_Context* pContext) {
  BGPM_LOCKED_SET(hEvtSet, 0);
  if (pContext == NULL) BGPM_UNLOCK_RETURN(BGPM_EINV_PARM);
  *pContext = s->context;
  BGPM_UNLOCK_RETURN(0);
}

int Bgpm_GetL2Combine(unsigned hEvtSet, int* pEnable) {
  BGPM_LOCKED_SET(hEvtSet, 0);
  if (s->unit != BGPMUnitType_L2) BGPM_UNLOCK_RETURN(BGPM_EUNSUP_ATTRIB);
  if (pEnable == NULL) BGPM_UNLOCK_RETURN(BGPM_EINV_PARM);
  *pEnable = !s->sliced;
  BGPM_UNLOCK_RETURN(0);
}
