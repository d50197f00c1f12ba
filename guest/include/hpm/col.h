/* hpm/col.h: Blue Gene/P's collective network (/dev/hpm/col) and global barrier network
 * (/dev/hpm/gi) of an hpmsim node, from guest code: register offsets, the packet header's
 * fields, STATUS's fields, and a small inline API. The devices' contract is
 * src/net/collective.h (and docs/network.md), whose namespace col declares the same offsets;
 * a test holds this header to it with static_asserts. The layout follows BG/P's
 * bpcore/collective.h (two virtual channels, a 32-bit header, a 256-byte payload, 8-packet
 * FIFOs), little-endian as RV64 is.
 *
 * Usable from C and C++ (the test includes it). One thread at a time drives a virtual channel:
 * a packet is several stores, and two writers would interleave them. */
#ifndef HPM_COL_H
#define HPM_COL_H

#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- /dev/hpm/col: a 4 KiB window of 64-bit registers ---- */

/* Per virtual channel v (0 or 1), at v * HPM_COL_VC_STRIDE + the offset. */
enum {
  HPM_COL_VCS = 2,
  HPM_COL_VC_STRIDE = 0x100,
  HPM_COL_DATA_INJ = 0x00, /* w: appends 8 payload bytes to the injection FIFO */
  HPM_COL_HDR_INJ = 0x08,  /* w: appends a header (low 32 bits) to the injection FIFO */
  HPM_COL_DATA_REC = 0x10, /* r: removes the next 8 reception payload bytes (0 when empty) */
  HPM_COL_HDR_REC = 0x18,  /* r: removes the next reception header (0 when none) */
  HPM_COL_STATUS = 0x20    /* r: the FIFOs' fill levels (HPM_COL_STATUS_* below) */
};

/* Global registers. */
enum {
  HPM_COL_NODE = 0x800,          /* this node's tree address (its node id) */
  HPM_COL_NODES = 0x808,         /* nodes on the tree */
  HPM_COL_PAYLOAD_BYTES = 0x810, /* 256 */
  HPM_COL_MPI = 0x818,           /* 1: libmpi may use the tree and the barrier (collective.mpi) */
  HPM_COL_NOTIFY_ADDR = 0x820,   /* rw: a 64-bit word of this process (0: none) */
  HPM_COL_EVENTS = 0x828         /* r: packets that became readable + global barriers completed */
};
/* After each event the unit writes EVENTS to the word at NOTIFY_ADDR and wakes the futex
 * waiters on it: a program waits for the tree or the barrier by reading the word, checking
 * STATUS or DONE, and FUTEX_WAIT on the word with the value it read (so a node that never
 * joins a collective shows as a deadlock, not as others spinning forever). */

/* A packet: a header and a fixed payload; each FIFO holds 8 packets per virtual channel (an
 * injection beyond that is dropped and counted: check STATUS first). */
enum { HPM_COL_PACKET_BYTES = 256, HPM_COL_PACKET_WORDS = 32, HPM_COL_FIFO_PACKETS = 8 };

/* STATUS's fields: payload levels in 16-byte units, header levels in headers. */
#define HPM_COL_STATUS_INJ_QUADS(s) ((unsigned)((s)&0xffffu))
#define HPM_COL_STATUS_INJ_HEADERS(s) ((unsigned)(((s) >> 16) & 0xffu))
#define HPM_COL_STATUS_REC_QUADS(s) ((unsigned)(((s) >> 32) & 0xffffu))
#define HPM_COL_STATUS_REC_HEADERS(s) ((unsigned)(((s) >> 48) & 0xffu))

/* The header (BG/P's layout, bit 31 the most significant): class (bits 28-31; class 0 is the
 * world's, set up for the whole partition), point-to-point (27), interrupt (26), ALU opcode
 * (23-25), operand size in 16-bit words minus 1 (16-22), software tag (2-15), checksum mode
 * (0-1). */
enum {
  HPM_COL_CLASS_SHIFT = 28,
  HPM_COL_CLASS_MASK = 0xf,
  HPM_COL_P2P = 1 << 27,
  HPM_COL_IRQ = 1 << 26,
  HPM_COL_OPCODE_SHIFT = 23,
  HPM_COL_OPCODE_MASK = 0x7,
  HPM_COL_OPSIZE_SHIFT = 16,
  HPM_COL_OPSIZE_MASK = 0x7f,
  HPM_COL_TAG_SHIFT = 2,
  HPM_COL_TAG_MASK = 0x3fff
};

/* The ALU's opcodes: combine the payloads of every node operand by operand, as little-endian
 * unsigned integers of (opsize + 1) * 2 bytes: ADD modulo 2^bits, MAX unsigned. NONE: no
 * combining (a broadcast through the root). */
enum {
  HPM_COL_OP_NONE = 0,
  HPM_COL_OP_OR = 1,
  HPM_COL_OP_AND = 2,
  HPM_COL_OP_XOR = 3,
  HPM_COL_OP_MAX = 5,
  HPM_COL_OP_ADD = 6
};

/* Operand sizes (the header's field) of common widths. */
enum {
  HPM_COL_OPSIZE_16 = 0,
  HPM_COL_OPSIZE_32 = 1,
  HPM_COL_OPSIZE_64 = 3,
  HPM_COL_OPSIZE_128 = 7
};

#define HPM_COL_HEADER(cls, opcode, opsize, tag)                                   \
  ((uint32_t)((((uint32_t)(cls)&HPM_COL_CLASS_MASK) << HPM_COL_CLASS_SHIFT) |      \
              (((uint32_t)(opcode)&HPM_COL_OPCODE_MASK) << HPM_COL_OPCODE_SHIFT) | \
              (((uint32_t)(opsize)&HPM_COL_OPSIZE_MASK) << HPM_COL_OPSIZE_SHIFT) | \
              (((uint32_t)(tag)&HPM_COL_TAG_MASK) << HPM_COL_TAG_SHIFT)))
#define HPM_COL_HEADER_CLASS(h) (((uint32_t)(h) >> HPM_COL_CLASS_SHIFT) & HPM_COL_CLASS_MASK)
#define HPM_COL_HEADER_OPCODE(h) (((uint32_t)(h) >> HPM_COL_OPCODE_SHIFT) & HPM_COL_OPCODE_MASK)
#define HPM_COL_HEADER_OPSIZE(h) (((uint32_t)(h) >> HPM_COL_OPSIZE_SHIFT) & HPM_COL_OPSIZE_MASK)
#define HPM_COL_HEADER_TAG(h) (((uint32_t)(h) >> HPM_COL_TAG_SHIFT) & HPM_COL_TAG_MASK)

/* ---- /dev/hpm/gi: the global barrier network, a 4 KiB window ---- */

/* Channel c (0..3): a wired AND over every node. ARM (w, value ignored): this node enters the
 * channel's next barrier. DONE (r): the barriers completed on the channel as this node sees
 * them; barrier k completes when every node has armed it k times. */
enum { HPM_GI_CHANNELS = 4, HPM_GI_ARM = 0x00, HPM_GI_DONE = 0x40 };

/* ---- the inline API ---- */

/* A device's 4 KiB window, mapped (NULL when the node has none: no such machine, or a single
 * node run without --nodes). */
static inline volatile uint64_t* hpm_col_map_device(const char* path) {
  const int fd = open(path, O_RDWR);
  if (fd < 0) return NULL;
  void* window = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  return window == MAP_FAILED ? NULL : (volatile uint64_t*)window;
}

static inline volatile uint64_t* hpm_col_map(void) {
  return hpm_col_map_device("/dev/hpm/col");
}

static inline volatile uint64_t* hpm_gi_map(void) {
  return hpm_col_map_device("/dev/hpm/gi");
}

/* Has the unit write its EVENTS count to *word after each event (NULL: nowhere). */
static inline void hpm_col_notify(volatile uint64_t* col, volatile uint64_t* word) {
  col[HPM_COL_NOTIFY_ADDR / 8] = (uint64_t)(uintptr_t)word;
}

/* A register of the window (byte offset), and virtual channel vc's register. */
static inline uint64_t hpm_col_read(volatile uint64_t* w, unsigned offset) {
  return w[offset / 8];
}

static inline volatile uint64_t* hpm_col_vc_reg(volatile uint64_t* col, unsigned vc,
                                                unsigned offset) {
  return &col[(vc * HPM_COL_VC_STRIDE + offset) / 8];
}

static inline uint64_t hpm_col_status(volatile uint64_t* col, unsigned vc) {
  return *hpm_col_vc_reg(col, vc, HPM_COL_STATUS);
}

/* Whether vc's injection FIFO has room for one more whole packet (a header and 256 bytes). */
static inline int hpm_col_can_inject(volatile uint64_t* col, unsigned vc) {
  const uint64_t s = hpm_col_status(col, vc);
  return HPM_COL_STATUS_INJ_HEADERS(s) < HPM_COL_FIFO_PACKETS &&
         HPM_COL_STATUS_INJ_QUADS(s) * 16 + HPM_COL_PACKET_BYTES <=
             HPM_COL_FIFO_PACKETS * HPM_COL_PACKET_BYTES;
}

/* Injects a packet on vc: the header, then its 32 payload words. The caller checked
 * hpm_col_can_inject (a packet that does not fit is dropped in part). */
static inline void hpm_col_inject(volatile uint64_t* col, unsigned vc, uint32_t header,
                                  const uint64_t payload[HPM_COL_PACKET_WORDS]) {
  *hpm_col_vc_reg(col, vc, HPM_COL_HDR_INJ) = header;
  volatile uint64_t* data = hpm_col_vc_reg(col, vc, HPM_COL_DATA_INJ);
  for (int i = 0; i < HPM_COL_PACKET_WORDS; ++i) *data = payload[i];
}

/* Whether a whole packet waits in vc's reception FIFO (a header is readable only once its
 * payload is all there). */
static inline int hpm_col_ready(volatile uint64_t* col, unsigned vc) {
  return HPM_COL_STATUS_REC_HEADERS(hpm_col_status(col, vc)) > 0;
}

/* Takes the next packet from vc's reception FIFO: returns its header, its payload in
 * `payload` (NULL: read and dropped). The caller checked hpm_col_ready. */
static inline uint32_t hpm_col_receive(volatile uint64_t* col, unsigned vc,
                                       uint64_t payload[HPM_COL_PACKET_WORDS]) {
  const uint32_t header = (uint32_t)*hpm_col_vc_reg(col, vc, HPM_COL_HDR_REC);
  volatile uint64_t* data = hpm_col_vc_reg(col, vc, HPM_COL_DATA_REC);
  for (int i = 0; i < HPM_COL_PACKET_WORDS; ++i) {
    const uint64_t w = *data;
    if (payload) payload[i] = w;
  }
  return header;
}

/* Enters channel c's next barrier. */
static inline void hpm_gi_arm(volatile uint64_t* gi, unsigned c) {
  gi[(HPM_GI_ARM + 8 * c) / 8] = 1;
}

/* The barriers completed on channel c as this node sees them. */
static inline uint64_t hpm_gi_done(volatile uint64_t* gi, unsigned c) {
  return gi[(HPM_GI_DONE + 8 * c) / 8];
}

/* Spins until channel c has completed `count` barriers (a node that armed its k-th barrier
 * waits for count k). */
static inline void hpm_gi_wait(volatile uint64_t* gi, unsigned c, uint64_t count) {
  while (hpm_gi_done(gi, c) < count) {
  }
}

#endif
