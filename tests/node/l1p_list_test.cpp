// The L1P's list prefetcher end to end (docs/timing.md "The list prefetcher"): the list_prefetch
// workload (guest/workloads/list_prefetch.c) records a region's misses through libl1p's
// L1P_PatternStart(1) and replays them the next time, on bgq in the timing mode, with BGPM's
// L1P list and stream events programmed from the host. As monitor_exactness_test.cpp holds for
// node_mix (which starts no list), on both counting paths every counter equals what the bus
// delivered to its inputs and the memory system's own statistics (its ground truth), and the
// paths agree; every event happens; and the replayed region is faster than the recorded one.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "counter_truth.h"
#include "isa/ops.h"
#include "node/machine.h"
#include "node/monitor.h"
#include "node/simulation.h"
#include "stats/probe.h"

namespace hpm {
namespace {

using probe::Event;

const std::string kProgram = std::string(HPM_TEST_GUEST_BIN_DIR) + "/list_prefetch";

// BGPM's events of the list prefetcher and of the stream prefetcher's internals, each summed
// over its core's hardware threads.
const std::vector<std::string> kEvents = {"PEVT_L1P_LIST_STARTED",
                                          "PEVT_L1P_LIST_CMP",
                                          "PEVT_L1P_LIST_SKIP",
                                          "PEVT_L1P_LIST_SKIP_1",
                                          "PEVT_L1P_LIST_SKIP_2",
                                          "PEVT_L1P_LIST_SKIP_3",
                                          "PEVT_L1P_LIST_SKIP_4",
                                          "PEVT_L1P_LIST_SKIP_5",
                                          "PEVT_L1P_LIST_SKIP_6",
                                          "PEVT_L1P_LIST_SKIP_7",
                                          "PEVT_L1P_LIST_MISMATCH",
                                          "PEVT_L1P_LIST_ABANDON",
                                          "PEVT_L1P_LIST_OVF_MEM",
                                          "PEVT_L1P_LIST_CMP_OVRUN_PREFCH",
                                          "PEVT_L1P_STRM_LINE_ESTB_ALL_LIST",
                                          "PEVT_L1P_STRM_HIT_LIST",
                                          "PEVT_L1P_STRM_PF2DFC_LIST",
                                          "PEVT_L1P_STRM_STRM_ESTB",
                                          "PEVT_L1P_STRM_EVICT_UNUSED"};

struct ListRun {
  std::map<std::string, u64> counters;  // event -> its counter of core 0's PUnit
  std::vector<RegionReport> regions;
  Cycle cycles = 0;
};

ListRun countRun(Counting counting) {
  const MachineConfig m = loadMachine("bgq", {});
  const auto sim = test::countingSimulation(m, counting, kEvents, {kProgram});
  ListRun run;
  if (sim == nullptr) return run;
  Monitor* monitor = sim->monitor();
  sim->run();
  EXPECT_EQ(sim->kernel().termination().status, 0);
  run.cycles = sim->elapsedCycles();
  run.regions = sim->regions();

  for (const ProgrammedCounter& c :
       test::expectCountersEqualBusAndTruth(*sim, m, *monitor, run.cycles)) {
    if (c.core == 0) run.counters[c.event] = c.value;
  }
  return run;
}

TEST(L1pList, CountersEqualTheModelsStatisticsOnBothPathsAndTheReplayIsFaster) {
  ASSERT_TRUE(std::filesystem::exists(kProgram)) << kProgram;
  const ListRun events = countRun(Counting::kEvents);
  const ListRun statistics = countRun(Counting::kStatistics);
  EXPECT_EQ(events.counters, statistics.counters) << "counting from statistics differs";
  EXPECT_EQ(events.cycles, statistics.cycles);
  ASSERT_EQ(events.counters.size(), kEvents.size());
  for (const auto& [name, value] : events.counters) {
    EXPECT_GT(value, 0u) << name << " never happened: its check proves nothing";
  }
  // The workload's runs (guest/workloads/list_prefetch.c): five started, of which one abandoned
  // and one overflowing; the skips of 1 to 7 add up.
  EXPECT_EQ(events.counters.at("PEVT_L1P_LIST_STARTED"), 5u);
  EXPECT_EQ(events.counters.at("PEVT_L1P_LIST_ABANDON"), 1u);
  EXPECT_EQ(events.counters.at("PEVT_L1P_LIST_OVF_MEM"), 1u);
  u64 skips = 0;
  for (int k = 1; k <= 7; ++k)
    skips += events.counters.at("PEVT_L1P_LIST_SKIP_" + std::to_string(k));
  EXPECT_EQ(skips, events.counters.at("PEVT_L1P_LIST_SKIP"));
  // The replay finds the recorded misses' lines in the L1P: at least twice as fast.
  Cycle record = 0, replay = 0;
  for (const RegionReport& r : events.regions) {
    if (r.name == "record") record = r.total.cycles;
    if (r.name == "replay") replay = r.total.cycles;
  }
  ASSERT_GT(record, 0u);
  ASSERT_GT(replay, 0u);
  EXPECT_LT(replay * 2, record) << "record " << record << " cycles, replay " << replay;
}

}  // namespace
}  // namespace hpm
