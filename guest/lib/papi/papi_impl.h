/* libpapi's private state, shared by papi.c (library, components, events, information,
 * options, timers) and papi_sets.c (event sets over libbgpm, overflow, multiplexing).
 *
 * Components are PAPI's on Blue Gene/Q (seed 001): bgpm/PUnit (index 0, the CPU component),
 * bgpm/L2Unit, bgpm/IOUnit, bgpm/CNKUnit and bgpm/NWUnit (disabled until hpmsim has a network),
 * each a thin layer over one BGPM unit type. A native event's code is PAPI_NATIVE_MASK, the
 * component index in bits 26..29 and the BGPM event id below; a preset's is PAPI_PRESET_MASK |
 * its index in PAPI 7's preset table. */
#ifndef PAPI_IMPL_H
#define PAPI_IMPL_H

#include <stdint.h>
#include <sys/types.h>

#include "bgpm.h"
#include "papi.h"
#include "papi_tables.h"

/* Library-internal symbols are hidden: the compiler then reaches them directly rather than
 * through the global offset table (a load less on every access, which PAPI_read's cost feels). */
#pragma GCC visibility push(hidden)

#define PAPIX_COMPONENTS 7
#define PAPIX_SIM 5       /* the ground-truth component */
#define PAPIX_SYSDETECT 6 /* PAPI's sysdetect: the device queries (papi_sysdetect.c), no events */
#define PAPIX_CMP_SHIFT 26
#define PAPIX_CMP_BITS 0x3C000000
#define PAPIX_ID_BITS 0x03FFFFFF
#define PAPIX_MAX_SETS 512
#define PAPIX_MAX_EVENTS 64   /* PAPI events per event set */
#define PAPIX_MAX_NATIVES 256 /* BGPM events per event set (a preset takes up to 12) */

struct papix_component {
  PAPI_component_info_t info;
  BgpmUnitTypes unit;
};

/* One PAPI event of a set: its native terms are natives [first, first + terms) of the set's BGPM
 * event set. */
enum papix_derivation { PAPIX_NOT_DERIVED, PAPIX_ADD, PAPIX_SUB, PAPIX_POSTFIX };

struct papix_event {
  int code;
  enum papix_derivation how;
  int first, terms;
  const struct papi_preset_def* preset; /* NULL for a native event */
  long long threshold;                  /* PAPI_overflow's, 0: none */
};

struct papix_set {
  /* PAPI_read's hot fields first, in one cache line. */
  int fast; /* plain, with a BGPM set: PAPI_read's path straight to Bgpm_ReadEventList */
  int bgpm; /* the BGPM event set, or -1 */
  int n;
  int used;
  int cidx; /* -1 until assigned */
  int state;
  struct papix_event ev[PAPIX_MAX_EVENTS];
  int natives;
  unsigned native_ids[PAPIX_MAX_NATIVES];
  pid_t bgpm_tid;
  int domain, granularity;
  int multiplex;
  uint64_t mpx_last[PAPIX_MAX_NATIVES]; /* multiplexed: each term's last value, reads never fall */
  int plain; /* every event one native term, none derived, not multiplexed: reads copy directly */
  PAPI_overflow_handler_t handler;
  int overflow_sw;                     /* PAPI_OVERFLOW_FORCE_SW */
  uint64_t sim_base[PAPIX_MAX_EVENTS]; /* sim: each event's value at the start */
  uint64_t sim_acc[PAPIX_MAX_EVENTS];  /* sim: what it counted before the last start */
  int rebuilds; /* BGPM sets rebuilt by the work-arounds (PAPI_get_opt PAPI_DEBUG does not
                   show it: papix_rebuilds does, for the tests) */
};

extern struct papix_component papix_components[PAPIX_COMPONENTS];
extern struct papix_set papix_sets[PAPIX_MAX_SETS];
extern int papix_initialized;

/* Records (and with PAPI_VERB_ECONT/ESTOP prints, or exits on) an error; returns it. */
int papix_error(int code, const char* fn);
/* The calling thread is initialised for BGPM (errors returned, never fatal). */
void papix_bgpm_thread(void);
/* A native code's component and BGPM id; -1 if it is not a native code of an enabled one. */
int papix_native_cidx(int code);
unsigned papix_native_id(int code);
/* The component a BGPM unit type belongs to. */
int papix_cidx_of_unit(int unit);
/* A preset's definition, or NULL if it is not available here (one whose natives do not all count
 * in this run's mode is not). */
const struct papi_preset_def* papix_preset(int code);
/* 1 if every native of `def` counts in this run's mode (hpmctr_run_mode), else 0. */
int papix_preset_counts(const struct papi_preset_def* def);
/* BGPM errors as PAPI's. */
int papix_from_bgpm(int bgpm_error);
/* The number of BGPM sets rebuilt for an event set by the seed's work-arounds (tests). */
int papix_rebuilds(int EventSet);
/* The calling thread's id (cached). */
pid_t papix_tid(void);
/* The values of a set's events (PAPI_read's, callable from a signal handler). */
int papix_read(struct papix_set* s, long long* values);
/* Software overflow (papi_profil.c): the timer's interval, and its start and stop with a set. */
long long papix_itimer_ns(void);
int papix_set_itimer_ns(long long ns);
int papix_sw_start(int EventSet);
void papix_sw_stop(int EventSet);
/* Reads what PAPI tells of the node (/proc/cpuinfo, the caches under /sys) and the program. */
void papix_read_node(void);
/* The ground truth (papi_sim.c): whether /dev/hpm/sim is there (opened on first call), whether
 * its event e is kept, and e's value for the calling thread now. */
int papix_sim_open(void);
int papix_sim_available(unsigned e);
uint64_t papix_sim_value(unsigned e);
/* Simulated clock in MHz (/proc/cpuinfo). */
int papix_mhz(void);

#pragma GCC visibility pop

#endif
