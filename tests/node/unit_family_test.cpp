// Adding a unit family takes its units, its catalogue and one registration line, and nothing in
// the monitor (docs/architecture.md, "Adding a unit family"). This test adds a family that
// exists only here, as the documentation says: "exact", one unit of eight 64-bit counters that
// count any of a few bus inputs exactly, with a register window of its own. The node then counts
// with it from the host, through the monitor's routing and batching on both counting paths,
// exactly as the simulator's own statistics say, and offers its window as a guest device.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "node/families.h"
#include "node/machine.h"
#include "node/monitor.h"
#include "node/simulation.h"
#include "stats/stats.h"

namespace hpm {
namespace {

using probe::Event;

const std::string kNodeMix = std::string(HPM_TEST_GUEST_BIN_DIR) + "/node_mix";

// ---- the family: its units (behind pmu::CounterUnit) ----

constexpr pmu::UnitKind kExactKind{"exact", "exact test counters", false};

// Eight counters; COUNTER[i] at 8 i, CONFIG[i] at 0x40 + 8 i (the input + 1, 0: off), RUN at
// 0x80 (bit 0). A counter adds every occurrence of its input while RUN is set, at once: a read
// at t sees every event before t.
class ExactUnit final : public pmu::CounterUnit {
 public:
  static constexpr u32 kCounters = 8;
  static constexpr u64 kConfig = 0x40, kRun = 0x80;

  const pmu::UnitKind& kind() const override { return kExactKind; }
  u64 windowBytes() const override { return 4096; }
  u64 read(u64 offset, Cycle now) override {
    now_ = std::max(now_, now);
    if (offset < 8 * kCounters) return counts_[offset / 8];
    if (offset >= kConfig && offset < kConfig + 8 * kCounters)
      return config_[(offset - kConfig) / 8];
    return offset == kRun ? running_ : 0;
  }
  bool write(u64 offset, u64 value, Cycle now) override {
    now_ = std::max(now_, now);
    if (offset < 8 * kCounters) counts_[offset / 8] = value;
    if (offset == kRun) running_ = (value & 1) != 0;
    if (offset >= kConfig && offset < kConfig + 8 * kCounters) {
      config_[(offset - kConfig) / 8] = value;
      ++epoch_;
      return true;
    }
    return false;
  }
  bool running() const override { return running_; }
  u64 interestEpoch() const override { return epoch_; }
  Cycle now() const override { return now_; }
  void advanceTo(Cycle now) override { now_ = std::max(now_, now); }

  bool selects(u32 /*port*/, u32 event) const override {
    for (u64 c : config_) {
      if (c == u64{event} + 1) return true;
    }
    return false;
  }
  void pulse(u32 /*port*/, u32 event, Cycle t, u64 count) override {
    EXPECT_GE(t, now_) << "an input before the last access";
    for (u32 i = 0; i < kCounters; ++i) {
      if (running_ && config_[i] == u64{event} + 1) counts_[i] += count;
    }
  }
  void level(u32 port, u32 event, Cycle t0, Cycle t1) override { pulse(port, event, t0, t1 - t0); }

  // Every count may be applied at once: no window ends, no observable carries.
  bool plainCounting(u32, u32) const override { return true; }
  Cycle windowEnd(u32, u32, Cycle) const override { return kNever; }
  std::vector<Windows> windows(u32, u32) const override { return {}; }

  void onInterrupt(InterruptSink) override {}

  u32 counters() const override { return kCounters; }
  u32 hostAdd(u32 /*port*/, u32 event, u32 /*mode*/, std::string_view name) override {
    if (next_ == kCounters) fail(ExitCode::kUsage, "no counter left for {}", name);
    planned_[next_] = event;
    return next_++;
  }
  void hostStart(Cycle now) override {
    for (u32 c = 0; c < next_; ++c) write(kConfig + 8 * c, u64{planned_[c]} + 1, now);
    if (next_ != 0) write(kRun, 1, now);
    started_ = next_ != 0;
  }
  void hostStop(Cycle now) override {
    if (started_) write(kRun, 0, now);
    started_ = false;
    hostClear();
  }
  void hostClear() override { next_ = 0; }
  u64 counterOffset(u32 counter) const override { return 8 * u64{counter}; }
  Cycle settleCycles() const override { return 0; }
  void visitStats(stats::Visitor& v) const override { v.counter("epoch", epoch_, "Configs"); }

 private:
  std::array<u64, kCounters> counts_{};
  std::array<u64, kCounters> config_{};
  bool running_ = false;
  u64 epoch_ = 0;
  Cycle now_ = 0;
  u32 next_ = 0;  // host programming: the next free counter
  std::array<u32, kCounters> planned_{};
  bool started_ = false;
};

// ---- ... its catalogue: a few events, node-wide sums of the bus's inputs ----

pmu::Attachment attachExact(const MachineConfig& /*machine*/, const pmu::NodeShape& node) {
  pmu::Attachment a;
  a.units.push_back(std::make_unique<ExactUnit>());
  const probe::Bus& bus = *node.bus;
  u32 input = 0;
  auto add = [&](const char* name, Event e) {
    pmu::NativeEvent ne;
    ne.name = name;
    ne.description = std::string(probe::info(e).description);
    ne.kind = probe::info(e).kind;
    ne.unit = &kExactKind;
    ne.input = input++;
    ne.generic = std::string(probe::info(e).name);
    std::vector<u32> feeds;
    const u32 sources = bus.topology().instances(probe::info(e).scope);
    for (u32 s = 0; s < sources; ++s) feeds.push_back(bus.input(e, s));
    ne.instances = {{0, 0, feeds}};
    ne.scope = probe::Scope::kNode;
    a.events.push_back(std::move(ne));
  };
  add("EXACT_INSTRUCTIONS", Event::kInstructions);
  add("EXACT_L1D_MISSES", Event::kL1dMisses);
  add("EXACT_L2_REQUESTS", Event::kL2Requests);
  add("EXACT_SYSCALLS", Event::kSyscalls);
  return a;
}

// ... and its registration line, in a copy of the built-in list.
std::vector<UnitFamily> familiesWithExact() {
  std::vector<UnitFamily> families = unitFamilies();
  families.push_back({"exact", "exact", "test counters", &attachExact});
  return families;
}

u64 sumOver(const nlohmann::json& list, const char* key) {
  u64 sum = 0;
  for (const auto& item : list) sum += item.at(key).get<u64>();
  return sum;
}

TEST(UnitFamily, AFamilyAddedByItsRegistrationLineCountsExactlyThroughTheMonitor) {
  ASSERT_TRUE(std::filesystem::exists(kNodeMix)) << kNodeMix;
  for (const char* counting : {"statistics", "events"}) {
    SCOPED_TRACE(counting);
    MachineConfig machine = loadMachine("bgq", {std::string("monitor.counting=") + counting});
    machine.monitor.unit = "exact";
    // Only the test family and the truth beside it (the interconnect monitor, a companion
    // family, would attach beside it too: its own tests are tests/node/interconnect_test.cpp).
    machine.monitor.interconnect = false;
    RunOptions options;
    options.root = std::filesystem::temp_directory_path().string();
    options.families = familiesWithExact();
    Simulation sim(machine, options);
    Monitor* monitor = sim.monitor();
    ASSERT_NE(monitor, nullptr);
    ASSERT_EQ(monitor->family()->name, "exact");
    // The family's device, and the ground truth's that every monitor has beside it.
    EXPECT_EQ(monitor->devicePaths(), (std::vector<std::string>{"/dev/hpm/exact", "/dev/hpm/sim"}));
    std::vector<const NativeEvent*> events;
    for (const NativeEvent& e : monitor->catalogue()) events.push_back(&e);
    ASSERT_EQ(events.size(), 4u);
    monitor->programHost(events);
    sim.exec(kNodeMix, {kNodeMix, "4"}, {});
    sim.run();
    ASSERT_EQ(sim.kernel().termination().status, 0);

    stats::JsonWriter writer;
    sim.visitStats(writer);
    const nlohmann::json& s = writer.result();
    std::map<std::string, u64> counts;
    for (const ProgrammedCounter& c : monitor->readHost(sim.elapsedCycles())) {
      counts[c.event] = c.value;
    }
    EXPECT_EQ(counts.at("EXACT_INSTRUCTIONS"), sim.retiredInstructions());
    u64 l1d_misses = 0;
    for (const auto& core : s.at("timing").at("cores")) {
      l1d_misses += core.at("l1d").at("misses").get<u64>();
    }
    EXPECT_EQ(counts.at("EXACT_L1D_MISSES"), l1d_misses);
    EXPECT_EQ(counts.at("EXACT_L2_REQUESTS"), sumOver(s.at("timing").at("l2_slices"), "requests"));
    u64 syscalls = 0;
    for (const auto& [name, n] : s.at("kernel").at("syscalls").items()) syscalls += n.get<u64>();
    EXPECT_EQ(counts.at("EXACT_SYSCALLS"), syscalls);
    EXPECT_GT(l1d_misses, 0u);
    // Its register window is a device the kernel maps for the guest.
    const int device = monitor->findDevice("/dev/hpm/exact");
    ASSERT_EQ(device, 0);
    EXPECT_EQ(monitor->windowBytes(device), 4096u);
    EXPECT_EQ(monitor->readRegister(device, 0), counts.at("EXACT_INSTRUCTIONS"));
    // The monitor reports the family and its unit's statistics under the unit's name.
    EXPECT_EQ(s.at("monitor").at("unit"), "exact");
    EXPECT_EQ(s.at("monitor").at("exact").at("epoch"), 4u);
  }
}

TEST(UnitFamily, AMonitorUnitNoFamilyProvidesIsAConfigurationError) {
  MachineConfig machine = loadMachine("bgq", {});
  machine.monitor.unit = "exact";  // not among the built-in families
  RunOptions options;
  try {
    Simulation sim(machine, options);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kConfig);
    EXPECT_NE(std::string(e.what()).find("exact"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hpm
