#include "tests/isa/softfloat/reference.h"

#include <algorithm>
#include <bit>

namespace hpm::softfloat::test {

BigNat::BigNat(u128 v) {
  for (; v != 0; v >>= 32) limbs_.push_back(static_cast<u32>(v));
}

void BigNat::trim() {
  while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
}

int BigNat::bitLength() const {
  if (limbs_.empty()) return 0;
  return 32 * static_cast<int>(limbs_.size() - 1) + std::bit_width(limbs_.back());
}

bool BigNat::bit(int i) const {
  if (i < 0) return false;
  const size_t word = static_cast<size_t>(i) / 32;
  return word < limbs_.size() && ((limbs_[word] >> (i % 32)) & 1) != 0;
}

bool BigNat::anyBitBelow(int i) const {
  const size_t fullWords = std::min(limbs_.size(), static_cast<size_t>(std::max(i, 0)) / 32);
  for (size_t w = 0; w < fullWords; ++w) {
    if (limbs_[w] != 0) return true;
  }
  for (int j = static_cast<int>(fullWords) * 32; j < i; ++j) {
    if (bit(j)) return true;
  }
  return false;
}

u128 BigNat::low128() const {
  u128 v = 0;
  for (size_t i = std::min<size_t>(limbs_.size(), 4); i-- > 0;) v = (v << 32) | limbs_[i];
  return v;
}

BigNat BigNat::shifted(int n) const {
  BigNat r;
  if (n >= 0) {
    // Whole limbs of zeros, then a bit shift with the carry moving up.
    r.limbs_.assign(static_cast<size_t>(n) / 32, 0);
    const int bits = n % 32;
    u32 carry = 0;
    for (u32 limb : limbs_) {
      r.limbs_.push_back(bits == 0 ? limb : (limb << bits) | carry);
      carry = bits == 0 ? 0 : limb >> (32 - bits);
    }
    r.limbs_.push_back(carry);
  } else {
    const size_t drop = static_cast<size_t>(-n) / 32;
    const int bits = -n % 32;
    for (size_t i = drop; i < limbs_.size(); ++i) {
      const u64 pair = limbs_[i] | (i + 1 < limbs_.size() ? u64{limbs_[i + 1]} << 32 : 0);
      r.limbs_.push_back(static_cast<u32>(pair >> bits));
    }
  }
  r.trim();
  return r;
}

BigNat BigNat::divided(u64 d, u64& remainder) const {
  BigNat q;
  q.limbs_.assign(limbs_.size(), 0);
  u128 rem = 0;
  for (size_t i = limbs_.size(); i-- > 0;) {
    const u128 cur = (rem << 32) | limbs_[i];
    q.limbs_[i] = static_cast<u32>(cur / d);
    rem = cur % d;
  }
  remainder = static_cast<u64>(rem);
  q.trim();
  return q;
}

BigNat operator+(const BigNat& a, const BigNat& b) {
  BigNat r;
  u64 carry = 0;
  for (size_t i = 0; i < std::max(a.limbs_.size(), b.limbs_.size()) || carry != 0; ++i) {
    const u64 s =
        carry + (i < a.limbs_.size() ? a.limbs_[i] : 0) + (i < b.limbs_.size() ? b.limbs_[i] : 0);
    r.limbs_.push_back(static_cast<u32>(s));
    carry = s >> 32;
  }
  r.trim();
  return r;
}

BigNat operator-(const BigNat& a, const BigNat& b) {
  BigNat r;
  i64 borrow = 0;
  for (size_t i = 0; i < a.limbs_.size(); ++i) {
    i64 d = static_cast<i64>(a.limbs_[i]) - (i < b.limbs_.size() ? b.limbs_[i] : 0) - borrow;
    borrow = d < 0 ? 1 : 0;
    if (d < 0) d += i64{1} << 32;
    r.limbs_.push_back(static_cast<u32>(d));
  }
  r.trim();
  return r;
}

BigNat operator*(const BigNat& a, const BigNat& b) {
  BigNat r;
  r.limbs_.assign(a.limbs_.size() + b.limbs_.size() + 1, 0);
  for (size_t i = 0; i < a.limbs_.size(); ++i) {
    u64 carry = 0;
    for (size_t j = 0; j < b.limbs_.size(); ++j) {
      const u64 t = static_cast<u64>(a.limbs_[i]) * b.limbs_[j] + r.limbs_[i + j] + carry;
      r.limbs_[i + j] = static_cast<u32>(t);
      carry = t >> 32;
    }
    r.limbs_[i + b.limbs_.size()] = static_cast<u32>(carry);
  }
  r.trim();
  return r;
}

int compare(const BigNat& a, const BigNat& b) {
  if (a.limbs_.size() != b.limbs_.size()) return a.limbs_.size() < b.limbs_.size() ? -1 : 1;
  for (size_t i = a.limbs_.size(); i-- > 0;) {
    if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] < b.limbs_[i] ? -1 : 1;
  }
  return 0;
}

namespace {

struct Operand {
  enum class Class { kZero, kFinite, kInf, kQuietNaN, kSignalingNaN };
  Class cls;
  bool sign;
  u64 sig;  // kFinite: value = sig * 2^exp
  int exp;

  bool nan() const { return cls == Class::kQuietNaN || cls == Class::kSignalingNaN; }
  bool is(Class c) const { return cls == c; }
};

Operand decode(const FormatDesc& f, u64 bits) {
  const bool sign = (bits & f.signBit()) != 0;
  const u64 be = f.biasedExp(bits);
  const u64 frac = bits & f.fracMask();
  if (be == f.maxBiasedExp()) {
    if (frac == 0) return {Operand::Class::kInf, sign, 0, 0};
    const bool quiet = ((frac >> (f.fracBits - 1)) & 1) != 0;
    return {quiet ? Operand::Class::kQuietNaN : Operand::Class::kSignalingNaN, sign, 0, 0};
  }
  if (be == 0 && frac == 0) return {Operand::Class::kZero, sign, 0, 0};
  // Subnormals have the same exponent as the smallest normals, without the hidden bit.
  const int exp = (be == 0 ? 1 : static_cast<int>(be)) - f.bias() - f.fracBits;
  const u64 sig = be == 0 ? frac : frac | (u64{1} << f.fracBits);
  return {Operand::Class::kFinite, sign, sig, exp};
}

RefExact fixed(u64 bits, u8 flags = 0) {
  RefExact r;
  r.kind = RefExact::Kind::kFixed;
  r.bits = bits;
  r.flags = flags;
  return r;
}

RefExact nan(const FormatDesc& f, std::initializer_list<Operand> ops, u8 extraFlags = 0) {
  u8 flags = extraFlags;
  for (const Operand& o : ops) {
    if (o.is(Operand::Class::kSignalingNaN)) flags |= kInvalid;
  }
  return fixed(f.canonicalNaN(), flags);
}

RefExact zeroSum(bool signA, bool signB) {
  RefExact r;
  r.kind = RefExact::Kind::kZeroSum;
  r.signA = signA;
  r.signB = signB;
  return r;
}

RefExact value(bool sign, BigNat mag, int exp, bool sticky = false) {
  RefExact r;
  r.kind = RefExact::Kind::kValue;
  r.sign = sign;
  r.mag = std::move(mag);
  r.exp = exp;
  r.sticky = sticky;
  return r;
}

u64 infBits(const FormatDesc& f, bool sign) {
  return (sign ? f.signBit() : 0) | f.inf();
}
u64 zeroBits(const FormatDesc& f, bool sign) {
  return sign ? f.signBit() : 0;
}

// Exact signed sum of two exact terms ±m * 2^e.
RefExact exactSum(bool sa, const BigNat& ma, int ea, bool sb, const BigNat& mb, int eb) {
  const int e = std::min(ea, eb);
  const BigNat a = ma.shifted(ea - e);
  const BigNat b = mb.shifted(eb - e);
  if (sa == sb) return value(sa, a + b, e);
  const int c = compare(a, b);
  if (c == 0) return zeroSum(sa, sb);
  return c > 0 ? value(sa, a - b, e) : value(sb, b - a, e);
}

// Rounds (mag + t) * 2^exp (t as in RefExact) to a multiple of 2^quantumExp, returning the
// multiple's count. Needs at least one bit of mag below the quantum when sticky, so that the
// fraction's relation to one half is known.
struct Rounded {
  u128 count;
  bool inexact;
};
Rounded roundAt(const RefExact& x, int quantumExp, Rounding rm) {
  const int below = quantumExp - x.exp;  // bits of mag under the quantum
  EXPECT_TRUE(!x.sticky || below >= 1) << "reference lacks precision";
  const u128 truncated = x.mag.shifted(-below).low128();
  const bool halfBit = x.mag.bit(below - 1);
  const bool rest = x.mag.anyBitBelow(below - 1) || x.sticky;
  const bool inexact = halfBit || rest;
  bool up = false;
  switch (rm) {
    case Rounding::kNearestEven: up = halfBit && (rest || (truncated & 1) != 0); break;
    case Rounding::kNearestMaxMagnitude: up = halfBit; break;
    case Rounding::kTowardZero: up = false; break;
    case Rounding::kDown: up = x.sign && inexact; break;
    case Rounding::kUp: up = !x.sign && inexact; break;
  }
  return {truncated + (up ? 1 : 0), inexact};
}

int bitLength128(u128 v) {
  int n = 0;
  for (; v != 0; v >>= 1) ++n;
  return n;
}

}  // namespace

RefExact refAdd(const FormatDesc& f, u64 a, u64 b) {
  using C = Operand::Class;
  const Operand x = decode(f, a);
  const Operand y = decode(f, b);
  if (x.nan() || y.nan()) return nan(f, {x, y});
  if (x.is(C::kInf) && y.is(C::kInf)) {
    return x.sign == y.sign ? fixed(infBits(f, x.sign)) : fixed(f.canonicalNaN(), kInvalid);
  }
  if (x.is(C::kInf)) return fixed(infBits(f, x.sign));
  if (y.is(C::kInf)) return fixed(infBits(f, y.sign));
  if (x.is(C::kZero) && y.is(C::kZero)) return zeroSum(x.sign, y.sign);
  if (x.is(C::kZero)) return fixed(b);
  if (y.is(C::kZero)) return fixed(a);
  return exactSum(x.sign, BigNat(x.sig), x.exp, y.sign, BigNat(y.sig), y.exp);
}

RefExact refMul(const FormatDesc& f, u64 a, u64 b) {
  using C = Operand::Class;
  const Operand x = decode(f, a);
  const Operand y = decode(f, b);
  if (x.nan() || y.nan()) return nan(f, {x, y});
  const bool sign = x.sign != y.sign;
  if (x.is(C::kInf) || y.is(C::kInf)) {
    if (x.is(C::kZero) || y.is(C::kZero)) return fixed(f.canonicalNaN(), kInvalid);
    return fixed(infBits(f, sign));
  }
  if (x.is(C::kZero) || y.is(C::kZero)) return fixed(zeroBits(f, sign));
  return value(sign, BigNat(x.sig) * BigNat(y.sig), x.exp + y.exp);
}

RefExact refDiv(const FormatDesc& f, u64 a, u64 b) {
  using C = Operand::Class;
  const Operand x = decode(f, a);
  const Operand y = decode(f, b);
  if (x.nan() || y.nan()) return nan(f, {x, y});
  const bool sign = x.sign != y.sign;
  if (x.is(C::kInf) && y.is(C::kInf)) return fixed(f.canonicalNaN(), kInvalid);
  if (x.is(C::kInf)) return fixed(infBits(f, sign));
  if (y.is(C::kInf)) return fixed(zeroBits(f, sign));
  if (x.is(C::kZero) && y.is(C::kZero)) return fixed(f.canonicalNaN(), kInvalid);
  if (y.is(C::kZero)) return fixed(infBits(f, sign), kDivideByZero);
  if (x.is(C::kZero)) return fixed(zeroBits(f, sign));
  // x.sig * 2^128 / y.sig >= 2^128 / 2^53: far more than p + 3 bits.
  constexpr int kExtra = 128;
  u64 rem = 0;
  BigNat q = BigNat(x.sig).shifted(kExtra).divided(y.sig, rem);
  return value(sign, std::move(q), x.exp - y.exp - kExtra, rem != 0);
}

RefExact refSqrt(const FormatDesc& f, u64 a) {
  using C = Operand::Class;
  const Operand x = decode(f, a);
  if (x.nan()) return nan(f, {x});
  if (x.is(C::kZero)) return fixed(a);
  if (x.sign) return fixed(f.canonicalNaN(), kInvalid);
  if (x.is(C::kInf)) return fixed(a);
  // Scale the significand so that it has 127 or 128 bits with an even exponent; its integer
  // root then has 64 bits (>= p + 3) and a nonzero remainder is the sticky part.
  int shift = 128 - std::bit_width(x.sig);
  if (((x.exp - shift) & 1) != 0) --shift;
  const u128 n = static_cast<u128>(x.sig) << shift;
  // Greatest r with r * r <= n, found one bit at a time from the top (r < 2^64, so r * r fits).
  u128 r = 0;
  for (int i = 63; i >= 0; --i) {
    const u128 candidate = r | (u128{1} << i);
    if (candidate * candidate <= n) r = candidate;
  }
  return value(false, BigNat(r), (x.exp - shift) / 2, r * r != n);
}

RefExact refMulAdd(const FormatDesc& f, u64 a, u64 b, u64 c) {
  using C = Operand::Class;
  const Operand x = decode(f, a);
  const Operand y = decode(f, b);
  const Operand z = decode(f, c);
  const bool invalidProduct =
      (x.is(C::kInf) && y.is(C::kZero)) || (x.is(C::kZero) && y.is(C::kInf));
  if (x.nan() || y.nan() || z.nan()) return nan(f, {x, y, z}, invalidProduct ? kInvalid : 0);
  if (invalidProduct) return fixed(f.canonicalNaN(), kInvalid);
  const bool ps = x.sign != y.sign;
  const bool productInf = x.is(C::kInf) || y.is(C::kInf);
  if (productInf && z.is(C::kInf) && z.sign != ps) return fixed(f.canonicalNaN(), kInvalid);
  if (productInf) return fixed(infBits(f, ps));
  if (z.is(C::kInf)) return fixed(c);
  const bool productZero = x.is(C::kZero) || y.is(C::kZero);
  if (productZero && z.is(C::kZero)) return zeroSum(ps, z.sign);
  if (productZero) return fixed(c);
  const BigNat product = BigNat(x.sig) * BigNat(y.sig);
  if (z.is(C::kZero)) return value(ps, product, x.exp + y.exp);
  return exactSum(ps, product, x.exp + y.exp, z.sign, BigNat(z.sig), z.exp);
}

RefExact refConvert(const FormatDesc& from, const FormatDesc& to, u64 a) {
  using C = Operand::Class;
  const Operand x = decode(from, a);
  if (x.nan()) return nan(to, {x});
  if (x.is(C::kInf)) return fixed(infBits(to, x.sign));
  if (x.is(C::kZero)) return fixed(zeroBits(to, x.sign));
  return value(x.sign, BigNat(x.sig), x.exp);
}

RefExact refFromInt(bool negative, u64 magnitude) {
  if (magnitude == 0) return fixed(0);
  return value(negative, BigNat(magnitude), 0);
}

u64 refRound(const FormatDesc& to, const RefExact& x, Rounding rm, u8& flags) {
  if (x.kind == RefExact::Kind::kFixed) {
    flags |= x.flags;
    return x.bits;
  }
  if (x.kind == RefExact::Kind::kZeroSum) {
    // IEEE 754 6.3: an exact zero sum of opposite-signed terms is +0, or -0 when rounding down.
    const bool sign = x.signA == x.signB ? x.signA : rm == Rounding::kDown;
    return zeroBits(to, sign);
  }
  const int p = to.precision();
  const int e = x.mag.bitLength() - 1 + x.exp;  // 2^e <= |value| < 2^(e+1)
  const u64 signBits = x.sign ? to.signBit() : 0;

  // As if the exponent were unbounded: decides overflow and (after rounding) tininess.
  const Rounded unbounded = roundAt(x, e - p + 1, rm);
  const int roundedExp = e - p + bitLength128(unbounded.count);
  if (roundedExp > to.emax()) {
    flags |= kOverflow | kInexact;
    const bool toInf = rm == Rounding::kNearestEven || rm == Rounding::kNearestMaxMagnitude ||
                       (rm == Rounding::kUp && !x.sign) || (rm == Rounding::kDown && x.sign);
    return signBits | (toInf ? to.inf() : to.maxFinite());
  }

  // The actual result: the quantum cannot go below that of the subnormals.
  int quantum = std::max(e, to.emin()) - p + 1;
  Rounded r = roundAt(x, quantum, rm);
  if (r.inexact) flags |= kInexact;
  if (r.inexact && roundedExp < to.emin()) flags |= kUnderflow;
  if (r.count == 0) return signBits;
  if (bitLength128(r.count) > p) {  // carried to 2^p
    r.count >>= 1;
    ++quantum;
  }
  const int leading = quantum + bitLength128(r.count) - 1;
  if (bitLength128(r.count) < p) return signBits | static_cast<u64>(r.count);  // subnormal
  const u64 frac = static_cast<u64>(r.count) & to.fracMask();
  return signBits | (static_cast<u64>(leading + to.bias()) << to.fracBits) | frac;
}

}  // namespace hpm::softfloat::test
