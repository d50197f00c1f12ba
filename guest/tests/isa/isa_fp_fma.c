// Fused multiply-add in every rounding mode: fmadd, fmsub, fnmadd and fnmsub in F (argv[1]
// "s") or D ("d"), on generated triples that include special values and, often, an addend
// close to minus the product (the fused result keeps the low bits a separate multiply would
// round away, and exact zeros take their sign from the rounding mode); inf * 0 + NaN (NV set
// or not is implementation-defined in IEEE but fixed by RISC-V: NV is raised) and the other
// invalid combinations. Prints result bits and fflags for the five static modes; `dyn` is
// checked against them.
#include "isa_fp.h"

typedef FpResult (*Fma)(uint64_t, uint64_t, uint64_t);

FP_ALL_RM(FP_FMA, fmadd_d, "fmadd.d")
FP_ALL_RM(FP_FMA, fmsub_d, "fmsub.d")
FP_ALL_RM(FP_FMA, fnmadd_d, "fnmadd.d")
FP_ALL_RM(FP_FMA, fnmsub_d, "fnmsub.d")
FP_ALL_RM(FP_FMA, fmadd_s, "fmadd.s")
FP_ALL_RM(FP_FMA, fmsub_s, "fmsub.s")
FP_ALL_RM(FP_FMA, fnmadd_s, "fnmadd.s")
FP_ALL_RM(FP_FMA, fnmsub_s, "fnmsub.s")

static const struct {
  const char* name;
  Fma fns[6];
} kFmaD[] = {{"fmadd.d", FP_RM_TABLE(fmadd_d)},
             {"fmsub.d", FP_RM_TABLE(fmsub_d)},
             {"fnmadd.d", FP_RM_TABLE(fnmadd_d)},
             {"fnmsub.d", FP_RM_TABLE(fnmsub_d)}},
  kFmaS[] = {{"fmadd.s", FP_RM_TABLE(fmadd_s)},
             {"fmsub.s", FP_RM_TABLE(fmsub_s)},
             {"fnmadd.s", FP_RM_TABLE(fnmadd_s)},
             {"fnmsub.s", FP_RM_TABLE(fnmsub_s)}};

enum { kTriples = 1200 };

// An addend near -(a*b): the product rounded by the (non-fused) multiply instruction, negated,
// then moved by a few ulps.
static uint64_t near_neg_product(Rng* r, uint64_t a, uint64_t b, int single) {
  uint64_t p;
  if (single) {
    __asm__ volatile("fmv.w.x ft0, %1\n fmv.w.x ft1, %2\n fmul.s ft2, ft0, ft1\n fmv.x.w %0, ft2"
                     : "=r"(p)
                     : "r"(a), "r"(b)
                     : "ft0", "ft1", "ft2");
    return ((uint32_t)p ^ 0x80000000u) + (uint32_t)rng_below(r, 3) - 1;
  }
  __asm__ volatile("fmv.d.x ft0, %1\n fmv.d.x ft1, %2\n fmul.d ft2, ft0, ft1\n fmv.x.d %0, ft2"
                   : "=r"(p)
                   : "r"(a), "r"(b)
                   : "ft0", "ft1", "ft2");
  return (p ^ 0x8000000000000000ULL) + rng_below(r, 3) - 1;
}

static void run(const char* name, const Fma fns[6], int single, uint64_t seed) {
  Rng rng = {seed};
  int in_digits = single ? 8 : 16;
  for (int i = 0; i < kTriples; ++i) {
    uint64_t a = single ? gen_s(&rng) : gen_d(&rng);
    uint64_t b = single ? gen_s(&rng) : gen_d(&rng);
    uint64_t c = (rng_below(&rng, 2) == 0) ? near_neg_product(&rng, a, b, single)
                                           : (single ? gen_s(&rng) : gen_d(&rng));
    if (single) c &= 0xffffffffu;
    uint64_t ra = single ? box_s((uint32_t)a) : a;
    uint64_t rb = single ? box_s((uint32_t)b) : b;
    uint64_t rc = single ? box_s((uint32_t)c) : c;
    out_str(name);
    out_char(' ');
    out_hexn(a, in_digits);
    out_char(' ');
    out_hexn(b, in_digits);
    out_char(' ');
    out_hexn(c, in_digits);
    out_char(':');
    FpResult stat[5];
    for (int rm = 0; rm < 5; ++rm) {
      stat[rm] = fns[rm](ra, rb, rc);
      out_char(' ');
      out_result(stat[rm], 16);
    }
    for (int rm = 0; rm < 5; ++rm) {
      set_frm((uint64_t)rm);
      out_dyn_mismatch(rm, stat[rm], fns[5](ra, rb, rc), 16);
    }
    set_frm(0);
    out_nl();
  }
}

int main(int argc, char** argv) {
  if (argc < 2 || (argv[1][0] != 's' && argv[1][0] != 'd')) {
    fprintf(stderr, "usage: isa_fp_fma s|d\n");
    return 2;
  }
  int single = argv[1][0] == 's';
  out_str("columns: result/fflags for rne rtz rdn rup rmm\n");
  for (int k = 0; k < 4; ++k) {
    run(single ? kFmaS[k].name : kFmaD[k].name, single ? kFmaS[k].fns : kFmaD[k].fns, single,
        0x2545f4914f6cdd1dULL * (uint64_t)(k + 1));
  }
  // The invalid products with every kind of addend, in RNE.
  static const uint64_t inf_d = 0x7ff0000000000000ULL, qnan_d = 0x7ff8000000000000ULL,
                        snan_d = 0x7ff0000000000001ULL;
  static const uint32_t inf_s = 0x7f800000u, qnan_s = 0x7fc00000u, snan_s = 0x7f800001u;
  uint64_t addends[] = {0, single ? qnan_s : qnan_d, single ? snan_s : snan_d,
                        single ? inf_s : inf_d};
  out_str("inf*0+c:");
  for (size_t i = 0; i < 4; ++i) {
    uint64_t inf = single ? box_s(inf_s) : inf_d;
    uint64_t zero = single ? box_s(0) : 0;  // an unboxed 0 would read as a NaN
    uint64_t c = single ? box_s((uint32_t)addends[i]) : addends[i];
    for (int k = 0; k < 4; ++k) {
      out_char(' ');
      out_result((single ? kFmaS[k].fns[0] : kFmaD[k].fns[0])(inf, zero, c), 16);
      out_char(' ');
      out_result((single ? kFmaS[k].fns[0] : kFmaD[k].fns[0])(zero, inf, c), 16);
    }
  }
  out_nl();
  out_flush();
  return 0;
}
