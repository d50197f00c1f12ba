// Helpers for the ISA tests: a small buffered writer of hex words (cheaper than printf, so the
// tests can print many thousands of results), the operand tables at integer edge values, and
// a generator of floating-point operands biased towards special and boundary values.
// Results are printed as hex so that the output compares exactly with qemu-riscv64's.
#ifndef HPM_GUEST_ISA_H
#define HPM_GUEST_ISA_H

#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

// ---- Output ----------------------------------------------------------------------------------

static char out_buf[1 << 16];
static size_t out_len;

static inline void out_flush(void) {
  size_t done = 0;
  while (done < out_len) {
    ssize_t n = write(1, out_buf + done, out_len - done);
    if (n <= 0) exit(3);
    done += (size_t)n;
  }
  out_len = 0;
}

static inline void out_char(char c) {
  if (out_len == sizeof out_buf) out_flush();
  out_buf[out_len++] = c;
}

static inline void out_str(const char* s) {
  while (*s) out_char(*s++);
}

// `digits` hex digits of v, most significant first.
static inline void out_hexn(uint64_t v, int digits) {
  for (int i = digits - 1; i >= 0; --i) out_char("0123456789abcdef"[(v >> (4 * i)) & 0xf]);
}
static inline void out_hex64(uint64_t v) {
  out_hexn(v, 16);
}
static inline void out_hex32(uint64_t v) {
  out_hexn(v, 8);
}

static inline void out_dec(int64_t v) {
  char tmp[24];
  int n = 0;
  uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
  do {
    tmp[n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u != 0);
  if (v < 0) out_char('-');
  while (n > 0) out_char(tmp[--n]);
}

static inline void out_nl(void) {
  out_char('\n');
}

// ---- Integer operands at edge values ---------------------------------------------------------

static const uint64_t kIntEdges[] = {
    0,
    1,
    2,
    0xffffffffffffffffULL,  // -1
    0xfffffffffffffffeULL,  // -2
    0x7fffffffffffffffULL,  // INT64_MAX
    0x8000000000000000ULL,  // INT64_MIN
    0x000000007fffffffULL,  // INT32_MAX
    0x0000000080000000ULL,  // INT32_MIN as an unsigned 32-bit value
    0xffffffff80000000ULL,  // INT32_MIN sign-extended
    0x00000000ffffffffULL,  // UINT32_MAX
    0x0000000100000000ULL,
    31,
    32,
    63,
    64,
    0x0123456789abcdefULL,
    0xfedcba9876543210ULL,
    0x00000000deadbeefULL,
    0x5555555555555555ULL,
};
#define N_INT_EDGES (sizeof kIntEdges / sizeof kIntEdges[0])

// ---- Floating-point operands -----------------------------------------------------------------

// Rounding modes in the order of their rm encodings 0..4 (RNE, RTZ, RDN, RUP, RMM).
static const char* const kRmNames[5] = {"rne", "rtz", "rdn", "rup", "rmm"};

// Special and boundary doubles, as bit patterns.
static const uint64_t kSpecialD[] = {
    0x0000000000000000ULL,  // +0
    0x8000000000000000ULL,  // -0
    0x3ff0000000000000ULL,  // 1
    0xbff0000000000000ULL,  // -1
    0x3fe0000000000000ULL,  // 0.5
    0x4008000000000000ULL,  // 3
    0x3ff0000000000001ULL,  // 1 + ulp
    0x3fefffffffffffffULL,  // 1 - ulp/2
    0x7ff0000000000000ULL,  // +inf
    0xfff0000000000000ULL,  // -inf
    0x7ff8000000000000ULL,  // canonical qNaN
    0xfff8000000000000ULL,  // negative qNaN
    0x7ff8000000000123ULL,  // qNaN with payload
    0x7ff0000000000001ULL,  // sNaN
    0xfff4000000000abcULL,  // negative sNaN with payload
    0x0000000000000001ULL,  // smallest subnormal
    0x8000000000000001ULL,  // -smallest subnormal
    0x000fffffffffffffULL,  // largest subnormal
    0x0010000000000000ULL,  // smallest normal
    0x8010000000000000ULL,  // -smallest normal
    0x7fefffffffffffffULL,  // largest finite
    0xffefffffffffffffULL,  // -largest finite
    0x41dfffffffc00000ULL,  // 2^31 - 1
    0x41e0000000000000ULL,  // 2^31
    0xc1e0000000000000ULL,  // -2^31
    0x41f0000000000000ULL,  // 2^32
    0x43e0000000000000ULL,  // 2^63
    0xc3e0000000000000ULL,  // -2^63
    0x43f0000000000000ULL,  // 2^64
    0x3fe0000000000001ULL,  // just above 0.5
    0x4004000000000000ULL,  // 2.5 (a tie)
    0xc00c000000000000ULL,  // -3.5 (a tie)
};
#define N_SPECIAL_D (sizeof kSpecialD / sizeof kSpecialD[0])

static const uint32_t kSpecialS[] = {
    0x00000000u,  // +0
    0x80000000u,  // -0
    0x3f800000u,  // 1
    0xbf800000u,  // -1
    0x3f000000u,  // 0.5
    0x40400000u,  // 3
    0x3f800001u,  // 1 + ulp
    0x3f7fffffu,  // 1 - ulp/2
    0x7f800000u,  // +inf
    0xff800000u,  // -inf
    0x7fc00000u,  // canonical qNaN
    0xffc00000u,  // negative qNaN
    0x7fc00123u,  // qNaN with payload
    0x7f800001u,  // sNaN
    0xffa00abcu,  // negative sNaN with payload
    0x00000001u,  // smallest subnormal
    0x80000001u,  // -smallest subnormal
    0x007fffffu,  // largest subnormal
    0x00800000u,  // smallest normal
    0x80800000u,  // -smallest normal
    0x7f7fffffu,  // largest finite
    0xff7fffffu,  // -largest finite
    0x4f000000u,  // 2^31
    0xcf000000u,  // -2^31
    0x4f800000u,  // 2^32
    0x5f000000u,  // 2^63
    0xdf000000u,  // -2^63
    0x5f800000u,  // 2^64
    0x3f000001u,  // just above 0.5
    0x40200000u,  // 2.5 (a tie)
    0xc0600000u,  // -3.5 (a tie)
};
#define N_SPECIAL_S (sizeof kSpecialS / sizeof kSpecialS[0])

// A double operand: a special value, uniformly random bits, a value near 1 (random mantissa),
// a value with a small or huge exponent (subnormal results, overflow), or a small integer.
static inline uint64_t gen_d(Rng* r) {
  uint64_t bits = rng_next(r);
  uint64_t sign = bits & 0x8000000000000000ULL;
  uint64_t mant = rng_next(r) & 0x000fffffffffffffULL;
  switch (rng_below(r, 8)) {
    case 0:
    case 1: return kSpecialD[rng_below(r, N_SPECIAL_D)];
    case 2: return bits;
    case 3:
    case 4: return sign | (uint64_t)(1023 - 8 + rng_below(r, 17)) << 52 | mant;
    case 5: return sign | (uint64_t)rng_below(r, 60) << 52 | mant;
    case 6: return sign | (uint64_t)(2046 - rng_below(r, 60)) << 52 | mant;
    default: {
      double d = (double)((int64_t)rng_below(r, 2001) - 1000) / (double)(1 + rng_below(r, 4));
      uint64_t u;
      memcpy(&u, &d, 8);
      return u;
    }
  }
}

static inline uint32_t gen_s(Rng* r) {
  uint32_t bits = (uint32_t)rng_next(r);
  uint32_t sign = bits & 0x80000000u;
  uint32_t mant = (uint32_t)rng_next(r) & 0x007fffffu;
  switch (rng_below(r, 8)) {
    case 0:
    case 1: return kSpecialS[rng_below(r, N_SPECIAL_S)];
    case 2: return bits;
    case 3:
    case 4: return sign | (uint32_t)(127 - 6 + rng_below(r, 13)) << 23 | mant;
    case 5: return sign | (uint32_t)rng_below(r, 30) << 23 | mant;
    case 6: return sign | (uint32_t)(254 - rng_below(r, 30)) << 23 | mant;
    default: {
      float f = (float)((int32_t)rng_below(r, 2001) - 1000) / (float)(1 + rng_below(r, 4));
      uint32_t u;
      memcpy(&u, &f, 4);
      return u;
    }
  }
}

// A second operand related to the first often enough to produce cancellation (a - a', with
// a' a few ulps away or exactly -a), the interesting case for add/sub and signed zeros.
static inline uint64_t gen_d_related(Rng* r, uint64_t a) {
  switch (rng_below(r, 4)) {
    case 0: return a ^ 0x8000000000000000ULL;
    case 1: return a + rng_below(r, 5) - 2;
    default: return gen_d(r);
  }
}

static inline uint32_t gen_s_related(Rng* r, uint32_t a) {
  switch (rng_below(r, 4)) {
    case 0: return a ^ 0x80000000u;
    case 1: return a + (uint32_t)rng_below(r, 5) - 2;
    default: return gen_s(r);
  }
}

// NaN-boxed single in a 64-bit FP register image.
static inline uint64_t box_s(uint32_t s) {
  return 0xffffffff00000000ULL | s;
}

#endif  // HPM_GUEST_ISA_H
