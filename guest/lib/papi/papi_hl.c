/* libpapi: PAPI 7's high-level API (PAPI_hl_region_begin/end/read/stop). Each thread counts the
 * events of PAPI_EVENTS (comma-separated; default PAPI_TOT_INS, PAPI_TOT_CYC, PAPI_FP_INS,
 * PAPI_FP_OPS; those that cannot be counted are left out) in an event set of its own, started at
 * its first region. Every region end (and read) records the differences since the region began,
 * with the cycles and nanoseconds of simulated time; at exit the records are written as PAPI 7's
 * JSON report to PAPI_OUTPUT_DIRECTORY (default papi_hl_output) as rank_<pid>.json, and with
 * PAPI_REPORT set also to standard output. Regions nest (a record names its parent). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "papi_impl.h"

#define HL_MAX_EVENTS 16
#define HL_MAX_DEPTH 32
#define HL_MAX_THREADS 256

struct hl_record {
  char name[PAPI_MIN_STR_LEN];
  int id, parent;
  long long cycles, nsec;
  long long values[HL_MAX_EVENTS];
};

struct hl_thread {
  int set;
  int stopped;
  int next_id;
  int depth;
  struct hl_record open[HL_MAX_DEPTH]; /* begin values of the open regions */
  struct hl_record* done;              /* finished records */
  int count, capacity;
};

static pthread_mutex_t hl_lock = PTHREAD_MUTEX_INITIALIZER;
static int hl_state; /* 0 not yet, 1 active, -1 deactivated (no events) */
static int hl_events;
static int hl_codes[HL_MAX_EVENTS];
static char hl_names[HL_MAX_EVENTS][PAPI_MAX_STR_LEN];
static struct hl_thread* hl_threads[HL_MAX_THREADS];
static int hl_thread_count;
static __thread struct hl_thread* me;

static void hl_write(void);

/* Library, events and the exit report, once. Under hl_lock. */
static int hl_init(void) {
  if (hl_state != 0) return hl_state > 0 ? PAPI_OK : PAPI_EMISC;
  hl_state = -1;
  if (!papix_initialized && PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
    return PAPI_EMISC;
  }
  const char* env = getenv("PAPI_EVENTS");
  char list[1024];
  snprintf(
      list, sizeof list, "%s",
      env != NULL && env[0] != '\0' ? env : "PAPI_TOT_INS,PAPI_TOT_CYC,PAPI_FP_INS,PAPI_FP_OPS");
  for (char* save = NULL; hl_events < HL_MAX_EVENTS;) {
    char* name = strtok_r(save == NULL ? list : NULL, ",", &save);
    if (name == NULL) break;
    int code;
    if (PAPI_event_name_to_code(name, &code) != PAPI_OK || PAPI_query_event(code) != PAPI_OK) {
      continue; /* not here: left out, as PAPI does */
    }
    hl_codes[hl_events] = code;
    snprintf(hl_names[hl_events], sizeof hl_names[0], "%s", name);
    ++hl_events;
  }
  if (hl_events == 0) return PAPI_EMISC;
  atexit(hl_write);
  hl_state = 1;
  return PAPI_OK;
}

/* The calling thread's state, its event set started on first use. */
static struct hl_thread* hl_self(int* error) {
  if (me != NULL) return me;
  pthread_mutex_lock(&hl_lock);
  int r = hl_init();
  if (r == PAPI_OK && hl_thread_count == HL_MAX_THREADS) r = PAPI_ENOMEM;
  struct hl_thread* t = r == PAPI_OK ? calloc(1, sizeof *t) : NULL;
  if (r == PAPI_OK && t == NULL) r = PAPI_ENOMEM;
  if (t != NULL) {
    t->set = PAPI_NULL;
    hl_threads[hl_thread_count++] = t;
  }
  pthread_mutex_unlock(&hl_lock);
  if (t == NULL) {
    *error = r;
    return NULL;
  }
  papix_bgpm_thread();
  PAPI_create_eventset(&t->set);
  int added = 0;
  for (int i = 0; i < hl_events; ++i) added += PAPI_add_event(t->set, hl_codes[i]) == PAPI_OK;
  if (added != hl_events || PAPI_start(t->set) != PAPI_OK) {
    *error = PAPI_ECNFLCT; /* the events cannot be counted together here */
    t->stopped = 1;
    me = t;
    return NULL;
  }
  me = t;
  return t;
}

/* A snapshot: the events, the cycles and the nanoseconds now. */
static int hl_sample(struct hl_thread* t, struct hl_record* r) {
  const int e = PAPI_read(t->set, r->values);
  r->cycles = PAPI_get_real_cyc();
  r->nsec = PAPI_get_real_nsec();
  return e;
}

static int hl_record(struct hl_thread* t, const struct hl_record* begin) {
  struct hl_record now;
  const int e = hl_sample(t, &now);
  if (e != PAPI_OK) return e;
  if (t->count == t->capacity) {
    const int capacity = t->capacity > 0 ? 2 * t->capacity : 64;
    struct hl_record* grown = realloc(t->done, sizeof *grown * (size_t)capacity);
    if (grown == NULL) return PAPI_ENOMEM;
    t->done = grown;
    t->capacity = capacity;
  }
  struct hl_record* r = &t->done[t->count++];
  *r = *begin;
  r->cycles = now.cycles - begin->cycles;
  r->nsec = now.nsec - begin->nsec;
  for (int i = 0; i < hl_events; ++i) r->values[i] = now.values[i] - begin->values[i];
  return PAPI_OK;
}

int PAPI_hl_region_begin(const char* region) {
  if (region == NULL) return PAPI_EINVAL;
  int error = PAPI_OK;
  struct hl_thread* t = hl_self(&error);
  if (t == NULL) return error;
  if (t->stopped) return PAPI_ENOTRUN;
  if (t->depth == HL_MAX_DEPTH) return PAPI_ENOMEM;
  struct hl_record* r = &t->open[t->depth];
  snprintf(r->name, sizeof r->name, "%s", region);
  r->id = t->next_id++;
  r->parent = t->depth > 0 ? t->open[t->depth - 1].id : -1;
  const int e = hl_sample(t, r);
  if (e != PAPI_OK) return e;
  ++t->depth;
  return PAPI_OK;
}

/* The innermost open region of that name, or -1. */
static int hl_find(const struct hl_thread* t, const char* region) {
  for (int d = t->depth - 1; d >= 0; --d) {
    if (strcmp(t->open[d].name, region) == 0) return d;
  }
  return -1;
}

int PAPI_hl_read(const char* region) {
  if (region == NULL || me == NULL) return region == NULL ? PAPI_EINVAL : PAPI_ENOTRUN;
  if (me->stopped) return PAPI_ENOTRUN;
  const int d = hl_find(me, region);
  if (d < 0) return PAPI_ENOTRUN;
  /* A read is recorded like an end, under a record id of its own; the region stays open. */
  struct hl_record begin = me->open[d];
  begin.id = me->next_id++;
  begin.parent = me->open[d].id;
  return hl_record(me, &begin);
}

int PAPI_hl_region_end(const char* region) {
  if (region == NULL || me == NULL) return region == NULL ? PAPI_EINVAL : PAPI_ENOTRUN;
  if (me->stopped) return PAPI_ENOTRUN;
  const int d = hl_find(me, region);
  if (d < 0) return PAPI_ENOTRUN;
  const int e = hl_record(me, &me->open[d]);
  me->depth = d; /* regions opened inside it and not ended end with it */
  return e;
}

int PAPI_hl_stop(void) {
  if (me == NULL || me->stopped) return PAPI_ENOTRUN;
  long long values[HL_MAX_EVENTS];
  me->stopped = 1;
  return PAPI_stop(me->set, values);
}

/* ---- the report -------------------------------------------------------------------------- */

static int by_id(const void* a, const void* b) {
  return ((const struct hl_record*)a)->id - ((const struct hl_record*)b)->id;
}

static void hl_json(FILE* f) {
  for (int k = 0; k < hl_thread_count; ++k) { /* in region order, as PAPI writes them */
    qsort(hl_threads[k]->done, (size_t)hl_threads[k]->count, sizeof(struct hl_record), by_id);
  }
  const PAPI_hw_info_t* hw = PAPI_get_hardware_info();
  fprintf(f, "{\n  \"papi_version\":\"%d.%d.%d.%d\",\n", PAPI_VERSION_MAJOR(PAPI_VERSION),
          PAPI_VERSION_MINOR(PAPI_VERSION), PAPI_VERSION_REVISION(PAPI_VERSION),
          PAPI_VERSION_INCREMENT(PAPI_VERSION));
  fprintf(f, "  \"cpu_info\":\"%s\",\n", hw->model_string);
  fprintf(f, "  \"max_cpu_rate_mhz\":\"%d\",\n  \"min_cpu_rate_mhz\":\"%d\",\n", hw->cpu_max_mhz,
          hw->cpu_min_mhz);
  fprintf(f, "  \"event_definitions\":{\n");
  for (int i = 0; i < hl_events; ++i) {
    PAPI_event_info_t info;
    PAPI_get_event_info(hl_codes[i], &info);
    const PAPI_component_info_t* c = PAPI_get_component_info(info.component_index);
    fprintf(f, "    \"%s\":{\n      \"component\":\"%s\",\n      \"type\":\"delta\"\n    }%s\n",
            hl_names[i], c != NULL ? c->name : "", i + 1 < hl_events ? "," : "");
  }
  fprintf(f, "  },\n  \"threads\":{\n");
  for (int k = 0; k < hl_thread_count; ++k) {
    const struct hl_thread* t = hl_threads[k];
    fprintf(f, "    \"%d\":{\n      \"regions\":{\n", k);
    for (int j = 0; j < t->count; ++j) {
      const struct hl_record* r = &t->done[j];
      fprintf(
          f,
          "        \"%d\":{\n          \"name\":\"%s\",\n          \"parent_region_id\":\"%d\",\n"
          "          \"cycles\":\"%lld\",\n          \"real_time_nsec\":\"%lld\"",
          r->id, r->name, r->parent, r->cycles, r->nsec);
      for (int i = 0; i < hl_events; ++i) {
        fprintf(f, ",\n          \"%s\":\"%lld\"", hl_names[i], r->values[i]);
      }
      fprintf(f, "\n        }%s\n", j + 1 < t->count ? "," : "");
    }
    fprintf(f, "      }\n    }%s\n", k + 1 < hl_thread_count ? "," : "");
  }
  fprintf(f, "  }\n}\n");
}

static void hl_write(void) {
  int any = 0;
  for (int k = 0; k < hl_thread_count; ++k) any |= hl_threads[k]->count > 0;
  if (!any) return;
  const char* dir = getenv("PAPI_OUTPUT_DIRECTORY");
  char path[PAPI_HUGE_STR_LEN];
  snprintf(path, sizeof path, "%s", dir != NULL && dir[0] != '\0' ? dir : "papi_hl_output");
  if (mkdir(path, 0755) != 0 && errno != EEXIST) {
    fprintf(stderr, "PAPI-HL Error: cannot create %s: %s\n", path, strerror(errno));
    return;
  }
  char file[PAPI_HUGE_STR_LEN + 32];
  snprintf(file, sizeof file, "%s/rank_%06d.json", path, (int)getpid());
  FILE* f = fopen(file, "w");
  if (f == NULL) {
    fprintf(stderr, "PAPI-HL Error: cannot write %s: %s\n", file, strerror(errno));
    return;
  }
  hl_json(f);
  fclose(f);
  if (getenv("PAPI_REPORT") != NULL) {
    printf("\n\nPAPI-HL Output:\n");
    hl_json(stdout);
    fflush(stdout);
  }
}
