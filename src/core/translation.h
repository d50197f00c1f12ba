// Address translation of one core (docs/timing.md "Address translation"): an instruction ERAT and
// a data ERAT in front of a TLB, all shared by the core's hardware threads, as Blue Gene/Q's A2
// has them (TranslationParams in core/timing_params.h gives the sizes and their sources).
//
// The pages come from the kernel (NodeTiming::setPageMap): CNK maps the whole process statically
// with large pages and writes them all into the TLB at job start, so the TLB is not filled by
// misses. The model holds that static fill lazily: the first time an ERAT miss asks the TLB for a
// page, the page is written into it, as a hit (it was there from the start). Only a page that a
// later page of the same set evicted (a mapping the TLB cannot hold whole, which CNK's large
// pages make rare) misses the TLB; the kernel writes it back (TranslationParams::tlb_miss_cycles).
#pragma once

#include <unordered_set>
#include <vector>

#include "base/types.h"

namespace hpm::timing {

// A page: [base, base + 2^bits), base aligned to its size.
struct Page {
  u64 base = 0;
  u32 bits = 0;  // 0: no page
  u64 mask() const { return ~((u64{1} << bits) - 1); }
  bool contains(u64 addr) const { return bits != 0 && (addr & mask()) == base; }
  bool operator==(const Page&) const = default;
};

// The page holding `addr` when its size is 2^bits.
inline Page pageOf(u64 addr, u32 bits) {
  return Page{addr & ~((u64{1} << bits) - 1), bits};
}

// A fully associative ERAT of `entries` pages with round-robin replacement (the A2's ERAT
// round-robin replacement mode): a hit changes nothing, so a thread's one-entry filter in front of
// it (node timing) needs no bookkeeping but to forget an evicted page.
class Erat {
 public:
  explicit Erat(u32 entries) : pages_(entries) {}
  // The entry holding `addr`, or null.
  const Page* find(u64 addr) const {
    for (const Page& p : pages_) {
      if (p.contains(addr)) return &p;
    }
    return nullptr;
  }
  // Writes `page` into the next entry in turn; returns the page it replaced (bits 0: none).
  Page fill(const Page& page) {
    const Page old = pages_[next_];
    pages_[next_] = page;
    if (++next_ == pages_.size()) next_ = 0;
    return old;
  }
  u32 entries() const { return static_cast<u32>(pages_.size()); }

 private:
  std::vector<Page> pages_;
  u32 next_ = 0;
};

// A set-associative TLB with least-recently-used replacement within a set; a page's set is its
// page number modulo the sets.
class Tlb {
 public:
  Tlb(u32 entries, u32 ways);

  enum class Result : u8 {
    kHit,   // the TLB holds the page (or it is the static fill's first write of it)
    kMiss,  // the page was written before and evicted since: the kernel writes it again
  };
  // What a reload of `page` finds, without changing anything.
  Result probe(const Page& page) const;
  // The reload of `page` at use number `stamp` (increasing): the page becomes the set's most
  // recently used, written into it if it was not there (evicting the least recently used).
  Result access(const Page& page, u64 stamp);

 private:
  struct Entry {
    Page page;
    u64 used = 0;
  };
  u32 setOf(const Page& page) const {
    return static_cast<u32>((page.base >> page.bits) & (sets_ - 1));
  }
  static u64 key(const Page& page) { return page.base | page.bits; }  // (base's low bits are 0)

  u32 sets_;
  u32 ways_;
  std::vector<Entry> entries_;       // set s: [s * ways, (s + 1) * ways)
  std::unordered_set<u64> written_;  // every page ever written (the static fill's, lazily)
};

}  // namespace hpm::timing
