// Blue Gene/Q's collective descriptors and GI barriers of the message unit on whole runs (issue
// 45; guest/mpi/mu_coll.c): all-reduces, a broadcast and a reduce combine in the torus's routers
// and reach the members they should, malformed descriptors and class register writes are
// refused, GI barriers complete (on a class the program set up too), on 1 to 8 nodes; the
// statistics count the routers' combines and the barriers. libmpi's collectives on
// sub-communicators (guest/mpi/mpi_subcomm.c) take classes of their own.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/cluster/node_outputs.h"

namespace {

const std::string kGuestBin = HPM_TEST_GUEST_BIN_DIR;
using Outcome = hpm::test::NodeOutputs;

Outcome runMuColl(const std::string& machine, int nodes) {
  return hpm::test::runNodes(machine, nodes, {}, kGuestBin + "/mu_coll");
}

bool has(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

TEST(TorusCollectivesRun, DescriptorsCombineInTheRoutersAndReachTheirMembersOnOneToEightNodes) {
  for (const int nodes : {1, 2, 5, 8}) {
    const Outcome o = runMuColl("bgq", nodes);
    ASSERT_EQ(o.nodes.size(), static_cast<std::size_t>(nodes));
    const unsigned long long n = static_cast<unsigned long long>(nodes);
    const unsigned long long s = n * (n + 1) / 2;
    for (int k = 0; k < nodes; ++k) {
      const std::string& out = o.nodes[k];
      SCOPED_TRACE(std::to_string(nodes) + " nodes, node " + std::to_string(k) + ":\n" + out);
      // World classes 0 and 14, GI classes 0, 14 and 15; libmpi may use them.
      EXPECT_TRUE(has(out, "classes 0xc0014001 mpi 1"));
      // Two packets of 64-bit sums (the last word wraps: each node adds 2^64 - 1).
      EXPECT_TRUE(has(out, "sum " + std::to_string(s) + " " + std::to_string(2 * s) + " " +
                               std::to_string(75 * s - n)));
      EXPECT_TRUE(has(
          out, "fmax " + std::to_string(nodes / 10) + "." + std::to_string(nodes % 10) + " -0"));
      EXPECT_TRUE(has(out, "bcast 1111 2222 from " + std::to_string(nodes - 1) + " (source " +
                               std::to_string(nodes - 1) + ")"));
      // Only the reduce's destination receives it.
      EXPECT_EQ(has(out, "reduce " + std::to_string(99 + nodes)), k == nodes / 2);
      EXPECT_TRUE(has(out, "refused 5: 1 1 1 1 1"));
      EXPECT_TRUE(has(out, "barriers 3"));
      EXPECT_TRUE(has(out, "class errors 5, set 0xc0214021, barrier 1, cleared 0xc0014001"));
      // Every member got the same results.
      const auto common = [](std::string t) {
        const std::size_t at = t.find("reduce ");
        if (at != std::string::npos) t.erase(at, t.find('\n', at) + 1 - at);
        return t;
      };
      EXPECT_EQ(common(out), common(o.nodes[0]));
    }
    // 1 + 4 x 2^-53, rounded once (added one at a time in doubles it would be 1).
    if (nodes == 5) {
      EXPECT_NE(o.nodes[0].find(" 3ff0000000000002 "), std::string::npos);
    }
    const nlohmann::json& tc = o.stats.at("torus_collectives");
    // Seven combining collectives (the sum is two packets, then min, max, fsum, fmax, reduce):
    // one combine per router each.
    EXPECT_EQ(tc.at("combines").get<unsigned long>(), 7u * n);
    EXPECT_EQ(tc.at("mismatches").get<unsigned long>(), 0u);
    EXPECT_EQ(tc.at("drops").get<unsigned long>(), 0u);
    EXPECT_EQ(tc.at("gi_barriers").get<unsigned long>(), 4u);  // (three on class 0, one on 5)
  }
}

// libmpi's sub-communicator classes (guest/lib/mpi/mpi_torcoll.c): mpi_subcomm's checks of every
// collective on communicators that are boxes of the torus (their own classes, two disjoint ones
// sharing one, classes running out, given back and taken again) and on ones that are not (point
// to point) pass, and every node prints the same bytes with the classes and without them
// (network.collective_mpi=false), in the timing mode. With them, packets travel on the
// sub-communicator channel, every tree's packets reach its routers' registers (no drops), and
// each class's GI barriers complete.
TEST(TorusCollectivesRun,
     SubCommunicatorsThatAreBoxesTakeClassesOfTheirOwnAndGivePointToPointsResults) {
  const auto run = [](const std::vector<std::string>& options) {
    return hpm::test::runNodes("bgq", 8, options, kGuestBin + "/mpi_subcomm");
  };
  const Outcome on = run({});
  const Outcome off = run({"--set", "network.collective_mpi=false"});
  ASSERT_EQ(on.nodes.size(), 8u);
  EXPECT_TRUE(has(on.nodes[0], "subcomm: 0 failures")) << on.nodes[0];
  for (int n = 0; n < 8; ++n) {
    EXPECT_EQ(on.nodes[n], off.nodes[n]) << "node " << n;
    EXPECT_EQ(on.nodes[n].find("FAIL"), std::string::npos) << on.nodes[n];
  }
  EXPECT_TRUE(has(on.nodes[6],
                  "evens: rank 3 of 4, sum 16, dsum 4.00, min 0, max 6, bits 0x55, "
                  "bcast 1004"));
  const auto subcommPackets = [](const Outcome& o) {
    unsigned long packets = 0;
    for (const nlohmann::json& l : o.stats.at("network").at("links")) {
      packets += l.value("subcomm_packets", 0ul);
    }
    return packets;
  };
  EXPECT_GT(subcommPackets(on), 0u);
  EXPECT_EQ(subcommPackets(off), 0u);
  const nlohmann::json& tc = on.stats.at("torus_collectives");
  EXPECT_EQ(tc.at("drops").get<unsigned long>(), 0u);
  EXPECT_EQ(tc.at("mismatches").get<unsigned long>(), 0u);
  EXPECT_GT(tc.at("gi_barriers").get<unsigned long>(), 0u);
}

}  // namespace
