#include "base/zero_array.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace hpm {
namespace {

TEST(ZeroArray, StartsAllZeroAndKeepsWhatIsWritten) {
  ZeroArray<std::uint64_t> a(1 << 20);
  ASSERT_EQ(a.size(), 1u << 20);
  EXPECT_EQ(a[0], 0u);
  EXPECT_EQ(a[(1 << 20) - 1], 0u);
  a[12345] = 7;
  EXPECT_EQ(a[12345], 7u);
  EXPECT_EQ(a[12344], 0u);
}

TEST(ZeroArray, MovingHandsOverTheElementsAndLeavesTheSourceEmpty) {
  ZeroArray<std::uint8_t> a(100);
  a[99] = 3;
  ZeroArray<std::uint8_t> b(std::move(a));
  EXPECT_EQ(b[99], 3u);
  EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move): the moved-from state is the rule
  ZeroArray<std::uint8_t> c(5);
  c = std::move(b);
  EXPECT_EQ(c.size(), 100u);
  EXPECT_EQ(c[99], 3u);
}

}  // namespace
}  // namespace hpm
