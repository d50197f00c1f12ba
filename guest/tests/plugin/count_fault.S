# A program with a known instruction count that dies of SIGSEGV: two li, then a store to
# address 16 (never mapped). The plugin counts the faulting store (it began executing), so
# qemu reports 3; hpmsim counts retired instructions only, so it reports 2.
  .globl _start
_start:
  li a0, 1
  li a1, 16
  sd a0, 0(a1)
  li a7, 93
  ecall
