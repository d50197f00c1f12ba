// Transactional memory end to end (docs/timing.md "Transactional memory"): tm_counters
// (guest/workloads/tm_counters.c) runs its threads' transactions through libtm on bgq in the
// timing mode, with the transactions' events programmed from the host. As
// monitor_exactness_test.cpp holds for node_mix (which runs no transaction), on both counting
// paths every counter equals what the bus delivered to its inputs and the speculation model's
// own statistics (its ground truth), and the paths agree; every event happens; and the counts
// add up: every transaction begun ended, committed or rolled back.
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

const std::string kProgram = std::string(HPM_TEST_GUEST_BIN_DIR) + "/tm_counters";

const std::vector<std::string> kEvents = {"PEVT_TM_BEGUN", "PEVT_TM_COMMITTED",
                                          "PEVT_TM_ROLLED_BACK", "PEVT_TM_CONFLICTS",
                                          "PEVT_L2_SPEC_ADDR_CLEANUP"};

struct TmRun {
  std::map<std::string, u64> counters;  // event -> its total over the units' instances
  std::map<Event, u64> truth;           // the model's statistic, over every source
  Cycle cycles = 0;
};

TmRun countRun(Counting counting) {
  // Two cores: six threads, four on core 0, two on core 1.
  const MachineConfig m = loadMachine("bgq", {"node.cores=2"});
  const auto sim = test::countingSimulation(m, counting, kEvents, {kProgram, "6", "40"});
  TmRun run;
  if (sim == nullptr) return run;
  Monitor* monitor = sim->monitor();
  sim->run();
  EXPECT_EQ(sim->kernel().termination().status, 0);
  run.cycles = sim->elapsedCycles();

  for (const ProgrammedCounter& c :
       test::expectCountersEqualBusAndTruth(*sim, m, *monitor, run.cycles)) {
    run.counters[c.event] += c.value;
  }
  probe::Topology topology;  // (the TM events' sources: hardware threads and L2 slices)
  topology.threads = m.hardwareThreads();
  topology.slices = m.timing.l2.slices;
  for (Event e : {Event::kTmBegun, Event::kTmCommitted, Event::kTmRolledBack, Event::kTmConflicts,
                  Event::kTmLinesCleaned}) {
    for (u32 s = 0; s < topology.instances(probe::info(e).scope); ++s) {
      run.truth[e] += sim->groundTruth(e, s).value_or(0);
    }
  }
  return run;
}

TEST(Tm, CountersEqualTheModelsStatisticsOnBothPathsAndEveryTransactionEnds) {
  ASSERT_TRUE(std::filesystem::exists(kProgram)) << kProgram;
  const TmRun events = countRun(Counting::kEvents);
  const TmRun statistics = countRun(Counting::kStatistics);
  EXPECT_EQ(events.counters, statistics.counters) << "counting from statistics differs";
  EXPECT_EQ(events.cycles, statistics.cycles);
  ASSERT_EQ(events.counters.size(), kEvents.size());
  for (const auto& [name, value] : events.counters) {
    EXPECT_GT(value, 0u) << name << " never happened: its check proves nothing";
  }
  // Every counter saw all of its event: the units' instances cover every source.
  EXPECT_EQ(events.counters.at("PEVT_TM_BEGUN"), events.truth.at(Event::kTmBegun));
  EXPECT_EQ(events.counters.at("PEVT_TM_CONFLICTS"), events.truth.at(Event::kTmConflicts));
  EXPECT_EQ(events.counters.at("PEVT_L2_SPEC_ADDR_CLEANUP"),
            events.truth.at(Event::kTmLinesCleaned));
  // Every transaction begun ended (the program's last ones committed before it printed);
  // fewer committed than the 240 it ran: the rest ran irrevocably.
  EXPECT_EQ(events.truth.at(Event::kTmBegun),
            events.truth.at(Event::kTmCommitted) + events.truth.at(Event::kTmRolledBack));
  EXPECT_LE(events.truth.at(Event::kTmConflicts), events.truth.at(Event::kTmRolledBack));
  EXPECT_LT(events.truth.at(Event::kTmCommitted), 240u);
}

}  // namespace
}  // namespace hpm
