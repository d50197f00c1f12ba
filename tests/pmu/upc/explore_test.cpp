// The design explorer: storage model and synthetic-workload simulation.
#include <gtest/gtest.h>

#include "pmu/upc/explore.h"

namespace hpm::upc {
namespace {

TEST(UpcExplore, StorageCountsFlipFlopAndSramBitsOfTheSeedDesign) {
  const StorageReport r = storage(256, 12, 13, Policy::kRoundRobin, 10.0);
  EXPECT_EQ(r.flip_flop_bits, 256u * 14);  // 12 low bits, carry latch, armed bit
  EXPECT_EQ(r.sram_bits, 256u * 56);       // 52 data + 4 parity
  EXPECT_DOUBLE_EQ(r.area, 256.0 * 14 + 256.0 * 56 / 10.0);
  EXPECT_EQ(r.flat_flip_flop_bits, 256u * 64);
  EXPECT_LT(r.ratio, 0.4);
}

TEST(UpcExplore, SimulationAtTheSafeWidthLosesNothing) {
  Params p;
  Workload w;
  w.cycles = 100'000;
  const SimulationReport r = simulate(p, w);
  EXPECT_EQ(r.lost_carries, 0u);
  EXPECT_EQ(r.deviating_counters, 0u);
  EXPECT_EQ(r.events, 256u * 100'000);
  EXPECT_LE(r.max_service_latency, 4096u);
  EXPECT_GE(r.max_service_latency, 4000u);
}

TEST(UpcExplore, SimulationBelowTheSafeWidthReportsEveryLostCarry) {
  Params p;
  p.low_bits = 11;
  Workload w;
  w.cycles = 100'000;
  const SimulationReport r = simulate(p, w);
  EXPECT_GT(r.lost_carries, 0u);
  EXPECT_EQ(r.counters_losing, 256u);
  EXPECT_TRUE(r.deviations_explained);
}

TEST(UpcExplore, BurstyAndHotPatternsRun) {
  Params p;
  Workload w;
  w.cycles = 50'000;
  w.pattern = Pattern::kBursty;
  w.rate = 0.5;
  SimulationReport r = simulate(p, w);
  EXPECT_EQ(r.lost_carries, 0u);
  EXPECT_GT(r.events, 256u * 50'000 / 3);
  EXPECT_LT(r.events, 256u * 50'000 * 2 / 3);
  w.pattern = Pattern::kHot;
  w.rate = 1.0;
  w.hot = 2;
  r = simulate(p, w);
  EXPECT_EQ(r.events, 2u * 50'000);
}

}  // namespace
}  // namespace hpm::upc
