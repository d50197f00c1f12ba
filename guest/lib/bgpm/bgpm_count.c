/* libbgpm: applying event sets to the units, counting, overflow and multiplexing (bgpm.c's
 * header comment says how a set counts). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <string.h>
#include <ucontext.h>

#include "bgpm_impl.h"

/* BGPM: L2 and I/O counters are final 1,600 cycles after a stop (two sweeps of 800). */
#define SLOW_STOP_CYCLES 1600

static int shared_unit(const struct bgpm_set* s) {
  return s->unit == BGPMUnitType_L2 || s->unit == BGPMUnitType_IO || s->unit == BGPMUnitType_NW;
}

/* The ports a set counts: every slice of an L2 sliced set, the attached links of a network
 * set. */
static int counts_port(const struct bgpm_set* s, unsigned k) {
  return s->unit != BGPMUnitType_NW || (s->links & UPC_NW_LINK_bit(k)) != 0;
}

/* The count of an event's counter now: a sliced set's sums its ports (port k's counter is
 * per_port x k + j). */
static uint64_t counter_now(const struct bgpm_set* s, const struct bgpm_ev* ev) {
  if (!s->sliced) return hpmctr_read(s->hw, ev->counter);
  uint64_t sum = 0;
  for (unsigned k = 0; k < s->hw->ports; ++k) {
    if (counts_port(s, k)) sum += hpmctr_read(s->hw, (int)(s->hw->per_port * k) + ev->counter);
  }
  return sum;
}

/* An event's raw count: what it accumulated plus its live interval's. */
static uint64_t raw_value(const struct bgpm_set* s, const struct bgpm_ev* ev) {
  if (!s->running || ev->counter < 0) return ev->acc;
  return ev->acc + (counter_now(s, ev) - ev->base);
}

/* Cycles group g has been counting (the current group's live interval included). */
static uint64_t group_elapsed(const struct bgpm_set* s, unsigned g) {
  uint64_t c = s->group_cycles[g];
  if (s->running && g == s->current) c += bgpm_rdcycle() - s->group_since;
  return c;
}

/* BGPM_NORMAL: a multiplexed event's count scaled to the longest time any group counted. */
static uint64_t value(const struct bgpm_set* s, const struct bgpm_ev* ev) {
  const uint64_t raw = raw_value(s, ev);
  if (!s->mux || !s->normalize || s->groups < 2) return raw;
  uint64_t longest = 0;
  for (unsigned g = 0; g < s->groups; ++g) {
    const uint64_t c = group_elapsed(s, g);
    if (c > longest) longest = c;
  }
  const uint64_t mine = group_elapsed(s, ev->group);
  if (mine == 0) return 0;
  return (uint64_t)((unsigned __int128)raw * longest / mine);
}

/* ---- programming ------------------------------------------------------------------------- */

static void on_overflow(hpmctr_unit* u, int counter, uint64_t count, uint64_t cycle, void* context,
                        void* arg) {
  (void)u;
  (void)count;
  (void)cycle;
  const struct bgpm_ev* ev = arg;
  const struct bgpm_set* s = &bgpm_sets[ev->set];
  if (s->handler == NULL) return;
  const ucontext_t* uc = context;
  /* The vector is the overflowed counters' mask, as the hardware's status register gives it. */
  s->handler((int)ev->set, (uint64_t)uc->uc_mcontext.__gregs[0], 1ULL << counter, uc);
}

static void switch_group(struct bgpm_set* s);

static void on_mux_period(hpmctr_unit* u, int counter, uint64_t count, uint64_t cycle,
                          void* context, void* arg) {
  (void)u;
  (void)counter;
  (void)count;
  (void)cycle;
  (void)context;
  struct bgpm_set* s = arg;
  /* In signal context: if the interrupted code holds the lock, this period's switch is skipped
   * (the next one switches). */
  if (pthread_mutex_trylock(&bgpm_lock) != 0) return;
  if (s->used && s->mux && s->applied) switch_group(s);
  pthread_mutex_unlock(&bgpm_lock);
}

/* The unit input an event of the set selects: a PUnit thread event the applying thread's own. */
static int input_of(const struct bgpm_set* s, const struct bgpm_ev* ev) {
  if (s->unit == BGPMUnitType_PUNIT && ev->e->per_thread) {
    return ev->e->input + 1024 * (s->thread + 1);
  }
  return ev->e->input;
}

static void unprogram_group(struct bgpm_set* s);

/* Programs the events of group g (every event when not multiplexed) on free counters, zeroed,
 * with their thresholds. 0, or a BGPM error (counters taken: nothing stays programmed). */
static int program_group(struct bgpm_set* s, unsigned g) {
  for (unsigned i = 0; i < s->n; ++i) {
    struct bgpm_ev* ev = &s->ev[i];
    if (ev->group != g) continue;
    const int c = s->sliced ? hpmctr_add_slices(s->hw, input_of(s, ev), HPMCTR_LEVEL_HIGH)
                            : hpmctr_add(s->hw, input_of(s, ev), HPMCTR_LEVEL_HIGH);
    if (c < 0) {
      unprogram_group(s);
      return BGPM_ECTRS_IN_USE;
    }
    ev->counter = c;
    ev->reg = s->sliced ? NULL : &s->hw->regs[s->hw->read_reg + (unsigned)c];
    ev->base = 0;
    if (ev->threshold != 0 && hpmctr_overflow(s->hw, c, 0 - ev->threshold, on_overflow, ev) != 0) {
      return BGPM_EINTERNAL;
    }
  }
  return 0;
}

/* Frees the counters of the set's programmed events. */
static void unprogram_group(struct bgpm_set* s) {
  for (unsigned i = 0; i < s->n; ++i) {
    struct bgpm_ev* ev = &s->ev[i];
    if (ev->counter < 0) continue;
    if (s->sliced) {
      for (unsigned k = 0; k < s->hw->ports; ++k) {
        hpmctr_remove(s->hw, (int)(s->hw->per_port * k) + ev->counter);
      }
    } else {
      hpmctr_remove(s->hw, ev->counter);
    }
    ev->counter = -1;
  }
}

/* The next multiplexing group takes the counters: the current group's counts are accumulated. */
static void switch_group(struct bgpm_set* s) {
  const uint64_t now = bgpm_rdcycle();
  for (unsigned i = 0; i < s->n; ++i) {
    struct bgpm_ev* ev = &s->ev[i];
    if (ev->counter >= 0) ev->acc = raw_value(s, ev);
  }
  if (s->running) s->group_cycles[s->current] += now - s->group_since;
  unprogram_group(s);
  s->current = (s->current + 1) % s->groups;
  ++s->switches;
  program_group(s, s->current); /* the counters the last group freed */
  s->group_since = bgpm_rdcycle();
}

/* A unit's run bit follows its running sets and its applied free-running ones (and hidden
 * multiplexing counters). */
static int slot_running(int slot) {
  return bgpm_runners[slot] != 0 || bgpm_free_applied[slot] != 0;
}

static void update_slot_run(hpmctr_unit* hw, int slot, int was_running) {
  const int running = slot_running(slot);
  if (running && !was_running) hpmctr_start(hw); /* the first cycle counted */
  if (!running && was_running) hpmctr_stop(hw);  /* the first cycle not counted */
}

static void update_run(const struct bgpm_set* s, int was_running) {
  update_slot_run(s->hw, s->slot, was_running);
}

static int unit_running(const struct bgpm_set* s) {
  return slot_running(s->slot);
}

void bgpm_release(struct bgpm_set* s) {
  if (!s->applied) return;
  const int was = unit_running(s);
  if (s->free_running) {
    --bgpm_free_applied[s->slot];
  } else if (s->running && s->unit != BGPMUnitType_CNK) {
    --bgpm_runners[s->slot];
  }
  if (s->unit != BGPMUnitType_CNK) update_run(s, was);
  s->free_running = 0;
  s->running = 0;
  s->fast = 0;
  unprogram_group(s);
  if (s->mux_counter >= 0) {
    hpmctr_remove(s->mux_hw, s->mux_counter);
    if (s->mux_hw != s->hw) {
      const int was = slot_running(s->mux_slot);
      --bgpm_free_applied[s->mux_slot];
      update_slot_run(s->mux_hw, s->mux_slot, was);
    }
  }
  s->mux_counter = -1;
  s->applied = 0;
}

int Bgpm_DeleteEventSet(unsigned hEvtSet) {
  BGPM_LOCKED_SET(hEvtSet, 1);
  bgpm_release(s);
  s->used = 0;
  BGPM_UNLOCK_RETURN(0);
}

int Bgpm_Apply(unsigned hEvtSet) {
  BGPM_LOCKED_SET(hEvtSet, 1);
  if (s->n == 0) BGPM_UNLOCK_RETURN(BGPM_ENO_CONFIG);
  if (s->running) BGPM_UNLOCK_RETURN(BGPM_EUPDATE_DISALLOWED);
  bgpm_release(s); /* applying again starts over */
  s->core = hpmctr_core();
  s->thread = hpmctr_thread();
  s->hw = bgpm_unit(s->unit, s->core, &s->slot);
  if (s->hw == NULL) BGPM_UNLOCK_RETURN(BGPM_EINTERNAL);
  if (s->unit == BGPMUnitType_L2) {
    /* The L2 unit's mode is node-wide: another applied L2 set in the other mode conflicts. */
    const int mode = (int)(s->hw->counters > s->hw->per_port);
    if (mode != s->sliced) {
      for (unsigned h = 0; h < BGPM_MAX_SETS; ++h) {
        const struct bgpm_set* o = &bgpm_sets[h];
        if (o != s && o->used && o->applied && o->unit == BGPMUnitType_L2) {
          BGPM_UNLOCK_RETURN(BGPM_ECONF_L2_COMBINE);
        }
      }
      if (hpmctr_l2_mode(s->hw, s->sliced) < 0) BGPM_UNLOCK_RETURN(BGPM_EINTERNAL);
    }
  }
  for (unsigned i = 0; i < s->n; ++i) s->ev[i].acc = 0;
  memset(s->group_cycles, 0, sizeof s->group_cycles);
  s->current = 0;
  s->switches = 0;
  const int r = program_group(s, 0);
  if (r != 0) BGPM_UNLOCK_RETURN(r);
  if (s->mux && s->mux_period != 0) {
    /* BGPM's hidden sixth counter of a group: the thread's cycles, interrupting every period. It
     * is on the thread's PUnit whatever the set's unit, and a node-wide set's keeps that PUnit
     * running from apply (group time accrues only while the set runs). */
    s->mux_hw = s->unit == BGPMUnitType_PUNIT
                    ? s->hw
                    : bgpm_unit(BGPMUnitType_PUNIT, s->core, &s->mux_slot);
    const int cycles = PEVT_CYCLES + 1024 * (s->thread + 1);
    s->mux_counter = s->mux_hw != NULL ? hpmctr_add(s->mux_hw, cycles, HPMCTR_LEVEL_HIGH) : -1;
    if (s->mux_counter < 0) {
      unprogram_group(s);
      BGPM_UNLOCK_RETURN(BGPM_ECTRS_IN_USE);
    }
    hpmctr_overflow(s->mux_hw, s->mux_counter, s->mux_period, on_mux_period, s);
    if (s->mux_hw != s->hw) {
      const int was = slot_running(s->mux_slot);
      ++bgpm_free_applied[s->mux_slot];
      update_slot_run(s->mux_hw, s->mux_slot, was);
    }
  }
  s->applied = 1;
  int thresholds = 0;
  for (unsigned i = 0; i < s->n; ++i) thresholds |= s->ev[i].threshold != 0;
  s->free_running = s->unit == BGPMUnitType_PUNIT && !s->mux && !thresholds;
  if (s->free_running) {
    const int was = unit_running(s);
    ++bgpm_free_applied[s->slot];
    update_run(s, was);
  }
  BGPM_UNLOCK_RETURN(0);
}

int Bgpm_Attach(unsigned hEvtSet, uint64_t targMask, uint64_t agentMask) {
  (void)agentMask;
  BGPM_LOCKED_SET(hEvtSet, 1);
  /* A network set counts the links of targMask (UPC_NW_LINK_bit). Attach for the hardware-thread
   * mode is not implemented (docs/papi.md). */
  if (s->unit != BGPMUnitType_NW) BGPM_UNLOCK_RETURN(BGPM_ENOTIMPL);
  if ((targMask & ~(uint64_t)UPC_NW_ALL_LINKS) != 0) BGPM_UNLOCK_RETURN(BGPM_EINV_PARM);
  const int again = s->links != 0;
  s->links = (unsigned)targMask;
  BGPM_UNLOCK_RETURN(again ? BGPM_WALREADY_ATTACHED : 0);
}

int Bgpm_Detach(unsigned hEvtSet) {
  BGPM_LOCKED_SET(hEvtSet, 1);
  if (s->unit != BGPMUnitType_NW || s->links == 0) BGPM_UNLOCK_RETURN(BGPM_WNOT_ATTACHED);
  s->links = 0;
  BGPM_UNLOCK_RETURN(0);
}

int Bgpm_NW_ReadLinkEvent(unsigned hEvtSet, unsigned evtIdx, UPC_NW_LinkMasks linkMask,
                          uint64_t* pValue) {
  BGPM_LOCKED_SET(hEvtSet, 0);
  if (s->unit != BGPMUnitType_NW) BGPM_UNLOCK_RETURN(BGPM_EINV_OP);
  if (evtIdx >= s->n) BGPM_UNLOCK_RETURN(BGPM_EINV_EVT_IDX);
  if (!s->applied) BGPM_UNLOCK_RETURN(BGPM_ENOT_APPLIED);
  if (pValue == NULL || ((unsigned)linkMask & ~(unsigned)UPC_NW_ALL_LINKS) != 0) {
    BGPM_UNLOCK_RETURN(BGPM_EINV_PARM);
  }
  /* The links' counters since apply (as Bgpm_L2_ReadEvent's slices). */
  uint64_t sum = 0;
  for (unsigned k = 0; k < s->hw->ports; ++k) {
    if ((unsigned)linkMask & UPC_NW_LINK_bit(k)) {
      sum += hpmctr_read(s->hw, (int)(s->hw->per_port * k) + s->ev[evtIdx].counter);
    }
  }
  *pValue = sum;
  BGPM_UNLOCK_RETURN(0);
}

static int start_locked(struct bgpm_set* s) {
  if (!s->applied) return BGPM_ENOT_APPLIED;
  if (s->running) return shared_unit(s) ? BGPM_WALREADY_STARTED : 0;
  for (unsigned i = 0; i < s->n; ++i) {
    struct bgpm_ev* ev = &s->ev[i];
    if (ev->counter >= 0) ev->base = counter_now(s, ev);
    ev->offset = ev->acc - ev->base;
  }
  s->running = 1;
  s->fast = !s->mux && !s->sliced;
  s->group_since = bgpm_rdcycle();
  int warning = 0;
  if (s->unit != BGPMUnitType_CNK && !s->free_running) {
    const int was = unit_running(s);
    if (bgpm_runners[s->slot]++ != 0 && shared_unit(s)) warning = BGPM_WALREADY_STARTED;
    update_run(s, was);
  }
  return warning;
}

/* The calling thread's own applied free-running set, or NULL: its start, stop and reset take no
 * lock (only its owner changes it) and store nothing (its counters run from apply), so they cost
 * the same in every thread whatever the others do. */
static struct bgpm_set* own_free_set(unsigned h) {
  if (h >= BGPM_MAX_SETS || !bgpm_inited) return NULL;
  struct bgpm_set* s = &bgpm_sets[h];
  return s->used && s->free_running && s->owner == bgpm_tid ? s : NULL;
}

/* Snapshots of a free-running set's counters (at most BGPM_PUNIT_PER_SET). Counter k's count is
 * what happened between its load in the start snapshot and its load in the stop snapshot. Both
 * snapshots run this same code: every register address is loaded first, then the twelve device
 * loads issue back to back with nothing between them (a set of fewer events loads its first
 * counter again), so each counter's window holds the same instructions and the same memory
 * accesses (the tail of one snapshot and the head of the other) and the counters of a set agree
 * exactly, as if started and stopped by one store. */
__attribute__((noinline)) static void free_snapshot(const struct bgpm_set* s, uint64_t* now) {
  const struct bgpm_ev* ev = s->ev;
  const unsigned n = s->n;
  uint64_t r[BGPM_PUNIT_PER_SET];
  for (unsigned i = 0; i < BGPM_PUNIT_PER_SET; ++i)
    r[i] = (uint64_t)(uintptr_t)ev[i < n ? i : 0].reg;
  uint64_t r0 = r[0], r1 = r[1], r2 = r[2], r3 = r[3], r4 = r[4], r5 = r[5], r6 = r[6], r7 = r[7],
           r8 = r[8], r9 = r[9], r10 = r[10], r11 = r[11];
  /* One block, so that nothing comes between the loads: each register holds a counter's address
   * and then its value. */
  __asm__ volatile(
      "ld %0, 0(%0)\n ld %1, 0(%1)\n ld %2, 0(%2)\n ld %3, 0(%3)\n ld %4, 0(%4)\n ld %5, 0(%5)\n"
      "ld %6, 0(%6)\n ld %7, 0(%7)\n ld %8, 0(%8)\n ld %9, 0(%9)\n ld %10, 0(%10)\n"
      "ld %11, 0(%11)"
      : "+r"(r0), "+r"(r1), "+r"(r2), "+r"(r3), "+r"(r4), "+r"(r5), "+r"(r6), "+r"(r7), "+r"(r8),
        "+r"(r9), "+r"(r10), "+r"(r11)
      :
      : "memory");
  const uint64_t all[BGPM_PUNIT_PER_SET] = {r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11};
  for (unsigned i = 0; i < n; ++i) now[i] = all[i];
}

static void free_start(struct bgpm_set* s) {
  if (s->running) return;
  uint64_t now[BGPM_MAX_EVENTS];
  free_snapshot(s, now);
  for (unsigned i = 0; i < s->n; ++i) {
    s->ev[i].base = now[i];
    s->ev[i].offset = s->ev[i].acc - now[i];
  }
  s->running = 1;
  s->fast = 1;
}

static void free_stop(struct bgpm_set* s) {
  if (!s->running) return;
  uint64_t now[BGPM_MAX_EVENTS];
  free_snapshot(s, now);
  s->fast = 0;
  s->running = 0;
  for (unsigned i = 0; i < s->n; ++i) s->ev[i].acc = s->ev[i].offset + now[i];
}

static void free_reset(struct bgpm_set* s) {
  uint64_t now[BGPM_MAX_EVENTS];
  if (s->running) free_snapshot(s, now);
  for (unsigned i = 0; i < s->n; ++i) {
    s->ev[i].acc = 0;
    if (s->running) {
      s->ev[i].base = now[i];
      s->ev[i].offset = 0 - now[i];
    }
  }
}

int Bgpm_Start(unsigned hEvtSet) {
  struct bgpm_set* f = own_free_set(hEvtSet);
  if (f != NULL) {
    free_start(f);
    return 0;
  }
  BGPM_LOCKED_SET(hEvtSet, 1);
  BGPM_UNLOCK_RETURN(start_locked(s));
}

int Bgpm_Stop(unsigned hEvtSet) {
  struct bgpm_set* f = own_free_set(hEvtSet);
  if (f != NULL) {
    free_stop(f);
    return 0;
  }
  BGPM_LOCKED_SET(hEvtSet, 1);
  if (!s->applied) BGPM_UNLOCK_RETURN(BGPM_ENOT_APPLIED);
  if (!s->running) BGPM_UNLOCK_RETURN(shared_unit(s) ? BGPM_WALREADY_STOPPED : 0);
  int warning = 0;
  if (s->unit != BGPMUnitType_CNK && !s->free_running) {
    const int was = unit_running(s);
    --bgpm_runners[s->slot];
    update_run(s, was);
    if (shared_unit(s) && !unit_running(s)) {
      const uint64_t until = bgpm_rdcycle() + SLOW_STOP_CYCLES;
      while (bgpm_rdcycle() < until) {
      }
    } else if (shared_unit(s)) {
      warning = BGPM_WALREADY_STOPPED;
    }
  }
  for (unsigned i = 0; i < s->n; ++i) s->ev[i].acc = raw_value(s, &s->ev[i]);
  s->group_cycles[s->current] += bgpm_rdcycle() - s->group_since;
  s->running = 0;
  s->fast = 0;
  BGPM_UNLOCK_RETURN(warning);
}

static int reset_locked(struct bgpm_set* s) {
  if (!s->applied) return BGPM_ENOT_APPLIED;
  for (unsigned i = 0; i < s->n; ++i) {
    struct bgpm_ev* ev = &s->ev[i];
    ev->acc = 0;
    if (ev->counter < 0) continue;
    ev->base = counter_now(s, ev);
    ev->offset = 0 - ev->base;
    /* A threshold counts its period from now on. */
    if (ev->threshold != 0) hpmctr_overflow(s->hw, ev->counter, 0 - ev->threshold, on_overflow, ev);
  }
  memset(s->group_cycles, 0, sizeof s->group_cycles);
  s->group_since = bgpm_rdcycle();
  s->switches = 0;
  return 0;
}

int Bgpm_Reset(unsigned hEvtSet) {
  struct bgpm_set* f = own_free_set(hEvtSet);
  if (f != NULL) {
    free_reset(f);
    return 0;
  }
  BGPM_LOCKED_SET(hEvtSet, 1);
  BGPM_UNLOCK_RETURN(reset_locked(s));
}

int Bgpm_ResetStart(unsigned hEvtSet) {
  struct bgpm_set* f = own_free_set(hEvtSet);
  if (f != NULL) {
    if (f->running) {
      free_reset(f);
    } else {
      for (unsigned i = 0; i < f->n; ++i) f->ev[i].acc = 0;
      free_start(f);
    }
    return 0;
  }
  BGPM_LOCKED_SET(hEvtSet, 1);
  const int r = reset_locked(s);
  BGPM_UNLOCK_RETURN(r != 0 ? r : start_locked(s));
}

/* Reads of a set that is not multiplexed take no lock (reading is the hot path: PAPI_read): its
 * fields change only in its owner's control calls, and a read by the owner never overlaps them.
 * A multiplexed set's counters move between groups under the lock, so its reads take it. */
static struct bgpm_set* reader_set(unsigned h, int* err, int* locked) {
  *locked = 0;
  struct bgpm_set* s = bgpm_set_of(h, 0, err);
  if (s == NULL || !s->mux) return s;
  pthread_mutex_lock(&bgpm_lock);
  *locked = 1;
  return bgpm_set_of(h, 0, err);
}

static int reader_done(int locked, int r, const char* fn) {
  if (locked) pthread_mutex_unlock(&bgpm_lock);
  return r == 0 ? 0 : bgpm_report(r, fn);
}

int Bgpm_ReadEvent(unsigned hEvtSet, unsigned evtIdx, uint64_t* pValue) {
  int err = 0, locked;
  struct bgpm_set* s = reader_set(hEvtSet, &err, &locked);
  if (s == NULL) return reader_done(locked, err, __func__);
  if (evtIdx >= s->n) return reader_done(locked, BGPM_EINV_EVT_IDX, __func__);
  if (pValue == NULL) return reader_done(locked, BGPM_EINV_PARM, __func__);
  *pValue = value(s, &s->ev[evtIdx]);
  return reader_done(locked, 0, __func__);
}

__attribute__((noinline)) static int read_list_slow(unsigned hEvtSet, uint64_t* pValues,
                                                    unsigned* pLen) {
  int err = 0, locked;
  struct bgpm_set* s = reader_set(hEvtSet, &err, &locked);
  if (s == NULL) return reader_done(locked, err, "Bgpm_ReadEventList");
  if (pValues == NULL || pLen == NULL) {
    return reader_done(locked, BGPM_EINV_PARM, "Bgpm_ReadEventList");
  }
  if (*pLen < s->n) {
    *pLen = s->n;
    return reader_done(locked, BGPM_EARRAY_TOO_SMALL, "Bgpm_ReadEventList");
  }
  for (unsigned i = 0; i < s->n; ++i) pValues[i] = value(s, &s->ev[i]);
  *pLen = s->n;
  return reader_done(locked, 0, "Bgpm_ReadEventList");
}

int Bgpm_ReadEventList(unsigned hEvtSet, uint64_t* pValues, unsigned* pLen) {
  /* The hot path (PAPI_read): a running set that is not multiplexed or sliced (reading needs no
   * Bgpm_Init of the reading thread: a running set's owner has made one). The registers are loaded
   * in pairs before their values are used, so the loads' device latency overlaps. */
  if (hEvtSet < BGPM_MAX_SETS) {
    const struct bgpm_set* s = &bgpm_sets[hEvtSet];
    const unsigned n = s->n;
    if (s->fast && pValues != NULL && pLen != NULL && *pLen >= n) {
      const struct bgpm_ev* ev = s->ev;
      const struct bgpm_ev* const end = ev + n;
      uint64_t* out = pValues;
      for (; ev + 2 <= end; ev += 2, out += 2) {
        uint64_t a = *ev[0].reg, b = *ev[1].reg;
        __asm__("" : "+r"(a), "+r"(b)); /* both loads issue before either value is used */
        out[0] = ev[0].offset + a;
        out[1] = ev[1].offset + b;
      }
      if (ev < end) *out = ev->offset + *ev->reg;
      *pLen = n;
      return 0;
    }
  }
  return read_list_slow(hEvtSet, pValues, pLen);
}

int Bgpm_WriteEvent(unsigned hEvtSet, unsigned evtIdx, uint64_t v) {
  BGPM_LOCKED_SET(hEvtSet, 1);
  if (evtIdx >= s->n) BGPM_UNLOCK_RETURN(BGPM_EINV_EVT_IDX);
  if (s->unit == BGPMUnitType_CNK) BGPM_UNLOCK_RETURN(BGPM_EINV_OP);
  struct bgpm_ev* ev = &s->ev[evtIdx];
  if (ev->threshold != 0) BGPM_UNLOCK_RETURN(BGPM_EINV_WRT2OVF);
  ev->acc = v;
  if (ev->counter >= 0) ev->base = counter_now(s, ev);
  ev->offset = ev->acc - ev->base;
  BGPM_UNLOCK_RETURN(0);
}

int Bgpm_L2_ReadEvent(unsigned hEvtSet, unsigned slice, unsigned idx, uint64_t* pValue) {
  BGPM_LOCKED_SET(hEvtSet, 0);
  if (s->unit != BGPMUnitType_L2 || !s->sliced) BGPM_UNLOCK_RETURN(BGPM_EINV_OP);
  if (idx >= s->n) BGPM_UNLOCK_RETURN(BGPM_EINV_EVT_IDX);
  if (!s->applied) BGPM_UNLOCK_RETURN(BGPM_ENOT_APPLIED);
  if (slice >= s->hw->ports) BGPM_UNLOCK_RETURN(BGPM_EINV_L2_SLICE);
  if (pValue == NULL) BGPM_UNLOCK_RETURN(BGPM_EINV_PARM);
  /* The slice's counter since apply (a slice's share of the set's start/stop is not kept). */
  *pValue = hpmctr_read(s->hw, (int)(s->hw->per_port * slice) + s->ev[idx].counter);
  BGPM_UNLOCK_RETURN(0);
}

int Bgpm_CNK_SampleEvent(unsigned hEvtSet, unsigned evtIdx, uint64_t* pValue) {
  BGPM_LOCKED_SET(hEvtSet, 0);
  if (s->unit != BGPMUnitType_CNK) BGPM_UNLOCK_RETURN(BGPM_EINV_OP);
  if (evtIdx >= s->n) BGPM_UNLOCK_RETURN(BGPM_EINV_EVT_IDX);
  if (!s->applied) BGPM_UNLOCK_RETURN(BGPM_ENOT_APPLIED);
  if (pValue == NULL) BGPM_UNLOCK_RETURN(BGPM_EINV_PARM);
  *pValue = counter_now(s, &s->ev[evtIdx]); /* since boot, whatever the set's state */
  BGPM_UNLOCK_RETURN(0);
}

/* ---- overflow ---------------------------------------------------------------------------- */

int Bgpm_SetOverflow(unsigned hEvtSet, unsigned evtIdx, uint64_t threshold) {
  BGPM_LOCKED_SET(hEvtSet, 1);
  if (s->applied) BGPM_UNLOCK_RETURN(BGPM_EES_FROZEN);
  if (evtIdx >= s->n) BGPM_UNLOCK_RETURN(BGPM_EINV_EVT_IDX);
  if (s->unit != BGPMUnitType_PUNIT && s->unit != BGPMUnitType_L2 && s->unit != BGPMUnitType_IO) {
    BGPM_UNLOCK_RETURN(BGPM_EUNSUP_OVERFLOW);
  }
  if (s->mux) BGPM_UNLOCK_RETURN(BGPM_EUNSUP_OVERFLOW); /* overflow events are not multiplexed */
  /* The period 2^64 - threshold must be below 2^63 (and not 0). */
  const uint64_t period = 0 - threshold;
  if (threshold != 0 && (period == 0 || period >> 63)) BGPM_UNLOCK_RETURN(BGPM_EINV_OVF);
  s->ev[evtIdx].threshold = threshold;
  BGPM_UNLOCK_RETURN(0);
}

int Bgpm_SetOverflowHandler(unsigned hEvtSet, Bgpm_OverflowHandler_t handler) {
  BGPM_LOCKED_SET(hEvtSet, 1);
  if (s->unit == BGPMUnitType_CNK) BGPM_UNLOCK_RETURN(BGPM_EUNSUP_OVERFLOW);
  s->handler = handler;
  BGPM_UNLOCK_RETURN(0);
}

int Bgpm_GetOverflow(unsigned hEvtSet, unsigned evtIdx, uint64_t* pThreshold,
                     Bgpm_OverflowHandler_t* pHandler) {
  BGPM_LOCKED_SET(hEvtSet, 0);
  if (evtIdx >= s->n) BGPM_UNLOCK_RETURN(BGPM_EINV_EVT_IDX);
  if (pThreshold != NULL) *pThreshold = s->ev[evtIdx].threshold;
  if (pHandler != NULL) *pHandler = s->handler;
  BGPM_UNLOCK_RETURN(s->ev[evtIdx].threshold == 0 ? BGPM_ENO_OVERFLOW : 0);
}

int Bgpm_GetOverflowEventIndices(unsigned hEvtSet, uint64_t ovfVector, unsigned* pIndicies,
                                 unsigned* pLen) {
  /* Called from the overflow handler: no lock (the handler may have interrupted its holder). */
  int err = 0;
  struct bgpm_set* s = bgpm_set_of(hEvtSet, 0, &err);
  if (s == NULL) return bgpm_report(err, __func__);
  if (pIndicies == NULL || pLen == NULL) return bgpm_report(BGPM_EINV_PARM, __func__);
  unsigned found = 0;
  for (unsigned i = 0; i < s->n; ++i) {
    const int c = s->ev[i].counter;
    if (c >= 0 && c < 64 && (ovfVector >> c & 1)) {
      if (found < *pLen) pIndicies[found] = i;
      ++found;
    }
  }
  const int r = found > *pLen ? BGPM_EARRAY_TOO_SMALL : 0;
  *pLen = found;
  return bgpm_report(r, __func__);
}

/* ---- multiplexing ------------------------------------------------------------------------ */

int Bgpm_SetMultiplex2(unsigned hEvtSet, uint64_t period, int normalize,
                       RsvMuxCtrs maxEventsPerGroup) {
  BGPM_LOCKED_SET(hEvtSet, 1);
  if (s->applied) BGPM_UNLOCK_RETURN(BGPM_EES_FROZEN);
  if (s->unit != BGPMUnitType_PUNIT && s->unit != BGPMUnitType_UNDEF) {
    BGPM_UNLOCK_RETURN(BGPM_EUNSUP_ATTRIB);
  }
  /* BGPM's restriction that seed 001 works around: only an empty set can become multiplexed. */
  if (s->n != 0) BGPM_UNLOCK_RETURN(BGPM_ENOT_EMPTY);
  if (maxEventsPerGroup != BGPMMuxMinEvts && maxEventsPerGroup != BGPMMuxMedEvts &&
      maxEventsPerGroup != BGPMMuxMaxEvts) {
    BGPM_UNLOCK_RETURN(BGPM_EINV_PARM);
  }
  s->mux = period != 0; /* a period of 0 turns multiplexing off */
  s->mux_period = period;
  s->normalize = normalize;
  s->per_group = (unsigned)maxEventsPerGroup;
  s->groups = 0;
  BGPM_UNLOCK_RETURN(0);
}

int Bgpm_HpmSetNodeMultiplex(unsigned hEvtSet, uint64_t period) {
  const int r = Bgpm_SetMultiplex2(hEvtSet, period, BGPM_NOTNORMAL, BGPMMuxMinEvts);
  if (r != 0) return r;
  pthread_mutex_lock(&bgpm_lock);
  bgpm_sets[hEvtSet].node_mux = period != 0;
  pthread_mutex_unlock(&bgpm_lock);
  return 0;
}

int Bgpm_SetMultiplex(unsigned hEvtSet, uint64_t period, int normalize) {
  return Bgpm_SetMultiplex2(hEvtSet, period, normalize, BGPMMuxMinEvts);
}

int Bgpm_GetMultiplex(unsigned hEvtSet, Bgpm_MuxStats_t* pMuxStats) {
  BGPM_LOCKED_SET(hEvtSet, 0);
  if (pMuxStats == NULL) BGPM_UNLOCK_RETURN(BGPM_EINV_PARM);
  memset(pMuxStats, 0, sizeof *pMuxStats);
  pMuxStats->active = s->mux;
  pMuxStats->period = s->mux_period;
  pMuxStats->normalize = s->normalize;
  pMuxStats->numGrps = s->mux ? s->groups : 1;
  pMuxStats->maxEvtsPerGrp = s->mux ? s->per_group : BGPM_PUNIT_PER_SET;
  pMuxStats->numSwitches = s->switches;
  for (unsigned g = 0; g < s->groups && s->mux; ++g) {
    pMuxStats->elapsedCycles += group_elapsed(s, g);
  }
  BGPM_UNLOCK_RETURN(0);
}

int Bgpm_SwitchMux(unsigned hEvtSet) {
  BGPM_LOCKED_SET(hEvtSet, 1);
  if (!s->mux) BGPM_UNLOCK_RETURN(BGPM_ENOT_MUXED);
  if (s->applied && s->groups > 1) switch_group(s);
  BGPM_UNLOCK_RETURN(0);
}

int Bgpm_GetMuxGroups(unsigned hEvtSet) {
  BGPM_LOCKED_SET(hEvtSet, 0);
  const int groups = s->mux ? (int)s->groups : 1;
  pthread_mutex_unlock(&bgpm_lock);
  return groups;
}

uint64_t Bgpm_GetMuxElapsedCycles(unsigned hEvtSet, unsigned muxGrpNum) {
  int err = 0;
  pthread_mutex_lock(&bgpm_lock);
  struct bgpm_set* s = bgpm_set_of(hEvtSet, 0, &err);
  const uint64_t c = s != NULL && s->mux && muxGrpNum < s->groups ? group_elapsed(s, muxGrpNum) : 0;
  pthread_mutex_unlock(&bgpm_lock);
  return c;
}

uint64_t Bgpm_GetMuxEventElapsedCycles(unsigned hEvtSet, unsigned evtIdx) {
  int err = 0;
  pthread_mutex_lock(&bgpm_lock);
  struct bgpm_set* s = bgpm_set_of(hEvtSet, 0, &err);
  const uint64_t c =
      s != NULL && s->mux && evtIdx < s->n ? group_elapsed(s, s->ev[evtIdx].group) : 0;
  pthread_mutex_unlock(&bgpm_lock);
  return c;
}
