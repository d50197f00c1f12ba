#include "base/min_tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "base/error.h"

namespace hpm {
namespace {

// The order the scheduler relies on: smallest time, then smallest order, then lowest slot.
bool before(const SlotKey& a, u32 slot_a, const SlotKey& b, u32 slot_b) {
  if (a.time != b.time) return a.time < b.time;
  if (a.order != b.order) return a.order < b.order;
  return slot_a < slot_b;
}

TEST(MinTree, EveryFreshSlotIsInactive) {
  for (u32 slots : {1u, 3u, 4u, 64u}) {
    MinTree tree;
    tree.reset(slots);
    EXPECT_EQ(tree.min(), MinTree::kNone) << slots << " slots";
    for (u32 i = 0; i < slots; ++i) {
      EXPECT_EQ(tree.key(i).time, SlotKey{}.time);
      EXPECT_EQ(tree.key(i).order, SlotKey{}.order);
    }
    EXPECT_EQ(tree.minExcept(0).time, SlotKey{}.time);
  }
}

TEST(MinTree, EqualTimesAreOrderedByOrderThenBySlot) {
  MinTree tree;
  tree.reset(8);
  tree.set(5, SlotKey{100, 7});
  tree.set(2, SlotKey{100, 9});
  EXPECT_EQ(tree.min(), 5u);
  tree.set(6, SlotKey{100, 7});
  EXPECT_EQ(tree.min(), 5u);  // same key: the lower slot
  tree.set(3, SlotKey{99, 1000});
  EXPECT_EQ(tree.min(), 3u);
  tree.clear(3);
  EXPECT_EQ(tree.min(), 5u);
  EXPECT_EQ(tree.key(6).order, 7u);
}

TEST(MinTree, AnOrderThatCannotShareAWordWithTheSlotIsRefused) {
  MinTree tree;
  tree.reset(64);
  EXPECT_THROW(tree.set(1, SlotKey{0, u64{1} << 60}), Error);
  tree.set(1, SlotKey{0, (u64{1} << 58) - 1});
  EXPECT_EQ(tree.key(1).order, (u64{1} << 58) - 1);
}

// A tree spans only the slots up to the highest ever active: a slot beyond it reads as inactive,
// and the minimum excluding it, or around its block, is taken over every active slot.
TEST(MinTree, SlotsBeyondTheSpanReadAsInactive) {
  MinTree tree;
  tree.reset(64);
  tree.set(1, SlotKey{10, 1});
  tree.set(0, SlotKey{12, 2});
  EXPECT_EQ(tree.key(40).time, SlotKey{}.time);
  EXPECT_EQ(tree.minExcept(40).time, 10u);
  const MinTree::Around far = tree.minAround(41, 4);
  EXPECT_EQ(far.in_block.time, SlotKey{}.time);
  EXPECT_EQ(far.outside.time, 10u);
  const MinTree::Around near = tree.minAround(3, 4);
  EXPECT_EQ(near.in_block.time, 10u);
  EXPECT_EQ(near.outside.time, SlotKey{}.time);
  const MinTree::Around wide = tree.minAround(1, 4);  // a block wider than the span
  EXPECT_EQ(wide.in_block.time, 12u);
  EXPECT_EQ(wide.outside.time, SlotKey{}.time);
  tree.clear(50);  // beyond the span: nothing to do
  tree.set(50, SlotKey{5, 3});
  EXPECT_EQ(tree.min(), 50u);
  EXPECT_EQ(tree.key(1).time, 10u);
  EXPECT_EQ(tree.minAround(50, 4).outside.time, 10u);
  EXPECT_THROW(tree.set(64, SlotKey{1, 1}), Error);
}

// Random updates against a linear scan: min, minExcept and minAround agree at every step.
TEST(MinTree, MatchesALinearScanUnderRandomUpdates) {
  std::mt19937_64 rng(12345);
  for (u32 slots : {1u, 5u, 16u, 64u}) {
    MinTree tree;
    tree.reset(slots);
    std::vector<SlotKey> keys(slots);
    std::vector<bool> active(slots, false);
    for (int step = 0; step < 20000; ++step) {
      // Slots become active from the lowest up (the tree's span grows with them), then at random.
      const u32 reach = std::min<u32>(slots, 1 + static_cast<u32>(step) / 500);
      const u32 i = static_cast<u32>(rng() % reach);
      if (rng() % 4 == 0) {
        tree.clear(i);
        active[i] = false;
      } else {
        keys[i] = SlotKey{rng() % 50, rng() % 50};
        active[i] = true;
        tree.set(i, keys[i]);
      }
      auto scan = [&](u32 skip_first, u32 skip_count) {
        u32 best = MinTree::kNone;
        for (u32 s = 0; s < slots; ++s) {
          if (!active[s] || (s >= skip_first && s < skip_first + skip_count)) continue;
          if (best == MinTree::kNone || before(keys[s], s, keys[best], best)) best = s;
        }
        return best;
      };
      ASSERT_EQ(tree.min(), scan(0, 0)) << "step " << step;
      const u32 excluded = static_cast<u32>(rng() % slots);
      const u32 other = scan(excluded, 1);
      const SlotKey except = tree.minExcept(excluded);
      ASSERT_EQ(except.time, other == MinTree::kNone ? SlotKey{}.time : keys[other].time);
      ASSERT_EQ(except.order, other == MinTree::kNone ? SlotKey{}.order : keys[other].order);
      if (slots % 4 == 0) {
        const u32 first = excluded / 4 * 4;
        const u32 outside = scan(first, 4);
        // minAround: the block's other slots, and everything outside the block.
        u32 sibling = MinTree::kNone;
        for (u32 s = first; s < first + 4; ++s) {
          if (s == excluded || !active[s]) continue;
          if (sibling == MinTree::kNone || before(keys[s], s, keys[sibling], sibling)) sibling = s;
        }
        const MinTree::Around around = tree.minAround(excluded, 4);
        ASSERT_EQ(around.in_block.time,
                  sibling == MinTree::kNone ? SlotKey{}.time : keys[sibling].time);
        ASSERT_EQ(around.in_block.order,
                  sibling == MinTree::kNone ? SlotKey{}.order : keys[sibling].order);
        ASSERT_EQ(around.outside.time,
                  outside == MinTree::kNone ? SlotKey{}.time : keys[outside].time);
        ASSERT_EQ(around.outside.order,
                  outside == MinTree::kNone ? SlotKey{}.order : keys[outside].order);
        // next: whichever of the two comes first, i.e. the best slot but the excluded one.
        ASSERT_EQ(around.next, other);
      }
    }
  }
}

}  // namespace
}  // namespace hpm
