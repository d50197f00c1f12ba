/* libmpi: MPI_Barrier, MPI_Bcast, MPI_Reduce and MPI_Allreduce on Blue Gene/P's collective
 * network (/dev/hpm/col) and global barrier network (/dev/hpm/gi), as BG/P's MPI used them
 * (docs/network.md, "Guest MPI").
 *
 * When: the node has both devices, the col device's MPI register reads 1 (the machine's
 * `collective.mpi`), the tree spans the world (NODES = the world's size, NODE = this rank),
 * and the communicator's ranks are the world's in order (MPI_COMM_WORLD and its duplicates:
 * the tree's class 0 holds exactly those). Every member decides alike: the devices and
 * registers are the machine's, the communicator, count, type, op and root are the same on
 * every member (MPI requires it), and a double sum's one data-dependent decision (non-finite
 * input) is taken from a result every node receives. Anything else returns
 * HPM_COLNET_DECLINED and the caller runs its point-to-point algorithm unchanged.
 *
 * Ordering: every use of the tree is one stream of packets on virtual channel 0, and every
 * node takes exactly as many packets from it as it injects (or, in a broadcast, as the root
 * injects). Collectives on world-congruent communicators are called in the same order on
 * every node (MPI's rule for collectives), and the tree delivers packets of one channel in
 * the order they passed the root, so each collective's packets are the next ones every node
 * reads. Each stream's header carries a sequence number as its tag; a node that reads another
 * tag stops with an error rather than mix two collectives' data.
 *
 * Flow control: a node injects only while its injection FIFO has room for a whole packet and
 * fewer than 8 of its packets (the reception FIFO's size) are not yet back; it reads every
 * packet that is ready in the same loop. So no node ever waits to inject while it could read,
 * every node's reception FIFO can hold all it has outstanding, and the tree never deadlocks.
 * While a node waits it also moves the message unit's reception FIFO (hpm_progress), so
 * point-to-point messages sent to it before the collective are buffered as before.
 *
 * Waiting: after SPINS idle polls a node sleeps on the word the col device writes its EVENTS
 * count to (a packet became readable, a barrier completed), as the message unit's waits sleep
 * on its FIFO's tail: so a node that never joins a collective shows as a deadlock rather than
 * as others spinning forever. It sleeps only when such an event must come next: all it could
 * inject is injected or 8 packets are outstanding (the injection FIFO's STATUS learns of
 * packets the router took only at a window's start, which no event announces, so a node
 * waiting for injection room polls). A sleeping node does not move the message unit's FIFO:
 * point-to-point data sent to it meanwhile waits there (1 MiB) and then in the torus; only a
 * program that relies on more buffering than that, which MPI calls unsafe, can block.
 *
 * The state below is the library's (one thread uses it: MPI_THREAD_FUNNELED). */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hpm/col.h"
#include "mpi_impl.h"

#define VC 0
#define WORDS HPM_COL_PACKET_WORDS
#define PACKET HPM_COL_PACKET_BYTES
/* Idle polls before a waiting node sleeps until the devices' next event. */
#define SPINS 16

static struct {
  int probed;
  int usable;
  volatile uint64_t* col;
  volatile uint64_t* gi;
  unsigned nodes;
  uint64_t barriers; /* barriers this node armed on GI channel 0 (each waited for) */
  uint64_t gi_base;  /* channel 0's DONE when first mapped */
  unsigned seq;      /* streams on the tree so far: the next one's tag */
} hw;

/* The word the col device writes its EVENTS count to (see the top). */
static volatile uint64_t notify_word __attribute__((aligned(8)));

/* Whether the devices are there and MPI may use them (probed once; the answer is the same on
 * every node). */
static int usable(void) {
  if (hw.probed) return hw.usable;
  hw.probed = 1;
  hw.col = hpm_col_map();
  hw.gi = hpm_gi_map();
  if (!hw.col || !hw.gi) return 0;
  if (hpm_col_read(hw.col, HPM_COL_MPI) != 1 ||
      hpm_col_read(hw.col, HPM_COL_PAYLOAD_BYTES) != PACKET ||
      hpm_col_read(hw.col, HPM_COL_NODES) != (uint64_t)hpm_world_size ||
      hpm_col_read(hw.col, HPM_COL_NODE) != (uint64_t)hpm_world_rank) {
    return 0;
  }
  hw.nodes = (unsigned)hpm_world_size;
  hpm_col_notify(hw.col, &notify_word);
  /* (No barrier can have completed before this node armed one: DONE is 0 here unless someone
   * else used the channel; counting from what it reads keeps the count right either way.) */
  hw.gi_base = hpm_gi_done(hw.gi, 0);
  hw.usable = 1;
  return 1;
}

volatile uint64_t* hpm_colnet_wake_word(void) {
  return usable() ? &notify_word : NULL;
}

/* The communicator's ranks are the world's, in order. */
static int world_congruent(const hpm_comm* c) {
  if (c->size != hpm_world_size) return 0;
  for (int i = 0; i < c->size; ++i) {
    if (c->world[i] != i) return 0;
  }
  return 1;
}

static int applies(const hpm_comm* c) {
  return usable() && world_congruent(c);
}

/* The devices' event count as the notify word holds it: read before checking what to wait
 * for, so that an event between the check and the sleep makes the sleep return at once. */
static uint32_t events_seen(void) {
  return (uint32_t)notify_word;
}

/* One idle turn of a wait (`idle`: turns in a row so far): moves the message unit's FIFO;
 * after SPINS turns, when `event_due` (an event must come), sleeps until the notify word
 * differs from `seen`. */
static void idle_turn(int* idle, int event_due, uint32_t seen) {
  if (hpm_progress() || ++*idle < SPINS || !event_due) return;
  syscall(SYS_futex, &notify_word, FUTEX_WAIT, seen, NULL, NULL, 0);
  *idle = 0;
}

int hpm_colnet_barrier(hpm_comm* c) {
  if (!applies(c)) return HPM_COLNET_DECLINED;
  hpm_gi_arm(hw.gi, 0);
  ++hw.barriers;
  int idle = 0;
  for (;;) {
    const uint32_t seen = events_seen();
    if (hpm_gi_done(hw.gi, 0) - hw.gi_base >= hw.barriers) return MPI_SUCCESS;
    idle_turn(&idle, 1, seen);
  }
}

/* ---- streams of packets through the tree ---- */

/* One collective's packets: every node takes `packets` packets from its reception FIFO; a
 * node that injects (`fill` not NULL) injects as many, packet k's payload from fill(s, k).
 * take(s, k, payload) consumes received packet k (NULL: dropped). The fields below the
 * callbacks are theirs. */
typedef struct stream stream;
struct stream {
  size_t packets;
  uint32_t header;
  void (*fill)(const stream* s, size_t k, uint64_t payload[WORDS]);
  void (*take)(const stream* s, size_t k, const uint64_t payload[WORDS]);
  const unsigned char* in; /* fill's source and its length in bytes */
  size_t in_bytes;
  unsigned char* out; /* take's destination and its length in bytes */
  size_t out_bytes;
  uint64_t mask;   /* xor codec: applied to every word both ways */
  int min;         /* ieee codec: MIN (the complement's MAX) */
  size_t count;    /* double sum: elements */
  uint16_t* emax;  /* double sum: each element's largest exponent code (pass 1's result) */
  int fixed_shift; /* double sum: where the largest exponent's significand sits (s_max) */
};

static void fatal(const char* what) {
  fprintf(stderr, "libmpi: %s\n", what);
  exit(70);
}

/* Runs stream s to completion: injection and reception interleaved (see the top). */
static void run(stream* s, uint32_t opcode, uint32_t opsize) {
  const unsigned tag = hw.seq++ & HPM_COL_TAG_MASK;
  s->header = HPM_COL_HEADER(0, opcode, opsize, tag);
  uint64_t payload[WORDS];
  size_t injected = s->fill ? 0 : s->packets, received = 0;
  int idle = 0;
  while (received < s->packets) {
    const uint32_t seen = events_seen();
    int moved = 0;
    if (injected < s->packets && injected - received < HPM_COL_FIFO_PACKETS &&
        hpm_col_can_inject(hw.col, VC)) {
      s->fill(s, injected, payload);
      hpm_col_inject(hw.col, VC, s->header, payload);
      ++injected;
      moved = 1;
    }
    if (hpm_col_ready(hw.col, VC)) {
      const uint32_t h = hpm_col_receive(hw.col, VC, payload);
      if (HPM_COL_HEADER_TAG(h) != tag) fatal("collective network packets out of step");
      if (s->take) s->take(s, received, payload);
      ++received;
      moved = 1;
    }
    if (moved) {
      idle = 0;
    } else {
      const int due = injected == s->packets || injected - received >= HPM_COL_FIFO_PACKETS;
      idle_turn(&idle, due, seen);
    }
  }
}

/* Packet k's bytes of `from` (length `bytes`), zero-padded, into `to`. */
static void copy_in(const unsigned char* from, size_t bytes, size_t k, uint64_t to[WORDS]) {
  const size_t at = k * PACKET;
  const size_t n = bytes - at < PACKET ? bytes - at : PACKET;
  memset(to, 0, PACKET);
  memcpy(to, from + at, n);
}

/* Packet k's bytes into `to` (length `bytes`): as many as fit. */
static void copy_out(const uint64_t from[WORDS], size_t k, unsigned char* to, size_t bytes) {
  const size_t at = k * PACKET;
  const size_t n = bytes - at < PACKET ? bytes - at : PACKET;
  memcpy(to + at, from, n);
}

static size_t packets_for(size_t bytes) {
  return (bytes + PACKET - 1) / PACKET;
}

/* Raw bytes, each word xor'ed with s->mask (0: a plain copy). */
static void fill_xor(const stream* s, size_t k, uint64_t p[WORDS]) {
  copy_in(s->in, s->in_bytes, k, p);
  for (int i = 0; i < WORDS; ++i) p[i] ^= s->mask;
}

static void take_xor(const stream* s, size_t k, const uint64_t p[WORDS]) {
  uint64_t q[WORDS];
  for (int i = 0; i < WORDS; ++i) q[i] = p[i] ^ s->mask;
  copy_out(q, k, s->out, s->out_bytes);
}

int hpm_colnet_bcast(hpm_comm* c, void* buf, uint64_t bytes, int root) {
  if (!applies(c)) return HPM_COLNET_DECLINED;
  /* Opcode NONE: the root's packets go up to the tree's root and down to every node, the
   * sender included; the root drops its own copies (its buffer already holds the data). */
  const int me = c->rank == root;
  stream s = {.packets = packets_for(bytes),
              .fill = me ? fill_xor : NULL,
              .take = me ? NULL : take_xor,
              .in = buf,
              .in_bytes = bytes,
              .out = buf,
              .out_bytes = bytes};
  run(&s, HPM_COL_OP_NONE, HPM_COL_OPSIZE_64);
  return MPI_SUCCESS;
}

/* ---- reductions ---- */

/* Doubles in the IEEE order-preserving map: as unsigned integers, the images of non-NaN
 * doubles order as the numbers do (with -0 below +0), so the ALU's unsigned MAX is their MAX;
 * MIN is the MAX of the complements. */
static uint64_t ieee_map(uint64_t b) {
  return b >> 63 ? ~b : b | 1ull << 63;
}

static uint64_t ieee_unmap(uint64_t k) {
  return k >> 63 ? k & ~(1ull << 63) : ~k;
}

static void fill_ieee(const stream* s, size_t k, uint64_t p[WORDS]) {
  copy_in(s->in, s->in_bytes, k, p);
  for (int i = 0; i < WORDS; ++i) p[i] = s->min ? ~ieee_map(p[i]) : ieee_map(p[i]);
}

static void take_ieee(const stream* s, size_t k, const uint64_t p[WORDS]) {
  uint64_t q[WORDS];
  for (int i = 0; i < WORDS; ++i) q[i] = ieee_unmap(s->min ? ~p[i] : p[i]);
  copy_out(q, k, s->out, s->out_bytes);
}

/* MPI_DOUBLE MPI_SUM by BG/P MPI's two passes.
 *
 * Pass 1 (MAX on 16-bit operands, 128 elements a packet): each element's exponent code,
 * max(biased exponent, 1) (subnormals and +0 share the smallest binade's scale), 0 for -0.0
 * (so a result of 0 says every input was -0.0, whose IEEE sum is -0.0), 2047 for infinities
 * and NaNs (a result of 2047 makes every node fall back to the point-to-point sum, which
 * gives IEEE's inf/NaN rules).
 *
 * Pass 2 (ADD on 128-bit operands, opsize 7, 16 elements a packet): each input as a 128-bit
 * two's complement fixed-point integer F = x / 2^u, u = E - 1075 - s_max, E the element's
 * pass-1 maximum; s_max = 74 - H where 2^H >= nodes, so the largest input's 53-bit
 * significand sits at bits s_max..126-H and the sum of every node's F cannot overflow. The
 * ALU's modular sum of the F is then the exact sum of the inputs as converted, whatever the
 * order of combining; it is rounded once, to nearest even, with IEEE's overflow and
 * subnormals.
 *
 * Precision: an input whose exponent is at least E - s_max (within 71 binades of the
 * largest magnitude at 8 nodes, 64 at 1,024) converts exactly, so when all do, the result is
 * the correctly rounded exact sum (order-independent, deterministic; it may differ from a
 * sequential sum, which rounds at every step, in the last bits). A smaller input is rounded
 * to a multiple of 2^u (nearest even) first: the result's error is then at most nodes/2
 * units of 2^u (nodes * 2^-(s_max + 1) units in the last place of the largest input) beyond
 * the final rounding. */
enum { CODES_PER_PACKET = PACKET / 2, FIXED_PER_PACKET = PACKET / 16 };

static unsigned exponent_code(uint64_t b) {
  if (b == 1ull << 63) return 0; /* -0.0 */
  const unsigned e = (unsigned)(b >> 52) & 0x7ff;
  return e ? e : 1;
}

static void fill_codes(const stream* s, size_t k, uint64_t p[WORDS]) {
  uint16_t codes[CODES_PER_PACKET];
  for (size_t j = 0; j < CODES_PER_PACKET; ++j) {
    const size_t i = k * CODES_PER_PACKET + j;
    uint64_t b = 0;
    if (i < s->count) memcpy(&b, s->in + i * 8, 8);
    codes[j] = i < s->count ? (uint16_t)exponent_code(b) : 0;
  }
  memcpy(p, codes, PACKET);
}

static void take_codes(const stream* s, size_t k, const uint64_t p[WORDS]) {
  const size_t at = k * CODES_PER_PACKET;
  const size_t n = s->count - at < CODES_PER_PACKET ? s->count - at : CODES_PER_PACKET;
  memcpy(s->emax + at, p, n * 2);
}

typedef unsigned __int128 u128;

/* x (bits b) as F = x / 2^u for the element's largest exponent code e_max. */
static u128 to_fixed(uint64_t b, unsigned e_max, int s_max) {
  unsigned e = (unsigned)(b >> 52) & 0x7ff;
  uint64_t m = b & ((1ull << 52) - 1);
  if (e) {
    m |= 1ull << 52;
  } else {
    e = 1;
  }
  if (m == 0) return 0;
  if (e_max < e) e_max = e; /* (cannot happen: e_max is every node's maximum, this one's too) */
  const int s = s_max - (int)(e_max - e);
  u128 f;
  if (s >= 0) {
    f = (u128)m << s;
  } else if (-s >= 54) {
    f = 0; /* below half a unit (m < 2^53) */
  } else {
    const int r = -s;
    uint64_t q = m >> r;
    const uint64_t rem = m & ((1ull << r) - 1), half = 1ull << (r - 1);
    if (rem > half || (rem == half && (q & 1))) ++q;
    f = q;
  }
  return b >> 63 ? -f : f;
}

static int top_bit(u128 a) {
  const uint64_t hi = (uint64_t)(a >> 64);
  return hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll((uint64_t)a);
}

/* The fixed-point sum f (two's complement) as a double, rounded once to nearest even. */
static double from_fixed(u128 f, unsigned e_max, int s_max) {
  double d;
  if (e_max == 0) return -0.0; /* every input was -0.0 */
  const int neg = (int)(f >> 127);
  const u128 a = neg ? -f : f;
  if (a == 0) return 0.0;
  const int u = (int)e_max - 1075 - s_max; /* f's unit is 2^u */
  const int p = top_bit(a);
  /* Drop r bits: to 53 significant bits, but not below 2^-1074 (subnormals). */
  int r = p - 52;
  if (r < -1074 - u) r = -1074 - u;
  uint64_t m;
  if (r <= 0) {
    m = (uint64_t)(a << -r);
  } else {
    m = (uint64_t)(a >> r);
    const u128 rem = a & (((u128)1 << r) - 1), half = (u128)1 << (r - 1);
    if (rem > half || (rem == half && (m & 1))) ++m;
  }
  if (m == 1ull << 53) {
    m >>= 1;
    ++r;
  }
  /* The value is m * 2^(r + u); m < 2^52 only at the subnormal scale (r + u = -1074). */
  uint64_t bits;
  if (m >= 1ull << 52) {
    const int biased = r + u + 1075;
    bits = biased >= 2047 ? 0x7ffull << 52 : (uint64_t)biased << 52 | (m & ((1ull << 52) - 1));
  } else {
    bits = m;
  }
  bits |= (uint64_t)neg << 63;
  memcpy(&d, &bits, 8);
  return d;
}

static void fill_fixed(const stream* s, size_t k, uint64_t p[WORDS]) {
  for (size_t j = 0; j < FIXED_PER_PACKET; ++j) {
    const size_t i = k * FIXED_PER_PACKET + j;
    u128 f = 0;
    if (i < s->count) {
      uint64_t b;
      memcpy(&b, s->in + i * 8, 8);
      f = to_fixed(b, s->emax[i], s->fixed_shift);
    }
    p[2 * j] = (uint64_t)f; /* little-endian 128-bit operand: low word first */
    p[2 * j + 1] = (uint64_t)(f >> 64);
  }
}

static void take_fixed(const stream* s, size_t k, const uint64_t p[WORDS]) {
  for (size_t j = 0; j < FIXED_PER_PACKET; ++j) {
    const size_t i = k * FIXED_PER_PACKET + j;
    if (i >= s->count) return;
    const u128 f = (u128)p[2 * j + 1] << 64 | p[2 * j];
    const double d = from_fixed(f, s->emax[i], s->fixed_shift);
    memcpy(s->out + i * 8, &d, 8);
  }
}

/* The double sum's two passes; DECLINED (on every node alike) if an input is not finite. */
static int double_sum(const unsigned char* in, unsigned char* out, size_t count) {
  uint16_t* emax = malloc(count * sizeof *emax + 1);
  if (!emax) fatal("out of memory");
  stream codes = {.packets = (count + CODES_PER_PACKET - 1) / CODES_PER_PACKET,
                  .fill = fill_codes,
                  .take = take_codes,
                  .in = in,
                  .count = count,
                  .emax = emax};
  run(&codes, HPM_COL_OP_MAX, HPM_COL_OPSIZE_16);
  for (size_t i = 0; i < count; ++i) {
    if (emax[i] == 0x7ff) {
      free(emax);
      return HPM_COLNET_DECLINED;
    }
  }
  int headroom = 0;
  while ((1u << headroom) < hw.nodes) ++headroom;
  stream sums = {.packets = (count + FIXED_PER_PACKET - 1) / FIXED_PER_PACKET,
                 .fill = fill_fixed,
                 .take = out ? take_fixed : NULL,
                 .in = in,
                 .out = out,
                 .count = count,
                 .emax = emax,
                 .fixed_shift = 74 - headroom};
  run(&sums, HPM_COL_OP_ADD, HPM_COL_OPSIZE_128);
  free(emax);
  return MPI_SUCCESS;
}

/* How an integer type of `width` bytes, signed or not, and an op map to the ALU: the opcode
 * and the mask xor'ed into every element both ways (signed MAX: the sign bit flipped, an
 * order-preserving map to unsigned; MIN: the complement's MAX). 0: not on the tree. */
static uint32_t integer_plan(MPI_Op op, int width, int is_signed, uint64_t* mask) {
  const uint64_t sign = width == 4 ? 0x8000000080000000ull : 1ull << 63;
  *mask = 0;
  switch (op) {
    case MPI_SUM: return HPM_COL_OP_ADD;
    case MPI_BAND: return HPM_COL_OP_AND;
    case MPI_BOR: return HPM_COL_OP_OR;
    case MPI_BXOR: return HPM_COL_OP_XOR;
    case MPI_MAX: *mask = is_signed ? sign : 0; return HPM_COL_OP_MAX;
    case MPI_MIN: *mask = is_signed ? ~sign : ~0ull; return HPM_COL_OP_MAX;
    default: return 0;
  }
}

int hpm_colnet_reduce(hpm_comm* c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                      MPI_Op op, int root) {
  int is_signed = 0;
  const int width = hpm_alu_int_width(type, &is_signed);
  if (!width && (type != MPI_DOUBLE || (op != MPI_SUM && op != MPI_MAX && op != MPI_MIN))) {
    return HPM_COLNET_DECLINED;
  }
  uint64_t mask = 0;
  const uint32_t opcode = width ? integer_plan(op, width, is_signed, &mask) : 0;
  if ((width && !opcode) || count < 0 || !applies(c)) return HPM_COLNET_DECLINED;
  /* Every node receives the result; a reduce's non-roots drop it (their recvbuf is not
   * significant). root < 0: an allreduce. */
  const size_t bytes = (size_t)count * (size_t)(width ? width : 8);
  const void* in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  unsigned char* out = root < 0 || c->rank == root ? recvbuf : NULL;
  if (type == MPI_DOUBLE && op == MPI_SUM) return double_sum(in, out, (size_t)count);
  stream s = {.packets = packets_for(bytes),
              .in = in,
              .in_bytes = bytes,
              .out = out,
              .out_bytes = bytes,
              .mask = mask,
              .min = op == MPI_MIN};
  if (width) {
    s.fill = fill_xor;
    s.take = out ? take_xor : NULL;
    run(&s, opcode, width == 4 ? HPM_COL_OPSIZE_32 : HPM_COL_OPSIZE_64);
  } else {
    s.fill = fill_ieee;
    s.take = out ? take_ieee : NULL;
    run(&s, HPM_COL_OP_MAX, HPM_COL_OPSIZE_64);
  }
  return MPI_SUCCESS;
}
