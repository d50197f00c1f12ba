// Many nodes on a torus running one program SPMD, one process per node (rank = node id), in
// one host process: the nodes advance in windows of the network's lookahead, and the packets
// they inject move through the network model between windows (docs/network.md, "Windows").
//
// The contract that keeps results exact: a packet injected at cycle t enters the network at
// t + injection_cycles and lands in a memory at least lookahead cycles after t, so while every
// node runs the window [W, W + L) nothing another node does in it can reach it before W + L.
// After the window the network advances to W + L + injection_cycles (no later injection can
// enter before that) and hands each node the packets due in its memory, all at or after W + L.
// The result does not depend on the order the nodes run in a window.
//
// Over several host processes (ClusterOptions::hosts, issue 24) each host runs a block of the
// nodes (cluster/host_link.h) and keeps a whole copy of the network model: at each window's end the
// hosts exchange what their nodes injected (the destination's host gets the bytes, the others
// the packet's size and route), their output and whether their nodes are done, waiting or
// failed; each copy then advances exactly as the one network of a single process does, and each
// host hands its own nodes their packets and link counts. Results are the same for every number
// of hosts; statistics, reports and output are written by host 0.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/types.h"
#include "cluster/host_link.h"
#include "kernel/kernel.h"
#include "net/message_unit.h"
#include "net/network.h"
#include "node/machine.h"
#include "node/simulation.h"
#include "stats/stats.h"

namespace hpm::net {

struct ClusterOptions {
  // Where each node's standard output and error go: kPrefixed writes them to out_fd / err_fd
  // line by line as "[K] line" (lines of different nodes in window order); kFiles to
  // DIR/node-K.stdout and DIR/node-K.stderr.
  enum class Output : u8 { kPrefixed, kFiles } output = Output::kPrefixed;
  std::string output_dir;
  int in_fd = 0;  // node 0's standard input (the others read /dev/null), as mpirun does
  int out_fd = 1;
  int err_fd = 2;
  // The host processes the nodes are spread over (null: this process runs them all). Must
  // outlive the cluster.
  HostLink* hosts = nullptr;
  // Called after each of this host's nodes is built (`built` of `total`): it may refuse the run
  // (hpm::Error) before it starts, when the rest would not fit in the host's memory.
  std::function<void(u32 built, u32 total)> on_built;
  // Every node's kernel's limit source (Kernel::setLimitSource; may be empty): a node that
  // reaches the limit fails (status 71), and a failing node ends the job.
  Kernel::LimitSource limit;
};

// Node `node`'s standard output (`stream` 1) or error (2) file in `dir` (Output::kFiles).
std::string nodeOutputFile(const std::string& dir, u32 node, int stream);

class Cluster {
 public:
  // machine.network.shape gives the nodes; throws Error for a bad output directory.
  Cluster(const MachineConfig& machine, RunOptions options, ClusterOptions cluster);
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  // Loads the program on every node (hpm::Error for bad programs).
  void exec(const std::string& path, const std::vector<std::string>& argv,
            const std::vector<std::string>& envp);
  // Runs every node to its end. A node that fails (non-zero status) ends the others at the end
  // of that window, as an MPI job ends; when every live node waits for a packet and none is in
  // flight the run is deadlocked and every node ends with a report saying so.
  // `node_result`, if given, is called on each node's host at the end with the node's id: what
  // it returns reaches host 0 (nodeResult) with the node's other results.
  using NodeResult = std::function<std::string(u32 node)>;
  void run(const Kernel::InterruptSource& interrupted = {}, const NodeResult& node_result = {});

  u32 nodes() const;
  // The nodes this host process runs (all of them without ClusterOptions::hosts).
  NodeBlock localNodes() const;
  // Whether this process writes the run's results (host 0).
  bool writesResults() const;
  // A node of this host (localNodes()).
  Simulation& node(u32 i);
  const Simulation& node(u32 i) const;
  const Network& network() const;
  const MessageUnit& messageUnit(u32 i) const;
  // The first failing node's status (earliest end, then lowest node), else 0: on every host.
  int exitStatus() const;
  // After run(), on host 0 for every node (elsewhere its own): each node's termination report,
  // each line prefixed "node K: "; the latest node's time; the instructions of all.
  std::string reports() const;
  // After run(), on host 0 for every node (elsewhere its own): what run's `node_result` gave.
  const std::string& nodeResult(u32 node) const;
  Cycle elapsedCycles() const;
  u64 retiredInstructions() const;
  u64 windows() const;
  // After run(), on host 0: the network's and the message units' statistics, and each node's
  // ("nodes": id, instructions, cycles, exit status and the node's own statistics); with several
  // hosts also "host_processes" (what the exchange cost: not the same for every host count).
  void visitStats(stats::Visitor& v) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace hpm::net
