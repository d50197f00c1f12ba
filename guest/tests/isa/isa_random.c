// Random RV64IMAFDC code with forward branches, generated at run time into an executable buffer and
// run from random register and memory contents; each block's results (every integer and FP
// register, fcsr, a scratch memory area) are printed as digests, so that the guest comparison test
// holds hpmsim to qemu-riscv64 on thousands of operand combinations the hand-written ISA tests do
// not reach: FP rounding modes and flags on special values, NaN boxing, conversions at the limits,
// division corner cases, word operations' sign extension, compressed encodings, AMOs, branch
// conditions.
//
//   isa_random [SEED [BLOCKS [VERBOSE_BLOCK]]]     (defaults 1, 300, none)
//
// VERBOSE_BLOCK also prints that block's code and every register after it (for finding which
// instruction differs). The code's only control flow is forward branches and jumps without a
// link; it makes no system calls and computes no pc-relative values, and
// its memory accesses go to a scratch area through x31 (the state's base, never written) and x30
// (a pointer into the scratch area, never written): the registers the program itself needs
// (sp, gp, tp) are neither read nor written, so both simulators run exactly the same values.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common.h"

enum {
  kBlockInstructions = 48,
  kScratchBytes = 2048,  // below the state's base: x31 - 2048 .. x31 - 1
  kSlotF = 32,           // state slots (8 bytes each from x31): x0..x31, f0..f31, fcsr, return
  kSlotFcsr = 64,
  kSlotReturn = 65,
};

// x31 points at area + 512 words: the scratch area is area[256..511], the state area[512..].
static uint64_t area[1024] __attribute__((aligned(64)));
static uint64_t* const state = area + 512;
static uint8_t* const scratch = (uint8_t*)(area + 256);

// Enters a block: saves the callee-saved registers, loads x1 and x5..x29 and every FP register
// and fcsr from the state, and jumps to the code (whose first instruction sets x30); the code's
// epilogue stores them back and returns through the state's return slot to label 1.
void enter_block(uint64_t* base, const void* code);
__asm__(
    ".text\n"
    ".globl enter_block\n"
    "enter_block:\n"
    "  addi sp, sp, -112\n"
    "  sd ra, 0(sp)\n  sd s0, 8(sp)\n  sd s1, 16(sp)\n  sd s2, 24(sp)\n  sd s3, 32(sp)\n"
    "  sd s4, 40(sp)\n  sd s5, 48(sp)\n  sd s6, 56(sp)\n  sd s7, 64(sp)\n  sd s8, 72(sp)\n"
    "  sd s9, 80(sp)\n  sd s10, 88(sp)\n  sd s11, 96(sp)\n"
    "  mv x31, a0\n"
    "  mv x30, a1\n"
    "  lla t0, 1f\n"
    "  sd t0, 520(x31)\n"
    "  ld t0, 512(x31)\n"
    "  fscsr t0\n"
    "  .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,"
    "30,31\n"
    "  fld f\\n, 256+8*\\n(x31)\n"
    "  .endr\n"
    "  ld x1, 8(x31)\n"
    "  .irp n, 5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29\n"
    "  ld x\\n, 8*\\n(x31)\n"
    "  .endr\n"
    "  jr x30\n"
    "1:\n"
    "  ld ra, 0(sp)\n  ld s0, 8(sp)\n  ld s1, 16(sp)\n  ld s2, 24(sp)\n  ld s3, 32(sp)\n"
    "  ld s4, 40(sp)\n  ld s5, 48(sp)\n  ld s6, 56(sp)\n  ld s7, 64(sp)\n  ld s8, 72(sp)\n"
    "  ld s9, 80(sp)\n  ld s10, 88(sp)\n  ld s11, 96(sp)\n"
    "  addi sp, sp, 112\n"
    "  ret\n");

static Rng rng;
static uint8_t* code;  // the executable buffer
static size_t code_used;

static unsigned pick(unsigned n) {
  return (unsigned)rng_below(&rng, n);
}

static void emit32(uint32_t w) {
  memcpy(code + code_used, &w, 4);
  code_used += 4;
}
static void emit16(uint16_t h) {
  memcpy(code + code_used, &h, 2);
  code_used += 2;
}

static uint32_t r_type(unsigned f7, unsigned rs2, unsigned rs1, unsigned f3, unsigned rd,
                       unsigned op) {
  return (f7 << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | op;
}
static uint32_t i_type(int imm, unsigned rs1, unsigned f3, unsigned rd, unsigned op) {
  return ((uint32_t)(imm & 0xfff) << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | op;
}
static uint32_t s_type(int imm, unsigned rs2, unsigned rs1, unsigned f3, unsigned op) {
  const uint32_t u = (uint32_t)imm & 0xfff;
  return ((u >> 5) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | ((u & 31) << 7) | op;
}

// Integer registers the code may write: not x2-x4 (the program's), x30 or x31 (the bases).
static unsigned dest(void) {
  static const unsigned regs[] = {0,  1,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                                  17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29};
  return regs[pick(sizeof regs / sizeof regs[0])];
}
// Integer registers the code may read: those, and x30/x31 (the same addresses everywhere).
static unsigned source(void) {
  const unsigned r = pick(10) == 0 ? 30 + pick(2) : dest();
  return r;
}
static unsigned freg(void) {
  return pick(32);
}
// A rounding mode: the five static ones or dynamic (fcsr's frm is always valid here).
static unsigned rounding(void) {
  static const unsigned rms[] = {0, 1, 2, 3, 4, 7, 7, 7};
  return rms[pick(8)];
}
// A scratch offset from x31 aligned to `size`.
static int scratch_offset(unsigned size) {
  return -(int)(size + size * pick(kScratchBytes / size - 1));
}

static void emit_integer(void) {
  static const unsigned op_f7_f3[][2] = {{0, 0}, {0x20, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4},
                                         {0, 5}, {0x20, 5}, {0, 6}, {0, 7}, {1, 0}, {1, 1},
                                         {1, 2}, {1, 3},    {1, 4}, {1, 5}, {1, 6}, {1, 7}};
  static const unsigned op32_f7_f3[][2] = {{0, 0}, {0x20, 0}, {0, 1}, {0, 5}, {0x20, 5},
                                           {1, 0}, {1, 4},    {1, 5}, {1, 6}, {1, 7}};
  switch (pick(6)) {
    case 0: {
      const unsigned* e = op_f7_f3[pick(18)];
      emit32(r_type(e[0], source(), source(), e[1], dest(), 0x33));
      break;
    }
    case 1: {
      const unsigned* e = op32_f7_f3[pick(10)];
      emit32(r_type(e[0], source(), source(), e[1], dest(), 0x3b));
      break;
    }
    case 2: {  // OP-IMM
      static const unsigned f3s[] = {0, 2, 3, 4, 6, 7, 1, 5};
      const unsigned f3 = f3s[pick(8)];
      int imm = (int)pick(4096) - 2048;
      if (f3 == 1) imm = (int)pick(64);
      if (f3 == 5) imm = (int)pick(64) | (pick(2) ? 0x400 : 0);
      emit32(i_type(imm, source(), f3, dest(), 0x13));
      break;
    }
    case 3: {  // OP-IMM-32
      static const unsigned f3s[] = {0, 1, 5};
      const unsigned f3 = f3s[pick(3)];
      int imm = (int)pick(4096) - 2048;
      if (f3 == 1) imm = (int)pick(32);
      if (f3 == 5) imm = (int)pick(32) | (pick(2) ? 0x400 : 0);
      emit32(i_type(imm, source(), f3, dest(), 0x1b));
      break;
    }
    case 4: emit32((pick(1u << 20) << 12) | (dest() << 7) | 0x37); break;  // lui
    default: {  // compressed: c.addi, c.li, c.addiw, c.slli, c.mv, c.add, and the x8-x15 forms
      const unsigned rd = dest();
      const unsigned imm = pick(64);
      switch (pick(6)) {
        case 0:  // c.addi
          emit16((uint16_t)((0u << 13) | ((imm >> 5) << 12) | (rd << 7) | ((imm & 31) << 2) | 1));
          break;
        case 1:  // c.li
          emit16((uint16_t)((2u << 13) | ((imm >> 5) << 12) | (rd << 7) | ((imm & 31) << 2) | 1));
          break;
        case 2:  // c.addiw (rd != 0)
          emit16((uint16_t)((1u << 13) | ((imm >> 5) << 12) | ((rd ? rd : 5) << 7) |
                            ((imm & 31) << 2) | 1));
          break;
        case 3:  // c.slli
          emit16((uint16_t)((0u << 13) | ((imm >> 5) << 12) | (rd << 7) | ((imm & 31) << 2) | 2));
          break;
        case 4: {  // c.mv / c.add (rs2 != 0)
          unsigned rs2 = dest();
          if (rs2 == 0) rs2 = 5;
          emit16((uint16_t)((4u << 13) | (pick(2) << 12) | (rd << 7) | (rs2 << 2) | 2));
          break;
        }
        default: {  // c.srli, c.srai, c.andi, c.sub, c.xor, c.or, c.and, c.subw, c.addw
          const unsigned rdp = pick(8), rs2p = pick(8);
          const unsigned form = pick(4);
          if (form < 3) {
            emit16((uint16_t)((4u << 13) | ((imm >> 5) << 12) | (form << 10) | (rdp << 7) |
                              ((imm & 31) << 2) | 1));
          } else {
            const unsigned w = pick(2), f2 = w ? pick(2) : pick(4);
            emit16((uint16_t)((4u << 13) | (w << 12) | (3u << 10) | (rdp << 7) | (f2 << 5) |
                              (rs2p << 2) | 1));
          }
          break;
        }
      }
      break;
    }
  }
}

static unsigned lr_f3 = 3;  // the size (funct3) of the latest LR generated

static void emit_memory(void) {
  switch (pick(5)) {
    case 0: {  // integer loads: lb lh lw ld lbu lhu lwu
      const unsigned f3 = pick(7);
      const unsigned size = 1u << (f3 & 3);
      emit32(i_type(scratch_offset(size), 31, f3, dest(), 0x03));
      break;
    }
    case 1: {  // integer stores
      const unsigned f3 = pick(4);
      emit32(s_type(scratch_offset(1u << f3), source(), 31, f3, 0x23));
      break;
    }
    case 2: {  // flw / fld
      const unsigned f3 = 2 + pick(2);
      emit32(i_type(scratch_offset(1u << f3), 31, f3, freg(), 0x07));
      break;
    }
    case 3: {  // fsw / fsd
      const unsigned f3 = 2 + pick(2);
      emit32(s_type(scratch_offset(1u << f3), freg(), 31, f3, 0x27));
      break;
    }
    default: {  // AMOs, LR, SC on x30 (8-byte aligned, inside the scratch area)
      static const unsigned funct5[] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x08,
                                        0x0c, 0x10, 0x14, 0x18, 0x1c};
      const unsigned f5 = funct5[pick(11)];
      const unsigned rs2 = f5 == 0x02 ? 0 : source();
      // An SC has the size of the LR before it: after an LR of the other size the outcome is
      // the implementation's choice (hpmsim fails it; qemu 7.2 stores and reports failure).
      unsigned f3 = 2 + pick(2);
      if (f5 == 0x02) lr_f3 = f3;
      if (f5 == 0x03) f3 = lr_f3;
      emit32(r_type((f5 << 2) | pick(4), rs2, 30, f3, dest(), 0x2f));
      break;
    }
  }
}

static void emit_fp(void) {
  const unsigned fmt = pick(2);  // 0: single, 1: double
  switch (pick(10)) {
    case 0:
    case 1: {  // fadd fsub fmul fdiv
      emit32(r_type((pick(4) << 2) | fmt, freg(), freg(), rounding(), freg(), 0x53));
      break;
    }
    case 2:  // fsqrt
      emit32(r_type((0x0b << 2) | fmt, 0, freg(), rounding(), freg(), 0x53));
      break;
    case 3:  // fsgnj, fsgnjn, fsgnjx; fmin, fmax
      if (pick(2)) {
        emit32(r_type((0x04 << 2) | fmt, freg(), freg(), pick(3), freg(), 0x53));
      } else {
        emit32(r_type((0x05 << 2) | fmt, freg(), freg(), pick(2), freg(), 0x53));
      }
      break;
    case 4:  // fmadd fmsub fnmsub fnmadd
      emit32((freg() << 27) | (fmt << 25) | (freg() << 20) | (freg() << 15) | (rounding() << 12) |
             (freg() << 7) | (0x43 + 4 * pick(4)));
      break;
    case 5:  // feq flt fle; fclass
      if (pick(3)) {
        emit32(r_type((0x14 << 2) | fmt, freg(), freg(), pick(3), dest(), 0x53));
      } else {
        emit32(r_type((0x1c << 2) | fmt, 0, freg(), 1, dest(), 0x53));
      }
      break;
    case 6:  // fcvt.{w,wu,l,lu}.{s,d}
      emit32(r_type((0x18 << 2) | fmt, pick(4), freg(), rounding(), dest(), 0x53));
      break;
    case 7:  // fcvt.{s,d}.{w,wu,l,lu}
      emit32(r_type((0x1a << 2) | fmt, pick(4), source(), rounding(), freg(), 0x53));
      break;
    case 8:  // fcvt.s.d, fcvt.d.s; fmv.x.{w,d}, fmv.{w,d}.x
      switch (pick(3)) {
        case 0: emit32(r_type(0x20 | fmt, !fmt, freg(), rounding(), freg(), 0x53)); break;
        case 1: emit32(r_type((0x1c << 2) | fmt, 0, freg(), 0, dest(), 0x53)); break;
        default: emit32(r_type((0x1e << 2) | fmt, 0, source(), 0, freg(), 0x53)); break;
      }
      break;
    default: {  // fcsr: read any of fflags/frm/fcsr, set and clear flags, set frm to 0..4
      const unsigned csr = 1 + pick(3);
      switch (pick(4)) {
        case 0: emit32(i_type((int)csr, 0, 2, dest(), 0x73)); break;             // csrrs rd, 0
        case 1: emit32(i_type(1, pick(32), 6 + pick(2), dest(), 0x73)); break;   // fflags si/ci
        case 2: emit32(i_type(2, pick(5), 5, dest(), 0x73)); break;              // frm = 0..4
        default: emit32(i_type(3, pick(32), 6 + pick(2), dest(), 0x73)); break;  // fcsr si/ci
      }
      break;
    }
  }
}

// Forward control flow: conditional branches (taken or not on random operands) and jumps
// without a link (a link register would hold an address, which differs between simulators),
// each to one of the next few instructions or the epilogue, so every block ends. The offset is
// patched in once the target's position is known.
typedef struct {
  size_t at;       // the branch's offset in the code
  int target;      // index of the target instruction (kBlockInstructions: the epilogue)
  unsigned shape;  // 0: B-type, 1: jal x0, 2: c.beqz/c.bnez, 3: c.j
} Branch;
static Branch branches[kBlockInstructions];
static int branch_count;
static size_t starts[kBlockInstructions + 1];  // each instruction's offset, then the epilogue's

static void emit_branch(int index) {
  Branch* br = &branches[branch_count++];
  br->at = code_used;
  br->target = index + 1 + (int)pick(6);
  if (br->target > kBlockInstructions) br->target = kBlockInstructions;
  br->shape = pick(4);
  switch (br->shape) {
    case 0: {
      static const unsigned f3s[] = {0, 1, 4, 5, 6, 7};  // beq bne blt bge bltu bgeu
      emit32(r_type(0, source(), source(), f3s[pick(6)], 0, 0x63));
      break;
    }
    case 1: emit32(0x6f); break;                                                     // jal x0
    case 2: emit16((uint16_t)(((6u + pick(2)) << 13) | (pick(8) << 7) | 1)); break;  // c.beqz/bnez
    default: emit16((uint16_t)((5u << 13) | 1)); break;                              // c.j
  }
}

static void patch_branches(void) {
  for (int i = 0; i < branch_count; ++i) {
    const Branch* br = &branches[i];
    const uint32_t off = (uint32_t)(starts[br->target] - br->at);  // forward, even, < 256
    if (br->shape == 0) {
      uint32_t w;
      memcpy(&w, code + br->at, 4);
      w |= ((off >> 12) & 1) << 31 | ((off >> 5) & 63) << 25 | ((off >> 1) & 15) << 8 |
           ((off >> 11) & 1) << 7;
      memcpy(code + br->at, &w, 4);
    } else if (br->shape == 1) {
      uint32_t w;
      memcpy(&w, code + br->at, 4);
      w |= ((off >> 20) & 1) << 31 | ((off >> 1) & 1023) << 21 | ((off >> 11) & 1) << 20 |
           ((off >> 12) & 255) << 12;
      memcpy(code + br->at, &w, 4);
    } else if (br->shape == 2) {
      uint16_t h;
      memcpy(&h, code + br->at, 2);
      h |= (uint16_t)(((off >> 8) & 1) << 12 | ((off >> 3) & 3) << 10 | ((off >> 6) & 3) << 5 |
                      ((off >> 1) & 3) << 3 | ((off >> 5) & 1) << 2);
      memcpy(code + br->at, &h, 2);
    } else {
      uint16_t h;
      memcpy(&h, code + br->at, 2);
      h |= (uint16_t)(((off >> 11) & 1) << 12 | ((off >> 4) & 1) << 11 | ((off >> 8) & 3) << 9 |
                      ((off >> 10) & 1) << 8 | ((off >> 6) & 1) << 7 | ((off >> 7) & 1) << 6 |
                      ((off >> 1) & 7) << 3 | ((off >> 5) & 1) << 2);
      memcpy(code + br->at, &h, 2);
    }
  }
}

// An FP register value: special values of both precisions (NaN-boxed singles, unboxed ones),
// numbers near the limits of the integer conversions, random bits.
static uint64_t fp_value(void) {
  static const uint64_t specials[] = {
      0x0000000000000000ull, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
      0x7ff8000000000000ull, 0x7ff4000000000000ull, 0x0000000000000001ull, 0x000fffffffffffffull,
      0x3ff0000000000000ull, 0x43e0000000000000ull, 0xc3e0000000000000ull, 0x41dfffffffc00000ull,
      0x41f0000000000000ull, 0x7fefffffffffffffull, 0xffffffff00000000ull, 0xffffffff80000000ull,
      0xffffffff7f800000ull, 0xffffffffff800000ull, 0xffffffff7fc00000ull, 0xffffffff7fa00000ull,
      0xffffffff00000001ull, 0xffffffff3f800000ull, 0xffffffff4f000000ull, 0xffffffffcf000000ull,
      0xffffffff5f000000ull, 0x000000003f800000ull, 0x3fe0000000000000ull, 0xffffffff3f000000ull};
  switch (pick(4)) {
    case 0: return specials[pick(sizeof specials / sizeof specials[0])];
    case 1: return 0xffffffff00000000ull | (uint32_t)rng_next(&rng);  // a random boxed single
    case 2: {  // a double of moderate exponent, so that operations give normal results
      const uint64_t exp = 1023 - 40 + pick(80);
      return (rng_next(&rng) & 0x800fffffffffffffull) | (exp << 52);
    }
    default: return rng_next(&rng);
  }
}

static uint64_t int_value(void) {
  static const uint64_t specials[] = {0,
                                      1,
                                      ~0ull,
                                      0x8000000000000000ull,
                                      0x7fffffffffffffffull,
                                      0x80000000ull,
                                      0xffffffff80000000ull,
                                      0x7fffffffull,
                                      0xffffffffull,
                                      2,
                                      (uint64_t)-2};
  return pick(3) == 0 ? specials[pick(sizeof specials / sizeof specials[0])] : rng_next(&rng);
}

static uint64_t digest(const void* data, size_t n) {
  return fnv1a(data, n);
}

int main(int argc, char** argv) {
  const uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
  const long blocks = argc > 2 ? strtol(argv[2], NULL, 0) : 300;
  const long verbose = argc > 3 ? strtol(argv[3], NULL, 0) : -1;
  rng.state = seed * 0x9E3779B97F4A7C15ull + 1;
  code = mmap(NULL, 65536, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(code != MAP_FAILED);
  uint64_t all = 0;
  for (long b = 0; b < blocks; ++b) {
    // The code: set x30, the random instructions, then store every register and return.
    code_used = 0;
    emit32(i_type(-1024, 31, 0, 30, 0x13));  // addi x30, x31, -1024
    branch_count = 0;
    for (int i = 0; i < kBlockInstructions; ++i) {
      starts[i] = code_used;
      const unsigned kind = pick(11);
      if (kind < 4) {
        emit_integer();
      } else if (kind < 6) {
        emit_memory();
      } else if (kind < 10) {
        emit_fp();
      } else {
        emit_branch(i);
      }
    }
    starts[kBlockInstructions] = code_used;  // the epilogue: a branch may skip to it
    patch_branches();
    emit32(s_type(8, 1, 31, 3, 0x23));  // sd x1, 8(x31)
    for (unsigned r = 5; r <= 30; ++r) emit32(s_type((int)(8 * r), r, 31, 3, 0x23));
    for (unsigned f = 0; f < 32; ++f) emit32(s_type((int)(8 * (kSlotF + f)), f, 31, 3, 0x27));
    emit32(i_type(3, 0, 2, 30, 0x73));                // csrr x30, fcsr
    emit32(s_type(8 * kSlotFcsr, 30, 31, 3, 0x23));   // sd x30, fcsr slot
    emit32(i_type(8 * kSlotReturn, 31, 3, 1, 0x03));  // ld x1, return slot
    emit32(i_type(0, 1, 0, 0, 0x67));                 // jalr x0, 0(x1)
    __asm__ volatile("fence.i" ::: "memory");

    // Random registers, fcsr (valid frm) and scratch memory.
    for (unsigned r = 0; r < 32; ++r) state[r] = int_value();
    for (unsigned f = 0; f < 32; ++f) state[kSlotF + f] = fp_value();
    state[kSlotFcsr] = pick(5) << 5 | pick(32);
    for (size_t i = 0; i < kScratchBytes; i += 8) {
      const uint64_t v = pick(2) ? fp_value() : int_value();
      memcpy(scratch + i, &v, 8);
    }
    if (b == verbose) {
      for (unsigned r = 0; r < 32; ++r) printf("in x%u %016llx\n", r, (unsigned long long)state[r]);
      printf("in mem x30 %016llx\n", (unsigned long long)area[512 - 128]);
      printf("block %ld code:", b);
      for (size_t i = 0; i < code_used; i += 2) {
        uint16_t h;
        memcpy(&h, code + i, 2);
        printf(" %04x", h);
      }
      printf("\n");
    }
    enter_block(state, code);
    // x0, x2-x4 and x31 were not written back: their slots keep the random inputs.
    const uint64_t dx = digest(state, 8 * 32);
    const uint64_t df = digest(state + kSlotF, 8 * 32);
    const uint64_t dm = digest(scratch, kScratchBytes);
    printf("block %ld: x %016llx f %016llx fcsr %02llx mem %016llx\n", b, (unsigned long long)dx,
           (unsigned long long)df, (unsigned long long)state[kSlotFcsr], (unsigned long long)dm);
    if (b == verbose) {
      for (unsigned r = 0; r < 32; ++r) printf("x%u %016llx\n", r, (unsigned long long)state[r]);
      for (unsigned f = 0; f < 32; ++f) {
        printf("f%u %016llx\n", f, (unsigned long long)state[kSlotF + f]);
      }
      for (size_t i = 0; i < kScratchBytes; i += 8) {
        uint64_t v;
        memcpy(&v, scratch + i, 8);
        printf("mem x31-%zu %016llx\n", kScratchBytes - i, (unsigned long long)v);
      }
    }
    all ^= dx ^ (df * 3) ^ (dm * 5) ^ state[kSlotFcsr];
  }
  printf("isa_random seed %llu: %ld blocks of %d instructions, digest %016llx\n",
         (unsigned long long)seed, blocks, kBlockInstructions, (unsigned long long)all);
  return 0;
}
