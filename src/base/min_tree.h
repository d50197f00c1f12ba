// A tournament tree over a fixed set of slots: O(1) minimum, O(log n) key updates. The
// scheduler uses it to find the hardware thread with the earliest clock among 64 without
// scanning them all for every scheduling decision.
#pragma once

#include <limits>
#include <vector>

#include "base/types.h"

namespace hpm {

// Keys order first by `time`, then by `order` (smaller first), then by slot index.
struct SlotKey {
  u64 time = std::numeric_limits<u64>::max();
  u64 order = std::numeric_limits<u64>::max();
  bool operator<(const SlotKey& o) const {
    return time != o.time ? time < o.time : order < o.order;
  }
};

class MinTree {
 public:
  explicit MinTree(u32 slots = 0) { reset(slots); }

  void reset(u32 slots) {
    size_ = 1;
    while (size_ < slots) size_ <<= 1;
    keys_.assign(size_, SlotKey{});
    tree_.assign(2 * size_, kNone);
    for (u32 i = 0; i < size_; ++i) tree_[size_ + i] = i;
    for (u32 n = size_ - 1; n >= 1; --n) tree_[n] = better(tree_[2 * n], tree_[2 * n + 1]);
  }

  // Sets slot i's key (an inactive slot has the default, maximal key).
  void set(u32 i, SlotKey key) {
    keys_[i] = key;
    for (u32 n = (size_ + i) >> 1; n >= 1; n >>= 1)
      tree_[n] = better(tree_[2 * n], tree_[2 * n + 1]);
  }
  void clear(u32 i) { set(i, SlotKey{}); }

  // The slot with the smallest key, or kNone if every slot is inactive.
  u32 min() const {
    const u32 best = tree_[1];
    return keys_[best].time == std::numeric_limits<u64>::max() ? kNone : best;
  }
  // The smallest key among all slots but `excluded` (maximal if there is none).
  SlotKey minExcept(u32 excluded) const {
    SlotKey best;
    // Walk from the leaf up: at each level the sibling subtree's winner is a candidate.
    for (u32 n = size_ + excluded; n > 1; n >>= 1) {
      const u32 candidate = tree_[n ^ 1];
      if (keys_[candidate] < best) best = keys_[candidate];
    }
    return best;
  }
  const SlotKey& key(u32 i) const { return keys_[i]; }

  static constexpr u32 kNone = std::numeric_limits<u32>::max();

 private:
  u32 better(u32 a, u32 b) const {
    if (keys_[b] < keys_[a]) return b;
    if (keys_[a] < keys_[b]) return a;
    return a < b ? a : b;
  }
  u32 size_ = 1;
  std::vector<SlotKey> keys_;
  std::vector<u32> tree_;  // node n holds the winning slot of its subtree; leaves at size_ + i
};

}  // namespace hpm
