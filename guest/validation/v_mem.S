/* Memory kernels of v_mem (see v_mem.c for the data layouts and vkernel.h for the skeleton). */
#include "vkernel.h"

/* Pointer chase: 8 dependent loads, counter and branch (10 instructions). a1 = first node. */
VK_KERNEL vk_chase, 10
VK_LOOP 10
  .rept 8
  ld a1, 0(a1)
  .endr
  addi a0, a0, -1
  bnez a0, 2b
VK_END vk_chase

/* Dependent loads of fresh (never touched, zero) memory: each load's address is the previous
 * address plus the value it loaded (0) plus 256 bytes, so every load waits for the one before
 * and misses every cache. 8 lines per iteration, then the base moves 2 KiB. a1 = buffer. */
VK_KERNEL vk_fresh_chase, 11
  li t1, 2048
VK_LOOP 11
  ld t0, 0(a1)
  add a1, a1, t0
  ld t0, 256(a1)
  add a1, a1, t0
  ld t0, 512(a1)
  add a1, a1, t0
  ld t0, 768(a1)
  add a1, a1, t0
  ld t0, 1024(a1)
  add a1, a1, t0
  ld t0, 1280(a1)
  add a1, a1, t0
  ld t0, 1536(a1)
  add a1, a1, t0
  ld t0, 1792(a1)
  add a1, a1, t0
  add a1, a1, t1
  addi a0, a0, -1
  bnez a0, 2b
VK_END vk_fresh_chase

/* 16 independent loads of one 4 KiB block (one per 256 bytes: 16 different L2 lines, 16
 * different L2 slices, no next-line prefetch), then the next block. a1 = first block. */
VK_KERNEL vk_stream, 12
  addi a3, a1, 2047
  addi a3, a3, 1
  li t1, 4096
VK_LOOP 12
  ld t0, 0(a1)
  ld t0, 256(a1)
  ld t0, 512(a1)
  ld t0, 768(a1)
  ld t0, 1024(a1)
  ld t0, 1280(a1)
  ld t0, 1536(a1)
  ld t0, 1792(a1)
  ld t0, 0(a3)
  ld t0, 256(a3)
  ld t0, 512(a3)
  ld t0, 768(a3)
  ld t0, 1024(a3)
  ld t0, 1280(a3)
  ld t0, 1536(a3)
  ld t0, 1792(a3)
  add a1, a1, t1
  add a3, a3, t1
  addi a0, a0, -1
  bnez a0, 2b
VK_END vk_stream
