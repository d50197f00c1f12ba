#include "kernel/vma.h"

#include <gtest/gtest.h>

namespace hpm {
namespace {

TEST(VmaMap, RemoveSplitsStraddlingAreas) {
  VmaMap m;
  m.insert(0x1000, 0x9000, 3, "a");
  m.remove(0x3000, 0x5000);
  ASSERT_EQ(m.areas().size(), 2u);
  EXPECT_EQ(m.find(0x2fff)->end, 0x3000u);
  EXPECT_EQ(m.find(0x3000), nullptr);
  EXPECT_EQ(m.find(0x5000)->start, 0x5000u);
  EXPECT_EQ(m.find(0x5000)->name, "a");
}

TEST(VmaMap, InsertReplacesOverlaps) {
  VmaMap m;
  m.insert(0x1000, 0x5000, 1);
  m.insert(0x2000, 0x3000, 3);
  EXPECT_EQ(m.find(0x1000)->perm, 1);
  EXPECT_EQ(m.find(0x2000)->perm, 3);
  EXPECT_EQ(m.find(0x4000)->perm, 1);
  EXPECT_TRUE(m.isFullyMapped(0x1000, 0x5000));
  EXPECT_FALSE(m.isFullyMapped(0x1000, 0x6000));
}

TEST(VmaMap, ProtectChangesOnlyTheRange) {
  VmaMap m;
  m.insert(0x1000, 0x5000, 3);
  m.protect(0x2000, 0x3000, 1);
  EXPECT_EQ(m.find(0x1000)->perm, 3);
  EXPECT_EQ(m.find(0x2000)->perm, 1);
  EXPECT_EQ(m.find(0x3000)->perm, 3);
}

TEST(VmaMap, FindFreeTopDownTakesTheHighestGap) {
  VmaMap m;
  m.insert(0x8000, 0x10000, 3);
  EXPECT_EQ(m.findFreeTopDown(0x1000, 0x1000, 0x20000), 0x1f000u);
  EXPECT_EQ(m.findFreeTopDown(0x1000, 0x1000, 0x10000), 0x7000u);
  EXPECT_EQ(m.findFreeTopDown(0x1000, 0x1000, 0xc000), 0x7000u);  // ceiling inside an area
  EXPECT_EQ(m.findFreeTopDown(0x8000, 0x1000, 0x10000), std::nullopt);
  EXPECT_EQ(m.findFreeTopDown(0x7000, 0x1000, 0x10000), 0x1000u);
}

}  // namespace
}  // namespace hpm
