/* libmpi's internals: the message unit, matching, requests and communicators (docs/network.md,
 * "Guest MPI"). One thread at a time uses the library (MPI_THREAD_FUNNELED). */
#ifndef HPM_MPI_IMPL_H
#define HPM_MPI_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "mpi.h"

/* Room for one more element in a growable array of `count` elements of `size` bytes with room
 * for *cap: the array (realloc'ed, doubling *cap, when full), or NULL when out of memory (then
 * the array and *cap are as they were). */
static inline void* hpm_grow(void* items, int count, int* cap, size_t size) {
  if (count < *cap) return items;
  const int bigger = *cap ? 2 * *cap : 8;
  void* grown = realloc(items, size * (size_t)bigger);
  if (grown) *cap = bigger;
  return grown;
}

/* A communicator's virtual topology (MPI 3.1, 7; mpi_topo.c): one block, which MPI_Comm_dup
 * copies whole. `data` holds, for MPI_CART, dims[ndims] then periods[ndims] (0 or 1); for
 * MPI_GRAPH, index[nnodes] then edges[nedges] (MPI_Graph_create's arrays); for MPI_DIST_GRAPH,
 * sources[indegree], their weights, destinations[outdegree], theirs (weights 1 when
 * unweighted). */
typedef struct hpm_topo {
  int kind; /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
  int ndims;
  int nnodes, nedges;
  int indegree, outdegree, weighted;
  size_t bytes; /* of the whole block */
  int data[];
} hpm_topo;

/* Communicators: a table indexed by the handle. Context ctx carries point-to-point traffic and
 * ctx + 1 the collectives', so that the two never match each other. */
#define HPM_MAX_COMMS 256
typedef struct {
  int used;
  int size;
  int rank;
  int* world; /* world rank of each member */
  int ctx;
  hpm_topo* topo; /* its virtual topology, or NULL */
  /* Its collective class on the torus (mpi_torcoll.c): 0 not chosen yet, -1 none, c + 1 class
   * c. */
  int coll_class;
  /* Its non-blocking collectives so far (mpi_nbc.c: each one's tag). */
  unsigned nbc_seq;
  /* Its error handler (mpi_errors.c; 0: MPI_ERRORS_ARE_FATAL, MPI's default). */
  MPI_Errhandler errhandler;
} hpm_comm;

/* A message that arrived (or is arriving) before a receive matched it. */
typedef struct hpm_msg {
  struct hpm_msg* next;
  int src; /* world rank */
  int ctx;
  int tag;
  uint64_t bytes; /* its length (from its first packet) */
  uint64_t got;
  unsigned char* data;
  int claimed; /* a receive owns it (it stays until complete) */
  /* A rendezvous message's request to send (mpi_p2p.c): its data is still in the sender's
   * buffer `rts_buf`, to be fetched by a remote get; `rts_req` is the sender's request. */
  int rts;
  uint64_t rts_buf, rts_req;
} hpm_msg;

enum { HPM_REQ_FREE, HPM_REQ_SEND, HPM_REQ_RECV, HPM_REQ_NBC, HPM_REQ_PERSISTENT };

typedef struct {
  int kind;
  int done;
  uint64_t descriptor; /* send: INJ_TAIL after posting it */
  /* receive */
  void* buf;
  uint64_t capacity;
  int comm;
  int src; /* world rank, or MPI_ANY_SOURCE */
  int tag; /* or MPI_ANY_TAG */
  int ctx;
  int posted;     /* in the posted list, waiting for its first packet */
  int receiving;  /* its message's packets go straight to buf */
  hpm_msg* msg;   /* its message is buffered here */
  uint64_t bytes; /* the message's length */
  uint64_t got;
  MPI_Status status;
  /* Rendezvous (mpi_p2p.c): a send's request to send (its buffer and this request's index), a
   * receive's remote get (its descriptors) and the counter the message unit counts its bytes
   * down on. */
  int rzv;
  uint64_t rts[2];
  volatile uint64_t counter;
  unsigned char rget[3 * 64] __attribute__((aligned(64)));
  /* A polled request's state (a non-blocking collective's schedule, mpi_nbc.c, or a one-sided
   * operation's, mpi_rma.c), and its error once complete. */
  void* schedule;
  int nbc_error;
  union {
    /* A persistent request (mpi_persist.c): what MPI_Start starts, and the request it started
     * (MPI_REQUEST_NULL: inactive). */
    struct {
      int p_send; /* 1 send, 2 synchronous send, 3 buffered send; 0 receive */
      const void* p_buf;
      int p_count, p_type, p_peer, p_tag, p_comm;
      MPI_Request active;
    };
    /* A send's or receive's typed message of a non-contiguous datatype (mpi_dtype.c): its
     * packed data, which the request frees when released; a receive unpacks it into dt_buf
     * (dt_count of dt_type) then. (A union: the request is persistent or sends or receives,
     * and its size decides how many requests share the L1's lines.) */
    struct {
      void* dt_packed;
      void* dt_buf;
      int64_t dt_count;
      MPI_Datatype dt_type;
    };
    /* A polled request (HPM_REQ_NBC): whether its operation has completed (then it has freed
     * `schedule` and set *error). */
    struct {
      int (*poll)(void* schedule, int* error);
    };
  };
} hpm_req;

extern hpm_comm hpm_comms[HPM_MAX_COMMS];
extern int hpm_world_rank, hpm_world_size;

/* The library's state is ready (MPI_Init called, MPI_Finalize not yet). */
int hpm_ready(void);
/* A rank of communicator `comm` from a world rank (MPI_UNDEFINED if not a member). */
int hpm_comm_rank_of(const hpm_comm* c, int world);
/* Checks a communicator handle; returns its entry or NULL. */
hpm_comm* hpm_comm_get(MPI_Comm comm);

/* A topology of `kind` with room for `ints` ints of data, zeroed (NULL: out of memory). */
hpm_topo* hpm_topo_new(int kind, size_t ints);
/* A copy of a topology (NULL when out of memory or none). */
hpm_topo* hpm_topo_copy(const hpm_topo* t);
/* A communicator's neighbours as the neighbourhood collectives see them (comm ranks,
 * MPI_PROC_NULL among them on a Cartesian grid's open edges): *in those received from, *out
 * those sent to (one array, freed with free(*in); *out points into it). MPI_ERR_TOPOLOGY
 * without a topology. */
int hpm_topo_neighbors(const hpm_comm* c, int* nin, int** in, int* nout, int** out);

/* Point-to-point on a context: requests are indexes in the library's pool. */
/* A synchronous send (`sync`: MPI_Ssend's) completes only once a receive has matched it: it
 * always takes the rendezvous protocol, whose data the receive fetches (mpi_p2p.c). */
int hpm_isend_mode(const void* buf, uint64_t bytes, int dest_world, int ctx, int tag, int sync,
                   MPI_Request* r);
static inline int hpm_isend(const void* buf, uint64_t bytes, int dest_world, int ctx, int tag,
                            MPI_Request* r) {
  return hpm_isend_mode(buf, bytes, dest_world, ctx, tag, 0, r);
}
int hpm_irecv(void* buf, uint64_t capacity, int comm, int src_world, int ctx, int tag,
              MPI_Request* r);
int hpm_wait(MPI_Request* r, MPI_Status* status);
/* Whether a request has completed (without releasing it). */
int hpm_complete(MPI_Request r);
/* Moves what the reception FIFO holds into receives and buffered messages; nonzero if it did. */
int hpm_progress(void);
/* Non-blocking collectives (mpi_nbc.c): a request for a started schedule; moves every schedule
 * on as far as its messages allow (the progress engine calls it); whether a schedule has ended
 * (then it is freed, and its error is in *error). */
MPI_Request hpm_new_nbc_request(void* schedule);
/* A request that completes when poll(state, &error) says so (it is polled as the request is
 * tested or waited for). */
MPI_Request hpm_new_polled_request(int (*poll)(void* state, int* error), void* state);
/* A persistent request, inactive (mpi_persist.c fills it in); a send request complete already
 * (a buffered send's). */
MPI_Request hpm_new_persistent_request(void);
MPI_Request hpm_new_done_request(void);
/* Cancels a receive not yet matched (it completes, its status cancelled); whether it did. */
int hpm_cancel_receive(MPI_Request request);
/* Buffered sends whose packets have all left give back their room (mpi_persist.c). */
void hpm_bsend_reap(void);
void hpm_nbc_progress(void);
/* A non-blocking collective of one round on the communicator's collective context: the
 * receives posted in order, then the sends in order (peers are comm ranks; MPI_PROC_NULL's
 * transfers are skipped). Messages between two processes match in the order each posted them,
 * which the neighbourhood collectives (mpi_neighbor.c) order their transfers by. */
typedef struct {
  int peer;
  void* buf;
  int64_t count;
  MPI_Datatype type;
} hpm_xfer;
int hpm_nbc_exchange(hpm_comm* c, int nrecv, const hpm_xfer* recvs, int nsend,
                     const hpm_xfer* sends, MPI_Request* request);
int hpm_nbc_complete(void* schedule, int* error);
hpm_req* hpm_request(MPI_Request r);

/* An error of call `name` on communicator `comm` (MPI_COMM_NULL: on window `win`), handed to its
 * error handler (mpi_errors.c): MPI_ERRORS_ARE_FATAL ends the job naming the call and the error,
 * MPI_ERRORS_RETURN and a user's handler (after it ran) return the error. The generated wrappers
 * (gen_wrappers.cmake) call it for every MPI call that fails. */
int hpm_raise(MPI_Comm comm, MPI_Win win, int error, const char* name);
/* A window's error handler, and the communicator it was made over (mpi_rma.c). */
MPI_Errhandler* hpm_win_errhandler(MPI_Win win);

/* A new communicator of `size` members (world ranks `world`, owned), this process at `rank`, on
 * context `ctx`; agree_context gives a context every member of `parent` agrees on. */
int hpm_new_comm(int size, int rank, int* world, int ctx, MPI_Comm* out);
int hpm_agree_context(MPI_Comm parent);
/* The context a new communicator of the ranks `world` (this process among them, at `rank`)
 * agrees on with no parent communicator (MPI_Comm_create_group: only its members take part),
 * using `tag` to keep concurrent creations apart. */
int hpm_agree_context_among(int size, int rank, const int* world, int tag);

/* Datatypes and operations. Derived types' handles start at HPM_TYPE_DERIVED (mpi_dtype.c). */
#define HPM_TYPE_DERIVED 64
/* A predefined type's size (0: not one), and the reduction of count elements of one. */
int hpm_basic_size(MPI_Datatype type);
int hpm_basic_reduce(MPI_Op op, MPI_Datatype type, const void* in, void* inout, int count);
/* Whether communication may use a type: a predefined one, or a derived one committed and not
 * freed. */
int hpm_type_ok(MPI_Datatype type);
/* Bytes of data per element (0 for a type not ok, or of no data). */
int hpm_type_size(MPI_Datatype type);
int64_t hpm_type_extent(MPI_Datatype type);
/* Whether `count` elements are the `count * size` bytes at the buffer's address, in order. */
int hpm_type_dense(MPI_Datatype type);
/* Packs count elements at buf into out (returns the bytes); unpacks at most `bytes` into buf. */
uint64_t hpm_type_pack(const void* buf, int64_t count, MPI_Datatype type, void* out);
void hpm_type_unpack(const void* in, uint64_t bytes, void* buf, int64_t count, MPI_Datatype type);
/* A local copy from one typed buffer to another (as a message between them would). */
int hpm_type_copy(const void* src, int64_t scount, MPI_Datatype stype, void* dst, int64_t rcount,
                  MPI_Datatype rtype);
/* A scratch buffer for `count` elements in the type's layout: the address to use (NULL: out of
 * memory); *block is what to free. */
void* hpm_type_alloc(int64_t count, MPI_Datatype type, void** block);
/* Calls fn for each run of bytes that `count` elements of a type occupy (displacements from the
 * buffer's address, in typemap order, neighbouring runs of one predefined type merged), with
 * that predefined type. */
typedef void (*hpm_run_fn)(void* arg, int64_t disp, int64_t len, MPI_Datatype basic);
void hpm_type_runs(int64_t count, MPI_Datatype type, hpm_run_fn fn, void* arg);
/* inout = in op inout, count elements in the type's layout. */
int hpm_reduce_apply(MPI_Op op, MPI_Datatype type, const void* in, void* inout, int count);
/* Messages of `count` elements of a type: packed first if it is not dense, unpacked (a receive)
 * when the request is released. */
int hpm_isend_typed(const void* buf, int64_t count, MPI_Datatype type, int dest_world, int ctx,
                    int tag, int sync, MPI_Request* r);
int hpm_irecv_typed(void* buf, int64_t count, MPI_Datatype type, int comm, int src_world, int ctx,
                    int tag, MPI_Request* r);
/* Unpacks and frees a released request's typed message. */
void hpm_type_release_request(hpm_req* r);
/* Whether `op` is commutative (every predefined one; a user-defined one as created). A
 * non-commutative one is applied in rank order: a0 op a1 op ... op a(n-1). */
int hpm_op_commutative(MPI_Op op);
/* The integer types the collective networks' ALUs combine (C's int, long, long long, unsigned
 * and the fixed-width 32- and 64-bit ones): their width in bytes (4 or 8), and whether they are
 * signed; 0 for any other type. */
int hpm_alu_int_width(MPI_Datatype type, int* is_signed);

/* The collective network's fast paths (mpi_colnet.c), called first by MPI_Barrier, MPI_Bcast,
 * MPI_Reduce and MPI_Allreduce once they have checked their arguments: each returns
 * HPM_COLNET_DECLINED when the call must run the point-to-point algorithm (no collective
 * network, the machine's collective.mpi off, a communicator other than the world's ranks in
 * order, a type or op the tree cannot combine), on every member alike; else the call's
 * result. reduce's root < 0: an allreduce (every member gets the result). */
#define HPM_COLNET_DECLINED (-1)
int hpm_colnet_barrier(hpm_comm* c);
int hpm_colnet_bcast(hpm_comm* c, void* buf, uint64_t bytes, int root);
int hpm_colnet_reduce(hpm_comm* c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                      MPI_Op op, int root);

/* Blue Gene/Q's collective classes on the torus (mpi_torcoll.c), offered when the collective
 * network declined: the same contract as hpm_colnet_*. Their packets carry context
 * HPM_TORCOLL_CTX, which no communicator uses: the progress engine hands them to
 * hpm_torcoll_packet (tag, offset in the message, payload bytes, payload). */
#define HPM_TORCOLL_CTX (-7)
/* The rendezvous protocol's control packets' context (mpi_p2p.c): no communicator's either. */
#define HPM_RZV_CTX (-1)
/* One-sided operations' messages (mpi_rma.c): always eager, served by hpm_rma_progress. */
#define HPM_RMA_CTX (-9)
/* The first complete buffered message on context `ctx`, taken out of the unexpected list (its
 * data and itself are the caller's to free), or NULL. */
hpm_msg* hpm_take_message(int ctx);
/* Descriptors (64 bytes each, the unit's layout): a direct put of `bytes` at `payload` into
 * `put` at the destination, counting down the 8-byte counter at `counter` there (0: none); an
 * empty memory-FIFO packet with libmpi's header (context, tag, length). */
#define HPM_DESCRIPTOR_BYTES 64
void hpm_fill_put(void* descriptor, int dest_world, uint64_t payload, uint64_t bytes, uint64_t put,
                  uint64_t counter);
void hpm_fill_packet(void* descriptor, int dest_world, int ctx, int tag, uint64_t length);
/* Posts a descriptor, or a remote get of `n` descriptors (read from this node's memory when the
 * get reaches the destination, which then injects them); returns its number in the injection
 * FIFO, which hpm_injected(number) says the unit has injected. */
uint64_t hpm_post_descriptor(const void* descriptor);
uint64_t hpm_post_remote_get(int dest_world, const void* descriptors, int n);
int hpm_injected(uint64_t seq);
/* Serves the one-sided operations' messages that have arrived, and releases the sent ones
 * (the progress engine calls it while hpm_rma_active: windows exist or messages are out). */
void hpm_rma_progress(void);
extern int hpm_rma_active;
/* Windows exist (mpi_rma.c). */
extern int hpm_rma_windows;
/* The word a wait on the collective network (mpi_colnet.c) or the torus's barrier
 * (mpi_torcoll.c) sleeps on, when this node has them (else NULL): a one-sided operation's
 * message to a node is followed by a direct put that counts this word down, which wakes it to
 * serve the message (mpi_rma.c). */
volatile uint64_t* hpm_colnet_wake_word(void);
volatile uint64_t* hpm_torcoll_wake_word(void);
int hpm_torcoll_barrier(hpm_comm* c);
/* Gives back the communicator's sub-communicator class, if it has one (collective on it). */
void hpm_torcoll_free(hpm_comm* c);
int hpm_torcoll_bcast(hpm_comm* c, void* buf, uint64_t bytes, int root);
int hpm_torcoll_reduce(hpm_comm* c, const void* sendbuf, void* recvbuf, int count,
                       MPI_Datatype type, MPI_Op op, int root);
void hpm_torcoll_packet(int tag, uint64_t offset, uint32_t bytes, const unsigned char* payload);
/* The message unit's window; a collective descriptor posted (returns its INJ_TAIL, 0 when the
 * unit refused it); waiting as the point-to-point calls wait (moving the FIFO meanwhile). */
volatile uint64_t* hpm_mu_window(void);
uint64_t hpm_post_collective(uint32_t flags, uint32_t dest, const void* buf, uint64_t bytes,
                             int tag);
void hpm_wait_until(int (*done)(void*), void* arg);

#endif
