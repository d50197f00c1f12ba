/* hpm/l1p.h: the register window of the L1P's list prefetchers (/dev/hpm/l1p), from guest code.
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

/* An entry of a list: 4 bytes (the low 32 bits of a line's number); all ones ends a list. */
#define HPM_L1P_ENTRY_BYTES 4
#define HPM_L1P_END_MARK 0xffffffffu

#endif
