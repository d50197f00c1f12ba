// Parameters: Blue Gene/Q defaults, the safety rule (a local counter must not wrap between two
// sweep visits), schedule checks, and the schema every parameter is reachable through.
#include <gtest/gtest.h>

#include <string>

#include "config/schema.h"
#include "pmu/upcq/units.h"

namespace hpm::upcq {
namespace {

bool mentions(const Error& e, const std::string& text) {
  return std::string(e.what()).find(text) != std::string::npos;
}

TEST(UpcqParams, DefaultsAreBlueGeneQs) {
  const Params p;
  EXPECT_EQ(p.punit.counters, 24u);
  EXPECT_EQ(p.punit.local_bits, 14u);
  EXPECT_EQ(p.punit.sweep.period, 800u);
  EXPECT_EQ(p.punit.overflow_latency, 4u);
  EXPECT_EQ(p.l2.slices, 16u);
  EXPECT_EQ(p.l2.counters, 6u);
  EXPECT_FALSE(p.l2.sliced);
  EXPECT_EQ(p.io.counters, 43u);
  EXPECT_NO_THROW(p.validate());
  EXPECT_NO_THROW(PUnit(p.punit, 16));
}

TEST(UpcqParams, SafeWidthFormulas) {
  EXPECT_EQ(maxEventsPerSweep(800, 8), 6400u);
  EXPECT_EQ(minLocalBits(800, 8), 13u);
  EXPECT_EQ(minLocalBits(16383, 1), 14u);
  EXPECT_EQ(minLocalBits(16384, 1), 15u);
  EXPECT_EQ(maxSafePeriod(14, 1), 16383u);
  EXPECT_EQ(maxSafePeriod(14, 8), 2047u);
  EXPECT_EQ(maxEventsPerSweep(10, 0.1), 1u);
}

TEST(UpcqParams, ASweepPeriodOfTwoToTheFourteenAtOneEventPerCycleIsRefused) {
  PUnitParams p;
  p.max_event_rate = 1;
  p.sweep.period = 16383;
  EXPECT_NO_THROW(PUnit(p, 0));
  p.sweep.period = 16384;
  try {
    PUnit unit(p, 0);
    FAIL() << "accepted an unsafe configuration";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kConfig);
    EXPECT_TRUE(mentions(e, "local_bits >= 15")) << e.what();
    EXPECT_TRUE(mentions(e, "sweep.period <= 16383")) << e.what();
    EXPECT_TRUE(mentions(e, "exploration")) << e.what();
  }
  p.exploration = true;
  EXPECT_NO_THROW(PUnit(p, 0));
}

TEST(UpcqParams, TheStatedRateDecidesWhichPeriodsAreSafe) {
  PUnitParams p;  // 8 events per cycle
  p.sweep.period = 2048;
  EXPECT_THROW(p.validate(), Error);
  p.sweep.period = 2047;
  EXPECT_NO_THROW(p.validate());
  L2UnitParams l2;
  l2.local_bits = 9;  // 800 events between visits need 10 bits
  EXPECT_THROW(L2Unit{l2}, Error);
  IOUnitParams io;
  io.local_bits = 14;  // 65536 bytes per cycle need 26 bits
  EXPECT_THROW(IOUnit{io}, Error);
}

TEST(UpcqParams, EveryLocalCounterNeedsItsOwnSlotInTheSweep) {
  PUnitParams p;
  p.sweep.period = 407;  // 17 cores x 24 counters = 408 slots
  p.max_event_rate = 1;
  EXPECT_THROW(p.validate(), Error);
  p.sweep.period = 408;
  EXPECT_NO_THROW(p.validate());
  p.sweep.phase = 408;
  EXPECT_THROW(p.validate(), Error);
}

TEST(UpcqParams, CoreBeyondTheSweepsCoresIsRefused) {
  EXPECT_THROW(PUnit(PUnitParams{}, 17), Error);
}

TEST(UpcqParams, CountersMustFitTheStatusRegisterAndEventsTheSelect) {
  CNKUnitParams c;
  c.counters = 65;
  EXPECT_THROW(c.validate(), Error);
  c.counters = 64;
  c.events = 65537;
  EXPECT_THROW(c.validate(), Error);
}

TEST(UpcqParams, SchemaReachesEveryParameterWithItsDefault) {
  Params p;
  config::Schema schema(p);
  for (const char* key : {"punit.cores", "punit.counters", "punit.local_bits", "punit.events",
                          "punit.sweep.period", "punit.sweep.phase", "punit.sweep.slot_cycles",
                          "punit.overflow_latency", "punit.max_event_rate", "punit.exploration",
                          "l2.slices", "l2.counters", "l2.sliced", "l2.sweep.period", "io.counters",
                          "io.local_bits", "cnk.counters", "cnk.events", "cnk.overflow_latency"}) {
    EXPECT_NE(schema.find(key), nullptr) << key;
  }
  EXPECT_EQ(schema.toJson()["punit"]["sweep"]["period"], 800);
  schema.applyOverride("l2.sliced=true");
  EXPECT_TRUE(p.l2.sliced);
}

}  // namespace
}  // namespace hpm::upcq
