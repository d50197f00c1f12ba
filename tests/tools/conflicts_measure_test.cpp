// conflicts' measurement without a guest: the writebacks its counters count on each
// interconnect, and the cache whose blocks they are counted by.
#include <gtest/gtest.h>

#include "node/machine.h"
#include "tools/hpmsim/lib/conflicts_measure.h"

namespace hpm::tools {
namespace {

using probe::TransactionType;

bool counts(probe::Interconnect ic, TransactionType type) {
  probe::Transaction t;
  t.type = type;
  return writebackFilter(ic).matches(t);
}

TEST(ConflictsFilter, TheCrossbarsWritebacksAreTheL2sToDdrFireplanesTheWriteBacks) {
  EXPECT_TRUE(counts(probe::Interconnect::kCrossbar, TransactionType::kMemWrite));
  EXPECT_FALSE(counts(probe::Interconnect::kCrossbar, TransactionType::kWrite));
  EXPECT_FALSE(counts(probe::Interconnect::kCrossbar, TransactionType::kWriteBack));
  EXPECT_TRUE(counts(probe::Interconnect::kFireplane, TransactionType::kWriteBack));
  EXPECT_FALSE(counts(probe::Interconnect::kFireplane, TransactionType::kWriteStream));
  EXPECT_FALSE(counts(probe::Interconnect::kFireplane, TransactionType::kMemWrite));
}

TEST(ConflictsCache, BgqsBlocksAreTheSetsOfEveryL2SliceTheirSizeTheL2s) {
  const MachineConfig bgq = loadMachine("bgq", {"l2.slices=4"});
  const CacheShape cache = writebackCache(bgq);
  EXPECT_FALSE(cache.fireplane);
  EXPECT_EQ(cache.slices, 4u);
  EXPECT_EQ(cache.ways, bgq.timing.l2.ways);
  EXPECT_EQ(cache.line_bytes, bgq.timing.l2.line_bytes);
  EXPECT_EQ(u64{cache.slices} * cache.sets * cache.ways * cache.line_bytes,
            u64{bgq.timing.l2.size_kib} * 1024);
}

TEST(ConflictsCache, SunfiresBlocksAreTheSetsOfOneExternalCache) {
  const MachineConfig sunfire = loadMachine("sunfire", {"fireplane.ecache_kib=64"});
  const CacheShape cache = writebackCache(sunfire);
  EXPECT_TRUE(cache.fireplane);
  EXPECT_EQ(cache.slices, 1u);
  EXPECT_EQ(cache.ways, sunfire.timing.fireplane.ecache_ways);
  EXPECT_EQ(u64{cache.sets} * cache.ways * cache.line_bytes, 64u * 1024);
}

}  // namespace
}  // namespace hpm::tools
