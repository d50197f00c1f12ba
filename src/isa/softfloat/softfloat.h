// Software IEEE 754-2008 binary32/binary64 arithmetic with RISC-V F/D semantics.
//
// The interpreter computes round-to-nearest-even arithmetic on the host FPU and calls these
// functions for what the host cannot do exactly (the directed modes and RMM), and the tests use
// them as an oracle. Every function is therefore exact in every rounding mode, for every input:
//  - results are correctly rounded (a single rounding of the exact result);
//  - tininess is detected after rounding, and underflow is raised only when the result is both
//    tiny and inexact (RISC-V, like x86 SSE);
//  - every NaN result is the canonical NaN; payloads are never propagated;
//  - each function ORs the exception flags it raises into `flags` and never clears any.
// Values travel as raw bit patterns so the caller's register file needs no conversion.
//
// Contract for every `Rounding` argument: one of the five enumerators. The RISC-V encodings 5
// and 6 are reserved and 7 (dynamic) must be resolved from frm by the caller.
#pragma once

#include "base/types.h"

namespace hpm::softfloat {

// Values are the RISC-V rm field encodings.
enum class Rounding : u8 {
  kNearestEven = 0,
  kTowardZero = 1,
  kDown = 2,
  kUp = 3,
  kNearestMaxMagnitude = 4,
};

// Exception flags in the RISC-V fflags bit layout (NX, UF, OF, DZ, NV).
inline constexpr u8 kInexact = 1;
inline constexpr u8 kUnderflow = 2;
inline constexpr u8 kOverflow = 4;
inline constexpr u8 kDivideByZero = 8;
inline constexpr u8 kInvalid = 16;

inline constexpr u32 kCanonicalNaN32 = 0x7fc00000;
inline constexpr u64 kCanonicalNaN64 = 0x7ff8000000000000;

// Arithmetic (fadd, fsub, fmul, fdiv, fsqrt). Signaling NaN operands and the invalid
// operations (inf - inf, 0 * inf, 0 / 0, inf / inf, sqrt of a negative nonzero) raise invalid;
// finite nonzero / 0 gives a signed infinity and raises divide-by-zero.
u32 add32(u32 a, u32 b, Rounding rm, u8& flags);
u32 sub32(u32 a, u32 b, Rounding rm, u8& flags);
u32 mul32(u32 a, u32 b, Rounding rm, u8& flags);
u32 div32(u32 a, u32 b, Rounding rm, u8& flags);
u32 sqrt32(u32 a, Rounding rm, u8& flags);
u64 add64(u64 a, u64 b, Rounding rm, u8& flags);
u64 sub64(u64 a, u64 b, Rounding rm, u8& flags);
u64 mul64(u64 a, u64 b, Rounding rm, u8& flags);
u64 div64(u64 a, u64 b, Rounding rm, u8& flags);
u64 sqrt64(u64 a, Rounding rm, u8& flags);

// a * b + c with a single rounding (fmadd). The other fused forms are this with operand signs
// flipped by the caller (fmsub: c negated; fnmsub: a negated; fnmadd: a and c negated).
// inf * 0 raises invalid even when c is a quiet NaN.
u32 mulAdd32(u32 a, u32 b, u32 c, Rounding rm, u8& flags);
u64 mulAdd64(u64 a, u64 b, u64 c, Rounding rm, u8& flags);

// Between the two formats (fcvt.s.d, fcvt.d.s). Widening is exact; only a signaling NaN raises
// a flag (invalid).
u32 f64ToF32(u64 a, Rounding rm, u8& flags);
u64 f32ToF64(u32 a, u8& flags);

// Float to integer (fcvt.{w,wu,l,lu}.{s,d}): the value is rounded to an integer per rm; if that
// integer is representable it is the result (inexact when rounding changed the value),
// otherwise the result saturates to the nearest representable integer with invalid and without
// inexact. NaN gives the largest positive integer. Results are the integer's bit pattern; the
// 32-bit forms return it sign-extended to 64 bits, the unsigned ones included (fcvt.wu of
// 0xffffffff yields 0xffffffffffffffff), as RISC-V writes them to an x register.
u64 f32ToI32(u32 a, Rounding rm, u8& flags);
u64 f32ToU32(u32 a, Rounding rm, u8& flags);
u64 f32ToI64(u32 a, Rounding rm, u8& flags);
u64 f32ToU64(u32 a, Rounding rm, u8& flags);
u64 f64ToI32(u64 a, Rounding rm, u8& flags);
u64 f64ToU32(u64 a, Rounding rm, u8& flags);
u64 f64ToI64(u64 a, Rounding rm, u8& flags);
u64 f64ToU64(u64 a, Rounding rm, u8& flags);

// Integer to float (fcvt.{s,d}.{w,wu,l,lu}): correctly rounded per rm, inexact when rounded.
// Zero converts to +0.
u32 i32ToF32(i32 v, Rounding rm, u8& flags);
u32 u32ToF32(u32 v, Rounding rm, u8& flags);
u32 i64ToF32(i64 v, Rounding rm, u8& flags);
u32 u64ToF32(u64 v, Rounding rm, u8& flags);
u64 i32ToF64(i32 v, Rounding rm, u8& flags);
u64 u32ToF64(u32 v, Rounding rm, u8& flags);
u64 i64ToF64(i64 v, Rounding rm, u8& flags);
u64 u64ToF64(u64 v, Rounding rm, u8& flags);

// feq (quiet: invalid only for a signaling NaN operand), flt and fle (signaling: invalid for
// any NaN operand). All are false when an operand is NaN; -0 equals +0.
bool eq32(u32 a, u32 b, u8& flags);
bool lt32(u32 a, u32 b, u8& flags);
bool le32(u32 a, u32 b, u8& flags);
bool eq64(u64 a, u64 b, u8& flags);
bool lt64(u64 a, u64 b, u8& flags);
bool le64(u64 a, u64 b, u8& flags);

// fmin/fmax (F extension 2.2): a NaN operand yields the other operand, two NaNs yield the
// canonical NaN, a signaling NaN operand raises invalid, and -0 orders below +0.
u32 min32(u32 a, u32 b, u8& flags);
u32 max32(u32 a, u32 b, u8& flags);
u64 min64(u64 a, u64 b, u8& flags);
u64 max64(u64 a, u64 b, u8& flags);

// fclass: exactly one bit of the 10-bit RISC-V class mask (bit 0 -inf, 1 negative normal,
// 2 negative subnormal, 3 -0, 4 +0, 5 positive subnormal, 6 positive normal, 7 +inf,
// 8 signaling NaN, 9 quiet NaN).
u32 classify32(u32 a);
u32 classify64(u64 a);

}  // namespace hpm::softfloat
