// A tournament tree over a fixed set of slots: O(1) minimum, O(log n) key updates. The
// scheduler uses it to find the hardware thread with the earliest clock among 64 without
// scanning them all for every scheduling decision; in the timing modes it is updated about once
// per simulated instruction, so an update is kept to a few instructions per level.
#pragma once

#include <algorithm>
#include <limits>
#include <vector>

#include "base/error.h"
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

  // Room for `slots` slots, all inactive. The tree spans only the slots up to the highest that
  // was ever active (rounded up to a power of two), and grows when a later one becomes active:
  // a node of 64 hardware threads running 4 guest threads updates 2 levels per pick instead of
  // 6, and each level is a step of a chain the next pick waits for.
  void reset(u32 slots) {
    capacity_ = 1;
    slot_bits_ = 0;
    while (capacity_ < slots) {
      capacity_ <<= 1;
      ++slot_bits_;
    }
    size_ = 1;
    nodes_.assign(2 * size_, Node{kMax, kMax});  // every slot inactive
  }

  // Sets slot i's key (an inactive slot has the default, maximal key). Throws Error (kInternal)
  // for an order too large to share a word with the slot index (2^58 with 64 slots).
  void set(u32 i, SlotKey key) {
    const bool activates = key.time != kMax || key.order != kMax;
    if (i >= size_) [[unlikely]] {
      if (!activates) return;  // beyond the span: inactive already
      grow(i);
    }
    Node winner{kMax, kMax};
    if (activates) {
      if (key.order > (kMax >> slot_bits_)) {
        fail(ExitCode::kInternal, "scheduler: order {} of slot {} out of range", key.order, i);
      }
      winner = Node{key.time, (key.order << slot_bits_) | i};
    }
    u32 n = size_ + i;
    nodes_[n] = winner;
    // The candidate travels up in registers and each level loads only the sibling subtree's
    // winner, written by earlier updates, so the chain never waits on a store it has just made.
    for (; n > 1; n >>= 1) {
      winner = earlier(nodes_[n ^ 1], winner);
      nodes_[n >> 1] = winner;
    }
  }
  void clear(u32 i) { set(i, SlotKey{}); }

  // The slot with the smallest key, or kNone if every slot is inactive.
  u32 min() const { return active(nodes_[1]) ? slotOf(nodes_[1]) : kNone; }
  // The smallest key among all slots but `excluded` (maximal if there is none).
  SlotKey minExcept(u32 excluded) const {
    if (excluded >= size_) return keyOf(nodes_[1]);
    Node best{kMax, kMax};
    // Walk from the leaf up: at each level the sibling subtree's winner is a candidate.
    for (u32 n = size_ + excluded; n > 1; n >>= 1) best = earlier(nodes_[n ^ 1], best);
    return keyOf(best);
  }
  // In one walk up from slot i's leaf: the smallest key among the other slots of i's aligned
  // block of `count` slots (`count` a power of two), and the smallest key outside that block,
  // whose subtree the walk skips whole.
  struct Around {
    SlotKey in_block;
    SlotKey outside;
    u32 next = kNone;  // the slot of the smaller of the two (kNone if neither is active)
  };
  Around minAround(u32 i, u32 count) const {
    if (i >= size_) {
      // Every slot of the span is in i's block when the block reaches slot 0, else outside it.
      const bool spanned = i / count == 0;
      const SlotKey all = keyOf(nodes_[1]);
      return spanned ? Around{all, SlotKey{}, min()} : Around{SlotKey{}, all, min()};
    }
    Node block{kMax, kMax}, rest{kMax, kMax};
    u32 n = size_ + i;
    // (A block wider than the span holds all of it.)
    for (u32 c = count; c > 1 && n > 1; c >>= 1, n >>= 1) block = earlier(nodes_[n ^ 1], block);
    for (; n > 1; n >>= 1) rest = earlier(nodes_[n ^ 1], rest);
    const Node next = earlier(block, rest);
    return Around{keyOf(block), keyOf(rest), active(next) ? slotOf(next) : kNone};
  }
  SlotKey key(u32 i) const { return i < size_ ? keyOf(nodes_[size_ + i]) : SlotKey{}; }

  static constexpr u32 kNone = std::numeric_limits<u32>::max();

 private:
  static constexpr u64 kMax = std::numeric_limits<u64>::max();
  // A key as two words: the time, and the order with the slot index in its low bits, so that
  // one 128-bit comparison orders keys by time, order and slot (distinct slots never tie).
  // Inactive slots are {kMax, kMax}.
  struct Node {
    u64 time;
    u64 rank;
  };
  static bool active(const Node& n) { return n.time != kMax || n.rank != kMax; }
  u32 slotOf(const Node& n) const { return static_cast<u32>(n.rank & (u64{capacity_} - 1)); }
  SlotKey keyOf(const Node& n) const {
    return active(n) ? SlotKey{n.time, n.rank >> slot_bits_} : SlotKey{};
  }
  // The earlier of a and b, selected with masks: which subtree wins is unpredictable, and a
  // mispredicted branch at every level of an update costs more than the whole update.
  static Node earlier(const Node& a, const Node& b) {
    const u128 ka = (static_cast<u128>(a.time) << 64) | a.rank;
    const u128 kb = (static_cast<u128>(b.time) << 64) | b.rank;
    const u64 take_a = u64{0} - static_cast<u64>(ka < kb);
    return Node{(a.time & take_a) | (b.time & ~take_a), (a.rank & take_a) | (b.rank & ~take_a)};
  }
  // Widens the span to hold slot i (< capacity_), keeping every key. (Out of line: inlined, it
  // changed how g++ keeps the candidate of set()'s walk, through SSE registers, and made every
  // update a third slower.)
  [[gnu::noinline]] void grow(u32 i) {
    if (i >= capacity_) fail(ExitCode::kInternal, "scheduler: slot {} out of range", i);
    u32 size = size_;
    while (size <= i) size <<= 1;
    std::vector<Node> nodes(2 * size, Node{kMax, kMax});
    std::copy(nodes_.begin() + size_, nodes_.end(), nodes.begin() + size);
    for (u32 n = size - 1; n >= 1; --n) nodes[n] = earlier(nodes[2 * n], nodes[2 * n + 1]);
    nodes_ = std::move(nodes);
    size_ = size;
  }
  u32 capacity_ = 1;  // slots, rounded up to a power of two (the slot index's bits in a rank)
  u32 slot_bits_ = 0;
  u32 size_ = 1;             // the span: leaves in the tree
  std::vector<Node> nodes_;  // node n holds the winner of its subtree; leaves at size_ + i
};

}  // namespace hpm
