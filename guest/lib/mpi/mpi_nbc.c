/* libmpi: non-blocking collectives (MPI 3.1, 5.12), progressing in the background of the
 * library's progress engine.
 *
 * Each call builds a schedule: rounds of point-to-point sends and receives on the
 * communicator's collective context, and local steps (a reduction into a buffer, a copy) that
 * run when their round starts. The call starts the first round and returns; whenever the
 * progress engine runs (any MPI call that moves packets: waits, tests, probes, other messages),
 * every schedule whose round's messages have all completed moves on to its next round. So a
 * rank's part of a collective goes on while it waits for something else, as MPI requires.
 *
 * The algorithms are the blocking ones' (mpi_coll.c), round by round: the dissemination barrier,
 * binomial broadcast and reduction trees (a non-commutative operation in rank order), linear
 * gathers and scatters, pairwise exchanges; so each result equals the blocking call's. (The
 * blocking calls keep their own loops: waiting on a schedule made a one-element MPI_Allreduce
 * on 32 nodes 30 to 55 % slower, its allocations and rounds costing more than the messages.) The
 * messages of a schedule carry a tag of their own (the communicator's count of non-blocking
 * collectives, which every member calls in the same order, as MPI requires), so several may be
 * in flight on one communicator, beside blocking ones. One thread uses the library
 * (MPI_THREAD_FUNNELED). */
#include <stdlib.h>
#include <string.h>

#include "mpi_impl.h"

/* Tags of schedules' messages: above the blocking collectives' (mpi_coll.c). */
#define NBC_TAG_BASE 0x10000
#define NBC_TAGS 0x10000

enum { OP_SEND, OP_RECV, OP_REDUCE, OP_COPY };

typedef struct {
  int kind;
  int round;
  int peer; /* comm rank (sends, receives): schedule's world[peer] */
  const void* in;
  void* out;
  int64_t count;     /* sends, receives: elements of `type`; copies: of `type` from `in`; */
  MPI_Datatype type; /* reductions: out = in op out, count elements of the schedule's type */
  int64_t out_count; /* copies: elements of `out_type` into `out` */
  MPI_Datatype out_type;
} step;

typedef struct schedule {
  struct schedule* next; /* the active schedules */
  int* world;            /* the communicator's members (its copy: a freed communicator's runs on) */
  int ctx, tag;
  MPI_Op op;
  MPI_Datatype type;
  step* steps;
  int n, cap;
  int at;               /* the first step not yet started */
  int round;            /* the round running (-1: none yet) */
  MPI_Request* pending; /* the running round's messages */
  int npending, pending_cap;
  void** buffers; /* scratch, freed with the schedule */
  int nbuffers;
  int err;
  int done;
} schedule;

static schedule* active;
static int advancing; /* (the engine does not re-enter itself: sends may run the progress engine) */

static schedule* schedule_new(hpm_comm* c, MPI_Op op, MPI_Datatype type) {
  schedule* s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->world = malloc(sizeof(int) * (size_t)c->size);
  if (!s->world) {
    free(s);
    return NULL;
  }
  memcpy(s->world, c->world, sizeof(int) * (size_t)c->size);
  s->ctx = c->ctx + 1;
  s->tag = NBC_TAG_BASE + (int)(c->nbc_seq++ % NBC_TAGS);
  s->op = op;
  s->type = type;
  s->round = -1;
  return s;
}

static void add(schedule* s, step st) {
  if (s->err) return;
  step* grown = hpm_grow(s->steps, s->n, &s->cap, sizeof *grown);
  if (!grown) {
    s->err = MPI_ERR_OTHER;
    return;
  }
  s->steps = grown;
  s->steps[s->n++] = st;
}

static void add_send(schedule* s, int round, int peer, const void* buf, int64_t count,
                     MPI_Datatype type) {
  add(s, (step){OP_SEND, round, peer, buf, NULL, count, type, 0, 0});
}
static void add_recv(schedule* s, int round, int peer, void* buf, int64_t count,
                     MPI_Datatype type) {
  add(s, (step){OP_RECV, round, peer, NULL, buf, count, type, 0, 0});
}
static void add_reduce(schedule* s, int round, const void* in, void* inout, int count) {
  add(s, (step){OP_REDUCE, round, 0, in, inout, count, s->type, 0, 0});
}
static void add_copy(schedule* s, int round, const void* src, int64_t count, MPI_Datatype type,
                     void* dst, int64_t out_count, MPI_Datatype out_type) {
  add(s, (step){OP_COPY, round, 0, src, dst, count, type, out_count, out_type});
}
/* A copy between two buffers of the schedule's type. */
static void add_move(schedule* s, int round, const void* src, void* dst, int64_t count) {
  add_copy(s, round, src, count, s->type, dst, count, s->type);
}

/* Scratch memory that lives as long as the schedule: `count` elements of `type` in its layout
 * (the address to use). */
static void* scratch_of(schedule* s, int64_t count, MPI_Datatype type) {
  if (s->err) return NULL;
  void** grown = realloc(s->buffers, sizeof(void*) * (size_t)(s->nbuffers + 1));
  void* block = NULL;
  void* at = grown ? hpm_type_alloc(count, type, &block) : NULL;
  if (!grown || !at) {
    if (grown) s->buffers = grown;
    free(block);
    s->err = MPI_ERR_OTHER;
    return NULL;
  }
  s->buffers = grown;
  s->buffers[s->nbuffers++] = block;
  return at;
}

static void* scratch(schedule* s, size_t bytes) {
  return scratch_of(s, (int64_t)bytes, MPI_BYTE);
}

static void pend(schedule* s, MPI_Request r) {
  MPI_Request* grown = hpm_grow(s->pending, s->npending, &s->pending_cap, sizeof *grown);
  if (!grown) {
    s->err = MPI_ERR_OTHER;
    return;
  }
  s->pending = grown;
  s->pending[s->npending++] = r;
}

/* Whether every message of the running round has completed (releasing those that have). */
static int round_complete(schedule* s) {
  for (int i = 0; i < s->npending; ++i) {
    if (s->pending[i] == MPI_REQUEST_NULL) continue;
    if (!hpm_complete(s->pending[i])) return 0;
    /* (Complete: releases it. A receive's error, a truncation, is the collective's.) */
    const int e = hpm_wait(&s->pending[i], MPI_STATUS_IGNORE);
    if (e && !s->err) s->err = e;
  }
  s->npending = 0;
  return 1;
}

/* Moves the schedule on as far as its messages allow; whether it has ended. */
static int advance(schedule* s) {
  if (s->done) return 1;
  while (!s->err) {
    if (s->round >= 0 && !round_complete(s)) return 0;
    if (s->at == s->n) break;
    s->round = s->steps[s->at].round;
    for (; s->at < s->n && s->steps[s->at].round == s->round && !s->err; ++s->at) {
      const step* st = &s->steps[s->at];
      MPI_Request r = MPI_REQUEST_NULL;
      switch (st->kind) {
        case OP_SEND:
          hpm_isend_typed(st->in, st->count, st->type, s->world[st->peer], s->ctx, s->tag, 0, &r);
          pend(s, r);
          break;
        case OP_RECV:
          /* (Its status is not read: the world's communicator, always there, names its source.) */
          hpm_irecv_typed(st->out, st->count, st->type, MPI_COMM_WORLD, s->world[st->peer], s->ctx,
                          s->tag, &r);
          pend(s, r);
          break;
        case OP_REDUCE: {
          const int e = hpm_reduce_apply(s->op, st->type, st->in, st->out, (int)st->count);
          if (e) s->err = e;
          break;
        }
        case OP_COPY:
          if (st->in != st->out) {
            const int e =
                hpm_type_copy(st->in, st->count, st->type, st->out, st->out_count, st->out_type);
            if (e) s->err = e;
          }
          break;
      }
    }
  }
  /* (An error still waits for the round's messages, which use the schedule's buffers.) */
  if (s->err && !round_complete(s)) return 0;
  s->done = 1;
  return 1;
}

static void schedule_free(schedule* s) {
  for (int i = 0; i < s->nbuffers; ++i) free(s->buffers[i]);
  free(s->buffers);
  free(s->steps);
  free(s->pending);
  free(s->world);
  free(s);
}

void hpm_nbc_progress(void) {
  if (advancing) return;
  advancing = 1;
  for (schedule* s = active; s; s = s->next) advance(s);
  advancing = 0;
}

int hpm_nbc_complete(void* handle, int* error) {
  schedule* s = handle;
  if (!s->done) {
    if (advancing) return 0;
    advancing = 1;
    advance(s);
    advancing = 0;
    if (!s->done) return 0;
  }
  for (schedule** at = &active; *at; at = &(*at)->next) {
    if (*at == s) {
      *at = s->next;
      break;
    }
  }
  *error = s->err;
  schedule_free(s);
  return 1;
}

/* Starts the schedule as request *out. */
static int start(schedule* s, MPI_Request* out) {
  if (s->err) {
    const int e = s->err;
    schedule_free(s);
    return e;
  }
  *out = hpm_new_nbc_request(s);
  s->next = active;
  active = s;
  hpm_nbc_progress();
  return MPI_SUCCESS;
}

/* ---- the algorithms (mpi_coll.c's, as rounds) ---- */

static int check(MPI_Comm comm, hpm_comm** c, MPI_Request* request) {
  if (!request) return MPI_ERR_REQUEST;
  *request = MPI_REQUEST_NULL;
  *c = hpm_comm_get(comm);
  return *c ? MPI_SUCCESS : MPI_ERR_COMM;
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  hpm_comm* c;
  int e = check(comm, &c, request);
  if (e) return e;
  schedule* s = schedule_new(c, MPI_OP_NULL, MPI_BYTE);
  if (!s) return MPI_ERR_OTHER;
  char* token = scratch(s, 2);
  int round = 0;
  for (int step = 1; step < c->size; step *= 2, ++round) {
    add_recv(s, round, (c->rank - step + c->size) % c->size, token + 1, 1, MPI_BYTE);
    add_send(s, round, (c->rank + step) % c->size, token, 1, MPI_BYTE);
  }
  return start(s, request);
}

/* The binomial broadcast of `buf` from `root`, from round `round` on; returns the next round. */
static int bcast_rounds(schedule* s, const hpm_comm* c, void* buf, int64_t count, int root,
                        int round) {
  const int rel = (c->rank - root + c->size) % c->size;
  int mask = 1;
  while (mask < c->size) {
    if (rel & mask) {
      add_recv(s, round++, (c->rank - mask + c->size) % c->size, buf, count, s->type);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (rel + mask < c->size) add_send(s, round, (c->rank + mask) % c->size, buf, count, s->type);
  }
  return round + 1;
}

int MPI_Ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
               MPI_Request* request) {
  hpm_comm* c;
  int e = check(comm, &c, request);
  if (e) return e;
  if (!hpm_type_ok(type)) return MPI_ERR_TYPE;
  if (root < 0 || root >= c->size) return MPI_ERR_ROOT;
  if (count < 0) return MPI_ERR_COUNT;
  schedule* s = schedule_new(c, MPI_OP_NULL, type);
  if (!s) return MPI_ERR_OTHER;
  bcast_rounds(s, c, buf, count, root, 0);
  return start(s, request);
}

/* The reduction of `in` (count elements) to `root`'s `out` (others' out: unused), from round
 * `round` on, as mpi_coll.c's reduce; returns the next round. */
static int reduce_rounds(schedule* s, const hpm_comm* c, const void* in, void* out, int count,
                         int root, int round) {
  unsigned char* theirs = scratch_of(s, count, s->type);
  if (!theirs) return round;
  if (!hpm_op_commutative(s->op)) {
    /* Rank order: the tree rooted at rank 0 (every subtree holds consecutive ranks), each
     * node's value on the left of its children's (acc op theirs, into theirs, then back), then
     * the result to the root. */
    unsigned char* acc = scratch_of(s, count, s->type);
    if (!acc) return round;
    add_move(s, round, in, acc, count);
    for (int mask = 1; mask < c->size; mask <<= 1) {
      if (c->rank & mask) {
        add_send(s, round++, c->rank - mask, acc, count, s->type);
        break;
      }
      if (c->rank + mask < c->size) {
        add_recv(s, round++, c->rank + mask, theirs, count, s->type);
        add_reduce(s, round, acc, theirs, count);
        add_move(s, round, theirs, acc, count);
      }
    }
    if (root != 0) {
      if (c->rank == 0) add_send(s, round, root, acc, count, s->type);
      if (c->rank == root) add_recv(s, round, 0, acc, count, s->type);
      ++round;
    }
    if (c->rank == root) add_move(s, round, acc, out, count);
    return round + 1;
  }
  /* Binomial tree from the root: children at rel + 1, rel + 2, rel + 4, ... (below the first
   * set bit), each combined in that order, then the partial result to the parent. The root
   * combines into `out` itself (one copy fewer of the whole vector). */
  unsigned char* acc = c->rank == root ? out : scratch_of(s, count, s->type);
  if (!acc) return round;
  if (in != acc) add_move(s, round, in, acc, count);
  const int rel = (c->rank - root + c->size) % c->size;
  for (int mask = 1; mask < c->size; mask <<= 1) {
    if (rel & mask) {
      add_send(s, round++, (c->rank - mask + c->size) % c->size, acc, count, s->type);
      break;
    }
    if (rel + mask < c->size) {
      add_recv(s, round++, (c->rank + mask) % c->size, theirs, count, s->type);
      add_reduce(s, round, theirs, acc, count);
    }
  }
  return round + 1;
}

static int reduce_args(MPI_Datatype type, int count) {
  if (!hpm_type_ok(type)) return MPI_ERR_TYPE;
  return count < 0 ? MPI_ERR_COUNT : MPI_SUCCESS;
}

int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request* request) {
  hpm_comm* c;
  int e = check(comm, &c, request);
  if (e || (e = reduce_args(type, count))) return e;
  if (root < 0 || root >= c->size) return MPI_ERR_ROOT;
  schedule* s = schedule_new(c, op, type);
  if (!s) return MPI_ERR_OTHER;
  reduce_rounds(s, c, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf, count, root, 0);
  return start(s, request);
}

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Request* request) {
  hpm_comm* c;
  int e = check(comm, &c, request);
  if (e || (e = reduce_args(type, count))) return e;
  schedule* s = schedule_new(c, op, type);
  if (!s) return MPI_ERR_OTHER;
  const int round =
      reduce_rounds(s, c, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf, count, 0, 0);
  bcast_rounds(s, c, recvbuf, count, 0, round);
  return start(s, request);
}

/* Per-rank blocks of a typed buffer: rank r's `count[r]` elements of `type[r]` at `displ[r]` bytes
 * from the buffer. */
typedef struct {
  int64_t* count;
  int64_t* displ;
  MPI_Datatype* type;
} blocks;

/* The blocks of `n` ranks: counts[r] (or `count` each) elements of `type`, displs[r] (or r *
 * count) extents from the buffer; displacements in bytes instead when `displ_bytes`. */
static blocks layout(schedule* s, int n, const int counts[], const int displs[], int count,
                     MPI_Datatype type) {
  blocks b = {scratch(s, sizeof(int64_t) * (size_t)n), scratch(s, sizeof(int64_t) * (size_t)n),
              scratch(s, sizeof(MPI_Datatype) * (size_t)n)};
  if (!b.count || !b.displ || !b.type) return (blocks){NULL, NULL, NULL};
  const int64_t extent = hpm_type_extent(type);
  for (int i = 0; i < n; ++i) {
    b.count[i] = counts ? counts[i] : count;
    b.displ[i] = (displs ? (int64_t)displs[i] : (int64_t)i * count) * extent;
    b.type[i] = type;
  }
  return b;
}

/* Linear gather of each rank's block into root's recvbuf; this rank's is `mine` (`my_count`
 * elements of `my_type`, or MPI_IN_PLACE: at its place already). */
static void gather_rounds(schedule* s, const hpm_comm* c, const void* mine, int64_t my_count,
                          MPI_Datatype my_type, void* recvbuf, blocks l, int root, int round) {
  if (c->rank != root) {
    add_send(s, round, root, mine, my_count, my_type);
    return;
  }
  for (int r = 0; r < c->size; ++r) {
    unsigned char* at = (unsigned char*)recvbuf + l.displ[r];
    if (r == root) {
      if (mine != MPI_IN_PLACE)
        add_copy(s, round, mine, my_count, my_type, at, l.count[r], l.type[r]);
    } else {
      add_recv(s, round, r, at, l.count[r], l.type[r]);
    }
  }
}

static int igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], int recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  hpm_comm* c;
  int e = check(comm, &c, request);
  if (e) return e;
  if (root < 0 || root >= c->size) return MPI_ERR_ROOT;
  if ((sendbuf != MPI_IN_PLACE && !hpm_type_ok(sendtype)) ||
      (c->rank == root && !hpm_type_ok(recvtype))) {
    return MPI_ERR_TYPE;
  }
  schedule* s = schedule_new(c, MPI_OP_NULL, recvtype);
  if (!s) return MPI_ERR_OTHER;
  const blocks l = layout(s, c->size, recvcounts, displs, recvcount, recvtype);
  if (l.count) gather_rounds(s, c, sendbuf, sendcount, sendtype, recvbuf, l, root, 0);
  return start(s, request);
}

int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request* request) {
  return igatherv(sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount, recvtype, root,
                  comm, request);
}

int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request* request) {
  return igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype, root,
                  comm, request);
}

static int iscatterv(const void* sendbuf, const int sendcounts[], const int displs[], int sendcount,
                     MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                     int root, MPI_Comm comm, MPI_Request* request) {
  hpm_comm* c;
  int e = check(comm, &c, request);
  if (e) return e;
  if (root < 0 || root >= c->size) return MPI_ERR_ROOT;
  if ((c->rank == root && !hpm_type_ok(sendtype)) ||
      (recvbuf != MPI_IN_PLACE && !hpm_type_ok(recvtype))) {
    return MPI_ERR_TYPE;
  }
  schedule* s = schedule_new(c, MPI_OP_NULL, sendtype);
  if (!s) return MPI_ERR_OTHER;
  if (c->rank != root) {
    add_recv(s, 0, root, recvbuf, recvcount, recvtype);
  } else {
    const blocks l = layout(s, c->size, sendcounts, displs, sendcount, sendtype);
    for (int r = 0; l.count && r < c->size; ++r) {
      const unsigned char* at = (const unsigned char*)sendbuf + l.displ[r];
      if (r == root) {
        if (recvbuf != MPI_IN_PLACE) {
          add_copy(s, 0, at, l.count[r], l.type[r], recvbuf, recvcount, recvtype);
        }
      } else {
        add_send(s, 0, r, at, l.count[r], l.type[r]);
      }
    }
  }
  return start(s, request);
}

int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request* request) {
  return iscatterv(sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                   comm, request);
}

int MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request* request) {
  return iscatterv(sendbuf, sendcounts, displs, 0, sendtype, recvbuf, recvcount, recvtype, root,
                   comm, request);
}

/* Every rank's block to every rank, one round: the block for rank r from `sendbuf` (block r of
 * `sl`), rank r's into `recvbuf` (block r of `rl`); this rank's own copied unless
 * `self_in_place` (it is there already). */
static int exchange(const hpm_comm* c, const void* sendbuf, blocks sl, void* recvbuf, blocks rl,
                    int self_in_place, schedule* s, MPI_Request* request) {
  for (int r = 0; r < c->size; ++r) {
    unsigned char* to = (unsigned char*)recvbuf + rl.displ[r];
    const unsigned char* from = (const unsigned char*)sendbuf + sl.displ[r];
    if (r == c->rank) {
      if (!self_in_place)
        add_copy(s, 0, from, sl.count[r], sl.type[r], to, rl.count[r], rl.type[r]);
    } else {
      add_recv(s, 0, r, to, rl.count[r], rl.type[r]);
      add_send(s, 0, r, from, sl.count[r], sl.type[r]);
    }
  }
  return start(s, request);
}

static int iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       const int recvcounts[], const int displs[], int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  hpm_comm* c;
  int e = check(comm, &c, request);
  if (e) return e;
  if ((sendbuf != MPI_IN_PLACE && !hpm_type_ok(sendtype)) || !hpm_type_ok(recvtype))
    return MPI_ERR_TYPE;
  schedule* s = schedule_new(c, MPI_OP_NULL, recvtype);
  if (!s) return MPI_ERR_OTHER;
  const blocks l = layout(s, c->size, recvcounts, displs, recvcount, recvtype);
  /* Every rank's send block is this rank's own (in place: at its place in recvbuf). */
  const int in_place = sendbuf == MPI_IN_PLACE;
  const blocks sl = layout(s, c->size, NULL, NULL, 0, in_place ? recvtype : sendtype);
  if (!l.count || !sl.count) return start(s, request);
  for (int r = 0; r < c->size; ++r) sl.count[r] = in_place ? l.count[c->rank] : sendcount;
  const void* mine = in_place ? (unsigned char*)recvbuf + l.displ[c->rank] : sendbuf;
  return exchange(c, mine, sl, recvbuf, l, in_place, s, request);
}

int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return iallgatherv(sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount, recvtype, comm,
                     request);
}

int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request* request) {
  return iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype, comm,
                     request);
}

static int ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                      int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                      const int rdispls[], int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request* request) {
  hpm_comm* c;
  int e = check(comm, &c, request);
  if (e) return e;
  if (!hpm_type_ok(sendtype) || !hpm_type_ok(recvtype)) return MPI_ERR_TYPE;
  if (sendbuf == MPI_IN_PLACE) return MPI_ERR_BUFFER; /* (not offered here) */
  schedule* s = schedule_new(c, MPI_OP_NULL, recvtype);
  if (!s) return MPI_ERR_OTHER;
  const blocks sl = layout(s, c->size, sendcounts, sdispls, sendcount, sendtype);
  const blocks rl = layout(s, c->size, recvcounts, rdispls, recvcount, recvtype);
  if (!sl.count || !rl.count) return start(s, request);
  return exchange(c, sendbuf, sl, recvbuf, rl, 0, s, request);
}

int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return ialltoallv(sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
                    recvtype, comm, request);
}

int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request* request) {
  return ialltoallv(sendbuf, sendcounts, sdispls, 0, sendtype, recvbuf, recvcounts, rdispls, 0,
                    recvtype, comm, request);
}

/* All-to-all with a datatype per peer and displacements in bytes. */
int MPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request* request) {
  hpm_comm* c;
  int e = check(comm, &c, request);
  if (e) return e;
  if (sendbuf == MPI_IN_PLACE) return MPI_ERR_BUFFER; /* (not offered here) */
  schedule* s = schedule_new(c, MPI_OP_NULL, MPI_BYTE);
  if (!s) return MPI_ERR_OTHER;
  const int n = c->size;
  const blocks sl = layout(s, n, sendcounts, NULL, 0, MPI_BYTE);
  const blocks rl = layout(s, n, recvcounts, NULL, 0, MPI_BYTE);
  if (!sl.count || !rl.count) return start(s, request);
  for (int r = 0; r < n; ++r) {
    if (!hpm_type_ok(sendtypes[r]) || !hpm_type_ok(recvtypes[r])) {
      s->err = MPI_ERR_TYPE;
    }
    sl.type[r] = sendtypes[r];
    sl.displ[r] = sdispls[r];
    rl.type[r] = recvtypes[r];
    rl.displ[r] = rdispls[r];
  }
  return exchange(c, sendbuf, sl, recvbuf, rl, 0, s, request);
}

int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  MPI_Request r;
  const int e = MPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                               rdispls, recvtypes, comm, &r);
  return e ? e : MPI_Wait(&r, MPI_STATUS_IGNORE);
}

/* Scans: the linear chain of mpi_coll.c (rank r combines r - 1's prefix with its own). */
static int iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                 MPI_Comm comm, MPI_Request* request, int exclusive) {
  hpm_comm* c;
  int e = check(comm, &c, request);
  if (e || (e = reduce_args(type, count))) return e;
  schedule* s = schedule_new(c, op, type);
  if (!s) return MPI_ERR_OTHER;
  unsigned char* mine = scratch_of(s, count, type);
  unsigned char* prefix = scratch_of(s, count, type);
  if (!mine || !prefix) return start(s, request);
  add_move(s, 0, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, mine, count);
  int round = 1;
  if (c->rank > 0) {
    add_recv(s, round++, c->rank - 1, prefix, count, type);
    if (exclusive) add_move(s, round, prefix, recvbuf, count);
    /* prefix op mine, into mine */
    add_reduce(s, round, prefix, mine, count);
  }
  if (!exclusive) add_move(s, round, mine, recvbuf, count);
  if (c->rank + 1 < c->size) add_send(s, round, c->rank + 1, mine, count, type);
  return start(s, request);
}

int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
              MPI_Comm comm, MPI_Request* request) {
  return iscan(sendbuf, recvbuf, count, type, op, comm, request, 0);
}

int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                MPI_Comm comm, MPI_Request* request) {
  return iscan(sendbuf, recvbuf, count, type, op, comm, request, 1);
}

/* Reduce-scatter: the reduction of the whole vector to rank 0, then its blocks scattered. */
static int ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                           int recvcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                           MPI_Request* request) {
  hpm_comm* c;
  int e = check(comm, &c, request);
  if (e || (e = reduce_args(type, recvcount))) return e;
  schedule* s = schedule_new(c, op, type);
  if (!s) return MPI_ERR_OTHER;
  int total = 0;
  for (int r = 0; r < c->size; ++r) total += recvcounts ? recvcounts[r] : recvcount;
  /* (Rank r's block starts where the blocks before it end.) */
  int* displs = scratch(s, sizeof(int) * (size_t)c->size);
  for (int r = 0, at = 0; displs && r < c->size; ++r) {
    displs[r] = at;
    at += recvcounts ? recvcounts[r] : recvcount;
  }
  unsigned char* whole = scratch_of(s, total, type);
  const blocks l =
      displs ? layout(s, c->size, recvcounts, displs, recvcount, type) : (blocks){NULL, NULL, NULL};
  if (!l.count || !whole) return start(s, request);
  const void* in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  int round = reduce_rounds(s, c, in, whole, total, 0, 0);
  if (c->rank != 0) {
    add_recv(s, round, 0, recvbuf, l.count[c->rank], type);
  } else {
    for (int r = 0; r < c->size; ++r) {
      if (r == 0) {
        add_move(s, round, whole + l.displ[0], recvbuf, l.count[0]);
      } else {
        add_send(s, round, r, whole + l.displ[r], l.count[r], type);
      }
    }
  }
  return start(s, request);
}

int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                              MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return ireduce_scatter(sendbuf, recvbuf, NULL, recvcount, type, op, comm, request);
}

int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                        MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return ireduce_scatter(sendbuf, recvbuf, recvcounts, 0, type, op, comm, request);
}

/* ---- neighbourhood collectives (mpi_neighbor.c builds the transfers) ---- */

int hpm_nbc_exchange(hpm_comm* c, int nrecv, const hpm_xfer* recvs, int nsend,
                     const hpm_xfer* sends, MPI_Request* request) {
  schedule* s = schedule_new(c, MPI_OP_NULL, MPI_BYTE);
  if (!s) return MPI_ERR_OTHER;
  for (int i = 0; i < nrecv; ++i) {
    if (recvs[i].peer != MPI_PROC_NULL) {
      add_recv(s, 0, recvs[i].peer, recvs[i].buf, recvs[i].count, recvs[i].type);
    }
  }
  for (int i = 0; i < nsend; ++i) {
    if (sends[i].peer != MPI_PROC_NULL) {
      add_send(s, 0, sends[i].peer, sends[i].buf, sends[i].count, sends[i].type);
    }
  }
  return start(s, request);
}
