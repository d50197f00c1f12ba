# A 32-bit RISC-V (RV32I, ELFCLASS32) executable: hpmsim runs RV64 programs only and must
# refuse it with a message mentioning "32-bit". (It would exit with status 0 if it ran.)
  .globl _start
_start:
  li a0, 0
  li a7, 93
  ecall
