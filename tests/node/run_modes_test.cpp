// Which run modes each event counts in (node/run_modes.h), held to what the models do: the modes
// are derived from what publishes an event, and here the warm-up and timing modes run the same
// workload to show that an event is offered in the warm-up mode exactly when its model keeps (and
// publishes) it there. The guest side (libbgpm and libpapi refusing the others, and counting the
// rest exactly in the warm-up mode) is tests/papi's PapiModes.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "node/machine.h"
#include "node/monitor.h"
#include "node/run_modes.h"
#include "node/simulation.h"
#include "stats/probe.h"

namespace hpm {
namespace {

using probe::Event;

const std::string kNodeMix = std::string(HPM_TEST_GUEST_BIN_DIR) + "/node_mix";

// Every event's ground truth summed over its instances (those with a statistic).
std::map<Event, u64> truthOfRun(const MachineConfig& machine, RunMode mode) {
  RunOptions options;
  options.mode = mode;
  options.root = std::filesystem::temp_directory_path().string();
  Simulation sim(machine, options);
  sim.exec(kNodeMix, {kNodeMix, "4"}, {});
  sim.run();
  EXPECT_EQ(sim.kernel().termination().status, 0);
  const probe::Topology topology = probeTopology(machine);
  std::map<Event, u64> sums;
  for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
    const auto e = static_cast<Event>(ev);
    for (u32 s = 0; s < topology.instances(probe::info(e).scope); ++s) {
      if (const auto v = sim.groundTruth(e, s)) sums[e] += *v;
    }
  }
  return sums;
}

// Runs node_mix on `machine` in the warm-up and the timing modes; returns how many events with a
// statistic each check covered: {refused in the warm-up mode, offered there and happened}.
std::pair<int, int> holdModesToTheModels(const MachineConfig& machine) {
  const std::map<Event, u64> warmup = truthOfRun(machine, RunMode::kWarmup);
  const std::map<Event, u64> timing = truthOfRun(machine, RunMode::kTiming);
  // A late hit (and so a depth steal) needs a line still in flight, which the warm-up mode's
  // untimed accesses never leave: the events are published there, and are 0 (l1p_stream_test).
  const std::set<Event> never_in_flight = {Event::kL1pStreamLateHits, Event::kL1pDepthSteals};
  int offered = 0, refused = 0;
  for (const auto& [e, in_timing] : timing) {
    SCOPED_TRACE(std::string(probe::info(e).name));
    const RunModes modes = runModesOf(e);
    EXPECT_EQ(modes & kPipelineModes, kPipelineModes) << "every event counts in the timing modes";
    EXPECT_EQ(modes & runModeBit(RunMode::kFunctional), 0) << "the functional mode has no units";
    const u64 in_warmup = warmup.contains(e) ? warmup.at(e) : 0;
    if ((modes & runModeBit(RunMode::kWarmup)) == 0) {
      ++refused;
      EXPECT_EQ(in_warmup, 0u) << "refused in the warm-up mode, yet its model kept it there";
    } else if (in_timing != 0 && !never_in_flight.contains(e)) {
      ++offered;
      EXPECT_NE(in_warmup, 0u) << "offered in the warm-up mode, yet it reads 0 there (" << in_timing
                               << " in the timing mode)";
    }
  }
  return {refused, offered};
}

TEST(RunModes, AnEventIsOfferedInTheWarmupModeExactlyWhenItsModelKeepsItThere) {
  ASSERT_TRUE(std::filesystem::exists(kNodeMix)) << kNodeMix;
  {
    SCOPED_TRACE("bgq");
    const auto [refused, offered] = holdModesToTheModels(
        loadMachine("bgq", {"node.cores=2", "l2.size_kib=64", "l2.ways=2",
                            "translation.ierat_entries=1", "translation.derat_entries=8"}));
    // The check covers the pipeline's events and the caches', instructions and the kernel's.
    EXPECT_GE(refused, 25);
    EXPECT_GE(offered, 40);
  }
  {
    SCOPED_TRACE("bgp");  // the L3's banks, the snoop filters
    const auto [refused, offered] = holdModesToTheModels(loadMachine("bgp", {}));
    EXPECT_GE(refused, 20);
    EXPECT_GE(offered, 40);
  }
  for (Event e :
       {Event::kBranchesTaken, Event::kBranchMispredicts, Event::kStallAny, Event::kIssueXu,
        Event::kFetchGroups, Event::kDeratMisses, Event::kL2BusyCycles, Event::kL1dFillPending}) {
    EXPECT_EQ(runModesOf(e), kPipelineModes) << probe::info(e).name;
  }
  for (Event e :
       {Event::kInstructions, Event::kInstBranch, Event::kInstLoad, Event::kInstStore,
        Event::kCycles, Event::kLoads8, Event::kL1dMisses, Event::kL2Misses, Event::kSyscalls}) {
    EXPECT_EQ(runModesOf(e), kModesWithUnits) << probe::info(e).name;
  }
}

TEST(RunModes, EveryNativeEventStatesItsModesAndAnEventThatNeverCountsHasNone) {
  for (const char* name : {"bgq", "bgp"}) {
    SCOPED_TRACE(name);
    const MachineConfig machine = loadMachine(name, {});
    RunOptions options;
    Simulation sim(machine, options);
    ASSERT_NE(sim.monitor(), nullptr);
    int pipeline = 0;
    for (const NativeEvent& e : sim.monitor()->catalogue()) {
      if (!e.never.empty()) {
        EXPECT_EQ(e.run_modes, 0) << e.name << " never counts";
        continue;
      }
      EXPECT_EQ(e.run_modes & kPipelineModes, kPipelineModes) << e.name;
      EXPECT_EQ(e.run_modes & runModeBit(RunMode::kFunctional), 0) << e.name;
      pipeline += e.run_modes == kPipelineModes ? 1 : 0;
    }
    EXPECT_GT(pipeline, 10) << "the pipeline's events count in the timing modes only";
  }
}

}  // namespace
}  // namespace hpm
