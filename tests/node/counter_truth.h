// What the tests of one mechanism's events share (l1p_list_test, l1p_stream_test, tm_test,
// interrupts_test, l2_prefetch_events_test, device_bus_test): they program events by name from
// the host, run, and check every counter against the bus and the models' statistics.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "isa/ops.h"
#include "node/machine.h"
#include "node/monitor.h"
#include "node/simulation.h"
#include "stats/probe.h"

namespace hpm::test {

// Programs `names` on the host's side of `monitor`; a name the catalogue lacks fails the test.
template <typename Names>
void programByName(Monitor& monitor, const Names& names) {
  std::vector<const NativeEvent*> events;
  for (const std::string& name : names) {
    const NativeEvent* e = monitor.find(name);
    EXPECT_NE(e, nullptr) << name;
    if (e != nullptr) events.push_back(e);
  }
  monitor.programHost(events);
}

// Their start: a timing-mode simulation of `machine` counting the way `counting` says, `names`
// programmed on its monitor's host side (none if empty), the program argv[0] loaded with argv;
// nullptr, and a failed expectation, when the machine has no monitor.
inline std::unique_ptr<Simulation> countingSimulation(MachineConfig machine, Counting counting,
                                                      const std::vector<std::string>& names,
                                                      const std::vector<std::string>& argv) {
  machine.monitor.counting = counting;
  RunOptions options;
  options.mode = RunMode::kTiming;
  options.root = std::filesystem::temp_directory_path().string();
  auto sim = std::make_unique<Simulation>(std::move(machine), options);
  EXPECT_NE(sim->monitor(), nullptr);
  if (sim->monitor() == nullptr) return nullptr;
  if (!names.empty()) programByName(*sim->monitor(), names);
  sim->exec(argv.at(0), argv, {});
  return sim;
}

// Read at `end`, every counter equals what the bus delivered to the inputs of its event, and the
// models' own statistics (Simulation::groundTruth) of the events behind those inputs. Returns the
// counters read whose event the catalogue has.
inline std::vector<ProgrammedCounter> expectCountersEqualBusAndTruth(const Simulation& sim,
                                                                     const MachineConfig& m,
                                                                     Monitor& monitor, Cycle end) {
  using probe::Event;
  // (event, source) of every bus input.
  const probe::Topology topology = probeTopology(m);
  const probe::Bus bus(topology, static_cast<u32>(isa::kOpCount));
  std::map<u32, std::pair<Event, u32>> event_of;
  for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
    const Event e = static_cast<Event>(ev);
    for (u32 s = 0; s < topology.instances(probe::info(e).scope); ++s) {
      event_of[bus.input(e, s)] = {e, s};
    }
  }
  std::vector<ProgrammedCounter> read;
  for (const ProgrammedCounter& c : monitor.readHost(end)) {
    const NativeEvent* e = monitor.find(c.event);
    if (e == nullptr) continue;
    u64 delivered = 0, truth = 0;
    for (const NativeEvent::Instance& i : e->instances) {
      if (monitor.units().at(i.unit)->path() != c.device) continue;
      for (u32 input : i.feeds) {
        delivered += monitor.reference(input);
        const auto [event, source] = event_of.at(input);
        const std::optional<u64> t = sim.groundTruth(event, source);
        EXPECT_TRUE(t.has_value()) << probe::info(event).name;
        truth += t.value_or(0);
      }
    }
    EXPECT_EQ(c.value, delivered) << c.event << " on " << c.device;
    EXPECT_EQ(c.value, truth) << c.event << " on " << c.device;
    read.push_back(c);
  }
  return read;
}

}  // namespace hpm::test
