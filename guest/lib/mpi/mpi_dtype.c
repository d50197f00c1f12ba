/* libmpi: derived datatypes (MPI 3.1, chapter 4): their constructors, queries, packing, and the
 * typed messages every communication call sends and receives.
 *
 * A derived type keeps its typemap flattened: runs of bytes, each of elements of one predefined
 * type at a displacement from the buffer's address, in typemap order (neighbouring runs of one
 * type merged). A message carries a type's data packed, in typemap order, so a send of a
 * non-contiguous type packs it into a buffer its request frees, and a receive unpacks when its
 * request is released (mpi_p2p.c's release calls hpm_type_release_request). A type whose
 * instances are one run at the buffer's address, each extent long (every predefined type, and
 * contiguous ones of them), is "dense": its messages go straight from and to the user's buffer.
 *
 * Bounds follow Open MPI, which the tests compare against: a constructor's lower and upper
 * bounds are its components' (so MPI_Type_create_resized's markers stick), and without such
 * markers the extent is rounded up to the strictest alignment of the basic types it holds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_impl.h"

typedef struct {
  int64_t disp, len; /* bytes */
  int type;          /* predefined */
} run;

typedef struct {
  int used;      /* the handle is taken (until freed and no request needs it) */
  int freed;     /* MPI_Type_free called: it goes when `refs` drops to 0 */
  int committed; /* communication may use it */
  int refs;      /* receives that will unpack into it */
  int markers;   /* bounds set explicitly (MPI_Type_create_resized, subarray, darray): sticky */
  int bounded;   /* lb and ub hold a component's bounds (not for an empty type) */
  int64_t size, lb, ub, true_lb, true_ub;
  int64_t elements; /* basic elements per instance */
  int align;
  run* runs;
  int nruns, cap;
} dtype;

static dtype* table;
static int table_size;

/* A derived type's entry, freed or not (a receive pending on a freed type still unpacks). */
static dtype* entry(MPI_Datatype t) {
  const int i = t - HPM_TYPE_DERIVED;
  if (i < 0 || i >= table_size || !table[i].used) return NULL;
  return &table[i];
}

/* A derived type the program may still use (not freed). */
static dtype* derived(MPI_Datatype t) {
  dtype* d = entry(t);
  return d && !d->freed ? d : NULL;
}

/* The alignment of a predefined type (its C counterpart's). */
static int basic_align(MPI_Datatype t) {
  switch (t) {
    case MPI_2INT:
    case MPI_2INTEGER:
    case MPI_2REAL:
    case MPI_FLOAT_INT: return 4;
    case MPI_2DOUBLE_PRECISION: return 8;
    case MPI_DOUBLE_INT:
    case MPI_LONG_INT: return 8;
    case MPI_C_FLOAT_COMPLEX:
    case MPI_COMPLEX: return 4;
    case MPI_C_DOUBLE_COMPLEX:
    case MPI_DOUBLE_COMPLEX: return 8;
    case MPI_C_LONG_DOUBLE_COMPLEX: return 16;
    default: return hpm_basic_size(t);
  }
}

int hpm_type_size(MPI_Datatype t) {
  const dtype* d = entry(t);
  if (!d) return hpm_basic_size(t);
  return d->committed && d->size <= INT32_MAX ? (int)d->size : 0;
}

int hpm_type_ok(MPI_Datatype t) {
  const dtype* d = derived(t);
  return d ? d->committed : hpm_basic_size(t) > 0;
}

int64_t hpm_type_extent(MPI_Datatype t) {
  const dtype* d = entry(t);
  return d ? d->ub - d->lb : hpm_basic_size(t);
}

int hpm_type_dense(MPI_Datatype t) {
  const dtype* d = entry(t);
  if (!d) return 1;
  return d->lb == 0 && d->ub == d->size &&
         (d->nruns == 0 || (d->nruns == 1 && d->runs[0].disp == 0));
}

/* ---- building typemaps ---- */

static void add_run(dtype* d, int64_t disp, int64_t len, int type) {
  if (len == 0) return;
  if (d->nruns) {
    run* last = &d->runs[d->nruns - 1];
    if (last->type == type && last->disp + last->len == disp) {
      last->len += len;
      return;
    }
  }
  run* grown = hpm_grow(d->runs, d->nruns, &d->cap, sizeof *grown);
  if (!grown) MPI_Abort(MPI_COMM_WORLD, MPI_ERR_OTHER); /* (nothing sensible remains) */
  d->runs = grown;
  d->runs[d->nruns++] = (run){disp, len, type};
}

static void widen(int64_t* lo, int64_t* hi, int* have, int64_t l, int64_t h) {
  if (!*have || l < *lo) *lo = l;
  if (!*have || h > *hi) *hi = h;
  *have = 1;
}

/* Appends `count` instances of `old` (valid) at `disp`, each its extent after the last. */
static void append(dtype* d, MPI_Datatype old, int64_t disp, int64_t count) {
  if (count <= 0) return;
  const dtype* o = derived(old);
  const int64_t ext = hpm_type_extent(old);
  const int64_t lb = o ? o->lb : 0, ub = o ? o->ub : ext;
  const int64_t first = ext >= 0 ? 0 : (count - 1) * ext, last = ext >= 0 ? (count - 1) * ext : 0;
  widen(&d->lb, &d->ub, &d->bounded, disp + lb + first, disp + ub + last);
  if (o && o->markers) d->markers = 1;
  const int align = o ? o->align : basic_align(old);
  if (align > d->align) d->align = align;
  int have_true = d->size > 0;
  if (!o) {
    d->size += count * ext;
    d->elements += count;
    widen(&d->true_lb, &d->true_ub, &have_true, disp + first, disp + ext + last);
    add_run(d, disp, count * ext, old);
    return;
  }
  d->size += count * o->size;
  d->elements += count * o->elements;
  if (o->size) {
    widen(&d->true_lb, &d->true_ub, &have_true, disp + o->true_lb + first,
          disp + o->true_ub + last);
  }
  if (o->nruns == 1 && o->runs[0].disp == 0 && o->runs[0].len == ext) {
    add_run(d, disp, count * ext, o->runs[0].type); /* (dense: one run) */
    return;
  }
  const int n = o->nruns;
  for (int64_t i = 0; i < count; ++i) {
    for (int k = 0; k < n; ++k) {
      add_run(d, disp + i * ext + o->runs[k].disp, o->runs[k].len, o->runs[k].type);
    }
  }
}

/* A new table entry (its index in *slot); the table may move, so callers look types up after. */
static int new_slot(int* slot) {
  for (int i = 0; i < table_size; ++i) {
    if (!table[i].used) {
      *slot = i;
      return MPI_SUCCESS;
    }
  }
  const int size = table_size ? 2 * table_size : 16;
  dtype* grown = realloc(table, sizeof(dtype) * (size_t)size);
  if (!grown) return MPI_ERR_OTHER;
  memset(grown + table_size, 0, sizeof(dtype) * (size_t)(size - table_size));
  table = grown;
  *slot = table_size;
  table_size = size;
  return MPI_SUCCESS;
}

/* Builds a type in a scratch entry, then rounds its extent and publishes it as *out. */
static dtype scratch_type(void) {
  dtype d;
  memset(&d, 0, sizeof d);
  d.align = 1;
  return d;
}

static int publish(dtype* d, MPI_Datatype* out) {
  if (!d->bounded) d->lb = d->ub = 0;
  if (!d->markers && d->align > 1) {
    const int64_t rem = (d->ub - d->lb) % d->align;
    if (rem) d->ub += d->align - rem;
  }
  if (d->size == 0) d->true_lb = d->true_ub = 0;
  int slot;
  if (new_slot(&slot)) {
    free(d->runs);
    return MPI_ERR_OTHER;
  }
  d->used = 1;
  table[slot] = *d;
  *out = HPM_TYPE_DERIVED + slot;
  return MPI_SUCCESS;
}

static int valid(MPI_Datatype t) {
  return derived(t) != NULL || hpm_basic_size(t) > 0;
}

int MPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype* out) {
  if (count < 0) return MPI_ERR_COUNT;
  if (!valid(old)) return MPI_ERR_TYPE;
  dtype d = scratch_type();
  append(&d, old, 0, count);
  return publish(&d, out);
}

int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype old,
                            MPI_Datatype* out) {
  if (count < 0 || blocklength < 0) return MPI_ERR_COUNT;
  if (!valid(old)) return MPI_ERR_TYPE;
  dtype d = scratch_type();
  for (int i = 0; i < count; ++i) append(&d, old, (int64_t)i * stride, blocklength);
  return publish(&d, out);
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype old, MPI_Datatype* out) {
  if (!valid(old)) return MPI_ERR_TYPE;
  return MPI_Type_create_hvector(count, blocklength, (MPI_Aint)stride * hpm_type_extent(old), old,
                                 out);
}

int MPI_Type_create_hindexed(int count, const int blocklengths[], const MPI_Aint displs[],
                             MPI_Datatype old, MPI_Datatype* out) {
  if (count < 0) return MPI_ERR_COUNT;
  if (!valid(old)) return MPI_ERR_TYPE;
  dtype d = scratch_type();
  for (int i = 0; i < count; ++i) {
    if (blocklengths[i] < 0) {
      free(d.runs);
      return MPI_ERR_ARG;
    }
    append(&d, old, displs[i], blocklengths[i]);
  }
  return publish(&d, out);
}

int MPI_Type_indexed(int count, const int blocklengths[], const int displs[], MPI_Datatype old,
                     MPI_Datatype* out) {
  if (count < 0) return MPI_ERR_COUNT;
  if (!valid(old)) return MPI_ERR_TYPE;
  MPI_Aint* bytes = malloc(sizeof(MPI_Aint) * (size_t)(count + 1));
  if (!bytes) return MPI_ERR_OTHER;
  for (int i = 0; i < count; ++i) bytes[i] = (MPI_Aint)displs[i] * hpm_type_extent(old);
  const int err = MPI_Type_create_hindexed(count, blocklengths, bytes, old, out);
  free(bytes);
  return err;
}

int MPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displs[],
                                   MPI_Datatype old, MPI_Datatype* out) {
  if (count < 0 || blocklength < 0) return MPI_ERR_COUNT;
  if (!valid(old)) return MPI_ERR_TYPE;
  dtype d = scratch_type();
  for (int i = 0; i < count; ++i) append(&d, old, displs[i], blocklength);
  return publish(&d, out);
}

int MPI_Type_create_indexed_block(int count, int blocklength, const int displs[], MPI_Datatype old,
                                  MPI_Datatype* out) {
  if (count < 0 || blocklength < 0) return MPI_ERR_COUNT;
  if (!valid(old)) return MPI_ERR_TYPE;
  dtype d = scratch_type();
  for (int i = 0; i < count; ++i) {
    append(&d, old, (int64_t)displs[i] * hpm_type_extent(old), blocklength);
  }
  return publish(&d, out);
}

int MPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displs[],
                           const MPI_Datatype types[], MPI_Datatype* out) {
  if (count < 0) return MPI_ERR_COUNT;
  for (int i = 0; i < count; ++i) {
    if (!valid(types[i])) return MPI_ERR_TYPE;
    if (blocklengths[i] < 0) return MPI_ERR_ARG;
  }
  dtype d = scratch_type();
  for (int i = 0; i < count; ++i) append(&d, types[i], displs[i], blocklengths[i]);
  return publish(&d, out);
}

int MPI_Type_create_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* out) {
  if (!valid(old)) return MPI_ERR_TYPE;
  dtype d = scratch_type();
  append(&d, old, 0, 1);
  d.lb = lb;
  d.ub = lb + extent;
  d.bounded = d.markers = 1;
  return publish(&d, out);
}

int MPI_Type_dup(MPI_Datatype old, MPI_Datatype* out) {
  if (!valid(old)) return MPI_ERR_TYPE;
  const dtype* o = derived(old);
  const int committed = o ? o->committed : 1;
  dtype d = scratch_type();
  append(&d, old, 0, 1);
  /* (The same bounds and markers: an original without markers is rounded already.) */
  d.lb = o ? o->lb : 0;
  d.ub = o ? o->ub : hpm_type_extent(old);
  d.bounded = 1;
  d.markers = o ? o->markers : 0;
  const int err = publish(&d, out);
  if (!err) derived(*out)->committed = committed;
  return err;
}

/* An array type (subarray, darray): `nd` dimensions of the global array (`sizes`, elements of
 * `old`), the local indices of each dimension given by `pick(dim, i)` for i < n[dim] (ascending),
 * dimension `order[0]` slowest; resized to the whole array, as MPI defines them. */
typedef struct {
  int nd;
  const int* sizes;
  const int* counts; /* indices per dimension */
  int** index;       /* index[dim][i] */
  int order[32];     /* slowest first */
  MPI_Datatype old;
} array_map;

static void emit(dtype* d, const array_map* m, int level, int64_t offset, const int64_t* stride) {
  const int dim = m->order[level];
  const int n = m->counts[dim];
  if (level == m->nd - 1) {
    /* The fastest dimension: runs of consecutive indices as one append. */
    for (int i = 0; i < n;) {
      int j = i + 1;
      while (j < n && m->index[dim][j] == m->index[dim][j - 1] + 1) ++j;
      append(d, m->old, offset + (int64_t)m->index[dim][i] * stride[dim], j - i);
      i = j;
    }
    return;
  }
  for (int i = 0; i < n; ++i) {
    emit(d, m, level + 1, offset + (int64_t)m->index[dim][i] * stride[dim], stride);
  }
}

static int array_type(array_map* m, int order, MPI_Datatype* out) {
  if (m->nd <= 0 || m->nd > 32) return MPI_ERR_ARG;
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) return MPI_ERR_ARG;
  int64_t stride[32];
  const int64_t ext = hpm_type_extent(m->old);
  int64_t whole = ext;
  for (int k = 0; k < m->nd; ++k) m->order[k] = order == MPI_ORDER_C ? k : m->nd - 1 - k;
  for (int k = m->nd - 1; k >= 0; --k) {
    stride[m->order[k]] = whole;
    whole *= m->sizes[m->order[k]];
  }
  dtype d = scratch_type();
  int empty = 0;
  for (int k = 0; k < m->nd; ++k) empty |= m->counts[k] == 0;
  if (!empty) emit(&d, m, 0, 0, stride);
  d.lb = 0;
  d.ub = whole;
  d.bounded = d.markers = 1;
  return publish(&d, out);
}

static void free_index(int** index, int nd) {
  for (int k = 0; k < nd; ++k) free(index[k]);
  free(index);
}

int MPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[],
                             int order, MPI_Datatype old, MPI_Datatype* out) {
  if (!valid(old)) return MPI_ERR_TYPE;
  if (ndims <= 0 || ndims > 32) return MPI_ERR_ARG;
  for (int k = 0; k < ndims; ++k) {
    if (sizes[k] <= 0 || subsizes[k] < 0 || starts[k] < 0 || starts[k] + subsizes[k] > sizes[k])
      return MPI_ERR_ARG;
  }
  int** index = calloc((size_t)ndims, sizeof(int*));
  if (!index) return MPI_ERR_OTHER;
  for (int k = 0; k < ndims; ++k) {
    index[k] = malloc(sizeof(int) * (size_t)(subsizes[k] + 1));
    if (!index[k]) {
      free_index(index, ndims);
      return MPI_ERR_OTHER;
    }
    for (int i = 0; i < subsizes[k]; ++i) index[k][i] = starts[k] + i;
  }
  array_map m = {ndims, sizes, subsizes, index, {0}, old};
  const int err = array_type(&m, order, out);
  free_index(index, ndims);
  return err;
}

int MPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                           const int dargs[], const int psizes[], int order, MPI_Datatype old,
                           MPI_Datatype* out) {
  if (!valid(old)) return MPI_ERR_TYPE;
  if (ndims <= 0 || ndims > 32 || rank < 0 || rank >= size) return MPI_ERR_ARG;
  int procs = 1;
  for (int k = 0; k < ndims; ++k) procs *= psizes[k];
  if (procs != size) return MPI_ERR_ARG;
  /* The process grid is row-major whatever the array's order (MPI 3.1, 4.1.4). */
  int coords[32];
  for (int k = ndims - 1, r = rank; k >= 0; --k) {
    coords[k] = r % psizes[k];
    r /= psizes[k];
  }
  int** index = calloc((size_t)ndims, sizeof(int*));
  int counts[32];
  if (!index) return MPI_ERR_OTHER;
  int err = MPI_SUCCESS;
  for (int k = 0; k < ndims && !err; ++k) {
    const int g = gsizes[k], p = psizes[k], c = coords[k];
    index[k] = malloc(sizeof(int) * (size_t)(g + 1));
    if (!index[k]) {
      err = MPI_ERR_OTHER;
      break;
    }
    int n = 0;
    if (distribs[k] == MPI_DISTRIBUTE_NONE) {
      if (p != 1) err = MPI_ERR_ARG;
      for (int i = 0; i < g; ++i) index[k][n++] = i;
    } else if (distribs[k] == MPI_DISTRIBUTE_BLOCK) {
      const int b = dargs[k] == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : dargs[k];
      if (b <= 0 || (int64_t)b * p < g) err = MPI_ERR_ARG;
      for (int i = c * b; !err && i < g && i < (c + 1) * b; ++i) index[k][n++] = i;
    } else if (distribs[k] == MPI_DISTRIBUTE_CYCLIC) {
      const int b = dargs[k] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : dargs[k];
      if (b <= 0) err = MPI_ERR_ARG;
      for (int i = 0; !err && i < g; ++i) {
        if ((i / b) % p == c) index[k][n++] = i;
      }
    } else {
      err = MPI_ERR_ARG;
    }
    counts[k] = n;
  }
  if (!err) {
    array_map m = {ndims, gsizes, counts, index, {0}, old};
    err = array_type(&m, order, out);
  }
  free_index(index, ndims);
  return err;
}

int MPI_Type_commit(MPI_Datatype* t) {
  dtype* d = derived(*t);
  if (d) d->committed = 1;
  return d || valid(*t) ? MPI_SUCCESS : MPI_ERR_TYPE;
}

static void drop(dtype* d) {
  free(d->runs);
  memset(d, 0, sizeof *d);
}

int MPI_Type_free(MPI_Datatype* t) {
  dtype* d = derived(*t);
  if (!d) return MPI_ERR_TYPE; /* (predefined types cannot be freed) */
  d->freed = 1;
  if (d->refs == 0) drop(d);
  *t = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

/* ---- queries ---- */

int MPI_Type_size(MPI_Datatype t, int* size) {
  const dtype* d = derived(t);
  if (!d && !valid(t)) return MPI_ERR_TYPE;
  const int64_t s = d ? d->size : hpm_basic_size(t);
  *size = s > INT32_MAX ? MPI_UNDEFINED : (int)s;
  return MPI_SUCCESS;
}

int MPI_Type_size_x(MPI_Datatype t, MPI_Count* size) {
  const dtype* d = derived(t);
  if (!d && !valid(t)) return MPI_ERR_TYPE;
  *size = d ? d->size : hpm_basic_size(t);
  return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype t, MPI_Aint* lb, MPI_Aint* extent) {
  if (!valid(t)) return MPI_ERR_TYPE;
  const dtype* d = derived(t);
  *lb = d ? d->lb : 0;
  *extent = hpm_type_extent(t);
  return MPI_SUCCESS;
}

int MPI_Type_get_extent_x(MPI_Datatype t, MPI_Count* lb, MPI_Count* extent) {
  MPI_Aint l, e;
  const int err = MPI_Type_get_extent(t, &l, &e);
  if (!err) {
    *lb = l;
    *extent = e;
  }
  return err;
}

int MPI_Type_get_true_extent(MPI_Datatype t, MPI_Aint* lb, MPI_Aint* extent) {
  if (!valid(t)) return MPI_ERR_TYPE;
  const dtype* d = derived(t);
  *lb = d ? d->true_lb : 0;
  *extent = d ? d->true_ub - d->true_lb : hpm_basic_size(t);
  return MPI_SUCCESS;
}

int MPI_Type_get_true_extent_x(MPI_Datatype t, MPI_Count* lb, MPI_Count* extent) {
  MPI_Aint l, e;
  const int err = MPI_Type_get_true_extent(t, &l, &e);
  if (!err) {
    *lb = l;
    *extent = e;
  }
  return err;
}

int MPI_Get_address(const void* location, MPI_Aint* address) {
  *address = (MPI_Aint)(uintptr_t)location;
  return MPI_SUCCESS;
}

MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return base + disp;
}

MPI_Aint MPI_Aint_diff(MPI_Aint a, MPI_Aint b) {
  return a - b;
}

int MPI_Get_elements_x(const MPI_Status* status, MPI_Datatype t, MPI_Count* count) {
  if (!valid(t)) return MPI_ERR_TYPE;
  const int64_t bytes = (int64_t)status->hpm_bytes;
  const dtype* d = derived(t);
  if (!d) {
    const int size = hpm_basic_size(t);
    *count = bytes % size ? MPI_UNDEFINED : bytes / size;
    return MPI_SUCCESS;
  }
  if (d->size == 0) {
    *count = 0;
    return MPI_SUCCESS;
  }
  int64_t n = bytes / d->size * d->elements, rest = bytes % d->size;
  for (int k = 0; k < d->nruns && rest > 0; ++k) {
    const int64_t len = d->runs[k].len < rest ? d->runs[k].len : rest;
    const int size = hpm_basic_size(d->runs[k].type);
    if (len % size) {
      *count = MPI_UNDEFINED;
      return MPI_SUCCESS;
    }
    n += len / size;
    rest -= len;
  }
  *count = n;
  return MPI_SUCCESS;
}

int MPI_Get_elements(const MPI_Status* status, MPI_Datatype t, int* count) {
  MPI_Count n;
  const int err = MPI_Get_elements_x(status, t, &n);
  if (!err) *count = n > INT32_MAX ? MPI_UNDEFINED : (int)n;
  return err;
}

/* ---- packing ---- */

uint64_t hpm_type_pack(const void* buf, int64_t count, MPI_Datatype t, void* out) {
  const dtype* d = entry(t);
  if (!d || hpm_type_dense(t)) {
    const uint64_t bytes = (uint64_t)count * (uint64_t)(d ? d->size : hpm_basic_size(t));
    if (bytes) memcpy(out, buf, bytes);
    return bytes;
  }
  unsigned char* to = out;
  const int64_t ext = d->ub - d->lb;
  for (int64_t i = 0; i < count; ++i) {
    const unsigned char* from = (const unsigned char*)buf + i * ext;
    for (int k = 0; k < d->nruns; ++k) {
      memcpy(to, from + d->runs[k].disp, (size_t)d->runs[k].len);
      to += d->runs[k].len;
    }
  }
  return (uint64_t)(to - (unsigned char*)out);
}

void hpm_type_unpack(const void* in, uint64_t bytes, void* buf, int64_t count, MPI_Datatype t) {
  const dtype* d = entry(t);
  if (!d || hpm_type_dense(t)) {
    const uint64_t all = (uint64_t)count * (uint64_t)(d ? d->size : hpm_basic_size(t));
    if (bytes > all) bytes = all;
    if (bytes) memmove(buf, in, bytes); /* (a schedule's copies may overlap) */
    return;
  }
  const unsigned char* from = in;
  const int64_t ext = d->ub - d->lb;
  for (int64_t i = 0; i < count && bytes > 0; ++i) {
    unsigned char* to = (unsigned char*)buf + i * ext;
    for (int k = 0; k < d->nruns && bytes > 0; ++k) {
      const uint64_t len = (uint64_t)d->runs[k].len < bytes ? (uint64_t)d->runs[k].len : bytes;
      memcpy(to + d->runs[k].disp, from, len);
      from += len;
      bytes -= len;
    }
  }
}

int hpm_type_copy(const void* src, int64_t scount, MPI_Datatype stype, void* dst, int64_t rcount,
                  MPI_Datatype rtype) {
  const uint64_t bytes = (uint64_t)scount * (uint64_t)hpm_type_size(stype);
  if (hpm_type_dense(stype)) {
    hpm_type_unpack(src, bytes, dst, rcount, rtype);
    return MPI_SUCCESS;
  }
  void* packed = malloc(bytes + 1);
  if (!packed) return MPI_ERR_OTHER;
  hpm_type_pack(src, scount, stype, packed);
  hpm_type_unpack(packed, bytes, dst, rcount, rtype);
  free(packed);
  return MPI_SUCCESS;
}

void* hpm_type_alloc(int64_t count, MPI_Datatype t, void** block) {
  const dtype* d = entry(t);
  if (!d) {
    *block = malloc((size_t)count * (size_t)hpm_basic_size(t) + 1);
    return *block;
  }
  const int64_t ext = d->ub - d->lb;
  const int64_t span =
      count > 0 ? d->true_ub - d->true_lb + (count - 1) * (ext < 0 ? -ext : ext) : 0;
  const int64_t low = d->true_lb + (count > 0 && ext < 0 ? (count - 1) * ext : 0);
  *block = malloc((size_t)span + 1);
  return *block ? (void*)((uintptr_t)*block - (uintptr_t)low) : NULL;
}

void hpm_type_runs(int64_t count, MPI_Datatype t, hpm_run_fn fn, void* arg) {
  const dtype* d = entry(t);
  if (!d) {
    if (count > 0) fn(arg, 0, count * hpm_basic_size(t), t);
    return;
  }
  const int64_t ext = d->ub - d->lb;
  int64_t at = 0, len = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  for (int64_t i = 0; i < count; ++i) {
    for (int k = 0; k < d->nruns; ++k) {
      const run* r = &d->runs[k];
      if (len && type == r->type && at + len == i * ext + r->disp) {
        len += r->len;
        continue;
      }
      if (len) fn(arg, at, len, type);
      at = i * ext + r->disp;
      len = r->len;
      type = r->type;
    }
  }
  if (len) fn(arg, at, len, type);
}

int MPI_Pack_size(int incount, MPI_Datatype t, MPI_Comm comm, int* size) {
  (void)comm;
  MPI_Count s;
  const int err = MPI_Type_size_x(t, &s);
  if (err) return err;
  if (incount < 0) return MPI_ERR_COUNT;
  *size = (int)(s * incount);
  return MPI_SUCCESS;
}

int MPI_Pack(const void* inbuf, int incount, MPI_Datatype t, void* outbuf, int outsize,
             int* position, MPI_Comm comm) {
  int size;
  const int err = MPI_Pack_size(incount, t, comm, &size);
  if (err) return err;
  if (*position < 0 || *position + size > outsize) return MPI_ERR_TRUNCATE;
  *position += (int)hpm_type_pack(inbuf, incount, t, (char*)outbuf + *position);
  return MPI_SUCCESS;
}

int MPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
               MPI_Datatype t, MPI_Comm comm) {
  int size;
  const int err = MPI_Pack_size(outcount, t, comm, &size);
  if (err) return err;
  if (*position < 0 || *position + size > insize) return MPI_ERR_TRUNCATE;
  hpm_type_unpack((const char*)inbuf + *position, (uint64_t)size, outbuf, outcount, t);
  *position += size;
  return MPI_SUCCESS;
}

/* ---- reductions and typed messages ---- */

int hpm_reduce_apply(MPI_Op op, MPI_Datatype type, const void* in, void* inout, int count) {
  /* A derived type takes only user-defined operations, as in Open MPI ("MPI_SUM is not defined
   * for non-intrinsic datatypes"): their function gets the buffers in the type's layout. */
  if (derived(type) && op >= MPI_MAX && op <= MPI_MINLOC) return MPI_ERR_OP;
  return hpm_basic_reduce(op, type, in, inout, count);
}

int hpm_isend_typed(const void* buf, int64_t count, MPI_Datatype type, int dest_world, int ctx,
                    int tag, int sync, MPI_Request* r) {
  const uint64_t bytes = (uint64_t)count * (uint64_t)hpm_type_size(type);
  if (hpm_type_dense(type)) return hpm_isend_mode(buf, bytes, dest_world, ctx, tag, sync, r);
  void* packed = malloc(bytes + 1);
  if (!packed) return MPI_ERR_OTHER;
  hpm_type_pack(buf, count, type, packed);
  const int err = hpm_isend_mode(packed, bytes, dest_world, ctx, tag, sync, r);
  hpm_request(*r)->dt_packed = packed;
  return err;
}

int hpm_irecv_typed(void* buf, int64_t count, MPI_Datatype type, int comm, int src_world, int ctx,
                    int tag, MPI_Request* r) {
  const uint64_t bytes = (uint64_t)count * (uint64_t)hpm_type_size(type);
  if (hpm_type_dense(type)) return hpm_irecv(buf, bytes, comm, src_world, ctx, tag, r);
  void* packed = malloc(bytes + 1);
  if (!packed) return MPI_ERR_OTHER;
  const int err = hpm_irecv(packed, bytes, comm, src_world, ctx, tag, r);
  hpm_req* q = hpm_request(*r);
  q->dt_packed = packed;
  q->dt_buf = buf;
  q->dt_count = count;
  q->dt_type = type;
  entry(type)->refs++;
  return err;
}

void hpm_type_release_request(hpm_req* r) {
  if (!r->dt_packed) return;
  if (r->dt_buf) {
    if (!r->status.hpm_cancelled) {
      hpm_type_unpack(r->dt_packed, r->status.hpm_bytes, r->dt_buf, r->dt_count, r->dt_type);
    }
    dtype* d = entry(r->dt_type);
    if (--d->refs == 0 && d->freed) drop(d);
  }
  free(r->dt_packed);
  r->dt_packed = NULL;
  r->dt_buf = NULL;
}
