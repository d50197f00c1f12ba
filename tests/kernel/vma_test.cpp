#include "kernel/vma.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <random>

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

// findFreeTopDown by walking every page down from the ceiling: the reference.
std::optional<u64> slowFindFreeTopDown(const VmaMap& m, u64 length, u64 floor, u64 ceiling) {
  if (length == 0 || ceiling < floor || ceiling - floor < length) return std::nullopt;
  for (u64 a = ceiling - length;; a -= 0x1000) {
    if (m.isFree(a, a + length)) return a;
    if (a < floor + 0x1000) return std::nullopt;
  }
}

TEST(VmaMap, FindFreeTopDownAgreesWithAPageByPageSearchThroughInsertsRemovesAndProtects) {
  std::mt19937_64 rng(39);
  VmaMap m;
  const u64 pages = 256;
  for (int step = 0; step < 4000; ++step) {
    const u64 a = rng() % pages, b = a + 1 + rng() % 16;
    switch (rng() % 3) {
      case 0: m.insert(a << 12, b << 12, static_cast<u8>(rng() % 4)); break;
      case 1: m.remove(a << 12, b << 12); break;
      default: m.protect(a << 12, b << 12, static_cast<u8>(rng() % 4)); break;
    }
    const u64 length = (1 + rng() % 8) << 12;
    const u64 floor = (rng() % 64) << 12, ceiling = floor + ((rng() % 300) << 12);
    ASSERT_EQ(m.findFreeTopDown(length, floor, ceiling),
              slowFindFreeTopDown(m, length, floor, ceiling))
        << "step " << step;
  }
}

// 100,000 mappings placed top-down, each below the last (as mmap places device windows): each
// placement is O(log n), where walking the areas down from the ceiling made them O(n) each
// (minutes for 100,000). The bound is generous: it takes a fraction of a second.
TEST(VmaMap, OneHundredThousandTopDownPlacementsTakeLogarithmicTime) {
  VmaMap m;
  const u64 ceiling = u64{1} << 37;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 100000; ++i) {
    const auto at = m.findFreeTopDown(0x1000, 0x10000, ceiling);
    ASSERT_TRUE(at.has_value());
    ASSERT_EQ(*at, ceiling - (u64{1} + static_cast<u64>(i)) * 0x1000);
    m.insert(*at, *at + 0x1000, 8, "/dev/hpm/mu");
  }
  EXPECT_EQ(m.count(), 100000u);
  // A hole high up is found again below the ceiling.
  m.remove(ceiling - 0x3000, ceiling - 0x2000);
  EXPECT_EQ(m.findFreeTopDown(0x1000, 0x10000, ceiling), ceiling - 0x3000);
  EXPECT_EQ(m.count(), 99999u);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 10.0);
}

}  // namespace
}  // namespace hpm
