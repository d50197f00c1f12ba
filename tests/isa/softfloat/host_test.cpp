// Randomized comparison of the library with the host x86-64 FPU in the four rounding modes SSE
// implements (RNE, RTZ, RDN, RUP). SSE arithmetic is correctly rounded, detects tininess after
// rounding and raises underflow only for tiny inexact results, like RISC-V, so values and all
// five flags must agree exactly; only NaN results differ by design (the host keeps payloads or
// produces its negative default NaN, the library returns the canonical NaN).
//
// This file is compiled with -frounding-math -fno-math-errno (see CMakeLists.txt). Every host
// operation reads its operands through an empty asm statement with a memory clobber after the
// mode change and writes its result through another before the flags are read, so the compiler
// can neither fold nor move the arithmetic across fesetround/fetestexcept.
#include <immintrin.h>
#include <bit>
#include <cfenv>
#include <cmath>
#include <string>
#include <type_traits>

#include "tests/isa/softfloat/test_support.h"

namespace hpm::softfloat::test {
namespace {

constexpr Rounding kHostModes[] = {Rounding::kNearestEven, Rounding::kTowardZero, Rounding::kDown,
                                   Rounding::kUp};

// Random inputs per operation; each runs in all four host modes.
constexpr int kCases = 100'000;

template <class T>
inline void opaque(T& v) {
  if constexpr (std::is_floating_point_v<T>) {
    asm volatile("" : "+x"(v) : : "memory");
  } else {
    asm volatile("" : "+r"(v) : : "memory");
  }
}

int hostMode(Rounding rm) {
  switch (rm) {
    case Rounding::kNearestEven: return FE_TONEAREST;
    case Rounding::kTowardZero: return FE_TOWARDZERO;
    case Rounding::kDown: return FE_DOWNWARD;
    case Rounding::kUp: return FE_UPWARD;
    case Rounding::kNearestMaxMagnitude: break;
  }
  ADD_FAILURE() << "the host has no RMM";
  return FE_TONEAREST;
}

u8 hostFlags() {
  const int e = std::fetestexcept(FE_ALL_EXCEPT);
  u8 f = 0;
  if (e & FE_INEXACT) f |= kInexact;
  if (e & FE_UNDERFLOW) f |= kUnderflow;
  if (e & FE_OVERFLOW) f |= kOverflow;
  if (e & FE_DIVBYZERO) f |= kDivideByZero;
  if (e & FE_INVALID) f |= kInvalid;
  return f;
}

struct Result {
  u64 bits;
  u8 flags;
};

// Runs fn (which must route its operands and result through opaque) in the host mode for rm.
template <class Fn>
Result onHost(Rounding rm, Fn fn) {
  std::fesetround(hostMode(rm));
  std::feclearexcept(FE_ALL_EXCEPT);
  const u64 bits = fn();
  const u8 flags = hostFlags();
  std::fesetround(FE_TONEAREST);
  return {bits, flags};
}

template <class T>
T fromBits(u64 b) {
  if constexpr (sizeof(T) == 4) {
    return std::bit_cast<T>(static_cast<u32>(b));
  } else {
    return std::bit_cast<T>(b);
  }
}

template <class T>
u64 toBits(T v) {
  if constexpr (sizeof(T) == 4) {
    return std::bit_cast<u32>(v);
  } else {
    return std::bit_cast<u64>(v);
  }
}

template <class T, class Op>
u64 hostUnary(u64 a, Op op) {
  T x = fromBits<T>(a);
  opaque(x);
  auto r = op(x);
  opaque(r);
  return toBits(r);
}

template <class T, class Op>
u64 hostBinary(u64 a, u64 b, Op op) {
  T x = fromBits<T>(a);
  T y = fromBits<T>(b);
  opaque(x);
  opaque(y);
  T r = op(x, y);
  opaque(r);
  return toBits(r);
}

template <class T>
u64 hostFma(u64 a, u64 b, u64 c) {
  T x = fromBits<T>(a);
  T y = fromBits<T>(b);
  T z = fromBits<T>(c);
  opaque(x);
  opaque(y);
  opaque(z);
  T r = std::fma(x, y, z);  // glibc dispatches to the FMA instruction on this host
  opaque(r);
  return toBits(r);
}

std::string describe(const char* op, Rounding rm, std::initializer_list<u64> in, u64 got,
                     u8 gotFlags, u64 want, u8 wantFlags) {
  std::string s = std::string(op) + " " + modeName(rm) + " (";
  for (u64 v : in) s += hex(v) + " ";
  s += ") = " + hex(got) + " flags " + hex(gotFlags) + ", host " + hex(want) + " flags " +
       hex(wantFlags);
  return s;
}

using Soft1 = u64 (*)(u64, Rounding, u8&);
using Soft2 = u64 (*)(u64, u64, Rounding, u8&);
using Soft3 = u64 (*)(u64, u64, u64, Rounding, u8&);

// Compares a binary operation; `second` draws the second operand given the first.
template <class HostFn, class SecondFn>
void compareBinary(const char* name, const FormatDesc& f, Soft2 soft, HostFn host,
                   SecondFn second) {
  Gen gen(std::hash<std::string>{}(name));
  Mismatches bad;
  const int n = kCases * caseScale();
  for (int i = 0; i < n; ++i) {
    const u64 a = gen.operand(f);
    const u64 b = second(gen, a);
    for (Rounding rm : kHostModes) {
      u8 flags = 0;
      const u64 got = soft(a, b, rm, flags);
      const Result want = onHost(rm, [&] { return host(a, b); });
      if (!sameFloat(f, got, want.bits) || flags != want.flags) {
        bad.add(describe(name, rm, {a, b}, got, flags, want.bits, want.flags));
      }
    }
  }
  EXPECT_EQ(bad.count(), 0) << name;
}

auto addendOf(const FormatDesc& f) {
  return [&f](Gen& g, u64 a) { return g.addend(f, a); };
}
auto factorOf(const FormatDesc& f) {
  return [&f](Gen& g, u64 a) { return g.factor(f, a); };
}
auto divisorOf(const FormatDesc& f) {
  return [&f](Gen& g, u64 a) { return g.divisor(f, a); };
}

TEST(SoftFloatMatchesHost, AddAndSubRoundLikeSseInEveryHostMode) {
  compareBinary(
      "add32", kSingle,
      [](u64 a, u64 b, Rounding rm, u8& fl) -> u64 { return add32(u32(a), u32(b), rm, fl); },
      [](u64 a, u64 b) { return hostBinary<float>(a, b, [](float x, float y) { return x + y; }); },
      addendOf(kSingle));
  compareBinary(
      "sub32", kSingle,
      [](u64 a, u64 b, Rounding rm, u8& fl) -> u64 { return sub32(u32(a), u32(b), rm, fl); },
      [](u64 a, u64 b) { return hostBinary<float>(a, b, [](float x, float y) { return x - y; }); },
      addendOf(kSingle));
  compareBinary(
      "add64", kDouble,
      [](u64 a, u64 b, Rounding rm, u8& fl) -> u64 { return add64(a, b, rm, fl); },
      [](u64 a, u64 b) {
        return hostBinary<double>(a, b, [](double x, double y) { return x + y; });
      },
      addendOf(kDouble));
  compareBinary(
      "sub64", kDouble,
      [](u64 a, u64 b, Rounding rm, u8& fl) -> u64 { return sub64(a, b, rm, fl); },
      [](u64 a, u64 b) {
        return hostBinary<double>(a, b, [](double x, double y) { return x - y; });
      },
      addendOf(kDouble));
}

TEST(SoftFloatMatchesHost, MulRoundsLikeSseInEveryHostMode) {
  compareBinary(
      "mul32", kSingle,
      [](u64 a, u64 b, Rounding rm, u8& fl) -> u64 { return mul32(u32(a), u32(b), rm, fl); },
      [](u64 a, u64 b) { return hostBinary<float>(a, b, [](float x, float y) { return x * y; }); },
      factorOf(kSingle));
  compareBinary(
      "mul64", kDouble,
      [](u64 a, u64 b, Rounding rm, u8& fl) -> u64 { return mul64(a, b, rm, fl); },
      [](u64 a, u64 b) {
        return hostBinary<double>(a, b, [](double x, double y) { return x * y; });
      },
      factorOf(kDouble));
}

TEST(SoftFloatMatchesHost, DivRoundsLikeSseInEveryHostMode) {
  compareBinary(
      "div32", kSingle,
      [](u64 a, u64 b, Rounding rm, u8& fl) -> u64 { return div32(u32(a), u32(b), rm, fl); },
      [](u64 a, u64 b) { return hostBinary<float>(a, b, [](float x, float y) { return x / y; }); },
      divisorOf(kSingle));
  compareBinary(
      "div64", kDouble,
      [](u64 a, u64 b, Rounding rm, u8& fl) -> u64 { return div64(a, b, rm, fl); },
      [](u64 a, u64 b) {
        return hostBinary<double>(a, b, [](double x, double y) { return x / y; });
      },
      divisorOf(kDouble));
}

// Compares a unary operation on inputs drawn by `draw`.
template <class HostFn, class DrawFn>
void compareUnary(const char* name, const FormatDesc& resultFormat, Soft1 soft, HostFn host,
                  DrawFn draw) {
  Gen gen(std::hash<std::string>{}(name));
  Mismatches bad;
  const int n = kCases * caseScale();
  for (int i = 0; i < n; ++i) {
    const u64 a = draw(gen);
    for (Rounding rm : kHostModes) {
      u8 flags = 0;
      const u64 got = soft(a, rm, flags);
      const Result want = onHost(rm, [&] { return host(a); });
      if (!sameFloat(resultFormat, got, want.bits) || flags != want.flags) {
        bad.add(describe(name, rm, {a}, got, flags, want.bits, want.flags));
      }
    }
  }
  EXPECT_EQ(bad.count(), 0) << name;
}

// Mostly nonnegative operands: negative ones only exercise the invalid path.
auto sqrtOperand(const FormatDesc& f) {
  return [&f](Gen& g) { return g.operand(f) & (g.below(8) == 0 ? ~u64{0} : ~f.signBit()); };
}

TEST(SoftFloatMatchesHost, SqrtRoundsLikeSseInEveryHostMode) {
  compareUnary(
      "sqrt32", kSingle, [](u64 a, Rounding rm, u8& fl) -> u64 { return sqrt32(u32(a), rm, fl); },
      [](u64 a) { return hostUnary<float>(a, [](float x) { return std::sqrt(x); }); },
      sqrtOperand(kSingle));
  compareUnary(
      "sqrt64", kDouble, [](u64 a, Rounding rm, u8& fl) -> u64 { return sqrt64(a, rm, fl); },
      [](u64 a) { return hostUnary<double>(a, [](double x) { return std::sqrt(x); }); },
      sqrtOperand(kDouble));
}

bool isInfTimesZero(const FormatDesc& f, u64 a, u64 b) {
  const u64 magA = a & ~f.signBit();
  const u64 magB = b & ~f.signBit();
  return (magA == f.inf() && magB == 0) || (magA == 0 && magB == f.inf());
}

bool isQuiet(const FormatDesc& f, u64 nan) {
  return ((nan >> (f.fracBits - 1)) & 1) != 0;
}

template <class HostFn>
void compareFma(const char* name, const FormatDesc& f, Soft3 soft, HostFn host) {
  Gen gen(std::hash<std::string>{}(name));
  Mismatches bad;
  const int n = kCases * caseScale();
  for (int i = 0; i < n; ++i) {
    const u64 a = gen.operand(f);
    const u64 b = gen.factor(f, a);
    const u64 c = gen.productAddend(f, a, b);
    for (Rounding rm : kHostModes) {
      u8 flags = 0;
      const u64 got = soft(a, b, c, rm, flags);
      Result want = onHost(rm, [&] { return host(a, b, c); });
      // IEEE 754 leaves it to the implementation whether inf * 0 + qNaN signals; x86 does not,
      // RISC-V does (softfloat_test.cpp checks that rule by hand).
      if (isInfTimesZero(f, a, b) && f.isNaN(c) && isQuiet(f, c)) want.flags |= kInvalid;
      if (!sameFloat(f, got, want.bits) || flags != want.flags) {
        bad.add(describe(name, rm, {a, b, c}, got, flags, want.bits, want.flags));
      }
    }
  }
  EXPECT_EQ(bad.count(), 0) << name;
}

TEST(SoftFloatMatchesHost, FusedMulAddRoundsOnceLikeHardwareFmaInEveryHostMode) {
  compareFma(
      "mulAdd32", kSingle,
      [](u64 a, u64 b, u64 c, Rounding rm, u8& fl) -> u64 {
        return mulAdd32(u32(a), u32(b), u32(c), rm, fl);
      },
      [](u64 a, u64 b, u64 c) { return hostFma<float>(a, b, c); });
  compareFma(
      "mulAdd64", kDouble,
      [](u64 a, u64 b, u64 c, Rounding rm, u8& fl) -> u64 { return mulAdd64(a, b, c, rm, fl); },
      [](u64 a, u64 b, u64 c) { return hostFma<double>(a, b, c); });
}

TEST(SoftFloatMatchesHost, FormatConversionsRoundLikeSseInEveryHostMode) {
  compareUnary(
      "f64ToF32", kSingle, [](u64 a, Rounding rm, u8& fl) -> u64 { return f64ToF32(a, rm, fl); },
      [](u64 a) { return hostUnary<double>(a, [](double x) { return static_cast<float>(x); }); },
      [](Gen& g) { return g.narrowable(); });
  compareUnary(
      "f32ToF64", kDouble, [](u64 a, Rounding, u8& fl) -> u64 { return f32ToF64(u32(a), fl); },
      [](u64 a) { return hostUnary<float>(a, [](float x) { return static_cast<double>(x); }); },
      [](Gen& g) { return g.operand(kSingle); });
}

// Integer sources: a random bit length and tie-prone low bits, negated half the time when
// signed (values whose top bit is set wrap to negative, which is just as useful).
template <class Int>
auto integerOperand(int precision) {
  return [precision](Gen& g) {
    u64 v = g.integer(precision, 8 * sizeof(Int));
    if (std::is_signed_v<Int> && g.coin()) v = 0 - v;
    return static_cast<u64>(static_cast<Int>(v));
  };
}

template <class Int, class Float>
u64 hostFromInt(u64 v) {
  Int i = static_cast<Int>(v);
  opaque(i);
  Float r = static_cast<Float>(i);
  opaque(r);
  return toBits(r);
}

TEST(SoftFloatMatchesHost, IntegerToFloatConversionsRoundLikeSseInEveryHostMode) {
  compareUnary(
      "i32ToF32", kSingle,
      [](u64 v, Rounding rm, u8& fl) -> u64 { return i32ToF32(i32(v), rm, fl); },
      hostFromInt<i32, float>, integerOperand<i32>(24));
  compareUnary(
      "u32ToF32", kSingle,
      [](u64 v, Rounding rm, u8& fl) -> u64 { return u32ToF32(u32(v), rm, fl); },
      hostFromInt<u32, float>, integerOperand<u32>(24));
  compareUnary(
      "i64ToF32", kSingle,
      [](u64 v, Rounding rm, u8& fl) -> u64 { return i64ToF32(i64(v), rm, fl); },
      hostFromInt<i64, float>, integerOperand<i64>(24));
  compareUnary(
      "u64ToF32", kSingle, [](u64 v, Rounding rm, u8& fl) -> u64 { return u64ToF32(v, rm, fl); },
      hostFromInt<u64, float>, integerOperand<u64>(24));
  compareUnary(
      "i32ToF64", kDouble,
      [](u64 v, Rounding rm, u8& fl) -> u64 { return i32ToF64(i32(v), rm, fl); },
      hostFromInt<i32, double>, integerOperand<i32>(53));
  compareUnary(
      "u32ToF64", kDouble,
      [](u64 v, Rounding rm, u8& fl) -> u64 { return u32ToF64(u32(v), rm, fl); },
      hostFromInt<u32, double>, integerOperand<u32>(53));
  compareUnary(
      "i64ToF64", kDouble,
      [](u64 v, Rounding rm, u8& fl) -> u64 { return i64ToF64(i64(v), rm, fl); },
      hostFromInt<i64, double>, integerOperand<i64>(53));
  compareUnary(
      "u64ToF64", kDouble, [](u64 v, Rounding rm, u8& fl) -> u64 { return u64ToF64(v, rm, fl); },
      hostFromInt<u64, double>, integerOperand<u64>(53));
}

// fcvt to integer. The host has no saturating RISC-V conversion, so the reference rounds with
// the host (rint in the host modes, round() for RMM: ties away from zero) and applies the RISC-V
// range rules, which are simple enough to state directly: out of range or NaN saturates with
// invalid only; otherwise the integer, inexact if it differs from the input.
struct IntTarget {
  int width;
  bool isSigned;
};

Result referenceToInt(double x, IntTarget t, Rounding rm) {
  const double lo = t.isSigned ? -std::ldexp(1.0, t.width - 1) : 0.0;
  const double hiExclusive = std::ldexp(1.0, t.isSigned ? t.width - 1 : t.width);
  const u64 maxBits = t.isSigned ? (u64{1} << (t.width - 1)) - 1 : ~u64{0} >> (64 - t.width);
  const u64 minBits = t.isSigned ? u64{0} - (u64{1} << (t.width - 1)) : 0;
  auto widen = [&](u64 v) {
    return t.width == 32 ? static_cast<u64>(static_cast<i64>(static_cast<i32>(v))) : v;
  };
  if (std::isnan(x)) return {widen(maxBits), kInvalid};
  double r = 0;
  if (rm == Rounding::kNearestMaxMagnitude) {
    r = std::round(x);
  } else {
    r = fromBits<double>(onHost(rm, [&] {
                           return hostUnary<double>(toBits(x),
                                                    [](double v) { return std::rint(v); });
                         }).bits);
  }
  if (r < lo) return {widen(minBits), kInvalid};
  if (r >= hiExclusive) return {widen(maxBits), kInvalid};
  const u64 v = r < 0 ? 0 - static_cast<u64>(-r) : static_cast<u64>(r);
  return {widen(v), static_cast<u8>(r != x ? kInexact : 0)};
}

template <class DrawFn>
void compareToInt(const char* name, const FormatDesc& f, IntTarget t, Soft1 soft, DrawFn draw) {
  Gen gen(std::hash<std::string>{}(name));
  Mismatches bad;
  const int n = kCases * caseScale();
  for (int i = 0; i < n; ++i) {
    const u64 a = draw(gen);
    const double x = f.expBits == 8 ? static_cast<double>(fromBits<float>(a)) : fromBits<double>(a);
    for (Rounding rm : kAllModes) {
      u8 flags = 0;
      const u64 got = soft(a, rm, flags);
      const Result want = referenceToInt(x, t, rm);
      if (got != want.bits || flags != want.flags) {
        bad.add(describe(name, rm, {a}, got, flags, want.bits, want.flags));
      }
    }
  }
  EXPECT_EQ(bad.count(), 0) << name;
}

TEST(SoftFloatMatchesHost, FloatToIntegerRoundsPerModeAndSaturatesWithInvalidOnly) {
  auto single = [](Gen& g) { return g.nearInteger(kSingle); };
  auto dbl = [](Gen& g) { return g.nearInteger(kDouble); };
  compareToInt(
      "f32ToI32", kSingle, {32, true},
      [](u64 a, Rounding rm, u8& fl) { return f32ToI32(u32(a), rm, fl); }, single);
  compareToInt(
      "f32ToU32", kSingle, {32, false},
      [](u64 a, Rounding rm, u8& fl) { return f32ToU32(u32(a), rm, fl); }, single);
  compareToInt(
      "f32ToI64", kSingle, {64, true},
      [](u64 a, Rounding rm, u8& fl) { return f32ToI64(u32(a), rm, fl); }, single);
  compareToInt(
      "f32ToU64", kSingle, {64, false},
      [](u64 a, Rounding rm, u8& fl) { return f32ToU64(u32(a), rm, fl); }, single);
  compareToInt(
      "f64ToI32", kDouble, {32, true},
      [](u64 a, Rounding rm, u8& fl) { return f64ToI32(a, rm, fl); }, dbl);
  compareToInt(
      "f64ToU32", kDouble, {32, false},
      [](u64 a, Rounding rm, u8& fl) { return f64ToU32(a, rm, fl); }, dbl);
  compareToInt(
      "f64ToI64", kDouble, {64, true},
      [](u64 a, Rounding rm, u8& fl) { return f64ToI64(a, rm, fl); }, dbl);
  compareToInt(
      "f64ToU64", kDouble, {64, false},
      [](u64 a, Rounding rm, u8& fl) { return f64ToU64(a, rm, fl); }, dbl);
}

// Comparison flags come from the x86 compare instructions, which have exactly the RISC-V
// signaling behaviour: ucomis* (quiet, like feq) and comis* (signaling, like flt/fle). The
// boolean results come from the C++ operators, which implement the IEEE predicates.
template <class T>
Result hostCompare(u64 a, u64 b, int which) {
  std::feclearexcept(FE_ALL_EXCEPT);
  T x = fromBits<T>(a);
  T y = fromBits<T>(b);
  opaque(x);
  opaque(y);
  int discard = 0;
  if constexpr (sizeof(T) == 4) {
    const __m128 vx = _mm_set_ss(x);
    const __m128 vy = _mm_set_ss(y);
    discard = which == 0 ? _mm_ucomieq_ss(vx, vy) : _mm_comilt_ss(vx, vy);
  } else {
    const __m128d vx = _mm_set_sd(x);
    const __m128d vy = _mm_set_sd(y);
    discard = which == 0 ? _mm_ucomieq_sd(vx, vy) : _mm_comilt_sd(vx, vy);
  }
  opaque(discard);
  const u8 flags = hostFlags();
  const bool value = which == 0 ? x == y : which == 1 ? x < y : x <= y;
  return {value ? 1u : 0u, flags};
}

template <class T>
void compareComparisons(const char* name, const FormatDesc& f,
                        bool (*const ops[3])(u64, u64, u8&)) {
  Gen gen(std::hash<std::string>{}(name));
  Mismatches bad;
  const int n = kCases * caseScale();
  for (int i = 0; i < n; ++i) {
    const u64 a = gen.operand(f);
    const u64 b = gen.coin() ? gen.addend(f, a) : a ^ (gen.coin() ? f.signBit() : 0);
    for (int which = 0; which < 3; ++which) {
      u8 flags = 0;
      const bool got = ops[which](a, b, flags);
      const Result want = hostCompare<T>(a, b, which);
      if (got != (want.bits != 0) || flags != want.flags) {
        static const char* const kNames[] = {"eq", "lt", "le"};
        bad.add(std::string(name) + " " + kNames[which] + " " + hex(a) + " " + hex(b));
      }
    }
  }
  EXPECT_EQ(bad.count(), 0) << name;
}

TEST(SoftFloatMatchesHost, EqIsQuietAndLtLeAreSignalingLikeUcomisAndComis) {
  static bool (*const k32[3])(u64, u64, u8&) = {
      [](u64 a, u64 b, u8& fl) { return eq32(u32(a), u32(b), fl); },
      [](u64 a, u64 b, u8& fl) { return lt32(u32(a), u32(b), fl); },
      [](u64 a, u64 b, u8& fl) { return le32(u32(a), u32(b), fl); }};
  static bool (*const k64[3])(u64, u64, u8&) = {
      [](u64 a, u64 b, u8& fl) { return eq64(a, b, fl); },
      [](u64 a, u64 b, u8& fl) { return lt64(a, b, fl); },
      [](u64 a, u64 b, u8& fl) { return le64(a, b, fl); }};
  compareComparisons<float>("compare32", kSingle, k32);
  compareComparisons<double>("compare64", kDouble, k64);
}

bool isSignaling(const FormatDesc& f, u64 v) {
  return f.isNaN(v) && !isQuiet(f, v);
}

// fmin/fmax as F 2.2 states them, over the host's ordering of the values.
template <class T>
Result modelMinMax(const FormatDesc& f, u64 a, u64 b, bool wantMax) {
  const u8 flags = isSignaling(f, a) || isSignaling(f, b) ? kInvalid : 0;
  const T x = fromBits<T>(a);
  const T y = fromBits<T>(b);
  if (std::isnan(x) && std::isnan(y)) return {f.canonicalNaN(), flags};
  if (std::isnan(x)) return {b, flags};
  if (std::isnan(y)) return {a, flags};
  if (x < y) return {wantMax ? b : a, flags};
  if (y < x) return {wantMax ? a : b, flags};
  // Equal values differ in their bits only as zeros of opposite sign: -0 is the smaller.
  return {std::signbit(x) != wantMax ? a : b, flags};
}

template <class T>
void compareMinMax(const char* name, const FormatDesc& f, Soft2 softMin, Soft2 softMax) {
  Gen gen(std::hash<std::string>{}(name));
  Mismatches bad;
  const int n = kCases * caseScale();
  for (int i = 0; i < n; ++i) {
    const u64 a = gen.operand(f);
    const u64 b = gen.coin() ? gen.addend(f, a) : a ^ (gen.coin() ? f.signBit() : 0);
    for (bool wantMax : {false, true}) {
      u8 flags = 0;
      const u64 got = (wantMax ? softMax : softMin)(a, b, Rounding::kNearestEven, flags);
      const Result want = modelMinMax<T>(f, a, b, wantMax);
      if (got != want.bits || flags != want.flags) {
        bad.add(describe(wantMax ? "max" : "min", Rounding::kNearestEven, {a, b}, got, flags,
                         want.bits, want.flags));
      }
    }
  }
  EXPECT_EQ(bad.count(), 0) << name;
}

TEST(SoftFloatMatchesHost, MinMaxPreferNumbersOverNaNsAndMinusZeroBelowPlusZero) {
  compareMinMax<float>(
      "minmax32", kSingle,
      [](u64 a, u64 b, Rounding, u8& fl) -> u64 { return min32(u32(a), u32(b), fl); },
      [](u64 a, u64 b, Rounding, u8& fl) -> u64 { return max32(u32(a), u32(b), fl); });
  compareMinMax<double>(
      "minmax64", kDouble, [](u64 a, u64 b, Rounding, u8& fl) -> u64 { return min64(a, b, fl); },
      [](u64 a, u64 b, Rounding, u8& fl) -> u64 { return max64(a, b, fl); });
}

template <class T>
u32 modelClass(const FormatDesc& f, u64 a) {
  const T x = fromBits<T>(a);
  const bool neg = std::signbit(x);
  switch (std::fpclassify(x)) {
    case FP_INFINITE: return neg ? 1u << 0 : 1u << 7;
    case FP_NORMAL: return neg ? 1u << 1 : 1u << 6;
    case FP_SUBNORMAL: return neg ? 1u << 2 : 1u << 5;
    case FP_ZERO: return neg ? 1u << 3 : 1u << 4;
    default: return isQuiet(f, a) ? 1u << 9 : 1u << 8;
  }
}

TEST(SoftFloatMatchesHost, ClassifyAgreesWithHostFpclassify) {
  Gen gen(7);
  Mismatches bad;
  for (int i = 0; i < kCases * caseScale(); ++i) {
    const u64 a = gen.operand(kSingle);
    const u64 b = gen.operand(kDouble);
    if (classify32(u32(a)) != modelClass<float>(kSingle, a)) bad.add("classify32 " + hex(a));
    if (classify64(b) != modelClass<double>(kDouble, b)) bad.add("classify64 " + hex(b));
  }
  EXPECT_EQ(bad.count(), 0);
}

}  // namespace
}  // namespace hpm::softfloat::test
