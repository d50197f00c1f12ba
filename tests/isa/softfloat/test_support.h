// Shared pieces of the softfloat tests: format descriptions, a random operand generator biased
// toward the inputs where rounding is hard, and failure bookkeeping that keeps a mismatch storm
// from flooding the log.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <random>
#include <string>

#include "base/types.h"
#include "isa/softfloat/softfloat.h"

namespace hpm::softfloat::test {

// A binary interchange format described at run time (the library uses compile-time traits; the
// tests deliberately do not share them).
struct FormatDesc {
  int expBits;
  int fracBits;

  int precision() const { return fracBits + 1; }
  int bias() const { return (1 << (expBits - 1)) - 1; }
  int emin() const { return 1 - bias(); }
  int emax() const { return bias(); }
  u64 maxBiasedExp() const { return (u64{1} << expBits) - 1; }
  u64 fracMask() const { return (u64{1} << fracBits) - 1; }
  u64 signBit() const { return u64{1} << (expBits + fracBits); }
  u64 inf() const { return maxBiasedExp() << fracBits; }
  u64 canonicalNaN() const { return inf() | (u64{1} << (fracBits - 1)); }
  u64 maxFinite() const { return inf() - 1; }
  u64 biasedExp(u64 bits) const { return (bits >> fracBits) & maxBiasedExp(); }
  bool isNaN(u64 bits) const { return biasedExp(bits) == maxBiasedExp() && (bits & fracMask()); }
  u64 make(bool sign, u64 biasedExp, u64 frac) const {
    return (sign ? signBit() : 0) | (biasedExp << fracBits) | (frac & fracMask());
  }
};

inline constexpr FormatDesc kSingle{8, 23};
inline constexpr FormatDesc kDouble{11, 52};

inline u64 formatMask(const FormatDesc& f) {
  return f.signBit() | (f.signBit() - 1);
}

inline constexpr Rounding kAllModes[] = {Rounding::kNearestEven, Rounding::kTowardZero,
                                         Rounding::kDown, Rounding::kUp,
                                         Rounding::kNearestMaxMagnitude};

inline const char* modeName(Rounding rm) {
  switch (rm) {
    case Rounding::kNearestEven: return "RNE";
    case Rounding::kTowardZero: return "RTZ";
    case Rounding::kDown: return "RDN";
    case Rounding::kUp: return "RUP";
    case Rounding::kNearestMaxMagnitude: return "RMM";
  }
  return "?";
}

inline std::string hex(u64 v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Multiplier for the random case counts; HPM_SOFTFLOAT_SCALE=50 turns the suite into a soak run.
inline int caseScale() {
  const char* s = std::getenv("HPM_SOFTFLOAT_SCALE");
  const int v = s != nullptr ? std::atoi(s) : 1;
  return v > 0 ? v : 1;
}

// Counts mismatches and reports only the first few in detail.
class Mismatches {
 public:
  void add(const std::string& detail) {
    if (count_++ < 8) ADD_FAILURE() << detail;
  }
  int count() const { return count_; }

 private:
  int count_ = 0;
};

// Float results agree when the bits match, or when the expected result is any NaN (the host
// produces its own default NaN) and ours is the canonical one.
inline bool sameFloat(const FormatDesc& f, u64 got, u64 want) {
  return got == want || (f.isNaN(want) && got == f.canonicalNaN());
}

// Random inputs biased toward hard cases. Each generator mixes uniformly random bit patterns
// (which mostly exercise the common path) with structured values: special operands, subnormals,
// exponents at the overflow and underflow edges, and significands with long runs of zeros or
// ones, which make exact and halfway results likely.
class Gen {
 public:
  explicit Gen(u64 seed) : rng_(seed) {}

  u64 next() { return rng_(); }
  u64 below(u64 n) { return rng_() % n; }
  bool coin() { return (rng_() & 1) != 0; }
  int between(int lo, int hi) {
    return lo + static_cast<int>(below(static_cast<u64>(hi - lo + 1)));
  }

  // A fraction field (fracBits wide) with a random structure.
  u64 fracPattern(int fracBits) {
    const u64 mask = (u64{1} << fracBits) - 1;
    const int k = static_cast<int>(below(static_cast<u64>(fracBits) + 1));
    const u64 low = k == 64 ? ~u64{0} : (u64{1} << k) - 1;
    switch (below(9)) {
      case 0: return next() & mask;
      case 1: return next() & mask & ~low;   // trailing zeros
      case 2: return (next() | low) & mask;  // trailing ones
      case 3: return k < fracBits ? u64{1} << k : 0;
      case 4: return ((u64{1} << below(fracBits)) | (u64{1} << below(fracBits))) & mask;
      case 5: return mask;
      case 6: return 0;
      case 7: return (next() & mask) >> k;  // leading zeros
      default: return mask & ~low;          // ones then zeros
    }
  }

  u64 special(const FormatDesc& f) {
    const bool sign = coin();
    const u64 quiet = u64{1} << (f.fracBits - 1);
    switch (below(11)) {
      case 0: return f.make(sign, 0, 0);
      case 1: return f.make(sign, f.maxBiasedExp(), 0);
      case 2: return f.make(sign, f.maxBiasedExp(), quiet | (next() & f.fracMask()));
      case 3: return f.make(sign, f.maxBiasedExp(), ((next() & (quiet - 1)) | 1));  // signaling
      case 4: return f.make(sign, 0, 1);
      case 5: return f.make(sign, 0, f.fracMask());
      case 6: return f.make(sign, 1, 0);
      case 7: return f.make(sign, f.maxBiasedExp() - 1, f.fracMask());
      case 8: return f.make(sign, static_cast<u64>(f.bias()), 0);  // 1.0
      case 9: return f.make(sign, f.maxBiasedExp() - 1, 0);
      default: return f.make(sign, 1, f.fracMask());
    }
  }

  // A value with the given biased exponent (clamped into the finite range; <= 0 gives a
  // subnormal) and a structured fraction.
  u64 withExp(const FormatDesc& f, bool sign, long biasedExp) {
    if (biasedExp <= 0) return f.make(sign, 0, fracPattern(f.fracBits));
    const long top = static_cast<long>(f.maxBiasedExp()) - 1;
    return f.make(sign, static_cast<u64>(biasedExp > top ? top : biasedExp),
                  fracPattern(f.fracBits));
  }

  u64 operand(const FormatDesc& f) {
    const bool sign = coin();
    const u64 r = below(20);
    if (r < 5) return next() & formatMask(f);
    if (r == 5) return special(f);
    if (r < 8) return f.make(sign, 0, fracPattern(f.fracBits));
    if (r == 8) return withExp(f, sign, static_cast<long>(f.maxBiasedExp()) - 1 - between(0, 3));
    if (r == 9) return withExp(f, sign, between(1, 4));
    return withExp(f, sign, f.bias() + between(-30, 30));
  }

  // A second addend related to a: cancellation, exponent gaps around the precision, tiny
  // perturbations of a, or an independent operand.
  u64 addend(const FormatDesc& f, u64 a) {
    const long ea = static_cast<long>(f.biasedExp(a));
    const int p = f.precision();
    switch (below(8)) {
      case 0:
      case 1:
      case 2: return operand(f);
      case 3: return withExp(f, coin(), ea + between(-2, 2));
      case 4: return withExp(f, coin(), ea - between(0, 2 * p + 4));
      case 5: return (a ^ (coin() ? f.signBit() : 0)) + below(4) - below(4);
      case 6: return withExp(f, coin(), ea + between(0, 2 * p + 4));
      default: return a ^ (coin() ? f.signBit() : 0);
    }
  }

  // A second factor chosen so that the product often lands near the underflow or overflow
  // threshold, where subnormal rounding and tininess matter.
  u64 factor(const FormatDesc& f, u64 a) {
    const long ea = static_cast<long>(f.biasedExp(a)) - f.bias();
    const int p = f.precision();
    switch (below(10)) {
      case 0:
      case 1:
      case 2:
      case 3: return operand(f);
      case 8: return nudge(f, quotient(f, coin() ? minNormal(f) : f.maxFinite(), a));
      case 4: return withExp(f, coin(), f.emin() - between(-2, p + 2) - ea + f.bias());
      case 5: return withExp(f, coin(), f.emax() + between(-2, 1) - ea + f.bias());
      case 6:
        return f.make(coin(), f.biasedExp(withExp(f, false, f.bias() + between(-20, 20))),
                      fracPattern(f.fracBits) & ~((u64{1} << (f.fracBits / 2)) - 1));
      default: return a ^ (coin() ? f.signBit() : 0);
    }
  }

  // A divisor chosen so that the quotient is often near the thresholds or exact.
  u64 divisor(const FormatDesc& f, u64 a) {
    const long ea = static_cast<long>(f.biasedExp(a)) - f.bias();
    const int p = f.precision();
    switch (below(9)) {
      case 0:
      case 1:
      case 2:
      case 3: return operand(f);
      case 4: return withExp(f, coin(), ea - (f.emin() - between(-2, p + 2)) + f.bias());
      case 5: return withExp(f, coin(), ea - f.emax() + between(-1, 2) + f.bias());
      case 6:
        return f.make(coin(), f.biasedExp(withExp(f, false, f.bias() + between(-20, 20))),
                      a & f.fracMask());  // same significand: an exact power of two
      case 7: return f.make(coin(), static_cast<u64>(f.bias() + between(0, p + 2)), 0);  // 2^k
      default:
        return f.make(coin(), f.biasedExp(withExp(f, false, f.bias() + between(-3, 3))),
                      u64{1} << below(f.fracBits));  // short divisor: exact quotients
    }
  }

  // x / y rounded to nearest (library arithmetic, used only to aim inputs at thresholds: a
  // factor b = minNormal / a puts a * b right around the underflow threshold, including the band
  // where only tininess after rounding differs; quotients and roots can never land in that band).
  static u64 quotient(const FormatDesc& f, u64 x, u64 y) {
    u8 ignored = 0;
    return f.expBits == 8
               ? div32(static_cast<u32>(x), static_cast<u32>(y), Rounding::kNearestEven, ignored)
               : div64(x, y, Rounding::kNearestEven, ignored);
  }
  static u64 minNormal(const FormatDesc& f) { return u64{1} << f.fracBits; }
  // v moved by a few units in the last place and given a random sign.
  u64 nudge(const FormatDesc& f, u64 v) {
    return ((v + below(4) - below(4)) & ~f.signBit()) | (coin() ? f.signBit() : 0);
  }

  // An addend for the product a * b: near its negation (massive cancellation), with an exponent
  // a little above or up to two precisions below the product's, zero, subnormal or special.
  u64 productAddend(const FormatDesc& f, u64 a, u64 b) {
    const int p = f.precision();
    switch (below(8)) {
      case 0:
      case 1: return operand(f);
      case 2:
      case 3: {
        u8 ignored = 0;
        const u64 product = f.expBits == 8 ? mul32(static_cast<u32>(a), static_cast<u32>(b),
                                                   Rounding::kNearestEven, ignored)
                                           : mul64(a, b, Rounding::kNearestEven, ignored);
        return ((product ^ (coin() ? f.signBit() : 0)) + below(3) - below(3)) & formatMask(f);
      }
      case 4:
      case 5: {
        const long productExp =
            static_cast<long>(f.biasedExp(a)) + static_cast<long>(f.biasedExp(b)) - f.bias();
        return withExp(f, coin(), productExp + between(-2 * p - 4, 3));
      }
      case 6: return f.make(coin(), 0, coin() ? 0 : fracPattern(f.fracBits));
      default: return special(f);
    }
  }

  // A double for narrowing to single: exponents around the single range's edges, low bits
  // (the 29 a single drops) at, just around, or away from the halfway point.
  u64 narrowable() {
    const FormatDesc& d = kDouble;
    if (below(5) == 0) return operand(d);
    int e = 0;
    switch (below(4)) {
      case 0: e = between(-160, 130); break;
      case 1: e = between(-129, -123); break;
      case 2: e = between(-152, -146); break;
      default: e = between(124, 128); break;
    }
    const u64 half = u64{1} << 28;
    u64 low = 0;
    switch (below(5)) {
      case 0: low = 0; break;
      case 1: low = half; break;
      case 2: low = half + 1; break;
      case 3: low = half - 1; break;
      default: low = next() & (2 * half - 1); break;
    }
    return d.make(coin(), static_cast<u64>(e + d.bias()), (fracPattern(23) << 29) | low);
  }

  // A value near an integer conversion boundary (0, +-1, 2^31, 2^32, 2^63, 2^64, ...) or an
  // integer plus a fraction at or around one half, in format f.
  u64 nearInteger(const FormatDesc& f) {
    if (below(4) == 0) return operand(f);
    static constexpr double kTargets[] = {0,          1,      2,      3,      0x1p31 - 1, 0x1p31,
                                          0x1p32 - 1, 0x1p32, 0x1p63, 0x1p64, 0x1p24,     0x1p53};
    static constexpr double kOffsets[] = {0, 0.5, -0.5, 0.25, -0.25, 0.75, -0.75, 1, -1};
    double v =
        below(3) == 0 ? static_cast<double>(below(1 << 20)) : kTargets[below(std::size(kTargets))];
    v += kOffsets[below(std::size(kOffsets))];
    if (coin()) v = -v;
    const u64 bits =
        f.expBits == 8 ? std::bit_cast<u32>(static_cast<float>(v)) : std::bit_cast<u64>(v);
    return (bits + below(3) - below(3)) & formatMask(f);
  }

  // An integer whose magnitude has a random bit length and a structure that makes ties likely
  // when rounded to `precision` bits.
  u64 integer(int precision, int maxBits) {
    const int len = between(0, maxBits);
    if (len == 0) return 0;
    u64 v = (len == 64 ? next() : next() & ((u64{1} << len) - 1)) | (u64{1} << (len - 1));
    if (coin() && len > precision) {
      const int cut = len - precision;  // bits below the rounding position
      const u64 lowMask = (u64{1} << cut) - 1;
      const u64 half = u64{1} << (cut - 1);
      switch (below(4)) {
        case 0: v = (v & ~lowMask) | half; break;
        case 1: v = (v & ~lowMask) | (half - 1); break;
        case 2: v = (v & ~lowMask) | (half + 1); break;
        default: v &= ~lowMask; break;
      }
    }
    return v;
  }

 private:
  std::mt19937_64 rng_;
};

}  // namespace hpm::softfloat::test
