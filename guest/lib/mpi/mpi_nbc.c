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
  uint64_t bytes; /* sends, receives, copies */
  int count;      /* reductions: out = in op out, count elements */
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
  if (s->n == s->cap) {
    const int cap = s->cap ? 2 * s->cap : 16;
    step* grown = realloc(s->steps, sizeof(step) * (size_t)cap);
    if (!grown) {
      s->err = MPI_ERR_OTHER;
      return;
    }
    s->steps = grown;
    s->cap = cap;
  }
  s->steps[s->n++] = st;
}

static void add_send(schedule* s, int round, int peer, const void* buf, uint64_t bytes) {
  add(s, (step){OP_SEND, round, peer, buf, NULL, bytes, 0});
}
static void add_recv(schedule* s, int round, int peer, void* buf, uint64_t bytes) {
  add(s, (step){OP_RECV, round, peer, NULL, buf, bytes, 0});
}
static void add_reduce(schedule* s, int round, const void* in, void* inout, int count) {
  add(s, (step){OP_REDUCE, round, 0, in, inout, 0, count});
}
static void add_copy(schedule* s, int round, const void* src, void* dst, uint64_t bytes) {
  add(s, (step){OP_COPY, round, 0, src, dst, bytes, 0});
}

/* Scratch memory that lives as long as the schedule. */
static void* scratch(schedule* s, size_t bytes) {
  if (s->err) return NULL;
  void** grown = realloc(s->buffers, sizeof(void*) * (size_t)(s->nbuffers + 1));
  void* b = malloc(bytes + 1);
  if (!grown || !b) {
    if (grown) s->buffers = grown;
    free(b);
    s->err = MPI_ERR_OTHER;
    return NULL;
  }
  s->buffers = grown;
  s->buffers[s->nbuffers++] = b;
  return b;
}

static void pend(schedule* s, MPI_Request r) {
  if (s->npending == s->pending_cap) {
    const int cap = s->pending_cap ? 2 * s->pending_cap : 16;
    MPI_Request* grown = realloc(s->pending, sizeof(MPI_Request) * (size_t)cap);
    if (!grown) {
      s->err = MPI_ERR_OTHER;
      return;
    }
    s->pending = grown;
    s->pending_cap = cap;
  }
  s->pending[s->npending++] = r;
}

/* Whether every message of the running round has completed (releasing those that have). */
static int round_complete(schedule* s) {
  for (int i = 0; i < s->npending; ++i) {
    if (s->pending[i] == MPI_REQUEST_NULL) continue;
    if (!hpm_complete(s->pending[i])) return 0;
    hpm_wait(&s->pending[i], MPI_STATUS_IGNORE); /* (complete: releases it) */
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
          hpm_isend(st->in, st->bytes, s->world[st->peer], s->ctx, s->tag, &r);
          pend(s, r);
          break;
        case OP_RECV:
          /* (Its status is not read: the world's communicator, always there, names its source.) */
          hpm_irecv(st->out, st->bytes, MPI_COMM_WORLD, s->world[st->peer], s->ctx, s->tag, &r);
          pend(s, r);
          break;
        case OP_REDUCE: {
          const int e = hpm_reduce_apply(s->op, s->type, st->in, st->out, st->count);
          if (e) s->err = e;
          break;
        }
        case OP_COPY:
          if (st->bytes) memmove(st->out, st->in, st->bytes);
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
    add_recv(s, round, (c->rank - step + c->size) % c->size, token + 1, 1);
    add_send(s, round, (c->rank + step) % c->size, token, 1);
  }
  return start(s, request);
}

/* The binomial broadcast of `buf` from `root`, from round `round` on; returns the next round. */
static int bcast_rounds(schedule* s, const hpm_comm* c, void* buf, uint64_t bytes, int root,
                        int round) {
  const int rel = (c->rank - root + c->size) % c->size;
  int mask = 1;
  while (mask < c->size) {
    if (rel & mask) {
      add_recv(s, round++, (c->rank - mask + c->size) % c->size, buf, bytes);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (rel + mask < c->size) add_send(s, round, (c->rank + mask) % c->size, buf, bytes);
  }
  return round + 1;
}

int MPI_Ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
               MPI_Request* request) {
  hpm_comm* c;
  int e = check(comm, &c, request);
  if (e) return e;
  const int size = hpm_type_size(type);
  if (size == 0) return MPI_ERR_TYPE;
  if (root < 0 || root >= c->size) return MPI_ERR_ROOT;
  if (count < 0) return MPI_ERR_COUNT;
  schedule* s = schedule_new(c, MPI_OP_NULL, type);
  if (!s) return MPI_ERR_OTHER;
  bcast_rounds(s, c, buf, (uint64_t)count * (uint64_t)size, root, 0);
  return start(s, request);
}

/* The reduction of `in` (count elements) to `root`'s `out` (others' out: unused), from round
 * `round` on, as mpi_coll.c's reduce; returns the next round. */
static int reduce_rounds(schedule* s, const hpm_comm* c, const void* in, void* out, int count,
                         int root, int round) {
  const size_t bytes = (size_t)count * (size_t)hpm_type_size(s->type);
  unsigned char* theirs = scratch(s, bytes);
  if (!theirs) return round;
  if (!hpm_op_commutative(s->op)) {
    /* Rank order: the tree rooted at rank 0 (every subtree holds consecutive ranks), each
     * node's value on the left of its children's (acc op theirs, into theirs, then back), then
     * the result to the root. */
    unsigned char* acc = scratch(s, bytes);
    if (!acc) return round;
    add_copy(s, round, in, acc, bytes);
    for (int mask = 1; mask < c->size; mask <<= 1) {
      if (c->rank & mask) {
        add_send(s, round++, c->rank - mask, acc, bytes);
        break;
      }
      if (c->rank + mask < c->size) {
        add_recv(s, round++, c->rank + mask, theirs, bytes);
        add_reduce(s, round, acc, theirs, count);
        add_copy(s, round, theirs, acc, bytes);
      }
    }
    if (root != 0) {
      if (c->rank == 0) add_send(s, round, root, acc, bytes);
      if (c->rank == root) add_recv(s, round, 0, acc, bytes);
      ++round;
    }
    if (c->rank == root) add_copy(s, round, acc, out, bytes);
    return round + 1;
  }
  /* Binomial tree from the root: children at rel + 1, rel + 2, rel + 4, ... (below the first
   * set bit), each combined in that order, then the partial result to the parent. The root
   * combines into `out` itself (one copy fewer of the whole vector). */
  unsigned char* acc = c->rank == root ? out : scratch(s, bytes);
  if (!acc) return round;
  if (in != acc) add_copy(s, round, in, acc, bytes);
  const int rel = (c->rank - root + c->size) % c->size;
  for (int mask = 1; mask < c->size; mask <<= 1) {
    if (rel & mask) {
      add_send(s, round++, (c->rank - mask + c->size) % c->size, acc, bytes);
      break;
    }
    if (rel + mask < c->size) {
      add_recv(s, round++, (c->rank + mask) % c->size, theirs, bytes);
      add_reduce(s, round, theirs, acc, count);
    }
  }
  return round + 1;
}

static int reduce_args(MPI_Datatype type, int count) {
  if (hpm_type_size(type) == 0) return MPI_ERR_TYPE;
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
  bcast_rounds(s, c, recvbuf, (uint64_t)count * (uint64_t)hpm_type_size(type), 0, round);
  return start(s, request);
}

/* Linear gather of each rank's `bytes[rank]` at `displ[rank]` bytes into root's recvbuf. */
static void gather_rounds(schedule* s, const hpm_comm* c, const void* mine, uint64_t my_bytes,
                          void* recvbuf, const uint64_t* bytes, const uint64_t* displ, int root,
                          int round) {
  if (c->rank != root) {
    add_send(s, round, root, mine, my_bytes);
    return;
  }
  for (int r = 0; r < c->size; ++r) {
    unsigned char* at = (unsigned char*)recvbuf + displ[r];
    if (r == root) {
      if (mine != MPI_IN_PLACE) add_copy(s, round, mine, at, bytes[r]);
    } else {
      add_recv(s, round, r, at, bytes[r]);
    }
  }
}

static uint64_t* layout(schedule* s, int n, const int counts[], const int displs[], int count,
                        int size) {
  uint64_t* v = scratch(s, sizeof(uint64_t) * 2 * (size_t)n);
  if (!v) return NULL;
  for (int i = 0; i < n; ++i) {
    v[i] = (uint64_t)(counts ? counts[i] : count) * (uint64_t)size;
    v[n + i] = (uint64_t)(displs ? displs[i] : i * count) * (uint64_t)size;
  }
  return v;
}

static int igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], int recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  hpm_comm* c;
  int e = check(comm, &c, request);
  if (e) return e;
  if (root < 0 || root >= c->size) return MPI_ERR_ROOT;
  const int ssize = hpm_type_size(sendtype), rsize = hpm_type_size(recvtype);
  if ((sendbuf != MPI_IN_PLACE && ssize == 0) || (c->rank == root && rsize == 0)) {
    return MPI_ERR_TYPE;
  }
  schedule* s = schedule_new(c, MPI_OP_NULL, recvtype);
  if (!s) return MPI_ERR_OTHER;
  const uint64_t* l = layout(s, c->size, recvcounts, displs, recvcount, rsize);
  if (l) {
    gather_rounds(s, c, sendbuf, (uint64_t)sendcount * (uint64_t)ssize, recvbuf, l, l + c->size,
                  root, 0);
  }
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
  const int ssize = hpm_type_size(sendtype), rsize = hpm_type_size(recvtype);
  if ((c->rank == root && ssize == 0) || (recvbuf != MPI_IN_PLACE && rsize == 0)) {
    return MPI_ERR_TYPE;
  }
  schedule* s = schedule_new(c, MPI_OP_NULL, sendtype);
  if (!s) return MPI_ERR_OTHER;
  const uint64_t mine = (uint64_t)recvcount * (uint64_t)rsize;
  if (c->rank != root) {
    add_recv(s, 0, root, recvbuf, mine);
  } else {
    const uint64_t* l = layout(s, c->size, sendcounts, displs, sendcount, ssize);
    for (int r = 0; l && r < c->size; ++r) {
      const unsigned char* at = (const unsigned char*)sendbuf + l[c->size + r];
      if (r == root) {
        if (recvbuf != MPI_IN_PLACE) add_copy(s, 0, at, recvbuf, l[r]);
      } else {
        add_send(s, 0, r, at, l[r]);
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

/* Every rank's block to every rank, one round: the block for rank r from `sendbuf` + sdispl[r]
 * (sbytes[r]), rank r's into `recvbuf` + rdispl[r] (rbytes[r]); this rank's own copied unless
 * `self_in_place` (it is there already). */
static int exchange(const hpm_comm* c, const void* sendbuf, const uint64_t* sbytes,
                    const uint64_t* sdispl, void* recvbuf, const uint64_t* rbytes,
                    const uint64_t* rdispl, int self_in_place, schedule* s, MPI_Request* request) {
  for (int r = 0; r < c->size; ++r) {
    unsigned char* to = (unsigned char*)recvbuf + rdispl[r];
    const unsigned char* from = (const unsigned char*)sendbuf + sdispl[r];
    if (r == c->rank) {
      if (!self_in_place) add_copy(s, 0, from, to, rbytes[r]);
    } else {
      add_recv(s, 0, r, to, rbytes[r]);
      add_send(s, 0, r, from, sbytes[r]);
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
  const int ssize = hpm_type_size(sendtype), rsize = hpm_type_size(recvtype);
  if ((sendbuf != MPI_IN_PLACE && ssize == 0) || rsize == 0) return MPI_ERR_TYPE;
  schedule* s = schedule_new(c, MPI_OP_NULL, recvtype);
  if (!s) return MPI_ERR_OTHER;
  const uint64_t* l = layout(s, c->size, recvcounts, displs, recvcount, rsize);
  uint64_t* sl = scratch(s, sizeof(uint64_t) * 2 * (size_t)c->size);
  if (!l || !sl) return start(s, request);
  /* (In place: this rank's block is already at its place in recvbuf.) */
  const void* mine =
      sendbuf == MPI_IN_PLACE ? (unsigned char*)recvbuf + l[c->size + c->rank] : sendbuf;
  const uint64_t my_bytes =
      sendbuf == MPI_IN_PLACE ? l[c->rank] : (uint64_t)sendcount * (uint64_t)ssize;
  for (int r = 0; r < c->size; ++r) {
    sl[r] = my_bytes;
    sl[c->size + r] = 0;
  }
  return exchange(c, mine, sl, sl + c->size, recvbuf, l, l + c->size, sendbuf == MPI_IN_PLACE, s,
                  request);
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
  const int ssize = hpm_type_size(sendtype), rsize = hpm_type_size(recvtype);
  if (ssize == 0 || rsize == 0) return MPI_ERR_TYPE;
  if (sendbuf == MPI_IN_PLACE) return MPI_ERR_BUFFER; /* (not offered here) */
  schedule* s = schedule_new(c, MPI_OP_NULL, recvtype);
  if (!s) return MPI_ERR_OTHER;
  const uint64_t* sl = layout(s, c->size, sendcounts, sdispls, sendcount, ssize);
  const uint64_t* rl = layout(s, c->size, recvcounts, rdispls, recvcount, rsize);
  if (!sl || !rl) return start(s, request);
  return exchange(c, sendbuf, sl, sl + c->size, recvbuf, rl, rl + c->size, 0, s, request);
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
  uint64_t* l = scratch(s, sizeof(uint64_t) * 4 * (size_t)c->size);
  if (!l) return start(s, request);
  const int n = c->size;
  for (int r = 0; r < n; ++r) {
    const int ssize = hpm_type_size(sendtypes[r]), rsize = hpm_type_size(recvtypes[r]);
    if (ssize == 0 || rsize == 0) s->err = MPI_ERR_TYPE;
    l[r] = (uint64_t)sendcounts[r] * (uint64_t)ssize;
    l[n + r] = (uint64_t)sdispls[r];
    l[2 * n + r] = (uint64_t)recvcounts[r] * (uint64_t)rsize;
    l[3 * n + r] = (uint64_t)rdispls[r];
  }
  return exchange(c, sendbuf, l, l + n, recvbuf, l + 2 * n, l + 3 * n, 0, s, request);
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
  const size_t bytes = (size_t)count * (size_t)hpm_type_size(type);
  unsigned char* mine = scratch(s, bytes);
  unsigned char* prefix = scratch(s, bytes);
  if (!mine || !prefix) return start(s, request);
  add_copy(s, 0, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, mine, bytes);
  int round = 1;
  if (c->rank > 0) {
    add_recv(s, round++, c->rank - 1, prefix, bytes);
    if (exclusive) add_copy(s, round, prefix, recvbuf, bytes);
    /* prefix op mine, into mine */
    add_reduce(s, round, prefix, mine, count);
  }
  if (!exclusive) add_copy(s, round, mine, recvbuf, bytes);
  if (c->rank + 1 < c->size) add_send(s, round, c->rank + 1, mine, bytes);
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
  const int size = hpm_type_size(type);
  const uint64_t* l = layout(s, c->size, recvcounts, NULL, recvcount, size);
  if (!l) return start(s, request);
  int total = 0;
  for (int r = 0; r < c->size; ++r) total += recvcounts ? recvcounts[r] : recvcount;
  uint64_t* displ = scratch(s, sizeof(uint64_t) * (size_t)c->size);
  unsigned char* whole = scratch(s, (size_t)total * (size_t)size);
  if (!displ || !whole) return start(s, request);
  for (int r = 0, at = 0; r < c->size; ++r) {
    displ[r] = (uint64_t)at * (uint64_t)size;
    at += recvcounts ? recvcounts[r] : recvcount;
  }
  const void* in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  int round = reduce_rounds(s, c, in, whole, total, 0, 0);
  if (c->rank != 0) {
    add_recv(s, round, 0, recvbuf, l[c->rank]);
  } else {
    for (int r = 0; r < c->size; ++r) {
      if (r == 0) {
        add_copy(s, round, whole + displ[0], recvbuf, l[0]);
      } else {
        add_send(s, round, r, whole + displ[r], l[r]);
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
