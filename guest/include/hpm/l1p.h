/* hpm/l1p.h: the register window of the L1P's list prefetchers and of its stream prefetcher's
 * control (/dev/hpm/l1p), from guest code.
 * The contract is src/mem/list_prefetcher.h (namespace l1plist; docs/timing.md "The list
 * prefetcher"), whose facts these restate; tests/mem/list_prefetcher_test.cpp holds this header
 * to it with static_asserts. Each hardware thread that accesses the window reaches its own list
 * prefetcher. Most programs use the SPI-style calls of <l1p/pprefetch.h> instead. */
#ifndef HPM_L1P_H
#define HPM_L1P_H

/* 64-bit registers in the 4 KiB window. */
enum {
  HPM_L1P_CTRL = 0x00,       /* HPM_L1P_START | LOAD | INHIBIT | PAUSE, depth << DEPTH_SHIFT */
  HPM_L1P_STATUS = 0x08,     /* HPM_L1P_FINISHED ...; a write clears the bits it sets */
  HPM_L1P_MAXTOL = 0x10,     /* consecutive mismatching misses tolerated before abandoning */
  HPM_L1P_READ_BASE = 0x18,  /* the list replayed */
  HPM_L1P_WRITE_BASE = 0x20, /* the list recorded */
  HPM_L1P_SIZE = 0x28,       /* bytes of each list */
  HPM_L1P_READ_POS = 0x30,   /* entries of the replayed list passed (read only) */
  HPM_L1P_WRITE_POS = 0x38,  /* entries recorded (read only) */
  HPM_L1P_WINDOW_BYTES = 4096
};

enum {
  HPM_L1P_START = 1,
  HPM_L1P_LOAD = 2,    /* replay the read list */
  HPM_L1P_INHIBIT = 4, /* record nothing */
  HPM_L1P_PAUSE = 8,
  HPM_L1P_DEPTH_SHIFT = 8 /* 4 bits: lines prefetched ahead (0: the default) */
};

enum { HPM_L1P_FINISHED = 1, HPM_L1P_ABANDONED = 2, HPM_L1P_MAXLENGTH = 4, HPM_L1P_ENDOFLIST = 8 };

/* The stream prefetcher's control of the caller's core, BG/Q's L1P_CFG_PF_USR at BG/Q's offset
 * (src/mem/stream_control.h, namespace l1pcfg; docs/timing.md "The stream prefetcher"). Fields
 * in bits 0 to 23; the bits above are reserved (they read as zero, writes leave them so). Most
 * programs use the SPI-style calls of <l1p/sprefetch.h> instead. */
enum {
  HPM_L1P_CFG_PF_USR = 0x108,
  HPM_L1P_PF_DEPTH_SHIFT = 21, /* 3 bits: the depth a stream is established with, less one */
  HPM_L1P_PF_TOTAL_SHIFT = 17, /* 4 bits: the lines the adaptation may use in all, less one */
  HPM_L1P_PF_IFETCH_DEPTH_SHIFT = 14, /* 3 bits (kept, not modelled) */
  HPM_L1P_PF_IFETCH_TOTAL_SHIFT = 10, /* 4 bits (kept, not modelled) */
  HPM_L1P_PF_EST_ON_DCBT = 1 << 9,    /* (kept: RV64GC has no dcbt) */
  HPM_L1P_PF_OPTIMISTIC = 1 << 8,
  HPM_L1P_PF_PREFETCH_ENABLE = 1 << 7,
  HPM_L1P_PF_ESTABLISH_ENABLE = 1 << 6,
  HPM_L1P_PF_LIST_ENABLE = 1 << 5, /* (kept, not modelled) */
  HPM_L1P_PF_ADAPTIVE_ENABLE = 1 << 4,
  HPM_L1P_PF_THROTTLE_MASK = 0xf /* (kept, not modelled) */
};

/* An entry of a list: 4 bytes (the low 32 bits of a line's number); all ones ends a list. */
#define HPM_L1P_ENTRY_BYTES 4
#define HPM_L1P_END_MARK 0xffffffffu

#endif
