// Which run modes each event counts in (node/run_modes.h), held to what the models do: the modes
// are derived from what publishes an event, and here the functional, warm-up and timing modes run
// the same workload to show that an event is offered in the functional and warm-up modes exactly
// when its model keeps (and publishes) it there. The guest side (libbgpm and libpapi refusing the
// others, and counting the rest exactly in the functional and warm-up modes) is tests/papi's
// PapiModes; tests/node/monitor_exactness_test.cpp holds the functional mode's counters to its
// statistics.
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
  // (The functional mode keeps its statistics while a counter unit is in use: from the start
  // here, as for hpmsim stat.)
  const NativeEvent* any = &sim.monitor()->catalogue().front();
  sim.monitor()->programHost({any});
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

// Whether `mode` keeps event `e` in `run` (offered there) or not (refused): with `refused`, that
// its statistic is 0; else, that it is not 0 when the timing mode's is not.
void holdMode(RunMode mode, Event e, u64 in_timing, const std::map<Event, u64>& run, int& refused,
              int& offered) {
  SCOPED_TRACE(std::string(runModeName(mode)));
  const u64 in_mode = run.contains(e) ? run.at(e) : 0;
  if ((runModesOf(e) & runModeBit(mode)) == 0) {
    ++refused;
    EXPECT_EQ(in_mode, 0u) << "refused in the mode, yet its model kept it there";
  } else if (in_timing != 0) {
    ++offered;
    EXPECT_NE(in_mode, 0u) << "offered in the mode, yet it reads 0 there (" << in_timing
                           << " in the timing mode)";
  }
}

struct Covered {
  int refused = 0, offered = 0;                        // in the warm-up mode
  int functional_refused = 0, functional_offered = 0;  // in the functional mode
};

// Runs node_mix on `machine` in the functional, warm-up and timing modes; returns how many events
// with a statistic each check covered.
Covered holdModesToTheModels(const MachineConfig& machine) {
  const std::map<Event, u64> functional = truthOfRun(machine, RunMode::kFunctional);
  const std::map<Event, u64> warmup = truthOfRun(machine, RunMode::kWarmup);
  const std::map<Event, u64> timing = truthOfRun(machine, RunMode::kTiming);
  // A late hit (and so a depth steal) needs a line still in flight, which the warm-up mode's
  // untimed accesses never leave: the events are published there, and are 0 (l1p_stream_test).
  const std::set<Event> never_in_flight = {Event::kL1pStreamLateHits, Event::kL1pDepthSteals};
  Covered covered;
  for (const auto& [e, in_timing] : timing) {
    SCOPED_TRACE(std::string(probe::info(e).name));
    const RunModes modes = runModesOf(e);
    EXPECT_EQ(modes & kPipelineModes, kPipelineModes) << "every event counts in the timing modes";
    if ((modes & runModeBit(RunMode::kFunctional)) != 0) {
      EXPECT_NE(modes & runModeBit(RunMode::kWarmup), 0)
          << "what the functional mode counts, the warm-up mode counts";
    }
    if (!never_in_flight.contains(e)) {
      holdMode(RunMode::kWarmup, e, in_timing, warmup, covered.refused, covered.offered);
    }
    holdMode(RunMode::kFunctional, e, in_timing, functional, covered.functional_refused,
             covered.functional_offered);
  }
  return covered;
}

TEST(RunModes, AnEventIsOfferedInTheFunctionalAndWarmupModesExactlyWhenTheirModelsKeepItThere) {
  ASSERT_TRUE(std::filesystem::exists(kNodeMix)) << kNodeMix;
  {
    SCOPED_TRACE("bgq");
    const Covered c = holdModesToTheModels(
        loadMachine("bgq", {"node.cores=2", "l2.size_kib=64", "l2.ways=2",
                            "translation.ierat_entries=1", "translation.derat_entries=8"}));
    // The check covers the pipeline's events and the caches', instructions and the kernel's.
    EXPECT_GE(c.refused, 25);
    EXPECT_GE(c.offered, 40);
    EXPECT_GE(c.functional_refused, 60);
    EXPECT_GE(c.functional_offered, 30);
  }
  {
    SCOPED_TRACE("bgp");  // the L3's banks, the snoop filters
    const Covered c = holdModesToTheModels(loadMachine("bgp", {}));
    EXPECT_GE(c.refused, 20);
    EXPECT_GE(c.offered, 40);
    EXPECT_GE(c.functional_refused, 60);
    EXPECT_GE(c.functional_offered, 30);
  }
  for (Event e :
       {Event::kBranchesTaken, Event::kBranchMispredicts, Event::kStallAny, Event::kIssueXu,
        Event::kFetchGroups, Event::kDeratMisses, Event::kL2BusyCycles, Event::kL1dFillPending}) {
    EXPECT_EQ(runModesOf(e), kPipelineModes) << probe::info(e).name;
  }
  for (Event e : {Event::kInstructions, Event::kInstBranch, Event::kInstLoad, Event::kInstStore,
                  Event::kCycles, Event::kLoads8, Event::kStoreCondFail, Event::kSyscalls}) {
    EXPECT_EQ(runModesOf(e), kModesWithUnits) << probe::info(e).name;
  }
  for (Event e : {Event::kL1dMisses, Event::kL2Misses, Event::kDdrReads, Event::kContextSwitches}) {
    EXPECT_EQ(runModesOf(e), kMemoryModes) << probe::info(e).name;
  }
}

TEST(RunModes, EveryNativeEventStatesItsModesAndAnEventThatNeverCountsHasNone) {
  for (const char* name : {"bgq", "bgp"}) {
    SCOPED_TRACE(name);
    const MachineConfig machine = loadMachine(name, {});
    RunOptions options;
    Simulation sim(machine, options);
    ASSERT_NE(sim.monitor(), nullptr);
    int pipeline = 0, functional = 0;
    for (const NativeEvent& e : sim.monitor()->catalogue()) {
      if (!e.never.empty()) {
        EXPECT_EQ(e.run_modes, 0) << e.name << " never counts";
        continue;
      }
      EXPECT_EQ(e.run_modes & kPipelineModes, kPipelineModes) << e.name;
      if ((e.run_modes & runModeBit(RunMode::kFunctional)) != 0) {
        ++functional;
        EXPECT_NE(e.run_modes & runModeBit(RunMode::kWarmup), 0) << e.name;
      }
      pipeline += e.run_modes == kPipelineModes ? 1 : 0;
    }
    EXPECT_GT(pipeline, 10) << "the pipeline's events count in the timing modes only";
    EXPECT_GT(functional, 10) << "instructions, cycles and the kernel's events count everywhere";
    const NativeEvent* instructions = sim.monitor()->expand("instructions").at(0);
    EXPECT_NE(instructions->run_modes & runModeBit(RunMode::kFunctional), 0);
    for (const NativeEvent* cache : sim.monitor()->expand("L1dMisses")) {
      EXPECT_EQ(cache->run_modes & runModeBit(RunMode::kFunctional), 0) << cache->name;
    }
  }
}

}  // namespace
}  // namespace hpm
