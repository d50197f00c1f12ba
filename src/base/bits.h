// Bit-manipulation helpers shared by the decoder, the harts and the counter models.
#pragma once

#include <bit>
#include <cstring>

#include "base/types.h"

namespace hpm {

// Bits [lo, lo+width) of v, right-aligned.
constexpr u64 bitField(u64 v, unsigned lo, unsigned width) {
  return width >= 64 ? v >> lo : (v >> lo) & ((u64{1} << width) - 1);
}

// Sign-extends the low `width` bits of v.
constexpr i64 signExtend(u64 v, unsigned width) {
  const unsigned shift = 64 - width;
  return static_cast<i64>(v << shift) >> shift;
}

constexpr u64 lowMask(unsigned width) {
  return width >= 64 ? ~u64{0} : (u64{1} << width) - 1;
}

constexpr bool isPowerOfTwo(u64 v) {
  return v != 0 && (v & (v - 1)) == 0;
}

constexpr u64 alignDown(u64 v, u64 align) {
  return v & ~(align - 1);
}
constexpr u64 alignUp(u64 v, u64 align) {
  return (v + align - 1) & ~(align - 1);
}

// Unaligned, type-punning-safe load and store of little-endian host memory.
template <class T>
inline T loadUnaligned(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
inline void storeUnaligned(void* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

}  // namespace hpm
