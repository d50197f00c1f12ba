// Randomized comparison of the library with the exact reference (reference.h) in all five
// rounding modes. For RMM, which the host FPU lacks, this is the oracle; in the other four modes
// the same comparison double-checks the reference itself, since host_test.cpp holds the library
// to the host FPU on the same input distributions.
#include <array>
#include <string>

#include "tests/isa/softfloat/reference.h"
#include "tests/isa/softfloat/test_support.h"

namespace hpm::softfloat::test {
namespace {

// Random inputs per operation; each runs in all five modes. The reference is slow (unbounded
// integers), so fewer than in host_test.cpp.
constexpr int kCases = 25'000;

using Inputs = std::array<u64, 3>;

template <class DrawFn, class SoftFn, class RefFn>
void compareWithReference(const char* name, const FormatDesc& out, DrawFn draw, SoftFn soft,
                          RefFn ref) {
  Gen gen(std::hash<std::string>{}(name));
  Mismatches bad;
  const int n = kCases * caseScale();
  for (int i = 0; i < n; ++i) {
    const Inputs in = draw(gen);
    const RefExact exact = ref(in);
    for (Rounding rm : kAllModes) {
      u8 wantFlags = 0;
      const u64 want = refRound(out, exact, rm, wantFlags);
      u8 flags = 0;
      const u64 got = soft(in, rm, flags);
      if (got != want || flags != wantFlags) {
        bad.add(std::string(name) + " " + modeName(rm) + " (" + hex(in[0]) + " " + hex(in[1]) +
                " " + hex(in[2]) + ") = " + hex(got) + " flags " + hex(flags) + ", reference " +
                hex(want) + " flags " + hex(wantFlags));
      }
    }
  }
  EXPECT_EQ(bad.count(), 0) << name;
}

u32 lo(u64 v) {
  return static_cast<u32>(v);
}

TEST(SoftFloatMatchesReference, AddAndSubAreCorrectlyRoundedInAllModesIncludingRmm) {
  for (const FormatDesc* f : {&kSingle, &kDouble}) {
    const bool single = f == &kSingle;
    auto draw = [f](Gen& g) {
      const u64 a = g.operand(*f);
      return Inputs{a, g.addend(*f, a), 0};
    };
    compareWithReference(
        single ? "add32" : "add64", *f, draw,
        [single](const Inputs& in, Rounding rm, u8& fl) -> u64 {
          return single ? add32(lo(in[0]), lo(in[1]), rm, fl) : add64(in[0], in[1], rm, fl);
        },
        [f](const Inputs& in) { return refAdd(*f, in[0], in[1]); });
    compareWithReference(
        single ? "sub32" : "sub64", *f, draw,
        [single](const Inputs& in, Rounding rm, u8& fl) -> u64 {
          return single ? sub32(lo(in[0]), lo(in[1]), rm, fl) : sub64(in[0], in[1], rm, fl);
        },
        [f](const Inputs& in) { return refAdd(*f, in[0], in[1] ^ f->signBit()); });
  }
}

TEST(SoftFloatMatchesReference, MulIsCorrectlyRoundedInAllModesIncludingRmm) {
  for (const FormatDesc* f : {&kSingle, &kDouble}) {
    const bool single = f == &kSingle;
    compareWithReference(
        single ? "mul32" : "mul64", *f,
        [f](Gen& g) {
          const u64 a = g.operand(*f);
          return Inputs{a, g.factor(*f, a), 0};
        },
        [single](const Inputs& in, Rounding rm, u8& fl) -> u64 {
          return single ? mul32(lo(in[0]), lo(in[1]), rm, fl) : mul64(in[0], in[1], rm, fl);
        },
        [f](const Inputs& in) { return refMul(*f, in[0], in[1]); });
  }
}

TEST(SoftFloatMatchesReference, DivIsCorrectlyRoundedInAllModesIncludingRmm) {
  for (const FormatDesc* f : {&kSingle, &kDouble}) {
    const bool single = f == &kSingle;
    compareWithReference(
        single ? "div32" : "div64", *f,
        [f](Gen& g) {
          const u64 a = g.operand(*f);
          return Inputs{a, g.divisor(*f, a), 0};
        },
        [single](const Inputs& in, Rounding rm, u8& fl) -> u64 {
          return single ? div32(lo(in[0]), lo(in[1]), rm, fl) : div64(in[0], in[1], rm, fl);
        },
        [f](const Inputs& in) { return refDiv(*f, in[0], in[1]); });
  }
}

TEST(SoftFloatMatchesReference, SqrtIsCorrectlyRoundedInAllModesIncludingRmm) {
  for (const FormatDesc* f : {&kSingle, &kDouble}) {
    const bool single = f == &kSingle;
    compareWithReference(
        single ? "sqrt32" : "sqrt64", *f,
        [f](Gen& g) {
          return Inputs{g.operand(*f) & (g.below(8) == 0 ? ~u64{0} : ~f->signBit()), 0, 0};
        },
        [single](const Inputs& in, Rounding rm, u8& fl) -> u64 {
          return single ? sqrt32(lo(in[0]), rm, fl) : sqrt64(in[0], rm, fl);
        },
        [f](const Inputs& in) { return refSqrt(*f, in[0]); });
  }
}

TEST(SoftFloatMatchesReference, FusedMulAddRoundsOnceInAllModesIncludingRmm) {
  for (const FormatDesc* f : {&kSingle, &kDouble}) {
    const bool single = f == &kSingle;
    compareWithReference(
        single ? "mulAdd32" : "mulAdd64", *f,
        [f](Gen& g) {
          const u64 a = g.operand(*f);
          const u64 b = g.factor(*f, a);
          return Inputs{a, b, g.productAddend(*f, a, b)};
        },
        [single](const Inputs& in, Rounding rm, u8& fl) -> u64 {
          return single ? mulAdd32(lo(in[0]), lo(in[1]), lo(in[2]), rm, fl)
                        : mulAdd64(in[0], in[1], in[2], rm, fl);
        },
        [f](const Inputs& in) { return refMulAdd(*f, in[0], in[1], in[2]); });
  }
}

TEST(SoftFloatMatchesReference, FormatConversionsRoundInAllModesIncludingRmm) {
  compareWithReference(
      "f64ToF32", kSingle,
      [](Gen& g) {
        return Inputs{g.narrowable(), 0, 0};
      },
      [](const Inputs& in, Rounding rm, u8& fl) -> u64 { return f64ToF32(in[0], rm, fl); },
      [](const Inputs& in) { return refConvert(kDouble, kSingle, in[0]); });
  compareWithReference(
      "f32ToF64", kDouble,
      [](Gen& g) {
        return Inputs{g.operand(kSingle), 0, 0};
      },
      [](const Inputs& in, Rounding, u8& fl) -> u64 { return f32ToF64(lo(in[0]), fl); },
      [](const Inputs& in) { return refConvert(kSingle, kDouble, in[0]); });
}

TEST(SoftFloatMatchesReference, IntegerToFloatConversionsRoundInAllModesIncludingRmm) {
  struct Case {
    const char* name;
    const FormatDesc* out;
    int bits;
    bool isSigned;
    u64 (*soft)(u64, Rounding, u8&);
  };
  static const Case kCasesList[] = {
      {"i32ToF32", &kSingle, 32, true,
       [](u64 v, Rounding rm, u8& fl) -> u64 { return i32ToF32(static_cast<i32>(v), rm, fl); }},
      {"u32ToF32", &kSingle, 32, false,
       [](u64 v, Rounding rm, u8& fl) -> u64 { return u32ToF32(lo(v), rm, fl); }},
      {"i64ToF32", &kSingle, 64, true,
       [](u64 v, Rounding rm, u8& fl) -> u64 { return i64ToF32(static_cast<i64>(v), rm, fl); }},
      {"u64ToF32", &kSingle, 64, false,
       [](u64 v, Rounding rm, u8& fl) -> u64 { return u64ToF32(v, rm, fl); }},
      {"i32ToF64", &kDouble, 32, true,
       [](u64 v, Rounding rm, u8& fl) -> u64 { return i32ToF64(static_cast<i32>(v), rm, fl); }},
      {"u32ToF64", &kDouble, 32, false,
       [](u64 v, Rounding rm, u8& fl) -> u64 { return u32ToF64(lo(v), rm, fl); }},
      {"i64ToF64", &kDouble, 64, true,
       [](u64 v, Rounding rm, u8& fl) -> u64 { return i64ToF64(static_cast<i64>(v), rm, fl); }},
      {"u64ToF64", &kDouble, 64, false,
       [](u64 v, Rounding rm, u8& fl) -> u64 { return u64ToF64(v, rm, fl); }},
  };
  for (const Case& c : kCasesList) {
    compareWithReference(
        c.name, *c.out,
        [&c](Gen& g) {
          u64 v = g.integer(c.out->precision(), c.bits);
          if (c.isSigned && g.coin()) v = 0 - v;
          if (c.bits == 32) v = c.isSigned ? static_cast<u64>(static_cast<i32>(v)) : lo(v);
          return Inputs{v, 0, 0};
        },
        [&c](const Inputs& in, Rounding rm, u8& fl) { return c.soft(in[0], rm, fl); },
        [&c](const Inputs& in) {
          const bool negative = c.isSigned && static_cast<i64>(in[0]) < 0;
          return refFromInt(negative, negative ? 0 - in[0] : in[0]);
        });
  }
}

}  // namespace
}  // namespace hpm::softfloat::test
