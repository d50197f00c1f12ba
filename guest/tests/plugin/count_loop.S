# A program with a known instruction count, for checking the qemu plugin: 1 (li) + 2 * 1000
# (addi, bnez) + 3 (li, li, ecall) = 2004 instructions, all executed, exit status 0.
  .globl _start
_start:
  li t0, 1000
1:
  addi t0, t0, -1
  bnez t0, 1b
  li a0, 0
  li a7, 93
  ecall
