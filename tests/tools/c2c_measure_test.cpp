// c2c's counters without a guest: which transactions each of the four counters counts on the
// crossbar and on Fireplane (counter 1's matches are what the FIFO records).
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "tools/hpmsim/lib/c2c_measure.h"

namespace hpm::tools {
namespace {

using probe::Snoop;
using probe::TransactionType;

// The counters (0 to 3) whose filters match a `type` transaction with snoop result `snoop`.
std::vector<u32> countedBy(probe::Interconnect ic, TransactionType type, Snoop snoop) {
  probe::Transaction t;
  t.type = type;
  t.snoop = snoop;
  t.address = 0x4000c0;
  t.source = 3;
  const std::array<imon::Filter, 4> filters = c2cFilters(ic);
  std::vector<u32> counters;
  for (u32 c = 0; c < filters.size(); ++c) {
    if (filters[c].matches(t)) counters.push_back(c);
  }
  return counters;
}

using Counters = std::vector<u32>;
constexpr auto kCrossbar = probe::Interconnect::kCrossbar;
constexpr auto kFireplane = probe::Interconnect::kFireplane;

TEST(C2cCrossbarCounters, AReadIsCountedAsTheL2sOrMemorysSupplyAndAmongEveryRead) {
  for (TransactionType read : {TransactionType::kRead, TransactionType::kFetch,
                               TransactionType::kPrefetch, TransactionType::kAtomic}) {
    EXPECT_EQ(countedBy(kCrossbar, read, Snoop::kL2), (Counters{0, 1, 3}));
    EXPECT_EQ(countedBy(kCrossbar, read, Snoop::kMemory), (Counters{1, 2, 3}));
  }
}

TEST(C2cCrossbarCounters, WritesAndInvalidationsReachOnlyTheFifosCounter) {
  EXPECT_EQ(countedBy(kCrossbar, TransactionType::kWrite, Snoop::kNone), (Counters{1}));
  EXPECT_EQ(countedBy(kCrossbar, TransactionType::kInvalidate, Snoop::kNone), (Counters{1}));
  EXPECT_EQ(countedBy(kCrossbar, TransactionType::kMemWrite, Snoop::kNone), Counters{});
}

TEST(C2cFireplaneCounters, ARequestIsFromACacheWhenOwnedOrModifiedElseFromMemory) {
  for (TransactionType request :
       {TransactionType::kReadToShare, TransactionType::kReadToShareAlways,
        TransactionType::kReadToOwn}) {
    EXPECT_EQ(countedBy(kFireplane, request, Snoop::kOwned), (Counters{0, 1, 3}));
    EXPECT_EQ(countedBy(kFireplane, request, Snoop::kModified), (Counters{0, 1, 3}));
    EXPECT_EQ(countedBy(kFireplane, request, Snoop::kShared), (Counters{1, 2, 3}));
    EXPECT_EQ(countedBy(kFireplane, request, Snoop::kMemory), (Counters{1, 2, 3}));
  }
}

TEST(C2cFireplaneCounters, UpgradesReachOnlyTheFifosCounterAndWriteBacksNone) {
  EXPECT_EQ(countedBy(kFireplane, TransactionType::kReadToOwnUpgrade, Snoop::kNone), (Counters{1}));
  EXPECT_EQ(countedBy(kFireplane, TransactionType::kWriteBack, Snoop::kNone), Counters{});
}

}  // namespace
}  // namespace hpm::tools
