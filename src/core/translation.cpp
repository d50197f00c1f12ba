// The TLB of address translation (core/translation.h).
#include "core/translation.h"

namespace hpm::timing {

Tlb::Tlb(u32 entries, u32 ways) : sets_(entries / ways), ways_(ways), entries_(entries) {}

Tlb::Result Tlb::probe(const Page& page) const {
  const Entry* set = &entries_[std::size_t{setOf(page)} * ways_];
  for (u32 w = 0; w < ways_; ++w) {
    if (set[w].page == page) return Result::kHit;
  }
  return written_.contains(key(page)) ? Result::kMiss : Result::kHit;
}

Tlb::Result Tlb::access(const Page& page, u64 stamp) {
  Entry* set = &entries_[std::size_t{setOf(page)} * ways_];
  Entry* victim = set;
  for (u32 w = 0; w < ways_; ++w) {
    if (set[w].page == page) {
      set[w].used = stamp;
      return Result::kHit;
    }
    // (An empty way was never used: stamp 0, the least recent.)
    if (set[w].used < victim->used) victim = &set[w];
  }
  const bool again = !written_.insert(key(page)).second;
  *victim = Entry{page, stamp};
  return again ? Result::kMiss : Result::kHit;
}

}  // namespace hpm::timing
