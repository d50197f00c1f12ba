// F and D arithmetic in every rounding mode: fadd, fsub, fmul, fdiv and fsqrt, each on
// thousands of operands from a deterministic generator biased towards special values (signed
// zeros, infinities, quiet and signalling NaNs with payloads, subnormals, the largest finite
// values, ties), cancellation (b close to a or -a: the sign of an exact zero depends on the
// rounding mode) and exponents that underflow or overflow. For each operand pair it prints the
// result bits and fflags under the five static rounding modes, and checks that `dyn` with frm
// set to each mode gives the same (printing only differences). The precision is argv[1]: "s"
// (results printed as the full 64-bit register, so NaN boxing is checked) or "d".
// qemu-riscv64's soft-float is the oracle.
#include "isa_fp.h"

typedef FpResult (*Bin)(uint64_t, uint64_t);
typedef FpResult (*Un)(uint64_t);

FP_ALL_RM(FP_BIN, fadd_d, "fadd.d")
FP_ALL_RM(FP_BIN, fsub_d, "fsub.d")
FP_ALL_RM(FP_BIN, fmul_d, "fmul.d")
FP_ALL_RM(FP_BIN, fdiv_d, "fdiv.d")
FP_ALL_RM(FP_UN, fsqrt_d, "fsqrt.d")
FP_ALL_RM(FP_BIN, fadd_s, "fadd.s")
FP_ALL_RM(FP_BIN, fsub_s, "fsub.s")
FP_ALL_RM(FP_BIN, fmul_s, "fmul.s")
FP_ALL_RM(FP_BIN, fdiv_s, "fdiv.s")
FP_ALL_RM(FP_UN, fsqrt_s, "fsqrt.s")

static const struct {
  const char* name;
  Bin fns[6];
} kBinD[] = {{"fadd.d", FP_RM_TABLE(fadd_d)},
             {"fsub.d", FP_RM_TABLE(fsub_d)},
             {"fmul.d", FP_RM_TABLE(fmul_d)},
             {"fdiv.d", FP_RM_TABLE(fdiv_d)}},
  kBinS[] = {{"fadd.s", FP_RM_TABLE(fadd_s)},
             {"fsub.s", FP_RM_TABLE(fsub_s)},
             {"fmul.s", FP_RM_TABLE(fmul_s)},
             {"fdiv.s", FP_RM_TABLE(fdiv_s)}};
static const Un kSqrtD[6] = FP_RM_TABLE(fsqrt_d);
static const Un kSqrtS[6] = FP_RM_TABLE(fsqrt_s);

enum { kPairs = 2000 };

static void run_binary(const char* name, const Bin fns[6], int single, uint64_t seed) {
  Rng rng = {seed};
  int in_digits = single ? 8 : 16;
  for (int i = 0; i < kPairs; ++i) {
    uint64_t a, b;
    if (single) {
      uint32_t x = gen_s(&rng);
      a = x;
      b = gen_s_related(&rng, x);
    } else {
      a = gen_d(&rng);
      b = gen_d_related(&rng, a);
    }
    // Boxed inputs for single precision; the test of unboxed inputs is in isa_fp_misc.
    uint64_t ra = single ? box_s((uint32_t)a) : a;
    uint64_t rb = single ? box_s((uint32_t)b) : b;
    out_str(name);
    out_char(' ');
    out_hexn(a, in_digits);
    out_char(' ');
    out_hexn(b, in_digits);
    out_char(':');
    FpResult stat[5];
    for (int rm = 0; rm < 5; ++rm) {
      stat[rm] = fns[rm](ra, rb);
      out_char(' ');
      out_result(stat[rm], 16);
    }
    for (int rm = 0; rm < 5; ++rm) {
      set_frm((uint64_t)rm);
      out_dyn_mismatch(rm, stat[rm], fns[5](ra, rb), 16);
    }
    set_frm(0);
    out_nl();
  }
}

static void run_sqrt(const char* name, const Un fns[6], int single, uint64_t seed) {
  Rng rng = {seed};
  int in_digits = single ? 8 : 16;
  for (int i = 0; i < kPairs; ++i) {
    uint64_t a = single ? gen_s(&rng) : gen_d(&rng);
    if (i % 3 == 0) a &= single ? 0x7fffffffu : 0x7fffffffffffffffULL;  // mostly non-negative
    uint64_t ra = single ? box_s((uint32_t)a) : a;
    out_str(name);
    out_char(' ');
    out_hexn(a, in_digits);
    out_char(':');
    FpResult stat[5];
    for (int rm = 0; rm < 5; ++rm) {
      stat[rm] = fns[rm](ra);
      out_char(' ');
      out_result(stat[rm], 16);
    }
    for (int rm = 0; rm < 5; ++rm) {
      set_frm((uint64_t)rm);
      out_dyn_mismatch(rm, stat[rm], fns[5](ra), 16);
    }
    set_frm(0);
    out_nl();
  }
}

int main(int argc, char** argv) {
  int single = argc > 1 && argv[1][0] == 's';
  if (argc < 2 || (argv[1][0] != 's' && argv[1][0] != 'd')) {
    fprintf(stderr, "usage: isa_fp_arith s|d\n");
    return 2;
  }
  out_str("columns: result/fflags for rne rtz rdn rup rmm\n");
  for (int k = 0; k < 4; ++k) {
    run_binary(single ? kBinS[k].name : kBinD[k].name, single ? kBinS[k].fns : kBinD[k].fns, single,
               0x9e3779b97f4a7c15ULL + (uint64_t)k);
  }
  run_sqrt(single ? "fsqrt.s" : "fsqrt.d", single ? kSqrtS : kSqrtD, single, 0x5851f42d4c957f2dULL);
  out_flush();
  return 0;
}
