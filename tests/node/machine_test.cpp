// Machine files (src/node/machine.cpp): the interconnect a machine chooses (node.interconnect)
// takes its own section, and the keys that moved when the interconnects got sections of their
// own are refused with a message naming the new ones.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/error.h"
#include "node/machine.h"

namespace hpm {
namespace {

// The message loadMachine refuses `overrides` on `machine` with ("" if it accepts them).
std::string refusal(const std::string& machine, const std::vector<std::string>& overrides) {
  try {
    loadMachine(machine, overrides);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kConfig);
    return e.what();
  }
  return "";
}

TEST(Machine, EachPresetChoosesItsInterconnectWithNodeInterconnect) {
  EXPECT_EQ(loadMachine("bgq", {}).node.interconnect, probe::Interconnect::kCrossbar);
  EXPECT_EQ(loadMachine("bgp", {}).node.interconnect, probe::Interconnect::kCrossbar);
  EXPECT_EQ(loadMachine("cva6", {}).node.interconnect, probe::Interconnect::kCrossbar);
  const MachineConfig sunfire = loadMachine("sunfire", {});
  EXPECT_EQ(sunfire.node.interconnect, probe::Interconnect::kFireplane);
  EXPECT_EQ(sunfire.timing.fireplane.ecache_kib, 8192u);
  EXPECT_EQ(sunfire.timing.fireplane.boards, 4u);
}

TEST(Machine, TheOldBusSectionIsRefusedNamingItsReplacement) {
  const std::string kind = refusal("sunfire", {"bus.kind=fireplane"});
  EXPECT_NE(kind.find("node.interconnect"), std::string::npos) << kind;
  const std::string boards = refusal("sunfire", {"bus.boards=2"});
  EXPECT_NE(boards.find("fireplane.boards"), std::string::npos) << boards;
}

TEST(Machine, TheCrossbarsL2KeysAreRefusedOnFireplaneNamingTheExternalCachesKeys) {
  const std::vector<std::pair<std::string, std::string>> moved = {
      {"l2.size_kib=64", "fireplane.ecache_kib"},
      {"l2.ways=4", "fireplane.ecache_ways"},
      {"l2.line_bytes=128", "fireplane.line_bytes"},
      {"l2.replacement=fifo", "fireplane.replacement"},
      {"l2.hit_latency=20", "fireplane.ecache_hit_latency"},
      {"l2.slice_busy_cycles=3", "fireplane.ecache_busy_cycles"},
  };
  for (const auto& [set, new_key] : moved) {
    const std::string why = refusal("sunfire", {set});
    EXPECT_NE(why.find(new_key), std::string::npos) << set << ": " << why;
  }
  EXPECT_NE(refusal("sunfire", {"l2.slices=4"}).find("no shared L2"), std::string::npos);
  EXPECT_EQ(refusal("sunfire", {"fireplane.ecache_kib=64"}), "");
  EXPECT_EQ(refusal("bgq", {"l2.size_kib=8192"}), "");
}

TEST(Machine, TheFireplaneSectionIsRefusedOnTheCrossbarAndTheChoiceTakesBothWays) {
  const std::string why = refusal("bgq", {"fireplane.boards=2"});
  EXPECT_NE(why.find("node.interconnect"), std::string::npos) << why;
  // bgq's 16 cores, 4 threads each, snooping (docs/sunfire.md).
  EXPECT_EQ(refusal("bgq", {"node.interconnect=fireplane"}), "");
  EXPECT_EQ(refusal("bgq", {"node.interconnect=fireplane", "fireplane.boards=2"}), "");
  // bgp's file sets [l2]: it cannot become a Fireplane machine without dropping them.
  EXPECT_NE(refusal("bgp", {"node.interconnect=fireplane"}).find("fireplane.ecache_kib"),
            std::string::npos);
}

TEST(Machine, TheEffectiveConfigurationHoldsOnlyTheSectionOfTheMachinesInterconnect) {
  MachineConfig sunfire = loadMachine("sunfire", {});
  const nlohmann::json on_fireplane = machineJson(sunfire);
  EXPECT_FALSE(on_fireplane.contains("l2"));
  EXPECT_EQ(on_fireplane["fireplane"]["ecache_kib"], sunfire.timing.fireplane.ecache_kib);
  MachineConfig bgq = loadMachine("bgq", {});
  const nlohmann::json on_crossbar = machineJson(bgq);
  EXPECT_FALSE(on_crossbar.contains("fireplane"));
  EXPECT_EQ(on_crossbar["l2"]["size_kib"], bgq.timing.l2.size_kib);
  // (The rest is whole: every other section of both.)
  EXPECT_TRUE(on_fireplane.contains("l1d") && on_fireplane.contains("ddr"));
  EXPECT_TRUE(on_crossbar.contains("l1d") && on_crossbar.contains("ddr"));
}

}  // namespace
}  // namespace hpm
