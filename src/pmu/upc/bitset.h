// Bits of a std::vector<u64> used as a bit set (UPC-P's status masks and bit-sliced registers).
#pragma once

#include <vector>

#include "base/types.h"

namespace hpm::upc {

inline bool testBit(const std::vector<u64>& bits, u32 i) {
  return (bits[i >> 6] >> (i & 63)) & 1;
}

inline void putBit(std::vector<u64>& bits, u32 i, bool value) {
  const u64 m = u64{1} << (i & 63);
  bits[i >> 6] = value ? bits[i >> 6] | m : bits[i >> 6] & ~m;
}

}  // namespace hpm::upc
