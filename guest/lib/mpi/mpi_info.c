/* libmpi: info objects (MPI 3.1, 9) and the library's version string. An info object is an
 * ordered list of (key, value) strings: keys in the order they were first set, a set of an
 * existing key replacing its value in place (as Open MPI and MPICH keep them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_impl.h"

#define MAX_INFOS 64

typedef struct {
  int used;
  int n;
  char (*keys)[MPI_MAX_INFO_KEY + 1];
  char** values;
} info;

/* (Handle 0 is MPI_INFO_NULL: entries from 1.) */
static info infos[MAX_INFOS];

static info* get(MPI_Info i) {
  return i > 0 && i < MAX_INFOS && infos[i].used ? &infos[i] : NULL;
}

static int find(const info* p, const char* key) {
  for (int k = 0; k < p->n; ++k) {
    if (strcmp(p->keys[k], key) == 0) return k;
  }
  return -1;
}

int MPI_Info_create(MPI_Info* out) {
  for (int i = 1; i < MAX_INFOS; ++i) {
    if (infos[i].used) continue;
    infos[i] = (info){1, 0, NULL, NULL};
    *out = i;
    return MPI_SUCCESS;
  }
  return MPI_ERR_INTERN;
}

int MPI_Info_set(MPI_Info i, const char* key, const char* value) {
  info* p = get(i);
  if (!p) return MPI_ERR_ARG;
  if (!key || !value || strlen(key) > MPI_MAX_INFO_KEY || strlen(value) > MPI_MAX_INFO_VAL) {
    return MPI_ERR_ARG;
  }
  char* copy = strdup(value);
  if (!copy) return MPI_ERR_OTHER;
  const int k = find(p, key);
  if (k >= 0) {
    free(p->values[k]);
    p->values[k] = copy;
    return MPI_SUCCESS;
  }
  char(*keys)[MPI_MAX_INFO_KEY + 1] = realloc(p->keys, sizeof *p->keys * (size_t)(p->n + 1));
  if (keys) p->keys = keys;
  char** values = realloc(p->values, sizeof *p->values * (size_t)(p->n + 1));
  if (values) p->values = values;
  if (!keys || !values) {
    free(copy);
    return MPI_ERR_OTHER;
  }
  strcpy(p->keys[p->n], key);
  p->values[p->n++] = copy;
  return MPI_SUCCESS;
}

int MPI_Info_get(MPI_Info i, const char* key, int valuelen, char* value, int* flag) {
  const info* p = get(i);
  if (!p) return MPI_ERR_ARG;
  const int k = key ? find(p, key) : -1;
  *flag = k >= 0;
  if (k >= 0 && valuelen >= 0) {
    /* (At most valuelen characters, and the terminator.) */
    strncpy(value, p->values[k], (size_t)valuelen);
    value[valuelen] = '\0';
  }
  return MPI_SUCCESS;
}

int MPI_Info_get_valuelen(MPI_Info i, const char* key, int* valuelen, int* flag) {
  const info* p = get(i);
  if (!p) return MPI_ERR_ARG;
  const int k = key ? find(p, key) : -1;
  *flag = k >= 0;
  if (k >= 0) *valuelen = (int)strlen(p->values[k]);
  return MPI_SUCCESS;
}

int MPI_Info_get_nkeys(MPI_Info i, int* nkeys) {
  const info* p = get(i);
  if (!p) return MPI_ERR_ARG;
  *nkeys = p->n;
  return MPI_SUCCESS;
}

int MPI_Info_get_nthkey(MPI_Info i, int n, char* key) {
  const info* p = get(i);
  if (!p) return MPI_ERR_ARG;
  if (n < 0 || n >= p->n) return MPI_ERR_ARG;
  strcpy(key, p->keys[n]);
  return MPI_SUCCESS;
}

int MPI_Info_delete(MPI_Info i, const char* key) {
  info* p = get(i);
  if (!p) return MPI_ERR_ARG;
  const int k = key ? find(p, key) : -1;
  if (k < 0) return MPI_ERR_ARG; /* (MPI_ERR_INFO_NOKEY's class) */
  free(p->values[k]);
  memmove(&p->keys[k], &p->keys[k + 1], sizeof *p->keys * (size_t)(p->n - k - 1));
  memmove(&p->values[k], &p->values[k + 1], sizeof *p->values * (size_t)(p->n - k - 1));
  --p->n;
  return MPI_SUCCESS;
}

int MPI_Info_dup(MPI_Info i, MPI_Info* out) {
  const info* p = get(i);
  if (!p) return MPI_ERR_ARG;
  int e = MPI_Info_create(out);
  for (int k = 0; !e && k < p->n; ++k) e = MPI_Info_set(*out, p->keys[k], p->values[k]);
  return e;
}

int MPI_Info_free(MPI_Info* i) {
  info* p = get(*i);
  if (!p) return MPI_ERR_ARG;
  for (int k = 0; k < p->n; ++k) free(p->values[k]);
  free(p->keys);
  free(p->values);
  *p = (info){0, 0, NULL, NULL};
  *i = MPI_INFO_NULL;
  return MPI_SUCCESS;
}

int MPI_Get_library_version(char* version, int* resultlen) {
  *resultlen = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                        "hpmsim libmpi (MPI %d.%d) over the Blue Gene message unit", MPI_VERSION,
                        MPI_SUBVERSION);
  return MPI_SUCCESS;
}
