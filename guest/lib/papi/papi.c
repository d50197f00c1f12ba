/* libpapi: PAPI 7's interface on an hpmsim node (papi.h; docs/papi.md), over libbgpm as PAPI
 * is on Blue Gene/Q (seed 001). This file: the library's state, errors, components, event codes
 * and names, event information and options. The node's and the program's information, timers and
 * threads are in papi_info.c; event sets and counting in papi_sets.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hpm/counters.h"
#include "papi_impl.h"

struct papix_component papix_components[PAPIX_COMPONENTS];
struct papix_set papix_sets[PAPIX_MAX_SETS];
int papix_initialized;

static int disabled_before_init[PAPIX_COMPONENTS];
static int debug_level = PAPI_QUIET;
static int default_domain = PAPI_DOM_USER, default_granularity = PAPI_GRN_THR;
static __thread int bgpm_ready;
static __thread pid_t my_tid; /* gettid() once per thread: a system call costs the guest time */

pid_t papix_tid(void) {
  if (my_tid == 0) my_tid = gettid();
  return my_tid;
}

/* ---- errors ------------------------------------------------------------------------------ */

/* PAPI 7's messages, by -code. */
static const char* const messages[PAPI_NUM_ERRORS] = {
    "No error",
    "Invalid argument",
    "Insufficient memory",
    "A System/C library call failed",
    "Not supported by component",
    "Access to the counters was lost or interrupted",
    "Internal error, please send mail to the developers",
    "Event does not exist",
    "Event exists, but cannot be counted due to counter resource limitations",
    "EventSet is currently not running",
    "EventSet is currently counting",
    "No such EventSet Available",
    "Event in argument is not a valid preset",
    "Hardware does not support performance counters",
    "Unknown error code",
    "Permission level does not permit operation",
    "PAPI hasn't been initialized yet",
    "Component Index isn't set",
    "Not supported",
    "Not implemented",
    "Buffer size exceeded",
    "EventSet domain is not supported for the operation",
    "Invalid or missing event attributes",
    "Too many events or attributes",
    "Bad combination of features",
    "Component containing event is disabled",
    "Delayed initialization component",
    "Event exists, but cannot be counted due to multiple passes required by hardware",
};

char* PAPI_strerror(int code) {
  if (code > 0 || -code >= PAPI_NUM_ERRORS) return NULL;
  return (char*)messages[-code];
}

static __thread int last_error;

void PAPI_perror(const char* msg) {
  const char* text = PAPI_strerror(last_error);
  if (msg != NULL && msg[0] != '\0') {
    fprintf(stderr, "%s: %s\n", msg, text != NULL ? text : "Unknown error code");
  } else {
    fprintf(stderr, "%s\n", text != NULL ? text : "Unknown error code");
  }
}

int papix_error(int code, const char* fn) {
  if (code >= 0) return code;
  last_error = code;
  if (debug_level != PAPI_QUIET) {
    fprintf(stderr, "PAPI Error: %s: %s\n", fn, PAPI_strerror(code) ? PAPI_strerror(code) : "?");
    if (debug_level == PAPI_VERB_ESTOP) exit(EXIT_FAILURE);
  }
  return code;
}

int papix_from_bgpm(int e) {
  switch (e) {
    case 0: return PAPI_OK;
    case BGPM_EXHAUSTED:
    case BGPM_ECTRS_IN_USE:
    case BGPM_ECTRRESERVED:
    case BGPM_ECONF_L2_COMBINE: return PAPI_ECNFLCT;
    case BGPM_EINV_EVENT:
    case BGPM_ENOT_IN_RUN_MODE: /* hpmsim's run mode does not count it (docs/papi.md) */
    case BGPM_EUNREC_EVTID: return PAPI_ENOEVNT;
    case BGPM_ENOMEM: return PAPI_ENOMEM;
    case BGPM_ENOTIMPL: return PAPI_ENOIMPL;
    case BGPM_EUNSUP_OVERFLOW:
    case BGPM_EUNSUP_ATTRIB: return PAPI_ECMP;
    case BGPM_EINV_PARM:
    case BGPM_EINV_OVF: return PAPI_EINVAL;
    default: return e > 0 ? PAPI_OK : PAPI_EBUG;
  }
}

/* ---- library ----------------------------------------------------------------------------- */

void papix_bgpm_thread(void) {
  if (bgpm_ready) return;
  Bgpm_ExitOnError(0); /* PAPI reports BGPM's errors as its own */
  Bgpm_PrintOnError(0);
  Bgpm_Init(BGPM_MODE_SWDISTRIB);
  bgpm_ready = 1;
}

static void set_component(int cidx, const char* name, const char* short_name,
                          const char* description, BgpmUnitTypes unit, int counters, int overflow) {
  struct papix_component* c = &papix_components[cidx];
  memset(c, 0, sizeof *c);
  c->unit = unit;
  PAPI_component_info_t* i = &c->info;
  snprintf(i->name, sizeof i->name, "%s", name);
  snprintf(i->short_name, sizeof i->short_name, "%s", short_name);
  snprintf(i->description, sizeof i->description, "%s", description);
  snprintf(i->version, sizeof i->version, "7.0.0.0");
  snprintf(i->support_version, sizeof i->support_version, "hpmsim");
  snprintf(i->kernel_version, sizeof i->kernel_version, "hpmsim");
  i->CmpIdx = cidx;
  i->num_cntrs = counters;
  i->num_mpx_cntrs = unit == BGPMUnitType_PUNIT ? PAPIX_MAX_NATIVES : counters;
  i->num_preset_events = 0;
  i->num_native_events = 0;
  for (unsigned id = 1; id < BGPM_EVENT_ID_LIMIT; ++id) {
    Bgpm_EventInfo_t info;
    if (Bgpm_GetEventIdInfo(id, &info) == 0 && (int)info.unitType == (int)unit &&
        Bgpm_HpmEventCountsInRunMode(id) == 1) {
      ++i->num_native_events;
    }
  }
  if (cidx == 0) {
    for (int p = 0; p < papi_preset_def_count; ++p) {
      i->num_preset_events += papix_preset_counts(&papi_preset_defs[p]);
    }
  }
  i->default_domain = PAPI_DOM_USER;
  i->available_domains = PAPI_DOM_USER | PAPI_DOM_KERNEL;
  i->default_granularity = PAPI_GRN_THR;
  i->available_granularities = PAPI_GRN_THR;
  i->hardware_intr = overflow;
  i->hardware_intr_sig = overflow ? 35 : 0; /* libhpmctr's interrupt signal, SIGRTMIN + 1 */
  i->precise_intr = overflow && unit == BGPMUnitType_PUNIT;
  i->fast_real_timer = 1;
  i->fast_virtual_timer = 1;
  i->attach = 0;
  i->cpu = 0;
  i->inherit = 0;
  i->kernel_multiplex = unit == BGPMUnitType_PUNIT;
}

static void disable(int cidx, const char* reason) {
  papix_components[cidx].info.disabled = PAPI_ECMP_DISABLED;
  snprintf(papix_components[cidx].info.disabled_reason,
           sizeof papix_components[cidx].info.disabled_reason, "%s", reason);
}

/* The compiled-in components' descriptions: what PAPI_get_component_info answers at any time, as
 * PAPI's statically linked components do (ctests/disable_component reads them before
 * PAPI_library_init). Which are disabled, and the sim component's events, are the node's: init
 * decides them. */
static void describe_components(void) {
  Bgpm_ExitOnError(0); /* set_component asks BGPM of every event id: most are gaps */
  Bgpm_PrintOnError(0);
  /* PUnit: BGPM_MODE_SWDISTRIB gives one thread at most 12 of its core's 24 counters (libbgpm's
   * BGPM_PUNIT_PER_SET); a set holds no more, and PAPI's num_cntrs is what a set can hold. */
  set_component(0, "bgpm/PUnit", "PUnit",
                "Blue Gene/Q's PUnit (the core's counters) through BGPM, on hpmsim",
                BGPMUnitType_PUNIT, 12, 1);
  set_component(1, "bgpm/L2Unit", "L2Unit", "Blue Gene/Q's L2 unit through BGPM, on hpmsim",
                BGPMUnitType_L2, 6, 1);
  set_component(2, "bgpm/IOUnit", "IOUnit", "Blue Gene/Q's I/O unit through BGPM, on hpmsim",
                BGPMUnitType_IO, 43, 1);
  set_component(3, "bgpm/CNKUnit", "CNKUnit",
                "Blue Gene/Q's compute-node kernel counters through BGPM, on hpmsim",
                BGPMUnitType_CNK, 32, 0);
  set_component(4, "bgpm/NWUnit", "NWUnit", "Blue Gene/Q's network unit through BGPM, on hpmsim",
                BGPMUnitType_NW, 66, 1);
  set_component(PAPIX_SIM, "sim", "sim",
                "hpmsim's ground truth: the simulator's own statistics (/dev/hpm/sim)",
                BGPMUnitType_UNDEF, PAPIX_MAX_EVENTS, 0);
  papix_components[PAPIX_SIM].info.num_native_events = 0;
  set_component(PAPIX_SYSDETECT, "sysdetect", "sysdetect",
                "System info detection component: the node's devices (PAPI_enum_dev_type)",
                BGPMUnitType_UNDEF, 0, 0);
  papix_components[PAPIX_SYSDETECT].info.num_native_events = 0;
  papix_components[PAPIX_SYSDETECT].info.num_mpx_cntrs = 0;
  for (int c = 0; c < PAPIX_COMPONENTS; ++c) {
    if (disabled_before_init[c]) disable(c, "Disabled by PAPI_disable_component()");
  }
}

int PAPI_library_init(int version) {
  if (version != PAPI_VER_CURRENT) return papix_error(PAPI_EINVAL, __func__);
  if (papix_initialized) return PAPI_VER_CURRENT;
  papix_read_node();
  describe_components();
  {
    PAPI_component_info_t* sim = &papix_components[PAPIX_SIM].info;
    sim->num_mpx_cntrs = PAPIX_MAX_EVENTS;
    sim->kernel_multiplex = 0;
    sim->available_domains = PAPI_DOM_ALL;
    if (papix_sim_open()) {
      for (int e = 0; e < papi_sim_event_count; ++e) {
        sim->num_native_events += papix_sim_available((unsigned)e);
      }
    } else {
      disable(PAPIX_SIM, "No /dev/hpm/sim: the node has no monitor (monitor.unit = none)");
    }
  }
  const int bgq = hpmctr_machine() == HPMCTR_BGQ;
  /* (Every run mode has the units; each event says in which modes it counts, and one that does
   * not count in this mode is no event here: papix_counts_in_mode.) */
  for (int c = 0; c <= PAPIX_SIM; ++c) {
    if (disabled_before_init[c]) continue;
    if (c < PAPIX_SIM && c != 4 && !bgq) {
      disable(c, "No UPC-Q counter units on this machine (hpmsim --machine bgq)");
    }
  }
  for (int h = 0; h < PAPIX_MAX_SETS; ++h) papix_sets[h].used = 0;
  papix_initialized = PAPI_LOW_LEVEL_INITED;
  return PAPI_VER_CURRENT;
}

int PAPI_is_initialized(void) {
  return papix_initialized;
}

void PAPI_shutdown(void) {
  for (int h = 0; h < PAPIX_MAX_SETS; ++h) {
    if (!papix_sets[h].used) continue;
    int set = h;
    if (papix_sets[h].state & PAPI_RUNNING) PAPI_stop(h, NULL);
    PAPI_cleanup_eventset(h);
    PAPI_destroy_eventset(&set);
  }
  papix_initialized = PAPI_NOT_INITED;
}

int PAPI_set_debug(int level) {
  if (level != PAPI_QUIET && level != PAPI_VERB_ECONT && level != PAPI_VERB_ESTOP) {
    return papix_error(PAPI_EINVAL, __func__);
  }
  debug_level = level;
  return PAPI_OK;
}

/* ---- components -------------------------------------------------------------------------- */

int PAPI_num_components(void) {
  return PAPIX_COMPONENTS;
}

const PAPI_component_info_t* PAPI_get_component_info(int cidx) {
  if (cidx < 0 || cidx >= PAPIX_COMPONENTS) return NULL;
  if (!papix_initialized) describe_components();
  return &papix_components[cidx].info;
}

int PAPI_get_component_index(const char* name) {
  if (!papix_initialized) return papix_error(PAPI_ENOINIT, __func__);
  if (name == NULL) return papix_error(PAPI_EINVAL, __func__);
  for (int c = 0; c < PAPIX_COMPONENTS; ++c) {
    if (strcmp(papix_components[c].info.name, name) == 0 ||
        strcmp(papix_components[c].info.short_name, name) == 0) {
      return c;
    }
  }
  return papix_error(PAPI_ENOCMP, __func__);
}

int PAPI_disable_component(int cidx) {
  if (cidx < 0 || cidx >= PAPIX_COMPONENTS) return papix_error(PAPI_ENOCMP, __func__);
  if (papix_initialized) return papix_error(PAPI_ENOINIT, __func__); /* only before init */
  disabled_before_init[cidx] = 1;
  return PAPI_OK;
}

int PAPI_disable_component_by_name(const char* name) {
  if (name == NULL) return papix_error(PAPI_EINVAL, __func__);
  static const char* const names[PAPIX_COMPONENTS][2] = {
      {"bgpm/PUnit", "PUnit"},     {"bgpm/L2Unit", "L2Unit"}, {"bgpm/IOUnit", "IOUnit"},
      {"bgpm/CNKUnit", "CNKUnit"}, {"bgpm/NWUnit", "NWUnit"}, {"sim", "sim"},
      {"sysdetect", "sysdetect"}};
  for (int c = 0; c < PAPIX_COMPONENTS; ++c) {
    if (strcmp(names[c][0], name) == 0 || strcmp(names[c][1], name) == 0) {
      return PAPI_disable_component(c);
    }
  }
  return papix_error(PAPI_ENOCMP, __func__);
}

int papix_cidx_of_unit(int unit) {
  switch (unit) {
    case BGPMUnitType_PUNIT: return 0;
    case BGPMUnitType_L2: return 1;
    case BGPMUnitType_IO: return 2;
    case BGPMUnitType_CNK: return 3;
    case BGPMUnitType_NW: return 4;
    default: return -1;
  }
}

/* ---- event codes and names --------------------------------------------------------------- */

int papix_native_cidx(int code) {
  if (!IS_NATIVE(code)) return -1;
  const int cidx = (code & PAPIX_CMP_BITS) >> PAPIX_CMP_SHIFT;
  if (cidx >= PAPIX_COMPONENTS || papix_components[cidx].info.disabled) return -1;
  if (cidx == PAPIX_SIM) { /* the ground truth: the id is the event's register row + 1 */
    const unsigned id = papix_native_id(code);
    return id > 0 && papix_sim_available(id - 1) ? PAPIX_SIM : -1;
  }
  Bgpm_EventInfo_t info;
  if (Bgpm_GetEventIdInfo(papix_native_id(code), &info) != 0) return -1;
  /* An event this run's mode does not count is no event here (PAPI_ENOEVNT), not a silent 0. */
  if (Bgpm_HpmEventCountsInRunMode(papix_native_id(code)) != 1) return -1;
  return papix_cidx_of_unit(info.unitType) == cidx ? cidx : -1;
}

int papix_preset_counts(const struct papi_preset_def* def) {
  for (int t = 0; t < def->terms; ++t) {
    const int id = Bgpm_GetEventIdFromLabel(def->natives[t]);
    if (id <= 0 || Bgpm_HpmEventCountsInRunMode((unsigned)id) != 1) return 0;
  }
  return 1;
}

unsigned papix_native_id(int code) {
  return (unsigned)code & PAPIX_ID_BITS;
}

static int native_code(unsigned id, int cidx) {
  return (int)(PAPI_NATIVE_MASK | ((unsigned)cidx << PAPIX_CMP_SHIFT) | id);
}

const struct papi_preset_def* papix_preset(int code) {
  if (!IS_PRESET(code) || papix_components[0].info.disabled) return NULL;
  const int index = code & PAPI_PRESET_AND_MASK;
  /* Whether each preset's natives all count in this run's mode, found once. */
  static signed char counts[PAPI_MAX_PRESET_EVENTS];
  static int counted = 0;
  if (!counted) {
    for (int p = 0; p < papi_preset_def_count && p < PAPI_MAX_PRESET_EVENTS; ++p) {
      counts[p] = (signed char)papix_preset_counts(&papi_preset_defs[p]);
    }
    counted = 1;
  }
  for (int p = 0; p < papi_preset_def_count && p < PAPI_MAX_PRESET_EVENTS; ++p) {
    if (papi_preset_defs[p].index == index) return counts[p] ? &papi_preset_defs[p] : NULL;
  }
  return NULL;
}

int PAPI_event_name_to_code(const char* in, int* out) {
  if (!papix_initialized) return papix_error(PAPI_ENOINIT, __func__);
  if (in == NULL || out == NULL) return papix_error(PAPI_EINVAL, __func__);
  for (int i = 0; i < papi_preset_count; ++i) {
    if (strcmp(papi_preset_names[i].symbol, in) == 0) {
      *out = (int)(PAPI_PRESET_MASK | (unsigned)i);
      return PAPI_OK;
    }
  }
  /* A native event: NAME, or COMPONENT:::NAME with the component's name or short name. */
  const char* name = in;
  int want = -1;
  const char* sep = strstr(in, ":::");
  if (sep != NULL) {
    char cmp[PAPI_MAX_STR_LEN];
    snprintf(cmp, sizeof cmp, "%.*s", (int)(sep - in), in);
    for (int c = 0; c < PAPIX_COMPONENTS; ++c) {
      if (strcmp(papix_components[c].info.name, cmp) == 0 ||
          strcmp(papix_components[c].info.short_name, cmp) == 0) {
        want = c;
      }
    }
    if (want < 0) return papix_error(PAPI_ENOEVNT, __func__);
    name = sep + 3;
  }
  if (want == PAPIX_SIM) {
    if (papix_components[PAPIX_SIM].info.disabled) return papix_error(PAPI_ECMP_DISABLED, __func__);
    for (int e = 0; e < papi_sim_event_count; ++e) {
      if (strcmp(papi_sim_events[e].name, name) == 0 && papix_sim_available((unsigned)e)) {
        *out = native_code((unsigned)e + 1, PAPIX_SIM);
        return PAPI_OK;
      }
    }
    return papix_error(PAPI_ENOEVNT, __func__);
  }
  const int id = Bgpm_GetEventIdFromLabel(name);
  if (id <= 0) return papix_error(PAPI_ENOEVNT, __func__);
  Bgpm_EventInfo_t info;
  Bgpm_GetEventIdInfo((unsigned)id, &info);
  const int cidx = papix_cidx_of_unit(info.unitType);
  if (cidx < 0 || (want >= 0 && want != cidx)) return papix_error(PAPI_ENOEVNT, __func__);
  if (papix_components[cidx].info.disabled) return papix_error(PAPI_ECMP_DISABLED, __func__);
  *out = native_code((unsigned)id, cidx);
  return PAPI_OK;
}

int PAPI_event_code_to_name(int code, char* out) {
  if (!papix_initialized) return papix_error(PAPI_ENOINIT, __func__);
  if (out == NULL) return papix_error(PAPI_EINVAL, __func__);
  if (IS_PRESET(code)) {
    const int index = code & PAPI_PRESET_AND_MASK;
    if (index >= papi_preset_count) return papix_error(PAPI_ENOTPRESET, __func__);
    snprintf(out, PAPI_MAX_STR_LEN, "%s", papi_preset_names[index].symbol);
    return PAPI_OK;
  }
  const int cidx = papix_native_cidx(code);
  if (cidx < 0) return papix_error(PAPI_ENOEVNT, __func__);
  if (cidx == PAPIX_SIM) {
    snprintf(out, PAPI_MAX_STR_LEN, "sim:::%s", papi_sim_events[papix_native_id(code) - 1].name);
  } else {
    snprintf(out, PAPI_MAX_STR_LEN, "%s", Bgpm_GetEventIdLabel(papix_native_id(code)));
  }
  return PAPI_OK;
}

int PAPI_query_event(int code) {
  if (!papix_initialized) return papix_error(PAPI_ENOINIT, __func__);
  if (IS_PRESET(code)) return papix_preset(code) != NULL ? PAPI_OK : PAPI_ENOEVNT;
  return papix_native_cidx(code) >= 0 ? PAPI_OK : PAPI_ENOEVNT;
}

int PAPI_query_named_event(const char* name) {
  int code;
  const int r = PAPI_event_name_to_code(name, &code);
  return r != PAPI_OK ? r : PAPI_query_event(code);
}

int PAPI_get_event_info(int code, PAPI_event_info_t* info) {
  if (!papix_initialized) return papix_error(PAPI_ENOINIT, __func__);
  if (info == NULL) return papix_error(PAPI_EINVAL, __func__);
  memset(info, 0, sizeof *info);
  info->event_code = (unsigned)code;
  if (IS_PRESET(code)) {
    const int index = code & PAPI_PRESET_AND_MASK;
    if (index >= papi_preset_count) return papix_error(PAPI_ENOTPRESET, __func__);
    const struct papi_preset_def* def = papix_preset(code);
    snprintf(info->symbol, sizeof info->symbol, "%s", papi_preset_names[index].symbol);
    snprintf(info->short_descr, sizeof info->short_descr, "%s",
             papi_preset_names[index].short_descr);
    snprintf(info->long_descr, sizeof info->long_descr, "%s", papi_preset_names[index].long_descr);
    info->component_index = 0;
    if (def == NULL) return PAPI_OK; /* a preset that does not exist here: count 0 */
    info->count = (unsigned)def->terms;
    snprintf(info->derived, sizeof info->derived, "%s", def->derived);
    snprintf(info->postfix, sizeof info->postfix, "%s", def->postfix);
    for (int t = 0; t < def->terms; ++t) {
      const int id = Bgpm_GetEventIdFromLabel(def->natives[t]);
      info->code[t] = (unsigned)native_code((unsigned)id, 0);
      snprintf(info->name[t], sizeof info->name[t], "%s", def->natives[t]);
    }
    return PAPI_OK;
  }
  const int cidx = papix_native_cidx(code);
  if (cidx < 0) return papix_error(PAPI_ENOEVNT, __func__);
  if (cidx == PAPIX_SIM) {
    const struct papi_sim_event* e = &papi_sim_events[papix_native_id(code) - 1];
    snprintf(info->symbol, sizeof info->symbol, "sim:::%s", e->name);
    snprintf(info->long_descr, sizeof info->long_descr, "%s (the simulator's statistic)",
             e->description);
    snprintf(info->short_descr, sizeof info->short_descr, "%.*s", (int)sizeof info->short_descr - 1,
             e->description);
    info->component_index = PAPIX_SIM;
    info->count = 1;
    info->code[0] = (unsigned)code;
    return PAPI_OK;
  }
  Bgpm_EventInfo_t bi;
  Bgpm_GetEventIdInfo(papix_native_id(code), &bi);
  snprintf(info->symbol, sizeof info->symbol, "%s", bi.label);
  snprintf(info->long_descr, sizeof info->long_descr, "%s", bi.desc);
  snprintf(info->short_descr, sizeof info->short_descr, "%.*s", (int)sizeof info->short_descr - 1,
           bi.desc);
  info->component_index = cidx;
  info->count = 1;
  info->code[0] = (unsigned)code;
  return PAPI_OK;
}

int PAPI_enum_event(int* code, int modifier) {
  if (!papix_initialized) return papix_error(PAPI_ENOINIT, __func__);
  if (code == NULL) return papix_error(PAPI_EINVAL, __func__);
  if (IS_PRESET(*code)) {
    int index = *code & PAPI_PRESET_AND_MASK;
    if (modifier == PAPI_ENUM_FIRST) {
      *code = (int)PAPI_PRESET_MASK;
      return PAPI_OK;
    }
    if (modifier != PAPI_ENUM_EVENTS && modifier != PAPI_PRESET_ENUM_AVAIL) {
      return PAPI_ENOEVNT; /* no preset categories are kept: such an enumeration finds none */
    }
    while (++index < papi_preset_count) {
      const int next = (int)(PAPI_PRESET_MASK | (unsigned)index);
      if (modifier == PAPI_ENUM_EVENTS || papix_preset(next) != NULL) {
        *code = next;
        return PAPI_OK;
      }
    }
    return PAPI_ENOEVNT;
  }
  if (!IS_NATIVE(*code)) return papix_error(PAPI_EINVAL, __func__);
  return PAPI_enum_cmp_event(code, modifier, (*code & PAPIX_CMP_BITS) >> PAPIX_CMP_SHIFT);
}

int PAPI_enum_cmp_event(int* code, int modifier, int cidx) {
  if (!papix_initialized) return papix_error(PAPI_ENOINIT, __func__);
  if (code == NULL) return papix_error(PAPI_EINVAL, __func__);
  if (cidx < 0 || cidx >= PAPIX_COMPONENTS) return papix_error(PAPI_ENOCMP, __func__);
  if (papix_components[cidx].info.disabled) return papix_error(PAPI_ENOCMP, __func__);
  if (IS_PRESET(*code)) { /* the presets are component 0's */
    return cidx == 0 ? PAPI_enum_event(code, modifier) : PAPI_ENOEVNT;
  }
  unsigned id = modifier == PAPI_ENUM_FIRST ? 0 : papix_native_id(*code);
  if (modifier != PAPI_ENUM_FIRST && modifier != PAPI_ENUM_EVENTS) {
    return PAPI_ENOEVNT; /* no unit masks or groups: BGPM's events take no attributes here */
  }
  if (cidx == PAPIX_SIM) {
    for (++id; id <= (unsigned)papi_sim_event_count; ++id) {
      if (papix_sim_available(id - 1)) {
        *code = native_code(id, PAPIX_SIM);
        return PAPI_OK;
      }
    }
    return PAPI_ENOEVNT;
  }
  for (++id; id < BGPM_EVENT_ID_LIMIT; ++id) {
    Bgpm_EventInfo_t info;
    if (Bgpm_GetEventIdInfo(id, &info) == 0 && papix_cidx_of_unit(info.unitType) == cidx) {
      *code = native_code(id, cidx);
      return PAPI_OK;
    }
  }
  return PAPI_ENOEVNT;
}

/* ---- options ----------------------------------------------------------------------------- */

int PAPI_get_opt(int option, PAPI_option_t* ptr) {
  switch (option) {
    case PAPI_DEBUG:
      if (ptr == NULL) return papix_error(PAPI_EINVAL, __func__);
      ptr->debug.level = debug_level;
      ptr->debug.handler = NULL;
      return PAPI_OK;
    case PAPI_CLOCKRATE: return papix_mhz();
    case PAPI_MAX_CPUS: return PAPI_get_hardware_info()->ncpu;
    case PAPI_MAX_HWCTRS: return papix_components[0].info.num_cntrs;
    case PAPI_MAX_MPX_CTRS: return papix_components[0].info.num_mpx_cntrs;
    case PAPI_DEFDOM: return default_domain;
    case PAPI_DEFGRN: return default_granularity;
    case PAPI_LIB_VERSION: return PAPI_VERSION;
    case PAPI_DEF_ITIMER_NS:
    case PAPI_DEF_MPX_NS: return (int)papix_itimer_ns();
    case PAPI_SHLIBINFO:
      if (ptr == NULL) return papix_error(PAPI_EINVAL, __func__);
      ptr->shlib_info = (PAPI_shlib_info_t*)PAPI_get_shared_lib_info();
      return PAPI_OK;
    case PAPI_PRELOAD:
      if (ptr == NULL) return papix_error(PAPI_EINVAL, __func__);
      memset(&ptr->preload, 0, sizeof ptr->preload);
      snprintf(ptr->preload.lib_preload_env, sizeof ptr->preload.lib_preload_env, "LD_PRELOAD");
      ptr->preload.lib_preload_sep = ' ';
      snprintf(ptr->preload.lib_dir_env, sizeof ptr->preload.lib_dir_env, "LD_LIBRARY_PATH");
      ptr->preload.lib_dir_sep = ':';
      return PAPI_OK;
    case PAPI_HWINFO:
      if (ptr == NULL) return papix_error(PAPI_EINVAL, __func__);
      ptr->hw_info = (PAPI_hw_info_t*)PAPI_get_hardware_info();
      return PAPI_OK;
    case PAPI_EXEINFO:
      if (ptr == NULL) return papix_error(PAPI_EINVAL, __func__);
      ptr->exe_info = (PAPI_exe_info_t*)PAPI_get_executable_info();
      return PAPI_OK;
    case PAPI_COMPONENTINFO: return PAPI_get_cmp_opt(option, ptr, 0);
    case PAPI_DOMAIN:
    case PAPI_GRANUL:
    case PAPI_MULTIPLEX: {
      if (ptr == NULL) return papix_error(PAPI_EINVAL, __func__);
      const int set = option == PAPI_DOMAIN   ? ptr->domain.eventset
                      : option == PAPI_GRANUL ? ptr->granularity.eventset
                                              : ptr->multiplex.eventset;
      if (set < 0 || set >= PAPIX_MAX_SETS || !papix_sets[set].used) {
        return papix_error(PAPI_ENOEVST, __func__);
      }
      if (option == PAPI_DOMAIN) return ptr->domain.domain = papix_sets[set].domain;
      if (option == PAPI_GRANUL) return ptr->granularity.granularity = papix_sets[set].granularity;
      return papix_sets[set].multiplex;
    }
    default: return papix_error(PAPI_EINVAL, __func__);
  }
}

static int valid_domain(int domain) {
  return domain > 0 && (domain & ~PAPI_DOM_ALL) == 0;
}

int PAPI_set_opt(int option, PAPI_option_t* ptr) {
  if (ptr == NULL) return papix_error(PAPI_EINVAL, __func__);
  switch (option) {
    case PAPI_DEBUG: return PAPI_set_debug(ptr->debug.level);
    case PAPI_DEFDOM:
      if (!valid_domain(ptr->defdomain.domain)) return papix_error(PAPI_EINVAL, __func__);
      default_domain = ptr->defdomain.domain;
      return PAPI_OK;
    case PAPI_DEFGRN:
      if (ptr->defgranularity.granularity != PAPI_GRN_THR)
        return papix_error(PAPI_EINVAL, __func__);
      return PAPI_OK;
    case PAPI_DOMAIN:
    case PAPI_GRANUL: {
      const int set = option == PAPI_DOMAIN ? ptr->domain.eventset : ptr->granularity.eventset;
      if (set < 0 || set >= PAPIX_MAX_SETS || !papix_sets[set].used) {
        return papix_error(PAPI_ENOEVST, __func__);
      }
      if (papix_sets[set].state & PAPI_RUNNING) return papix_error(PAPI_EISRUN, __func__);
      if (option == PAPI_DOMAIN) {
        if (!valid_domain(ptr->domain.domain)) return papix_error(PAPI_EINVAL, __func__);
        papix_sets[set].domain = ptr->domain.domain;
      } else {
        if (ptr->granularity.granularity != PAPI_GRN_THR) return papix_error(PAPI_EINVAL, __func__);
        papix_sets[set].granularity = PAPI_GRN_THR;
      }
      return PAPI_OK;
    }
    case PAPI_MULTIPLEX: return PAPI_set_multiplex(ptr->multiplex.eventset);
    case PAPI_ATTACH:
    case PAPI_DETACH:
    case PAPI_CPU_ATTACH:
    case PAPI_INHERIT: {
      /* PAPI asks the set's component whether it can (its info's attach, cpu and inherit): none
       * here can (a thread counts its own hardware thread; the node runs no other process to
       * attach to or to inherit by), so PAPI_ECMP, on which PAPI's tests skip. */
      const int set = option == PAPI_CPU_ATTACH ? ptr->cpu.eventset
                      : option == PAPI_INHERIT  ? ptr->inherit.eventset
                                                : ptr->attach.eventset;
      if (set < 0 || set >= PAPIX_MAX_SETS || !papix_sets[set].used) {
        return papix_error(PAPI_ENOEVST, __func__);
      }
      if (papix_sets[set].cidx < 0) return papix_error(PAPI_ENOCMP, __func__);
      return papix_error(PAPI_ECMP, __func__); /* set_component: attach = cpu = inherit = 0 */
    }
    case PAPI_DEF_ITIMER_NS:
    case PAPI_DEF_MPX_NS:
      return papix_error(
          papix_set_itimer_ns(option == PAPI_DEF_ITIMER_NS ? ptr->itimer.ns : ptr->multiplex.ns),
          __func__);
    default: return papix_error(PAPI_EINVAL, __func__);
  }
}

int PAPI_set_domain(int domain) {
  PAPI_option_t opt;
  memset(&opt, 0, sizeof opt);
  opt.defdomain.domain = domain;
  return PAPI_set_opt(PAPI_DEFDOM, &opt);
}

int PAPI_set_granularity(int granularity) {
  PAPI_option_t opt;
  memset(&opt, 0, sizeof opt);
  opt.defgranularity.granularity = granularity;
  return PAPI_set_opt(PAPI_DEFGRN, &opt);
}

int PAPI_set_cmp_domain(int domain, int cidx) {
  if (cidx < 0 || cidx >= PAPIX_COMPONENTS) return papix_error(PAPI_ENOCMP, __func__);
  return PAPI_set_domain(domain);
}

int PAPI_set_cmp_granularity(int granularity, int cidx) {
  if (cidx < 0 || cidx >= PAPIX_COMPONENTS) return papix_error(PAPI_ENOCMP, __func__);
  return PAPI_set_granularity(granularity);
}

int PAPI_get_cmp_opt(int option, PAPI_option_t* ptr, int cidx) {
  if (cidx < 0 || cidx >= PAPIX_COMPONENTS) return papix_error(PAPI_ENOCMP, __func__);
  if (option == PAPI_MAX_HWCTRS) return papix_components[cidx].info.num_cntrs;
  if (option == PAPI_MAX_MPX_CTRS) return papix_components[cidx].info.num_mpx_cntrs;
  if (option == PAPI_COMPONENTINFO) {
    if (ptr == NULL) return papix_error(PAPI_EINVAL, __func__);
    ptr->cmp_info = (PAPI_component_info_t*)PAPI_get_component_info(cidx);
    return PAPI_OK;
  }
  return PAPI_get_opt(option, ptr);
}

int PAPI_num_cmp_hwctrs(int cidx) {
  if (cidx < 0 || cidx >= PAPIX_COMPONENTS) return papix_error(PAPI_ENOCMP, __func__);
  return papix_components[cidx].info.num_cntrs;
}

int PAPI_num_hwctrs(void) {
  return PAPI_num_cmp_hwctrs(0);
}

int papix_default_domain(void);
int papix_default_domain(void) {
  return default_domain;
}
