/* libmpi: MPI_Barrier, MPI_Bcast, MPI_Reduce and MPI_Allreduce on Blue Gene/Q's collective classes
 * on the torus (the message unit's collective descriptors and GI barriers: src/net/message_unit.h,
 * docs/network.md "Collectives on Blue Gene/Q's torus"), as BG/Q's MPI used them. Offered after
 * the collective network (mpi_colnet.c) declined.
 *
 * When: the unit's COLL_MPI reads 1 (the machine's network.collective_mpi) and collective class 0
 * and GI class 0 (the world's, set up by the kernel as CNK does) are there; then
 * - MPI_COMM_WORLD and every communicator whose ranks are the world's in order use class 0;
 * - a communicator of two or more ranks whose members are a box of the torus (a sub-rectangle,
 *   no wrap), its ranks in node order (MPI_Comm_split by rows or planes of the torus, say), gets
 *   a sub-communicator class of its own at its first collective here, as PAMI's class route
 *   allocator did: its members agree on the lowest class (1 to 13) none of them uses, each sets
 *   its own collective and GI registers of that class to the box's tree (rooted at the box's
 *   first node), and they all check that every member could (point-to-point allreduces, which
 *   also order every register write before any use). MPI_Comm_free gives it back after a
 *   barrier on it. Communicators that are no box, or find no free class, use point-to-point.
 * Types and ops: integers of 4 and 8 bytes (signed or not) with SUM, MIN, MAX, BAND, BOR, BXOR;
 * doubles with SUM, MIN, MAX. Everything else returns HPM_COLNET_DECLINED on every member alike,
 * and the caller runs its point-to-point algorithm. A double sum is the routers' (exact at each
 * router, rounded once there): it equals the point-to-point result whenever no rounding happens
 * (integers, sums of few binary fractions), and may differ from it in the last bits otherwise.
 *
 * Ordering: each collective is one descriptor of every member (a broadcast: of its root) on the
 * communicator's class; the routers combine the members' k-th descriptors together, and results
 * reach each node in the order the collectives were called (MPI's rule). The packets carry
 * context HPM_TORCOLL_CTX and, as their tag, the class's collective sequence number times 16
 * plus the class; the progress engine hands them here (hpm_torcoll_packet). A result that comes
 * before its collective was called here (a broadcast another node started) waits in its class's
 * list until it is.
 *
 * The state below is the library's (one thread uses it: MPI_THREAD_FUNNELED). */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hpm/mu.h"
#include "mpi_impl.h"

/* Idle polls before a barrier sleeps until the unit's next GI completion. */
#define SPINS 16

typedef struct early {
  struct early* next;
  int tag;
  uint64_t offset;
  uint32_t bytes;
  unsigned char data[];
} early;

/* The kernel's classes (0 the world, 14 and 15 the system's) and those a program may take. */
#define FIRST_SUBCOMM_CLASS 1
#define LAST_SUBCOMM_CLASS 13

/* Per class in use on this node: its GI barriers armed, its GI DONE when it came into use here,
 * its collectives so far (the next one's tag), the collective in progress (`active`: its tag,
 * where its result goes: NULL dropped, its bytes) and results of collectives not yet called here
 * (those may come before the class came into use here: a member that set it up first may
 * broadcast on it). */
typedef struct {
  uint64_t barriers;
  uint64_t gi_base;
  int seq;
  int active;
  int tag;
  unsigned char* out;
  uint64_t bytes, got;
  early* early;
} class_state;

static struct {
  int probed;
  int usable;
  volatile uint64_t* mu;
  unsigned used; /* bit c: class c is in use on this node (the kernel's always) */
  class_state cls[16];
} hw;

static volatile uint64_t gi_word __attribute__((aligned(8)));

static uint64_t reg(unsigned offset) {
  return hw.mu[offset / 8];
}

/* Class k comes into use on this node. */
static void start_class(int k) {
  class_state* s = &hw.cls[k];
  s->barriers = 0;
  s->seq = 0;
  s->gi_base = reg(HPM_MU_GI_DONE + 8 * (unsigned)k);
}

/* Class k goes out of use on this node (every member's collectives on it have ended). */
static void end_class(int k) {
  class_state* s = &hw.cls[k];
  while (s->early) {
    early* e = s->early;
    s->early = e->next;
    free(e);
  }
  memset(s, 0, sizeof *s);
}

static int usable(void) {
  if (hw.probed) return hw.usable;
  hw.probed = 1;
  hw.mu = hpm_mu_window();
  if (!hw.mu) return 0;
  const uint64_t classes = reg(HPM_MU_CLASSES);
  if (reg(HPM_MU_COLL_MPI) != 1 || (classes & 1) == 0 || (classes >> 16 & 1) == 0) return 0;
  hw.mu[HPM_MU_GI_NOTIFY_ADDR / 8] = (uint64_t)(uintptr_t)&gi_word;
  /* (Bits FIRST_SUBCOMM_CLASS to LAST_SUBCOMM_CLASS clear, every other set.) */
  hw.used = ~(((1u << (LAST_SUBCOMM_CLASS + 1)) - 1u) & ~((1u << FIRST_SUBCOMM_CLASS) - 1u));
  start_class(HPM_MU_WORLD_CLASS);
  hw.usable = 1;
  return 1;
}

volatile uint64_t* hpm_torcoll_wake_word(void) {
  return usable() ? &gi_word : NULL;
}

/* Whether the communicator's members are a box of the torus in node order: its low corner and
 * sizes into `low` and `size` (8 bits per dimension, as the unit's COORDS and SHAPE). */
static int box_of(const hpm_comm* c, uint64_t* low, uint64_t* size) {
  const unsigned dims = (unsigned)reg(HPM_MU_DIMENSIONS);
  const uint64_t shape = reg(HPM_MU_SHAPE);
  unsigned lo[8], hi[8];
  if (dims > 8) return 0;
  for (int i = 0; i < c->size; ++i) {
    if (i > 0 && c->world[i] <= c->world[i - 1]) return 0;
    /* Node ids are the coordinates' mixed radix, the first dimension the most significant. */
    unsigned node = (unsigned)c->world[i];
    for (unsigned d = dims; d-- > 0;) {
      const unsigned extent = (unsigned)(shape >> (8 * d) & 0xff);
      const unsigned coord = node % extent;
      node /= extent;
      if (i == 0 || coord < lo[d]) lo[d] = coord;
      if (i == 0 || coord > hi[d]) hi[d] = coord;
    }
  }
  uint64_t members = 1;
  *low = *size = 0;
  for (unsigned d = 0; d < dims; ++d) {
    members *= hi[d] - lo[d] + 1;
    *low |= (uint64_t)lo[d] << (8 * d);
    *size |= (uint64_t)(hi[d] - lo[d] + 1) << (8 * d);
  }
  return members == (uint64_t)c->size;
}

static void clear_registers(int k) {
  hw.mu[HPM_MU_CLASS_SET / 8] = (uint64_t)k | HPM_MU_CLASS_CLEAR;
  hw.mu[HPM_MU_CLASS_SET / 8] = (uint64_t)k | HPM_MU_CLASS_GI | HPM_MU_CLASS_CLEAR;
}

/* The communicator's class (see the top): c + 1 for class c, -1 for none. Collective on the
 * communicator (every member calls it at the same collective, with the same outcome). */
static int choose_class(hpm_comm* c) {
  if (c->size == hpm_world_size) {
    int in_order = 1;
    for (int i = 0; i < c->size; ++i) in_order = in_order && c->world[i] == i;
    if (in_order) return HPM_MU_WORLD_CLASS + 1;
  }
  uint64_t low = 0, size = 0;
  if (c->size < 2 || !box_of(c, &low, &size)) return -1;
  c->coll_class = -1; /* (what it is while choosing: the allreduces below are point-to-point) */
  const MPI_Comm comm = (MPI_Comm)(c - hpm_comms);
  int used = (int)(hw.used & 0xffffu), all = 0;
  if (MPI_Allreduce(&used, &all, 1, MPI_INT, MPI_BOR, comm) != MPI_SUCCESS) return -1;
  int k = FIRST_SUBCOMM_CLASS;
  while (k <= LAST_SUBCOMM_CLASS && (all >> k & 1)) ++k;
  if (k > LAST_SUBCOMM_CLASS) return -1;
  start_class(k);
  const uint64_t errors = reg(HPM_MU_CLASS_ERRORS);
  hw.mu[HPM_MU_CLASS_LOW / 8] = low;
  hw.mu[HPM_MU_CLASS_SIZE / 8] = size;
  hw.mu[HPM_MU_CLASS_ROOT / 8] = (uint64_t)c->world[0];
  hw.mu[HPM_MU_CLASS_SET / 8] = (uint64_t)k;
  hw.mu[HPM_MU_CLASS_SET / 8] = (uint64_t)k | HPM_MU_CLASS_GI;
  int ok = reg(HPM_MU_CLASS_ERRORS) == errors, all_ok = 0;
  if (MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS || !all_ok) {
    if (ok) clear_registers(k);
    end_class(k);
    return -1;
  }
  hw.used |= 1u << k;
  return k + 1;
}

static class_state* applies(hpm_comm* c) {
  if (!usable()) return NULL;
  if (c->coll_class == 0) c->coll_class = choose_class(c);
  return c->coll_class > 0 ? &hw.cls[c->coll_class - 1] : NULL;
}

static int class_of(const class_state* s) {
  return (int)(s - hw.cls);
}

static void take(class_state* s, uint64_t offset, uint32_t bytes, const unsigned char* payload) {
  if (s->out && offset < s->bytes) {
    memcpy(s->out + offset, payload, bytes < s->bytes - offset ? bytes : s->bytes - offset);
  }
  s->got += bytes;
}

void hpm_torcoll_packet(int tag, uint64_t offset, uint32_t bytes, const unsigned char* payload) {
  class_state* s = &hw.cls[tag & 15];
  if (s->active && tag == s->tag) {
    take(s, offset, bytes, payload);
    return;
  }
  early* e = malloc(sizeof *e + bytes);
  if (!e) abort();
  e->tag = tag;
  e->offset = offset;
  e->bytes = bytes;
  memcpy(e->data, payload, bytes);
  early** at = &s->early;
  while (*at) at = &(*at)->next;
  *at = e;
  e->next = NULL;
}

static int result_complete(void* arg) {
  const class_state* s = arg;
  return s->got >= s->bytes;
}

static int injected(void* arg) {
  return reg(HPM_MU_INJ_DONE) >= *(const uint64_t*)arg;
}

/* One collective on the class of `s`: this node's descriptor (none when `flags` is 0: a
 * broadcast's non-root; the class goes into `flags` here), then its result into `out` (NULL: this
 * node receives none, and waits for its injection only). */
static int collective(class_state* s, uint32_t flags, uint32_t dest, const void* in, void* out,
                      uint64_t bytes) {
  const int k = class_of(s);
  s->tag = (int)((unsigned)(s->seq++ & 0x7ffffff) << 4 | (unsigned)k);
  s->active = 1;
  s->out = out;
  s->bytes = bytes;
  s->got = 0;
  for (early** at = &s->early; *at;) {
    early* e = *at;
    if (e->tag != s->tag) {
      at = &e->next;
      continue;
    }
    take(s, e->offset, e->bytes, e->data);
    *at = e->next;
    free(e);
  }
  uint64_t posted = 0;
  if (flags) {
    flags |= (uint32_t)k << HPM_MU_COLL_CLASS_SHIFT;
    posted = hpm_post_collective(flags, dest, in, bytes, s->tag);
    if (!posted) {
      s->active = 0;
      return MPI_ERR_BUFFER; /* (the send buffer is not readable memory) */
    }
  }
  if (out) {
    hpm_wait_until(result_complete, s);
  } else if (posted) {
    hpm_wait_until(injected, &posted);
  }
  s->active = 0;
  return MPI_SUCCESS;
}

static void gi_barrier(class_state* s) {
  const unsigned k = (unsigned)class_of(s);
  hw.mu[HPM_MU_GI_ARM / 8] = k;
  ++s->barriers;
  int idle = 0;
  for (;;) {
    const uint32_t seen = (uint32_t)gi_word;
    if (reg(HPM_MU_GI_DONE + 8 * k) - s->gi_base >= s->barriers) return;
    if (hpm_progress() || ++idle < SPINS) continue;
    syscall(SYS_futex, &gi_word, FUTEX_WAIT, seen, NULL, NULL, 0);
    idle = 0;
  }
}

int hpm_torcoll_barrier(hpm_comm* c) {
  class_state* s = applies(c);
  if (!s) return HPM_COLNET_DECLINED;
  gi_barrier(s);
  return MPI_SUCCESS;
}

void hpm_torcoll_free(hpm_comm* c) {
  if (c->coll_class <= HPM_MU_WORLD_CLASS + 1) return;
  /* (Every member's collectives on the class have ended once all reach the barrier: then no
   * packet of the class is on its way through a router this clears.) */
  const int k = c->coll_class - 1;
  gi_barrier(&hw.cls[k]);
  clear_registers(k);
  end_class(k);
  hw.used &= ~(1u << k);
  c->coll_class = 0;
}

int hpm_torcoll_bcast(hpm_comm* c, void* buf, uint64_t bytes, int root) {
  /* (The unit's word length divides the message: whole 4-byte words, as the hardware needs.) */
  if (bytes % 4 != 0) return HPM_COLNET_DECLINED;
  class_state* s = applies(c);
  if (!s) return HPM_COLNET_DECLINED;
  if (bytes == 0) return MPI_SUCCESS;
  const uint32_t flags = c->rank == root ? HPM_MU_COLL(0, HPM_MU_BROADCAST, 0, 0) : 0;
  return collective(s, flags, 0, buf, buf, bytes);
}

int hpm_torcoll_reduce(hpm_comm* c, const void* sendbuf, void* recvbuf, int count,
                       MPI_Datatype type, MPI_Op op, int root) {
  int is_signed = 0;
  const int floating = type == MPI_DOUBLE;
  const int width = floating ? 8 : hpm_alu_int_width(type, &is_signed);
  if (!width) return HPM_COLNET_DECLINED;
  int opcode = -1;
  switch (op) {
    case MPI_SUM:
      opcode = floating    ? HPM_MU_OP_FLOAT_ADD
               : is_signed ? HPM_MU_OP_SIGNED_ADD
                           : HPM_MU_OP_UNSIGNED_ADD;
      break;
    case MPI_MIN:
      opcode = floating    ? HPM_MU_OP_FLOAT_MIN
               : is_signed ? HPM_MU_OP_SIGNED_MIN
                           : HPM_MU_OP_UNSIGNED_MIN;
      break;
    case MPI_MAX:
      opcode = floating    ? HPM_MU_OP_FLOAT_MAX
               : is_signed ? HPM_MU_OP_SIGNED_MAX
                           : HPM_MU_OP_UNSIGNED_MAX;
      break;
    case MPI_BAND: opcode = floating ? -1 : HPM_MU_OP_AND; break;
    case MPI_BOR: opcode = floating ? -1 : HPM_MU_OP_OR; break;
    case MPI_BXOR: opcode = floating ? -1 : HPM_MU_OP_XOR; break;
    default: break;
  }
  if (opcode < 0 || count < 0) return HPM_COLNET_DECLINED;
  class_state* s = applies(c);
  if (!s) return HPM_COLNET_DECLINED;
  if (count == 0) return MPI_SUCCESS;
  const uint64_t bytes = (uint64_t)count * (uint64_t)width;
  const void* in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  /* (In place: the unit reads the payload as it makes each packet, before any result lands,
   * since every result needs this node's packets; but a copy keeps that out of the argument.) */
  void* copy = NULL;
  if (sendbuf == MPI_IN_PLACE) {
    copy = malloc(bytes);
    if (!copy) return MPI_ERR_OTHER;
    memcpy(copy, recvbuf, bytes);
    in = copy;
  }
  const int type_code = root < 0 ? HPM_MU_ALLREDUCE : HPM_MU_REDUCE;
  const uint32_t flags = HPM_MU_COLL(0, type_code, opcode, width == 4 ? 0 : 1);
  void* out = root < 0 || c->rank == root ? recvbuf : NULL;
  const uint32_t dest = root < 0 ? 0 : (uint32_t)c->world[root];
  const int err = collective(s, flags, dest, in, out, bytes);
  free(copy);
  return err;
}
