/* libmpi: the neighbourhood collectives (MPI 3.1, 7.6-7.7), blocking and not, as one round of
 * sends and receives with each neighbour of the communicator's topology (mpi_graph.c says who
 * they are): a schedule of mpi_nbc.c, so the non-blocking ones progress in the background and
 * the blocking ones wait for theirs.
 *
 * Matching. Two messages between the same two processes match in the order posted. On a
 * Cartesian grid one process may be both neighbours in a dimension (a periodic dimension of 2,
 * or of 1: the process itself); MPI wants the block sent to the source (the -1 neighbour) to land
 * in that process's destination slot (its +1 neighbour), and the other way round. Receives are
 * posted source first, then destination; so each dimension's sends go to the destination first,
 * then to the source: the first message from a process is the one it sent "up", which belongs in
 * the receiver's source slot. Neighbours in different dimensions are different processes (or the
 * process itself in each of them, where the same order holds dimension by dimension). */
#include <stdlib.h>

#include "mpi_impl.h"

/* One side of a neighbourhood collective: neighbour i's block is counts[i] (or `count`)
 * elements of types[i] (or `type`) at byte_displs[i] bytes, displs[i] extents, or i blocks of
 * `count` from the buffer (`same`: every block is the buffer's first, an allgather's send). */
typedef struct {
  const int* counts;
  const int* displs;
  const MPI_Aint* byte_displs;
  const MPI_Datatype* types;
  int count;
  MPI_Datatype type;
  int same;
} side;

static hpm_xfer block(const side* s, void* buf, int i, int peer) {
  const MPI_Datatype type = s->types ? s->types[i] : s->type;
  const int64_t count = s->counts ? s->counts[i] : s->count;
  int64_t at = 0;
  if (s->byte_displs) {
    at = s->byte_displs[i];
  } else if (!s->same) {
    at = (s->displs ? (int64_t)s->displs[i] : (int64_t)i * s->count) * hpm_type_extent(type);
  }
  return (hpm_xfer){peer, (unsigned char*)buf + at, count, type};
}

static int check_side(const side* s, int n) {
  for (int i = 0; i < n; ++i) {
    if (!hpm_type_ok(s->types ? s->types[i] : s->type)) return MPI_ERR_TYPE;
    if ((s->counts ? s->counts[i] : s->count) < 0) return MPI_ERR_COUNT;
  }
  return MPI_SUCCESS;
}

static int ineighbor(const void* sendbuf, side snd, void* recvbuf, side rcv, MPI_Comm comm,
                     MPI_Request* request) {
  if (!request) return MPI_ERR_REQUEST;
  *request = MPI_REQUEST_NULL;
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  if (sendbuf == MPI_IN_PLACE || recvbuf == MPI_IN_PLACE) return MPI_ERR_BUFFER;
  int nin, nout, *in, *out;
  int err = hpm_topo_neighbors(c, &nin, &in, &nout, &out);
  if (err) return err;
  if (!(err = check_side(&snd, nout))) err = check_side(&rcv, nin);
  hpm_xfer* x = err ? NULL : malloc(sizeof(hpm_xfer) * ((size_t)nin + (size_t)nout + 1));
  if (!err && !x) err = MPI_ERR_OTHER;
  if (!err) {
    for (int i = 0; i < nin; ++i) x[i] = block(&rcv, recvbuf, i, in[i]);
    hpm_xfer* sends = x + nin;
    const int cart = c->topo->kind == MPI_CART;
    for (int i = 0; i < nout; ++i) {
      /* (A grid's dimension: to the destination, then to the source; see above.) */
      const int j = cart ? i ^ 1 : i;
      sends[i] = block(&snd, (void*)sendbuf, j, out[j]);
    }
    err = hpm_nbc_exchange(c, nin, x, nout, sends, request);
  }
  free(x);
  free(in);
  return err;
}

static int wait_for(int err, MPI_Request* r) {
  return err ? err : MPI_Wait(r, MPI_STATUS_IGNORE);
}

int MPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request* request) {
  const side snd = {NULL, NULL, NULL, NULL, sendcount, sendtype, 1};
  const side rcv = {NULL, NULL, NULL, NULL, recvcount, recvtype, 0};
  return ineighbor(sendbuf, snd, recvbuf, rcv, comm, request);
}

int MPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const side snd = {NULL, NULL, NULL, NULL, sendcount, sendtype, 1};
  const side rcv = {recvcounts, displs, NULL, NULL, 0, recvtype, 0};
  return ineighbor(sendbuf, snd, recvbuf, rcv, comm, request);
}

int MPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request* request) {
  const side snd = {NULL, NULL, NULL, NULL, sendcount, sendtype, 0};
  const side rcv = {NULL, NULL, NULL, NULL, recvcount, recvtype, 0};
  return ineighbor(sendbuf, snd, recvbuf, rcv, comm, request);
}

int MPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request* request) {
  const side snd = {sendcounts, sdispls, NULL, NULL, 0, sendtype, 0};
  const side rcv = {recvcounts, rdispls, NULL, NULL, 0, recvtype, 0};
  return ineighbor(sendbuf, snd, recvbuf, rcv, comm, request);
}

int MPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request* request) {
  const side snd = {sendcounts, NULL, sdispls, sendtypes, 0, MPI_DATATYPE_NULL, 0};
  const side rcv = {recvcounts, NULL, rdispls, recvtypes, 0, MPI_DATATYPE_NULL, 0};
  return ineighbor(sendbuf, snd, recvbuf, rcv, comm, request);
}

int MPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  MPI_Request r;
  return wait_for(
      MPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &r),
      &r);
}

int MPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm) {
  MPI_Request r;
  return wait_for(MPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                           displs, recvtype, comm, &r),
                  &r);
}

int MPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  MPI_Request r;
  return wait_for(
      MPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &r),
      &r);
}

int MPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  MPI_Request r;
  return wait_for(MPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                          recvcounts, rdispls, recvtype, comm, &r),
                  &r);
}

int MPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                           MPI_Comm comm) {
  MPI_Request r;
  return wait_for(MPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                          recvcounts, rdispls, recvtypes, comm, &r),
                  &r);
}
