// Self-modifying code: instructions written into an mmap'ed read-write-execute page, made
// visible with fence.i, executed, then overwritten in place with different values and executed
// again (a simulator that caches decoded instructions must notice); 16-bit compressed
// instructions written the same way; the __riscv_flush_icache library call (the
// riscv_flush_icache system call) instead of fence.i; and a function in the program's own text
// segment patched after mprotect makes it writable.
#include <string.h>
#include <sys/cachectl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

typedef long (*Fn)(long);

// addi a0, a0, imm (imm in [-2048, 2047]) and ret (jalr x0, 0(ra)).
static uint32_t addi_a0(int imm) {
  return ((uint32_t)imm & 0xfff) << 20 | 10u << 15 | 10u << 7 | 0x13;
}
static const uint32_t kRet = 0x00008067;
// c.addi a0, imm (imm in [-32, 31], nonzero) and c.jr ra.
static uint16_t c_addi_a0(int imm) {
  uint16_t u = (uint16_t)imm;
  return (uint16_t)(((u >> 5) & 1) << 12 | 10u << 7 | (u & 0x1f) << 2 | 0x1);
}
static const uint16_t kCRet = 0x8082;

// A function in .text whose first instruction is patched below; .option norvc keeps it a
// 4-byte addi so that the patch has a fixed size. Page-aligned so that mprotect affects only it.
__asm__(
    ".pushsection .text.patchme, \"ax\", @progbits\n"
    ".balign 4096\n"
    ".globl patchable\n"
    "patchable:\n"
    ".option push\n"
    ".option norvc\n"
    "  addi a0, a0, 1\n"
    "  ret\n"
    ".option pop\n"
    ".balign 4096\n"
    ".popsection\n");
long patchable(long);

int main(void) {
  long page = sysconf(_SC_PAGESIZE);
  CHECK(page == 4096);
  unsigned char* code = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE | PROT_EXEC,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(code != MAP_FAILED);
  Fn fn = (Fn)(void*)code;

  // One instruction rewritten in place, with fence.i after each write.
  long total = 0;
  for (int imm = -2048; imm <= 2047; imm += 273) {
    uint32_t insn[2] = {addi_a0(imm), kRet};
    memcpy(code, insn, sizeof insn);
    __asm__ volatile("fence.i" ::: "memory");
    long r = fn(1000);
    CHECK(r == 1000 + imm);
    total += r;
  }
  printf("rewritten addi: total=%ld\n", total);

  // A longer straight-line sequence, regenerated with different immediates each round.
  for (int round = 0; round < 4; ++round) {
    uint32_t insns[65];
    for (int i = 0; i < 64; ++i) insns[i] = addi_a0((i * (round + 1)) % 100 - 50);
    insns[64] = kRet;
    memcpy(code, insns, sizeof insns);
    __asm__ volatile("fence.i" ::: "memory");
    printf("round %d: sequence result=%ld\n", round, fn(round));
  }

  // Compressed instructions, and a change of length at the same address (32-bit to 16-bit).
  for (int imm = -32; imm <= 31; imm += 9) {
    if (imm == 0) continue;
    uint16_t c[4] = {c_addi_a0(imm), c_addi_a0(imm), c_addi_a0(1), kCRet};
    memcpy(code, c, sizeof c);
    __asm__ volatile("fence.i" ::: "memory");
    printf("compressed imm=%d: %ld\n", imm, fn(0));
  }

  // The same, made visible with the flush-icache call instead of fence.i.
  for (int imm = 5; imm < 500; imm += 123) {
    uint32_t insn[2] = {addi_a0(imm), kRet};
    memcpy(code, insn, sizeof insn);
    int rc = __riscv_flush_icache(code, code + sizeof insn, 0);
    printf("__riscv_flush_icache rc=%d result=%ld\n", rc, fn(7));
  }
  CHECK(munmap(code, (size_t)page) == 0);

  // Patch the program's own text.
  printf("patchable before: %ld\n", patchable(10));
  uintptr_t text_page = (uintptr_t)(void*)patchable & ~(uintptr_t)(page - 1);
  CHECK(mprotect((void*)text_page, (size_t)page, PROT_READ | PROT_WRITE | PROT_EXEC) == 0);
  for (int imm = 100; imm <= 400; imm += 100) {
    uint32_t insn = addi_a0(imm);
    memcpy((void*)(void*)patchable, &insn, sizeof insn);
    __asm__ volatile("fence.i" ::: "memory");
    printf("patchable patched to +%d: %ld\n", imm, patchable(10));
  }
  CHECK(mprotect((void*)text_page, (size_t)page, PROT_READ | PROT_EXEC) == 0);
  printf("patchable after mprotect back: %ld\n", patchable(10));
  return 0;
}
