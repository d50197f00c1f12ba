/* libmpi: one-sided communication (MPI 3.1, chapter 11) over the message unit, as BG/Q's PAMI
 * did it.
 *
 * - MPI_Put is one direct put per run of the target's datatype: the unit writes the origin's
 *   bytes into the target's window with no action of the target's processor.
 * - MPI_Get is one remote get: the target's unit, on its own, injects the direct puts of the
 *   window's bytes into the origin's buffer (counting them down on a counter of the get's), then
 *   an empty packet that wakes the origin.
 * - Accumulates, compare-and-swap, locks and the synchronization of post/start/complete/wait
 *   need the target's processor: they are messages on a context of their own (HPM_RMA_CTX,
 *   always eager) that the target's library serves whenever its progress engine runs (any MPI
 *   call that waits, tests or probes), in the order they came, one at a time: so an accumulate
 *   is atomic with respect to the others, and an acknowledgement sent after a message has been
 *   served follows everything the origin sent before it. A target asleep in a wait on a
 *   collective device (MPI_Barrier on the GI network) is woken for them by a one-byte direct put
 *   behind each message that counts down the word it sleeps on, so it serves them too.
 * - Remote completion (flush, unlock, fence) is an acknowledged message: the target answers it
 *   after serving what came before it, and packets from one node arrive in order, so the direct
 *   puts have landed too. A fence flushes every target this process used, then is a barrier.
 *
 * Deviations: flush_local waits for remote completion (stronger than MPI requires); the window
 * model is unified (a put's bytes are in the target's memory, where its loads see them); dynamic
 * and shared-memory windows, attributes and request-based operations (MPI_Rput ...) are not
 * offered. One thread uses the library (MPI_THREAD_FUNNELED). */
#include <stdlib.h>
#include <string.h>

#include "mpi_impl.h"

#define MAX_WINDOWS 64

int hpm_rma_windows;
int hpm_rma_active; /* windows + messages not yet released */

enum {
  RMA_ACC = 1,  /* apply op to the runs with the data */
  RMA_GACC,     /* the same, the old values back in an RMA_RESULT */
  RMA_CAS,      /* compare and swap one element; the old value back */
  RMA_RESULT,   /* to the origin: the old values of its id */
  RMA_FLUSH,    /* answer RMA_ACK once served */
  RMA_ACK,      /* to the origin */
  RMA_LOCK,     /* op: the lock type; granted by RMA_GRANT */
  RMA_GRANT,    /* to the origin */
  RMA_UNLOCK,   /* release, then RMA_ACK */
  RMA_POST,     /* to an origin: its access epoch may start */
  RMA_COMPLETE, /* to a target: the origin's access epoch has ended */
};

/* A message's payload begins with this, then `nruns` runs of the target's datatype, then
 * `bytes` of data. */
typedef struct {
  int32_t kind, win; /* win: the window's context */
  int32_t origin;    /* the sender's rank in the window */
  int32_t op, nruns, pad;
  int64_t disp;   /* the target's bytes, from its window's base */
  uint64_t id;    /* the origin's pending result, echoed by RMA_RESULT */
  uint64_t bytes; /* data after the runs */
} rma_header;

typedef struct {
  int64_t disp, len;
  int32_t type, pad;
} rma_run;

/* A get in flight: the unit counts its bytes down on `counter`; its data lands in `into`
 * (`packed` when the origin's type is not dense: unpacked into `user` once complete). An
 * MPI_Rget's is also its request's: whichever of the request and the window's flush is done with
 * it last frees it. */
typedef struct get_op {
  struct get_op* next;
  volatile uint64_t counter;
  int target;
  void* descriptors;
  void* packed;
  void* user;
  int64_t count;
  MPI_Datatype type;
  int by_request; /* its request is not complete yet */
  int unlisted;   /* a flush has taken it off the window's list */
} get_op;

/* A put's packed origin data, freed once its descriptors are injected. */
typedef struct put_op {
  struct put_op* next;
  uint64_t last;
  void* packed;
} put_op;

/* A result still to come (RMA_RESULT): where it goes. An MPI_Rget_accumulate's stays, once
 * arrived, until its request sees it. */
typedef struct {
  void* buf;
  int64_t count;
  MPI_Datatype type;
  int by_request;
  int arrived;
} result_op;

typedef struct {
  int origin, type;
} lock_wait;

typedef struct {
  int used;
  int ctx;
  MPI_Comm comm; /* a duplicate of the creating communicator */
  int size, rank;
  uint64_t* base; /* per member: window base, bytes, displacement unit, put counter */
  uint64_t* bytes;
  int64_t* unit;
  uint64_t* counter;
  uint64_t* wake;      /* per member: the word its collective waits sleep on (0: none) */
  uint64_t* wake_sink; /* per member: a byte the put that wakes it writes */
  void* allocated;     /* MPI_Win_allocate's memory */
  int dynamic;         /* MPI_Win_create_dynamic: displacements are addresses, attached or not */
  MPI_Errhandler errhandler;     /* (0: MPI_ERRORS_ARE_FATAL, the default) */
  volatile uint64_t put_counter; /* direct puts into this window count down here */
  volatile uint64_t sink;        /* what the puts that wake this process write */
  int* acks;                     /* per member: answers awaited */
  unsigned char* touched;        /* per member: used since the last flush of it */
  unsigned char* held;           /* per member: this process holds its lock (a passive epoch) */
  get_op* gets;
  put_op* puts;
  /* As a target: the locks held and waiting. */
  int exclusive; /* holder, or -1 */
  int shared;
  lock_wait* queue;
  int queued, queue_cap;
  /* Post/start/complete/wait: notices received from each member, and the groups (ranks in the
   * window) of the epochs open. */
  int* posts;
  int* completes;
  int* access;
  int naccess;
  int* exposure;
  int nexposure;
} window;

static window windows[MAX_WINDOWS];

/* Messages sent and their buffers, released once injected. */
typedef struct outgoing {
  struct outgoing* next;
  MPI_Request request;
  void* buf;
} outgoing;
static outgoing* outbox;
static int serving;

static window* win_get(MPI_Win win) {
  return win >= 0 && win < MAX_WINDOWS && windows[win].used ? &windows[win] : NULL;
}

static int world_of(const window* w, int rank) {
  return hpm_comms[w->comm].world[rank];
}

static void reap_outbox(void) {
  for (outgoing** at = &outbox; *at;) {
    outgoing* o = *at;
    if (!hpm_complete(o->request)) {
      at = &o->next;
      continue;
    }
    hpm_wait(&o->request, MPI_STATUS_IGNORE);
    *at = o->next;
    free(o->buf);
    free(o);
    --hpm_rma_active;
  }
}

/* Sends a message to member `target` (not this process). */
static int send_msg(window* w, int target, int kind, int op, int64_t disp, uint64_t id,
                    const rma_run* runs, int nruns, const void* data, uint64_t bytes) {
  const uint64_t total = sizeof(rma_header) + sizeof(rma_run) * (uint64_t)nruns + bytes;
  unsigned char* buf = malloc(total);
  outgoing* o = malloc(sizeof *o);
  if (!buf || !o) {
    free(buf);
    free(o);
    return MPI_ERR_OTHER;
  }
  rma_header h = {kind, w->ctx, w->rank, op, nruns, 0, disp, id, bytes};
  memcpy(buf, &h, sizeof h);
  if (nruns) memcpy(buf + sizeof h, runs, sizeof(rma_run) * (size_t)nruns);
  if (bytes) memcpy(buf + sizeof h + sizeof(rma_run) * (size_t)nruns, data, bytes);
  o->buf = buf;
  hpm_isend(buf, total, world_of(w, target), HPM_RMA_CTX, kind, &o->request);
  if (w->wake[target]) {
    /* A target asleep in a wait on a collective device sleeps on another word than the
     * reception FIFO's: one byte put behind the message (so after it, in order) counts that
     * word down, which wakes it to serve the message. */
    static const unsigned char one = 1;
    unsigned char d[HPM_DESCRIPTOR_BYTES] __attribute__((aligned(64)));
    hpm_fill_put(d, world_of(w, target), (uint64_t)(uintptr_t)&one, 1, w->wake_sink[target],
                 w->wake[target]);
    hpm_post_descriptor(d);
  }
  o->next = outbox;
  outbox = o;
  ++hpm_rma_active;
  return MPI_SUCCESS;
}

/* ---- the target's side ---- */

/* target = target op origin, `bytes` of predefined `type`. */
static int apply(MPI_Op op, MPI_Datatype type, const void* origin, void* target, int64_t bytes) {
  if (op == MPI_REPLACE) {
    memmove(target, origin, (size_t)bytes);
    return MPI_SUCCESS;
  }
  if (op == MPI_NO_OP) return MPI_SUCCESS;
  const int size = hpm_basic_size(type);
  if (size == 0) return MPI_ERR_TYPE;
  return hpm_basic_reduce(op, type, origin, target, (int)(bytes / size));
}

static int grantable(const window* w, int type) {
  return w->exclusive < 0 && (type == MPI_LOCK_SHARED || w->shared == 0);
}

static void grant(window* w, int origin, int type) {
  if (type == MPI_LOCK_EXCLUSIVE) {
    w->exclusive = origin;
  } else {
    ++w->shared;
  }
  if (origin == w->rank) {
    --w->acks[origin];
  } else {
    send_msg(w, origin, RMA_GRANT, 0, 0, 0, NULL, 0, NULL, 0);
  }
}

static void request_lock(window* w, int origin, int type) {
  if (w->queued == 0 && grantable(w, type)) {
    grant(w, origin, type);
    return;
  }
  lock_wait* grown = hpm_grow(w->queue, w->queued, &w->queue_cap, sizeof *grown);
  if (!grown) MPI_Abort(MPI_COMM_WORLD, MPI_ERR_OTHER);
  w->queue = grown;
  w->queue[w->queued++] = (lock_wait){origin, type};
}

static void release_lock(window* w, int origin) {
  if (w->exclusive == origin) {
    w->exclusive = -1;
  } else if (w->shared > 0) {
    --w->shared;
  }
  /* The waiting requests in order, as far as they can be granted. */
  while (w->queued && grantable(w, w->queue[0].type)) {
    const lock_wait next = w->queue[0];
    memmove(w->queue, w->queue + 1, sizeof(lock_wait) * (size_t)(w->queued - 1));
    --w->queued;
    grant(w, next.origin, next.type);
  }
}

/* The runs' target bytes combined with `data`; their old values first copied to `old`. */
static void apply_runs(window* w, const rma_header* h, const rma_run* runs,
                       const unsigned char* data, unsigned char* old) {
  unsigned char* base = (unsigned char*)(uintptr_t)w->base[w->rank] + h->disp;
  for (int k = 0; k < h->nruns; ++k) {
    unsigned char* at = base + runs[k].disp;
    if (old) {
      memcpy(old, at, (size_t)runs[k].len);
      old += runs[k].len;
    }
    if (data) {
      apply(h->op, runs[k].type, data, at, runs[k].len);
      data += runs[k].len;
    }
  }
}

static window* window_of_ctx(int ctx) {
  for (int i = 0; i < MAX_WINDOWS; ++i) {
    if (windows[i].used && windows[i].ctx == ctx) return &windows[i];
  }
  return NULL;
}

static void serve(const unsigned char* payload, uint64_t length) {
  if (length < sizeof(rma_header)) return; /* (a get's wake-up packet: nothing to do) */
  rma_header h;
  memcpy(&h, payload, sizeof h);
  window* w = window_of_ctx(h.win);
  if (!w || h.origin < 0 || h.origin >= w->size) return;
  const rma_run* runs = (const rma_run*)(payload + sizeof h);
  const unsigned char* data = payload + sizeof h + sizeof(rma_run) * (size_t)h.nruns;
  switch (h.kind) {
    case RMA_ACC: apply_runs(w, &h, runs, h.bytes ? data : NULL, NULL); break;
    case RMA_GACC:
    case RMA_CAS: {
      uint64_t old_bytes = 0;
      for (int k = 0; k < h.nruns; ++k) old_bytes += (uint64_t)runs[k].len;
      unsigned char* old = malloc(old_bytes + 1);
      if (!old) MPI_Abort(MPI_COMM_WORLD, MPI_ERR_OTHER);
      if (h.kind == RMA_GACC) {
        apply_runs(w, &h, runs, h.bytes ? data : NULL, old);
      } else {
        /* data: the new value, then the value to compare with. */
        unsigned char* at = (unsigned char*)(uintptr_t)w->base[w->rank] + h.disp;
        memcpy(old, at, old_bytes);
        if (memcmp(at, data + old_bytes, old_bytes) == 0) memcpy(at, data, old_bytes);
      }
      send_msg(w, h.origin, RMA_RESULT, 0, 0, h.id, NULL, 0, old, old_bytes);
      free(old);
      break;
    }
    case RMA_RESULT: {
      result_op* r = (result_op*)(uintptr_t)h.id;
      hpm_type_unpack(data, h.bytes, r->buf, r->count, r->type);
      if (r->by_request) {
        r->arrived = 1;
      } else {
        free(r);
      }
      --w->acks[h.origin];
      break;
    }
    case RMA_FLUSH: send_msg(w, h.origin, RMA_ACK, 0, 0, 0, NULL, 0, NULL, 0); break;
    case RMA_ACK:
    case RMA_GRANT: --w->acks[h.origin]; break;
    case RMA_LOCK: request_lock(w, h.origin, h.op); break;
    case RMA_UNLOCK:
      release_lock(w, h.origin);
      send_msg(w, h.origin, RMA_ACK, 0, 0, 0, NULL, 0, NULL, 0);
      break;
    case RMA_POST: ++w->posts[h.origin]; break;
    case RMA_COMPLETE: ++w->completes[h.origin]; break;
    default: break;
  }
}

void hpm_rma_progress(void) {
  if (outbox) reap_outbox();
  if (!hpm_rma_windows || serving) return;
  serving = 1;
  hpm_msg* m;
  while ((m = hpm_take_message(HPM_RMA_CTX)) != NULL) {
    serve(m->data, m->bytes);
    free(m->data);
    free(m);
  }
  serving = 0;
}

/* ---- waiting ---- */

static int acks_done(void* arg) {
  const int* count = arg;
  return *count == 0;
}

static void await_acks(window* w, int target) {
  hpm_wait_until(acks_done, &w->acks[target]);
}

static int get_done(void* arg) {
  const get_op* g = arg;
  return g->counter == 0;
}

/* A get whose data is all here: unpacked into the origin's buffer (once); whether nothing but
 * the caller still needs it (its request, if any, has seen it complete). */
static int get_finish(get_op* g) {
  if (g->packed) {
    hpm_type_unpack(g->packed, (uint64_t)g->count * (uint64_t)hpm_type_size(g->type), g->user,
                    g->count, g->type);
    free(g->packed);
    g->packed = NULL;
  }
  return !g->by_request;
}

/* Completes the gets from `target` (-1: every target): their data is in the origin's buffers. */
static void finish_gets(window* w, int target) {
  for (get_op** at = &w->gets; *at;) {
    get_op* g = *at;
    if (target >= 0 && g->target != target) {
      at = &g->next;
      continue;
    }
    hpm_wait_until(get_done, g);
    *at = g->next;
    g->unlisted = 1;
    if (!get_finish(g)) continue;
    free(g->descriptors);
    free(g);
  }
}

static int puts_injected(void* arg) {
  window* w = arg;
  for (put_op** at = &w->puts; *at;) {
    put_op* p = *at;
    if (!hpm_injected(p->last)) return 0;
    *at = p->next;
    free(p->packed);
    free(p);
  }
  return 1;
}

/* Remote completion of this process's operations on `target`. */
static void flush(window* w, int target) {
  finish_gets(w, target);
  hpm_wait_until(puts_injected, w);
  if (target == w->rank || !w->touched[target]) return;
  ++w->acks[target];
  send_msg(w, target, RMA_FLUSH, 0, 0, 0, NULL, 0, NULL, 0);
  await_acks(w, target);
  w->touched[target] = 0;
}

static void flush_all(window* w) {
  for (int t = 0; t < w->size; ++t) flush(w, t);
}

/* ---- windows ---- */

static int create(void* base, MPI_Aint size, int disp_unit, MPI_Comm comm, void* allocated,
                  MPI_Win* out) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  if (size < 0) return MPI_ERR_ARG;
  if (disp_unit <= 0) return MPI_ERR_DISP;
  int slot = -1;
  for (int i = 0; i < MAX_WINDOWS && slot < 0; ++i) {
    if (!windows[i].used) slot = i;
  }
  if (slot < 0) return MPI_ERR_INTERN;
  window* w = &windows[slot];
  memset(w, 0, sizeof *w);
  int err = MPI_Comm_dup(comm, &w->comm);
  if (err) return err;
  w->used = 1;
  w->ctx = hpm_comms[w->comm].ctx;
  w->size = c->size;
  w->rank = c->rank;
  w->allocated = allocated;
  w->exclusive = -1;
  const size_t n = (size_t)w->size;
  w->base = calloc(n, sizeof(uint64_t));
  w->bytes = calloc(n, sizeof(uint64_t));
  w->unit = calloc(n, sizeof(int64_t));
  w->counter = calloc(n, sizeof(uint64_t));
  w->wake = calloc(n, sizeof(uint64_t));
  w->wake_sink = calloc(n, sizeof(uint64_t));
  w->acks = calloc(n, sizeof(int));
  w->touched = calloc(n, 1);
  w->held = calloc(n, 1);
  w->posts = calloc(n, sizeof(int));
  w->completes = calloc(n, sizeof(int));
  w->access = calloc(n, sizeof(int));
  w->exposure = calloc(n, sizeof(int));
  uint64_t* all = calloc(6 * n, sizeof(uint64_t));
  if (!w->base || !w->bytes || !w->unit || !w->counter || !w->wake || !w->wake_sink || !w->acks ||
      !w->touched || !w->held || !w->posts || !w->completes || !w->access || !w->exposure || !all) {
    free(all);
    return MPI_ERR_OTHER;
  }
  volatile uint64_t* wake = hpm_colnet_wake_word();
  if (!wake) wake = hpm_torcoll_wake_word();
  const uint64_t mine[6] = {(uint64_t)(uintptr_t)base, (uint64_t)size,
                            (uint64_t)disp_unit,       (uint64_t)(uintptr_t)&w->put_counter,
                            (uint64_t)(uintptr_t)wake, (uint64_t)(uintptr_t)&w->sink};
  err = MPI_Allgather(mine, 6, MPI_UINT64_T, all, 6, MPI_UINT64_T, w->comm);
  for (size_t i = 0; i < n; ++i) {
    w->base[i] = all[6 * i];
    w->bytes[i] = all[6 * i + 1];
    w->unit[i] = (int64_t)all[6 * i + 2];
    w->counter[i] = all[6 * i + 3];
    w->wake[i] = all[6 * i + 4];
    w->wake_sink[i] = all[6 * i + 5];
  }
  free(all);
  ++hpm_rma_windows;
  ++hpm_rma_active;
  *out = slot;
  return err;
}

int MPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win* win) {
  (void)info;
  return create(base, size, disp_unit, comm, NULL, win);
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                     MPI_Win* win) {
  (void)info;
  if (size < 0) return MPI_ERR_ARG;
  void* base = calloc(1, (size_t)size + 1);
  if (!base) return MPI_ERR_OTHER;
  *(void**)baseptr = base;
  const int err = create(base, size, disp_unit, comm, base, win);
  if (err) free(base);
  return err;
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  (void)info;
  const int err = create(NULL, 0, 1, comm, NULL, win);
  if (!err) windows[*win].dynamic = 1;
  return err;
}

/* (A dynamic window's target addresses are the origin's to get right, as MPI says: memory is
 * attached and detached with no bookkeeping, and no range is checked.) */
int MPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  if (!win_get(win)) return MPI_ERR_WIN;
  return base || size == 0 ? MPI_SUCCESS : MPI_ERR_ARG;
}

int MPI_Win_detach(MPI_Win win, const void* base) {
  (void)base;
  return win_get(win) ? MPI_SUCCESS : MPI_ERR_WIN;
}

int MPI_Win_free(MPI_Win* win) {
  window* w = win_get(*win);
  if (!w) return MPI_ERR_WIN;
  flush_all(w);
  /* (Every member's operations on this window are complete once all have flushed theirs.) */
  MPI_Barrier(w->comm);
  MPI_Comm_free(&w->comm);
  free(w->base);
  free(w->bytes);
  free(w->unit);
  free(w->counter);
  free(w->wake);
  free(w->wake_sink);
  free(w->acks);
  free(w->touched);
  free(w->held);
  free(w->posts);
  free(w->completes);
  free(w->access);
  free(w->exposure);
  free(w->queue);
  free(w->allocated);
  memset(w, 0, sizeof *w);
  --hpm_rma_windows;
  --hpm_rma_active;
  *win = MPI_WIN_NULL;
  return MPI_SUCCESS;
}

MPI_Errhandler* hpm_win_errhandler(MPI_Win win) {
  window* w = win_get(win);
  return w ? &w->errhandler : NULL;
}

int MPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  window* w = win_get(win);
  return w ? MPI_Comm_group(w->comm, group) : MPI_ERR_WIN;
}

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  (void)info;
  if (size < 0) return MPI_ERR_ARG;
  void* p = malloc((size_t)size + 1);
  if (!p) return MPI_ERR_OTHER; /* MPI_ERR_NO_MEM's class */
  *(void**)baseptr = p;
  return MPI_SUCCESS;
}

int MPI_Free_mem(void* base) {
  free(base);
  return MPI_SUCCESS;
}

/* ---- the operations ---- */

/* Checks an operation's arguments; its target's address in *target (NULL: MPI_PROC_NULL). */
static int target_of(window* w, int rank, MPI_Aint disp, int count, MPI_Datatype type,
                     unsigned char** target) {
  *target = NULL;
  if (!w) return MPI_ERR_WIN;
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (rank < 0 || rank >= w->size) return MPI_ERR_RANK;
  if (count < 0) return MPI_ERR_COUNT;
  if (!hpm_type_ok(type)) return MPI_ERR_TYPE;
  if (disp < 0) return MPI_ERR_DISP;
  if (w->dynamic) {
    *target = (unsigned char*)(uintptr_t)disp;
    return MPI_SUCCESS;
  }
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_get_true_extent(type, &lb, &extent);
  const int64_t offset = disp * w->unit[rank];
  if (count > 0 &&
      (offset + lb < 0 ||
       (uint64_t)(offset + lb + (count - 1) * hpm_type_extent(type) + extent) > w->bytes[rank]))
    return MPI_ERR_RMA_RANGE;
  *target = (unsigned char*)(uintptr_t)(w->base[rank] + (uint64_t)offset);
  return MPI_SUCCESS;
}

/* The runs of a target type, as a message carries them. */
typedef struct {
  rma_run* runs;
  int n, cap;
} run_list;

static void add_run(void* arg, int64_t disp, int64_t len, MPI_Datatype basic) {
  run_list* l = arg;
  rma_run* grown = hpm_grow(l->runs, l->n, &l->cap, sizeof *grown);
  if (!grown) MPI_Abort(MPI_COMM_WORLD, MPI_ERR_OTHER);
  l->runs = grown;
  l->runs[l->n++] = (rma_run){disp, len, basic, 0};
}

/* The origin's data packed (the buffer itself when its type is dense); *owned is what to free. */
static const unsigned char* packed_origin(const void* origin, int count, MPI_Datatype type,
                                          void** owned) {
  *owned = NULL;
  if (hpm_type_dense(type)) return origin;
  *owned = malloc((size_t)count * (size_t)hpm_type_size(type) + 1);
  if (!*owned) return NULL;
  hpm_type_pack(origin, count, type, *owned);
  return *owned;
}

/* A put's or get's arguments: the target's (target_of) and the origin buffer's count and type. */
static int check_transfer(window* w, int target_rank, MPI_Aint target_disp, int target_count,
                          MPI_Datatype target_datatype, int origin_count,
                          MPI_Datatype origin_datatype, unsigned char** target) {
  const int err = target_of(w, target_rank, target_disp, target_count, target_datatype, target);
  if (err || !*target) return err;
  if (origin_count < 0) return MPI_ERR_COUNT;
  return hpm_type_ok(origin_datatype) ? MPI_SUCCESS : MPI_ERR_TYPE;
}

/* A put; *last (if asked) the number of its last descriptor in the injection FIFO (0: none,
 * done already). */
static int put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, int target_count,
               MPI_Datatype target_datatype, MPI_Win win, uint64_t* last_out) {
  window* w = win_get(win);
  unsigned char* target;
  const int err = check_transfer(w, target_rank, target_disp, target_count, target_datatype,
                                 origin_count, origin_datatype, &target);
  if (err || !target) return err;
  if (target_rank == w->rank) {
    return hpm_type_copy(origin_addr, origin_count, origin_datatype, target, target_count,
                         target_datatype);
  }
  void* owned;
  const unsigned char* data = packed_origin(origin_addr, origin_count, origin_datatype, &owned);
  if (!data) return MPI_ERR_OTHER;
  run_list l = {NULL, 0, 0};
  hpm_type_runs(target_count, target_datatype, add_run, &l);
  uint64_t last = 0, at = 0;
  unsigned char d[HPM_DESCRIPTOR_BYTES] __attribute__((aligned(64)));
  for (int k = 0; k < l.n; ++k) {
    hpm_fill_put(d, world_of(w, target_rank), (uint64_t)(uintptr_t)(data + at),
                 (uint64_t)l.runs[k].len, (uint64_t)(uintptr_t)(target + l.runs[k].disp),
                 w->counter[target_rank]);
    last = hpm_post_descriptor(d);
    at += (uint64_t)l.runs[k].len;
  }
  free(l.runs);
  w->touched[target_rank] = 1;
  if (last_out) *last_out = last;
  if (owned) {
    put_op* p = malloc(sizeof *p);
    if (!p) return MPI_ERR_OTHER;
    *p = (put_op){w->puts, last, owned};
    w->puts = p;
  }
  return MPI_SUCCESS;
}

int MPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
            int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
            MPI_Win win) {
  return put(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, NULL);
}

/* A get; *out (if asked) its operation, kept for a request until the request has seen it
 * complete (NULL: none, done already). */
static int get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
               MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
               get_op** out) {
  window* w = win_get(win);
  unsigned char* target;
  const int err = check_transfer(w, target_rank, target_disp, target_count, target_datatype,
                                 origin_count, origin_datatype, &target);
  if (err || !target) return err;
  if (target_rank == w->rank) {
    return hpm_type_copy(target, target_count, target_datatype, origin_addr, origin_count,
                         origin_datatype);
  }
  run_list l = {NULL, 0, 0};
  hpm_type_runs(target_count, target_datatype, add_run, &l);
  const uint64_t bytes = (uint64_t)target_count * (uint64_t)hpm_type_size(target_datatype);
  get_op* g = calloc(1, sizeof *g);
  if (g) {
    /* (The data lands packed when the origin's type is not dense: unpacked once complete.) */
    if (!hpm_type_dense(origin_datatype)) g->packed = malloc(bytes + 1);
    g->descriptors = aligned_alloc(64, HPM_DESCRIPTOR_BYTES * (size_t)(l.n + 1));
  }
  if (!g || !g->descriptors || (!hpm_type_dense(origin_datatype) && !g->packed)) {
    free(l.runs);
    if (g) {
      free(g->packed);
      free(g->descriptors);
    }
    free(g);
    return MPI_ERR_OTHER;
  }
  unsigned char* into = g->packed ? g->packed : origin_addr;
  g->target = target_rank;
  g->user = origin_addr;
  g->count = origin_count;
  g->type = origin_datatype;
  g->counter = bytes;
  unsigned char* d = g->descriptors;
  uint64_t at = 0;
  for (int k = 0; k < l.n; ++k) {
    hpm_fill_put(d + HPM_DESCRIPTOR_BYTES * k, hpm_world_rank,
                 (uint64_t)(uintptr_t)(target + l.runs[k].disp), (uint64_t)l.runs[k].len,
                 (uint64_t)(uintptr_t)(into + at), (uint64_t)(uintptr_t)&g->counter);
    at += (uint64_t)l.runs[k].len;
  }
  /* (Then an empty packet to this process: the waiting origin wakes when the data is here.) */
  hpm_fill_packet(d + HPM_DESCRIPTOR_BYTES * l.n, hpm_world_rank, HPM_RMA_CTX, 0, 0);
  hpm_post_remote_get(world_of(w, target_rank), d, l.n + 1);
  free(l.runs);
  g->next = w->gets;
  w->gets = g;
  if (out) {
    g->by_request = 1;
    *out = g;
  }
  return MPI_SUCCESS;
}

int MPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  return get(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
             target_datatype, win, NULL);
}

static int check_op(MPI_Op op) {
  return (op >= MPI_MAX && op <= MPI_MINLOC) || op == MPI_REPLACE || op == MPI_NO_OP ? MPI_SUCCESS
                                                                                     : MPI_ERR_OP;
}

/* Accumulate and get-accumulate (result_addr non-NULL): the target's elements combined with the
 * origin's, the old ones to the result buffer; *out (if asked) the result still to come, kept
 * for a request (NULL: none, here already). */
static int accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                      void* result_addr, int result_count, MPI_Datatype result_datatype,
                      int target_rank, MPI_Aint target_disp, int target_count,
                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, result_op** out) {
  window* w = win_get(win);
  unsigned char* target;
  int err = target_of(w, target_rank, target_disp, target_count, target_datatype, &target);
  if (err || !target) return err;
  if ((err = check_op(op))) return err;
  const int with_data = op != MPI_NO_OP;
  if (with_data && (origin_count < 0 || !hpm_type_ok(origin_datatype))) return MPI_ERR_TYPE;
  void* owned = NULL;
  const unsigned char* data =
      with_data ? packed_origin(origin_addr, origin_count, origin_datatype, &owned) : NULL;
  if (with_data && !data) return MPI_ERR_OTHER;
  run_list l = {NULL, 0, 0};
  hpm_type_runs(target_count, target_datatype, add_run, &l);
  const uint64_t bytes =
      with_data ? (uint64_t)origin_count * (uint64_t)hpm_type_size(origin_datatype) : 0;
  rma_header h = {result_addr ? RMA_GACC : RMA_ACC,
                  w->ctx,
                  w->rank,
                  op,
                  l.n,
                  0,
                  target - (unsigned char*)(uintptr_t)w->base[target_rank],
                  0,
                  bytes};
  if (target_rank == w->rank) {
    /* (The same rules as a message's, applied here: one thread serves both.) */
    uint64_t old_bytes = (uint64_t)target_count * (uint64_t)hpm_type_size(target_datatype);
    unsigned char* old = result_addr ? malloc(old_bytes + 1) : NULL;
    apply_runs(w, &h, l.runs, data, old);
    if (old) hpm_type_unpack(old, old_bytes, result_addr, result_count, result_datatype);
    free(old);
  } else {
    if (result_addr) {
      result_op* r = malloc(sizeof *r);
      if (!r) err = MPI_ERR_OTHER;
      if (r) {
        *r = (result_op){result_addr, result_count, result_datatype, out != NULL, 0};
        ++w->acks[target_rank];
        h.id = (uint64_t)(uintptr_t)r;
        if (out) *out = r;
      }
    }
    if (!err) {
      err = send_msg(w, target_rank, h.kind, op, h.disp, h.id, l.runs, l.n, data, bytes);
    }
    w->touched[target_rank] = 1;
  }
  free(l.runs);
  free(owned);
  return err;
}

int MPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                   int target_rank, MPI_Aint target_disp, int target_count,
                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  return accumulate(origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL,
                    target_rank, target_disp, target_count, target_datatype, op, win, NULL);
}

int MPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       void* result_addr, int result_count, MPI_Datatype result_datatype,
                       int target_rank, MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  if (!result_addr || !hpm_type_ok(result_datatype)) return MPI_ERR_TYPE;
  return accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                    result_datatype, target_rank, target_disp, target_count, target_datatype, op,
                    win, NULL);
}

int MPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  return MPI_Get_accumulate(origin_addr, 1, datatype, result_addr, 1, datatype, target_rank,
                            target_disp, 1, datatype, op, win);
}

int MPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                         MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Win win) {
  window* w = win_get(win);
  unsigned char* target;
  int err = target_of(w, target_rank, target_disp, 1, datatype, &target);
  if (err || !target) return err;
  const int size = hpm_basic_size(datatype);
  if (size == 0) return MPI_ERR_TYPE; /* (predefined types only, as MPI says) */
  if (target_rank == w->rank) {
    memcpy(result_addr, target, (size_t)size);
    if (memcmp(target, compare_addr, (size_t)size) == 0) memcpy(target, origin_addr, (size_t)size);
    return MPI_SUCCESS;
  }
  unsigned char data[2 * 32]; /* (the largest predefined type: long double complex) */
  memcpy(data, origin_addr, (size_t)size);
  memcpy(data + size, compare_addr, (size_t)size);
  result_op* r = malloc(sizeof *r);
  if (!r) return MPI_ERR_OTHER;
  *r = (result_op){result_addr, 1, datatype, 0, 0};
  ++w->acks[target_rank];
  const rma_run run = {0, size, datatype, 0};
  w->touched[target_rank] = 1;
  return send_msg(w, target_rank, RMA_CAS, 0,
                  target - (unsigned char*)(uintptr_t)w->base[target_rank], (uint64_t)(uintptr_t)r,
                  &run, 1, data, 2 * (uint64_t)size);
}

/* ---- synchronization ---- */

int MPI_Win_fence(int assert, MPI_Win win) {
  (void)assert;
  window* w = win_get(win);
  if (!w) return MPI_ERR_WIN;
  flush_all(w);
  return MPI_Barrier(w->comm);
}

static int check_target(window* w, int rank) {
  if (!w) return MPI_ERR_WIN;
  return rank >= 0 && rank < w->size ? MPI_SUCCESS : MPI_ERR_RANK;
}

int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
  (void)assert;
  window* w = win_get(win);
  int err = check_target(w, rank);
  if (err) return err;
  if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED) return MPI_ERR_LOCKTYPE;
  ++w->acks[rank];
  if (rank == w->rank) {
    request_lock(w, rank, lock_type);
  } else {
    err = send_msg(w, rank, RMA_LOCK, lock_type, 0, 0, NULL, 0, NULL, 0);
  }
  await_acks(w, rank);
  w->held[rank] = !err;
  return err;
}

int MPI_Win_unlock(int rank, MPI_Win win) {
  window* w = win_get(win);
  int err = check_target(w, rank);
  if (err) return err;
  finish_gets(w, rank);
  hpm_wait_until(puts_injected, w);
  w->held[rank] = 0;
  if (rank == w->rank) {
    release_lock(w, rank);
    return MPI_SUCCESS;
  }
  /* (Served after every operation this process sent before it: they are complete when its
   * acknowledgement comes.) */
  ++w->acks[rank];
  err = send_msg(w, rank, RMA_UNLOCK, 0, 0, 0, NULL, 0, NULL, 0);
  await_acks(w, rank);
  w->touched[rank] = 0;
  return err;
}

int MPI_Win_lock_all(int assert, MPI_Win win) {
  window* w = win_get(win);
  if (!w) return MPI_ERR_WIN;
  for (int t = 0; t < w->size; ++t) {
    const int err = MPI_Win_lock(MPI_LOCK_SHARED, t, assert, win);
    if (err) return err;
  }
  return MPI_SUCCESS;
}

int MPI_Win_unlock_all(MPI_Win win) {
  window* w = win_get(win);
  if (!w) return MPI_ERR_WIN;
  for (int t = 0; t < w->size; ++t) {
    const int err = MPI_Win_unlock(t, win);
    if (err) return err;
  }
  return MPI_SUCCESS;
}

int MPI_Win_flush(int rank, MPI_Win win) {
  window* w = win_get(win);
  const int err = check_target(w, rank);
  if (!err) flush(w, rank);
  return err;
}

int MPI_Win_flush_all(MPI_Win win) {
  window* w = win_get(win);
  if (!w) return MPI_ERR_WIN;
  flush_all(w);
  return MPI_SUCCESS;
}

int MPI_Win_flush_local(int rank, MPI_Win win) {
  return MPI_Win_flush(rank, win);
}

int MPI_Win_flush_local_all(MPI_Win win) {
  return MPI_Win_flush_all(win);
}

int MPI_Win_sync(MPI_Win win) {
  __sync_synchronize();
  return win_get(win) ? MPI_SUCCESS : MPI_ERR_WIN;
}

/* The ranks in the window of a group's members (n of them, into `ranks`). */
static int window_ranks(window* w, MPI_Group group, int* ranks, int* n) {
  int err = MPI_Group_size(group, n);
  if (err) return err;
  MPI_Group mine;
  if ((err = MPI_Comm_group(w->comm, &mine))) return err;
  int* in = malloc(sizeof(int) * (size_t)(*n + 1));
  if (!in) return MPI_ERR_OTHER;
  for (int i = 0; i < *n; ++i) in[i] = i;
  err = MPI_Group_translate_ranks(group, *n, in, mine, ranks);
  free(in);
  MPI_Group_free(&mine);
  for (int i = 0; !err && i < *n; ++i) {
    if (ranks[i] == MPI_UNDEFINED) err = MPI_ERR_GROUP;
  }
  return err;
}

int MPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
  (void)assert;
  window* w = win_get(win);
  if (!w) return MPI_ERR_WIN;
  int err = window_ranks(w, group, w->exposure, &w->nexposure);
  for (int i = 0; !err && i < w->nexposure; ++i) {
    const int t = w->exposure[i];
    if (t == w->rank) {
      ++w->posts[t];
    } else {
      err = send_msg(w, t, RMA_POST, 0, 0, 0, NULL, 0, NULL, 0);
    }
  }
  return err;
}

typedef struct {
  window* w;
  const int* counts; /* posts or completes */
  const int* ranks;
  int n;
} notices;

static int all_noticed(void* arg) {
  const notices* s = arg;
  for (int i = 0; i < s->n; ++i) {
    if (s->counts[s->ranks[i]] == 0) return 0;
  }
  return 1;
}

int MPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
  (void)assert;
  window* w = win_get(win);
  if (!w) return MPI_ERR_WIN;
  const int err = window_ranks(w, group, w->access, &w->naccess);
  if (err) return err;
  notices s = {w, w->posts, w->access, w->naccess};
  hpm_wait_until(all_noticed, &s);
  for (int i = 0; i < w->naccess; ++i) --w->posts[w->access[i]];
  return MPI_SUCCESS;
}

int MPI_Win_complete(MPI_Win win) {
  window* w = win_get(win);
  if (!w) return MPI_ERR_WIN;
  int err = MPI_SUCCESS;
  for (int i = 0; i < w->naccess; ++i) {
    const int t = w->access[i];
    finish_gets(w, t);
    /* (Served after this process's operations on the target: its wait sees them complete.) */
    if (t == w->rank) {
      ++w->completes[t];
    } else {
      err = send_msg(w, t, RMA_COMPLETE, 0, 0, 0, NULL, 0, NULL, 0);
      w->touched[t] = 0;
    }
  }
  hpm_wait_until(puts_injected, w);
  w->naccess = 0;
  return err;
}

int MPI_Win_test(MPI_Win win, int* flag) {
  window* w = win_get(win);
  if (!w) return MPI_ERR_WIN;
  hpm_progress();
  notices s = {w, w->completes, w->exposure, w->nexposure};
  *flag = all_noticed(&s);
  if (*flag) {
    for (int i = 0; i < w->nexposure; ++i) --w->completes[w->exposure[i]];
    w->nexposure = 0;
  }
  return MPI_SUCCESS;
}

int MPI_Win_wait(MPI_Win win) {
  window* w = win_get(win);
  if (!w) return MPI_ERR_WIN;
  notices s = {w, w->completes, w->exposure, w->nexposure};
  hpm_wait_until(all_noticed, &s);
  int flag;
  return MPI_Win_test(win, &flag);
}

/* ---- request-based operations (MPI 3.1, 11.3.5): in a passive-target epoch only ---- */

static int passive(MPI_Win win, int target_rank) {
  window* w = win_get(win);
  if (!w) return MPI_ERR_WIN;
  if (target_rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (target_rank < 0 || target_rank >= w->size) return MPI_ERR_RANK;
  return w->held[target_rank] ? MPI_SUCCESS : MPI_ERR_RMA_SYNC;
}

/* An MPI_Rput: complete locally once the unit has injected its last descriptor. */
static int rput_poll(void* state, int* error) {
  *error = MPI_SUCCESS;
  return hpm_injected((uint64_t)(uintptr_t)state);
}

/* An MPI_Rget: complete once its data is all in the origin's buffer. */
static int rget_poll(void* state, int* error) {
  get_op* g = state;
  if (g->counter != 0) return 0;
  g->by_request = 0;
  get_finish(g);
  if (g->unlisted) {
    free(g->descriptors);
    free(g);
  }
  *error = MPI_SUCCESS;
  return 1;
}

/* An MPI_Rget_accumulate: complete once its result has come. */
static int result_poll(void* state, int* error) {
  result_op* r = state;
  if (!r->arrived) return 0;
  free(r);
  *error = MPI_SUCCESS;
  return 1;
}

int MPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win, MPI_Request* request) {
  *request = MPI_REQUEST_NULL;
  int err = passive(win, target_rank);
  uint64_t last = 0;
  if (!err) {
    err = put(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
              target_datatype, win, &last);
  }
  if (err) return err;
  *request =
      last ? hpm_new_polled_request(rput_poll, (void*)(uintptr_t)last) : hpm_new_done_request();
  return MPI_SUCCESS;
}

int MPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request* request) {
  *request = MPI_REQUEST_NULL;
  int err = passive(win, target_rank);
  get_op* g = NULL;
  if (!err) {
    err = get(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
              target_datatype, win, &g);
  }
  if (err) return err;
  *request = g ? hpm_new_polled_request(rget_poll, g) : hpm_new_done_request();
  return MPI_SUCCESS;
}

/* (An accumulate's data travels in its message, copied at the call: complete locally then.) */
int MPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request) {
  *request = MPI_REQUEST_NULL;
  int err = passive(win, target_rank);
  if (!err) {
    err = MPI_Accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                         target_count, target_datatype, op, win);
  }
  if (!err) *request = hpm_new_done_request();
  return err;
}

int MPI_Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void* result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                        MPI_Request* request) {
  *request = MPI_REQUEST_NULL;
  int err = passive(win, target_rank);
  if (!err && (!result_addr || !hpm_type_ok(result_datatype))) err = MPI_ERR_TYPE;
  result_op* r = NULL;
  if (!err) {
    err = accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                     result_datatype, target_rank, target_disp, target_count, target_datatype, op,
                     win, &r);
  }
  if (err) return err;
  *request = r ? hpm_new_polled_request(result_poll, r) : hpm_new_done_request();
  return MPI_SUCCESS;
}

/* ---- shared-memory windows ----
 * Each process is alone on its node (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) gives it a
 * communicator of one): a shared window over one process is its own memory; over more, whose
 * memories no load or store can reach, it is refused with MPI_ERR_RMA_SHARED. */

int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void* baseptr, MPI_Win* win) {
  const hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  if (c->size > 1) return MPI_ERR_RMA_SHARED;
  return MPI_Win_allocate(size, disp_unit, info, comm, baseptr, win);
}

int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
  window* w = win_get(win);
  if (!w) return MPI_ERR_WIN;
  if (rank == MPI_PROC_NULL) rank = 0; /* (the lowest rank with memory: the only one) */
  if (rank < 0 || rank >= w->size) return MPI_ERR_RANK;
  if (w->size > 1) return MPI_ERR_RMA_SHARED;
  *size = (MPI_Aint)w->bytes[rank];
  *disp_unit = (int)w->unit[rank];
  *(void**)baseptr = (void*)(uintptr_t)w->base[rank];
  return MPI_SUCCESS;
}
