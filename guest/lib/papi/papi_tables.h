/* libpapi's preset tables (private), generated at build time by gen_tables.cpp from
 * papi_presets.tsv (PAPI 7's presets) and papi_events.csv (what each counts on hpmsim's bgq). */
#ifndef PAPI_TABLES_H
#define PAPI_TABLES_H

struct papi_preset_name {
  const char* symbol;
  const char* short_descr;
  const char* long_descr;
};

struct papi_preset_def {
  int index;           /* into papi_preset_names: the code is PAPI_PRESET_MASK | index */
  const char* derived; /* NOT_DERIVED, DERIVED_ADD, DERIVED_SUB, DERIVED_POSTFIX */
  const char* postfix; /* DERIVED_POSTFIX's formula over N0, N1, ... */
  int terms;
  const char* natives[12];
};

/* An event of the ground truth (/dev/hpm/sim), in its register order. */
struct papi_sim_event {
  const char* name; /* "Instructions" (PAPI names it sim:::Instructions) */
  const char* description;
  int scope; /* 0: the calling hardware thread's; 1: its core's; 2: the node's (all sources) */
};

extern const struct papi_preset_name papi_preset_names[];
extern const int papi_preset_count;
extern const struct papi_preset_def papi_preset_defs[];
extern const int papi_preset_def_count;
extern const struct papi_sim_event papi_sim_events[];
extern const int papi_sim_event_count;

#endif
