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
    nodes_.assign(2 * size_, Node{});
    for (u32 i = 0; i < size_; ++i) nodes_[size_ + i].slot = i;
    for (u32 n = size_ - 1; n >= 1; --n) nodes_[n] = better(nodes_[2 * n], nodes_[2 * n + 1]);
  }

  // Sets slot i's key (an inactive slot has the default, maximal key).
  void set(u32 i, SlotKey key) {
    u32 n = size_ + i;
    nodes_[n].time = key.time;
    nodes_[n].order = key.order;
    // Each node holds its subtree's winner with its key, so a level costs one sibling load.
    for (n >>= 1; n >= 1; n >>= 1) nodes_[n] = better(nodes_[2 * n], nodes_[2 * n + 1]);
  }
  void clear(u32 i) { set(i, SlotKey{}); }

  // The slot with the smallest key, or kNone if every slot is inactive.
  u32 min() const {
    return nodes_[1].time == kMax && nodes_[1].order == kMax ? kNone : nodes_[1].slot;
  }
  // The smallest key among all slots but `excluded` (maximal if there is none).
  SlotKey minExcept(u32 excluded) const {
    Node best;
    // Walk from the leaf up: at each level the sibling subtree's winner is a candidate.
    for (u32 n = size_ + excluded; n > 1; n >>= 1) best = better(best, nodes_[n ^ 1]);
    return SlotKey{best.time, best.order};
  }
  // The smallest key outside the aligned block of `count` slots starting at `first` (`count` a
  // power of two, `first` a multiple of it): its subtree is skipped whole.
  SlotKey minExceptBlock(u32 first, u32 count) const {
    Node best;
    u32 n = size_ + first;
    for (u32 c = count; c > 1; c >>= 1) n >>= 1;
    for (; n > 1; n >>= 1) best = better(best, nodes_[n ^ 1]);
    return SlotKey{best.time, best.order};
  }
  SlotKey key(u32 i) const { return SlotKey{nodes_[size_ + i].time, nodes_[size_ + i].order}; }

  static constexpr u32 kNone = std::numeric_limits<u32>::max();

 private:
  static constexpr u64 kMax = std::numeric_limits<u64>::max();
  // Keys as two 64-bit words, read and written as such: a 128-bit load of a key written in two
  // halves would stall on store forwarding at every update.
  struct Node {
    u64 time = kMax;
    u64 order = kMax;
    u32 slot = 0;
  };
  // Siblings come in index order, so on equal keys the left (lower slot) wins.
  static Node better(const Node& a, const Node& b) {
    const bool b_first = (b.time < a.time) | ((b.time == a.time) & (b.order < a.order));
    return b_first ? b : a;
  }
  u32 size_ = 1;
  std::vector<Node> nodes_;  // node n holds the winner of its subtree; leaves at size_ + i
};

}  // namespace hpm
