// RV64I and RV64M register and immediate instructions at integer edge values: every
// register-register operation (including the W forms, whose 32-bit results are sign-extended,
// and shifts by amounts whose upper bits must be ignored), mul/mulh/mulhsu/mulhu signs,
// div/rem by zero and the INT_MIN / -1 overflow in 64 and 32 bits, every immediate operation
// with immediates at the ends of their ranges, lui/auipc sign extension, all six branches, jal
// and jalr (link values and the cleared low bit of the target), writes to x0, and the fences.
// Each result is printed in hex, one line per operand pair.
#include "isa.h"

#define RR(op)                                                      \
  static uint64_t rr_##op(uint64_t a, uint64_t b) {                 \
    uint64_t r;                                                     \
    __asm__ volatile(#op " %0, %1, %2" : "=r"(r) : "r"(a), "r"(b)); \
    return r;                                                       \
  }

RR(add)
RR(sub)
RR(sll)
RR(srl)
RR(sra)
RR(slt)
RR(sltu)
RR(xor)
RR(or)
RR(and)
RR(addw)
RR(subw)
RR(sllw)
RR(srlw)
RR(sraw)
RR(mul)
RR(mulh)
RR(mulhsu)
RR(mulhu)
RR(mulw)
RR(div)
RR(divu)
RR(rem)
RR(remu)
RR(divw)
RR(divuw)
RR(remw)
RR(remuw)

typedef uint64_t (*RrFn)(uint64_t, uint64_t);
static const struct {
  const char* name;
  RrFn fn;
} kRr[] = {
    {"add", rr_add},   {"sub", rr_sub},       {"sll", rr_sll},     {"srl", rr_srl},
    {"sra", rr_sra},   {"slt", rr_slt},       {"sltu", rr_sltu},   {"xor", rr_xor},
    {"or", rr_or},     {"and", rr_and},       {"addw", rr_addw},   {"subw", rr_subw},
    {"sllw", rr_sllw}, {"srlw", rr_srlw},     {"sraw", rr_sraw},   {"mul", rr_mul},
    {"mulh", rr_mulh}, {"mulhsu", rr_mulhsu}, {"mulhu", rr_mulhu}, {"mulw", rr_mulw},
    {"div", rr_div},   {"divu", rr_divu},     {"rem", rr_rem},     {"remu", rr_remu},
    {"divw", rr_divw}, {"divuw", rr_divuw},   {"remw", rr_remw},   {"remuw", rr_remuw},
};

// Immediate forms: one function per (operation, immediate), immediates at the range ends.
#define RI(op, tag, imm)                                       \
  static uint64_t ri_##op##_##tag(uint64_t a) {                \
    uint64_t r;                                                \
    __asm__ volatile(#op " %0, %1, " #imm : "=r"(r) : "r"(a)); \
    return r;                                                  \
  }
#define RI_ARITH(op)   \
  RI(op, m2048, -2048) \
  RI(op, m1, -1) RI(op, 0, 0) RI(op, 1, 1) RI(op, 2047, 2047) RI(op, x555, 0x555)
#define RI_SHIFT64(op) RI(op, 0, 0) RI(op, 1, 1) RI(op, 31, 31) RI(op, 32, 32) RI(op, 63, 63)
#define RI_SHIFT32(op) RI(op, 0, 0) RI(op, 1, 1) RI(op, 16, 16) RI(op, 31, 31)

RI_ARITH(addi)
RI_ARITH(slti)
RI_ARITH(sltiu)
RI_ARITH(xori)
RI_ARITH(ori)
RI_ARITH(andi)
RI_ARITH(addiw)
RI_SHIFT64(slli)
RI_SHIFT64(srli)
RI_SHIFT64(srai)
RI_SHIFT32(slliw)
RI_SHIFT32(srliw)
RI_SHIFT32(sraiw)

typedef uint64_t (*RiFn)(uint64_t);
#define E_ARITH(op)                                                                    \
  {#op " -2048", ri_##op##_m2048}, {#op " -1", ri_##op##_m1}, {#op " 0", ri_##op##_0}, \
      {#op " 1", ri_##op##_1}, {#op " 2047", ri_##op##_2047}, {                        \
#op " 0x555", ri_##op##_x555                                                       \
  }
#define E_SHIFT64(op)                                                          \
  {#op " 0", ri_##op##_0}, {#op " 1", ri_##op##_1}, {#op " 31", ri_##op##_31}, \
      {#op " 32", ri_##op##_32}, {                                             \
#op " 63", ri_##op##_63                                                    \
  }
#define E_SHIFT32(op)                                                            \
  {#op " 0", ri_##op##_0}, {#op " 1", ri_##op##_1}, {#op " 16", ri_##op##_16}, { \
#op " 31", ri_##op##_31                                                      \
  }

static const struct {
  const char* name;
  RiFn fn;
} kRi[] = {E_ARITH(addi),    E_ARITH(slti),    E_ARITH(sltiu),  E_ARITH(xori),   E_ARITH(ori),
           E_ARITH(andi),    E_ARITH(addiw),   E_SHIFT64(slli), E_SHIFT64(srli), E_SHIFT64(srai),
           E_SHIFT32(slliw), E_SHIFT32(srliw), E_SHIFT32(sraiw)};

// Branches: 1 if taken.
#define BR(op)                                      \
  static uint64_t br_##op(uint64_t a, uint64_t b) { \
    uint64_t taken;                                 \
    __asm__ volatile("li %0, 1\n" #op               \
                     " %1, %2, 1f\n"                \
                     "li %0, 0\n"                   \
                     "1:\n"                         \
                     : "=&r"(taken)                 \
                     : "r"(a), "r"(b));             \
    return taken;                                   \
  }
BR(beq)
BR(bne)
BR(blt)
BR(bge)
BR(bltu)
BR(bgeu)

static void test_lui_auipc(void) {
  uint64_t r[8];
  __asm__ volatile("lui %0, 0\n lui %1, 1\n lui %2, 0x7ffff\n lui %3, 0x80000\n lui %4, 0xfffff"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]));
  out_str("lui:");
  for (int i = 0; i < 5; ++i) {
    out_char(' ');
    out_hex64(r[i]);
  }
  out_nl();
  // auipc results relative to the instruction's own address (from a local label).
  uint64_t pc, v1, v2, v3;
  __asm__ volatile(
      "1: auipc %1, 0\n"
      "   auipc %2, 0x80000\n"  // sign-extended: pc + 4 - 2^31
      "   auipc %3, 0x7ffff\n"
      "   lla %0, 1b\n"
      : "=r"(pc), "=&r"(v1), "=&r"(v2), "=&r"(v3));
  out_str("auipc offsets: ");
  out_hex64(v1 - pc);
  out_char(' ');
  out_hex64(v2 - (pc + 4));
  out_char(' ');
  out_hex64(v3 - (pc + 8));
  out_nl();
}

static void test_jumps(void) {
  uint64_t link, target, after;
  // jal links the address of the next instruction.
  __asm__ volatile(
      ".option push\n.option norvc\n"
      "   jal %0, 1f\n"
      "2: nop\n"
      "1: lla %1, 2b\n"
      ".option pop\n"
      : "=&r"(link), "=&r"(target));
  out_str("jal link - next: ");
  out_hex64(link - target);
  out_nl();
  // jalr clears bit 0 of the computed target; the link is the next instruction.
  __asm__ volatile(
      ".option push\n.option norvc\n"
      "   lla t0, 1f\n"
      "   addi t0, t0, 1\n"  // odd target: jalr must clear bit 0
      "   jalr %0, 0(t0)\n"
      "2: li %2, 99\n"  // skipped
      "1: lla %1, 2b\n"
      "   li %2, 7\n"
      ".option pop\n"
      : "=&r"(link), "=&r"(target), "=&r"(after)
      :
      : "t0");
  out_str("jalr odd target: link - next: ");
  out_hex64(link - target);
  out_str(" landed: ");
  out_dec((int64_t)after);
  out_nl();
  // jalr with a negative offset and rd == rs1.
  __asm__ volatile(
      ".option push\n.option norvc\n"
      "   lla %0, 1f\n"
      "   addi %0, %0, 16\n"
      "   jalr %0, -16(%0)\n"
      "   li %1, 99\n"
      "1: li %1, 5\n"
      ".option pop\n"
      : "=&r"(link), "=&r"(after));
  out_str("jalr rd == rs1, negative offset landed: ");
  out_dec((int64_t)after);
  out_nl();
}

static void test_x0_and_fences(void) {
  uint64_t r;
  __asm__ volatile(
      "li t0, 5\n"
      "add x0, t0, t0\n"
      "addi x0, x0, 123\n"  // a HINT encoding: no effect
      "lui x0, 0x12345\n"
      "mv %0, x0\n"
      : "=r"(r)
      :
      : "t0");
  out_str("x0 after writes: ");
  out_hex64(r);
  out_nl();
  __asm__ volatile(
      "fence\n"
      "fence rw, rw\n"
      "fence r, r\n"
      "fence w, w\n"
      "fence i, o\n"
      "fence.tso\n"
      "fence.i\n"
      ".insn i 0x0f, 0, x0, x0, 0x010\n"  // pause (fence w, 0): a HINT
      ::
          : "memory");
  out_str("fences executed\n");
}

int main(void) {
  out_str("columns: a b:");
  for (size_t k = 0; k < sizeof kRr / sizeof kRr[0]; ++k) {
    out_char(' ');
    out_str(kRr[k].name);
  }
  out_str(" branches: taken bits beq=1 bne=2 blt=4 bge=8 bltu=16 bgeu=32\n");
  for (size_t i = 0; i < N_INT_EDGES; ++i) {
    for (size_t j = 0; j < N_INT_EDGES; ++j) {
      uint64_t a = kIntEdges[i], b = kIntEdges[j];
      out_hex64(a);
      out_char(' ');
      out_hex64(b);
      out_char(':');
      for (size_t k = 0; k < sizeof kRr / sizeof kRr[0]; ++k) {
        out_char(' ');
        out_hex64(kRr[k].fn(a, b));
      }
      out_str(" branches:");
      out_dec((int64_t)(br_beq(a, b) | br_bne(a, b) << 1 | br_blt(a, b) << 2 | br_bge(a, b) << 3 |
                        br_bltu(a, b) << 4 | br_bgeu(a, b) << 5));
      out_nl();
    }
  }
  for (size_t k = 0; k < sizeof kRi / sizeof kRi[0]; ++k) {
    out_str(kRi[k].name);
    out_char(':');
    for (size_t i = 0; i < N_INT_EDGES; ++i) {
      out_char(' ');
      out_hex64(kRi[k].fn(kIntEdges[i]));
    }
    out_nl();
  }
  test_lui_auipc();
  test_jumps();
  test_x0_and_fences();
  out_flush();
  return 0;
}
