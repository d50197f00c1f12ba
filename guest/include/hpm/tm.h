/* hpm/tm.h: the register window of BG/Q's L2 speculation as transactional memory
 * (/dev/hpm/tm), from guest code. The contract is src/node/speculation.h (namespace tmreg;
 * docs/timing.md "Transactional memory"), whose facts these restate;
 * tests/node/speculation_test.cpp holds this header to it with static_asserts. Each hardware
 * thread that accesses the window reaches its own transaction. Most programs use the calls of
 * <tm/tm.h> (libtm) instead. */
#ifndef HPM_TM_H
#define HPM_TM_H

/* 64-bit registers in the 4 KiB window. */
enum {
  /* A load begins the thread's transaction and returns 0. When the transaction rolls back,
   * execution resumes after that load with the registers as they were then, but a0 holds the
   * abort code: the load must write a0. */
  HPM_TM_BEGIN = 0x00,
  HPM_TM_COMMIT = 0x08, /* a store commits */
  HPM_TM_ABORT = 0x10,  /* a store rolls back, with code HPM_TM_EXPLICIT | value << 8 */
  HPM_TM_STATUS = 0x18, /* a load: 1 while the thread's transaction runs */
  HPM_TM_WINDOW_BYTES = 4096
};

/* Abort codes: the low 8 bits of what the begin returns after a rollback. */
enum {
  HPM_TM_CONFLICT = 1,    /* another thread's access conflicted (the transaction lost) */
  HPM_TM_SYSTEM_CALL = 2, /* a system call, which cannot be rolled back */
  HPM_TM_EXPLICIT = 3,    /* a store to HPM_TM_ABORT (its value in the bits above) */
  HPM_TM_CAPACITY = 4,    /* more speculative lines in one L2 set than its ways hold */
  HPM_TM_PREEMPTED = 5    /* another guest thread took the hardware thread */
};

#endif
