// The process's mappings (virtual memory areas): which ranges exist, with what protection, for
// mmap placement, munmap/mprotect splitting and /proc/self/maps. Page permissions for access
// checks live in GuestMemory; this map records which ranges are taken, and how much of them the
// guest may back with memory (the node's memory limit is enforced against committedBytes()).
#pragma once

#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "base/types.h"

namespace hpm {

// Linux's default vm.max_map_count: past this many mappings, mmap returns ENOMEM.
inline constexpr std::size_t kMaxMapCount = 65530;

struct Vma {
  u64 start = 0;
  u64 end = 0;  // exclusive
  u8 perm = 0;
  std::string name;  // "[heap]", "[stack]", a file path, or empty for anonymous
};

class VmaMap {
 public:
  // Adds [start, end), replacing whatever overlapped it.
  void insert(u64 start, u64 end, u8 perm, std::string name = {});
  // Removes [start, end) (splitting areas that straddle its ends).
  void remove(u64 start, u64 end);
  // Sets the protection of the mapped parts of [start, end).
  void protect(u64 start, u64 end, u8 perm);

  // Bytes the guest can read, write or execute: what its mappings may back with memory. Areas
  // with no access (PROT_NONE reservations) and device windows take none, as under Linux's
  // strict overcommit accounting, where only accessible private memory is charged.
  u64 committedBytes() const { return committed_; }
  // The committed bytes inside [start, end).
  u64 committedIn(u64 start, u64 end) const;
  // Whether an area with `perm` commits memory.
  static bool commits(u8 perm);

  bool isFree(u64 start, u64 end) const;
  bool isFullyMapped(u64 start, u64 end) const;
  const Vma* find(u64 addr) const;
  // The highest address A with [A, A+length) free and floor <= A, A+length <= ceiling, or
  // nullopt.
  std::optional<u64> findFreeTopDown(u64 length, u64 floor, u64 ceiling) const;

  // Whether every `grain`-aligned block of [start, end) (aligned to `grain`) meets some area: what
  // a mapping made of `grain`-sized pages at least must cover of the range.
  bool coversBlocks(u64 start, u64 end, u64 grain) const;

  const std::map<u64, Vma>& areas() const { return areas_; }
  // The mappings (areas), as Linux's map_count counts them.
  std::size_t count() const { return areas_.size(); }

 private:
  // Each node of the gap tree also holds the largest gap of its subtree, so that the highest
  // gap of some length below an address is found in O(log n) (Linux's augmented VMA tree).
  template <class NodeCItr, class NodeItr, class Cmp, class Alloc>
  struct LargestGap {
    using metadata_type = u64;
    void operator()(NodeItr it, NodeCItr end) {
      u64 largest = (*it)->second - (*it)->first;
      if (it.get_l_child() != end) largest = std::max(largest, it.get_l_child().get_metadata());
      if (it.get_r_child() != end) largest = std::max(largest, it.get_r_child().get_metadata());
      const_cast<u64&>(it.get_metadata()) = largest;
    }
    virtual NodeCItr node_begin() const = 0;
    virtual NodeCItr node_end() const = 0;
    virtual ~LargestGap() = default;
  };
  // The free ranges between areas (start -> end, exclusive), from address 0 to kTop.
  using GapTree = __gnu_pbds::tree<u64, u64, std::less<u64>, __gnu_pbds::rb_tree_tag, LargestGap>;
  static constexpr u64 kTop = ~u64{0};

  // Recomputes the gaps near [start, end) after its areas changed.
  void regap(u64 start, u64 end);
  // The highest gap starting below `below` that is at least `length` long, or gaps_.end().
  GapTree::const_iterator highestGap(u64 below, u64 length) const;

  std::map<u64, Vma> areas_;  // keyed by start; non-overlapping
  GapTree gaps_ = [] {
    GapTree g;
    g.insert({0, kTop});
    return g;
  }();
  u64 committed_ = 0;  // committedIn over every area, kept as areas come and go
};

}  // namespace hpm
