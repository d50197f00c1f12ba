/* libmpi: groups (MPI 3.1, chapter 6.3) and the communicators made from them (MPI_Comm_create,
 * MPI_Comm_create_group, MPI_Comm_split_type). A group is an ordered list of world ranks; its
 * handle indexes the library's table (MPI_GROUP_EMPTY is entry 0, always there). One thread uses
 * the library (MPI_THREAD_FUNNELED). */
#include <stdlib.h>
#include <string.h>

#include "mpi_impl.h"

#define MAX_GROUPS 256

typedef struct {
  int used;
  int size;
  int* world; /* world rank of each member, in group order */
} group;

static group groups[MAX_GROUPS] = {[MPI_GROUP_EMPTY] = {1, 0, NULL}};

static group* get(MPI_Group g) {
  return g >= 0 && g < MAX_GROUPS && groups[g].used ? &groups[g] : NULL;
}

/* A new group of `size` members (world ranks `world`, owned; NULL when size is 0). */
static int make(int size, int* world, MPI_Group* out) {
  for (int i = MPI_GROUP_EMPTY + 1; i < MAX_GROUPS; ++i) {
    if (groups[i].used) continue;
    groups[i] = (group){1, size, world};
    *out = i;
    return MPI_SUCCESS;
  }
  free(world);
  return MPI_ERR_INTERN;
}

/* The index of world rank `w` in `g`, or -1. */
static int find(const group* g, int w) {
  for (int i = 0; i < g->size; ++i) {
    if (g->world[i] == w) return i;
  }
  return -1;
}

static int* ranks_array(int n) {
  return malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group* out) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  int* world = ranks_array(c->size);
  if (!world) return MPI_ERR_OTHER;
  memcpy(world, c->world, sizeof(int) * (size_t)c->size);
  return make(c->size, world, out);
}

int MPI_Group_size(MPI_Group g, int* size) {
  const group* p = get(g);
  if (!p) return MPI_ERR_GROUP;
  *size = p->size;
  return MPI_SUCCESS;
}

int MPI_Group_rank(MPI_Group g, int* rank) {
  const group* p = get(g);
  if (!p) return MPI_ERR_GROUP;
  const int i = find(p, hpm_world_rank);
  *rank = i < 0 ? MPI_UNDEFINED : i;
  return MPI_SUCCESS;
}

int MPI_Group_translate_ranks(MPI_Group g1, int n, const int ranks1[], MPI_Group g2, int ranks2[]) {
  const group *a = get(g1), *b = get(g2);
  if (!a || !b) return MPI_ERR_GROUP;
  for (int i = 0; i < n; ++i) {
    if (ranks1[i] == MPI_PROC_NULL) {
      ranks2[i] = MPI_PROC_NULL;
      continue;
    }
    if (ranks1[i] < 0 || ranks1[i] >= a->size) return MPI_ERR_RANK;
    const int j = find(b, a->world[ranks1[i]]);
    ranks2[i] = j < 0 ? MPI_UNDEFINED : j;
  }
  return MPI_SUCCESS;
}

int MPI_Group_compare(MPI_Group g1, MPI_Group g2, int* result) {
  const group *a = get(g1), *b = get(g2);
  if (!a || !b) return MPI_ERR_GROUP;
  int same_order = a->size == b->size, same_members = a->size == b->size;
  for (int i = 0; same_members && i < a->size; ++i) {
    if (a->world[i] != b->world[i]) same_order = 0;
    if (find(b, a->world[i]) < 0) same_members = 0;
  }
  *result = !same_members ? MPI_UNEQUAL : same_order ? MPI_IDENT : MPI_SIMILAR;
  return MPI_SUCCESS;
}

/* The members of `a` that are (keep 1) or are not (keep 0) in `b`, in a's order, then (with
 * `then_b`) b's members not in `a`, in b's order. */
static int combine(MPI_Group g1, MPI_Group g2, int keep, int then_b, MPI_Group* out) {
  const group *a = get(g1), *b = get(g2);
  if (!a || !b) return MPI_ERR_GROUP;
  int* world = ranks_array(a->size + b->size);
  if (!world) return MPI_ERR_OTHER;
  int n = 0;
  for (int i = 0; i < a->size; ++i) {
    if (then_b || (find(b, a->world[i]) >= 0) == keep) world[n++] = a->world[i];
  }
  for (int i = 0; then_b && i < b->size; ++i) {
    if (find(a, b->world[i]) < 0) world[n++] = b->world[i];
  }
  if (n == 0) {
    free(world);
    *out = MPI_GROUP_EMPTY;
    return MPI_SUCCESS;
  }
  return make(n, world, out);
}

int MPI_Group_union(MPI_Group g1, MPI_Group g2, MPI_Group* out) {
  return combine(g1, g2, 1, 1, out);
}

int MPI_Group_intersection(MPI_Group g1, MPI_Group g2, MPI_Group* out) {
  return combine(g1, g2, 1, 0, out);
}

int MPI_Group_difference(MPI_Group g1, MPI_Group g2, MPI_Group* out) {
  return combine(g1, g2, 0, 0, out);
}

/* Marks `picked[r]` for the ranks listed (each in range, none twice); returns an MPI error. */
static int pick(const group* p, int n, const int ranks[], char* picked) {
  for (int i = 0; i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= p->size || picked[ranks[i]]) return MPI_ERR_RANK;
    picked[ranks[i]] = 1;
  }
  return MPI_SUCCESS;
}

int MPI_Group_incl(MPI_Group g, int n, const int ranks[], MPI_Group* out) {
  const group* p = get(g);
  if (!p) return MPI_ERR_GROUP;
  if (n < 0 || n > p->size) return MPI_ERR_ARG;
  char* picked = calloc((size_t)p->size + 1, 1);
  int* world = ranks_array(n);
  if (!picked || !world) {
    free(picked);
    free(world);
    return MPI_ERR_OTHER;
  }
  const int err = pick(p, n, ranks, picked);
  free(picked);
  if (err != MPI_SUCCESS || n == 0) {
    free(world);
    if (err == MPI_SUCCESS) *out = MPI_GROUP_EMPTY;
    return err;
  }
  for (int i = 0; i < n; ++i) world[i] = p->world[ranks[i]];
  return make(n, world, out);
}

int MPI_Group_excl(MPI_Group g, int n, const int ranks[], MPI_Group* out) {
  const group* p = get(g);
  if (!p) return MPI_ERR_GROUP;
  if (n < 0 || n > p->size) return MPI_ERR_ARG;
  char* picked = calloc((size_t)p->size + 1, 1);
  int* world = ranks_array(p->size - n);
  if (!picked || !world) {
    free(picked);
    free(world);
    return MPI_ERR_OTHER;
  }
  const int err = pick(p, n, ranks, picked);
  int k = 0;
  for (int i = 0; err == MPI_SUCCESS && i < p->size; ++i) {
    if (!picked[i]) world[k++] = p->world[i];
  }
  free(picked);
  if (err != MPI_SUCCESS || k == 0) {
    free(world);
    if (err == MPI_SUCCESS) *out = MPI_GROUP_EMPTY;
    return err;
  }
  return make(k, world, out);
}

/* The ranks of `n` triplets (first, last, stride) in order, into a new array (its length into
 * `count`); NULL on a malformed triplet (a zero stride, a rank out of range) or no memory. */
static int* expand(const group* p, int n, int ranges[][3], int* count) {
  long total = 0;
  for (int i = 0; i < n; ++i) {
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    if (stride == 0 || first < 0 || first >= p->size || last < 0 || last >= p->size) return NULL;
    if ((stride > 0 && last < first) || (stride < 0 && last > first)) continue;
    total += (last - first) / stride + 1;
  }
  if (total > p->size) return NULL;
  int* out = ranks_array((int)total);
  if (!out) return NULL;
  int k = 0;
  for (int i = 0; i < n; ++i) {
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    for (int r = first; stride > 0 ? r <= last : r >= last; r += stride) out[k++] = r;
  }
  *count = k;
  return out;
}

int MPI_Group_range_incl(MPI_Group g, int n, int ranges[][3], MPI_Group* out) {
  const group* p = get(g);
  if (!p) return MPI_ERR_GROUP;
  int count = 0;
  int* ranks = expand(p, n, ranges, &count);
  if (!ranks) return MPI_ERR_RANK;
  const int err = MPI_Group_incl(g, count, ranks, out);
  free(ranks);
  return err;
}

int MPI_Group_range_excl(MPI_Group g, int n, int ranges[][3], MPI_Group* out) {
  const group* p = get(g);
  if (!p) return MPI_ERR_GROUP;
  int count = 0;
  int* ranks = expand(p, n, ranges, &count);
  if (!ranks) return MPI_ERR_RANK;
  const int err = MPI_Group_excl(g, count, ranks, out);
  free(ranks);
  return err;
}

int MPI_Group_free(MPI_Group* g) {
  /* MPI_GROUP_EMPTY, which the group operations return for an empty result, may be freed, as
   * Open MPI and MPICH let it be: it stays. */
  if (*g == MPI_GROUP_EMPTY) {
    *g = MPI_GROUP_NULL;
    return MPI_SUCCESS;
  }
  group* p = get(*g);
  if (!p) return MPI_ERR_GROUP;
  free(p->world);
  *p = (group){0, 0, NULL};
  *g = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}

/* A communicator of the group's members, in its order, on context `ctx`; MPI_COMM_NULL for a
 * process outside it. */
static int comm_of(const group* p, int ctx, MPI_Errhandler errhandler, MPI_Comm* out) {
  *out = MPI_COMM_NULL;
  const int rank = find(p, hpm_world_rank);
  if (rank < 0) return MPI_SUCCESS;
  int* world = ranks_array(p->size);
  if (!world) return MPI_ERR_OTHER;
  memcpy(world, p->world, sizeof(int) * (size_t)p->size);
  const int err = hpm_new_comm(p->size, rank, world, ctx, out);
  if (!err) hpm_comms[*out].errhandler = errhandler; /* (the parent's: MPI 3.1, 8.3) */
  return err;
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group g, MPI_Comm* out) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  const group* p = get(g);
  if (!p) return MPI_ERR_GROUP;
  for (int i = 0; i < p->size; ++i) {
    if (hpm_comm_rank_of(c, p->world[i]) == MPI_UNDEFINED) return MPI_ERR_GROUP;
  }
  /* (Collective on the parent: every member agrees on the context, the group's members use it.) */
  return comm_of(p, hpm_agree_context(comm), c->errhandler, out);
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group g, int tag, MPI_Comm* out) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  const group* p = get(g);
  if (!p) return MPI_ERR_GROUP;
  if (tag < 0) return MPI_ERR_TAG;
  const int rank = find(p, hpm_world_rank);
  if (rank < 0) return MPI_ERR_GROUP; /* (only the group's members call it) */
  for (int i = 0; i < p->size; ++i) {
    if (hpm_comm_rank_of(c, p->world[i]) == MPI_UNDEFINED) return MPI_ERR_GROUP;
  }
  const int ctx = hpm_agree_context_among(p->size, rank, p->world, tag);
  if (ctx < 0) return MPI_ERR_OTHER;
  return comm_of(p, ctx, c->errhandler, out);
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* out) {
  (void)info;
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED) return MPI_ERR_ARG;
  /* Each node runs one process, and nodes share no memory: every process is alone in its
   * shared-memory communicator. */
  return MPI_Comm_split(comm, split_type == MPI_UNDEFINED ? MPI_UNDEFINED : hpm_world_rank, key,
                        out);
}
