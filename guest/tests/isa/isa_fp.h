// Helpers for the floating-point ISA tests: each operation is one inline-assembly block that
// moves raw bit patterns into FP registers (fmv.d.x, so single-precision inputs are passed
// NaN-boxed or deliberately not), clears fflags, executes the instruction with a given static
// rounding mode or `dyn`, and returns the raw 64-bit destination register (so the NaN boxing
// of single results is visible) together with the accrued flags.
#ifndef HPM_GUEST_ISA_FP_H
#define HPM_GUEST_ISA_FP_H

#include "isa.h"

typedef struct {
  uint64_t bits;   // the destination register (FP: all 64 bits; integer: the GPR)
  uint64_t flags;  // fflags after the operation alone
} FpResult;

static inline void set_frm(uint64_t rm) {
  __asm__ volatile("fsrm %0" : : "r"(rm));
}

// Binary FP -> FP: insn ft2, ft0, ft1[, rm].
#define FP_BIN(name, insn, rm_suffix)                                             \
  static FpResult name(uint64_t a, uint64_t b) {                                  \
    FpResult r;                                                                   \
    __asm__ volatile("fmv.d.x ft0, %2\n fmv.d.x ft1, %3\n fsflags x0\n " insn     \
                     " ft2, ft0, ft1" rm_suffix "\n frflags %1\n fmv.x.d %0, ft2" \
                     : "=&r"(r.bits), "=&r"(r.flags)                              \
                     : "r"(a), "r"(b)                                             \
                     : "ft0", "ft1", "ft2");                                      \
    return r;                                                                     \
  }

// Binary FP -> integer register (comparisons): insn rd, ft0, ft1.
#define FP_CMP(name, insn)                                                    \
  static FpResult name(uint64_t a, uint64_t b) {                              \
    FpResult r;                                                               \
    __asm__ volatile("fmv.d.x ft0, %2\n fmv.d.x ft1, %3\n fsflags x0\n " insn \
                     " %0, ft0, ft1\n frflags %1"                             \
                     : "=&r"(r.bits), "=&r"(r.flags)                          \
                     : "r"(a), "r"(b)                                         \
                     : "ft0", "ft1");                                         \
    return r;                                                                 \
  }

// Unary FP -> FP: insn ft2, ft0[, rm].
#define FP_UN(name, insn, rm_suffix)                                              \
  static FpResult name(uint64_t a) {                                              \
    FpResult r;                                                                   \
    __asm__ volatile("fmv.d.x ft0, %2\n fsflags x0\n " insn " ft2, ft0" rm_suffix \
                     "\n frflags %1\n fmv.x.d %0, ft2"                            \
                     : "=&r"(r.bits), "=&r"(r.flags)                              \
                     : "r"(a)                                                     \
                     : "ft0", "ft2");                                             \
    return r;                                                                     \
  }

// Unary FP -> integer register (fcvt to integer, fclass, fmv.x.*): insn rd, ft0[, rm].
#define FP_TO_INT(name, insn, rm_suffix)                                                         \
  static FpResult name(uint64_t a) {                                                             \
    FpResult r;                                                                                  \
    __asm__ volatile("fmv.d.x ft0, %2\n fsflags x0\n " insn " %0, ft0" rm_suffix "\n frflags %1" \
                     : "=&r"(r.bits), "=&r"(r.flags)                                             \
                     : "r"(a)                                                                    \
                     : "ft0");                                                                   \
    return r;                                                                                    \
  }

// Integer register -> FP (fcvt from integer, fmv.*.x): insn ft2, rs[, rm].
#define INT_TO_FP(name, insn, rm_suffix)                                                         \
  static FpResult name(uint64_t a) {                                                             \
    FpResult r;                                                                                  \
    __asm__ volatile("fsflags x0\n " insn " ft2, %2" rm_suffix "\n frflags %1\n fmv.x.d %0, ft2" \
                     : "=&r"(r.bits), "=&r"(r.flags)                                             \
                     : "r"(a)                                                                    \
                     : "ft2");                                                                   \
    return r;                                                                                    \
  }

// Ternary (fused multiply-add): insn ft3, ft0, ft1, ft2[, rm].
#define FP_FMA(name, insn, rm_suffix)                                                           \
  static FpResult name(uint64_t a, uint64_t b, uint64_t c) {                                    \
    FpResult r;                                                                                 \
    __asm__ volatile("fmv.d.x ft0, %2\n fmv.d.x ft1, %3\n fmv.d.x ft2, %4\n fsflags x0\n " insn \
                     " ft3, ft0, ft1, ft2" rm_suffix "\n frflags %1\n fmv.x.d %0, ft3"          \
                     : "=&r"(r.bits), "=&r"(r.flags)                                            \
                     : "r"(a), "r"(b), "r"(c)                                                   \
                     : "ft0", "ft1", "ft2", "ft3");                                             \
    return r;                                                                                   \
  }

// The six rounding variants of one operation: static rne, rtz, rdn, rup, rmm, then dyn (which
// uses frm), as an array indexed by rm (0..4) with dyn at index 5.
#define FP_ALL_RM(kind, tag, insn)                                                             \
  kind(tag##_rne, insn, ", rne") kind(tag##_rtz, insn, ", rtz") kind(tag##_rdn, insn, ", rdn") \
      kind(tag##_rup, insn, ", rup") kind(tag##_rmm, insn, ", rmm") kind(tag##_dyn, insn, ", dyn")
#define FP_RM_TABLE(tag) \
  { tag##_rne, tag##_rtz, tag##_rdn, tag##_rup, tag##_rmm, tag##_dyn }

static inline void out_result(FpResult r, int fp_digits) {
  out_hexn(r.bits, fp_digits);
  out_char('/');
  out_hexn(r.flags, 2);
}

// Prints " DYN:rm=value/flags" for each rounding mode whose dyn result differs from the static
// one: normally nothing, so the dyn path is checked without doubling the output.
static inline void out_dyn_mismatch(int rm, FpResult stat, FpResult dyn, int digits) {
  if (stat.bits != dyn.bits || stat.flags != dyn.flags) {
    out_str(" DYN-DIFFERS:");
    out_str(kRmNames[rm]);
    out_char('=');
    out_result(dyn, digits);
  }
}

#endif  // HPM_GUEST_ISA_FP_H
