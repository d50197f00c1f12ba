// Hand-worked cases for the rules the randomized tests might hit only rarely, each derived from
// the IEEE 754 / RISC-V definitions. Per-mode expectations are listed in the order
// RNE, RTZ, RDN, RUP, RMM.
#include "isa/softfloat/softfloat.h"

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <string>

#include "tests/isa/softfloat/test_support.h"

namespace hpm::softfloat {
namespace {

using test::hex;
using test::kAllModes;
using test::modeName;

constexpr u8 NX = kInexact;
constexpr u8 UF = kUnderflow;
constexpr u8 OF = kOverflow;
constexpr u8 DZ = kDivideByZero;
constexpr u8 NV = kInvalid;

// Single-precision constants.
constexpr u32 kOne = 0x3f800000;
constexpr u32 kTwo = 0x40000000;
constexpr u32 kHalf = 0x3f000000;
constexpr u32 kMinSub = 0x00000001;  // 2^-149
constexpr u32 kMinNormal = 0x00800000;
constexpr u32 kMax = 0x7f7fffff;
constexpr u32 kInf = 0x7f800000;
constexpr u32 kNegInf = 0xff800000;
constexpr u32 kNegZero = 0x80000000;
constexpr u32 kQNaN = 0x7fc12345;  // quiet with a payload
constexpr u32 kSNaN = 0x7f800001;
constexpr u64 kSNaN64 = 0x7ff0000000000001;
constexpr u64 kQNaN64 = 0xfff8000000000123;  // negative quiet with a payload

struct Want {
  u64 bits;
  u8 flags;
};

// Checks op in every mode against per-mode expectations (RNE, RTZ, RDN, RUP, RMM).
void expectPerMode(const std::string& what, const std::function<u64(Rounding, u8&)>& op,
                   const std::array<Want, 5>& want) {
  for (size_t i = 0; i < 5; ++i) {
    u8 flags = 0;
    const u64 got = op(kAllModes[i], flags);
    EXPECT_EQ(hex(got), hex(want[i].bits)) << what << " in " << modeName(kAllModes[i]);
    EXPECT_EQ(hex(flags), hex(want[i].flags)) << what << " flags in " << modeName(kAllModes[i]);
  }
}

// Checks an operation whose result does not depend on the mode.
void expectAllModes(const std::string& what, const std::function<u64(Rounding, u8&)>& op,
                    Want want) {
  expectPerMode(what, op, {want, want, want, want, want});
}

TEST(SoftFloatRules, RmmRoundsExactTiesAwayFromZero) {
  // 1 + 2^-24 is exactly halfway between 1 and its successor.
  expectPerMode("1 + 2^-24", [](Rounding rm, u8& f) { return add32(kOne, 0x33800000, rm, f); },
                {{{kOne, NX}, {kOne, NX}, {kOne, NX}, {0x3f800001, NX}, {0x3f800001, NX}}});
  expectPerMode(
      "-1 - 2^-24", [](Rounding rm, u8& f) { return add32(0xbf800000, 0xb3800000, rm, f); },
      {{{0xbf800000, NX}, {0xbf800000, NX}, {0xbf800001, NX}, {0xbf800000, NX}, {0xbf800001, NX}}});
  // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: a tie whose lower neighbour is even.
  expectPerMode(
      "(1+2^-12)^2", [](Rounding rm, u8& f) { return mul32(0x3f800800, 0x3f800800, rm, f); },
      {{{0x3f801000, NX}, {0x3f801000, NX}, {0x3f801000, NX}, {0x3f801001, NX}, {0x3f801001, NX}}});
  // 2^24 + 1 is a tie between 2^24 and 2^24 + 2.
  expectPerMode(
      "i32 16777217", [](Rounding rm, u8& f) { return i32ToF32(16777217, rm, f); },
      {{{0x4b800000, NX}, {0x4b800000, NX}, {0x4b800000, NX}, {0x4b800001, NX}, {0x4b800001, NX}}});
  expectPerMode(
      "i32 -16777217", [](Rounding rm, u8& f) { return i32ToF32(-16777217, rm, f); },
      {{{0xcb800000, NX}, {0xcb800000, NX}, {0xcb800001, NX}, {0xcb800000, NX}, {0xcb800001, NX}}});
  // 2^24 + 3: the tie's upper neighbour is the even one, so RNE and RMM agree.
  expectPerMode(
      "i32 16777219", [](Rounding rm, u8& f) { return i32ToF32(16777219, rm, f); },
      {{{0x4b800002, NX}, {0x4b800001, NX}, {0x4b800001, NX}, {0x4b800002, NX}, {0x4b800002, NX}}});
  expectPerMode("f64 1+2^-24 to f32",
                [](Rounding rm, u8& f) { return f64ToF32(0x3ff0000010000000, rm, f); },
                {{{kOne, NX}, {kOne, NX}, {kOne, NX}, {0x3f800001, NX}, {0x3f800001, NX}}});
  // 5 * 2^-149 / 2 = 2.5 units of the smallest subnormal: a tie in the subnormal range.
  expectPerMode("5*2^-149 / 2", [](Rounding rm, u8& f) { return div32(0x00000005, kTwo, rm, f); },
                {{{2, UF | NX}, {2, UF | NX}, {2, UF | NX}, {3, UF | NX}, {3, UF | NX}}});
  // fcvt: 2.5 and -2.5.
  expectPerMode("f32 2.5 to i32", [](Rounding rm, u8& f) { return f32ToI32(0x40200000, rm, f); },
                {{{2, NX}, {2, NX}, {2, NX}, {3, NX}, {3, NX}}});
  expectPerMode("f32 -2.5 to i32", [](Rounding rm, u8& f) { return f32ToI32(0xc0200000, rm, f); },
                {{{~u64{1}, NX}, {~u64{1}, NX}, {~u64{2}, NX}, {~u64{1}, NX}, {~u64{2}, NX}}});
  expectPerMode("f32 0.5 to i64", [](Rounding rm, u8& f) { return f32ToI64(kHalf, rm, f); },
                {{{0, NX}, {0, NX}, {0, NX}, {1, NX}, {1, NX}}});
}

TEST(SoftFloatRules, ExactZeroSumIsMinusZeroOnlyWhenRoundingDown) {
  const u32 x = 0x3fc00000;  // 1.5
  const Want plus{0, 0};
  const Want minus{kNegZero, 0};
  const std::array<Want, 5> bySign{{plus, plus, minus, plus, plus}};
  expectPerMode(
      "x + -x", [&](Rounding rm, u8& f) { return add32(x, x ^ kNegZero, rm, f); }, bySign);
  expectPerMode(
      "x - x", [&](Rounding rm, u8& f) { return sub32(x, x, rm, f); }, bySign);
  expectPerMode(
      "+0 + -0", [](Rounding rm, u8& f) { return add32(0, kNegZero, rm, f); }, bySign);
  expectPerMode(
      "+0 - +0", [](Rounding rm, u8& f) { return sub32(0, 0, rm, f); }, bySign);
  expectPerMode(
      "1 * x - x", [&](Rounding rm, u8& f) { return mulAdd32(kOne, x, x ^ kNegZero, rm, f); },
      bySign);
  expectPerMode(
      "+0 * -1 + +0", [](Rounding rm, u8& f) { return mulAdd32(0, 0xbf800000, 0, rm, f); }, bySign);
  expectPerMode(
      "d: x - x",
      [](Rounding rm, u8& f) { return sub64(0x3ff8000000000000, 0x3ff8000000000000, rm, f); },
      {{plus, plus, {0x8000000000000000, 0}, plus, plus}});
}

TEST(SoftFloatRules, SameSignedZerosKeepTheirSignInEveryMode) {
  expectAllModes("-0 + -0", [](Rounding rm, u8& f) { return add32(kNegZero, kNegZero, rm, f); },
                 {kNegZero, 0});
  expectAllModes("+0 + +0", [](Rounding rm, u8& f) { return add32(0, 0, rm, f); }, {0, 0});
  expectAllModes("-0 - +0", [](Rounding rm, u8& f) { return sub32(kNegZero, 0, rm, f); },
                 {kNegZero, 0});
  expectAllModes("+0 * -1 + -0",
                 [](Rounding rm, u8& f) { return mulAdd32(0, 0xbf800000, kNegZero, rm, f); },
                 {kNegZero, 0});
  expectAllModes("-0 * 5", [](Rounding rm, u8& f) { return mul32(kNegZero, 0x40a00000, rm, f); },
                 {kNegZero, 0});
  expectAllModes("1 / -inf", [](Rounding rm, u8& f) { return div32(kOne, kNegInf, rm, f); },
                 {kNegZero, 0});
  expectAllModes("x + -0 is x", [](Rounding rm, u8& f) { return add32(kMinSub, kNegZero, rm, f); },
                 {kMinSub, 0});
  expectAllModes("i64 0 is +0", [](Rounding rm, u8& f) { return i64ToF64(0, rm, f); }, {0, 0});
}

TEST(SoftFloatRules, NonzeroResultRoundingToZeroKeepsTheSignOfTheExactValue) {
  // min subnormal * 0.5 = 2^-150, a tie between 0 and 2^-149.
  expectPerMode(
      "2^-149 * 0.5 + -0",
      [](Rounding rm, u8& f) { return mulAdd32(kMinSub, kHalf, kNegZero, rm, f); },
      {{{0, UF | NX}, {0, UF | NX}, {0, UF | NX}, {kMinSub, UF | NX}, {kMinSub, UF | NX}}});
  expectPerMode("-2^-149 * 0.5",
                [](Rounding rm, u8& f) { return mul32(kMinSub | kNegZero, kHalf, rm, f); },
                {{{kNegZero, UF | NX},
                  {kNegZero, UF | NX},
                  {kNegZero | kMinSub, UF | NX},
                  {kNegZero, UF | NX},
                  {kNegZero | kMinSub, UF | NX}}});
}

TEST(SoftFloatRules, OverflowGivesInfinityOrLargestFiniteByModeAndSign) {
  expectPerMode(
      "max * 2", [](Rounding rm, u8& f) { return mul32(kMax, kTwo, rm, f); },
      {{{kInf, OF | NX}, {kMax, OF | NX}, {kMax, OF | NX}, {kInf, OF | NX}, {kInf, OF | NX}}});
  expectPerMode("-max * 2", [](Rounding rm, u8& f) { return mul32(kMax | kNegZero, kTwo, rm, f); },
                {{{kNegInf, OF | NX},
                  {kMax | kNegZero, OF | NX},
                  {kNegInf, OF | NX},
                  {kMax | kNegZero, OF | NX},
                  {kNegInf, OF | NX}}});
  expectPerMode(
      "d: max + max",
      [](Rounding rm, u8& f) { return add64(0x7fefffffffffffff, 0x7fefffffffffffff, rm, f); },
      {{{0x7ff0000000000000, OF | NX},
        {0x7fefffffffffffff, OF | NX},
        {0x7fefffffffffffff, OF | NX},
        {0x7ff0000000000000, OF | NX},
        {0x7ff0000000000000, OF | NX}}});
}

TEST(SoftFloatRules, OverflowIsJudgedOnTheResultRoundedWithUnboundedExponent) {
  // max + half an ulp of max (2^103) is a tie between max and 2^128: only the modes that round it
  // up overflow; the others return max, merely inexact.
  expectPerMode("max + 2^103", [](Rounding rm, u8& f) { return add32(kMax, 0x73000000, rm, f); },
                {{{kInf, OF | NX}, {kMax, NX}, {kMax, NX}, {kInf, OF | NX}, {kInf, OF | NX}}});
  // Less than half an ulp: no overflow to nearest.
  expectPerMode("max + 2^102", [](Rounding rm, u8& f) { return add32(kMax, 0x72800000, rm, f); },
                {{{kMax, NX}, {kMax, NX}, {kMax, NX}, {kInf, OF | NX}, {kMax, NX}}});
}

TEST(SoftFloatRules, TininessIsDetectedAfterRounding) {
  // 2^-126 * (1 - 2^-25): rounded to 24 bits with an unbounded exponent it is a tie that rounds
  // up to 2^-126 in RNE, RUP and RMM, so it is not tiny there and raises no underflow although
  // the exact value is below the normal range (tininess-before-rounding would flag it).
  expectPerMode("narrow 2^-126(1-2^-25)",
                [](Rounding rm, u8& f) { return f64ToF32(0x380ffffff0000000, rm, f); },
                {{{kMinNormal, NX},
                  {0x007fffff, UF | NX},
                  {0x007fffff, UF | NX},
                  {kMinNormal, NX},
                  {kMinNormal, NX}}});
  // 2^-126 * (1 - 2^-24) has exactly 24 bits, so it stays tiny after unbounded rounding; rounded
  // to the subnormal grid it is a tie that RNE and RMM resolve to 2^-126. The result is normal,
  // yet underflow is raised because the value was tiny and inexact.
  expectPerMode("narrow 2^-126(1-2^-24)",
                [](Rounding rm, u8& f) { return f64ToF32(0x380fffffe0000000, rm, f); },
                {{{kMinNormal, UF | NX},
                  {0x007fffff, UF | NX},
                  {0x007fffff, UF | NX},
                  {kMinNormal, UF | NX},
                  {kMinNormal, UF | NX}}});
}

TEST(SoftFloatRules, ExactSubnormalResultsRaiseNoUnderflow) {
  expectAllModes("2^-148 * 0.5", [](Rounding rm, u8& f) { return mul32(0x00000002, kHalf, rm, f); },
                 {kMinSub, 0});
  expectAllModes("1.5*2^-126 - 2^-126",
                 [](Rounding rm, u8& f) { return sub32(0x00c00000, kMinNormal, rm, f); },
                 {0x00400000, 0});
  expectAllModes(
      "d: subnormal + subnormal",
      [](Rounding rm, u8& f) { return add64(0x0000000000000003, 0x0000000000000005, rm, f); },
      {0x0000000000000008, 0});
}

TEST(SoftFloatRules, DivisionByZeroGivesSignedInfinityAndZeroOverZeroIsInvalid) {
  expectAllModes("1 / +0", [](Rounding rm, u8& f) { return div32(kOne, 0, rm, f); }, {kInf, DZ});
  expectAllModes("-1 / +0", [](Rounding rm, u8& f) { return div32(0xbf800000, 0, rm, f); },
                 {kNegInf, DZ});
  expectAllModes("1 / -0", [](Rounding rm, u8& f) { return div32(kOne, kNegZero, rm, f); },
                 {kNegInf, DZ});
  expectAllModes("inf / 0 is not a division by zero",
                 [](Rounding rm, u8& f) { return div32(kInf, 0, rm, f); }, {kInf, 0});
  expectAllModes("0 / 0", [](Rounding rm, u8& f) { return div32(0, kNegZero, rm, f); },
                 {kCanonicalNaN32, NV});
  expectAllModes("d: 1 / 0", [](Rounding rm, u8& f) { return div64(0x3ff0000000000000, 0, rm, f); },
                 {0x7ff0000000000000, DZ});
}

TEST(SoftFloatRules, InvalidOperationsGiveTheCanonicalNaN) {
  const Want nv{kCanonicalNaN32, NV};
  expectAllModes(
      "inf - inf", [](Rounding rm, u8& f) { return sub32(kInf, kInf, rm, f); }, nv);
  expectAllModes(
      "inf + -inf", [](Rounding rm, u8& f) { return add32(kInf, kNegInf, rm, f); }, nv);
  expectAllModes(
      "0 * inf", [](Rounding rm, u8& f) { return mul32(0, kInf, rm, f); }, nv);
  expectAllModes(
      "-inf * 0", [](Rounding rm, u8& f) { return mul32(kNegInf, 0, rm, f); }, nv);
  expectAllModes(
      "inf / -inf", [](Rounding rm, u8& f) { return div32(kInf, kNegInf, rm, f); }, nv);
  expectAllModes(
      "inf * 1 - inf", [](Rounding rm, u8& f) { return mulAdd32(kInf, kOne, kNegInf, rm, f); }, nv);
  expectAllModes(
      "d: inf - inf",
      [](Rounding rm, u8& f) { return sub64(0x7ff0000000000000, 0x7ff0000000000000, rm, f); },
      {kCanonicalNaN64, NV});
}

TEST(SoftFloatRules, SqrtOfNegativeIsInvalidButSqrtOfMinusZeroIsMinusZero) {
  expectAllModes("sqrt -0", [](Rounding rm, u8& f) { return sqrt32(kNegZero, rm, f); },
                 {kNegZero, 0});
  expectAllModes("sqrt -1", [](Rounding rm, u8& f) { return sqrt32(0xbf800000, rm, f); },
                 {kCanonicalNaN32, NV});
  expectAllModes("sqrt -min subnormal",
                 [](Rounding rm, u8& f) { return sqrt32(kMinSub | kNegZero, rm, f); },
                 {kCanonicalNaN32, NV});
  expectAllModes("sqrt -inf", [](Rounding rm, u8& f) { return sqrt32(kNegInf, rm, f); },
                 {kCanonicalNaN32, NV});
  expectAllModes("sqrt +inf", [](Rounding rm, u8& f) { return sqrt32(kInf, rm, f); }, {kInf, 0});
  expectAllModes("sqrt 4", [](Rounding rm, u8& f) { return sqrt32(0x40800000, rm, f); }, {kTwo, 0});
  // sqrt(2) is about 0.2 ulp above 0x3fb504f3: only RUP takes the next float.
  expectPerMode(
      "sqrt 2", [](Rounding rm, u8& f) { return sqrt32(kTwo, rm, f); },
      {{{0x3fb504f3, NX}, {0x3fb504f3, NX}, {0x3fb504f3, NX}, {0x3fb504f4, NX}, {0x3fb504f3, NX}}});
  expectAllModes("d: sqrt -0", [](Rounding rm, u8& f) { return sqrt64(0x8000000000000000, rm, f); },
                 {0x8000000000000000, 0});
}

TEST(SoftFloatRules, SignalingNaNOperandsRaiseInvalidAndQuietOnesDoNot) {
  expectAllModes("sNaN + 1", [](Rounding rm, u8& f) { return add32(kSNaN, kOne, rm, f); },
                 {kCanonicalNaN32, NV});
  expectAllModes("1 * sNaN", [](Rounding rm, u8& f) { return mul32(kOne, kSNaN, rm, f); },
                 {kCanonicalNaN32, NV});
  expectAllModes("sqrt sNaN", [](Rounding rm, u8& f) { return sqrt32(kSNaN, rm, f); },
                 {kCanonicalNaN32, NV});
  expectAllModes("qNaN + 1", [](Rounding rm, u8& f) { return add32(kQNaN, kOne, rm, f); },
                 {kCanonicalNaN32, 0});
  expectAllModes("-qNaN / 0", [](Rounding rm, u8& f) { return div32(kQNaN | kNegZero, 0, rm, f); },
                 {kCanonicalNaN32, 0});
  expectAllModes("d: qNaN * 2",
                 [](Rounding rm, u8& f) { return mul64(kQNaN64, 0x4000000000000000, rm, f); },
                 {kCanonicalNaN64, 0});
  expectAllModes("f32 sNaN to f64", [](Rounding, u8& f) { return f32ToF64(kSNaN, f); },
                 {kCanonicalNaN64, NV});
  expectAllModes("f32 qNaN to f64", [](Rounding, u8& f) { return f32ToF64(kQNaN, f); },
                 {kCanonicalNaN64, 0});
  expectAllModes("f64 sNaN to f32", [](Rounding rm, u8& f) { return f64ToF32(kSNaN64, rm, f); },
                 {kCanonicalNaN32, NV});
  expectAllModes("f64 qNaN to f32", [](Rounding rm, u8& f) { return f64ToF32(kQNaN64, rm, f); },
                 {kCanonicalNaN32, 0});
}

TEST(SoftFloatRules, FmaInfinityTimesZeroIsInvalidEvenWithAQuietNaNAddend) {
  expectAllModes("inf * 0 + qNaN",
                 [](Rounding rm, u8& f) { return mulAdd32(kInf, 0, kQNaN, rm, f); },
                 {kCanonicalNaN32, NV});
  expectAllModes("0 * -inf + qNaN",
                 [](Rounding rm, u8& f) { return mulAdd32(0, kNegInf, kQNaN, rm, f); },
                 {kCanonicalNaN32, NV});
  expectAllModes("d: inf * 0 + qNaN",
                 [](Rounding rm, u8& f) { return mulAdd64(0x7ff0000000000000, 0, kQNaN64, rm, f); },
                 {kCanonicalNaN64, NV});
  // A NaN factor is not an invalid product.
  expectAllModes("qNaN * 0 + inf",
                 [](Rounding rm, u8& f) { return mulAdd32(kQNaN, 0, kInf, rm, f); },
                 {kCanonicalNaN32, 0});
  expectAllModes("1 * 2 + sNaN",
                 [](Rounding rm, u8& f) { return mulAdd32(kOne, kTwo, kSNaN, rm, f); },
                 {kCanonicalNaN32, NV});
  expectAllModes("inf * 2 + inf",
                 [](Rounding rm, u8& f) { return mulAdd32(kInf, kTwo, kInf, rm, f); }, {kInf, 0});
}

TEST(SoftFloatRules, FmaRoundsOnlyOnce) {
  // (1 + 2^-23)(1 - 2^-23) - 1 = -2^-46 exactly; a separately rounded product would give 0.
  expectAllModes(
      "(1+u)(1-u) - 1",
      [](Rounding rm, u8& f) { return mulAdd32(0x3f800001, 0x3f7ffffe, 0xbf800000, rm, f); },
      {0xa8800000, 0});
}

TEST(SoftFloatRules, FloatToUnsignedOfSmallNegativesDependsOnTheRoundedValue) {
  const u64 minus09 = 0xbfeccccccccccccd;  // -0.9
  const u64 minus04 = 0xbfd999999999999a;  // -0.4
  // -0.9 rounds to -1 (invalid, saturating to 0) except toward zero or up, where it rounds to 0.
  expectPerMode("-0.9 to u32", [&](Rounding rm, u8& f) { return f64ToU32(minus09, rm, f); },
                {{{0, NV}, {0, NX}, {0, NV}, {0, NX}, {0, NV}}});
  expectPerMode("-0.9 to u64", [&](Rounding rm, u8& f) { return f64ToU64(minus09, rm, f); },
                {{{0, NV}, {0, NX}, {0, NV}, {0, NX}, {0, NV}}});
  expectPerMode("-0.4 to u32", [&](Rounding rm, u8& f) { return f64ToU32(minus04, rm, f); },
                {{{0, NX}, {0, NX}, {0, NV}, {0, NX}, {0, NX}}});
  expectPerMode("f32 -0.5 to u32", [](Rounding rm, u8& f) { return f32ToU32(0xbf000000, rm, f); },
                {{{0, NX}, {0, NX}, {0, NV}, {0, NX}, {0, NV}}});
  expectAllModes("-1.0 to u32",
                 [](Rounding rm, u8& f) { return f64ToU32(0xbff0000000000000, rm, f); }, {0, NV});
  expectAllModes("-1.0 to u64", [](Rounding rm, u8& f) { return f32ToU64(0xbf800000, rm, f); },
                 {0, NV});
  expectAllModes("-0.0 to u32",
                 [](Rounding rm, u8& f) { return f64ToU32(0x8000000000000000, rm, f); }, {0, 0});
}

TEST(SoftFloatRules, FloatToIntSaturatesWithInvalidAndNeverInexact) {
  const u64 kI32Max = 0x7fffffff;
  const u64 kI32Min = 0xffffffff80000000;  // sign-extended
  // 2^31 - 0.5 rounds to 2^31 (out of range) to nearest and up.
  expectPerMode("2^31-0.5 to i32",
                [](Rounding rm, u8& f) { return f64ToI32(0x41dfffffffe00000, rm, f); },
                {{{kI32Max, NV}, {kI32Max, NX}, {kI32Max, NX}, {kI32Max, NV}, {kI32Max, NV}}});
  // -2^31 - 0.5: the tie goes to the even -2^31 in RNE but away to -2^31 - 1 in RMM.
  expectPerMode("-2^31-0.5 to i32",
                [](Rounding rm, u8& f) { return f64ToI32(0xc1e0000000100000, rm, f); },
                {{{kI32Min, NX}, {kI32Min, NX}, {kI32Min, NV}, {kI32Min, NX}, {kI32Min, NV}}});
  expectAllModes("2^31 - 1 to i32",
                 [](Rounding rm, u8& f) { return f64ToI32(0x41dfffffffc00000, rm, f); },
                 {kI32Max, 0});
  expectAllModes("2^31 to i32",
                 [](Rounding rm, u8& f) { return f64ToI32(0x41e0000000000000, rm, f); },
                 {kI32Max, NV});
  expectAllModes("-2^31 to i32",
                 [](Rounding rm, u8& f) { return f64ToI32(0xc1e0000000000000, rm, f); },
                 {kI32Min, 0});
  expectAllModes("-1e10 to i32",
                 [](Rounding rm, u8& f) { return f64ToI32(0xc202a05f20000000, rm, f); },
                 {kI32Min, NV});
  // 2^32 - 0.5 to u32: RTZ gives 0xffffffff (written sign-extended) with inexact only.
  expectPerMode("2^32-0.5 to u32",
                [](Rounding rm, u8& f) { return f64ToU32(0x41effffffff00000, rm, f); },
                {{{~u64{0}, NV}, {~u64{0}, NX}, {~u64{0}, NX}, {~u64{0}, NV}, {~u64{0}, NV}}});
  expectAllModes("f32 2^63 to i64", [](Rounding rm, u8& f) { return f32ToI64(0x5f000000, rm, f); },
                 {0x7fffffffffffffff, NV});
  expectAllModes("f32 -2^63 to i64", [](Rounding rm, u8& f) { return f32ToI64(0xdf000000, rm, f); },
                 {0x8000000000000000, 0});
  expectAllModes("2^64 - 2048 to u64",
                 [](Rounding rm, u8& f) { return f64ToU64(0x43efffffffffffff, rm, f); },
                 {0xfffffffffffff800, 0});
  expectAllModes("2^64 to u64",
                 [](Rounding rm, u8& f) { return f64ToU64(0x43f0000000000000, rm, f); },
                 {~u64{0}, NV});
  expectAllModes("+inf to i32", [](Rounding rm, u8& f) { return f32ToI32(kInf, rm, f); },
                 {kI32Max, NV});
  expectAllModes("-inf to i32", [](Rounding rm, u8& f) { return f32ToI32(kNegInf, rm, f); },
                 {kI32Min, NV});
  expectAllModes("-inf to u32", [](Rounding rm, u8& f) { return f32ToU32(kNegInf, rm, f); },
                 {0, NV});
  expectAllModes("+inf to u64", [](Rounding rm, u8& f) { return f32ToU64(kInf, rm, f); },
                 {~u64{0}, NV});
}

TEST(SoftFloatRules, FloatToIntOfNaNGivesTheLargestPositiveInteger) {
  for (u32 nan : {kQNaN, kSNaN, kQNaN | kNegZero}) {
    u8 f = 0;
    EXPECT_EQ(hex(f32ToI32(nan, Rounding::kNearestEven, f)), hex(0x7fffffff));
    EXPECT_EQ(hex(f32ToU32(nan, Rounding::kNearestEven, f)), hex(~u64{0}));
    EXPECT_EQ(hex(f32ToI64(nan, Rounding::kNearestEven, f)), hex(0x7fffffffffffffff));
    EXPECT_EQ(hex(f32ToU64(nan, Rounding::kNearestEven, f)), hex(~u64{0}));
    EXPECT_EQ(f, NV);
  }
  for (u64 nan : {kQNaN64, kSNaN64}) {
    u8 f = 0;
    EXPECT_EQ(hex(f64ToI32(nan, Rounding::kTowardZero, f)), hex(0x7fffffff));
    EXPECT_EQ(hex(f64ToU32(nan, Rounding::kTowardZero, f)), hex(~u64{0}));
    EXPECT_EQ(hex(f64ToI64(nan, Rounding::kTowardZero, f)), hex(0x7fffffffffffffff));
    EXPECT_EQ(hex(f64ToU64(nan, Rounding::kTowardZero, f)), hex(~u64{0}));
    EXPECT_EQ(f, NV);
  }
}

TEST(SoftFloatRules, ThirtyTwoBitConversionResultsAreSignExtended) {
  u8 f = 0;
  EXPECT_EQ(hex(f64ToU32(0x41e0000000000000, Rounding::kNearestEven, f)), hex(0xffffffff80000000));
  EXPECT_EQ(hex(f32ToI32(0xbf800000, Rounding::kNearestEven, f)), hex(~u64{0}));  // -1
  EXPECT_EQ(hex(f32ToU32(0x4effffff, Rounding::kNearestEven, f)), hex(0x7fffff80));
  EXPECT_EQ(f, 0);
}

TEST(SoftFloatRules, IntegerToFloatRoundsPerModeAndIsExactWhenItFits) {
  expectPerMode(
      "u64 max to f32", [](Rounding rm, u8& f) { return u64ToF32(~u64{0}, rm, f); },
      {{{0x5f800000, NX}, {0x5f7fffff, NX}, {0x5f7fffff, NX}, {0x5f800000, NX}, {0x5f800000, NX}}});
  expectPerMode("u64 max to f64", [](Rounding rm, u8& f) { return u64ToF64(~u64{0}, rm, f); },
                {{{0x43f0000000000000, NX},
                  {0x43efffffffffffff, NX},
                  {0x43efffffffffffff, NX},
                  {0x43f0000000000000, NX},
                  {0x43f0000000000000, NX}}});
  expectAllModes(
      "i64 min to f32",
      [](Rounding rm, u8& f) { return i64ToF32(static_cast<i64>(0x8000000000000000), rm, f); },
      {0xdf000000, 0});
  expectAllModes("i32 min to f64",
                 [](Rounding rm, u8& f) { return i32ToF64(static_cast<i32>(0x80000000), rm, f); },
                 {0xc1e0000000000000, 0});
  expectAllModes("u32 max to f64", [](Rounding rm, u8& f) { return u32ToF64(0xffffffff, rm, f); },
                 {0x41efffffffe00000, 0});
  expectPerMode(
      "u32 max to f32", [](Rounding rm, u8& f) { return u32ToF32(0xffffffff, rm, f); },
      {{{0x4f800000, NX}, {0x4f7fffff, NX}, {0x4f7fffff, NX}, {0x4f800000, NX}, {0x4f800000, NX}}});
}

TEST(SoftFloatRules, EqIsQuietWhileLtAndLeSignalOnAnyNaN) {
  u8 f = 0;
  EXPECT_FALSE(eq32(kQNaN, kQNaN, f));
  EXPECT_EQ(f, 0);
  EXPECT_FALSE(eq32(kSNaN, kOne, f));
  EXPECT_EQ(f, NV);
  f = 0;
  EXPECT_FALSE(lt32(kQNaN, kOne, f));
  EXPECT_EQ(f, NV);
  f = 0;
  EXPECT_FALSE(le64(kOne, kQNaN64, f));
  EXPECT_EQ(f, NV);
  f = 0;
  EXPECT_TRUE(eq32(0, kNegZero, f));
  EXPECT_FALSE(lt32(kNegZero, 0, f));
  EXPECT_TRUE(le32(0, kNegZero, f));
  EXPECT_TRUE(lt32(0xc0000000, 0xbf800000, f));  // -2 < -1
  EXPECT_FALSE(lt32(0xbf800000, 0xc0000000, f));
  EXPECT_TRUE(lt32(kNegInf, kMinSub | kNegZero, f));
  EXPECT_TRUE(le64(0x8000000000000001, 0, f));
  EXPECT_FALSE(eq64(0x3ff0000000000000, 0x3ff0000000000001, f));
  EXPECT_EQ(f, 0);
}

TEST(SoftFloatRules, MinMaxReturnTheNonNaNOperandAndOrderMinusZeroBelowPlusZero) {
  u8 f = 0;
  EXPECT_EQ(hex(min32(kQNaN, kOne, f)), hex(kOne));
  EXPECT_EQ(hex(max32(kOne, kQNaN, f)), hex(kOne));
  EXPECT_EQ(f, 0);
  EXPECT_EQ(hex(min32(kSNaN, kOne, f)), hex(kOne));
  EXPECT_EQ(f, NV);
  f = 0;
  EXPECT_EQ(hex(max32(kQNaN, kSNaN, f)), hex(kCanonicalNaN32));
  EXPECT_EQ(f, NV);
  f = 0;
  EXPECT_EQ(hex(min32(kQNaN, kQNaN | kNegZero, f)), hex(kCanonicalNaN32));
  EXPECT_EQ(f, 0);
  EXPECT_EQ(hex(min32(0, kNegZero, f)), hex(kNegZero));
  EXPECT_EQ(hex(min32(kNegZero, 0, f)), hex(kNegZero));
  EXPECT_EQ(hex(max32(kNegZero, 0, f)), hex(0));
  EXPECT_EQ(hex(max32(0, kNegZero, f)), hex(0));
  EXPECT_EQ(hex(min32(0xc0000000, 0xbf800000, f)), hex(0xc0000000));
  EXPECT_EQ(hex(max32(kNegInf, kMinSub, f)), hex(kMinSub));
  EXPECT_EQ(hex(min64(0x8000000000000000, 0, f)), hex(0x8000000000000000));
  EXPECT_EQ(hex(max64(kQNaN64, 0xbff0000000000000, f)), hex(0xbff0000000000000));
  EXPECT_EQ(f, 0);
}

TEST(SoftFloatRules, ClassifySetsExactlyTheBitOfTheOperandsClass) {
  EXPECT_EQ(classify32(kNegInf), 1u << 0);
  EXPECT_EQ(classify32(0xbf800000), 1u << 1);
  EXPECT_EQ(classify32(kMinSub | kNegZero), 1u << 2);
  EXPECT_EQ(classify32(kNegZero), 1u << 3);
  EXPECT_EQ(classify32(0), 1u << 4);
  EXPECT_EQ(classify32(0x007fffff), 1u << 5);
  EXPECT_EQ(classify32(kMinNormal), 1u << 6);
  EXPECT_EQ(classify32(kInf), 1u << 7);
  EXPECT_EQ(classify32(kSNaN), 1u << 8);
  EXPECT_EQ(classify32(kQNaN | kNegZero), 1u << 9);
  EXPECT_EQ(classify64(0xfff0000000000000), 1u << 0);
  EXPECT_EQ(classify64(0x800fffffffffffff), 1u << 2);
  EXPECT_EQ(classify64(0x7fefffffffffffff), 1u << 6);
  EXPECT_EQ(classify64(kSNaN64), 1u << 8);
  EXPECT_EQ(classify64(kQNaN64), 1u << 9);
}

}  // namespace
}  // namespace hpm::softfloat
