/* libmpi: Cartesian topologies, and what every topology shares (its block, MPI_Topo_test). Ranks
 * keep their order (reorder is allowed and not done); the coordinates of a rank are row-major,
 * the last dimension varying fastest, as MPI specifies. Graphs are in mpi_graph.c. */
#include <stdlib.h>
#include <string.h>

#include "mpi_impl.h"

int MPI_Dims_create(int nnodes, int ndims, int dims[]) {
  if (nnodes <= 0 || ndims < 0) return MPI_ERR_ARG;
  int rest = nnodes, free_dims = 0;
  for (int d = 0; d < ndims; ++d) {
    if (dims[d] < 0) return MPI_ERR_ARG;
    if (dims[d] == 0) {
      ++free_dims;
    } else if (rest % dims[d] != 0) {
      return MPI_ERR_ARG;
    } else {
      rest /= dims[d];
    }
  }
  if (free_dims == 0) return rest == 1 ? MPI_SUCCESS : MPI_ERR_ARG;
  /* The free dimensions as close to each other as the factors allow: each prime factor,
   * largest first, multiplies the smallest of them; then in non-increasing order. */
  int* f = calloc((size_t)free_dims, sizeof(int));
  if (!f) return MPI_ERR_OTHER;
  for (int i = 0; i < free_dims; ++i) f[i] = 1;
  int primes[32], n = 0;
  for (int p = 2, m = rest; m > 1;) {
    if (m % p == 0) {
      primes[n++] = p;
      m /= p;
    } else {
      p = p * p > m ? m : p + 1;
    }
  }
  for (int i = n - 1; i >= 0; --i) {
    int smallest = 0;
    for (int k = 1; k < free_dims; ++k) {
      if (f[k] < f[smallest]) smallest = k;
    }
    f[smallest] *= primes[i];
  }
  for (int a = 0; a < free_dims; ++a) {
    for (int b = a + 1; b < free_dims; ++b) {
      if (f[b] > f[a]) {
        const int t = f[a];
        f[a] = f[b];
        f[b] = t;
      }
    }
  }
  for (int d = 0, k = 0; d < ndims; ++d) {
    if (dims[d] == 0) dims[d] = f[k++];
  }
  free(f);
  return MPI_SUCCESS;
}

hpm_topo* hpm_topo_new(int kind, size_t ints) {
  const size_t bytes = sizeof(hpm_topo) + sizeof(int) * ints;
  hpm_topo* t = calloc(1, bytes);
  if (!t) return NULL;
  t->kind = kind;
  t->bytes = bytes;
  return t;
}

hpm_topo* hpm_topo_copy(const hpm_topo* t) {
  hpm_topo* n = t ? malloc(t->bytes) : NULL;
  if (n) memcpy(n, t, t->bytes);
  return n;
}

/* A Cartesian communicator's entry (NULL for any other), its dimensions and periodicity. */
static hpm_comm* cart(MPI_Comm comm) {
  hpm_comm* c = hpm_comm_get(comm);
  return c && c->topo && c->topo->kind == MPI_CART ? c : NULL;
}
static int* dims_of(const hpm_comm* c) {
  return c->topo->data;
}
static int* periods_of(const hpm_comm* c) {
  return c->topo->data + c->topo->ndims;
}

/* Gives the new communicator a Cartesian topology of `ndims` dimensions (periods: 0 or 1). */
static int set_cart(MPI_Comm comm, int ndims, const int dims[], const int periods[]) {
  hpm_topo* t = hpm_topo_new(MPI_CART, 2 * (size_t)ndims);
  if (!t) return MPI_ERR_OTHER;
  t->ndims = ndims;
  for (int d = 0; d < ndims; ++d) {
    t->data[d] = dims[d];
    t->data[ndims + d] = periods[d] != 0;
  }
  hpm_comms[comm].topo = t;
  return MPI_SUCCESS;
}

int MPI_Cart_create(MPI_Comm old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm* out) {
  (void)reorder;
  hpm_comm* c = hpm_comm_get(old);
  if (!c) return MPI_ERR_COMM;
  if (ndims <= 0) return MPI_ERR_ARG;
  int product = 1;
  for (int d = 0; d < ndims; ++d) {
    if (dims[d] <= 0) return MPI_ERR_ARG;
    product *= dims[d];
  }
  if (product > c->size) return MPI_ERR_ARG;
  /* The first `product` ranks, in order; the others get MPI_COMM_NULL. */
  const int err = MPI_Comm_split(old, c->rank < product ? 0 : MPI_UNDEFINED, c->rank, out);
  if (err || *out == MPI_COMM_NULL) return err;
  return set_cart(*out, ndims, dims, periods);
}

int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
  (void)periods;
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  if (ndims <= 0) return MPI_ERR_DIMS;
  int product = 1;
  for (int d = 0; d < ndims; ++d) {
    if (dims[d] <= 0) return MPI_ERR_DIMS;
    product *= dims[d];
  }
  if (product > c->size) return MPI_ERR_DIMS;
  /* (The identity placement MPI_Cart_create makes.) */
  *newrank = c->rank < product ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int MPI_Topo_test(MPI_Comm comm, int* status) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  *status = c->topo ? c->topo->kind : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int MPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  hpm_comm* c = cart(comm);
  if (!c) return MPI_ERR_COMM;
  *ndims = c->topo->ndims;
  return MPI_SUCCESS;
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  hpm_comm* c = cart(comm);
  if (!c) return MPI_ERR_COMM;
  if (rank < 0 || rank >= c->size) return MPI_ERR_RANK;
  const int* dims = dims_of(c);
  for (int d = c->topo->ndims - 1; d >= 0; --d) {
    if (d < maxdims) coords[d] = rank % dims[d];
    rank /= dims[d];
  }
  return MPI_SUCCESS;
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  hpm_comm* c = cart(comm);
  if (!c) return MPI_ERR_COMM;
  for (int d = 0; d < c->topo->ndims && d < maxdims; ++d) {
    dims[d] = dims_of(c)[d];
    periods[d] = periods_of(c)[d];
  }
  return MPI_Cart_coords(comm, c->rank, maxdims, coords);
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  hpm_comm* c = cart(comm);
  if (!c) return MPI_ERR_COMM;
  const int* dims = dims_of(c);
  const int* periods = periods_of(c);
  int r = 0;
  for (int d = 0; d < c->topo->ndims; ++d) {
    int x = coords[d];
    if (periods[d]) {
      x = ((x % dims[d]) + dims[d]) % dims[d];
    } else if (x < 0 || x >= dims[d]) {
      return MPI_ERR_ARG;
    }
    r = r * dims[d] + x;
  }
  *rank = r;
  return MPI_SUCCESS;
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* source, int* dest) {
  hpm_comm* c = cart(comm);
  if (!c) return MPI_ERR_COMM;
  const int ndims = c->topo->ndims;
  if (direction < 0 || direction >= ndims) return MPI_ERR_ARG;
  int coords[64];
  if (ndims > 64) return MPI_ERR_ARG;
  MPI_Cart_coords(comm, c->rank, ndims, coords);
  const int here = coords[direction];
  /* The rank `delta` steps along the direction, or MPI_PROC_NULL off a non-periodic edge. */
  for (int k = 0; k < 2; ++k) {
    const int delta = k == 0 ? -disp : disp;
    coords[direction] = here + delta;
    int* out = k == 0 ? source : dest;
    if (MPI_Cart_rank(comm, coords, out) != MPI_SUCCESS) *out = MPI_PROC_NULL;
  }
  return MPI_SUCCESS;
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  hpm_comm* c = cart(comm);
  if (!c) return MPI_ERR_COMM;
  const int ndims = c->topo->ndims;
  int coords[64], dims[64], periods[64];
  if (ndims > 64) return MPI_ERR_ARG;
  MPI_Cart_coords(comm, c->rank, ndims, coords);
  /* Ranks that share the dropped dimensions' coordinates form one sub-grid; the kept
   * dimensions' coordinates order them. Keeping none leaves a grid of one dimension of 1. */
  int color = 0, key = 0, kept = 0;
  dims[0] = 1;
  periods[0] = 0;
  for (int d = 0; d < ndims; ++d) {
    if (remain_dims[d]) {
      key = key * dims_of(c)[d] + coords[d];
      dims[kept] = dims_of(c)[d];
      periods[kept++] = periods_of(c)[d];
    } else {
      color = color * dims_of(c)[d] + coords[d];
    }
  }
  const int err = MPI_Comm_split(comm, color, key, newcomm);
  if (err) return err;
  return set_cart(*newcomm, kept > 0 ? kept : 1, dims, periods);
}
