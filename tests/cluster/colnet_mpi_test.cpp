// libmpi on Blue Gene/P's collective network and global barrier (issue 45;
// guest/lib/mpi/mpi_colnet.c): mpi_colnet's checks of barrier, broadcast, reduce and allreduce
// pass with the hardware path and without it (collective.mpi=false), and on bgq with its torus's
// collective classes and without them (network.collective_mpi=false), and every node prints the
// same bytes in all four. The run's statistics
// show which path ran: packets and barriers on the tree with the path on, none with it off.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/cluster/node_outputs.h"

namespace {

const std::string kGuestBin = HPM_TEST_GUEST_BIN_DIR;
using Outcome = hpm::test::NodeOutputs;

// mpi_colnet on `nodes` nodes of `machine` (functional mode: the checks are about results),
// with `settings` (--set KEY=VALUE each).
Outcome runColnet(const std::string& machine, int nodes, const std::vector<std::string>& settings) {
  std::vector<std::string> options = {"--mode", "functional"};
  for (const std::string& s : settings) {
    options.push_back("--set");
    options.push_back(s);
  }
  return hpm::test::runNodes(machine, nodes, options, kGuestBin + "/mpi_colnet");
}

TEST(ColnetMpi, EveryCheckPassesAndPrintsTheSameWithTheHardwarePathOnAndOffAndOnBgq) {
  for (int nodes : {1, 2, 5, 8}) {
    const Outcome on = runColnet("bgp", nodes, {});
    const Outcome off = runColnet("bgp", nodes, {"collective.mpi=false"});
    const Outcome bgq = runColnet("bgq", nodes, {});
    const Outcome bgq_off = runColnet("bgq", nodes, {"network.collective_mpi=false"});
    ASSERT_EQ(on.nodes.size(), static_cast<std::size_t>(nodes));
    EXPECT_NE(on.nodes[0].find("colnet: " + std::to_string(nodes) + " ranks, all passed\n"),
              std::string::npos)
        << on.nodes[0];
    for (int n = 0; n < nodes; ++n) {
      EXPECT_EQ(on.nodes[n], off.nodes[n]) << nodes << " nodes, node " << n;
      EXPECT_EQ(on.nodes[n], bgq.nodes[n]) << nodes << " nodes, node " << n;
      EXPECT_EQ(on.nodes[n], bgq_off.nodes[n]) << nodes << " nodes, node " << n;
    }
    // bgq: the torus's collective classes with network.collective_mpi, none without.
    const nlohmann::json& torus = bgq.stats.at("torus_collectives");
    EXPECT_GT(torus.at("combines").get<unsigned long>(), 0u) << nodes;
    EXPECT_GT(torus.at("gi_barriers").get<unsigned long>(), 0u) << nodes;
    EXPECT_EQ(torus.at("mismatches").get<unsigned long>(), 0u) << nodes;
    EXPECT_EQ(bgq_off.stats.at("torus_collectives").at("combines").get<unsigned long>(), 0u);
    EXPECT_EQ(bgq_off.stats.at("torus_collectives").at("gi_barriers").get<unsigned long>(), 0u);
    const nlohmann::json& tree = on.stats.at("collective");
    EXPECT_GT(tree.at("packets_injected").get<unsigned long>(), 0u) << nodes;
    if (nodes > 1) {
      EXPECT_GT(tree.at("combines").get<unsigned long>(), 0u) << nodes;
    }
    EXPECT_GT(tree.at("barriers").get<unsigned long>(), 0u) << nodes;
    EXPECT_EQ(tree.at("mismatches").get<unsigned long>(), 0u) << nodes;
    EXPECT_EQ(off.stats.at("collective").at("packets_injected").get<unsigned long>(), 0u);
    EXPECT_EQ(off.stats.at("collective").at("barriers").get<unsigned long>(), 0u);
  }
}

}  // namespace
