// hpmsim upc explore's answer and printers: the rules by which the question is answered (which
// rate, which width), and the exact text and JSON of made-up answers, without running the unit.
// (tests/pmu/upc/explore_test.cpp holds the storage model and the simulation themselves.)
#include <gtest/gtest.h>

#include <string>

#include "base/error.h"
#include "base/json_text.h"
#include "tools/hpmsim/lib/upc_explore.h"
#include "tools/hpmsim/lib/upc_explore_print.h"

namespace hpm::tools {
namespace {

ExploreParams question(u32 counters, u32 service_cycles, double rate) {
  ExploreParams p;
  p.counters = counters;
  p.service_cycles = service_cycles;
  p.rate = rate;
  return p;
}

ExploreResult answer() {
  ExploreResult r;
  r.counters = 256;
  r.service_cycles = 16;
  r.rate = 1.0;
  r.total_rate = 256.0;
  r.policy = upc::Policy::kRoundRobin;
  r.min_low_bits = 12;
  r.min_low_bits_round_robin = 12;
  r.min_low_bits_largest_first = 9;
  r.largest_first_max_value = 700.5;
  r.low_bits = 12;
  r.ff_per_sram_bit = 13.07;
  r.storage.flip_flop_bits = 3328;
  r.storage.sram_bits = 14336;
  r.storage.area = 4424.9;
  r.storage.flat_flip_flop_bits = 16384;
  r.storage.flat_area = 16384;
  r.storage.ratio = 0.27;
  return r;
}

ExploreSimulation simulation(u64 deviating, bool explained) {
  ExploreSimulation s;
  s.pattern = "bursty";
  s.report.cycles = 1000;
  s.report.events = 5000;
  s.report.stats.carries = 20;
  s.report.lost_carries = 3;
  s.report.counters_losing = 2;
  s.report.max_service_latency = 4100;
  s.report.max_flushed_value = 4500;
  s.report.deviating_counters = deviating;
  s.report.deviations_explained = explained;
  return s;
}

const std::string kAnswerText =
    "UPC-P design explorer: N = 256 counters, one maintenance slot every S = 16 cycles\n"
    "  event rate: R = 1 per cycle per counter, T = 256 per cycle over all counters\n"
    "  round-robin:   12 bits  (a counter is visited every N x S = 4096 cycles and sees at most "
    "ceil(min(R, T) x 4096) events in between; 2^L must cover them)\n"
    "  largest-first: 9 bits  (a register can reach 700 with b = 4096 events per slot, Shah et "
    "al., IEEE Micro 2002; the register and its carry latch hold 2^(L+1) - 1)\n"
    "minimal safe low-order width (round-robin): 12 bits\n"
    "storage at L = 12 (round-robin), area in flip-flop bits, 1 flip-flop bit = 13.07 SRAM "
    "bits:\n"
    "  hybrid: 3328 flip-flop bits + 14336 SRAM bits (data and parity) = 4425\n"
    "  flat:   16384 flip-flop bits (N x 64) = 16384\n"
    "  hybrid / flat = 0.270\n";

TEST(UpcExploreAnswer, TheTotalRateIsNTimesRUnlessGiven) {
  EXPECT_DOUBLE_EQ(exploreDesign(question(4, 16, 0.5)).total_rate, 2.0);
  ExploreParams p = question(4, 16, 0.5);
  p.total_rate = 1.5;
  EXPECT_DOUBLE_EQ(exploreDesign(p).total_rate, 1.5);
}

TEST(UpcExploreAnswer, TheWidthIsThePolicysMinimalOneUnlessGiven) {
  ExploreParams p = question(256, 16, 1.0);
  const ExploreResult rr = exploreDesign(p);
  EXPECT_EQ(rr.min_low_bits, rr.min_low_bits_round_robin);
  EXPECT_EQ(rr.low_bits, rr.min_low_bits);
  EXPECT_EQ(rr.min_low_bits_round_robin, upc::minLowBitsRoundRobin(256, 16, 1.0));
  p.policy = upc::Policy::kLargestFirst;
  const ExploreResult lf = exploreDesign(p);
  EXPECT_EQ(lf.min_low_bits, lf.min_low_bits_largest_first);
  EXPECT_EQ(lf.low_bits, lf.min_low_bits);
  p.low_bits = 20;
  const ExploreResult given = exploreDesign(p);
  EXPECT_EQ(given.low_bits, 20u);
  EXPECT_EQ(given.storage.flip_flop_bits,
            upc::storage(256, 20, p.parity_group_bits, p.policy, p.ff_per_sram_bit).flip_flop_bits);
}

TEST(UpcExploreAnswer, RoundRobinsWorstCaseIsOneCounterTakingAllOfTheTotalRate) {
  // T below R: a counter sees at most T per cycle.
  ExploreParams p = question(256, 16, 4.0);
  p.total_rate = 1.0;
  EXPECT_EQ(exploreDesign(p).min_low_bits_round_robin, upc::minLowBitsRoundRobin(256, 16, 1.0));
}

TEST(UpcExploreAnswer, WithoutSimulateThereIsNoSimulation) {
  EXPECT_FALSE(exploreDesign(question(256, 16, 1.0)).simulation.has_value());
}

TEST(UpcExploreAnswer, AWidthAbove63OrAbove32ToSimulateIsAUsageError) {
  ExploreParams p = question(256, 16, 1.0);
  p.low_bits = 64;
  try {
    exploreDesign(p);
    ADD_FAILURE() << "a 64-bit low-order width was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
  }
  p.low_bits = 33;
  EXPECT_EQ(exploreDesign(p).low_bits, 33u);
  p.simulate = true;
  try {
    exploreDesign(p);
    ADD_FAILURE() << "a 33-bit width was simulated";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_EQ(std::string(e.what()), "--simulate supports --low-bits up to 32");
  }
}

TEST(UpcExplorePrint, TheTextGivesEachPolicysWidthAndTheStorageAgainstFlatCounters) {
  EXPECT_EQ(exploreText(answer()), kAnswerText);
}

TEST(UpcExplorePrint, ASimulationAddsItsLinesAndSaysWhyCountsDeviate) {
  ExploreResult r = answer();
  r.simulation = simulation(2, true);
  EXPECT_EQ(exploreText(r), kAnswerText +
                                "simulation: bursty pattern, 1000 cycles, L = 12, round-robin\n"
                                "  events 5000, carries 20, lost carries 3 (in 2 counters)\n"
                                "  worst carry-to-service latency 4100 cycles\n"
                                "  counters whose final value differs from the ideal count: 2 "
                                "(each by exactly its lost carries x 2^L)\n");
  r.simulation = simulation(2, false);
  EXPECT_TRUE(exploreText(r).ends_with(
      "  counters whose final value differs from the ideal count: 2 (NOT explained by lost "
      "carries)\n"));
  r.simulation = simulation(0, true);
  EXPECT_TRUE(
      exploreText(r).ends_with("  counters whose final value differs from the ideal count: 0\n"));
}

TEST(UpcExplorePrint, OnlyLargestFirstSaysTheLargestValueFlushed) {
  ExploreResult r = answer();
  r.simulation = simulation(0, true);
  EXPECT_EQ(exploreText(r).find("largest value flushed"), std::string::npos);
  r.policy = upc::Policy::kLargestFirst;
  const std::string text = exploreText(r);
  EXPECT_NE(text.find("minimal safe low-order width (largest-first): 12 bits\n"),
            std::string::npos);
  EXPECT_NE(text.find("simulation: bursty pattern, 1000 cycles, L = 12, largest-first\n"
                      "  events 5000, carries 20, lost carries 3 (in 2 counters)\n"
                      "  worst carry-to-service latency 4100 cycles\n"
                      "  largest value flushed 4500\n"),
            std::string::npos)
      << text;
}

TEST(UpcExplorePrint, TheObjectHoldsTheAnswerAndTheStorage) {
  EXPECT_EQ(jsonText(exploreJson(answer())),
            R"({"counters":256,"flip_flop_per_sram_bit":13.07,"largest_first_max_value":700.5,)"
            R"("low_bits":12,"min_low_bits":12,"min_low_bits_largest_first":9,)"
            R"("min_low_bits_round_robin":12,"policy":"round-robin","rate":1.0,)"
            R"("service_cycles":16,"storage":{"area_flip_flop_bits":4424.9,"area_ratio":0.27,)"
            R"("flat_area_flip_flop_bits":16384.0,"flat_flip_flop_bits":16384,)"
            R"("flip_flop_bits":3328,"sram_bits":14336},"total_rate":256.0})");
}

TEST(UpcExplorePrint, ASimulationIsItsOwnObjectInTheAnswer) {
  ExploreResult r = answer();
  r.simulation = simulation(2, true);
  EXPECT_EQ(jsonText(exploreJson(r).at("simulation")),
            R"({"carries":20,"counters_losing":2,"cycles":1000,"deviating_counters":2,)"
            R"("deviations_explained":true,"events":5000,"lost_carries":3,)"
            R"("max_flushed_value":4500,"pattern":"bursty","worst_service_latency":4100})");
  EXPECT_FALSE(exploreJson(answer()).contains("simulation"));
}

}  // namespace
}  // namespace hpm::tools
