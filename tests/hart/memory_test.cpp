#include "hart/memory.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hpm {
namespace {

constexpr u64 kPage = GuestMemory::kPageSize;

TEST(GuestMemory, UnmappedMemoryIsInaccessible) {
  GuestMemory m;
  u64 v = 0;
  EXPECT_FALSE(m.load(0x1000, v));
  EXPECT_FALSE(m.store<u64>(0x1000, 1));
  EXPECT_FALSE(m.load(GuestMemory::kMaxVaLimit - 4, v));  // straddles the end of the space
  EXPECT_FALSE(m.load(~u64{0} - 3, v));                   // wraps around
}

TEST(GuestMemory, ASmallerSpaceEndsAtItsLimitForEveryKindOfAccess) {
  constexpr u64 kLimit = u64{1} << 30;
  GuestMemory m(kLimit);
  EXPECT_EQ(m.limit(), kLimit);
  m.map(kLimit - 2 * kPage, 2 * kPage, GuestMemory::kRead | GuestMemory::kWrite);
  ASSERT_TRUE(m.store<u64>(kLimit - 8, 0x1122334455667788));  // the last bytes of the space
  u64 v = 0;
  ASSERT_TRUE(m.load(kLimit - 8, v));
  EXPECT_EQ(v, 0x1122334455667788u);
  EXPECT_FALSE(m.load(kLimit - 4, v));  // straddles the end
  EXPECT_FALSE(m.load(kLimit, v));
  EXPECT_FALSE(m.load(GuestMemory::kMaxVaLimit - 8, v));
  EXPECT_EQ(m.pagePerm(kLimit), GuestMemory::kNone);
  EXPECT_TRUE(m.inRange(kLimit - kPage, kPage));
  EXPECT_FALSE(m.inRange(kLimit - kPage, 2 * kPage));
  EXPECT_FALSE(m.inRange(kLimit + kPage, 0));
  EXPECT_FALSE(m.accessible(kLimit - 8, 16, GuestMemory::kRead));
  EXPECT_FALSE(m.isMapped(kLimit - kPage, 2 * kPage));
  u64 word = 0;
  EXPECT_FALSE(m.read(kLimit - 4, &word, sizeof word));
}

TEST(GuestMemory, MappedMemoryStartsZeroAndHoldsStores) {
  GuestMemory m;
  m.map(0x10000, 2 * kPage, GuestMemory::kRead | GuestMemory::kWrite);
  u64 v = 1;
  ASSERT_TRUE(m.load(0x10008, v));
  EXPECT_EQ(v, 0u);
  ASSERT_TRUE(m.store<u64>(0x10008, 0x1122334455667788));
  ASSERT_TRUE(m.load(0x10008, v));
  EXPECT_EQ(v, 0x1122334455667788u);
}

TEST(GuestMemory, MisalignedAccessAcrossPagesNeedsBothPages) {
  GuestMemory m;
  m.map(0x10000, kPage, GuestMemory::kRead | GuestMemory::kWrite);
  EXPECT_FALSE(m.store<u64>(0x10000 + kPage - 4, 1));  // second page unmapped
  m.map(0x10000 + kPage, kPage, GuestMemory::kRead | GuestMemory::kWrite);
  EXPECT_TRUE(m.store<u64>(0x10000 + kPage - 4, 0x0102030405060708));
  u32 high = 0;
  ASSERT_TRUE(m.load(0x10000 + kPage, high));
  EXPECT_EQ(high, 0x01020304u);
}

TEST(GuestMemory, PermissionsAreEnforcedPerPage) {
  GuestMemory m;
  m.map(0x20000, kPage, GuestMemory::kRead);
  u8 b = 0;
  EXPECT_TRUE(m.load(0x20000, b));
  EXPECT_FALSE(m.store<u8>(0x20000, 1));
  EXPECT_EQ(m.translate(0x20000, 4, GuestMemory::kRead | GuestMemory::kWrite), nullptr);
  m.protect(0x20000, kPage, GuestMemory::kRead | GuestMemory::kWrite);
  EXPECT_TRUE(m.store<u8>(0x20000, 1));
  m.protect(0x20000, kPage, GuestMemory::kNone);
  EXPECT_FALSE(m.load(0x20000, b));
}

TEST(GuestMemory, UnmapDiscardsContentsAndRemapIsZero) {
  GuestMemory m;
  m.map(0x30000, kPage, GuestMemory::kRead | GuestMemory::kWrite);
  ASSERT_TRUE(m.store<u32>(0x30010, 7));
  m.unmap(0x30000, kPage);
  u32 v = 0;
  EXPECT_FALSE(m.load(0x30010, v));
  m.map(0x30000, kPage, GuestMemory::kRead);
  ASSERT_TRUE(m.load(0x30010, v));
  EXPECT_EQ(v, 0u);
}

TEST(GuestMemory, MoveCarriesContentsAndPermissions) {
  GuestMemory m;
  m.map(0x40000, kPage, GuestMemory::kRead | GuestMemory::kWrite);
  ASSERT_TRUE(m.store<u64>(0x40100, 42));
  m.move(0x40000, 0x80000, kPage);
  u64 v = 0;
  EXPECT_FALSE(m.load(0x40100, v));
  ASSERT_TRUE(m.load(0x80100, v));
  EXPECT_EQ(v, 42u);
  EXPECT_EQ(m.pagePerm(0x80000), GuestMemory::kRead | GuestMemory::kWrite);
}

TEST(GuestMemory, BulkCopiesFailWithoutPartialEffect) {
  GuestMemory m;
  m.map(0x50000, kPage, GuestMemory::kRead | GuestMemory::kWrite);
  const char text[] = "hello";
  ASSERT_TRUE(m.write(0x50000, text, sizeof text));
  std::string s;
  ASSERT_TRUE(m.readString(0x50000, s));
  EXPECT_EQ(s, "hello");
  char big[16] = {};
  EXPECT_FALSE(m.write(0x50000 + kPage - 8, big, sizeof big));
  u8 first = 0xff;
  ASSERT_TRUE(m.load(0x50000 + kPage - 8, first));
  EXPECT_EQ(first, 0);
}

struct TouchLog : TouchListener {
  std::vector<u64> pages;
  void firstTouch(u64 page) override { pages.push_back(page); }
};

TEST(GuestMemory, OnlyTheFirstDataAccessToAMappedPageTouchesIt) {
  GuestMemory m;
  TouchLog log;
  m.setTouchListener(&log);
  m.map(0x60000, 3 * kPage, GuestMemory::kRead | GuestMemory::kWrite);
  u64 v = 0;
  ASSERT_TRUE(m.load(0x60008, v));
  ASSERT_TRUE(m.store<u64>(0x60010, 1));  // the same page again
  ASSERT_TRUE(m.store<u32>(0x60000 + kPage + 4, 1));
  EXPECT_EQ(m.firstTouches(), 2u);
  EXPECT_EQ(log.pages, (std::vector<u64>{0x60, 0x61}));
  // A failed access touches nothing; an access straddling two pages touches the untouched one.
  EXPECT_EQ(m.translate(0x60000 + 3 * kPage, 1, GuestMemory::kRead), nullptr);
  ASSERT_TRUE(m.store<u64>(0x60000 + 2 * kPage - 4, 1));
  EXPECT_EQ(log.pages, (std::vector<u64>{0x60, 0x61, 0x62}));
  EXPECT_EQ(m.firstTouches(), 3u);
}

TEST(GuestMemory, KernelCopiesAndInstructionFetchTouchNoPage) {
  GuestMemory m;
  m.map(0x70000, kPage, GuestMemory::kRead | GuestMemory::kWrite | GuestMemory::kExec);
  const char text[] = "text";
  ASSERT_TRUE(m.write(0x70000, text, sizeof text));
  char back[sizeof text] = {};
  ASSERT_TRUE(m.read(0x70000, back, sizeof back));
  std::string s;
  ASSERT_TRUE(m.readString(0x70000, s));
  EXPECT_NE(m.view(0x70000, 2, GuestMemory::kExec), nullptr);
  EXPECT_EQ(m.firstTouches(), 0u);
  u8 b = 0;
  ASSERT_TRUE(m.load(0x70000, b));
  EXPECT_EQ(m.firstTouches(), 1u);
}

TEST(GuestMemory, ProtectAndMoveKeepAPagesTouchAndRemappingRenewsIt) {
  GuestMemory m;
  m.map(0x80000, kPage, GuestMemory::kRead | GuestMemory::kWrite);
  ASSERT_TRUE(m.store<u8>(0x80000, 1));
  m.protect(0x80000, kPage, GuestMemory::kRead);
  EXPECT_EQ(m.pagePerm(0x80000), GuestMemory::kRead);
  u8 b = 0;
  ASSERT_TRUE(m.load(0x80000, b));
  m.move(0x80000, 0x90000, kPage);
  ASSERT_TRUE(m.load(0x90000, b));
  EXPECT_EQ(m.firstTouches(), 1u);
  // An untouched page stays untouched through mprotect, and is mapped by no permission bit.
  m.map(0xa0000, kPage, GuestMemory::kNone);
  EXPECT_EQ(m.pagePerm(0xa0000), GuestMemory::kNone);
  EXPECT_FALSE(m.isMapped(0xa0000, kPage));
  EXPECT_TRUE(m.isUnmapped(0xa0000, kPage));
  m.protect(0xa0000, kPage, GuestMemory::kRead);
  ASSERT_TRUE(m.load(0xa0000, b));
  EXPECT_EQ(m.firstTouches(), 2u);
  // A fresh mapping is a fresh page (as Linux faults it in again).
  m.unmap(0x90000, kPage);
  m.map(0x90000, kPage, GuestMemory::kRead);
  ASSERT_TRUE(m.load(0x90000, b));
  EXPECT_EQ(m.firstTouches(), 3u);
}

}  // namespace
}  // namespace hpm
