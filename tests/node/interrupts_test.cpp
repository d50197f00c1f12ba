// The interrupts the kernel's hardware threads take (docs/kernel.md "Interrupts"), end to end on
// bgq. The interrupts workload (guest/workloads/interrupts.c) has a worker and main pass a turn
// through a condition variable, send the worker queued signals, raise one each for themselves
// and join. On two hardware threads every futex wake that wakes a thread, the worker's creation
// and every tgkill is one inter-processor interrupt, an external input interrupt the other
// hardware thread takes; on one hardware thread there are none. A counter unit's overflow
// interrupt (guest/counters/ctr_slow_overflow.c) is a performance-monitor interrupt of the
// hardware thread of the thread it is for. On both counting paths BGPM's interrupt events equal
// what the bus delivered and the kernel's statistics.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <optional>
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

const std::string kBin = HPM_TEST_GUEST_BIN_DIR;
constexpr u64 kRounds = 40, kSignals = 5;
const std::vector<std::string> kInterrupts = {"interrupts", std::to_string(kRounds),
                                              std::to_string(kSignals)};
// guest/counters/ctr_slow_overflow.c as tests/counters runs it (timing mode): 8 overflow
// interrupts.
const std::vector<std::string> kOverflows = {"ctr_slow_overflow", "200", "25", "3"};

// BGPM's interrupt events that count on the node.
const std::vector<std::string> kEvents = {
    "PEVT_XU_EXT_INT_ASSERT",     "PEVT_XU_EXT_INT_TAKEN",    "PEVT_XU_PERF_MON_INT_ASSERT",
    "PEVT_XU_PERF_MON_INT_TAKEN", "PEVT_XU_INTS_TAKEN",       "PEVT_CNKHWT_STANDARD",
    "PEVT_CNKHWT_PERFMON",        "PEVT_XU_EXT_INT_TAKEN@t1", "PEVT_XU_PERF_MON_INT_TAKEN@t0"};

struct InterruptRun {
  int status = -1;
  u32 threads = 0;
  std::map<Event, u64> kernel;          // the kernel's node-wide statistics
  std::vector<u64> external, perfmon;   // taken, by hardware thread
  std::map<std::string, u64> counters;  // event -> its counter on core 0 or the CNK unit
  Cycle cycles = 0;
};

// Runs `argv` on bgq with `overrides` (functional unless `mode` says otherwise), counting
// kEvents from the host when `counting` is set: each counter is held to what the bus delivered
// and to the models' statistics.
InterruptRun run(const std::vector<std::string>& argv, const std::vector<std::string>& overrides,
                 RunMode mode = RunMode::kFunctional,
                 std::optional<Counting> counting = std::nullopt) {
  MachineConfig m = loadMachine("bgq", overrides);
  if (counting) m.monitor.counting = *counting;
  RunOptions options;
  options.mode = mode;
  options.root = std::filesystem::temp_directory_path().string();
  Simulation sim(m, options);
  Monitor* monitor = sim.monitor();
  if (counting) {
    EXPECT_NE(monitor, nullptr);
    if (monitor == nullptr) return {};
    test::programByName(*monitor, kEvents);
  }
  const std::string program = kBin + "/" + argv.front();
  std::vector<std::string> args = argv;
  args.front() = program;
  sim.exec(program, args, {});
  sim.run();
  InterruptRun r;
  r.status = sim.kernel().termination().status;
  r.threads = m.hardwareThreads();
  r.cycles = sim.elapsedCycles();
  for (Event e : {Event::kExternalInterrupts, Event::kCounterInterrupts, Event::kFutexWakes,
                  Event::kSignalsSent, Event::kThreadsCreated}) {
    r.kernel[e] = sim.groundTruth(e, 0).value_or(~u64{0});
  }
  for (u32 h = 0; h < r.threads; ++h) {
    r.external.push_back(sim.groundTruth(Event::kExternalInterruptsTaken, h).value_or(~u64{0}));
    r.perfmon.push_back(sim.groundTruth(Event::kPerfMonInterruptsTaken, h).value_or(~u64{0}));
  }
  if (!counting) return r;

  for (const ProgrammedCounter& c :
       test::expectCountersEqualBusAndTruth(sim, m, *monitor, r.cycles)) {
    if (c.core <= 0) r.counters[c.event] = c.value;
  }
  return r;
}

u64 sum(const std::vector<u64>& v) {
  u64 s = 0;
  for (u64 x : v) s += x;
  return s;
}

TEST(Interrupts, EveryWakeCreationAndSignalForAnotherHardwareThreadIsOneExternalInterrupt) {
  // Two hardware threads: main on the first, the worker on the second.
  const InterruptRun r = run(kInterrupts, {"node.cores=1", "node.threads_per_core=2"});
  ASSERT_EQ(r.status, 0);
  ASSERT_EQ(r.kernel.at(Event::kThreadsCreated), 1u);
  EXPECT_GE(r.kernel.at(Event::kFutexWakes), 1u) << "no thread ever waited: nothing is tested";
  // Each futex wake woke the other thread; the creation and the tgkills are the worker's; the
  // signals the threads raise for themselves are none.
  EXPECT_EQ(r.kernel.at(Event::kExternalInterrupts),
            r.kernel.at(Event::kFutexWakes) + 1 + kSignals);
  EXPECT_EQ(r.kernel.at(Event::kSignalsSent), kSignals + 2);
  EXPECT_EQ(sum(r.external), r.kernel.at(Event::kExternalInterrupts));
  EXPECT_GE(r.external.at(1), 1 + kSignals);
  EXPECT_EQ(r.kernel.at(Event::kCounterInterrupts), 0u);
  EXPECT_EQ(sum(r.perfmon), 0u);
}

TEST(Interrupts, ThreadsSharingOneHardwareThreadTakeNone) {
  const InterruptRun r = run(kInterrupts, {"node.cores=1", "node.threads_per_core=1"});
  ASSERT_EQ(r.status, 0);
  EXPECT_GE(r.kernel.at(Event::kFutexWakes), kRounds) << "every turn passed by a wake";
  EXPECT_EQ(r.kernel.at(Event::kSignalsSent), kSignals + 2);
  EXPECT_EQ(r.kernel.at(Event::kExternalInterrupts), 0u);
  EXPECT_EQ(sum(r.external), 0u);
}

TEST(Interrupts, ACounterOverflowIsAPerformanceMonitorInterruptOfItsThreadsHardwareThread) {
  // (The whole node: the counter library's names are those of bgq's own shape.)
  const InterruptRun r = run(kOverflows, {}, RunMode::kTiming);
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(r.kernel.at(Event::kCounterInterrupts), 8u);  // as tests/counters finds
  EXPECT_EQ(r.perfmon.at(0), 8u) << "the program's one thread runs on hardware thread 0";
  EXPECT_EQ(sum(r.perfmon), 8u);
}

TEST(Interrupts, BgpmsInterruptEventsEqualTheKernelsStatisticsOnBothCountingPaths) {
  const std::vector<std::string> two = {"node.cores=1", "node.threads_per_core=2"};
  for (const auto& argv : {kInterrupts, kOverflows}) {
    SCOPED_TRACE(argv.front());
    const std::vector<std::string> shape = argv == kInterrupts ? two : std::vector<std::string>{};
    const InterruptRun events = run(argv, shape, RunMode::kTiming, Counting::kEvents);
    const InterruptRun statistics = run(argv, shape, RunMode::kTiming, Counting::kStatistics);
    ASSERT_EQ(events.status, 0);
    ASSERT_EQ(statistics.status, 0);
    EXPECT_EQ(events.counters, statistics.counters) << "counting from statistics differs";
    EXPECT_EQ(events.cycles, statistics.cycles);
    ASSERT_EQ(events.counters.size(), kEvents.size());
    // The external interrupts are the first program's, the performance-monitor ones the
    // second's; every interrupt is taken once and asserted for one cycle.
    const bool external = argv == kInterrupts;
    const u64 taken = external ? events.kernel.at(Event::kExternalInterrupts) : 8;
    const std::string kind = external ? "EXT" : "PERF_MON";
    EXPECT_GT(taken, 0u);
    EXPECT_EQ(events.counters.at("PEVT_XU_" + kind + "_INT_TAKEN"), taken);
    EXPECT_EQ(events.counters.at("PEVT_XU_" + kind + "_INT_ASSERT"), taken);
    EXPECT_EQ(events.counters.at("PEVT_XU_INTS_TAKEN"), taken);
    EXPECT_EQ(events.counters.at(external ? "PEVT_CNKHWT_STANDARD" : "PEVT_CNKHWT_PERFMON"), taken);
    EXPECT_EQ(events.counters.at("PEVT_XU_EXT_INT_TAKEN@t1"), events.external.at(1));
    EXPECT_EQ(events.counters.at("PEVT_XU_PERF_MON_INT_TAKEN@t0"), events.perfmon.at(0));
  }
}

}  // namespace
}  // namespace hpm
