// Blue Gene/Q's collective descriptors and GI barriers of the message unit on whole runs (issue
// 45; guest/mpi/mu_coll.c): all-reduces, a broadcast and a reduce combine in the torus's routers
// and reach the members they should, malformed descriptors are refused, GI barriers complete,
// on 1 to 8 nodes; the statistics count the routers' combines and the barriers.
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
    EXPECT_EQ(tc.at("gi_barriers").get<unsigned long>(), 3u);
  }
}

}  // namespace
