#include "tools/hpmsim/lib/nodes_run.h"

#include <fmt/core.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "base/error.h"
#include "base/json_text.h"
#include "base/wire.h"
#include "cluster/cluster.h"
#include "stats/stats.h"
#include "tools/hpmsim/interrupt.h"
#include "tools/hpmsim/lib/guest_env.h"
#include "tools/hpmsim/lib/host_memory.h"
#include "tools/hpmsim/lib/output.h"
#include "tools/hpmsim/lib/run_stats.h"
#include "tools/hpmsim/mpi_hosts.h"

namespace hpm::tools {

void addNodeOptions(CLI::App& cmd, u32& nodes, std::string& node_output, std::string_view what) {
  cmd.add_option("--nodes", nodes,
                 fmt::format("Run the program on N nodes of the machine's torus (SPMD, rank = node "
                             "id; the shape: network.shape, or one hpmsim picks){}; under `mpirun "
                             "-np P` the nodes are spread over its P processes",
                             what))
      ->check(CLI::Range(u32{1}, kMaxNodes));
  cmd.add_option("--node-output", node_output,
                 "Many nodes: write node K's output to DIR/node-K.stdout and .stderr (default: "
                 "each line on ours, prefixed \"[K] \")");
}

u32 resolveNodes(MachineConfig& machine, u32 nodes_option, const std::string& node_output,
                 std::string_view command) {
  // (A valid shape has at most kMaxNodes nodes.)
  auto nodes = static_cast<u32>(machine.network.shape.nodes());
  if (nodes_option != 0 && nodes_option != nodes) {
    if (nodes != 1) {
      fail(ExitCode::kUsage, "{}: --nodes {} and network.shape {} ({} nodes) disagree", command,
           nodes_option, machine.network.shape.text(), nodes);
    }
    const std::string why =
        torusShapeFor(nodes_option, machine.network.shape.dimensions(), machine.network.shape);
    if (!why.empty()) fail(ExitCode::kConfig, "{}: --nodes {}: {}", command, nodes_option, why);
    nodes = nodes_option;
  }
  if (!node_output.empty()) {
    if (!manyNodes(nodes, nodes_option)) {
      fail(ExitCode::kUsage, "{}: --node-output is for runs of many nodes (--nodes N)", command);
    }
    std::error_code ec;
    if (std::filesystem::exists(node_output, ec) &&
        !std::filesystem::is_directory(node_output, ec)) {
      fail(ExitCode::kUsage, "{}: --node-output '{}' is not a directory", command, node_output);
    }
  }
  return nodes;
}

void addNodeOutputs(RunFiles& files, const std::string& dir, u32 nodes) {
  if (dir.empty()) return;
  files.folder(dir);
  for (u32 node = 0; node < nodes; ++node) {
    for (const int stream : {1, 2}) {
      files.output(net::nodeOutputFile(dir, node, stream),
                   fmt::format("--node-output (node {}'s {})", node,
                               stream == 1 ? "standard output" : "standard error"));
    }
  }
}

std::vector<std::string> hostZeroEnvironment(net::HostLink* link,
                                             const std::vector<std::string>& envp) {
  if (link == nullptr) return envp;
  net::HostLink& hosts = *link;
  std::vector<std::string> to(hosts.hosts());
  if (hosts.host() == 0) {
    wire::Writer w;
    w.put(u64{envp.size()});
    for (const std::string& e : envp) w.bytes(e);
    const std::string bytes = w.take();
    for (u32 h = 1; h < hosts.hosts(); ++h) to[h] = bytes;
  }
  const std::vector<std::string> from = hosts.exchange(std::move(to));
  if (hosts.host() == 0) return envp;
  wire::Reader r(from[0]);
  std::vector<std::string> env(r.get<u64>());
  for (std::string& e : env) e = r.bytes();
  return env;
}

int runNodes(const NodesRun& r) {
  net::ClusterOptions co;
  if (!r.output_dir.empty()) {
    co.output = net::ClusterOptions::Output::kFiles;
    co.output_dir = r.output_dir;
  }
  std::fflush(stdout);
  // (Declared before the cluster, which uses it to its end.)
  const std::unique_ptr<net::HostLink> hosts =
      joinHosts(static_cast<u32>(r.machine.network.shape.nodes()), pendingInterrupt);
  co.hosts = hosts.get();
  HostMemoryBudget budget(r.host_memory);
  co.on_built = [&budget](u32 built, u32 total) { budget.checkNodes(built, total); };
  co.limit = budget.limit();
  net::Cluster cluster(r.machine, r.options, co);
  budget.describeGuests([&cluster] { return guestsMemoryText(cluster); });
  // Every node gets host 0's environment, as in one process (hosts on several machines may
  // have different ones).
  const std::vector<std::string> envp = hostZeroEnvironment(hosts.get(), r.envp);
  cluster.exec(r.command[0], r.command, envp);
  const auto start = std::chrono::steady_clock::now();
  cluster.run(pendingInterrupt);
  const double host_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (!cluster.writesResults()) return cluster.exitStatus();  // (host 0 writes them)
  const u64 instructions = cluster.retiredInstructions();
  const u64 cycles = cluster.elapsedCycles();
  const double mips = host_seconds > 0 ? instructions / host_seconds / 1e6 : 0.0;
  auto visitAll = [&](stats::Visitor& v) {
    run_stat::visitTotals(v, {instructions, cycles, host_seconds, r.mode,
                              static_cast<u64>(cluster.exitStatus()), true});
    cluster.visitStats(v);
  };
  if (!r.stats_json.empty()) {
    stats::JsonWriter json;
    visitAll(json);
    MachineConfig machine = r.machine;
    json.result()["config"] = machineJson(machine);
    json.result()["command"] = r.command;
    json.result()["guest_inputs"] = guestInputsDigest(r.command, envp);
    json.result()["units"] = json.units();
    writeTextFile(r.stats_json, jsonText(json.result(), 2) + "\n");
  }
  if (!r.stats_text.empty()) {
    stats::TextWriter text;
    visitAll(text);
    writeTextFile(r.stats_text, text.str());
  }
  std::fflush(stdout);
  fmt::print(stderr, "{}", cluster.reports());
  if (r.summary) {
    fmt::print(stderr,
               "hpmsim: {} on {} nodes of {} ({}, {} mode): {} instructions, {} cycles, {} "
               "windows, {} packets, {:.3f} s host, {:.1f} MIPS, exit status {}\n",
               r.command[0], cluster.nodes(), r.machine.name, r.machine.network.shape.text(),
               r.mode, instructions, cycles, cluster.windows(),
               cluster.network().packetsDelivered(), host_seconds, mips, cluster.exitStatus());
  }
  return cluster.exitStatus();
}

}  // namespace hpm::tools
