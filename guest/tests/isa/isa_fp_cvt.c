// Conversions in every rounding mode: FP to integer (fcvt.{w,wu,l,lu}.{s,d}) with saturation
// of out-of-range values, NaN (to the largest value) and infinities, the NV/NX flags, negative
// inputs to the unsigned forms (0 with NV, or with only NX when they round to zero) and the
// sign extension of 32-bit results (also of the unsigned .wu results); integer to FP
// (fcvt.{s,d}.{w,wu,l,lu}) with inexact rounding of wide integers and the upper register bits
// ignored by the 32-bit sources; and between precisions (fcvt.s.d rounding, overflow and
// underflow; fcvt.d.s exact, with NaNs made canonical and NV for signalling ones).
#include "isa_fp.h"

typedef FpResult (*Un)(uint64_t);

FP_ALL_RM(FP_TO_INT, cvt_w_d, "fcvt.w.d")
FP_ALL_RM(FP_TO_INT, cvt_wu_d, "fcvt.wu.d")
FP_ALL_RM(FP_TO_INT, cvt_l_d, "fcvt.l.d")
FP_ALL_RM(FP_TO_INT, cvt_lu_d, "fcvt.lu.d")
FP_ALL_RM(FP_TO_INT, cvt_w_s, "fcvt.w.s")
FP_ALL_RM(FP_TO_INT, cvt_wu_s, "fcvt.wu.s")
FP_ALL_RM(FP_TO_INT, cvt_l_s, "fcvt.l.s")
FP_ALL_RM(FP_TO_INT, cvt_lu_s, "fcvt.lu.s")
FP_ALL_RM(INT_TO_FP, cvt_d_l, "fcvt.d.l")
FP_ALL_RM(INT_TO_FP, cvt_d_lu, "fcvt.d.lu")
FP_ALL_RM(INT_TO_FP, cvt_s_w, "fcvt.s.w")
FP_ALL_RM(INT_TO_FP, cvt_s_wu, "fcvt.s.wu")
FP_ALL_RM(INT_TO_FP, cvt_s_l, "fcvt.s.l")
FP_ALL_RM(INT_TO_FP, cvt_s_lu, "fcvt.s.lu")
FP_ALL_RM(FP_UN, cvt_s_d, "fcvt.s.d")

// The exact conversions fcvt.d.w, fcvt.d.wu and fcvt.d.s take no rounding-mode operand in the
// assembler, but their encodings have an rm field, which must not change the result: each rm
// is encoded with .insn (OP-FP, funct7 0x69 with rs2 = 0 (w) or 1 (wu); funct7 0x21 for d.s).
#define EXACT_CVT(name, rm, funct7, src_op, rs2)                                      \
  static FpResult name(uint64_t a) {                                                  \
    FpResult r;                                                                       \
    __asm__ volatile("fmv.d.x ft0, %2\n fsflags x0\n .insn r 0x53, " #rm ", " #funct7 \
                     ", ft2, " src_op ", " #rs2 "\n frflags %1\n fmv.x.d %0, ft2"     \
                     : "=&r"(r.bits), "=&r"(r.flags)                                  \
                     : "r"(a)                                                         \
                     : "ft0", "ft2");                                                 \
    return r;                                                                         \
  }
// clang-format off (it does not settle on one layout for a macro that expands to functions)
#define EXACT_CVT_ALL(tag, funct7, src_op, rs2) \
  EXACT_CVT(tag##_rne, 0, funct7, src_op, rs2)  \
  EXACT_CVT(tag##_rtz, 1, funct7, src_op, rs2)  \
  EXACT_CVT(tag##_rdn, 2, funct7, src_op, rs2)  \
  EXACT_CVT(tag##_rup, 3, funct7, src_op, rs2)  \
  EXACT_CVT(tag##_rmm, 4, funct7, src_op, rs2)  \
  EXACT_CVT(tag##_dyn, 7, funct7, src_op, rs2)
// clang-format on
EXACT_CVT_ALL(cvt_d_w, 0x69, "%2", x0)
EXACT_CVT_ALL(cvt_d_wu, 0x69, "%2", x1)
EXACT_CVT_ALL(cvt_d_s, 0x21, "ft0", x0)

enum Src { kFromD, kFromS, kFromInt };

static const struct {
  const char* name;
  Un fns[6];
  enum Src src;
  int out_digits;
} kOps[] = {
    {"fcvt.w.d", FP_RM_TABLE(cvt_w_d), kFromD, 16},
    {"fcvt.wu.d", FP_RM_TABLE(cvt_wu_d), kFromD, 16},
    {"fcvt.l.d", FP_RM_TABLE(cvt_l_d), kFromD, 16},
    {"fcvt.lu.d", FP_RM_TABLE(cvt_lu_d), kFromD, 16},
    {"fcvt.w.s", FP_RM_TABLE(cvt_w_s), kFromS, 16},
    {"fcvt.wu.s", FP_RM_TABLE(cvt_wu_s), kFromS, 16},
    {"fcvt.l.s", FP_RM_TABLE(cvt_l_s), kFromS, 16},
    {"fcvt.lu.s", FP_RM_TABLE(cvt_lu_s), kFromS, 16},
    {"fcvt.d.w", FP_RM_TABLE(cvt_d_w), kFromInt, 16},
    {"fcvt.d.wu", FP_RM_TABLE(cvt_d_wu), kFromInt, 16},
    {"fcvt.d.l", FP_RM_TABLE(cvt_d_l), kFromInt, 16},
    {"fcvt.d.lu", FP_RM_TABLE(cvt_d_lu), kFromInt, 16},
    {"fcvt.s.w", FP_RM_TABLE(cvt_s_w), kFromInt, 16},
    {"fcvt.s.wu", FP_RM_TABLE(cvt_s_wu), kFromInt, 16},
    {"fcvt.s.l", FP_RM_TABLE(cvt_s_l), kFromInt, 16},
    {"fcvt.s.lu", FP_RM_TABLE(cvt_s_lu), kFromInt, 16},
    {"fcvt.s.d", FP_RM_TABLE(cvt_s_d), kFromD, 16},
    {"fcvt.d.s", FP_RM_TABLE(cvt_d_s), kFromS, 16},
};

enum { kInputs = 700 };

// Doubles around the integer conversion boundaries: the special table, boundaries +- a few
// ulps, and values with fractions .0/.25/.5/.75 (ties for RNE and RMM) of various magnitudes.
static uint64_t gen_cvt_d(Rng* r) {
  static const uint64_t bounds[] = {
      0x41dfffffffc00000ULL, 0x41e0000000000000ULL, 0xc1e0000000000000ULL, 0xc1e0000000200000ULL,
      0x41efffffffe00000ULL, 0x41f0000000000000ULL, 0x43e0000000000000ULL, 0xc3e0000000000000ULL,
      0x43f0000000000000ULL, 0x3fe0000000000000ULL, 0xbfe0000000000000ULL, 0x3ff8000000000000ULL};
  switch (rng_below(r, 5)) {
    case 0: return kSpecialD[rng_below(r, N_SPECIAL_D)];
    case 1: return bounds[rng_below(r, sizeof bounds / sizeof bounds[0])] + rng_below(r, 7) - 3;
    case 2: {
      int bits = (int)rng_below(r, 65);  // an integer part of 0..64 bits
      uint64_t m = bits == 0 ? 0 : rng_next(r) >> (64 - bits);
      double d = ((double)m + (double)rng_below(r, 4) * 0.25) * (rng_below(r, 2) ? -1.0 : 1.0);
      uint64_t u;
      memcpy(&u, &d, 8);
      return u;
    }
    default: return gen_d(r);
  }
}

static uint32_t gen_cvt_s(Rng* r) {
  static const uint32_t bounds[] = {0x4effffffu, 0x4f000000u, 0xcf000000u, 0xcf000001u, 0x4f7fffffu,
                                    0x4f800000u, 0x5effffffu, 0x5f000000u, 0xdf000000u, 0x5f800000u,
                                    0x3f000000u, 0xbf000000u, 0x3fc00000u};
  switch (rng_below(r, 5)) {
    case 0: return kSpecialS[rng_below(r, N_SPECIAL_S)];
    case 1:
      return bounds[rng_below(r, sizeof bounds / sizeof bounds[0])] + (uint32_t)rng_below(r, 7) - 3;
    case 2: {
      float f =
          (float)(int32_t)(rng_next(r) >> (40 + rng_below(r, 24))) + (float)rng_below(r, 4) * 0.25f;
      if (rng_below(r, 2)) f = -f;
      uint32_t u;
      memcpy(&u, &f, 4);
      return u;
    }
    default: return gen_s(r);
  }
}

// Integers with every bit length, both signs, and garbage in the upper half that 32-bit
// sources must ignore.
static uint64_t gen_cvt_int(Rng* r) {
  switch (rng_below(r, 4)) {
    case 0: return kIntEdges[rng_below(r, N_INT_EDGES)];
    case 1: return rng_next(r) >> rng_below(r, 64);
    case 2: return (uint64_t)(-(int64_t)(rng_next(r) >> rng_below(r, 64)));
    default: return rng_next(r);
  }
}

int main(void) {
  out_str("columns: result/fflags for rne rtz rdn rup rmm\n");
  for (size_t k = 0; k < sizeof kOps / sizeof kOps[0]; ++k) {
    Rng rng = {0x853c49e6748fea9bULL + k};
    for (int i = 0; i < kInputs; ++i) {
      uint64_t in, reg;
      int in_digits;
      switch (kOps[k].src) {
        case kFromD:
          in = reg = gen_cvt_d(&rng);
          in_digits = 16;
          break;
        case kFromS:
          in = gen_cvt_s(&rng);
          reg = box_s((uint32_t)in);
          in_digits = 8;
          break;
        default:
          in = reg = gen_cvt_int(&rng);
          in_digits = 16;
          break;
      }
      out_str(kOps[k].name);
      out_char(' ');
      out_hexn(in, in_digits);
      out_char(':');
      FpResult stat[5];
      for (int rm = 0; rm < 5; ++rm) {
        stat[rm] = kOps[k].fns[rm](reg);
        out_char(' ');
        out_result(stat[rm], kOps[k].out_digits);
      }
      for (int rm = 0; rm < 5; ++rm) {
        set_frm((uint64_t)rm);
        out_dyn_mismatch(rm, stat[rm], kOps[k].fns[5](reg), kOps[k].out_digits);
      }
      set_frm(0);
      out_nl();
    }
  }
  out_flush();
  return 0;
}
