// `hpmsim run` on many nodes (--nodes N or a network.shape of more than one node): the program
// runs SPMD on every node of the torus (cluster/cluster.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "cluster/host_link.h"
#include "node/machine.h"
#include "node/simulation.h"
#include "tools/hpmsim/lib/output.h"

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
  u64 host_memory = 0;  // --host-memory MIB (0: what the host has available)
};

// Runs it; returns the first failing node's exit status (else 0).
int runNodes(const NodesRun& run);

// The guest environment every node gets: `envp` as host 0 made it, before Open MPI's start
// added its own variables to the processes' (PSM2_DEVICES, ...); `envp` itself without hosts.
std::vector<std::string> hostZeroEnvironment(net::HostLink* hosts,
                                             const std::vector<std::string>& envp);

// The nodes a command runs on: `nodes_option` (--nodes; 0 = not given) sets machine's
// network.shape to a shape of the machine's dimension count when the shape is one node, and must
// agree with a shape of more; `--node-output DIR` goes only with many nodes and must be a
// directory if it exists. Returns the node count; fails (usage) naming `command` when they
// disagree.
u32 resolveNodes(MachineConfig& machine, u32 nodes_option, const std::string& node_output,
                 std::string_view command);
// The files of --node-output DIR (with N nodes): each node's standard output and error there,
// checked as every output is (RunFiles); the folder is made when it is missing. "": none.
void addNodeOutputs(RunFiles& files, const std::string& dir, u32 nodes);
// The options --nodes N and --node-output DIR of a command (`what`: what it does on each node).
void addNodeOptions(CLI::App& cmd, u32& nodes, std::string& node_output, std::string_view what);
// Many nodes: --nodes given (even 1: a one-node MPI job has its message unit) or a shape of more.
inline bool manyNodes(u32 nodes, u32 nodes_option) {
  return nodes > 1 || nodes_option != 0;
}

}  // namespace hpm::tools
