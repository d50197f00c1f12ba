/* Branch kernel of v_branch (see v_branch.c and vkernel.h). */
#include "vkernel.h"

/* Loads a direction byte, branches over one instruction when it is 0:
 *   lbu t0, 0(a1); addi a1, a1, 1; beqz t0, 3f; addi t1, t1, 1; 3: addi a0, a0, -1; bnez
 * The loop head is one fetch group; the branch target starts the next. */
VK_KERNEL vk_branch, 30
  li t1, 0
VK_LOOP 30
  lbu t0, 0(a1)
  addi a1, a1, 1
  beqz t0, 3f
  addi t1, t1, 1
3:
  addi a0, a0, -1
  bnez a0, 2b
VK_END vk_branch
