// The seeds' catalogues on the simulated nodes (docs/events.md):
//
//   - bgq: every BGPM event name seed 001 gives exists on its BGPM unit, and the units offer at
//     least as many events as the seed counts (PUnit 269, L2Unit 32, IOUnit 44, CNKUnit 29);
//   - bgp: every counter name of seed 002's Table 1 is on the counter the table gives, at input
//     select 0, and each of the unit's 1024 inputs has one name;
//   - bgp's inputs are one-bit signals, as on the hardware, so that the seed's 12-bit low-order
//     registers never lose a carry: traced over a run, no input of a core is high twice in one
//     cycle, and no input sees more events between two visits of its counter than the low-order
//     register holds.
//
// The seeds' names are data (tests/data/seed001_events.tsv, seed002_table1.tsv), read here.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "node/machine.h"
#include "node/monitor.h"
#include "node/simulation.h"
#include "stats/probe.h"
#include "stats/stats.h"

namespace hpm {
namespace {

const std::string kNodeMix = std::string(HPM_TEST_GUEST_BIN_DIR) + "/node_mix";
const std::string kData = HPM_TEST_DATA_DIR;

// The rows of a tab-separated data file, comment lines (#) left out.
std::vector<std::vector<std::string>> readTsv(const std::string& name) {
  std::ifstream in(kData + "/" + name);
  EXPECT_TRUE(in) << kData << "/" << name;
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream s(line);
    std::string f;
    while (std::getline(s, f, '\t')) fields.push_back(f);
    rows.push_back(fields);
  }
  return rows;
}

RunOptions options() {
  RunOptions o;
  o.mode = RunMode::kTiming;
  o.root = std::filesystem::temp_directory_path().string();
  return o;
}

TEST(SeedCatalogues, EveryBgpmEventNameOfSeed001IsOnItsUnit) {
  Simulation sim(loadMachine("bgq", {}), options());
  ASSERT_NE(sim.monitor(), nullptr);
  const Monitor& monitor = *sim.monitor();
  const auto rows = readTsv("seed001_events.tsv");
  ASSERT_EQ(rows.size(), 33u);
  u32 found = 0;
  for (const auto& row : rows) {
    const std::string& name = row.at(0);
    const std::string& unit = row.at(1);
    // Per-thread events are named per thread (BGPM's convention): PEVT_IU_IL1_MISS@t0 ...
    const NativeEvent* e = monitor.find(name);
    if (e == nullptr) e = monitor.find(name + "@t0");
    ASSERT_NE(e, nullptr) << name;
    EXPECT_EQ(e->unit->name, unit) << name;
    EXPECT_GT(e->id, 0) << name << " keeps its BGPM event number";
    EXPECT_FALSE(e->description.empty()) << name;
    ++found;
  }
  EXPECT_EQ(found, 33u);
}

TEST(SeedCatalogues, BgqUnitsOfferAtLeastTheSeedsNumbersOfEvents) {
  Simulation sim(loadMachine("bgq", {}), options());
  ASSERT_NE(sim.monitor(), nullptr);
  // Events a core's PUnit offers (a per-thread event once, not once per thread), and the other
  // units' events, by BGPM unit; and the BGPM numbers used, each once per name.
  std::map<std::string, std::set<std::string>> names;
  std::map<i32, std::string> by_id;
  for (const NativeEvent& e : sim.monitor()->catalogue()) {
    if (e.core > 0) continue;
    names[std::string(e.unit->name)].insert(e.name.substr(0, e.name.find('@')));
    if (e.id < 0) continue;
    const std::string base = e.name.substr(0, e.name.find('@'));
    const auto it = by_id.emplace(e.id, base).first;
    EXPECT_EQ(it->second, base) << "BGPM event " << e.id << " has two names";
  }
  EXPECT_GE(names["punit"].size(), 269u);
  EXPECT_GE(names["l2"].size(), 32u);
  EXPECT_GE(names["io"].size(), 44u);
  EXPECT_GE(names["cnk"].size(), 29u);
  // BGPM's numbering: the PUnit's events 1-277, the L2 unit's 278-309, the I/O unit's 310-353,
  // the CNK unit's 385-414 (docs/events.md); 354-384 are the NWUnit's.
  for (i32 id = 1; id <= 353; ++id) EXPECT_TRUE(by_id.contains(id)) << "BGPM event " << id;
  for (i32 id = 385; id <= 414; ++id) EXPECT_TRUE(by_id.contains(id)) << "BGPM event " << id;
}

TEST(SeedCatalogues, EveryTable1EventOfSeed002IsOnItsCounterAtSelectZero) {
  const MachineConfig machine = loadMachine("bgp", {});
  Simulation sim(machine, options());
  ASSERT_NE(sim.monitor(), nullptr);
  const Monitor& monitor = *sim.monitor();
  const auto rows = readTsv("seed002_table1.tsv");
  ASSERT_EQ(rows.size(), 62u);
  for (const auto& row : rows) {
    const NativeEvent* e = monitor.find(row.at(0));
    ASSERT_NE(e, nullptr) << row.at(0);
    EXPECT_EQ(e->counter, std::stoi(row.at(1))) << row.at(0);
    EXPECT_EQ(e->select, 0) << row.at(0);
    EXPECT_EQ(e->input, static_cast<u32>(e->counter)) << row.at(0);
    EXPECT_EQ(e->core, row.at(0).starts_with("PU0_") ? 0 : 1) << row.at(0);
  }
  // Each of the 1024 inputs (counter + 256 x select) has exactly one name.
  std::set<u32> inputs;
  std::set<std::string> names;
  for (const NativeEvent& e : monitor.catalogue()) {
    EXPECT_TRUE(inputs.insert(e.input).second) << "input " << e.input << " named twice";
    EXPECT_TRUE(names.insert(e.name).second) << e.name;
    EXPECT_EQ(e.input, static_cast<u32>(e.counter + 256 * e.select)) << e.name;
  }
  EXPECT_EQ(inputs.size(), 1024u);
}

// What the bus delivered to one unit input, from its feeds' traces: its events, the most in one
// cycle, the most in any `window` consecutive cycles, and its longest run of high cycles.
struct Rates {
  u64 events = 0;
  u64 per_cycle = 0;
  u64 per_window = 0;
  Cycle longest_run = 0;
};

Rates ratesOf(const std::vector<Monitor::InputTrace>& traces, Cycle window) {
  // Each pulse is `count` events at its cycle; each level interval one event per cycle: a
  // sweep over their starts and ends gives the events of every cycle, as runs of cycles.
  std::map<Cycle, i64> delta;
  Rates r;
  for (const Monitor::InputTrace& t : traces) {
    for (const auto& [c, k] : t.pulses) {
      delta[c] += static_cast<i64>(k);
      delta[c + 1] -= static_cast<i64>(k);
      r.events += k;
    }
    for (const auto& [t0, t1] : t.levels) {
      if (t1 <= t0) continue;
      delta[t0] += 1;
      delta[t1] -= 1;
      r.events += t1 - t0;
    }
  }
  struct Run {
    Cycle t0, t1;
    u64 per_cycle;
  };
  std::vector<Run> runs;  // maximal stretches of one events-per-cycle value > 0
  i64 high = 0;
  Cycle run_start = 0;
  for (auto it = delta.begin(); it != delta.end(); ++it) {
    const Cycle at = it->first;
    if (high > 0) runs.push_back({run_start, at, static_cast<u64>(high)});
    high += it->second;
    run_start = at;
  }
  Cycle run = 0, last_end = 0;
  for (const Run& x : runs) {
    r.per_cycle = std::max(r.per_cycle, x.per_cycle);
    run = x.t0 == last_end ? run + (x.t1 - x.t0) : x.t1 - x.t0;
    last_end = x.t1;
    r.longest_run = std::max(r.longest_run, run);
  }
  // The events in [s, s + window) are greatest for some s at a run's start: a two-pointer pass
  // with the whole runs inside the window summed, and the last one cut at its end.
  u64 inside = 0;  // events of runs [i, j)
  std::size_t j = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Cycle end = runs[i].t0 + window;
    while (j < runs.size() && runs[j].t1 <= end) {
      inside += (runs[j].t1 - runs[j].t0) * runs[j].per_cycle;
      ++j;
    }
    const u64 cut =
        j < runs.size() && runs[j].t0 < end ? (end - runs[j].t0) * runs[j].per_cycle : 0;
    r.per_window = std::max(r.per_window, inside + cut);
    if (j > i) {
      inside -= (runs[i].t1 - runs[i].t0) * runs[i].per_cycle;
    } else {
      j = i + 1;  // run i is longer than the window: inside stays empty
    }
  }
  return r;
}

TEST(BgpInputs, AreOneBitSignalsSoThatTwelveLowOrderBitsLoseNoCarry) {
  ASSERT_TRUE(std::filesystem::exists(kNodeMix)) << kNodeMix;
  const MachineConfig machine = loadMachine("bgp", {});
  ASSERT_EQ(machine.upc.low_bits, 12u) << "the seed's width";
  const Cycle window = u64{machine.upc.counters} * machine.upc.service_cycles;
  const u64 room = u64{1} << machine.upc.low_bits;
  ASSERT_EQ(window, room) << "one event per cycle fills the register in one service round";
  u32 wired = 0, active = 0, full_cycles = 0;
  for (i32 select = 0; select < 4; ++select) {
    SCOPED_TRACE("select " + std::to_string(select));
    Simulation sim(machine, options());
    Monitor* monitor = sim.monitor();
    ASSERT_NE(monitor, nullptr);
    std::vector<const NativeEvent*> events;
    for (const NativeEvent& e : monitor->catalogue()) {
      if (e.select != select || e.instances.at(0).feeds.empty()) continue;
      events.push_back(&e);
      for (u32 input : e.instances.at(0).feeds) monitor->traceInput(input);
    }
    monitor->programHost(events);
    sim.exec(kNodeMix, {kNodeMix, "6"}, {});
    sim.run();
    ASSERT_EQ(sim.kernel().termination().status, 0);
    for (const NativeEvent* e : events) {
      std::vector<Monitor::InputTrace> traces;
      for (u32 input : e->instances.at(0).feeds) traces.push_back(monitor->trace(input));
      const Rates r = ratesOf(traces, window);
      ++wired;
      if (r.events == 0) continue;
      ++active;
      // A core's input is high at most once per cycle; any input's events between two visits
      // of its counter fit its low-order register (4096 at 12 bits).
      if (e->core >= 0) {
        EXPECT_LE(r.per_cycle, 1u) << e->name << " rose " << r.per_cycle << " times in a cycle";
      }
      EXPECT_LE(r.per_window, room)
          << e->name << ": " << r.per_window << " events in " << window << " cycles";
      if (r.longest_run >= window) ++full_cycles;
    }
    stats::JsonWriter writer;
    sim.visitStats(writer);
    EXPECT_EQ(writer.result().at("monitor").at("upc").at("lost_carries").get<u64>(), 0u);
  }
  // Not vacuous: most wired inputs counted something, and some were high every cycle of a
  // whole service round (the cycles events), the most the 12-bit register takes.
  std::cout << wired << " wired inputs, " << active << " counted, " << full_cycles
            << " high for a whole service round\n";
  EXPECT_GE(wired, 400u);
  EXPECT_GE(active * 2, wired) << active << " of " << wired << " wired inputs counted";
  EXPECT_GE(full_cycles, 4u);
}

}  // namespace
}  // namespace hpm
