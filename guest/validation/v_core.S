/* Pipeline kernels of v_core (see v_core.c for what each measures and vkernel.h for the
 * skeleton). Every instruction is 4 bytes (norvc), so a 16-instruction loop is 4 fetch groups. */
#include "vkernel.h"

/* 14 dependent integer adds, then the loop counter and branch: 16 instructions. */
VK_KERNEL vk_int_chain, 1
  li t1, 0
VK_LOOP 1
  .rept 14
  addi t1, t1, 1
  .endr
  addi a0, a0, -1
  bnez a0, 2b
VK_END vk_int_chain

/* 14 independent integer operations (no register sources), counter and branch. */
VK_KERNEL vk_int_indep, 2
VK_LOOP 2
  addi t0, zero, 1
  addi t1, zero, 2
  addi t2, zero, 3
  addi t3, zero, 4
  addi t4, zero, 5
  addi t5, zero, 6
  addi a3, zero, 7
  addi a4, zero, 8
  addi a5, zero, 9
  addi a6, zero, 10
  addi a7, zero, 11
  addi t0, zero, 12
  addi t1, zero, 13
  addi t2, zero, 14
  addi a0, a0, -1
  bnez a0, 2b
VK_END vk_int_indep

/* 14 dependent FP adds (double), counter and branch. */
VK_KERNEL vk_fp_chain, 3
  fmv.d.x ft0, zero
  fmv.d.x ft1, zero
VK_LOOP 3
  .rept 14
  fadd.d ft0, ft0, ft1
  .endr
  addi a0, a0, -1
  bnez a0, 2b
VK_END vk_fp_chain

/* 14 independent FP adds (sources never written in the loop), counter and branch. */
VK_KERNEL vk_fp_indep, 4
  fmv.d.x ft8, zero
  fmv.d.x ft9, zero
VK_LOOP 4
  fadd.d ft0, ft8, ft9
  fadd.d ft1, ft8, ft9
  fadd.d ft2, ft8, ft9
  fadd.d ft3, ft8, ft9
  fadd.d ft4, ft8, ft9
  fadd.d ft5, ft8, ft9
  fadd.d ft6, ft8, ft9
  fadd.d ft7, ft8, ft9
  fadd.d fa0, ft8, ft9
  fadd.d fa1, ft8, ft9
  fadd.d fa2, ft8, ft9
  fadd.d fa3, ft8, ft9
  fadd.d fa4, ft8, ft9
  fadd.d fa5, ft8, ft9
  addi a0, a0, -1
  bnez a0, 2b
VK_END vk_fp_indep
