// `hpmsim run` on many nodes (--nodes N or a network.shape of more than one node): the program
// runs SPMD on every node of the torus (net/cluster.h).
#pragma once

#include <string>
#include <vector>

#include "node/machine.h"
#include "node/simulation.h"

namespace hpm::tools {

struct NodesRun {
  MachineConfig machine;
  RunOptions options;
  std::string mode;                  // its name, for the statistics
  std::vector<std::string> command;  // program (resolved) and arguments
  std::vector<std::string> envp;
  std::string output_dir;  // "": each node's output prefixed "[K] " on ours; else files there
  std::string stats_json;
  std::string stats_text;
  bool summary = false;
};

// Runs it; returns the first failing node's exit status (else 0).
int runNodes(const NodesRun& run);

}  // namespace hpm::tools
