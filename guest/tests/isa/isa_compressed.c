// The C extension (RV64C): every compressed instruction form, written with explicit c.
// mnemonics so the assembler cannot expand them, at the ends of their immediate ranges:
// quadrant 0 (c.addi4spn, c.fld, c.lw, c.ld, c.fsd, c.sw, c.sd), quadrant 1 (c.nop, c.addi,
// c.addiw, c.li, c.addi16sp, c.lui, c.srli, c.srai, c.andi, c.sub, c.xor, c.or, c.and, c.subw,
// c.addw, c.j, c.beqz, c.bnez) and quadrant 2 (c.slli, c.fldsp, c.lwsp, c.ldsp, c.jr, c.mv,
// c.jalr, c.add, c.fsdsp, c.swsp, c.sdsp), plus a few HINT encodings that must do nothing.
// c.ebreak is in the ebreak program. The links of c.jalr are pc + 2.
#include "isa.h"

// Register-register forms on a0/a1 (both in the x8-x15 range the 3-bit fields can name).
#define C_RR(op)                                             \
  static uint64_t c_##op(uint64_t a, uint64_t b) {           \
    register uint64_t x __asm__("a0") = a;                   \
    register uint64_t y __asm__("a1") = b;                   \
    __asm__ volatile("c." #op " a0, a1" : "+r"(x) : "r"(y)); \
    return x;                                                \
  }
C_RR(sub)
C_RR(xor)
C_RR(or)
C_RR(and)
C_RR(subw)
C_RR(addw)
C_RR(add)
C_RR(mv)

typedef uint64_t (*RrFn)(uint64_t, uint64_t);
static const struct {
  const char* name;
  RrFn fn;
} kRr[] = {{"c.sub", c_sub},   {"c.xor", c_xor},   {"c.or", c_or},   {"c.and", c_and},
           {"c.subw", c_subw}, {"c.addw", c_addw}, {"c.add", c_add}, {"c.mv", c_mv}};

// Register-immediate forms on a0.
#define C_RI(op, tag, imm)                             \
  static uint64_t c_##op##_##tag(uint64_t a) {         \
    register uint64_t x __asm__("a0") = a;             \
    __asm__ volatile("c." #op " a0, " #imm : "+r"(x)); \
    return x;                                          \
  }
C_RI(addi, m32, -32)
C_RI(addi, m1, -1)
C_RI(addi, 1, 1)
C_RI(addi, 31, 31)
C_RI(addiw, m32, -32)
C_RI(addiw, 0, 0)
C_RI(addiw, 1, 1)
C_RI(addiw, 31, 31)
C_RI(andi, m32, -32)
C_RI(andi, m1, -1)
C_RI(andi, 0, 0)
C_RI(andi, 31, 31)
C_RI(slli, 1, 1)
C_RI(slli, 31, 31)
C_RI(slli, 32, 32)
C_RI(slli, 63, 63)
C_RI(srli, 1, 1)
C_RI(srli, 31, 31)
C_RI(srli, 32, 32)
C_RI(srli, 63, 63)
C_RI(srai, 1, 1)
C_RI(srai, 31, 31)
C_RI(srai, 32, 32)
C_RI(srai, 63, 63)

typedef uint64_t (*RiFn)(uint64_t);
static const struct {
  const char* name;
  RiFn fn;
} kRi[] = {
    {"c.addi -32", c_addi_m32}, {"c.addi -1", c_addi_m1},     {"c.addi 1", c_addi_1},
    {"c.addi 31", c_addi_31},   {"c.addiw -32", c_addiw_m32}, {"c.addiw 0", c_addiw_0},
    {"c.addiw 1", c_addiw_1},   {"c.addiw 31", c_addiw_31},   {"c.andi -32", c_andi_m32},
    {"c.andi -1", c_andi_m1},   {"c.andi 0", c_andi_0},       {"c.andi 31", c_andi_31},
    {"c.slli 1", c_slli_1},     {"c.slli 31", c_slli_31},     {"c.slli 32", c_slli_32},
    {"c.slli 63", c_slli_63},   {"c.srli 1", c_srli_1},       {"c.srli 31", c_srli_31},
    {"c.srli 32", c_srli_32},   {"c.srli 63", c_srli_63},     {"c.srai 1", c_srai_1},
    {"c.srai 31", c_srai_31},   {"c.srai 32", c_srai_32},     {"c.srai 63", c_srai_63},
};

static void print_kv(const char* name, uint64_t v) {
  out_str(name);
  out_str(": ");
  out_hex64(v);
  out_nl();
}

// Local register variables are only guaranteed to be in their register at the asm statement
// that uses them (a call may clobber the register), so each block below copies its results into
// ordinary variables before printing anything.
static void test_constants(void) {
  uint64_t v[8];
  {
    register uint64_t a __asm__("a0");
    register uint64_t b __asm__("a1");
    register uint64_t c __asm__("a2");
    register uint64_t d __asm__("a3");
    __asm__ volatile("c.li a0, -32\n c.li a1, -1\n c.li a2, 0\n c.li a3, 31"
                     : "=r"(a), "=r"(b), "=r"(c), "=r"(d));
    v[0] = a, v[1] = b, v[2] = c, v[3] = d;
  }
  {
    register uint64_t a __asm__("a0");
    register uint64_t b __asm__("a1");
    register uint64_t c __asm__("a2");
    register uint64_t d __asm__("a3");
    __asm__ volatile("c.lui a0, 1\n c.lui a1, 31\n c.lui a2, 0xfffe0\n c.lui a3, 0xfffff"
                     : "=r"(a), "=r"(b), "=r"(c), "=r"(d));
    v[4] = a, v[5] = b, v[6] = c, v[7] = d;
  }
  static const char* const names[8] = {"c.li -32", "c.li -1",  "c.li 0",        "c.li 31",
                                       "c.lui 1",  "c.lui 31", "c.lui 0xfffe0", "c.lui 0xfffff"};
  for (int i = 0; i < 8; ++i) print_kv(names[i], v[i]);
}

static void test_stack_pointer_forms(void) {
  uint64_t before, low, high, back;
  __asm__ volatile(
      "mv %0, sp\n"
      "c.addi16sp sp, -512\n"
      "mv %1, sp\n"
      "c.addi16sp sp, 496\n"
      "mv %2, sp\n"
      "c.addi16sp sp, 16\n"
      "mv %3, sp\n"
      : "=&r"(before), "=&r"(low), "=&r"(high), "=&r"(back));
  print_kv("c.addi16sp -512", low - before);
  print_kv("c.addi16sp +496", high - low);
  print_kv("c.addi16sp restores", back - before);
  uint64_t spn4, spn1020, sp;
  {
    register uint64_t r0 __asm__("a0");
    register uint64_t r1 __asm__("a1");
    __asm__ volatile("c.addi4spn a0, sp, 4\n c.addi4spn a1, sp, 1020\n mv %2, sp"
                     : "=r"(r0), "=r"(r1), "=r"(sp));
    spn4 = r0;
    spn1020 = r1;
  }
  print_kv("c.addi4spn 4", spn4 - sp);
  print_kv("c.addi4spn 1020", spn1020 - sp);

  // SP-relative stores then loads, in a private 512-byte frame at the ends of the offset
  // ranges (words: 0..252, doublewords: 0..504).
  uint64_t w0, w252, d0, d504, f496, fbits = 0x400921fb54442d18ULL;
  __asm__ volatile(
      "addi sp, sp, -512\n"
      "fmv.d.x fa0, %7\n"
      "c.sdsp %5, 0(sp)\n"
      "c.sdsp %6, 504(sp)\n"
      "c.swsp %6, 252(sp)\n"
      "c.fsdsp fa0, 496(sp)\n"
      "c.lwsp %0, 252(sp)\n"
      "c.lwsp %1, 0(sp)\n"
      "c.ldsp %2, 0(sp)\n"
      "c.ldsp %3, 504(sp)\n"
      "c.fldsp fa1, 496(sp)\n"
      "fmv.x.d %4, fa1\n"
      "addi sp, sp, 512\n"
      : "=&r"(w252), "=&r"(w0), "=&r"(d0), "=&r"(d504), "=&r"(f496)
      : "r"(0x8000000180000002ULL), "r"(0xfedcba9876543210ULL), "r"(fbits)
      : "fa0", "fa1", "memory");
  print_kv("c.lwsp 252", w252);
  print_kv("c.lwsp 0", w0);
  print_kv("c.ldsp 0", d0);
  print_kv("c.ldsp 504", d504);
  print_kv("c.fldsp 496", f496);
}

static void test_register_loads_stores(void) {
  static _Alignas(8) unsigned char buf[256];
  for (int i = 0; i < 256; ++i) buf[i] = (unsigned char)(0xf0 - i * 3);
  uint64_t v[6];
  {
    register unsigned char* base __asm__("a1") = buf;
    register uint64_t w0 __asm__("a2");
    register uint64_t w124 __asm__("a3");
    register uint64_t d0 __asm__("a4");
    register uint64_t d248 __asm__("a5");
    __asm__ volatile("c.lw a2, 0(a1)\n c.lw a3, 124(a1)\n c.ld a4, 0(a1)\n c.ld a5, 248(a1)"
                     : "=r"(w0), "=r"(w124), "=r"(d0), "=r"(d248)
                     : "r"(base)
                     : "memory");
    v[0] = w0, v[1] = w124, v[2] = d0, v[3] = d248;
  }
  {
    register unsigned char* base __asm__("a1") = buf;
    uint64_t f0, f248;
    __asm__ volatile("c.fld fa2, 0(a1)\n c.fld fa3, 248(a1)\n fmv.x.d %0, fa2\n fmv.x.d %1, fa3"
                     : "=r"(f0), "=r"(f248)
                     : "r"(base)
                     : "fa2", "fa3", "memory");
    v[4] = f0, v[5] = f248;
  }
  static const char* const names[6] = {"c.lw 0",   "c.lw 124", "c.ld 0",
                                       "c.ld 248", "c.fld 0",  "c.fld 248"};
  for (int i = 0; i < 6; ++i) print_kv(names[i], v[i]);
  {
    register unsigned char* base __asm__("a1") = buf;
    register uint64_t v1 __asm__("a2") = 0x1122334455667788ULL;
    register uint64_t v2 __asm__("a3") = 0x99aabbccddeeff00ULL;
    __asm__ volatile(
        "c.sw a2, 4(a1)\n"
        "c.sw a3, 124(a1)\n"
        "c.sd a3, 16(a1)\n"
        "c.sd a2, 248(a1)\n"
        "fmv.d.x fa2, a2\n"
        "c.fsd fa2, 32(a1)\n"
        :
        : "r"(base), "r"(v1), "r"(v2)
        : "fa2", "memory");
  }
  out_str("after c.sw/c.sd/c.fsd: ");
  for (int i = 0; i < 40; ++i) out_hexn(buf[i], 2);
  out_char(' ');
  for (int i = 120; i < 128; ++i) out_hexn(buf[i], 2);
  out_char(' ');
  for (int i = 248; i < 256; ++i) out_hexn(buf[i], 2);
  out_nl();
}

static uint64_t c_branches(uint64_t v) {
  register uint64_t x __asm__("a0") = v;
  uint64_t taken;
  __asm__ volatile(
      "li %0, 0\n"
      "c.beqz a0, 1f\n"
      "ori %0, %0, 2\n"
      "1: c.bnez a0, 2f\n"
      "ori %0, %0, 4\n"
      "2: c.j 3f\n"
      "ori %0, %0, 8\n"  // skipped by c.j
      "3:\n"
      : "=&r"(taken)
      : "r"(x));
  return taken;
}

static void test_jumps(void) {
  uint64_t link, label, landed;
  __asm__ volatile(
      "lla t0, 2f\n"
      "c.jalr t0\n"
      "1: li %2, 99\n"
      "2: mv %0, ra\n"
      "lla %1, 1b\n"
      "li %2, 5\n"
      : "=&r"(link), "=&r"(label), "=&r"(landed)
      :
      : "t0", "ra");
  print_kv("c.jalr link - next", link - label);
  print_kv("c.jalr landed", landed);
  __asm__ volatile(
      "lla t1, 1f\n"
      "c.jr t1\n"
      "li %0, 99\n"
      "1: li %0, 6\n"
      : "=&r"(landed)
      :
      : "t1");
  print_kv("c.jr landed", landed);
}

static void test_hints(void) {
  uint64_t a0_after, zero;
  {
    register uint64_t x __asm__("a0") = 0x1234;
    __asm__ volatile(
        "c.nop\n"
        ".half 0x0005\n"  // c.nop with a nonzero immediate: a HINT
        ".half 0x4015\n"  // c.li x0, 5: a HINT
        ".half 0x802a\n"  // c.mv x0, a0: a HINT
        ".half 0x902a\n"  // c.add x0, a0: a HINT
        "mv %1, x0\n"
        : "+r"(x), "=r"(zero));
    a0_after = x;
  }
  print_kv("hints leave a0", a0_after);
  print_kv("hints leave x0", zero);
}

int main(void) {
  for (size_t i = 0; i < N_INT_EDGES; ++i) {
    for (size_t j = 0; j < N_INT_EDGES; ++j) {
      out_hex64(kIntEdges[i]);
      out_char(' ');
      out_hex64(kIntEdges[j]);
      out_char(':');
      for (size_t k = 0; k < sizeof kRr / sizeof kRr[0]; ++k) {
        out_char(' ');
        out_hex64(kRr[k].fn(kIntEdges[i], kIntEdges[j]));
      }
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
  out_str("c.beqz/c.bnez/c.j:");
  for (size_t i = 0; i < N_INT_EDGES; ++i) {
    out_char(' ');
    out_dec((int64_t)c_branches(kIntEdges[i]));
  }
  out_nl();
  test_constants();
  test_stack_pointer_forms();
  test_register_loads_stores();
  test_jumps();
  test_hints();
  out_flush();
  return 0;
}
