/* Divider kernels of v_div (see v_div.c for what each measures and vkernel.h for the skeleton).
 * Every instruction is 4 bytes (norvc). */
#include "vkernel.h"

/* 14 dependent unsigned divides by one of x (a2: the quotient is x again, so every divide has
 * the same operands), counter and branch: 16 instructions. */
VK_KERNEL vk_div_chain, 1
  li t2, 1
  mv t1, a2
VK_LOOP 1
  .rept 14
  divu t1, t1, t2
  .endr
  addi a0, a0, -1
  bnez a0, 2b
VK_END vk_div_chain
