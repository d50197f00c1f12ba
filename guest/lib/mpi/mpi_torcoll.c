/* libmpi: MPI_Barrier, MPI_Bcast, MPI_Reduce and MPI_Allreduce on Blue Gene/Q's collective classes
 * on the torus (the message unit's collective descriptors and GI barriers: src/net/message_unit.h,
 * docs/network.md "Collectives on Blue Gene/Q's torus"), as BG/Q's MPI used them for
 * MPI_COMM_WORLD. Offered after the collective network (mpi_colnet.c) declined.
 *
 * When: the unit's COLL_MPI reads 1 (the machine's network.collective_mpi), collective class 0
 * and GI class 0 (the world's, set up by the kernel as CNK does) are there, and the communicator's
 * ranks are the world's in order (MPI_COMM_WORLD and its duplicates). Types and ops: integers of
 * 4 and 8 bytes (signed or not) with SUM, MIN, MAX, BAND, BOR, BXOR; doubles with SUM, MIN, MAX.
 * Everything else returns HPM_COLNET_DECLINED on every member alike, and the caller runs its
 * point-to-point algorithm. A double sum is the routers' (exact at each router, rounded once
 * there): it equals the point-to-point result whenever no rounding happens (integers, sums of
 * few binary fractions), and may differ from it in the last bits otherwise.
 *
 * Ordering: each collective is one descriptor of every member (a broadcast: of its root) on class
 * 0; the routers combine the members' k-th descriptors together, and results reach each node in
 * the order the collectives were called (MPI's rule). The packets carry context HPM_TORCOLL_CTX
 * and the collective's sequence number as their tag; the progress engine hands them here
 * (hpm_torcoll_packet). A result that comes before its collective was called here (a broadcast
 * another node started) waits in a list until it is.
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

static struct {
  int probed;
  int usable;
  volatile uint64_t* mu;
  uint64_t barriers; /* barriers this node armed on GI class 0 */
  uint64_t gi_base;  /* GI class 0's DONE when first probed */
  int seq;           /* collectives so far: the next one's tag */
  /* The collective in progress: its tag, where its result goes (NULL: dropped), its bytes. */
  int tag;
  unsigned char* out;
  uint64_t bytes, got;
  early* early; /* results of collectives not yet called here */
} hw;

static volatile uint64_t gi_word __attribute__((aligned(8)));

static uint64_t reg(unsigned offset) {
  return hw.mu[offset / 8];
}

static int usable(void) {
  if (hw.probed) return hw.usable;
  hw.probed = 1;
  hw.mu = hpm_mu_window();
  if (!hw.mu) return 0;
  const uint64_t classes = reg(HPM_MU_CLASSES);
  if (reg(HPM_MU_COLL_MPI) != 1 || (classes & 1) == 0 || (classes >> 16 & 1) == 0) return 0;
  hw.mu[HPM_MU_GI_NOTIFY_ADDR / 8] = (uint64_t)(uintptr_t)&gi_word;
  hw.gi_base = reg(HPM_MU_GI_DONE);
  hw.tag = -1;
  hw.usable = 1;
  return 1;
}

static int applies(const hpm_comm* c) {
  if (c->size != hpm_world_size) return 0;
  for (int i = 0; i < c->size; ++i) {
    if (c->world[i] != i) return 0;
  }
  return usable();
}

static void take(uint64_t offset, uint32_t bytes, const unsigned char* payload) {
  if (hw.out && offset < hw.bytes) {
    memcpy(hw.out + offset, payload, bytes < hw.bytes - offset ? bytes : hw.bytes - offset);
  }
  hw.got += bytes;
}

void hpm_torcoll_packet(int tag, uint64_t offset, uint32_t bytes, const unsigned char* payload) {
  if (tag == hw.tag) {
    take(offset, bytes, payload);
    return;
  }
  early* e = malloc(sizeof *e + bytes);
  if (!e) abort();
  e->tag = tag;
  e->offset = offset;
  e->bytes = bytes;
  memcpy(e->data, payload, bytes);
  early** at = &hw.early;
  while (*at) at = &(*at)->next;
  *at = e;
  e->next = NULL;
}

static int result_complete(void* arg) {
  (void)arg;
  return hw.got >= hw.bytes;
}

static int injected(void* arg) {
  return reg(HPM_MU_INJ_DONE) >= *(const uint64_t*)arg;
}

/* One collective: this node's descriptor (none when `flags` is 0: a broadcast's non-root), then
 * its result into `out` (NULL: this node receives none, and waits for its injection only). */
static int collective(uint32_t flags, uint32_t dest, const void* in, void* out, uint64_t bytes) {
  hw.tag = hw.seq++;
  hw.out = out;
  hw.bytes = bytes;
  hw.got = 0;
  for (early** at = &hw.early; *at;) {
    early* e = *at;
    if (e->tag != hw.tag) {
      at = &e->next;
      continue;
    }
    take(e->offset, e->bytes, e->data);
    *at = e->next;
    free(e);
  }
  uint64_t posted = 0;
  if (flags) {
    posted = hpm_post_collective(flags, dest, in, bytes, hw.tag);
    if (!posted) return MPI_ERR_BUFFER; /* (the send buffer is not readable memory) */
  }
  if (out) {
    hpm_wait_until(result_complete, NULL);
  } else if (posted) {
    hpm_wait_until(injected, &posted);
  }
  hw.tag = -1;
  return MPI_SUCCESS;
}

int hpm_torcoll_barrier(hpm_comm* c) {
  if (!applies(c)) return HPM_COLNET_DECLINED;
  hw.mu[HPM_MU_GI_ARM / 8] = HPM_MU_WORLD_CLASS;
  ++hw.barriers;
  int idle = 0;
  for (;;) {
    const uint32_t seen = (uint32_t)gi_word;
    if (reg(HPM_MU_GI_DONE) - hw.gi_base >= hw.barriers) return MPI_SUCCESS;
    if (hpm_progress() || ++idle < SPINS) continue;
    syscall(SYS_futex, &gi_word, FUTEX_WAIT, seen, NULL, NULL, 0);
    idle = 0;
  }
}

int hpm_torcoll_bcast(hpm_comm* c, void* buf, uint64_t bytes, int root) {
  /* (The unit's word length divides the message: whole 4-byte words, as the hardware needs.) */
  if (bytes % 4 != 0 || !applies(c)) return HPM_COLNET_DECLINED;
  if (bytes == 0) return MPI_SUCCESS;
  const uint32_t flags = c->rank == root ? HPM_MU_COLL(0, HPM_MU_BROADCAST, 0, 0) : 0;
  return collective(flags, 0, buf, buf, bytes);
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
  if (opcode < 0 || count < 0 || !applies(c)) return HPM_COLNET_DECLINED;
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
  const int err = collective(flags, root < 0 ? 0 : (uint32_t)root, in, out, bytes);
  free(copy);
  return err;
}
