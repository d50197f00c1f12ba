/* hpm/mu.h: the message unit of an hpmsim node (/dev/hpm/mu), from guest code: its register
 * offsets, descriptor flags and layouts. The unit's contract is src/net/message_unit.h (and
 * docs/network.md), whose namespace mu declares these facts; tests/net/mu_header_test.cpp holds
 * this header to it with static_asserts, so the build fails where they differ. */
#ifndef HPM_MU_H
#define HPM_MU_H

#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* Register offsets in the 4 KiB window (64-bit registers). */
enum {
  HPM_MU_RANK = 0x000,
  HPM_MU_NODES = 0x008,
  HPM_MU_DIMENSIONS = 0x010,
  HPM_MU_SHAPE = 0x018,
  HPM_MU_COORDS = 0x020,
  HPM_MU_MAX_PAYLOAD = 0x028,
  HPM_MU_HEADER_BYTES = 0x030,
  HPM_MU_INJ_BASE = 0x100,
  HPM_MU_INJ_ENTRIES = 0x108,
  HPM_MU_INJ_TAIL = 0x110,
  HPM_MU_INJ_DONE = 0x118,
  HPM_MU_INJ_ERRORS = 0x120,
  HPM_MU_REC_BASE = 0x200,
  HPM_MU_REC_BYTES = 0x208,
  HPM_MU_REC_TAIL_ADDR = 0x210,
  HPM_MU_REC_HEAD = 0x218,
  HPM_MU_REC_TAIL = 0x220,
  HPM_MU_COLL_MPI = 0x300,
  HPM_MU_CLASSES = 0x308,
  HPM_MU_GI_ARM = 0x310,
  HPM_MU_GI_NOTIFY_ADDR = 0x318,
  /* A user sub-communicator class route for CLASS_SET: its box (low corner and size, 8 bits per
   * dimension as COORDS and SHAPE) and root node. */
  HPM_MU_CLASS_LOW = 0x320,
  HPM_MU_CLASS_SIZE = 0x328,
  HPM_MU_CLASS_ROOT = 0x330,
  /* Writing class | HPM_MU_CLASS_GI? | HPM_MU_CLASS_CLEAR? sets (or clears) this node's register
   * of that class; refused writes count in CLASS_ERRORS. */
  HPM_MU_CLASS_SET = 0x338,
  HPM_MU_CLASS_ERRORS = 0x340,
  HPM_MU_GI_DONE = 0x380 /* + 8 x GI class */
};
enum { HPM_MU_CLASS_GI = 16, HPM_MU_CLASS_CLEAR = 32 };

/* A descriptor's flags: routing (dynamic, the priority channel or the system channel: at most
 * one) and the packet type. */
enum {
  HPM_MU_DYNAMIC = 1,
  HPM_MU_PRIORITY = 2,
  HPM_MU_MEMORY_FIFO = 0 << 2,
  HPM_MU_DIRECT_PUT = 1 << 2,
  HPM_MU_REMOTE_GET = 2 << 2,
  HPM_MU_SYSTEM = 1 << 4
};

/* A collective descriptor (machines with network.collectives, bgq): HPM_MU_COLLECTIVE with
 * HPM_MU_COLL(class route, type, op code, word length exponent n: 4 << n bytes) in `flags`, a
 * memory-FIFO packet type and no routing flag; `dest` is a reduce's destination. The result
 * lands in every member's reception FIFO (a reduce's: its destination's) as a packet whose
 * header's source is the node that combined it (a broadcast's: its sender). */
enum { HPM_MU_COLLECTIVE = 1 << 5 };
enum { HPM_MU_BROADCAST = 0, HPM_MU_ALLREDUCE = 2, HPM_MU_REDUCE = 3 };
enum {
  HPM_MU_OP_AND = 0,
  HPM_MU_OP_OR = 1,
  HPM_MU_OP_XOR = 2,
  HPM_MU_OP_UNSIGNED_ADD = 4,
  HPM_MU_OP_UNSIGNED_MIN = 5,
  HPM_MU_OP_UNSIGNED_MAX = 6,
  HPM_MU_OP_SIGNED_ADD = 8,
  HPM_MU_OP_SIGNED_MIN = 9,
  HPM_MU_OP_SIGNED_MAX = 10,
  HPM_MU_OP_FLOAT_ADD = 12,
  HPM_MU_OP_FLOAT_MIN = 13,
  HPM_MU_OP_FLOAT_MAX = 14
};
#define HPM_MU_COLL_CLASS_SHIFT 8
#define HPM_MU_COLL_TYPE_SHIFT 12
#define HPM_MU_COLL_OP_SHIFT 16
#define HPM_MU_COLL_WORD_SHIFT 20
#define HPM_MU_COLL(cls, type, op, word_exp)                                             \
  (HPM_MU_COLLECTIVE | (uint32_t)(cls) << HPM_MU_COLL_CLASS_SHIFT |                      \
   (uint32_t)(type) << HPM_MU_COLL_TYPE_SHIFT | (uint32_t)(op) << HPM_MU_COLL_OP_SHIFT | \
   (uint32_t)(word_exp) << HPM_MU_COLL_WORD_SHIFT)
/* The class routes the kernel sets up (as CNK): collective class 0 and GI class 0 are the world
 * for user programs; 14 (and GI 15) the system's. Programs may set 1 to 13. */
enum { HPM_MU_WORLD_CLASS = 0, HPM_MU_SYSTEM_CLASS = 14 };

/* A memory-FIFO packet header whose payload bytes are this is a skip header. */
#define HPM_MU_SKIP 0xffffffffu

/* A descriptor (64 bytes). `sw`: copied into every memory-FIFO packet's header; `put` and
 * `counter`: a direct put's target and reception counter in the destination's memory; `status`:
 * zero when posted; the unit writes a reason there when it refuses the descriptor (at the write
 * of INJ_TAIL that posts it). */
typedef struct {
  uint32_t dest, flags;
  uint64_t payload, bytes;
  uint8_t sw[16];
  uint64_t put, counter, status;
} hpm_mu_descriptor;

/* Why the unit refused a descriptor (its `status`): a field (destination, flags, size) or its
 * payload, not readable memory as a whole. */
enum { HPM_MU_REFUSED_FIELDS = 1, HPM_MU_REFUSED_PAYLOAD = 2 };

/* The unit's 4 KiB register window, mapped (NULL when the node has none: run with --nodes N). */
static inline volatile uint64_t* hpm_mu_map(void) {
  const int fd = open("/dev/hpm/mu", O_RDWR);
  if (fd < 0) return NULL;
  void* window = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  return window == MAP_FAILED ? NULL : (volatile uint64_t*)window;
}

#endif
