// The machine configuration: every model's Params under one root, loaded from a preset or a
// TOML file and `--set` overrides (config/schema.h).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "config/schema.h"
#include "core/timing_params.h"
#include "kernel/kernel.h"
#include "net/collective_params.h"
#include "net/network_params.h"
#include "node/monitor_params.h"
#include "pmu/imon/params.h"
#include "pmu/upc/params.h"
#include "pmu/upcq/params.h"

namespace hpm {

struct NodeParams {
  u32 cores = 16;             // compute cores available to applications
  u32 threads_per_core = 4;   // hardware threads per core
  double clock_mhz = 1600.0;  // core clock
  u64 memory_mib = 16384;     // node memory: reported to the guest, and its limit
  // The interconnect below the private caches (mem/interconnect.h): its section is [l2] (the
  // crossbar's shared L2) or [fireplane].
  probe::Interconnect interconnect = probe::Interconnect::kCrossbar;

  void visit(config::Visitor& v) {
    v.param("cores", cores, "Compute cores available to applications", config::Range{1, 1024});
    v.param("threads_per_core", threads_per_core, "Hardware threads per core",
            config::Range{1, 16});
    v.param("clock_mhz", clock_mhz, "Core clock in MHz", config::Range{1, 100000});
    v.param("memory_mib", memory_mib,
            "Node memory in MiB: what the guest sees (sysinfo, /proc/meminfo) and the most it can "
            "map (ENOMEM past it); at most 256 GiB, the largest guest address space",
            config::Range{64, 1 << 18});
    v.param("interconnect", interconnect,
            "The interconnect below the private caches: crossbar (a shared L2 of slices, section "
            "l2; bgq, bgp, cva6) or fireplane (private write-back external caches snooping one "
            "address bus, section fireplane; sunfire, docs/sunfire.md)",
            {{"crossbar", probe::Interconnect::kCrossbar},
             {"fireplane", probe::Interconnect::kFireplane}});
  }
};

struct MachineConfig {
  std::string name = "bgq";
  std::string description;
  NodeParams node;
  KernelParams kernel;
  // Timing model sections core, l1i, l1d, l1p, l2, ddr (its cores and threads come from node).
  timing::TimingParams timing;
  // Monitoring: which unit the node has, and the parameters of each kind of unit.
  MonitorParams monitor;
  upc::Params upc;
  upcq::Params upcq;
  imon::Params imon;
  // Many nodes: the torus between them and each node's message unit (src/net).
  NetworkParams network;
  // Blue Gene/P's collective and global barrier networks (net/collective.h): off on bgq.
  CollectiveParams collective;

  void visit(config::Visitor& v) {
    v.param("name", name, "Machine name");
    v.param("description", description, "What this machine models");
    v.section("node", node);
    v.section("kernel", kernel);
    timing.visit(v);
    v.section("monitor", monitor);
    v.section("upc", upc);
    v.section("upcq", upcq);
    v.section("imon", imon);
    v.section("network", network);
    v.section("collective", collective);
  }

  u32 hardwareThreads() const { return node.cores * node.threads_per_core; }
  u64 clockHz() const { return static_cast<u64>(node.clock_mhz * 1e6 + 0.5); }
  // The node's torus links: two per dimension of network.shape, and the I/O link (BG/Q: 11).
  u32 torusLinks() const { return 2 * network.shape.dimensions() + 1; }
};

// Names of the built-in presets ("bgq", "bgp").
std::vector<std::string> machinePresets();

// Loads a machine: `spec` is a preset name or the path of a TOML file (which may name a preset
// to start from with `inherits = "bgp"`); then applies each KEY=VALUE override in order.
// Throws Error (ExitCode::kConfig) naming the problem.
MachineConfig loadMachine(const std::string& spec, const std::vector<std::string>& overrides);

// Whether `key` applies to the machine: false for the section of the interconnect it does not
// have (mem::keyRefusedOn: l2.* on the Fireplane bus, fireplane.* on the crossbar).
bool keyApplies(const MachineConfig& config, std::string_view key);
// The machine's parameters that apply to it (keyApplies), over `config`.
config::Schema effectiveSchema(MachineConfig& config);
// The effective configuration, as written beside results: the keys that apply.
nlohmann::json machineJson(MachineConfig& config);

// The kernel's view of the machine.
KernelConfig kernelConfigFor(const MachineConfig& machine);

// The timing model's parameters: the machine's timing sections with its cores and threads.
timing::TimingParams timingParamsFor(const MachineConfig& machine);

// How many instances each scope of the probe bus's events has on the machine.
probe::Topology probeTopology(const MachineConfig& machine);

}  // namespace hpm
