/* libbgpm's private state, shared by bgpm.c (event sets, event information, errors) and
 * bgpm_count.c (apply, counting, overflow, multiplexing). */
#ifndef BGPM_IMPL_H
#define BGPM_IMPL_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "bgpm.h"
#include "bgpm_table.h"
#include "hpm/counters.h"

/* Library-internal symbols are hidden: the compiler then reaches them directly rather than
 * through the global offset table (a load less on every access, which PAPI_read's cost feels). */
#pragma GCC visibility push(hidden)

#define BGPM_MAX_SETS 256
#define BGPM_MAX_EVENTS 256      /* per set (a multiplexed PUnit set: its groups' events) */
#define BGPM_PUNIT_PER_SET 12    /* BGPM_MODE_SWDISTRIB: up to 12 PUnit counters for one thread */
#define BGPM_MAX_GROUPS 64       /* multiplexing groups */
#define BGPM_UNIT_SLOTS (64 + 4) /* PUnits by core, then the L2, I/O, CNK and network units */

struct bgpm_ev {
  const struct bgpm_event_entry* e;
  unsigned group;               /* multiplexing group (0 if not multiplexed) */
  int counter;                  /* the unit counter while applied and in the current group, else -1
                                 * (an L2 sliced set: the local counter j of every slice) */
  uint64_t acc;                 /* count accumulated outside the live interval */
  uint64_t base;                /* the counter's value when its live interval began */
  uint64_t threshold;           /* Bgpm_SetOverflow's (0: none) */
  unsigned set;                 /* its set's handle, for the overflow trampoline */
  const volatile uint64_t* reg; /* the counter's read register while programmed (not sliced) */
  uint64_t offset;              /* while running: acc - base, so that the value is offset + *reg */
};

struct bgpm_set {
  int fast; /* running, not multiplexed, not sliced: Bgpm_ReadEventList's lock-free path */
  int used;
  pid_t owner; /* the creating thread: the only one that may control the set */
  BgpmUnitTypes unit;
  int applied, running;
  int free_running; /* applied on a PUnit without thresholds or multiplexing: its counters run
                       from apply, and start and stop are snapshots of them (no lock, no store) */
  int sliced;       /* an L2 set of _SLICE events, or a network set: a counter per port */
  unsigned links;   /* a network set: the links it is attached to (UPC_NW_LINK_bit) */
  hpmctr_unit* hw;
  int slot;         /* its unit's slot in bgpm_runners */
  int core, thread; /* PUnit: where it was applied */
  unsigned n;
  struct bgpm_ev ev[BGPM_MAX_EVENTS];
  Bgpm_OverflowHandler_t handler;
  Bgpm_Context context;
  /* multiplexing */
  int mux, normalize;
  uint64_t mux_period;
  unsigned per_group, groups, current, switches;
  uint64_t group_cycles[BGPM_MAX_GROUPS];
  uint64_t group_since; /* rdcycle when the current group's live interval began */
  int mux_counter;      /* the hidden cycle counter that drives periodic switches, or -1 */
  int node_mux;         /* multiplexed by Bgpm_HpmSetNodeMultiplex: any unit */
  hpmctr_unit* mux_hw;  /* the PUnit holding the hidden counter */
  int mux_slot;         /* its slot in bgpm_free_applied (it runs from apply) */
};

extern pthread_mutex_t bgpm_lock;
extern struct bgpm_set bgpm_sets[BGPM_MAX_SETS];
extern unsigned bgpm_runners[BGPM_UNIT_SLOTS]; /* running sets per unit (free-running ones not) */
extern unsigned bgpm_free_applied[BGPM_UNIT_SLOTS]; /* applied free-running sets per unit */
/* The calling thread's id (cached at Bgpm_Init). */
extern __thread pid_t bgpm_tid __attribute__((tls_model("local-exec")));

/* Records an error (negative) or warning (positive) of call `fn`, prints it and, for an error,
 * exits unless the thread turned that off (Bgpm_ExitOnError), as BGPM does. Returns err. */
int bgpm_report(int err, const char* fn);
/* The set of a handle, checked (initialised thread; for `control`, the creating thread); NULL
 * with *err set otherwise. Under the lock. */
struct bgpm_set* bgpm_set_of(unsigned h, int control, int* err);
/* The shared hpmctr_unit of a unit type (the PUnit of `core`), opened on first use; its slot in
 * *slot. NULL if it cannot be opened. Under the lock. */
hpmctr_unit* bgpm_unit(BgpmUnitTypes type, int core, int* slot);
/* Whether the calling thread has called Bgpm_Init. */
extern __thread int bgpm_inited __attribute__((tls_model("local-exec")));
/* Stops a running set and frees its counters. Under the lock. */
void bgpm_release(struct bgpm_set* s);

static inline uint64_t bgpm_rdcycle(void) {
  uint64_t c;
  __asm__ volatile("rdcycle %0" : "=r"(c));
  return c;
}

/* Takes the lock and the set of handle h (checked as bgpm_set_of); returns its error if any. */
#define BGPM_LOCKED_SET(h, control)                        \
  int err_ = 0;                                            \
  pthread_mutex_lock(&bgpm_lock);                          \
  struct bgpm_set* s = bgpm_set_of((h), (control), &err_); \
  if (s == NULL) {                                         \
    pthread_mutex_unlock(&bgpm_lock);                      \
    return bgpm_report(err_, __func__);                    \
  }

/* Releases the lock and returns `value`, reported. */
#define BGPM_UNLOCK_RETURN(value)     \
  do {                                \
    const int v_ = (value);           \
    pthread_mutex_unlock(&bgpm_lock); \
    return bgpm_report(v_, __func__); \
  } while (0)

#pragma GCC visibility pop

#endif
