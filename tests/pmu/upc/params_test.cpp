// The safety rule and the parameter checks.
#include <gtest/gtest.h>

#include "pmu/upc/params.h"
#include "pmu/upc/unit.h"

namespace hpm::upc {
namespace {

TEST(UpcParams, MinimalRoundRobinWidthMatchesTheSeedAndTheIssue) {
  EXPECT_EQ(minLowBitsRoundRobin(256, 16, 1.0), 12u);
  EXPECT_EQ(minLowBitsRoundRobin(1024, 16, 1.0), 14u);
  EXPECT_EQ(minLowBitsRoundRobin(256, 16, 0.25), 10u);
  EXPECT_EQ(minLowBitsRoundRobin(256, 16, 0.3), 11u);  // ceil(1228.8) = 1229 events
  EXPECT_EQ(minLowBitsRoundRobin(256, 16, 2.0), 13u);
}

TEST(UpcParams, SeedConfigurationIsAccepted) {
  EXPECT_NO_THROW(Unit{Params{}});
}

TEST(UpcParams, UnsafeConfigurationIsRefusedWithTheSafeWidth) {
  Params p;
  p.low_bits = 11;
  try {
    Unit unit(p);
    FAIL() << "accepted an unsafe configuration";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kConfig);
    EXPECT_NE(std::string(e.what()).find("low_bits >= 12"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("exploration"), std::string::npos) << e.what();
  }
  p.exploration = true;
  EXPECT_NO_THROW(Unit{p});
}

TEST(UpcParams, LowerStatedRateAllowsNarrowerRegisters) {
  Params p;
  p.low_bits = 10;
  p.max_event_rate = 0.25;
  EXPECT_NO_THROW(Unit{p});
  p.low_bits = 9;
  EXPECT_THROW(Unit{p}, Error);
}

TEST(UpcParams, InconsistentStructureIsRefused) {
  Params p;
  p.counters = 100;
  EXPECT_THROW(p.validate(), Error);
  p = Params{};
  p.events = 1280;  // five banks
  EXPECT_THROW(p.validate(), Error);
  p = Params{};
  p.service_phase = 4096;
  EXPECT_THROW(p.validate(), Error);
}

TEST(UpcParams, LargestFirstBoundFollowsShahEtAl) {
  // b = 16 events per slot, N = 256: ln(4096) / ln(16/15) = 128.9.
  EXPECT_NEAR(largestFirstMaxValue(256, 16, 1.0), 128.88, 0.01);
  EXPECT_EQ(minLowBitsLargestFirst(256, 16, 1.0), 7u);
  EXPECT_EQ(minLowBitsLargestFirst(256, 16, 256.0), 15u);
  EXPECT_EQ(largestFirstMaxValue(256, 16, 1.0 / 32), 1.0);
}

TEST(UpcParams, ParamsAreDescribedInTheSchema) {
  Params p;
  config::Schema schema(p);
  EXPECT_NE(schema.find("low_bits"), nullptr);
  EXPECT_NE(schema.find("policy"), nullptr);
  schema.applyOverride("policy=largest-first");
  EXPECT_EQ(p.policy, Policy::kLargestFirst);
}

}  // namespace
}  // namespace hpm::upc
