// libmpi on Blue Gene/P's collective network and global barrier (issue 45;
// guest/lib/mpi/mpi_colnet.c): mpi_colnet's checks of barrier, broadcast, reduce and allreduce
// pass with the hardware path and without it (collective.mpi=false), and on bgq with its torus's
// collective classes and without them (network.collective_mpi=false), and every node prints the
// same bytes in all four. The run's statistics
// show which path ran: packets and barriers on the tree with the path on, none with it off.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/process.h"

namespace {

namespace fs = std::filesystem;
using hpm::test::RunResult;
using hpm::test::TempDir;

const std::string kHpmsim = HPM_TEST_HPMSIM;
const std::string kGuestBin = HPM_TEST_GUEST_BIN_DIR;
constexpr std::chrono::seconds kTimeout{120};

struct Outcome {
  std::vector<std::string> nodes;  // each node's standard output
  nlohmann::json stats;
};

// mpi_colnet on `nodes` nodes of `machine` (functional mode: the checks are about results),
// with `settings` (--set KEY=VALUE each).
Outcome runColnet(const std::string& machine, int nodes, const std::vector<std::string>& settings) {
  TempDir dir("hpm-colnet");
  std::vector<std::string> argv = {kHpmsim,     "run",           "--machine", machine,
                                   "--mode",    "functional",    "--nodes",   std::to_string(nodes),
                                   "--quiet",   "--node-output", ".",         "--stats-json",
                                   "stats.json"};
  for (const std::string& s : settings) {
    argv.push_back("--set");
    argv.push_back(s);
  }
  argv.push_back("--");
  argv.push_back(kGuestBin + "/mpi_colnet");
  const RunResult r = hpm::test::runProcess(argv, {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C"}, "",
                                            dir.path(), kTimeout);
  EXPECT_EQ(r.status(), 0) << machine << " " << nodes << " nodes: " << r.describe();
  Outcome o;
  for (int n = 0; n < nodes; ++n) {
    o.nodes.push_back(hpm::test::readFile(dir.path() / ("node-" + std::to_string(n) + ".stdout")));
  }
  o.stats = nlohmann::json::parse(hpm::test::readFile(dir.path() / "stats.json"), nullptr, false);
  return o;
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
