// Blue Gene/P's device and network buses (docs/timing.md "Device buses"): each core's L2 routes
// an uncached device access to its device's bus, and the counts per core and bus are the
// statistics behind UPC-P's PU<k>_L2_DEVBUS_READ_REQUESTS, _DEVBUS_WRITES,
// _NETBUS_READ_REQUESTS and _NETWORK_WRITES. Here: the routing of each of the node's devices,
// the counts of a bus router alone, and the dev_poll workload (guest/counters/dev_poll.c) on bgp
// with those events programmed from the host: on both counting paths every counter equals what
// the bus delivered and the statistics, which are the workload's own accesses, and the timing is
// that of the same run without device buses. The network bus's side, on many nodes, is in
// tests/cluster/mu_counters_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "counter_truth.h"
#include "mem/device_buses.h"
#include "node/machine.h"
#include "node/monitor.h"
#include "node/simulation.h"
#include "stats/probe.h"

namespace hpm {
namespace {

using probe::DeviceBus;
using probe::Event;

const std::string kProgram = std::string(HPM_TEST_GUEST_BIN_DIR) + "/dev_poll";
constexpr u64 kReads = 300, kWrites = 40;
constexpr u32 kThreads = 2;

// Instance of (core, bus) of the device buses' events.
u32 instance(u32 core, DeviceBus bus) {
  return core * probe::kDeviceBuses + static_cast<u32>(bus);
}

TEST(DeviceBuses, EachAccessCountsOnItsCoresBusByItsAddress) {
  mem::DeviceBuses buses(3);
  // Addresses below 0x1000 are the network bus's here, the others the device bus's.
  buses.setRouter(
      [](u64 addr) { return addr < 0x1000 ? DeviceBus::kNetwork : DeviceBus::kDevice; });
  buses.access(0, 0x10, false);
  buses.access(0, 0x10, false);
  buses.access(2, 0x2000, true);
  buses.access(2, 0x800, true);
  buses.access(1, 0x3000, false);
  EXPECT_EQ(buses.stats(0).reads, (std::array<u64, 2>{0, 2}));
  EXPECT_EQ(buses.stats(0).writes, (std::array<u64, 2>{0, 0}));
  EXPECT_EQ(buses.stats(1).reads, (std::array<u64, 2>{1, 0}));
  EXPECT_EQ(buses.stats(2).writes, (std::array<u64, 2>{1, 1}));
  // The ground truth of instance core x buses + bus is that core's count on that bus.
  EXPECT_EQ(buses.groundTruth(Event::kDeviceBusReads, instance(0, DeviceBus::kNetwork)), 2u);
  EXPECT_EQ(buses.groundTruth(Event::kDeviceBusReads, instance(1, DeviceBus::kDevice)), 1u);
  EXPECT_EQ(buses.groundTruth(Event::kDeviceBusWrites, instance(2, DeviceBus::kNetwork)), 1u);
  EXPECT_EQ(buses.groundTruth(Event::kDeviceBusWrites, instance(2, DeviceBus::kDevice)), 1u);
  EXPECT_EQ(buses.groundTruth(Event::kL2Reads, 0), std::nullopt);
}

TEST(DeviceBuses, TheCounterUnitsAreOnTheDeviceBusOnlyBgpRoutesByBus) {
  // Every counter unit (bgp's UPC) is a device-bus device; the message unit (BG/P's DMA and
  // torus FIFOs) is the network bus's: tests/cluster/mu_counters_test.cpp counts it there.
  MachineConfig m = loadMachine("bgp", {});
  RunOptions options;
  options.mode = RunMode::kTiming;
  Simulation sim(m, options);
  ASSERT_NE(sim.monitor(), nullptr);
  const int upc = sim.monitor()->findDevice("/dev/hpm/upc");
  ASSERT_GE(upc, 0);
  EXPECT_EQ(sim.monitor()->bus(upc), DeviceBus::kDevice);
  EXPECT_EQ(probeTopology(m).device_buses, probe::kDeviceBuses);
  EXPECT_EQ(probeTopology(loadMachine("bgq", {})).device_buses, 0u);
}

struct PollRun {
  int status = -1;
  Cycle cycles = 0;
  std::map<std::string, u64> counters;  // event -> its counter
  // By core: its reads and writes of each bus (the statistics).
  std::vector<mem::DeviceBusStats> buses;
};

PollRun poll(Counting counting, const std::vector<std::string>& overrides = {}) {
  MachineConfig m = loadMachine("bgp", overrides);
  m.monitor.counting = counting;
  RunOptions options;
  options.mode = RunMode::kTiming;
  options.root = std::filesystem::temp_directory_path().string();
  Simulation sim(m, options);
  Monitor* monitor = sim.monitor();
  PollRun r;
  EXPECT_NE(monitor, nullptr);
  if (monitor == nullptr) return r;
  const bool buses = m.timing.memParams().deviceBuses() != 0;
  std::vector<std::string> names;
  for (int k = 0; k < 2 && buses; ++k) {
    for (const char* suffix : {"L2_DEVBUS_READ_REQUESTS", "L2_DEVBUS_WRITES",
                               "L2_NETBUS_READ_REQUESTS", "L2_NETWORK_WRITES"}) {
      names.push_back("PU" + std::to_string(k) + "_" + suffix);
    }
  }
  if (!names.empty()) test::programByName(*monitor, names);
  const std::vector<std::string> argv = {kProgram, std::to_string(kReads), std::to_string(kWrites),
                                         std::to_string(kThreads)};
  sim.exec(kProgram, argv, {});
  sim.run();
  r.status = sim.kernel().termination().status;
  r.cycles = sim.elapsedCycles();
  for (u32 c = 0; c < m.node.cores && buses; ++c) {
    mem::DeviceBusStats s;
    for (DeviceBus b : {DeviceBus::kDevice, DeviceBus::kNetwork}) {
      const u32 i = static_cast<u32>(b);
      s.reads[i] = sim.groundTruth(Event::kDeviceBusReads, instance(c, b)).value_or(~u64{0});
      s.writes[i] = sim.groundTruth(Event::kDeviceBusWrites, instance(c, b)).value_or(~u64{0});
    }
    r.buses.push_back(s);
  }
  if (names.empty()) return r;
  for (const ProgrammedCounter& c :
       test::expectCountersEqualBusAndTruth(sim, m, *monitor, r.cycles)) {
    r.counters[c.event] = c.value;
  }
  return r;
}

TEST(DeviceBuses, UpcPCountsEachCoresPollingOfTheDeviceBusExactlyOnBothPaths) {
  ASSERT_TRUE(std::filesystem::exists(kProgram)) << kProgram;
  const PollRun events = poll(Counting::kEvents);
  const PollRun statistics = poll(Counting::kStatistics);
  ASSERT_EQ(events.status, 0);
  EXPECT_EQ(events.counters, statistics.counters) << "counting from statistics differs";
  EXPECT_EQ(events.cycles, statistics.cycles);
  ASSERT_EQ(events.counters.size(), 8u);
  // Each polling thread's core made exactly the workload's reads and writes of the device bus
  // (the UPC's registers), none of the network bus; the others none at all.
  u32 polling = 0;
  for (u32 c = 0; c < events.buses.size(); ++c) {
    const mem::DeviceBusStats& s = events.buses[c];
    const std::string core = "core " + std::to_string(c);
    EXPECT_EQ(s.reads[1], 0u) << core;
    EXPECT_EQ(s.writes[1], 0u) << core;
    if (s.reads[0] == 0 && s.writes[0] == 0) continue;
    ++polling;
    EXPECT_EQ(s.reads[0], kReads) << core;
    EXPECT_EQ(s.writes[0], kWrites) << core;
    if (c < 2) {
      const std::string pu = "PU" + std::to_string(c) + "_L2_";
      EXPECT_EQ(events.counters.at(pu + "DEVBUS_READ_REQUESTS"), kReads) << core;
      EXPECT_EQ(events.counters.at(pu + "DEVBUS_WRITES"), kWrites) << core;
    }
  }
  EXPECT_EQ(polling, kThreads);
  EXPECT_EQ(events.counters.at("PU0_L2_DEVBUS_READ_REQUESTS"), kReads) << "main runs on core 0";
  // Counting the buses costs no cycle: the node without them runs the same cycles.
  EXPECT_EQ(poll(Counting::kEvents, {"l1p.device_buses=false"}).cycles, events.cycles);
}

}  // namespace
}  // namespace hpm
