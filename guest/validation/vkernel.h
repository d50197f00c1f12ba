/* The skeleton of the timing-model validation kernels (assembler macros, for the .S files of
 * guest/validation). Each kernel is a loop with an exactly known instruction stream; the
 * skeleton puts it in a region so that the region's cycles follow from docs/timing.md alone.
 *
 *   VK_KERNEL name, id      the driver `name` and the start of the body `name_body`
 *   ...setup...             instructions run once per call before the measured loop
 *   VK_LOOP id              the warm-up loop, the region's begin marker and the loop label 2:
 *   ...loop body...         ends with `addi a0, a0, -1; bnez a0, 2b` (or any exit at a0 = 0)
 *   VK_END name             the return
 *
 * The driver, C prototype
 *   void name(long n, long p, long x, long n_warm, long p_warm);
 * calls the body three times with (n_warm, p_warm, x) to warm the instruction cache, the branch
 * predictor and (where p_warm == p) the data caches, then once with (n, p, x); the body sees
 * a0 = iterations, a1 = pointer, a2 = x. Bodies may use a0-a7, t0-t5 and FP temporaries; t6 is
 * the skeleton's.
 *
 * What the skeleton contributes to a region's cycles (bgq defaults; D = core.fetch_to_issue,
 * MP = core.mispredict_penalty, T = core.taken_branch_cycles):
 *  - The body starts with a fence (earlier stores have left the store queue, loads returned),
 *    then runs a 16-iteration loop of one fetch group whose exit branch is mispredicted (its
 *    counter is trained taken). That flushes the global history to 0b1111111110 at the
 *    measured loop's entry in every call, so the warm-up calls train the entry path exactly.
 *  - The region's begin marker is the second instruction after that exit, at the end of its
 *    fetch group: it issues MP + 1 cycles after the exit branch, and the measured loop's head
 *    group (the next group, 16-byte aligned) arrives that same cycle, so the loop's first
 *    instruction issues exactly one cycle after the begin marker.
 *  - The measured loop's exit branch is mispredicted (predicted taken); the `ret` after it
 *    issues MP cycles later, correctly predicted by the return-address stack, and the driver's
 *    end marker (the instruction after the call) arrives T + D cycles after the ret's group was
 *    fetched: the end marker issues exactly MP + T cycles after the exit branch.
 *  So  region cycles = 1 + (exit branch issue - first loop instruction issue) + MP + T,
 *  and region instructions = loop instructions + 2 (the ret and the end marker).
 *
 * Every call executes the begin marker, but only the measured call reaches an end marker: the
 * warm-up calls' begins stay open and are never counted (an end closes the innermost open
 * region of its id; guest/include/hpm/region.h).
 */
#ifndef HPM_VALIDATION_VKERNEL_H
#define HPM_VALIDATION_VKERNEL_H

#ifdef __ASSEMBLER__

/* clang-format off */
.macro VK_KERNEL name, id
  .pushsection .text.\name, "ax", @progbits
  .option push
  .option norvc
  .option norelax
  .balignl 64, 0x00000013
  .globl \name
  .type \name, @function
\name:
  addi sp, sp, -64
  sd ra, 56(sp)
  sd s1, 48(sp)
  sd s2, 40(sp)
  sd s3, 32(sp)
  sd s4, 24(sp)
  sd s5, 16(sp)
  mv s1, a0
  mv s2, a1
  mv s3, a2
  mv s4, a3
  mv s5, a4
  .rept 3
  mv a0, s4
  mv a1, s5
  mv a2, s3
  jal ra, \name\()_body
  .endr
  mv a0, s1
  mv a1, s2
  mv a2, s3
  /* The measured call and the end marker share one 16-byte group (and so one cache line). */
  .balignl 16, 0x00000013
  nop
  nop
  jal ra, \name\()_body
  sltiu zero, zero, \id
  ld ra, 56(sp)
  ld s1, 48(sp)
  ld s2, 40(sp)
  ld s3, 32(sp)
  ld s4, 24(sp)
  ld s5, 16(sp)
  addi sp, sp, 64
  ret
  .size \name, . - \name

  .balignl 64, 0x00000013
  .type \name\()_body, @function
\name\()_body:
  fence
.endm

.macro VK_LOOP id
  li t6, 16
  .balignl 16, 0x00000013
1:
  addi t6, t6, -1
  bnez t6, 1b
  nop
  slti zero, zero, \id
  /* 16-byte aligned here: the measured loop's head. */
2:
.endm

.macro VK_END name
  ret
  .size \name\()_body, . - \name\()_body
  .option pop
  .popsection
.endm
/* clang-format on */

#endif /* __ASSEMBLER__ */
#endif /* HPM_VALIDATION_VKERNEL_H */
