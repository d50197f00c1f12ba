// An independent, deliberately simple reference for correctly rounded IEEE arithmetic, used to
// test the rounding mode the host FPU lacks (RMM) and, in the other modes, checked against the
// same implementation that the host checks.
//
// It shares no code with the library and takes a different route: each operation produces its
// exact result as an unbounded integer times a power of two (division and square root produce
// at least p + 3 correct bits plus a flag telling that the true value is a little larger), and
// a single rounding function applies the IEEE 754 definitions bit by bit: the value rounded to
// the format's precision with an unbounded exponent decides overflow and tininess, and the value
// rounded at the format's actual unit in the last place is the result.
#pragma once

#include <vector>

#include "base/types.h"
#include "isa/softfloat/softfloat.h"
#include "tests/isa/softfloat/test_support.h"

namespace hpm::softfloat::test {

// Unbounded natural number, little-endian 32-bit limbs, no leading zero limbs.
class BigNat {
 public:
  BigNat() = default;
  explicit BigNat(u128 v);

  bool isZero() const { return limbs_.empty(); }
  int bitLength() const;
  bool bit(int i) const;
  bool anyBitBelow(int i) const;  // any of bits [0, i) set
  u128 low128() const;            // the value mod 2^128

  BigNat shifted(int n) const;  // * 2^n for n >= 0, floor(/ 2^-n) for n < 0
  BigNat divided(u64 d, u64& remainder) const;
  friend BigNat operator+(const BigNat& a, const BigNat& b);
  friend BigNat operator-(const BigNat& a, const BigNat& b);  // requires a >= b
  friend BigNat operator*(const BigNat& a, const BigNat& b);
  friend int compare(const BigNat& a, const BigNat& b);

 private:
  void trim();
  std::vector<u32> limbs_;
};

// The outcome of an operation before rounding.
struct RefExact {
  enum class Kind { kFixed, kZeroSum, kValue };
  Kind kind = Kind::kFixed;
  // kFixed: a result that needs no rounding (NaN, infinity, zero, an unchanged operand),
  // already encoded in the result format.
  u64 bits = 0;
  u8 flags = 0;
  // kZeroSum: an exact zero from adding terms with these signs; its sign depends on the mode.
  bool signA = false;
  bool signB = false;
  // kValue: (-1)^sign * (mag + t) * 2^exp, where t = 0 if !sticky and 0 < t < 1 otherwise.
  bool sign = false;
  BigNat mag;
  int exp = 0;
  bool sticky = false;
};

RefExact refAdd(const FormatDesc& f, u64 a, u64 b);
RefExact refMul(const FormatDesc& f, u64 a, u64 b);
RefExact refDiv(const FormatDesc& f, u64 a, u64 b);
RefExact refSqrt(const FormatDesc& f, u64 a);
RefExact refMulAdd(const FormatDesc& f, u64 a, u64 b, u64 c);
RefExact refConvert(const FormatDesc& from, const FormatDesc& to, u64 a);
RefExact refFromInt(bool negative, u64 magnitude);

// Rounds an exact outcome into format `to`, ORing the raised flags into `flags`.
u64 refRound(const FormatDesc& to, const RefExact& x, Rounding rm, u8& flags);

}  // namespace hpm::softfloat::test
