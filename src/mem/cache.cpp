#include "mem/cache.h"

#include <bit>

namespace hpm::mem {

Cache::Cache(u32 sets, u32 ways, u32 set_shift, Replacement replacement, u64 seed)
    : sets_(sets),
      ways_(ways),
      set_shift_(set_shift),
      set_mask_(sets - 1),
      replacement_(replacement),
      rng_(seed | 1),
      keys_(std::size_t{sets} * ways),
      age_(std::size_t{sets} * ways),
      ready_(std::size_t{sets} * ways),
      meta_(std::size_t{sets} * ways),
      flags_(std::size_t{sets} * ways) {}

u32 Cache::victim(u64 line) {
  const u32 base = setBase(line);
  if (replacement_ == Replacement::kRandom) {
    for (u32 w = 0; w < ways_; ++w) {
      if (keys_[base + w] == 0) return base + w;
    }
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    return base + static_cast<u32>(rng_ % ways_);
  }
  // LRU and FIFO both evict the smallest stamp: LRU refreshes it on hits, FIFO does not. An
  // invalid slot has stamp 0, below every valid line's, so it is taken first.
  u32 best = base;
  for (u32 w = 1; w < ways_; ++w) {
    if (age_[base + w] < age_[best]) best = base + w;
  }
  return best;
}

}  // namespace hpm::mem
