// The F/D instructions without rounding: fmin/fmax (a NaN operand yields the other operand,
// two NaNs the canonical NaN, -0 < +0, NV only for signalling NaNs), feq/flt/fle (quiet
// comparisons raise NV only for signalling NaNs, the ordered ones for any NaN), fsgnj/fsgnjn/
// fsgnjx (payloads kept), fclass of every class, fmv.x.w (sign-extends bit 31) / fmv.w.x
// (NaN-boxes) / fmv.x.d / fmv.d.x; all on every pair of special values plus generated ones.
// Then NaN boxing: single-precision instructions reading a register that holds a value that
// is not a valid NaN-boxed single (upper 32 bits not all ones, e.g. a double) must see the
// canonical NaN, while fmv.x.w and fsw move the low 32 bits regardless; and the canonical NaN
// results of arithmetic (no payload propagation).
#include "isa_fp.h"

typedef FpResult (*Bin)(uint64_t, uint64_t);
typedef FpResult (*Un)(uint64_t);

FP_BIN(fmin_d, "fmin.d", "")
FP_BIN(fmax_d, "fmax.d", "")
FP_BIN(fsgnj_d, "fsgnj.d", "")
FP_BIN(fsgnjn_d, "fsgnjn.d", "")
FP_BIN(fsgnjx_d, "fsgnjx.d", "")
FP_CMP(feq_d, "feq.d")
FP_CMP(flt_d, "flt.d")
FP_CMP(fle_d, "fle.d")
FP_BIN(fmin_s, "fmin.s", "")
FP_BIN(fmax_s, "fmax.s", "")
FP_BIN(fsgnj_s, "fsgnj.s", "")
FP_BIN(fsgnjn_s, "fsgnjn.s", "")
FP_BIN(fsgnjx_s, "fsgnjx.s", "")
FP_CMP(feq_s, "feq.s")
FP_CMP(flt_s, "flt.s")
FP_CMP(fle_s, "fle.s")
FP_TO_INT(fclass_d, "fclass.d", "")
FP_TO_INT(fclass_s, "fclass.s", "")
FP_TO_INT(fmv_x_w, "fmv.x.w", "")
FP_TO_INT(fmv_x_d, "fmv.x.d", "")
INT_TO_FP(fmv_w_x, "fmv.w.x", "")
INT_TO_FP(fmv_d_x, "fmv.d.x", "")
FP_BIN(fadd_s, "fadd.s", ", rne")
FP_BIN(fmul_s, "fmul.s", ", rne")
FP_UN(fsqrt_s, "fsqrt.s", ", rne")
FP_UN(fcvt_d_s, "fcvt.d.s", "")
FP_TO_INT(fcvt_w_s, "fcvt.w.s", ", rtz")
FP_FMA(fmadd_s, "fmadd.s", ", rne")
FP_BIN(fadd_d, "fadd.d", ", rne")
FP_UN(fcvt_s_d, "fcvt.s.d", ", rne")

static const struct {
  const char* name;
  Bin fn;
} kBinD[] = {{"fmin.d", fmin_d},     {"fmax.d", fmax_d},     {"fsgnj.d", fsgnj_d},
             {"fsgnjn.d", fsgnjn_d}, {"fsgnjx.d", fsgnjx_d}, {"feq.d", feq_d},
             {"flt.d", flt_d},       {"fle.d", fle_d}},
  kBinS[] = {{"fmin.s", fmin_s},     {"fmax.s", fmax_s},     {"fsgnj.s", fsgnj_s},
             {"fsgnjn.s", fsgnjn_s}, {"fsgnjx.s", fsgnjx_s}, {"feq.s", feq_s},
             {"flt.s", flt_s},       {"fle.s", fle_s}};
#define N_BIN (sizeof kBinD / sizeof kBinD[0])

static void pair_line(int single, uint64_t a, uint64_t b) {
  out_str(single ? "s " : "d ");
  out_hexn(a, single ? 8 : 16);
  out_char(' ');
  out_hexn(b, single ? 8 : 16);
  out_char(':');
  uint64_t ra = single ? box_s((uint32_t)a) : a;
  uint64_t rb = single ? box_s((uint32_t)b) : b;
  for (size_t k = 0; k < N_BIN; ++k) {
    out_char(' ');
    out_result((single ? kBinS : kBinD)[k].fn(ra, rb), 16);
  }
  out_nl();
}

static void nanbox_line(const char* what, uint64_t reg) {
  uint64_t one = box_s(0x3f800000u);
  out_str("register holding ");
  out_str(what);
  out_char(' ');
  out_hex64(reg);
  out_str(": fadd ");
  out_result(fadd_s(reg, one), 16);
  out_str(" fmul ");
  out_result(fmul_s(one, reg), 16);
  out_str(" fsqrt ");
  out_result(fsqrt_s(reg), 16);
  out_str(" fmin ");
  out_result(fmin_s(reg, one), 16);
  out_str(" fmax ");
  out_result(fmax_s(one, reg), 16);
  out_str(" feq ");
  out_result(feq_s(reg, reg), 1);
  out_str(" flt ");
  out_result(flt_s(reg, one), 1);
  out_str(" fclass ");
  out_result(fclass_s(reg), 3);
  out_str(" fsgnj ");
  out_result(fsgnj_s(reg, one), 16);
  out_str(" fsgnjn(self) ");
  out_result(fsgnjn_s(reg, reg), 16);
  out_str(" fsgnjx ");
  out_result(fsgnjx_s(one, reg), 16);
  out_str(" fcvt.d.s ");
  out_result(fcvt_d_s(reg), 16);
  out_str(" fcvt.w.s ");
  out_result(fcvt_w_s(reg), 16);
  out_str(" fmadd ");
  out_result(fmadd_s(one, one, reg), 16);
  out_str(" fmv.x.w ");
  out_result(fmv_x_w(reg), 16);
  uint32_t stored = 0;
  __asm__ volatile("fmv.d.x ft0, %1\n fsw ft0, 0(%0)" : : "r"(&stored), "r"(reg) : "ft0", "memory");
  out_str(" fsw ");
  out_hex32(stored);
  out_nl();
}

int main(void) {
  // Every pair of special values, then generated pairs.
  for (size_t i = 0; i < N_SPECIAL_D; ++i) {
    for (size_t j = 0; j < N_SPECIAL_D; ++j) pair_line(0, kSpecialD[i], kSpecialD[j]);
  }
  for (size_t i = 0; i < N_SPECIAL_S; ++i) {
    for (size_t j = 0; j < N_SPECIAL_S; ++j) pair_line(1, kSpecialS[i], kSpecialS[j]);
  }
  Rng rng = {0xda942042e4dd58b5ULL};
  for (int i = 0; i < 600; ++i) {
    uint64_t a = gen_d(&rng);
    pair_line(0, a, gen_d_related(&rng, a));
    uint32_t s = gen_s(&rng);
    pair_line(1, s, gen_s_related(&rng, s));
  }

  // fclass and the moves on every special value and some random ones.
  for (size_t i = 0; i < N_SPECIAL_D + 40; ++i) {
    uint64_t d = i < N_SPECIAL_D ? kSpecialD[i] : gen_d(&rng);
    uint32_t s = i < N_SPECIAL_S ? kSpecialS[i] : gen_s(&rng);
    out_str("fclass.d ");
    out_hex64(d);
    out_char(' ');
    out_result(fclass_d(d), 3);
    out_str(" fmv.x.d ");
    out_result(fmv_x_d(d), 16);
    out_str(" fmv.d.x ");
    out_result(fmv_d_x(d), 16);
    out_str(" | fclass.s ");
    out_hex32(s);
    out_char(' ');
    out_result(fclass_s(box_s(s)), 3);
    out_str(" fmv.x.w ");
    out_result(fmv_x_w(box_s(s)), 16);
    out_str(" fmv.w.x ");
    out_result(fmv_w_x((uint64_t)s | 0x1234567800000000ULL), 16);  // upper bits ignored
    out_nl();
  }

  // NaN boxing: registers holding values that are not NaN-boxed singles.
  nanbox_line("the double 1.0", 0x3ff0000000000000ULL);
  nanbox_line("1.0f with a zero upper half", 0x000000003f800000ULL);
  nanbox_line("1.0f almost boxed", 0xfffffffe3f800000ULL);
  nanbox_line("pi with upper 0x7fffffff", 0x7fffffff40490fdbULL);
  nanbox_line("a boxed sNaN", box_s(0x7f800001u));
  nanbox_line("a boxed 2.0f", box_s(0x40000000u));
  // A double loaded with fld and read as a single.
  static const double loaded = 2.5;
  uint64_t bits;
  __asm__ volatile("fld ft0, 0(%1)\n fadd.s ft1, ft0, ft0\n fmv.x.d %0, ft1"
                   : "=r"(bits)
                   : "r"(&loaded)
                   : "ft0", "ft1", "memory");
  out_str("fadd.s of an fld'ed double: ");
  out_hex64(bits);
  out_nl();
  // Canonical NaN results: payloads never propagate through arithmetic or conversions.
  out_str("nan payloads: fadd.d ");
  out_result(fadd_d(0x7ff8000000000123ULL, 0x3ff0000000000000ULL), 16);
  out_str(" fadd.d(snan) ");
  out_result(fadd_d(0xfff4000000000abcULL, 0x3ff0000000000000ULL), 16);
  out_str(" fcvt.s.d ");
  out_result(fcvt_s_d(0x7ff8000000000123ULL), 16);
  out_str(" fcvt.d.s ");
  out_result(fcvt_d_s(box_s(0x7fc00123u)), 16);
  out_nl();
  out_flush();
  return 0;
}
