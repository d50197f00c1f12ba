/* Store-queue kernels of v_store (see v_store.c and vkernel.h). */
#include "vkernel.h"

/* 16 stores of 8 bytes to 16 different 16-byte blocks (two L2 lines), then the next 256 bytes:
 * no two stores can combine. */
VK_KERNEL vk_sq_distinct, 20
  li t1, 256
VK_LOOP 20
  .set off, 0
  .rept 16
  sd zero, off(a1)
  .set off, off + 16
  .endr
  add a1, a1, t1
  addi a0, a0, -1
  bnez a0, 2b
VK_END vk_sq_distinct

/* 8 pairs of 8-byte stores, each pair filling one aligned 16-byte block (one L2 line), then the
 * next 128 bytes: the second store of a pair can combine with the first. */
VK_KERNEL vk_sq_pairs, 21
  li t1, 128
VK_LOOP 21
  .set off, 0
  .rept 16
  sd zero, off(a1)
  .set off, off + 8
  .endr
  add a1, a1, t1
  addi a0, a0, -1
  bnez a0, 2b
VK_END vk_sq_pairs
