/* libmpi: the message unit, the progress engine and point-to-point messages.
 *
 * Every MPI message is one descriptor of the node's message unit: the unit cuts it into
 * packets whose 16 software header bytes carry the context, the tag and the message's length.
 * Packets from one node arrive in order (deterministic routing), so a message's packets come
 * one after another and messages from one source in the order they were sent: MPI's
 * non-overtaking rule holds by construction. A message that finds no posted receive is buffered.
 *
 * Two protocols, as Blue Gene's MPI had (docs/network.md, "Guest MPI"):
 * - Eager, for messages shorter than the rendezvous cutoff: the message travels in memory-FIFO
 *   packets, and the receiver copies it out of its reception FIFO (or out of a buffered copy).
 * - Rendezvous, from the cutoff up: the sender's message is only a request to send (one packet
 *   with its buffer's address); the receive that matches it asks the sender's unit, by a remote
 *   get, for three descriptors: a direct put of the data into the receive buffer (no copy: the
 *   unit writes it and counts its bytes down on the receive's counter), then an empty packet to
 *   the receiver (its receive is complete: the put's packets came before it, in order), then an
 *   empty packet from the sender's unit to the sender itself (its send is complete: the unit has
 *   read the whole buffer). The cutoff is BG/Q's MPI's PAMID_EAGER (default 2049 bytes: MPICH's
 *   BG/Q device, src/mpid/pamid/src/mpidi_env.c) or BG/P's DCMF_EAGER (default 1200 bytes:
 *   MPICH's BG/P device, src/mpid/dcmfd/src/comm/mpid_comm.c), read from the environment; the
 *   default is BG/P's on a 3-dimensional torus and BG/Q's otherwise. A send of the cutoff or more
 *   therefore completes only once a receive has matched it (MPI allows it; a program that needs
 *   more buffering is unsafe, as on the real machines). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hpm/mu.h"
#include "mpi_impl.h"

#define SKIP HPM_MU_SKIP
#define INJ_ENTRIES 256
#define REC_BYTES (1u << 20)
#define MAX_REQUESTS 4096
/* Polls of the reception FIFO before a waiting receive sleeps until a packet lands. */
#define SPINS 16

/* The unit's descriptor (hpm/mu.h) with libmpi's header in its 16 software bytes. */
typedef struct {
  uint32_t dest, flags;
  uint64_t payload, bytes;
  int32_t ctx, tag;
  uint64_t length;
  uint64_t put, counter, status;
} descriptor;
_Static_assert(sizeof(descriptor) == sizeof(hpm_mu_descriptor), "the unit's descriptor");

typedef struct {
  uint32_t src, bytes;
  uint64_t offset;
  int32_t ctx, tag;
  uint64_t length;
} packet_header;

hpm_comm hpm_comms[HPM_MAX_COMMS];
int hpm_world_rank, hpm_world_size;

static volatile uint64_t* mu;
static descriptor* inj;
static unsigned char* rec;
static volatile uint64_t rec_tail_word __attribute__((aligned(8)));
static uint64_t rec_head;
static uint64_t inj_tail;
static uint64_t header_bytes = 32;
static int state;       /* 0 before MPI_Init, 1 running, 2 finalized */
static int in_progress; /* hpm_progress's loop is under way */
/* Rendezvous: the smallest message sent by rendezvous, and the context of its control packets
 * (no communicator's: contexts are never negative); a request to send's length has RTS set. */
static uint64_t eager_limit = 2049;
#define RZV_CTX HPM_RZV_CTX
#define RZV_DONE 1 /* to the receiver: the put's data is in its buffer */
#define RZV_FIN 2  /* to the sender: its buffer has been read */
#define RTS (1ull << 63)

static hpm_req requests[MAX_REQUESTS];
static int posted[MAX_REQUESTS]; /* receives waiting for a first packet, in posting order */
static int posted_count;
static hpm_msg* unexpected_head;
static hpm_msg** unexpected_tail = &unexpected_head;
/* Per source node: the receive (index + 1) or buffered message its next packet belongs to. */
static int* arriving_req;
static hpm_msg** arriving_msg;

static uint64_t reg(unsigned offset) {
  return mu[offset / 8];
}
static void set_reg(unsigned offset, uint64_t v) {
  mu[offset / 8] = v;
}

int hpm_ready(void) {
  return state == 1;
}

static void fatal(const char* what) {
  fprintf(stderr, "libmpi: %s\n", what);
  exit(70);
}

int MPI_Init(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  if (state != 0) return MPI_ERR_OTHER;
  const int fd = open("/dev/hpm/mu", O_RDWR);
  if (fd < 0) fatal("no message unit (/dev/hpm/mu): run with hpmsim run --nodes N");
  mu = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (mu == MAP_FAILED) fatal("cannot map the message unit");
  hpm_world_rank = (int)reg(HPM_MU_RANK);
  hpm_world_size = (int)reg(HPM_MU_NODES);
  header_bytes = reg(HPM_MU_HEADER_BYTES);
  const int bgp = reg(HPM_MU_DIMENSIONS) == 3;
  const char* cutoff = getenv(bgp ? "DCMF_EAGER" : "PAMID_EAGER");
  if (!cutoff) cutoff = getenv(bgp ? "DCMF_RZV" : "PAMID_RZV");
  eager_limit = cutoff ? strtoull(cutoff, NULL, 0) : bgp ? 1200 : 2049;
  inj = aligned_alloc(64, INJ_ENTRIES * sizeof(descriptor));
  rec = aligned_alloc(64, REC_BYTES);
  arriving_req = calloc((size_t)hpm_world_size, sizeof *arriving_req);
  arriving_msg = calloc((size_t)hpm_world_size, sizeof *arriving_msg);
  if (!inj || !rec || !arriving_req || !arriving_msg) fatal("out of memory");
  set_reg(HPM_MU_INJ_BASE, (uint64_t)(uintptr_t)inj);
  set_reg(HPM_MU_INJ_ENTRIES, INJ_ENTRIES);
  set_reg(HPM_MU_REC_BASE, (uint64_t)(uintptr_t)rec);
  set_reg(HPM_MU_REC_BYTES, REC_BYTES);
  set_reg(HPM_MU_REC_TAIL_ADDR, (uint64_t)(uintptr_t)&rec_tail_word);
  inj_tail = 0;
  rec_head = 0;
  static int world_members[1];
  hpm_comm* w = &hpm_comms[MPI_COMM_WORLD];
  w->used = 1;
  w->size = hpm_world_size;
  w->rank = hpm_world_rank;
  w->world = malloc(sizeof(int) * (size_t)hpm_world_size);
  for (int i = 0; i < hpm_world_size; ++i) w->world[i] = i;
  w->ctx = 0;
  hpm_comm* self = &hpm_comms[MPI_COMM_SELF];
  self->used = 1;
  self->size = 1;
  self->rank = 0;
  world_members[0] = hpm_world_rank;
  self->world = world_members;
  self->ctx = 2;
  for (int i = 0; i < MAX_REQUESTS; ++i) requests[i].kind = HPM_REQ_FREE;
  state = 1;
  return MPI_SUCCESS;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  (void)required;
  *provided = MPI_THREAD_FUNNELED;
  return MPI_Init(argc, argv);
}

int MPI_Initialized(int* flag) {
  *flag = state != 0;
  return MPI_SUCCESS;
}

int MPI_Finalized(int* flag) {
  *flag = state == 2;
  return MPI_SUCCESS;
}

int MPI_Finalize(void) {
  if (state != 1) return MPI_ERR_OTHER;
  MPI_Barrier(MPI_COMM_WORLD); /* every rank's messages have arrived */
  state = 2;
  return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm comm, int errorcode) {
  (void)comm;
  fprintf(stderr, "libmpi: MPI_Abort on rank %d with error code %d\n", hpm_world_rank, errorcode);
  exit(errorcode == 0 ? 1 : errorcode);
}

double MPI_Wtime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts); /* simulated time */
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double MPI_Wtick(void) {
  return 1e-9;
}

hpm_req* hpm_request(MPI_Request r) {
  if (r < 0 || r >= MAX_REQUESTS || requests[r].kind == HPM_REQ_FREE) return NULL;
  return &requests[r];
}

static int new_request(int kind) {
  for (int i = 0; i < MAX_REQUESTS; ++i) {
    if (requests[i].kind == HPM_REQ_FREE) {
      memset(&requests[i], 0, sizeof requests[i]);
      requests[i].kind = kind;
      return i;
    }
  }
  fatal("more than 4096 requests outstanding");
  return -1;
}

/* The posted receive, in posting order, that a message's first packet matches (removed from the
 * posted list), or NULL. */
static hpm_req* match_posted(const packet_header* h) {
  for (int i = 0; i < posted_count; ++i) {
    hpm_req* r = &requests[posted[i]];
    if (r->ctx != h->ctx || (r->src != MPI_ANY_SOURCE && r->src != (int)h->src) ||
        (r->tag != MPI_ANY_TAG && r->tag != h->tag))
      continue;
    memmove(&posted[i], &posted[i + 1], sizeof(int) * (size_t)(posted_count - i - 1));
    --posted_count;
    r->posted = 0;
    r->status.MPI_SOURCE = hpm_comm_rank_of(&hpm_comms[r->comm], (int)h->src);
    r->status.MPI_TAG = h->tag;
    return r;
  }
  return NULL;
}

/* A buffered message, at the end of the unexpected list. */
static hpm_msg* buffer_message(const packet_header* h, uint64_t length) {
  hpm_msg* m = calloc(1, sizeof *m);
  if (!m) fatal("out of memory");
  m->src = (int)h->src;
  m->ctx = h->ctx;
  m->tag = h->tag;
  m->bytes = length;
  *unexpected_tail = m;
  unexpected_tail = &m->next;
  return m;
}

/* The message a packet starts: a posted receive that matches, or a new buffered message. */
static void first_packet(const packet_header* h) {
  hpm_req* r = match_posted(h);
  if (r) {
    r->receiving = 1;
    r->bytes = h->length;
    r->got = 0;
    arriving_req[h->src] = (int)(r - requests) + 1;
    return;
  }
  hpm_msg* m = buffer_message(h, h->length);
  if (!(m->data = malloc(h->length ? h->length : 1))) fatal("out of memory");
  arriving_msg[h->src] = m;
}

static void finish_receive(hpm_req* r) {
  r->done = 1;
  r->status.MPI_ERROR = r->bytes > r->capacity ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
  r->status.hpm_bytes = r->bytes > r->capacity ? r->capacity : r->bytes;
}

/* Posts a descriptor on the injection FIFO (waiting for room); returns its number. */
static uint64_t post(const descriptor* src) {
  /* (Inside hpm_progress, a remote get waits for room without reading the FIFO, whose loop is
   * under way: the ring drains as the unit injects, by time alone.) */
  while (inj_tail - reg(HPM_MU_INJ_DONE) >= INJ_ENTRIES) {
    if (!in_progress) hpm_progress();
  }
  descriptor* d = &inj[inj_tail % INJ_ENTRIES];
  *d = *src;
  d->status = 0;
  set_reg(HPM_MU_INJ_TAIL, ++inj_tail);
  if (d->status != 0) {
    /* The unit refused it when it was posted (the status says why): MPI's default error handler,
     * MPI_ERRORS_ARE_FATAL, ends the job. */
    fprintf(stderr, "libmpi: rank %d: a send of %llu bytes at %p to rank %d: %s (MPI_ERR_BUFFER)\n",
            hpm_world_rank, (unsigned long long)d->bytes, (void*)(uintptr_t)d->payload,
            (int)d->dest,
            d->status == HPM_MU_REFUSED_PAYLOAD ? "the send buffer is not readable memory"
                                                : "the message unit refused its descriptor");
    MPI_Abort(MPI_COMM_WORLD, MPI_ERR_BUFFER);
  }
  return inj_tail;
}

/* A receive matched a request to send from world rank `src`: it asks the sender's unit for the
 * data (a direct put into its buffer, as much as it holds) and the two completion packets. */
static void start_get(hpm_req* r, int src, uint64_t length, uint64_t sender_buf,
                      uint64_t sender_req) {
  r->rzv = 1;
  r->receiving = 1;
  r->bytes = length;
  const uint64_t n = length < r->capacity ? length : r->capacity;
  r->counter = n;
  descriptor* d = (descriptor*)r->rget;
  memset(r->rget, 0, sizeof r->rget);
  int k = 0;
  if (n) {
    d[k].dest = (uint32_t)hpm_world_rank;
    d[k].flags = HPM_MU_DIRECT_PUT;
    d[k].payload = sender_buf;
    d[k].bytes = n;
    d[k].put = (uint64_t)(uintptr_t)r->buf;
    d[k].counter = (uint64_t)(uintptr_t)&r->counter;
    ++k;
  }
  /* (The two empty packets' payload address is any readable one: they read none of it.) */
  d[k].dest = (uint32_t)hpm_world_rank;
  d[k].payload = (uint64_t)(uintptr_t)r->rget;
  d[k].ctx = RZV_CTX;
  d[k].tag = RZV_DONE;
  d[k].length = (uint64_t)(r - requests);
  ++k;
  d[k].dest = (uint32_t)src;
  d[k].payload = (uint64_t)(uintptr_t)r->rget;
  d[k].ctx = RZV_CTX;
  d[k].tag = RZV_FIN;
  d[k].length = sender_req;
  ++k;
  descriptor get;
  memset(&get, 0, sizeof get);
  get.dest = (uint32_t)src;
  get.flags = HPM_MU_REMOTE_GET;
  get.payload = (uint64_t)(uintptr_t)r->rget;
  get.bytes = (uint64_t)k * sizeof(descriptor);
  post(&get);
}

/* A rendezvous control packet: a send's buffer has been read, or a receive's data has landed.
 *
 * A bad buffer is found as the eager protocol finds it. The sender's: the unit refuses the put
 * whose payload is not readable memory (it counts it in INJ_ERRORS, which refuses nothing else
 * here: a ring descriptor it refuses ends the job when it is posted), and the sender learns it
 * from its completion packet, which comes before the receiver's (it needs no network): it ends
 * the job with MPI_ERR_BUFFER, naming the buffer, as for an eager send. The receiver's: the
 * unit drops put packets whose target is not writable, so the counter is not down to zero when
 * the receiver's packet comes; the receiver then rewrites its buffer's bytes itself, and takes
 * the guest fault an eager receive's copy would take. If the buffer is writable after all, the
 * data stayed in a sender that is ending the job: the receive never completes. */
static void rendezvous_packet(const packet_header* h) {
  if (h->length >= MAX_REQUESTS) fatal("a rendezvous packet names no request");
  hpm_req* r = &requests[h->length];
  if (h->tag == RZV_FIN) {
    if (reg(HPM_MU_INJ_ERRORS) != 0) {
      fprintf(stderr,
              "libmpi: rank %d: a send of %llu bytes at %p to rank %d: the send buffer is not "
              "readable memory (MPI_ERR_BUFFER)\n",
              hpm_world_rank, (unsigned long long)r->bytes, (void*)(uintptr_t)r->rts[0], r->src);
      MPI_Abort(MPI_COMM_WORLD, MPI_ERR_BUFFER);
    }
    r->done = 1;
    return;
  }
  if (r->counter != 0) {
    volatile unsigned char* b = r->buf;
    const uint64_t n = r->bytes < r->capacity ? r->bytes : r->capacity;
    for (uint64_t i = 0; i < n; i += 4096 - ((uintptr_t)(b + i) & 4095)) b[i] = b[i];
    b[n - 1] = b[n - 1];
    return;
  }
  finish_receive(r);
}

/* A request to send: the posted receive it matches fetches the data, else it waits buffered
 * (without its data) for a receive. */
static void request_to_send(const packet_header* h, const unsigned char* payload) {
  uint64_t rts[2];
  memcpy(rts, payload, sizeof rts);
  const uint64_t length = h->length & ~RTS;
  hpm_req* r = match_posted(h);
  if (r) {
    start_get(r, (int)h->src, length, rts[0], rts[1]);
    return;
  }
  hpm_msg* m = buffer_message(h, length);
  m->rts = 1;
  m->got = length;
  m->rts_buf = rts[0];
  m->rts_req = rts[1];
}

static void packet(const packet_header* h, const unsigned char* payload) {
  if (h->ctx == RZV_CTX) {
    rendezvous_packet(h);
    return;
  }
  if (h->length & RTS) {
    request_to_send(h, payload);
    return;
  }
  if (h->offset == 0) first_packet(h);
  if (arriving_req[h->src]) {
    hpm_req* r = &requests[arriving_req[h->src] - 1];
    if (h->offset < r->capacity) {
      const uint64_t room = r->capacity - h->offset;
      memcpy((char*)r->buf + h->offset, payload, h->bytes < room ? h->bytes : room);
    }
    r->got += h->bytes;
    if (r->got >= r->bytes) {
      arriving_req[h->src] = 0;
      finish_receive(r);
    }
  } else {
    hpm_msg* m = arriving_msg[h->src];
    memcpy(m->data + h->offset, payload, h->bytes);
    m->got += h->bytes;
    if (m->got >= m->bytes) arriving_msg[h->src] = NULL;
  }
}

static int move_packets(void);
static void unlink_message(hpm_msg* m);

int hpm_progress(void) {
  const int moved = move_packets();
  /* (Non-blocking collectives whose messages completed move on; one-sided operations' messages
   * are served.) */
  hpm_nbc_progress();
  if (hpm_rma_active) hpm_rma_progress(); /* (a load and a branch when no window exists) */
  return moved;
}

hpm_msg* hpm_take_message(int ctx) {
  for (hpm_msg* m = unexpected_head; m; m = m->next) {
    if (m->ctx != ctx || m->claimed || m->rts) continue;
    if (m->got < m->bytes) return NULL; /* (the first is still arriving: order is kept) */
    unlink_message(m);
    return m;
  }
  return NULL;
}

void hpm_fill_put(void* descriptor_out, int dest_world, uint64_t payload, uint64_t bytes,
                  uint64_t put, uint64_t counter) {
  descriptor* d = descriptor_out;
  memset(d, 0, sizeof *d);
  d->dest = (uint32_t)dest_world;
  d->flags = HPM_MU_DIRECT_PUT;
  d->payload = payload;
  d->bytes = bytes;
  d->put = put;
  d->counter = counter;
}

void hpm_fill_packet(void* descriptor_out, int dest_world, int ctx, int tag, uint64_t length) {
  descriptor* d = descriptor_out;
  memset(d, 0, sizeof *d);
  d->dest = (uint32_t)dest_world;
  d->payload = (uint64_t)(uintptr_t)d; /* (any readable address: it reads none of it) */
  d->ctx = ctx;
  d->tag = tag;
  d->length = length;
}

uint64_t hpm_post_descriptor(const void* descriptor_in) {
  return post(descriptor_in);
}

uint64_t hpm_post_remote_get(int dest_world, const void* descriptors, int n) {
  descriptor get;
  memset(&get, 0, sizeof get);
  get.dest = (uint32_t)dest_world;
  get.flags = HPM_MU_REMOTE_GET;
  get.payload = (uint64_t)(uintptr_t)descriptors;
  get.bytes = (uint64_t)n * sizeof(descriptor);
  return post(&get);
}

int hpm_injected(uint64_t seq) {
  return reg(HPM_MU_INJ_DONE) >= seq;
}

MPI_Request hpm_new_polled_request(int (*poll)(void* state, int* error), void* state) {
  const int i = new_request(HPM_REQ_NBC);
  requests[i].schedule = state;
  requests[i].poll = poll;
  return i;
}

MPI_Request hpm_new_nbc_request(void* schedule) {
  return hpm_new_polled_request(hpm_nbc_complete, schedule);
}

static int move_packets(void) {
  const uint64_t tail = rec_tail_word;
  if (tail == rec_head) return 0;
  in_progress = 1;
  while (rec_head < tail) {
    const uint64_t pos = rec_head % REC_BYTES;
    const packet_header* h = (const packet_header*)(rec + pos);
    if (h->bytes == SKIP) {
      rec_head += REC_BYTES - pos;
      continue;
    }
    if (h->ctx == HPM_TORCOLL_CTX) {
      hpm_torcoll_packet(h->tag, h->offset, h->bytes, rec + pos + header_bytes);
    } else {
      packet(h, rec + pos + header_bytes);
    }
    rec_head += header_bytes + ((h->bytes + 31) & ~31ull);
  }
  set_reg(HPM_MU_REC_HEAD, rec_head);
  in_progress = 0;
  return 1;
}

/* Waits until done(arg) holds, moving packets meanwhile. While no injection is outstanding it
 * sleeps on the reception FIFO's tail word between packets (the unit wakes it); otherwise it
 * polls, as injections complete by time alone. */
static void wait_for(int (*done)(void*), void* arg) {
  int idle = 0;
  for (;;) {
    /* (Read before done(): an injection completing between the two would otherwise leave a
     * wait for it asleep with nothing to wake it.) */
    const int injecting = reg(HPM_MU_INJ_DONE) != inj_tail;
    if (done(arg)) return;
    if (hpm_progress()) {
      idle = 0;
      continue;
    }
    if (++idle < SPINS || injecting) continue;
    const uint32_t seen = (uint32_t)rec_head;
    syscall(SYS_futex, &rec_tail_word, FUTEX_WAIT, seen, NULL, NULL, 0);
    idle = 0;
  }
}

volatile uint64_t* hpm_mu_window(void) {
  return mu;
}

void hpm_wait_until(int (*done)(void*), void* arg) {
  wait_for(done, arg);
}

uint64_t hpm_post_collective(uint32_t flags, uint32_t dest, const void* buf, uint64_t bytes,
                             int tag) {
  while (inj_tail - reg(HPM_MU_INJ_DONE) >= INJ_ENTRIES) {
    if (!in_progress) hpm_progress();
  }
  descriptor* d = &inj[inj_tail % INJ_ENTRIES];
  memset(d, 0, sizeof *d);
  d->dest = dest;
  d->flags = flags;
  d->payload = (uint64_t)(uintptr_t)buf;
  d->bytes = bytes;
  d->ctx = HPM_TORCOLL_CTX;
  d->tag = tag;
  d->length = bytes;
  set_reg(HPM_MU_INJ_TAIL, ++inj_tail);
  return d->status == 0 ? inj_tail : 0;
}

int hpm_isend_mode(const void* buf, uint64_t bytes, int dest_world, int ctx, int tag, int sync,
                   MPI_Request* out) {
  const int i = new_request(HPM_REQ_SEND);
  hpm_req* r = &requests[i];
  *out = i;
  if (dest_world == MPI_PROC_NULL) {
    r->done = 1;
    return MPI_SUCCESS;
  }
  descriptor d;
  memset(&d, 0, sizeof d);
  d.dest = (uint32_t)dest_world;
  d.payload = (uint64_t)(uintptr_t)buf;
  d.bytes = bytes;
  d.ctx = ctx;
  d.tag = tag;
  d.length = bytes;
  if ((bytes >= eager_limit || sync) && ctx != HPM_RMA_CTX) {
    /* Rendezvous: the unit reads the buffer only when the receiver's remote get comes, so a
     * synchronous send of any length completes only once a receive has matched it. (One-sided
     * operations' messages stay eager: their target handles them as they come, mpi_rma.c.) */
    r->rzv = 1;
    r->rts[0] = (uint64_t)(uintptr_t)buf;
    r->rts[1] = (uint64_t)i;
    r->bytes = bytes;
    r->src = dest_world;
    d.payload = (uint64_t)(uintptr_t)r->rts;
    d.bytes = sizeof r->rts;
    d.length = bytes | RTS;
  }
  r->descriptor = post(&d);
  return MPI_SUCCESS;
}

/* Takes a buffered message out of the unexpected list. */
static void unlink_message(hpm_msg* m) {
  hpm_msg** p = &unexpected_head;
  while (*p != m) p = &(*p)->next;
  *p = m->next;
  if (unexpected_tail == &m->next) unexpected_tail = p;
}

int hpm_irecv(void* buf, uint64_t capacity, int comm, int src_world, int ctx, int tag,
              MPI_Request* out) {
  const int i = new_request(HPM_REQ_RECV);
  hpm_req* r = &requests[i];
  *out = i;
  r->buf = buf;
  r->capacity = capacity;
  r->comm = comm;
  r->src = src_world;
  r->ctx = ctx;
  r->tag = tag;
  r->status.MPI_SOURCE = MPI_ANY_SOURCE;
  r->status.MPI_TAG = MPI_ANY_TAG;
  if (src_world == MPI_PROC_NULL) {
    r->done = 1;
    r->status.MPI_SOURCE = MPI_PROC_NULL;
    return MPI_SUCCESS;
  }
  /* Only the messages whose first packet was read already are looked at: the FIFO is not read
   * here. Its unread messages will meet this receive among the posted ones, in arrival order, so
   * MPI's matching order holds either way; reading it here would make a receiver posting many
   * receives read (and buffer, and copy twice) the first messages of the ones it posts next. */
  for (hpm_msg* m = unexpected_head; m; m = m->next) {
    if (m->claimed || m->ctx != ctx || (src_world != MPI_ANY_SOURCE && m->src != src_world) ||
        (tag != MPI_ANY_TAG && m->tag != tag))
      continue;
    r->status.MPI_SOURCE = hpm_comm_rank_of(&hpm_comms[comm], m->src);
    r->status.MPI_TAG = m->tag;
    if (m->rts) {
      /* A request to send: the data is fetched now, and the buffered request goes. */
      unlink_message(m);
      start_get(r, m->src, m->bytes, m->rts_buf, m->rts_req);
      free(m);
      return MPI_SUCCESS;
    }
    m->claimed = 1;
    r->msg = m;
    r->bytes = m->bytes;
    return MPI_SUCCESS;
  }
  if (posted_count == MAX_REQUESTS) fatal("too many posted receives");
  posted[posted_count++] = i;
  r->posted = 1;
  return MPI_SUCCESS;
}

/* A request's completion without waiting: a send when the unit has injected its descriptor (a
 * rendezvous send: when its buffer has been read), a receive of a buffered message when all of
 * it is here (copied out then). */
static int complete(hpm_req* r) {
  if (r->kind == HPM_REQ_PERSISTENT) {
    /* (Inactive: complete at once, with an empty status.) */
    return r->active == MPI_REQUEST_NULL || complete(&requests[r->active]);
  }
  if (r->done) return 1;
  if (r->kind == HPM_REQ_NBC) {
    r->done = r->poll(r->schedule, &r->nbc_error);
    return r->done;
  }
  if (r->kind == HPM_REQ_SEND && !r->rzv) {
    if (reg(HPM_MU_INJ_DONE) >= r->descriptor) r->done = 1;
    return r->done;
  }
  hpm_msg* m = r->msg;
  if (m == NULL || m->got < m->bytes) return 0;
  memcpy(r->buf, m->data, m->bytes < r->capacity ? m->bytes : r->capacity);
  unlink_message(m);
  free(m->data);
  free(m);
  r->msg = NULL;
  finish_receive(r);
  return 1;
}

static int complete_arg(void* arg) {
  return complete((hpm_req*)arg);
}

int hpm_complete(MPI_Request r) {
  return complete(&requests[r]);
}

/* A completed request's error. */
static int request_error(const hpm_req* r) {
  if (r->kind == HPM_REQ_PERSISTENT) {
    return r->active == MPI_REQUEST_NULL ? MPI_SUCCESS : request_error(&requests[r->active]);
  }
  return r->kind == HPM_REQ_RECV  ? r->status.MPI_ERROR
         : r->kind == HPM_REQ_NBC ? r->nbc_error
                                  : MPI_SUCCESS;
}

static void release(MPI_Request* request, MPI_Status* status) {
  hpm_req* r = &requests[*request];
  if (r->kind == HPM_REQ_PERSISTENT) {
    /* (A persistent request stays, inactive, for the next MPI_Start.) */
    if (r->active != MPI_REQUEST_NULL) {
      release(&r->active, status);
    } else if (status != MPI_STATUS_IGNORE) {
      *status = (MPI_Status){MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, 0, 0};
    }
    return;
  }
  if (status != MPI_STATUS_IGNORE) {
    if (r->kind == HPM_REQ_RECV) {
      *status = r->status;
    } else {
      status->MPI_ERROR = MPI_SUCCESS;
    }
  }
  /* (A polled request's `poll` shares the typed message's fields.) */
  if (r->dt_packed && r->kind != HPM_REQ_NBC) hpm_type_release_request(r);
  r->kind = HPM_REQ_FREE;
  *request = MPI_REQUEST_NULL;
}

int hpm_wait(MPI_Request* request, MPI_Status* status) {
  if (*request == MPI_REQUEST_NULL) return MPI_SUCCESS;
  hpm_req* r = hpm_request(*request);
  if (r == NULL) return MPI_ERR_REQUEST;
  wait_for(complete_arg, r);
  const int error = request_error(r);
  release(request, status);
  return error;
}

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  return hpm_wait(request, status);
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  *flag = 1;
  if (*request == MPI_REQUEST_NULL) return MPI_SUCCESS;
  hpm_req* r = hpm_request(*request);
  if (r == NULL) return MPI_ERR_REQUEST;
  hpm_progress();
  if (!complete(r)) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  const int error = request_error(r);
  release(request, status);
  return error;
}

int MPI_Request_free(MPI_Request* request) {
  /* (A freed request still completes: a send's descriptor stays posted, a receive stays
   * matched; its buffer must outlive it, as MPI says.) Here it is waited for at once. */
  hpm_req* r = hpm_request(*request);
  if (r != NULL && r->kind == HPM_REQ_PERSISTENT) {
    const int error = hpm_wait(&r->active, MPI_STATUS_IGNORE);
    r->kind = HPM_REQ_FREE;
    *request = MPI_REQUEST_NULL;
    return error;
  }
  return hpm_wait(request, MPI_STATUS_IGNORE);
}

MPI_Request hpm_new_done_request(void) {
  const int i = new_request(HPM_REQ_SEND);
  requests[i].done = 1;
  return i;
}

MPI_Request hpm_new_persistent_request(void) {
  const int i = new_request(HPM_REQ_PERSISTENT);
  requests[i].active = MPI_REQUEST_NULL;
  return i;
}

int hpm_cancel_receive(MPI_Request request) {
  hpm_req* r = hpm_request(request);
  if (r == NULL || r->kind != HPM_REQ_RECV || !r->posted || r->done) return 0;
  for (int i = 0; i < posted_count; ++i) {
    if (posted[i] != request) continue;
    memmove(&posted[i], &posted[i + 1], sizeof(int) * (size_t)(posted_count - i - 1));
    --posted_count;
    break;
  }
  r->posted = 0;
  r->done = 1;
  r->status = (MPI_Status){MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, 0, 1};
  return 1;
}

/* Probing: the first buffered message that a receive with these arguments would match. */
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  hpm_comm* c = hpm_comm_get(comm);
  if (!c) return MPI_ERR_COMM;
  const int src = source == MPI_ANY_SOURCE ? MPI_ANY_SOURCE : c->world[source];
  hpm_progress();
  for (hpm_msg* m = unexpected_head; m; m = m->next) {
    if (m->claimed || m->ctx != c->ctx || (src != MPI_ANY_SOURCE && m->src != src) ||
        (tag != MPI_ANY_TAG && m->tag != tag))
      continue;
    *flag = 1;
    if (status != MPI_STATUS_IGNORE) {
      status->MPI_SOURCE = hpm_comm_rank_of(c, m->src);
      status->MPI_TAG = m->tag;
      status->MPI_ERROR = MPI_SUCCESS;
      status->hpm_bytes = m->bytes;
    }
    return MPI_SUCCESS;
  }
  *flag = 0;
  return MPI_SUCCESS;
}

typedef struct {
  int source, tag;
  MPI_Comm comm;
  MPI_Status* status;
} probe_args;

static int probed(void* arg) {
  probe_args* a = arg;
  int flag = 0;
  MPI_Iprobe(a->source, a->tag, a->comm, &flag, a->status);
  return flag;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  if (!hpm_comm_get(comm)) return MPI_ERR_COMM;
  MPI_Status local;
  probe_args a = {source, tag, comm, status == MPI_STATUS_IGNORE ? &local : status};
  wait_for(probed, &a);
  return MPI_SUCCESS;
}
