// Implementation strategy: every operation reduces its operands to exact integers
// (value = ±sig * 2^exp), computes the exact result, or for division and square root an integer
// approximation with a "sticky" low bit that records a nonzero remainder, and hands it to a
// single rounding routine, roundPack, which owns all rounding, overflow, underflow and
// subnormal logic. The operations therefore only deal with special operands.
//
// The significand sticky trick ("jamming"): when bits below position 0 are discarded and any
// was nonzero, bit 0 is forced to 1. If the rounding position is at least two bits above bit 0,
// the jammed and the exact value lie strictly inside the same interval between consecutive
// multiples of 2, so they round identically and both count as inexact. Every producer below
// keeps at least p + 2 bits (p = precision), which guarantees that distance.
#include "isa/softfloat/softfloat.h"

#include <bit>
#include <initializer_list>
#include <utility>

namespace hpm::softfloat {
namespace {

// Parameters of an IEEE binary interchange format.
template <class BitsT, int kExpBitsV, int kFracBitsV>
struct Format {
  using Bits = BitsT;
  static constexpr int kExpBits = kExpBitsV;
  static constexpr int kFracBits = kFracBitsV;
  static constexpr int kPrecision = kFracBits + 1;  // significand bits including the hidden one
  static constexpr int kBias = (1 << (kExpBits - 1)) - 1;
  static constexpr int kEmin = 1 - kBias;  // exponent of the smallest normal
  static constexpr int kEmax = kBias;      // exponent of the largest finite
  static constexpr Bits kSignBit = Bits{1} << (kExpBits + kFracBits);
  static constexpr Bits kFracMask = (Bits{1} << kFracBits) - 1;
  static constexpr Bits kExpField = ((Bits{1} << kExpBits) - 1) << kFracBits;
  static constexpr Bits kInf = kExpField;
  static constexpr Bits kMaxFinite = kInf - 1;
  static constexpr Bits kQuietBit = Bits{1} << (kFracBits - 1);
  static constexpr Bits kCanonicalNaN = kInf | kQuietBit;
};
using F32 = Format<u32, 8, 23>;
using F64 = Format<u64, 11, 52>;
static_assert(F32::kCanonicalNaN == kCanonicalNaN32 && F64::kCanonicalNaN == kCanonicalNaN64);

enum class Kind : u8 { kZero, kFinite, kInf, kQuietNaN, kSignalingNaN };

// A decoded operand. For kFinite, value = (-1)^sign * sig * 2^exp with sig != 0; subnormals
// keep their short significand (roundPack and the producers normalize where they need to).
struct Unpacked {
  Kind kind;
  bool sign;
  int exp;
  u64 sig;

  bool isNaN() const { return kind == Kind::kQuietNaN || kind == Kind::kSignalingNaN; }
};

template <class F>
Unpacked unpack(typename F::Bits x) {
  const bool sign = (x & F::kSignBit) != 0;
  const int biased = static_cast<int>((x & F::kExpField) >> F::kFracBits);
  const u64 frac = x & F::kFracMask;
  if (biased == static_cast<int>(F::kExpField >> F::kFracBits)) {
    if (frac == 0) return {Kind::kInf, sign, 0, 0};
    return {(x & F::kQuietBit) ? Kind::kQuietNaN : Kind::kSignalingNaN, sign, 0, 0};
  }
  if (biased == 0) {
    if (frac == 0) return {Kind::kZero, sign, 0, 0};
    return {Kind::kFinite, sign, F::kEmin - F::kFracBits, frac};
  }
  return {Kind::kFinite, sign, biased - F::kBias - F::kFracBits, frac | (u64{1} << F::kFracBits)};
}

template <class F>
typename F::Bits signBits(bool sign) {
  return sign ? F::kSignBit : 0;
}

template <class F>
typename F::Bits signedZero(bool sign) {
  return signBits<F>(sign);
}

template <class F>
typename F::Bits signedInf(bool sign) {
  return signBits<F>(sign) | F::kInf;
}

// Index of the most significant set bit; v != 0.
int msb(u128 v) {
  const u64 hi = static_cast<u64>(v >> 64);
  if (hi != 0) return 127 - std::countl_zero(hi);
  return 63 - std::countl_zero(static_cast<u64>(v));
}

// v >> n, with bit 0 set if any discarded bit was set (see the file comment).
u128 shiftRightJam(u128 v, int n) {
  if (n <= 0) return v;
  if (n >= 128) return v != 0 ? 1 : 0;
  const u128 lost = v & ((u128{1} << n) - 1);
  return (v >> n) | (lost != 0 ? 1 : 0);
}

// How the discarded part of a value compares with half a unit of the kept last place.
enum class Rest : u8 { kZero, kBelowHalf, kHalf, kAboveHalf };

// Whether rounding adds one unit to the truncated magnitude. `sign` is the sign of the value,
// which the directed modes need because they round magnitudes in opposite directions.
bool roundsUp(Rest rest, bool lastBitOdd, bool sign, Rounding rm) {
  switch (rm) {
    case Rounding::kNearestEven:
      return rest == Rest::kAboveHalf || (rest == Rest::kHalf && lastBitOdd);
    case Rounding::kTowardZero: return false;
    case Rounding::kDown: return sign && rest != Rest::kZero;
    case Rounding::kUp: return !sign && rest != Rest::kZero;
    case Rounding::kNearestMaxMagnitude: return rest == Rest::kHalf || rest == Rest::kAboveHalf;
  }
  return false;  // not reached for valid modes (see the contract in softfloat.h)
}

// sig * 2^-shift rounded to an integer magnitude per rm; sets `inexact` when the value changed.
// A non-positive shift is a left shift that the caller guarantees does not overflow.
u128 roundToInteger(u128 sig, int shift, bool sign, Rounding rm, bool& inexact) {
  if (shift <= 0) return sig << -shift;
  u128 kept = 0;
  Rest rest = Rest::kZero;
  if (shift > 128) {
    rest = sig != 0 ? Rest::kBelowHalf : Rest::kZero;  // sig < 2^128 <= half a unit
  } else {
    kept = shift == 128 ? 0 : sig >> shift;
    const u128 lost = shift == 128 ? sig : sig & ((u128{1} << shift) - 1);
    const u128 half = u128{1} << (shift - 1);
    rest = lost == 0      ? Rest::kZero
           : lost < half  ? Rest::kBelowHalf
           : lost == half ? Rest::kHalf
                          : Rest::kAboveHalf;
  }
  if (rest != Rest::kZero) inexact = true;
  return kept + (roundsUp(rest, (kept & 1) != 0, sign, rm) ? 1 : 0);
}

template <class F>
typename F::Bits overflowResult(bool sign, Rounding rm, u8& flags) {
  flags |= kOverflow | kInexact;
  // Modes that round this magnitude toward zero stop at the largest finite value.
  const bool toInfinity = rm == Rounding::kNearestEven || rm == Rounding::kNearestMaxMagnitude ||
                          (rm == Rounding::kUp && !sign) || (rm == Rounding::kDown && sign);
  return signBits<F>(sign) | (toInfinity ? F::kInf : F::kMaxFinite);
}

// Rounds (-1)^sign * sig * 2^exp (sig != 0, possibly jammed) to format F: the only place
// where results are rounded, so all overflow, underflow and inexact logic lives here.
template <class F>
typename F::Bits roundPack(bool sign, int exp, u128 sig, Rounding rm, u8& flags) {
  using Bits = typename F::Bits;
  constexpr int p = F::kPrecision;
  const int top = msb(sig);
  const int e = top + exp;  // the value lies in [2^e, 2^(e+1))
  if (e > F::kEmax) return overflowResult<F>(sign, rm, flags);
  bool inexact = false;
  if (e >= F::kEmin) {
    const u128 kept = roundToInteger(sig, top - (p - 1), sign, rm, inexact);
    // kept is in [2^(p-1), 2^p]. Adding it to the exponent field minus one lets its hidden bit
    // supply the one, and a carry to 2^p bumps the exponent (possibly into infinity).
    const u128 bits = (static_cast<u128>(e + F::kBias - 1) << F::kFracBits) + kept;
    if (bits >= F::kInf) return overflowResult<F>(sign, rm, flags);
    if (inexact) flags |= kInexact;
    return signBits<F>(sign) | static_cast<Bits>(bits);
  }
  // Below the normal range the unit in the last place is fixed at 2^(emin - p + 1). A carry to
  // 2^(p-1) yields the smallest normal, whose encoding is that same integer.
  const u128 kept = roundToInteger(sig, (F::kEmin - (p - 1)) - exp, sign, rm, inexact);
  if (inexact) {
    flags |= kInexact;
    // Tininess after rounding: round to p bits as if the exponent were unbounded; the result
    // is tiny unless that rounding carries up to 2^emin.
    bool ignored = false;
    const u128 unbounded = roundToInteger(sig, top - (p - 1), sign, rm, ignored);
    const int roundedExp = e + ((unbounded >> p) != 0 ? 1 : 0);
    if (roundedExp < F::kEmin) flags |= kUnderflow;
  }
  return signBits<F>(sign) | static_cast<Bits>(kept);
}

// The result of an operation with a NaN operand: canonical NaN, invalid if any is signaling.
template <class F>
typename F::Bits nanResult(std::initializer_list<Unpacked> operands, u8& flags) {
  for (const Unpacked& u : operands) {
    if (u.kind == Kind::kSignalingNaN) flags |= kInvalid;
  }
  return F::kCanonicalNaN;
}

template <class F>
typename F::Bits invalidResult(u8& flags) {
  flags |= kInvalid;
  return F::kCanonicalNaN;
}

// The sign of an exact zero sum of operands with signs sa and sb (IEEE 754 6.3).
bool zeroSumSign(bool sa, bool sb, Rounding rm) {
  return sa == sb ? sa : rm == Rounding::kDown;
}

// An exact nonzero value ±sig * 2^exp; sig has at most 106 bits (a product of significands).
struct Exact {
  bool sign;
  int exp;
  u128 sig;
};

// Correctly rounded x + y for nonzero finite x and y.
template <class F>
typename F::Bits addExact(Exact x, Exact y, Rounding rm, u8& flags) {
  if (msb(x.sig) + x.exp < msb(y.sig) + y.exp) std::swap(x, y);
  // Put x's leading bit at bit 125 (two bits of headroom for the carry of the sum) and align y
  // to the same exponent. y can only lose bits when its leading bit is below bit 105 of the frame
  // (its significand has at most 106 bits); then the result is above 2^124 and its rounding
  // position (>= bit 72) is far above the jammed bit.
  const int xShift = 125 - msb(x.sig);
  const int exp = x.exp - xShift;
  const u128 mx = x.sig << xShift;
  const int yShift = y.exp - exp;
  const u128 my = yShift >= 0 ? y.sig << yShift : shiftRightJam(y.sig, -yShift);
  if (x.sign == y.sign) return roundPack<F>(x.sign, exp, mx + my, rm, flags);
  if (mx == my) return signedZero<F>(zeroSumSign(x.sign, y.sign, rm));
  // my can exceed mx only when both leading bits are at bit 125 (nothing was jammed).
  if (mx > my) return roundPack<F>(x.sign, exp, mx - my, rm, flags);
  return roundPack<F>(y.sign, exp, my - mx, rm, flags);
}

template <class F>
typename F::Bits add(typename F::Bits a, typename F::Bits b, Rounding rm, u8& flags) {
  const Unpacked x = unpack<F>(a);
  const Unpacked y = unpack<F>(b);
  if (x.isNaN() || y.isNaN()) return nanResult<F>({x, y}, flags);
  if (x.kind == Kind::kInf || y.kind == Kind::kInf) {
    if (x.kind == Kind::kInf && y.kind == Kind::kInf && x.sign != y.sign) {
      return invalidResult<F>(flags);
    }
    return signedInf<F>(x.kind == Kind::kInf ? x.sign : y.sign);
  }
  if (x.kind == Kind::kZero && y.kind == Kind::kZero) {
    return signedZero<F>(zeroSumSign(x.sign, y.sign, rm));
  }
  if (x.kind == Kind::kZero) return b;  // exact: the other operand is representable
  if (y.kind == Kind::kZero) return a;
  return addExact<F>({x.sign, x.exp, x.sig}, {y.sign, y.exp, y.sig}, rm, flags);
}

template <class F>
typename F::Bits mul(typename F::Bits a, typename F::Bits b, Rounding rm, u8& flags) {
  const Unpacked x = unpack<F>(a);
  const Unpacked y = unpack<F>(b);
  if (x.isNaN() || y.isNaN()) return nanResult<F>({x, y}, flags);
  const bool sign = x.sign != y.sign;
  if (x.kind == Kind::kInf || y.kind == Kind::kInf) {
    if (x.kind == Kind::kZero || y.kind == Kind::kZero) return invalidResult<F>(flags);
    return signedInf<F>(sign);
  }
  if (x.kind == Kind::kZero || y.kind == Kind::kZero) return signedZero<F>(sign);
  return roundPack<F>(sign, x.exp + y.exp, static_cast<u128>(x.sig) * y.sig, rm, flags);
}

template <class F>
typename F::Bits div(typename F::Bits a, typename F::Bits b, Rounding rm, u8& flags) {
  const Unpacked x = unpack<F>(a);
  const Unpacked y = unpack<F>(b);
  if (x.isNaN() || y.isNaN()) return nanResult<F>({x, y}, flags);
  const bool sign = x.sign != y.sign;
  if (x.kind == Kind::kInf) {
    if (y.kind == Kind::kInf) return invalidResult<F>(flags);
    return signedInf<F>(sign);
  }
  if (y.kind == Kind::kInf) return signedZero<F>(sign);
  if (y.kind == Kind::kZero) {
    if (x.kind == Kind::kZero) return invalidResult<F>(flags);
    flags |= kDivideByZero;
    return signedInf<F>(sign);
  }
  if (x.kind == Kind::kZero) return signedZero<F>(sign);
  // With both significands normalized to bit 63, (nx * 2^64) / ny lies in (2^63, 2^65): at
  // least 64 quotient bits, ample for p + 2; the remainder becomes the sticky bit.
  const int lx = std::countl_zero(x.sig);
  const int ly = std::countl_zero(y.sig);
  const u128 num = static_cast<u128>(x.sig << lx) << 64;
  const u64 den = y.sig << ly;
  const u128 q = num / den;
  const bool exact = num % den == 0;
  const int exp = (x.exp - lx) - (y.exp - ly) - 64;
  return roundPack<F>(sign, exp, q | (exact ? 0 : 1), rm, flags);
}

// floor(sqrt(n)) for n != 0 by the classic digit-by-digit method, one root bit per step;
// `exact` tells whether n is a perfect square.
u128 isqrt(u128 n, bool& exact) {
  u128 rem = n;
  u128 root = 0;
  for (u128 bit = u128{1} << (msb(n) & ~1); bit != 0; bit >>= 2) {
    if (rem >= root + bit) {
      rem -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
  }
  exact = rem == 0;
  return root;
}

template <class F>
typename F::Bits sqrt(typename F::Bits a, Rounding rm, u8& flags) {
  const Unpacked x = unpack<F>(a);
  if (x.isNaN()) return nanResult<F>({x}, flags);
  if (x.kind == Kind::kZero) return a;  // sqrt(-0) = -0
  if (x.sign) return invalidResult<F>(flags);
  if (x.kind == Kind::kInf) return a;
  // Scale the significand so that its leading bit is at 2p + 4 or 2p + 5 with an even exponent:
  // the integer root then has p + 3 bits, enough to round, and no more (the loop costs one step
  // per bit). A square root never lands exactly halfway between two floats of the format, but
  // the exactness bit is still needed for inexact and for the directed modes.
  constexpr int p = F::kPrecision;
  int shift = 2 * p + 5 - msb(x.sig);
  if (((x.exp - shift) & 1) != 0) --shift;
  bool exact = false;
  const u128 root = isqrt(static_cast<u128>(x.sig) << shift, exact);
  return roundPack<F>(false, (x.exp - shift) / 2, root | (exact ? 0 : 1), rm, flags);
}

template <class F>
typename F::Bits mulAdd(typename F::Bits a, typename F::Bits b, typename F::Bits c, Rounding rm,
                        u8& flags) {
  const Unpacked x = unpack<F>(a);
  const Unpacked y = unpack<F>(b);
  const Unpacked z = unpack<F>(c);
  const bool infTimesZero = (x.kind == Kind::kInf && y.kind == Kind::kZero) ||
                            (x.kind == Kind::kZero && y.kind == Kind::kInf);
  if (x.isNaN() || y.isNaN() || z.isNaN()) {
    // RISC-V: the invalid product signals even when the addend is a quiet NaN.
    if (infTimesZero) flags |= kInvalid;
    return nanResult<F>({x, y, z}, flags);
  }
  if (infTimesZero) return invalidResult<F>(flags);
  const bool productSign = x.sign != y.sign;
  if (x.kind == Kind::kInf || y.kind == Kind::kInf) {
    if (z.kind == Kind::kInf && z.sign != productSign) return invalidResult<F>(flags);
    return signedInf<F>(productSign);
  }
  if (z.kind == Kind::kInf) return c;
  if (x.kind == Kind::kZero || y.kind == Kind::kZero) {
    if (z.kind == Kind::kZero) return signedZero<F>(zeroSumSign(productSign, z.sign, rm));
    return c;  // exact
  }
  const Exact product{productSign, x.exp + y.exp, static_cast<u128>(x.sig) * y.sig};
  if (z.kind == Kind::kZero) return roundPack<F>(product.sign, product.exp, product.sig, rm, flags);
  return addExact<F>(product, {z.sign, z.exp, z.sig}, rm, flags);
}

// Re-rounds a value of format From into format To (exact when To is wider).
template <class To, class From>
typename To::Bits convert(typename From::Bits a, Rounding rm, u8& flags) {
  const Unpacked x = unpack<From>(a);
  switch (x.kind) {
    case Kind::kQuietNaN:
    case Kind::kSignalingNaN: return nanResult<To>({x}, flags);
    case Kind::kInf: return signedInf<To>(x.sign);
    case Kind::kZero: return signedZero<To>(x.sign);
    case Kind::kFinite: break;
  }
  return roundPack<To>(x.sign, x.exp, x.sig, rm, flags);
}

// The target of a float-to-integer conversion.
struct IntFormat {
  int width;  // 32 or 64
  bool isSigned;

  u64 maxMagnitudePositive() const {
    return isSigned ? (u64{1} << (width - 1)) - 1 : ~u64{0} >> (64 - width);
  }
  u64 maxMagnitudeNegative() const { return isSigned ? u64{1} << (width - 1) : 0; }
  // Two's complement bit pattern of ±mag, 32-bit results sign-extended (RISC-V x registers).
  u64 encode(bool negative, u64 mag) const {
    const u64 v = negative ? 0 - mag : mag;
    return width == 32 ? static_cast<u64>(static_cast<i64>(static_cast<i32>(v))) : v;
  }
};

template <class F>
u64 toInt(typename F::Bits a, IntFormat to, Rounding rm, u8& flags) {
  const Unpacked x = unpack<F>(a);
  if (x.isNaN()) {
    flags |= kInvalid;
    return to.encode(false, to.maxMagnitudePositive());
  }
  if (x.kind == Kind::kZero) return 0;
  const u64 limit = x.sign ? to.maxMagnitudeNegative() : to.maxMagnitudePositive();
  bool inexact = false;
  // The exponent test keeps the left shift in range: anything >= 2^65 saturates anyway.
  const bool huge = x.kind == Kind::kInf || x.exp > 64;
  const u128 mag = huge ? 0 : roundToInteger(x.sig, -x.exp, x.sign, rm, inexact);
  if (huge || mag > limit) {
    flags |= kInvalid;  // saturation reports invalid only, never inexact
    return to.encode(x.sign, limit);
  }
  if (inexact) flags |= kInexact;
  return to.encode(x.sign, static_cast<u64>(mag));
}

template <class F>
typename F::Bits fromInt(bool negative, u64 mag, Rounding rm, u8& flags) {
  if (mag == 0) return 0;  // +0, the only zero an integer converts to
  return roundPack<F>(negative, 0, mag, rm, flags);
}

template <class F>
bool isSignalingNaN(typename F::Bits a) {
  return unpack<F>(a).kind == Kind::kSignalingNaN;
}

template <class F>
bool isNaN(typename F::Bits a) {
  return unpack<F>(a).isNaN();
}

template <class F>
bool isZero(typename F::Bits a) {
  return (a & ~F::kSignBit) == 0;
}

// a < b over non-NaN operands ordered by value, except that -0 < +0 when `zerosOrdered`.
// Sign-magnitude encodings order like their values within each sign.
template <class F>
bool lessThan(typename F::Bits a, typename F::Bits b, bool zerosOrdered) {
  if (!zerosOrdered && isZero<F>(a) && isZero<F>(b)) return false;
  const bool sa = (a & F::kSignBit) != 0;
  const bool sb = (b & F::kSignBit) != 0;
  if (sa != sb) return sa;
  const auto ma = a & ~F::kSignBit;
  const auto mb = b & ~F::kSignBit;
  return sa ? ma > mb : ma < mb;
}

template <class F>
bool eq(typename F::Bits a, typename F::Bits b, u8& flags) {
  if (isNaN<F>(a) || isNaN<F>(b)) {
    if (isSignalingNaN<F>(a) || isSignalingNaN<F>(b)) flags |= kInvalid;
    return false;
  }
  return a == b || (isZero<F>(a) && isZero<F>(b));
}

template <class F>
bool lt(typename F::Bits a, typename F::Bits b, u8& flags) {
  if (isNaN<F>(a) || isNaN<F>(b)) {
    flags |= kInvalid;
    return false;
  }
  return lessThan<F>(a, b, false);
}

template <class F>
bool le(typename F::Bits a, typename F::Bits b, u8& flags) {
  if (isNaN<F>(a) || isNaN<F>(b)) {
    flags |= kInvalid;
    return false;
  }
  return !lessThan<F>(b, a, false);
}

template <class F>
typename F::Bits minMax(typename F::Bits a, typename F::Bits b, bool wantMax, u8& flags) {
  if (isSignalingNaN<F>(a) || isSignalingNaN<F>(b)) flags |= kInvalid;
  const bool aNaN = isNaN<F>(a);
  const bool bNaN = isNaN<F>(b);
  if (aNaN && bNaN) return F::kCanonicalNaN;
  if (aNaN) return b;
  if (bNaN) return a;
  const bool aLess = lessThan<F>(a, b, true);
  return (aLess != wantMax) ? a : b;
}

template <class F>
u32 classify(typename F::Bits a) {
  const Unpacked x = unpack<F>(a);
  switch (x.kind) {
    case Kind::kInf: return x.sign ? 1u << 0 : 1u << 7;
    case Kind::kZero: return x.sign ? 1u << 3 : 1u << 4;
    case Kind::kSignalingNaN: return 1u << 8;
    case Kind::kQuietNaN: return 1u << 9;
    case Kind::kFinite: break;
  }
  const bool subnormal = (a & F::kExpField) == 0;
  if (subnormal) return x.sign ? 1u << 2 : 1u << 5;
  return x.sign ? 1u << 1 : 1u << 6;
}

// Magnitude of a signed integer, valid for the most negative value too.
u64 magnitude(i64 v) {
  return v < 0 ? 0 - static_cast<u64>(v) : static_cast<u64>(v);
}

constexpr IntFormat kI32{32, true};
constexpr IntFormat kU32{32, false};
constexpr IntFormat kI64{64, true};
constexpr IntFormat kU64{64, false};

}  // namespace

u32 add32(u32 a, u32 b, Rounding rm, u8& flags) {
  return add<F32>(a, b, rm, flags);
}
u32 sub32(u32 a, u32 b, Rounding rm, u8& flags) {
  return add<F32>(a, b ^ F32::kSignBit, rm, flags);
}
u32 mul32(u32 a, u32 b, Rounding rm, u8& flags) {
  return mul<F32>(a, b, rm, flags);
}
u32 div32(u32 a, u32 b, Rounding rm, u8& flags) {
  return div<F32>(a, b, rm, flags);
}
u32 sqrt32(u32 a, Rounding rm, u8& flags) {
  return sqrt<F32>(a, rm, flags);
}
u64 add64(u64 a, u64 b, Rounding rm, u8& flags) {
  return add<F64>(a, b, rm, flags);
}
u64 sub64(u64 a, u64 b, Rounding rm, u8& flags) {
  return add<F64>(a, b ^ F64::kSignBit, rm, flags);
}
u64 mul64(u64 a, u64 b, Rounding rm, u8& flags) {
  return mul<F64>(a, b, rm, flags);
}
u64 div64(u64 a, u64 b, Rounding rm, u8& flags) {
  return div<F64>(a, b, rm, flags);
}
u64 sqrt64(u64 a, Rounding rm, u8& flags) {
  return sqrt<F64>(a, rm, flags);
}

u32 mulAdd32(u32 a, u32 b, u32 c, Rounding rm, u8& flags) {
  return mulAdd<F32>(a, b, c, rm, flags);
}
u64 mulAdd64(u64 a, u64 b, u64 c, Rounding rm, u8& flags) {
  return mulAdd<F64>(a, b, c, rm, flags);
}

u32 f64ToF32(u64 a, Rounding rm, u8& flags) {
  return convert<F32, F64>(a, rm, flags);
}
u64 f32ToF64(u32 a, u8& flags) {
  return convert<F64, F32>(a, Rounding::kNearestEven, flags);  // exact; the mode is irrelevant
}

u64 f32ToI32(u32 a, Rounding rm, u8& flags) {
  return toInt<F32>(a, kI32, rm, flags);
}
u64 f32ToU32(u32 a, Rounding rm, u8& flags) {
  return toInt<F32>(a, kU32, rm, flags);
}
u64 f32ToI64(u32 a, Rounding rm, u8& flags) {
  return toInt<F32>(a, kI64, rm, flags);
}
u64 f32ToU64(u32 a, Rounding rm, u8& flags) {
  return toInt<F32>(a, kU64, rm, flags);
}
u64 f64ToI32(u64 a, Rounding rm, u8& flags) {
  return toInt<F64>(a, kI32, rm, flags);
}
u64 f64ToU32(u64 a, Rounding rm, u8& flags) {
  return toInt<F64>(a, kU32, rm, flags);
}
u64 f64ToI64(u64 a, Rounding rm, u8& flags) {
  return toInt<F64>(a, kI64, rm, flags);
}
u64 f64ToU64(u64 a, Rounding rm, u8& flags) {
  return toInt<F64>(a, kU64, rm, flags);
}

u32 i32ToF32(i32 v, Rounding rm, u8& flags) {
  return fromInt<F32>(v < 0, magnitude(v), rm, flags);
}
u32 u32ToF32(u32 v, Rounding rm, u8& flags) {
  return fromInt<F32>(false, v, rm, flags);
}
u32 i64ToF32(i64 v, Rounding rm, u8& flags) {
  return fromInt<F32>(v < 0, magnitude(v), rm, flags);
}
u32 u64ToF32(u64 v, Rounding rm, u8& flags) {
  return fromInt<F32>(false, v, rm, flags);
}
u64 i32ToF64(i32 v, Rounding rm, u8& flags) {
  return fromInt<F64>(v < 0, magnitude(v), rm, flags);
}
u64 u32ToF64(u32 v, Rounding rm, u8& flags) {
  return fromInt<F64>(false, v, rm, flags);
}
u64 i64ToF64(i64 v, Rounding rm, u8& flags) {
  return fromInt<F64>(v < 0, magnitude(v), rm, flags);
}
u64 u64ToF64(u64 v, Rounding rm, u8& flags) {
  return fromInt<F64>(false, v, rm, flags);
}

bool eq32(u32 a, u32 b, u8& flags) {
  return eq<F32>(a, b, flags);
}
bool lt32(u32 a, u32 b, u8& flags) {
  return lt<F32>(a, b, flags);
}
bool le32(u32 a, u32 b, u8& flags) {
  return le<F32>(a, b, flags);
}
bool eq64(u64 a, u64 b, u8& flags) {
  return eq<F64>(a, b, flags);
}
bool lt64(u64 a, u64 b, u8& flags) {
  return lt<F64>(a, b, flags);
}
bool le64(u64 a, u64 b, u8& flags) {
  return le<F64>(a, b, flags);
}

u32 min32(u32 a, u32 b, u8& flags) {
  return minMax<F32>(a, b, false, flags);
}
u32 max32(u32 a, u32 b, u8& flags) {
  return minMax<F32>(a, b, true, flags);
}
u64 min64(u64 a, u64 b, u8& flags) {
  return minMax<F64>(a, b, false, flags);
}
u64 max64(u64 a, u64 b, u8& flags) {
  return minMax<F64>(a, b, true, flags);
}

u32 classify32(u32 a) {
  return classify<F32>(a);
}
u32 classify64(u64 a) {
  return classify<F64>(a);
}

}  // namespace hpm::softfloat
