/* hpm/imon.h: the interconnect monitor from guest code (library libhpmctr; docs/interconnect.md).
 *
 * The node's interconnect monitor (/dev/hpm/imon on bgq: the crossbar between the cores and the
 * L2 slices, and the L2's DDR traffic) watches every transaction: its type, line address, source
 * agent, transaction id and snoop result. It has `monitors` monitors of two histogramming
 * counters each, every counter behind its own filter, and per monitor a sequence FIFO that keeps
 * the latest transactions its counter 1's filter matches (seed 004, Sun Fire Link).
 *
 * Typical use (error checks left out):
 *
 *   hpm_imon m;
 *   hpm_imon_open(&m);
 *   struct hpm_imon_filter f;
 *   hpm_imon_filter_any(&f);
 *   f.types = HPM_IMON_BIT(HPM_IMON_WRITE);
 *   hpm_imon_trits("1XXXXXXXXXXXX", &f.addr_match, &f.addr_mask);  // (low 13 bits)
 *   hpm_imon_set_filter(&m, 0, &f);          // counter 0: monitor 0's counter 0
 *   hpm_imon_run(&m, 1);                     // monitor 0 counts
 *   work();
 *   printf("%llu\n", (unsigned long long)hpm_imon_read(&m, 0));
 *
 * The register layout below (offsets and fields) is the unit's, declared in src/pmu/imon/unit.h
 * (imon::reg); the transaction types and snoop results are numbered as the simulator numbers them
 * (src/stats/transaction.h). tests/pmu/imon holds this header to both with static_asserts, so the
 * build fails where they differ.
 */
#ifndef HPM_IMON_H
#define HPM_IMON_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Crossbar transaction types (bgq, bgp): bit t of a filter's type mask. */
enum hpm_imon_type {
  HPM_IMON_READ = 0,       /* demand read of a line (a load that missed the L1D and L1P) */
  HPM_IMON_FETCH = 1,      /* instruction fetch of a line */
  HPM_IMON_PREFETCH = 2,   /* the L1P's prefetch of a line */
  HPM_IMON_WRITE = 3,      /* a store-queue entry drained into the L2 */
  HPM_IMON_ATOMIC = 4,     /* an atomic operation at the L2 */
  HPM_IMON_INVALIDATE = 5, /* an L2 slice removing a line's private copies */
  HPM_IMON_MEM_READ = 6,   /* an L2 slice reading a line from DDR */
  HPM_IMON_MEM_WRITE = 7,  /* an L2 slice writing a dirty line back to DDR */
  HPM_IMON_IO_READ = 8,    /* an uncached load from a device register */
  HPM_IMON_IO_WRITE = 9,   /* an uncached store to a device register */
  HPM_IMON_TYPES = 10
};
/* Fireplane transaction types (sunfire, seed 004's namespace of 19): bit t of a filter's type
 * mask on that machine (INFO's [63:56] says which interconnect the unit watches). */
enum hpm_imon_fireplane_type {
  HPM_IMON_RTS = 0,    /* ReadToShare: a data load or prefetch missed the external cache */
  HPM_IMON_RTSA = 1,   /* ReadToShareAlways: an instruction fetch missed it */
  HPM_IMON_RTSR = 2,   /* ReadToShare from another domain (never on one domain) */
  HPM_IMON_RTSM = 3,   /* ReadToShare with a memory-tag check (never on one domain) */
  HPM_IMON_RTO = 4,    /* ReadToOwn: a store or atomic missed the external cache */
  HPM_IMON_RTOR = 5,   /* ReadToOwn from another domain (never on one domain) */
  HPM_IMON_RTOU = 6,   /* ReadToOwn of a line held Shared or Owned: invalidates, no data */
  HPM_IMON_RS = 7,     /* ReadStream: a block load (never: RV64GC has none) */
  HPM_IMON_RSR = 8,    /* ReadStream from another domain (never) */
  HPM_IMON_WS = 9,     /* WriteStream: a block store (never: RV64GC has none) */
  HPM_IMON_WSR = 10,   /* WriteStream from another domain (never) */
  HPM_IMON_WB = 11,    /* WriteBack of a Modified or Owned line the external cache evicts */
  HPM_IMON_WBR = 12,   /* WriteBack to another domain (never) */
  HPM_IMON_RIO = 13,   /* ReadIO: an uncached load from a device register */
  HPM_IMON_WIO = 14,   /* WriteIO: an uncached store to a device register */
  HPM_IMON_RBIO = 15,  /* ReadBlockIO (never: no block loads) */
  HPM_IMON_WBIO = 16,  /* WriteBlockIO (never: no block stores) */
  HPM_IMON_INT = 17,   /* Interrupt (never: the kernel wakes threads without one) */
  HPM_IMON_FLUSH = 18, /* Flush of a line by address (never: no cache-management instructions) */
  HPM_IMON_FIREPLANE_TYPES = 19
};
#define HPM_IMON_INTERCONNECT_CROSSBAR 0
#define HPM_IMON_INTERCONNECT_FIREPLANE 1
#define HPM_IMON_BIT(t) (UINT64_C(1) << (t))

/* Snoop results: who supplied a read's data (where a write found its line). */
enum hpm_imon_snoop {
  HPM_IMON_SNOOP_NONE = 0,     /* no data moved to the requester */
  HPM_IMON_SNOOP_MEMORY = 1,   /* DDR: the line was not in the L2 */
  HPM_IMON_SNOOP_L2 = 2,       /* the L2 had the line (crossbar) */
  HPM_IMON_SNOOP_SHARED = 3,   /* memory supplied it; other caches keep clean copies (Fireplane) */
  HPM_IMON_SNOOP_OWNED = 4,    /* a cache holding it Owned supplied it (Fireplane) */
  HPM_IMON_SNOOP_MODIFIED = 5, /* a cache holding it Modified supplied it (Fireplane) */
  HPM_IMON_SNOOPS = 6
};

/* Source agents: hardware thread t is agent t; L2 slice s is HPM_IMON_SLICE_AGENT + s. */
#define HPM_IMON_SLICE_AGENT 0x4000u
#define HPM_IMON_ID_BITS 9 /* transaction ids: a per-agent sequence number, wrapping */
/* A record's supplier when memory supplied the line or no data moved. */
#define HPM_IMON_NO_SUPPLIER 0x7fffu

/* Registers (byte offsets in the mapped window). */
#define HPM_IMON_REG_INFO 0x000
#define HPM_IMON_REG_RUN 0x008
#define HPM_IMON_REG_MONITOR(m) (0x100 + 0x100 * (m))
#define HPM_IMON_REG_COUNTER(m, c) (HPM_IMON_REG_MONITOR(m) + 0x40 * (c))
#define HPM_IMON_TYPES_OFF 0x00
#define HPM_IMON_ADDR_MATCH_OFF 0x08
#define HPM_IMON_ADDR_MASK_OFF 0x10
#define HPM_IMON_ID_MATCH_OFF 0x18 /* [15:0] source agent, [40:32] transaction id */
#define HPM_IMON_ID_MASK_OFF 0x20
#define HPM_IMON_SNOOPS_OFF 0x28
#define HPM_IMON_COUNT_OFF 0x30
#define HPM_IMON_FIFO_ENABLE_OFF 0x80
#define HPM_IMON_FIFO_STATUS_OFF 0x88 /* a read clears the overrun flag and the lost count */
#define HPM_IMON_FIFO_POP_OFF 0x90
#define HPM_IMON_LATCH_ADDRESS_OFF 0x98
#define HPM_IMON_LATCH_CYCLE_OFF 0xa0

/* Register fields: field F is F_BITS bits from bit F_SHIFT of its register. */
#define HPM_IMON_FIELD_MASK(f) ((UINT64_C(1) << f##_BITS) - 1)
#define HPM_IMON_FIELD(word, f) ((uint64_t)(word) >> f##_SHIFT & HPM_IMON_FIELD_MASK(f))
/* INFO: the unit's shape. */
#define HPM_IMON_INFO_MONITORS_SHIFT 0
#define HPM_IMON_INFO_MONITORS_BITS 8
#define HPM_IMON_INFO_COUNTERS_SHIFT 8
#define HPM_IMON_INFO_COUNTERS_BITS 8
#define HPM_IMON_INFO_FIFO_ENTRIES_SHIFT 16
#define HPM_IMON_INFO_FIFO_ENTRIES_BITS 8
#define HPM_IMON_INFO_COUNTER_BITS_SHIFT 24
#define HPM_IMON_INFO_COUNTER_BITS_BITS 8
#define HPM_IMON_INFO_TYPES_SHIFT 32
#define HPM_IMON_INFO_TYPES_BITS 8
#define HPM_IMON_INFO_SNOOPS_SHIFT 40
#define HPM_IMON_INFO_SNOOPS_BITS 8
#define HPM_IMON_INFO_ID_BITS_SHIFT 48
#define HPM_IMON_INFO_ID_BITS_BITS 8
#define HPM_IMON_INFO_INTERCONNECT_SHIFT 56
#define HPM_IMON_INFO_INTERCONNECT_BITS 8
/* ID_MATCH and ID_MASK: the source agent and the transaction id. */
#define HPM_IMON_ID_SOURCE_SHIFT 0
#define HPM_IMON_ID_SOURCE_BITS 16
#define HPM_IMON_ID_ID_SHIFT 32
#define HPM_IMON_ID_ID_BITS HPM_IMON_ID_BITS
/* FIFO_STATUS: entries held, the overrun flag, records lost since the last read. */
#define HPM_IMON_STATUS_HELD_SHIFT 0
#define HPM_IMON_STATUS_HELD_BITS 8
#define HPM_IMON_STATUS_OVERRUN_SHIFT 8
#define HPM_IMON_STATUS_OVERRUN_BITS 1
#define HPM_IMON_STATUS_LOST_SHIFT 32
#define HPM_IMON_STATUS_LOST_BITS 32
/* FIFO_POP: the type's bit, snoop result, source, id, supplier, and whether there was an entry. */
#define HPM_IMON_POP_TYPE_SHIFT 0
#define HPM_IMON_POP_TYPE_BITS 8
#define HPM_IMON_POP_SNOOP_SHIFT 8
#define HPM_IMON_POP_SNOOP_BITS 8
#define HPM_IMON_POP_SOURCE_SHIFT 16
#define HPM_IMON_POP_SOURCE_BITS 16
#define HPM_IMON_POP_ID_SHIFT 32
#define HPM_IMON_POP_ID_BITS HPM_IMON_ID_BITS
#define HPM_IMON_POP_SUPPLIER_SHIFT 48
#define HPM_IMON_POP_SUPPLIER_BITS 15
#define HPM_IMON_POP_VALID_SHIFT 63
#define HPM_IMON_POP_VALID_BITS 1

/* A filter: a transaction matches when its type is in `types`, its snoop result in `snoops`,
 * and its address, source and id agree with the match values on every bit their mask sets
 * (a mask bit of 0 is a don't-care "X" trit). */
struct hpm_imon_filter {
  uint64_t types;
  uint64_t addr_match, addr_mask;
  uint32_t source_match, source_mask;
  uint32_t id_match, id_mask;
  uint64_t snoops;
};

/* One transaction taken from a FIFO. */
struct hpm_imon_record {
  uint64_t address;
  uint64_t cycle; /* the cycle of the instruction that caused it */
  unsigned type, snoop, source, id;
  unsigned supplier; /* the agent that supplied the line, or HPM_IMON_NO_SUPPLIER */
};

typedef struct hpm_imon {
  volatile uint64_t* regs;
  unsigned long window;
  unsigned monitors, fifo_entries, counter_bits;
  unsigned types;        /* transaction types of its namespace (10 crossbar, 19 Fireplane) */
  unsigned interconnect; /* HPM_IMON_INTERCONNECT_CROSSBAR or _FIREPLANE */
  int fd;
} hpm_imon;

/* Maps /dev/hpm/imon: 0, or -errno (-ENOENT: the machine has no interconnect monitor). */
int hpm_imon_open(hpm_imon* m);
void hpm_imon_close(hpm_imon* m);

/* A filter that matches every transaction. */
void hpm_imon_filter_any(struct hpm_imon_filter* f);
/* Parses a trit string ('1', '0', 'X' or 'x', most significant first; the last character is
 * bit 0) into a match value and a mask: "110X" is match 0b1100, mask 0b1110. 0, or -1 if the
 * string is longer than 64 trits or holds another character. */
int hpm_imon_trits(const char* trits, uint64_t* match, uint64_t* mask);

/* Counter k is monitor k / 2's counter k % 2. Filters may change while counting (time
 * multiplexing, as the seed's tools do). 0, or -EINVAL for a counter the unit lacks. */
int hpm_imon_set_filter(hpm_imon* m, unsigned counter, const struct hpm_imon_filter* f);
uint64_t hpm_imon_read(const hpm_imon* m, unsigned counter);
void hpm_imon_write(hpm_imon* m, unsigned counter, uint64_t value);
/* Bit k of `monitor_mask` lets monitor k's counters count; the others stop. */
void hpm_imon_run(hpm_imon* m, unsigned monitor_mask);

/* Monitor `monitor`'s FIFO records what its counter 1's filter matches while enabled. */
void hpm_imon_fifo_enable(hpm_imon* m, unsigned monitor, int on);
/* Samples the FIFO: takes the entries it held (at most `max`, oldest first) into `out`, and
 * adds to *lost the records the FIFO dropped since the last sample (it keeps the latest ones).
 * Returns the number taken. Every matching transaction is either taken by some sample, lost
 * (and counted once), or still held. */
unsigned hpm_imon_fifo_sample(hpm_imon* m, unsigned monitor, struct hpm_imon_record* out,
                              unsigned max, uint64_t* lost);

#ifdef __cplusplus
}
#endif

#endif
