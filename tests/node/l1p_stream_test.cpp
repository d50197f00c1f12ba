// The L1P stream prefetcher's depth adaptation end to end (docs/timing.md "The stream
// prefetcher"): the l1p_stream workload (guest/workloads/l1p_stream.c) checks through libl1p's
// SPI calls that the register reads back what they write, then streams through never-touched
// arrays with one, two and four streams, on bgq in the timing mode, with the adaptation on
// (L1P_SetStreamAdaptiveMode(1)) and off, and BGPM's L1P stream events programmed from the host.
// As monitor_exactness_test.cpp holds for node_mix, on both counting paths every counter equals
// what the bus delivered to its inputs and the memory system's own statistics (its ground
// truth), and the paths agree. With the adaptation on, depth is stolen (off, none after the
// start), one stream runs faster and four, sharing the budget, slower.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "counter_truth.h"
#include "node/machine.h"
#include "node/monitor.h"
#include "node/simulation.h"

namespace hpm {
namespace {

const std::string kProgram = std::string(HPM_TEST_GUEST_BIN_DIR) + "/l1p_stream";

// BGPM's events of the stream prefetcher, each summed over its core's hardware threads.
const std::vector<std::string> kEvents = {
    "PEVT_L1P_STRM_STRM_DEPTH_STEAL", "PEVT_L1P_BAS_PF2DFC",         "PEVT_L1P_STRM_LINE_ESTB",
    "PEVT_L1P_STRM_STRM_ESTB",        "PEVT_L1P_BAS_STRM_LINE_ESTB", "PEVT_L1P_BAS_MISS"};

struct StreamRun {
  std::map<std::string, u64> counters;   // event -> its counter of core 0's PUnit
  std::map<std::string, Cycle> regions;  // region -> its cycles
  Cycle cycles = 0;
};

StreamRun countRun(bool adaptive, Counting counting) {
  const MachineConfig m = loadMachine("bgq", {});
  const auto sim =
      test::countingSimulation(m, counting, kEvents, {kProgram, adaptive ? "1" : "0", "64"});
  StreamRun run;
  if (sim == nullptr) return run;
  Monitor* monitor = sim->monitor();
  sim->run();
  EXPECT_EQ(sim->kernel().termination().status, 0) << "3: the register did not read back";
  run.cycles = sim->elapsedCycles();
  for (const RegionReport& r : sim->regions()) run.regions[r.name] = r.total.cycles;
  for (const ProgrammedCounter& c :
       test::expectCountersEqualBusAndTruth(*sim, m, *monitor, run.cycles)) {
    if (c.core == 0) run.counters[c.event] = c.value;
  }
  return run;
}

TEST(L1pStream, AdaptationStealsDepthAndSavesCyclesWithCountersEqualToTheModelsStatistics) {
  ASSERT_TRUE(std::filesystem::exists(kProgram)) << kProgram;
  std::map<bool, StreamRun> runs;
  for (bool adaptive : {true, false}) {
    SCOPED_TRACE(adaptive ? "adaptive" : "fixed depth");
    const StreamRun events = countRun(adaptive, Counting::kEvents);
    const StreamRun statistics = countRun(adaptive, Counting::kStatistics);
    EXPECT_EQ(events.counters, statistics.counters) << "counting from statistics differs";
    EXPECT_EQ(events.cycles, statistics.cycles);
    ASSERT_EQ(events.counters.size(), kEvents.size());
    // Every line the L1P filled was a demand miss's or a stream prefetch's (no list runs).
    EXPECT_EQ(events.counters.at("PEVT_L1P_STRM_LINE_ESTB"),
              events.counters.at("PEVT_L1P_BAS_MISS") +
                  events.counters.at("PEVT_L1P_BAS_STRM_LINE_ESTB"));
    EXPECT_GT(events.counters.at("PEVT_L1P_BAS_PF2DFC"), 0u);
    EXPECT_GE(events.counters.at("PEVT_L1P_STRM_STRM_ESTB"), 7u);  // the seven arrays' streams
    runs[adaptive] = events;
  }
  const StreamRun& on = runs.at(true);
  const StreamRun& off = runs.at(false);
  // (Off from main on: the few steals before it are the start-up's, at the firmware's setting.)
  EXPECT_GT(on.counters.at("PEVT_L1P_STRM_STRM_DEPTH_STEAL"),
            off.counters.at("PEVT_L1P_STRM_STRM_DEPTH_STEAL"));
  for (const char* region : {"one", "two", "four"}) {
    ASSERT_TRUE(on.regions.contains(region) && off.regions.contains(region)) << region;
  }
  // One stream deepens within the budget: faster. Four share the budget of 8 lines, which
  // their initial depths (3 each, fixed) exceed: slower.
  EXPECT_LT(on.regions.at("one"), off.regions.at("one"));
  EXPECT_GT(on.regions.at("four"), off.regions.at("four"));
}

}  // namespace
}  // namespace hpm
