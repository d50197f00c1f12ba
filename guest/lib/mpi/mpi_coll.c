/* libmpi: the MPI calls over point-to-point, communicators, datatypes and collectives.
 *
 * Collectives run on the communicator's second context (ctx + 1) with fixed algorithms, so the
 * same program gives the same results and the same messages on every run: barrier by
 * dissemination, broadcast and reduce on a binomial tree (reduce combines children in rank
 * order, so floating-point sums are the same on every run but may differ in the last bits
 * from another MPI's), allreduce as reduce + broadcast, gather/scatter(v) linearly at the root,
 * allgather(v) as gather + broadcast, alltoall(v) pairwise. Barrier, broadcast, reduce and
 * allreduce first offer the call to the collective network (mpi_colnet.c), which takes it on
 * machines that have one, for the world's ranks and the types and ops its ALU can combine. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_impl.h"

enum {
  TAG_BARRIER = 1,
  TAG_BCAST,
  TAG_REDUCE,
  TAG_GATHER,
  TAG_SCATTER,
  TAG_ALLTOALL,
  TAG_SCAN,
  TAG_EXSCAN
};

hpm_comm* hpm_comm_get(MPI_Comm comm) {
  if (!hpm_ready() || comm < 0 || comm >= HPM_MAX_COMMS || !hpm_comms[comm].used) return NULL;
  return &hpm_comms[comm];
}

int hpm_comm_rank_of(const hpm_comm* c, int world) {
  for (int i = 0; i < c->size; ++i) {
    if (c->world[i] == world) return i;
  }
  return MPI_UNDEFINED;
}

/* ---- point-to-point on communicators ---- */

static int world_of(const hpm_comm* c, int rank) {
  if (rank == MPI_PROC_NULL || rank == MPI_ANY_SOURCE) return rank;
  return c->world[rank];
}

static int check_rank(const hpm_comm* c, int rank, int wildcard_ok) {
  if (rank == MPI_PROC_NULL || (wildcard_ok && rank == MPI_ANY_SOURCE)) return MPI_SUCCESS;
  return rank >= 0 && rank < c->size ? MPI_SUCCESS : MPI_ERR_RANK;
}

/* The sends and receives of derived types (kept out of the predefined types' path, whose
 * latency for small messages depends on its few instructions). */
static __attribute__((noinline)) int isend_derived(const void* buf, int count, MPI_Datatype type,
                                                   int dest, int tag, hpm_comm* c, int sync,
                                                   MPI_Request* request) {
  if (!hpm_type_ok(type)) return MPI_ERR_TYPE;
  if (count < 0) return MPI_ERR_COUNT;
  if (tag < 0) return MPI_ERR_TAG;
  if (check_rank(c, dest, 0)) return MPI_ERR_RANK;
  return hpm_isend_typed(buf, count, type, world_of(c, dest), c->ctx, tag, sync, request);
}

static __attribute__((noinline)) int irecv_derived(void* buf, int count, MPI_Datatype type,
                                                   int source, int tag, MPI_Comm comm, hpm_comm* c,
                                                   MPI_Request* request) {
  if (!hpm_type_ok(type)) return MPI_ERR_TYPE;
  if (count < 0) return MPI_ERR_COUNT;
  if (tag < 0 && tag != MPI_ANY_TAG) return MPI_ERR_TAG;
  if (check_rank(c, source, 1)) return MPI_ERR_RANK;
  return hpm_irecv_typed(buf, count, type, comm, world_of(c, source), c->ctx, tag, request);
}

/* A standard send, or a synchronous one (`sync`). */
static inline __attribute__((always_inline)) int isend(const void* buf, int count,
                                                       MPI_Datatype type, int dest, int tag,
                                                       MPI_Comm comm, int sync,
                                                       MPI_Request* request) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  const int size = hpm_basic_size(type);
  if (size == 0) return isend_derived(buf, count, type, dest, tag, c, sync, request);
  if (count < 0) return MPI_ERR_COUNT;
  if (tag < 0) return MPI_ERR_TAG;
  if (check_rank(c, dest, 0)) return MPI_ERR_RANK;
  return hpm_isend_mode(buf, (uint64_t)count * (uint64_t)size, world_of(c, dest), c->ctx, tag, sync,
                        request);
}

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  return isend(buf, count, type, dest, tag, comm, 0, request);
}

int MPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return isend(buf, count, type, dest, tag, comm, 1, request);
}

int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  const int size = hpm_basic_size(type);
  if (size == 0) return irecv_derived(buf, count, type, source, tag, comm, c, request);
  if (count < 0) return MPI_ERR_COUNT;
  if (tag < 0 && tag != MPI_ANY_TAG) return MPI_ERR_TAG;
  if (check_rank(c, source, 1)) return MPI_ERR_RANK;
  return hpm_irecv(buf, (uint64_t)count * (uint64_t)size, comm, world_of(c, source), c->ctx, tag,
                   request);
}

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  MPI_Request r;
  const int err = MPI_Isend(buf, count, type, dest, tag, comm, &r);
  return err ? err : hpm_wait(&r, MPI_STATUS_IGNORE);
}

int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  MPI_Request r;
  const int err = MPI_Issend(buf, count, type, dest, tag, comm, &r);
  return err ? err : hpm_wait(&r, MPI_STATUS_IGNORE);
}

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
  MPI_Request r;
  const int err = MPI_Irecv(buf, count, type, source, tag, comm, &r);
  return err ? err : hpm_wait(&r, status);
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status* status) {
  MPI_Request r[2];
  int err = MPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &r[0]);
  if (err) return err;
  err = MPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &r[1]);
  if (err) return err;
  hpm_wait(&r[1], MPI_STATUS_IGNORE);
  return hpm_wait(&r[0], status);
}

int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status* status) {
  const int size = hpm_type_size(type);
  if (!hpm_type_ok(type)) return MPI_ERR_TYPE;
  if (count < 0) return MPI_ERR_COUNT;
  const uint64_t bytes = (uint64_t)count * (uint64_t)size;
  if (bytes > INT32_MAX) return MPI_ERR_COUNT;
  void* copy = malloc(bytes + 1);
  if (!copy) return MPI_ERR_OTHER;
  hpm_type_pack(buf, count, type, copy);
  const int err = MPI_Sendrecv(copy, (int)bytes, MPI_BYTE, dest, sendtag, buf, count, type, source,
                               recvtag, comm, status);
  free(copy);
  return err;
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  int result = MPI_SUCCESS;
  for (int i = 0; i < count; ++i) {
    const int err = hpm_wait(&requests[i], statuses ? &statuses[i] : MPI_STATUS_IGNORE);
    if (err) result = MPI_ERR_IN_STATUS;
  }
  return result;
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  /* All or none: they are released only when every one has completed. */
  hpm_progress();
  *flag = 1;
  for (int i = 0; i < count && *flag; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    if (!hpm_request(requests[i])) return MPI_ERR_REQUEST;
    *flag = hpm_complete(requests[i]);
  }
  return *flag ? MPI_Waitall(count, requests, statuses) : MPI_SUCCESS;
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  *flag = 0;
  *index = MPI_UNDEFINED;
  int active = 0;
  for (int i = 0; i < count; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    active = 1;
    int done = 0;
    const int err = MPI_Test(&requests[i], &done, status);
    if (done) {
      *flag = 1;
      *index = i;
      return err;
    }
  }
  if (!active) *flag = 1;
  return MPI_SUCCESS;
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  for (;;) {
    int flag = 0;
    const int err = MPI_Testany(count, requests, index, &flag, status);
    if (flag) return err;
  }
}

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  int index = 0;
  const int err =
      MPI_Waitany(incount, requests, &index, statuses ? &statuses[0] : MPI_STATUS_IGNORE);
  if (index == MPI_UNDEFINED) {
    *outcount = MPI_UNDEFINED;
    return err;
  }
  *outcount = 1;
  indices[0] = index;
  return err;
}

int MPI_Get_count(const MPI_Status* status, MPI_Datatype type, int* count) {
  const int size = hpm_type_size(type);
  if (!hpm_type_ok(type)) return MPI_ERR_TYPE;
  if (size == 0) {
    *count = 0; /* (a type of no data: Open MPI's answer) */
  } else {
    *count = status->hpm_bytes % (uint64_t)size ? MPI_UNDEFINED : (int)(status->hpm_bytes / size);
  }
  return MPI_SUCCESS;
}

/* ---- collectives ---- */

static int csend(const hpm_comm* c, const void* buf, uint64_t bytes, int to, int tag) {
  MPI_Request r;
  hpm_isend(buf, bytes, c->world[to], c->ctx + 1, tag, &r);
  return hpm_wait(&r, MPI_STATUS_IGNORE);
}

static int crecv(const hpm_comm* c, MPI_Comm comm, void* buf, uint64_t bytes, int from, int tag) {
  MPI_Request r;
  hpm_irecv(buf, bytes, comm, c->world[from], c->ctx + 1, tag, &r);
  return hpm_wait(&r, MPI_STATUS_IGNORE);
}

/* The same with `count` elements of a type (packed and unpacked unless it is dense). */
static int tsend(const hpm_comm* c, const void* buf, int64_t count, MPI_Datatype type, int to,
                 int tag) {
  MPI_Request r;
  hpm_isend_typed(buf, count, type, c->world[to], c->ctx + 1, tag, 0, &r);
  return hpm_wait(&r, MPI_STATUS_IGNORE);
}

static int trecv(const hpm_comm* c, MPI_Comm comm, void* buf, int64_t count, MPI_Datatype type,
                 int from, int tag) {
  MPI_Request r;
  hpm_irecv_typed(buf, count, type, comm, c->world[from], c->ctx + 1, tag, &r);
  return hpm_wait(&r, MPI_STATUS_IGNORE);
}

/* Counts and displacements of `count` elements per rank, laid out in rank order: counts in
 * [0, size), displacements in [size, 2 size). Malloc'ed (NULL: out of memory). */
static int* uniform_layout(int size, int count) {
  int* v = malloc(sizeof(int) * (size_t)size * 2);
  if (!v) return NULL;
  for (int i = 0; i < size; ++i) {
    v[i] = count;
    v[size + i] = i * count;
  }
  return v;
}

int MPI_Barrier(MPI_Comm comm) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  int hw = hpm_colnet_barrier(c);
  if (hw == HPM_COLNET_DECLINED) hw = hpm_torcoll_barrier(c);
  if (hw != HPM_COLNET_DECLINED) return hw;
  char token = 0, in;
  for (int step = 1; step < c->size; step *= 2) {
    MPI_Request r[2];
    hpm_irecv(&in, 1, comm, c->world[(c->rank - step + c->size) % c->size], c->ctx + 1, TAG_BARRIER,
              &r[0]);
    hpm_isend(&token, 1, c->world[(c->rank + step) % c->size], c->ctx + 1, TAG_BARRIER, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  }
  return MPI_SUCCESS;
}

static int bcast_bytes(hpm_comm* c, MPI_Comm comm, void* buf, uint64_t bytes, int root) {
  const int rel = (c->rank - root + c->size) % c->size;
  int mask = 1;
  while (mask < c->size) {
    if (rel & mask) {
      crecv(c, comm, buf, bytes, (c->rank - mask + c->size) % c->size, TAG_BCAST);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (rel + mask < c->size) csend(c, buf, bytes, (c->rank + mask) % c->size, TAG_BCAST);
  }
  return MPI_SUCCESS;
}

int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  const int size = hpm_type_size(type);
  if (!hpm_type_ok(type)) return MPI_ERR_TYPE;
  if (root < 0 || root >= c->size) return MPI_ERR_ROOT;
  if (count < 0) return MPI_ERR_COUNT;
  const uint64_t bytes = (uint64_t)count * (uint64_t)size;
  if (!hpm_type_dense(type)) {
    /* The data packed at the root, broadcast as bytes, unpacked by the others. */
    unsigned char* packed = malloc(bytes + 1);
    if (!packed) return MPI_ERR_OTHER;
    if (c->rank == root) hpm_type_pack(buf, count, type, packed);
    int err =
        bytes > INT32_MAX ? MPI_ERR_COUNT : MPI_Bcast(packed, (int)bytes, MPI_BYTE, root, comm);
    if (!err && c->rank != root) hpm_type_unpack(packed, bytes, buf, count, type);
    free(packed);
    return err;
  }
  int hw = hpm_colnet_bcast(c, buf, bytes, root);
  if (hw == HPM_COLNET_DECLINED) hw = hpm_torcoll_bcast(c, buf, bytes, root);
  if (hw != HPM_COLNET_DECLINED) return hw;
  return bcast_bytes(c, comm, buf, bytes, root);
}

/* A non-commutative operation's reduction: the binomial tree rooted at rank 0, each node
 * combining its value with its children's partial results on its right (a0 op a1 op ... in rank
 * order: every subtree holds consecutive ranks, ordered by their first), then the result to the
 * root. */
static int reduce_in_order(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                           MPI_Op op, int root, hpm_comm* c, MPI_Comm comm) {
  void *acc_block, *in_block;
  unsigned char* acc = hpm_type_alloc(count, type, &acc_block);
  unsigned char* in = hpm_type_alloc(count, type, &in_block);
  if (!acc || !in) {
    free(acc_block);
    free(in_block);
    return MPI_ERR_OTHER;
  }
  hpm_type_copy(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, type, acc, count, type);
  int err = MPI_SUCCESS;
  for (int mask = 1; mask < c->size; mask <<= 1) {
    if (c->rank & mask) {
      tsend(c, acc, count, type, c->rank - mask, TAG_REDUCE);
      break;
    }
    if (c->rank + mask < c->size) {
      /* acc = acc op theirs: apply computes inout = in op inout, into their buffer. */
      trecv(c, comm, in, count, type, c->rank + mask, TAG_REDUCE);
      err = hpm_reduce_apply(op, type, acc, in, count);
      if (err) break;
      unsigned char* t = acc;
      acc = in;
      in = t;
    }
  }
  if (err == MPI_SUCCESS && root != 0) {
    if (c->rank == 0) tsend(c, acc, count, type, root, TAG_REDUCE);
    if (c->rank == root) trecv(c, comm, acc, count, type, 0, TAG_REDUCE);
  }
  if (err == MPI_SUCCESS && c->rank == root) hpm_type_copy(acc, count, type, recvbuf, count, type);
  free(acc_block);
  free(in_block);
  return err;
}

/* MPI_Reduce: the binomial tree below (`tree`: offer the call to the collective
 * network first; an allreduce the network declined does not offer it twice). */
static int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  int root, MPI_Comm comm, int tree) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  if (!hpm_type_ok(type)) return MPI_ERR_TYPE;
  if (root < 0 || root >= c->size) return MPI_ERR_ROOT;
  if (count < 0) return MPI_ERR_COUNT;
  int hw =
      tree ? hpm_colnet_reduce(c, sendbuf, recvbuf, count, type, op, root) : HPM_COLNET_DECLINED;
  if (tree && hw == HPM_COLNET_DECLINED) {
    hw = hpm_torcoll_reduce(c, sendbuf, recvbuf, count, type, op, root);
  }
  if (hw != HPM_COLNET_DECLINED) return hw;
  if (!hpm_op_commutative(op))
    return reduce_in_order(sendbuf, recvbuf, count, type, op, root, c, comm);
  /* The root combines into recvbuf itself (one copy fewer of the whole vector). */
  void *acc_block = NULL, *in_block;
  unsigned char* acc = c->rank == root ? recvbuf : hpm_type_alloc(count, type, &acc_block);
  unsigned char* in = hpm_type_alloc(count, type, &in_block);
  if (!acc || !in) {
    free(acc_block);
    free(in_block);
    return MPI_ERR_OTHER;
  }
  const void* mine = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  if (mine != acc) hpm_type_copy(mine, count, type, acc, count, type);
  const int rel = (c->rank - root + c->size) % c->size;
  int err = MPI_SUCCESS;
  /* Binomial tree: children at rel + 1, rel + 2, rel + 4, ... (below the first set bit), each
   * combined in that order; then the partial result goes to the parent. */
  for (int mask = 1; mask < c->size; mask <<= 1) {
    if (rel & mask) {
      tsend(c, acc, count, type, (c->rank - mask + c->size) % c->size, TAG_REDUCE);
      break;
    }
    if (rel + mask < c->size) {
      trecv(c, comm, in, count, type, (c->rank + mask) % c->size, TAG_REDUCE);
      err = hpm_reduce_apply(op, type, in, acc, count);
      if (err) break;
    }
  }
  free(acc_block);
  free(in_block);
  return err;
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm) {
  return reduce(sendbuf, recvbuf, count, type, op, root, comm, 1);
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  hpm_comm* c = hpm_comm_get(comm);
  if (c && hpm_type_ok(type) && hpm_type_size(type)) {
    int hw = hpm_colnet_reduce(c, sendbuf, recvbuf, count, type, op, -1);
    if (hw == HPM_COLNET_DECLINED)
      hw = hpm_torcoll_reduce(c, sendbuf, recvbuf, count, type, op, -1);
    if (hw != HPM_COLNET_DECLINED) return hw;
  }
  /* (The broadcast half may still take the collective network.) */
  const int err = reduce(sendbuf, recvbuf, count, type, op, 0, comm, 0);
  return err ? err : MPI_Bcast(recvbuf, count, type, 0, comm);
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  if (!hpm_type_ok(type)) return MPI_ERR_TYPE;
  if (sendbuf != MPI_IN_PLACE) hpm_type_copy(sendbuf, count, type, recvbuf, count, type);
  /* Linear: rank r combines r - 1's prefix with its own, in rank order. */
  int err = MPI_SUCCESS;
  if (c->rank > 0) {
    void* block;
    unsigned char* prefix = hpm_type_alloc(count, type, &block);
    if (!prefix) return MPI_ERR_OTHER;
    trecv(c, comm, prefix, count, type, c->rank - 1, TAG_SCAN);
    /* op(prefix, mine) with the prefix first: apply computes inout = in op inout. */
    err = hpm_reduce_apply(op, type, prefix, recvbuf, count);
    free(block);
  }
  if (c->rank + 1 < c->size) tsend(c, recvbuf, count, type, c->rank + 1, TAG_SCAN);
  return err;
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  if (!hpm_type_ok(type)) return MPI_ERR_TYPE;
  void *mine_block, *prefix_block;
  unsigned char* mine = hpm_type_alloc(count, type, &mine_block);
  unsigned char* prefix = hpm_type_alloc(count, type, &prefix_block);
  if (!mine || !prefix) {
    free(mine_block);
    free(prefix_block);
    return MPI_ERR_OTHER;
  }
  hpm_type_copy(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, type, mine, count, type);
  /* Linear: rank r receives the prefix of ranks 0..r-1 (rank 0's recvbuf is left as it is),
   * and passes on that prefix combined with its own value. */
  int err = MPI_SUCCESS;
  if (c->rank > 0) {
    trecv(c, comm, prefix, count, type, c->rank - 1, TAG_EXSCAN);
    hpm_type_copy(prefix, count, type, recvbuf, count, type);
    err = hpm_reduce_apply(op, type, prefix, mine, count);
  }
  if (c->rank + 1 < c->size) tsend(c, mine, count, type, c->rank + 1, TAG_EXSCAN);
  free(mine_block);
  free(prefix_block);
  return err;
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  if (!hpm_type_ok(type)) return MPI_ERR_TYPE;
  int* displs = malloc(sizeof(int) * (size_t)c->size);
  if (!displs) return MPI_ERR_OTHER;
  int total = 0;
  for (int i = 0; i < c->size; ++i) {
    displs[i] = total;
    total += recvcounts[i];
  }
  /* The whole vector reduced at rank 0, then each part sent to its rank. */
  void* block;
  void* all = hpm_type_alloc(total, type, &block);
  if (!all) {
    free(displs);
    return MPI_ERR_OTHER;
  }
  const void* in = sendbuf;
  if (sendbuf == MPI_IN_PLACE) in = recvbuf;
  int err = MPI_Reduce(in, all, total, type, op, 0, comm);
  if (!err) {
    err = MPI_Scatterv(all, recvcounts, displs, type, recvbuf, recvcounts[c->rank], type, 0, comm);
  }
  free(block);
  free(displs);
  return err;
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  int* counts = uniform_layout(c->size, recvcount);
  if (!counts) return MPI_ERR_OTHER;
  const int err = MPI_Reduce_scatter(sendbuf, recvbuf, counts, type, op, comm);
  free(counts);
  return err;
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  if (!hpm_type_ok(sendtype) || (c->rank == root && !hpm_type_ok(recvtype))) return MPI_ERR_TYPE;
  if (root < 0 || root >= c->size) return MPI_ERR_ROOT;
  if (c->rank != root) return tsend(c, sendbuf, sendcount, sendtype, root, TAG_GATHER);
  const int64_t extent = hpm_type_extent(recvtype);
  for (int i = 0; i < c->size; ++i) {
    char* at = (char*)recvbuf + (int64_t)displs[i] * extent;
    if (i == root) {
      if (sendbuf != MPI_IN_PLACE)
        hpm_type_copy(sendbuf, sendcount, sendtype, at, recvcounts[i], recvtype);
    } else {
      trecv(c, comm, at, recvcounts[i], recvtype, i, TAG_GATHER);
    }
  }
  return MPI_SUCCESS;
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  int* counts = uniform_layout(c->size, recvcount);
  if (!counts) return MPI_ERR_OTHER;
  if (sendbuf == MPI_IN_PLACE) {
    sendbuf = (char*)recvbuf + (int64_t)root * recvcount * hpm_type_extent(recvtype);
    sendcount = recvcount;
    sendtype = recvtype;
  }
  const int err = MPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, counts, counts + c->size,
                              recvtype, root, comm);
  free(counts);
  return err;
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  if (!hpm_type_ok(recvtype) || (c->rank == root && !hpm_type_ok(sendtype))) return MPI_ERR_TYPE;
  if (root < 0 || root >= c->size) return MPI_ERR_ROOT;
  if (c->rank != root) return trecv(c, comm, recvbuf, recvcount, recvtype, root, TAG_SCATTER);
  const int64_t extent = hpm_type_extent(sendtype);
  for (int i = 0; i < c->size; ++i) {
    const char* at = (const char*)sendbuf + (int64_t)displs[i] * extent;
    if (i == root) {
      if (recvbuf != MPI_IN_PLACE)
        hpm_type_copy(at, sendcounts[i], sendtype, recvbuf, recvcount, recvtype);
    } else {
      tsend(c, at, sendcounts[i], sendtype, i, TAG_SCATTER);
    }
  }
  return MPI_SUCCESS;
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  int* counts = uniform_layout(c->size, sendcount);
  if (!counts) return MPI_ERR_OTHER;
  const int err = MPI_Scatterv(sendbuf, counts, counts + c->size, sendtype, recvbuf, recvcount,
                               recvtype, root, comm);
  free(counts);
  return err;
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  const int rsize = hpm_type_size(recvtype);
  if (!hpm_type_ok(recvtype)) return MPI_ERR_TYPE;
  if (sendbuf == MPI_IN_PLACE) {
    sendbuf = (char*)recvbuf + (int64_t)displs[c->rank] * hpm_type_extent(recvtype);
    sendcount = recvcounts[c->rank];
    sendtype = recvtype;
  }
  int err =
      MPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, 0, comm);
  if (err) return err;
  if (hpm_type_dense(recvtype)) {
    /* The root broadcasts the whole extent the displacements span. */
    int end = 0;
    for (int i = 0; i < c->size; ++i) {
      if (displs[i] + recvcounts[i] > end) end = displs[i] + recvcounts[i];
    }
    return bcast_bytes(c, comm, recvbuf, (uint64_t)end * (uint64_t)rsize, 0);
  }
  /* Not dense: the blocks packed in rank order (the type's holes are not the call's to write). */
  uint64_t total = 0;
  for (int i = 0; i < c->size; ++i) total += (uint64_t)recvcounts[i] * (uint64_t)rsize;
  unsigned char* packed = malloc(total + 1);
  if (!packed) return MPI_ERR_OTHER;
  const int64_t extent = hpm_type_extent(recvtype);
  uint64_t at = 0;
  for (int i = 0; i < c->size; ++i) {
    char* block = (char*)recvbuf + (int64_t)displs[i] * extent;
    if (c->rank == 0) {
      at += hpm_type_pack(block, recvcounts[i], recvtype, packed + at);
    }
  }
  err = bcast_bytes(c, comm, packed, total, 0);
  for (int i = 0; c->rank != 0 && i < c->size; ++i) {
    const uint64_t bytes = (uint64_t)recvcounts[i] * (uint64_t)rsize;
    hpm_type_unpack(packed + at, bytes, (char*)recvbuf + (int64_t)displs[i] * extent, recvcounts[i],
                    recvtype);
    at += bytes;
  }
  free(packed);
  return err;
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  int* counts = uniform_layout(c->size, recvcount);
  if (!counts) return MPI_ERR_OTHER;
  const int err = MPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, counts, counts + c->size,
                                 recvtype, comm);
  free(counts);
  return err;
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  if (!hpm_type_ok(sendtype) || !hpm_type_ok(recvtype)) return MPI_ERR_TYPE;
  const int me = c->rank;
  const int64_t sext = hpm_type_extent(sendtype), rext = hpm_type_extent(recvtype);
  hpm_type_copy((const char*)sendbuf + sdispls[me] * sext, sendcounts[me], sendtype,
                (char*)recvbuf + rdispls[me] * rext, recvcounts[me], recvtype);
  /* Step k: send to me + k, receive from me - k. */
  for (int k = 1; k < c->size; ++k) {
    const int to = (me + k) % c->size, from = (me - k + c->size) % c->size;
    MPI_Request r[2];
    hpm_irecv_typed((char*)recvbuf + rdispls[from] * rext, recvcounts[from], recvtype, comm,
                    c->world[from], c->ctx + 1, TAG_ALLTOALL, &r[0]);
    hpm_isend_typed((const char*)sendbuf + sdispls[to] * sext, sendcounts[to], sendtype,
                    c->world[to], c->ctx + 1, TAG_ALLTOALL, 0, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  }
  return MPI_SUCCESS;
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  int* send = uniform_layout(c->size, sendcount);
  int* recv = uniform_layout(c->size, recvcount);
  const int err = send && recv ? MPI_Alltoallv(sendbuf, send, send + c->size, sendtype, recvbuf,
                                               recv, recv + c->size, recvtype, comm)
                               : MPI_ERR_OTHER;
  free(send);
  free(recv);
  return err;
}
