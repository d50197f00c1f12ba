// Blue Gene/P's L2 prefetch unit events end to end (docs/timing.md "L1P"): node_mix
// (guest/workloads/node_mix.c) runs on bgp in the timing mode, one worker per core, with every
// core's PU<k>_L2_... and PU<k>_DCACHE_LINEFILLINPROG programmed from the host (cores 0 and 1 in
// one run, 2 and 3 in another: UPC-P's modes 0 and 1 share the counters). On both counting
// paths every counter equals what the bus delivered to its inputs and the memory system's own
// statistics (its ground truth), the paths agree, and the events keep the relations their
// definitions make.
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

const std::string kProgram = std::string(HPM_TEST_GUEST_BIN_DIR) + "/node_mix";

const std::vector<std::string> kSuffixes = {"L2_PREFETCHABLE_REQUESTS",
                                            "L2_PREFETCH_HITS_IN_FILTER",
                                            "L2_PAGE_ALREADY_IN_L2",
                                            "L2_CYCLES_PREFETCH_PENDING",
                                            "L2_CYCLES_READ_REQUEST_PENDING",
                                            "DCACHE_LINEFILLINPROG",
                                            "L2_READ_REQUESTS",
                                            "L2_HIT",
                                            "L2_L3_READ_REQUESTS",
                                            "L2_PREFETCH_HITS_IN_STREAM"};

struct PrefetchRun {
  std::map<std::string, u64> counters;  // event -> value
  Cycle cycles = 0;
};

// Runs node_mix counting cores `first` and first + 1's events.
PrefetchRun countRun(Counting counting, u32 first) {
  std::vector<std::string> names;
  for (u32 k = first; k < first + 2; ++k) {
    for (const std::string& s : kSuffixes) names.push_back("PU" + std::to_string(k) + "_" + s);
  }
  const MachineConfig m = loadMachine("bgp", {});
  const auto sim = test::countingSimulation(m, counting, names, {kProgram, "4"});
  PrefetchRun run;
  if (sim == nullptr) return run;
  Monitor* monitor = sim->monitor();
  sim->run();
  EXPECT_EQ(sim->kernel().termination().status, 0);
  run.cycles = sim->elapsedCycles();
  for (const ProgrammedCounter& c :
       test::expectCountersEqualBusAndTruth(*sim, m, *monitor, run.cycles)) {
    run.counters[c.event] = c.value;
  }
  EXPECT_EQ(run.counters.size(), names.size());
  return run;
}

TEST(L2PrefetchEvents, CountersEqualTheModelsStatisticsOnBothPathsAndKeepTheirRelations) {
  ASSERT_TRUE(std::filesystem::exists(kProgram)) << kProgram;
  std::map<std::string, u64> all;
  for (u32 first : {0u, 2u}) {
    const PrefetchRun events = countRun(Counting::kEvents, first);
    const PrefetchRun statistics = countRun(Counting::kStatistics, first);
    EXPECT_EQ(events.counters, statistics.counters) << "counting from statistics differs";
    EXPECT_EQ(events.cycles, statistics.cycles);
    all.insert(events.counters.begin(), events.counters.end());
  }
  u64 dropped = 0;
  for (u32 k = 0; k < 4; ++k) {
    SCOPED_TRACE("core " + std::to_string(k));
    auto at = [&](const std::string& s) { return all.at("PU" + std::to_string(k) + "_" + s); };
    // Every L1P lookup is a cacheable data read the prefetcher may follow.
    EXPECT_EQ(at("L2_PREFETCHABLE_REQUESTS"), at("L2_READ_REQUESTS"));
    EXPECT_GT(at("L2_PREFETCHABLE_REQUESTS"), 0u);
    EXPECT_LE(at("L2_PREFETCH_HITS_IN_STREAM"), at("L2_HIT"));
    // A stream is established by a miss.
    EXPECT_GT(at("L2_PREFETCH_HITS_IN_FILTER"), 0u);
    EXPECT_LE(at("L2_PREFETCH_HITS_IN_FILTER"), at("L2_L3_READ_REQUESTS"));
    // A dropped prefetch is made by an access that continued a stream: a miss establishing or
    // continuing one, or a first hit on a prefetched line.
    EXPECT_LE(at("L2_PAGE_ALREADY_IN_L2"),
              at("L2_L3_READ_REQUESTS") + at("L2_PREFETCH_HITS_IN_STREAM"));
    dropped += at("L2_PAGE_ALREADY_IN_L2");
    // The levels: some cycles each; a line fill lasts at least as long as the L1P's read behind
    // it (the fill spans every demand read).
    EXPECT_GT(at("L2_CYCLES_PREFETCH_PENDING"), 0u);
    EXPECT_GT(at("L2_CYCLES_READ_REQUEST_PENDING"), 0u);
    EXPECT_GE(at("DCACHE_LINEFILLINPROG"), at("L2_CYCLES_READ_REQUEST_PENDING"));
  }
  EXPECT_GT(dropped, 0u) << "no prefetch was dropped: the check of it proves nothing";
}

}  // namespace
}  // namespace hpm
