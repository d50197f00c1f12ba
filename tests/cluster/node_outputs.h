// The whole-run start that torus_coll_test and colnet_mpi_test share: hpmsim runs a guest program
// on some nodes of a machine, each node's standard output in its own file, and the test reads
// those and the run's statistics.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/process.h"

namespace hpm::test {

struct NodeOutputs {
  std::vector<std::string> nodes;  // each node's standard output
  nlohmann::json stats;            // --stats-json (null when it could not be read)
};

// `program` (a path) on `nodes` nodes of `machine`, with `options` (hpmsim run's, e.g. --mode,
// --set KEY=VALUE) before the program; the run must succeed.
inline NodeOutputs runNodes(const std::string& machine, int nodes,
                            const std::vector<std::string>& options, const std::string& program) {
  TempDir dir("hpm-nodes");
  std::vector<std::string> argv = {HPM_TEST_HPMSIM, "run",           "--machine",
                                   machine,         "--nodes",       std::to_string(nodes),
                                   "--quiet",       "--node-output", ".",
                                   "--stats-json",  "stats.json"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.push_back(program);
  const RunResult r = runProcess(argv, {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C"}, "", dir.path(),
                                 std::chrono::seconds{120});
  EXPECT_EQ(r.status(), 0) << machine << " " << nodes << " nodes: " << r.describe();
  NodeOutputs o;
  for (int n = 0; n < nodes; ++n) {
    o.nodes.push_back(readFile(dir.path() / ("node-" + std::to_string(n) + ".stdout")));
  }
  o.stats = nlohmann::json::parse(readFile(dir.path() / "stats.json"), nullptr, false);
  return o;
}

}  // namespace hpm::test
