// Floating-point semantics of the hart: RISC-V F and D, bit-exact.
//
// Round-to-nearest-even arithmetic (by far the common case) runs on the host's SSE unit, whose
// IEEE-754 results and exception flags equal RISC-V's for these operations (tininess is detected
// after rounding on both). Host flags accumulate in MXCSR and are folded into the hart's fflags
// lazily (HostFlags), at every exit from the run loop and at every fflags/fcsr access. Every
// other rounding mode, and every operation whose host flags would differ (float-to-integer
// conversion, min/max, comparisons), is computed in integer code that raises flags explicitly.
//
// Contract: between HostFlags::clear() and HostFlags::take(), the only host floating-point
// instructions executed are guest operations of this file; host code that runs in between (a
// run loop's observer) and computes in floating point keeps the host's flags with a
// HostFlags::Preserve.
#pragma once

#include <bit>
#include <cmath>

#include "base/types.h"
#include "isa/softfloat/softfloat.h"

#if defined(__x86_64__)
#include <xmmintrin.h>
#else
#include <cfenv>
#endif

namespace hpm::fpu {

namespace sf = softfloat;

inline constexpr u64 kBoxMask = 0xffffffff00000000ull;

// Single-precision values live NaN-boxed in the 64-bit registers; an improperly boxed value
// reads as the canonical NaN.
inline u32 unbox(u64 reg) {
  return (reg & kBoxMask) == kBoxMask ? static_cast<u32>(reg) : sf::kCanonicalNaN32;
}
inline u64 box(u32 value) {
  return kBoxMask | value;
}

inline bool isNaN32(u32 v) {
  return (v & 0x7fffffffu) > 0x7f800000u;
}
inline bool isNaN64(u64 v) {
  return (v & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
}

inline u32 canonical(float f) {
  const u32 bits = std::bit_cast<u32>(f);
  return isNaN32(bits) ? sf::kCanonicalNaN32 : bits;
}
inline u64 canonical(double d) {
  const u64 bits = std::bit_cast<u64>(d);
  return isNaN64(bits) ? sf::kCanonicalNaN64 : bits;
}
inline float asFloat(u32 v) {
  return std::bit_cast<float>(v);
}
inline double asDouble(u64 v) {
  return std::bit_cast<double>(v);
}

// The host's accumulated IEEE flags, translated to the RISC-V fflags layout.
class HostFlags {
 public:
  static void clear() {
#if defined(__x86_64__)
    // Writing MXCSR costs far more than reading it, and the flags are almost always clear
    // already (take() clears them): write only when some flag is set.
    const unsigned csr = _mm_getcsr();
    if ((csr & 0x3f) != 0) _mm_setcsr(csr & ~0x3fu);
#else
    std::feclearexcept(FE_ALL_EXCEPT);
#endif
  }
  // Returns the flags raised since the last clear() and clears them.
  static u8 take() {
#if defined(__x86_64__)
    const unsigned csr = _mm_getcsr();
    if ((csr & 0x3d) == 0) return 0;  // bit 1 is x86's denormal-operand flag, not IEEE
    _mm_setcsr(csr & ~0x3fu);
    // MXCSR: IE=0 DE=1 ZE=2 OE=3 UE=4 PE=5; RISC-V: NX=0 UF=1 OF=2 DZ=3 NV=4.
    return static_cast<u8>(((csr & 0x01) << 4) | ((csr & 0x04) << 1) | ((csr & 0x08) >> 1) |
                           ((csr & 0x10) >> 3) | ((csr & 0x20) >> 5));
#else
    u8 flags = 0;
    if (std::fetestexcept(FE_INVALID)) flags |= sf::kInvalid;
    if (std::fetestexcept(FE_DIVBYZERO)) flags |= sf::kDivideByZero;
    if (std::fetestexcept(FE_OVERFLOW)) flags |= sf::kOverflow;
    if (std::fetestexcept(FE_UNDERFLOW)) flags |= sf::kUnderflow;
    if (std::fetestexcept(FE_INEXACT)) flags |= sf::kInexact;
    std::feclearexcept(FE_ALL_EXCEPT);
    return flags;
#endif
  }

  // Keeps the host's flags across host floating-point work done while a hart runs.
  class Preserve {
   public:
#if defined(__x86_64__)
    Preserve() : csr_(_mm_getcsr()) {}
    ~Preserve() {
      _mm_setcsr(csr_);
    }

   private:
    unsigned csr_;
#else
    Preserve() {
      std::fegetexceptflag(&flags_, FE_ALL_EXCEPT);
    }
    ~Preserve() {
      std::fesetexceptflag(&flags_, FE_ALL_EXCEPT);
    }

   private:
    std::fexcept_t flags_;
#endif
  };
};

// True when (a, b) is an infinity times a zero, in either order: RISC-V fused multiply-add
// raises invalid for it even when the addend is a quiet NaN, which the host need not do.
inline bool infTimesZero32(u32 a, u32 b) {
  const u32 ma = a & 0x7fffffffu, mb = b & 0x7fffffffu;
  return (ma == 0x7f800000u && mb == 0) || (mb == 0x7f800000u && ma == 0);
}
inline bool infTimesZero64(u64 a, u64 b) {
  const u64 ma = a & 0x7fffffffffffffffull, mb = b & 0x7fffffffffffffffull;
  return (ma == 0x7ff0000000000000ull && mb == 0) || (mb == 0x7ff0000000000000ull && ma == 0);
}

// Host fast paths, valid only in round-to-nearest-even (flags accumulate in the host).
inline u32 add32(u32 a, u32 b) {
  return canonical(asFloat(a) + asFloat(b));
}
inline u32 sub32(u32 a, u32 b) {
  return canonical(asFloat(a) - asFloat(b));
}
inline u32 mul32(u32 a, u32 b) {
  return canonical(asFloat(a) * asFloat(b));
}
inline u32 div32(u32 a, u32 b) {
  return canonical(asFloat(a) / asFloat(b));
}
inline u32 sqrt32(u32 a) {
  return canonical(std::sqrt(asFloat(a)));
}
inline u64 add64(u64 a, u64 b) {
  return canonical(asDouble(a) + asDouble(b));
}
inline u64 sub64(u64 a, u64 b) {
  return canonical(asDouble(a) - asDouble(b));
}
inline u64 mul64(u64 a, u64 b) {
  return canonical(asDouble(a) * asDouble(b));
}
inline u64 div64(u64 a, u64 b) {
  return canonical(asDouble(a) / asDouble(b));
}
inline u64 sqrt64(u64 a) {
  return canonical(std::sqrt(asDouble(a)));
}
// a*b+c, rounded once; the caller negates operands for the fmsub/fnmadd/fnmsub forms.
inline u32 fma32(u32 a, u32 b, u32 c, u8& flags) {
  if (infTimesZero32(a, b)) [[unlikely]] {
    flags |= sf::kInvalid;
    return sf::kCanonicalNaN32;
  }
  return canonical(std::fma(asFloat(a), asFloat(b), asFloat(c)));
}
inline u64 fma64(u64 a, u64 b, u64 c, u8& flags) {
  if (infTimesZero64(a, b)) [[unlikely]] {
    flags |= sf::kInvalid;
    return sf::kCanonicalNaN64;
  }
  return canonical(std::fma(asDouble(a), asDouble(b), asDouble(c)));
}
inline u64 f32ToF64(u32 a) {
  return canonical(static_cast<double>(asFloat(a)));
}
inline u32 f64ToF32(u64 a) {
  return canonical(static_cast<float>(asDouble(a)));
}
inline u32 i64ToF32(i64 v) {
  return std::bit_cast<u32>(static_cast<float>(v));
}
inline u32 u64ToF32(u64 v) {
  return std::bit_cast<u32>(static_cast<float>(v));
}
inline u64 i64ToF64(i64 v) {
  return std::bit_cast<u64>(static_cast<double>(v));
}
inline u64 u64ToF64(u64 v) {
  return std::bit_cast<u64>(static_cast<double>(v));
}

// Sign injection, as integer operations.
inline u32 sgnj32(u32 a, u32 b) {
  return (a & 0x7fffffffu) | (b & 0x80000000u);
}
inline u32 sgnjn32(u32 a, u32 b) {
  return (a & 0x7fffffffu) | (~b & 0x80000000u);
}
inline u32 sgnjx32(u32 a, u32 b) {
  return a ^ (b & 0x80000000u);
}
inline u64 sgnj64(u64 a, u64 b) {
  return (a & ~(u64{1} << 63)) | (b & (u64{1} << 63));
}
inline u64 sgnjn64(u64 a, u64 b) {
  return (a & ~(u64{1} << 63)) | (~b & (u64{1} << 63));
}
inline u64 sgnjx64(u64 a, u64 b) {
  return a ^ (b & (u64{1} << 63));
}

}  // namespace hpm::fpu
