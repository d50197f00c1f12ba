// The timing model's statistics carry their measures (kind and unit, stats/measure.h): every one
// it writes has one, and those other code reads (core/timing_stats.h, mem/mem_stats.h) are
// written with their declarations'.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "core/timing_stats.h"
#include "mem/mem_stats.h"
#include "stats/stats.h"
#include "tests/core/harness.h"
#include "tests/support/stats_units.h"

namespace hpm::timing::test {
namespace {

using nlohmann::json;

struct Visited {
  json values, units;
};

// A translated thread's loads on three pages, looped: every group of the model's statistics.
Visited visitedModel() {
  TimingParams p = oneThread();
  p.core.ibuffer_entries = 16;
  p.translation.enabled = true;
  Loop l;
  l.body = {ld(5, 6, 0), ld(5, 6, 0), ld(5, 6, 0), bne(30, 0, -12)};
  const std::vector<u64> addrs = {0x800000, 0x900008, 0xa00010};
  l.addr = [addrs](u64, u32 i) { return addrs[i]; };
  l.iterations = 5;
  NodeTiming m(p);
  runOne(m, 0, unroll(l).steps);
  stats::JsonWriter w;
  m.visitStats(w);
  return {.values = w.result(), .units = w.units()};
}

json measureOf(const stats::Stat& s) {
  return {{"kind", stats::kindName(s.measure.kind)}, {"unit", stats::unitName(s.measure.unit)}};
}

TEST(TimingStatsUnits, EveryStatisticHasAMeasureAndEveryTotalOrLevelAUnit) {
  const Visited v = visitedModel();
  ASSERT_TRUE(v.values["cores"][0]["threads"][0].contains("translation"));
  EXPECT_EQ(hpm::test::measureProblems(v.values, v.units), std::vector<std::string>{});
}

TEST(TimingStatsUnits, TheStatisticsOthersReadAreWrittenWithTheirDeclaredMeasures) {
  json units = visitedModel().units;  // (a missing path reads as null)
  const std::string core = std::string(stat::kCores) + ".*.";
  for (const std::string& at : {core, core + "threads.*."}) {
    EXPECT_EQ(units[at + "instructions"], measureOf(stat::kInstructions)) << at;
    EXPECT_EQ(units[at + "cycles"], measureOf(stat::kCycles)) << at;
    for (std::size_t i = 0; i < kStallCount; ++i) {
      const std::string cause(stallName(static_cast<Stall>(i)));
      EXPECT_EQ(units[at + std::string(stat::kStalls.name) + "." + cause], measureOf(stat::kStalls))
          << at << cause;
    }
  }
  EXPECT_EQ(units[core + "lmq_full_cycles"], measureOf(stat::kLmqFullCycles));
  EXPECT_EQ(units[core + "sq_full_cycles"], measureOf(stat::kSqFullCycles));
  namespace ms = mem::stat;
  for (const std::string_view cache : {ms::kL1d, ms::kL1i, ms::kL1p}) {
    const std::string at = core + std::string(cache) + ".";
    EXPECT_EQ(units[at + "accesses"], measureOf(ms::kAccesses)) << at;
    EXPECT_EQ(units[at + "hits"], measureOf(ms::kHits)) << at;
    EXPECT_EQ(units[at + "misses"], measureOf(ms::kMisses)) << at;
    EXPECT_EQ(units[at + "prefetches"], measureOf(ms::kPrefetches)) << at;
  }
  const std::string slice = std::string(ms::kL2Slices) + ".*.";
  EXPECT_EQ(units[slice + "requests"], measureOf(ms::kSliceRequests));
  EXPECT_EQ(units[slice + "hits"], measureOf(ms::kSliceHits));
  EXPECT_EQ(units[slice + "misses"], measureOf(ms::kSliceMisses));
  EXPECT_EQ(units[slice + "evictions"], measureOf(ms::kSliceEvictions));
  EXPECT_EQ(units[slice + "writebacks"], measureOf(ms::kSliceWritebacks));
}

}  // namespace
}  // namespace hpm::timing::test
