#include "node/machine.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/embedded.h"
#include "base/error.h"

namespace hpm {
namespace presets {
std::span<const EmbeddedFile> machineFiles();  // generated from machines/*.toml
}

namespace {

const EmbeddedFile* findPreset(const std::string& name) {
  for (const EmbeddedFile& f : presets::machineFiles()) {
    if (f.name == name + ".toml") return &f;
  }
  return nullptr;
}

std::string readFile(const std::string& path) {
  // Only regular files reach here; a bounded size keeps a wrong path from being read whole.
  constexpr std::uintmax_t kMaxBytes = 1 << 20;
  if (std::filesystem::file_size(path) > kMaxBytes) {
    fail(ExitCode::kConfig, "machine file '{}' is larger than {} bytes: not a machine file", path,
         kMaxBytes);
  }
  std::ifstream in(path);
  if (!in) fail(ExitCode::kConfig, "cannot read machine file '{}'", path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The preset a machine file inherits from (key `inherits`), or "bgq".
std::string inheritedPreset(const std::string& text, const std::string& origin) {
  const auto pos = text.find("inherits");
  if (pos == std::string::npos) return "bgq";
  const auto open = text.find('"', pos);
  const auto close = open == std::string::npos ? open : text.find('"', open + 1);
  if (close == std::string::npos) fail(ExitCode::kConfig, "{}: malformed `inherits` key", origin);
  return text.substr(open + 1, close - open - 1);
}

}  // namespace

std::vector<std::string> machinePresets() {
  std::vector<std::string> names;
  for (const EmbeddedFile& f : presets::machineFiles()) {
    names.emplace_back(f.name.substr(0, f.name.size() - 5));
  }
  return names;
}

MachineConfig loadMachine(const std::string& spec, const std::vector<std::string>& overrides) {
  MachineConfig config;
  config::Schema schema(config);
  for (const mem::MovedKey& moved : mem::movedKeys()) {
    schema.retire(std::string(moved.old_key), std::string(moved.message));
  }
  if (const EmbeddedFile* preset = findPreset(spec)) {
    schema.applyToml(preset->text, spec);
  } else if (std::filesystem::is_regular_file(spec)) {
    const std::string text = readFile(spec);
    const std::string base = inheritedPreset(text, spec);
    const EmbeddedFile* preset_base = findPreset(base);
    if (preset_base == nullptr) {
      fail(ExitCode::kConfig, "{}: `inherits` names unknown machine '{}'", spec, base);
    }
    schema.applyToml(preset_base->text, base);
    schema.applyToml(text, spec, {"inherits"});
  } else {
    std::string known;
    for (const auto& name : machinePresets()) known += (known.empty() ? "" : ", ") + name;
    fail(ExitCode::kConfig, "unknown machine '{}': not a preset ({}) or a TOML file", spec, known);
  }
  // The machine declares its torus's number of dimensions; overrides change only the sizes.
  const u32 dimensions = config.network.shape.dimensions();
  for (const std::string& o : overrides) schema.applyOverride(o);
  // The section of the interconnect the machine does not have is refused, whoever set it (the
  // machine file, the file it inherits, or --set), every such key at once.
  std::string refused;
  for (const std::string& key : schema.assigned()) {
    const std::string why = mem::keyRefusedOn(config.node.interconnect, key);
    if (!why.empty() && refused.find(why) == std::string::npos) {
      refused += (refused.empty() ? "" : "; ") + why;
    }
  }
  if (!refused.empty()) fail(ExitCode::kConfig, "machine {}: {}", config.name, refused);
  const NetworkParams& net = config.network;
  if (net.shape.dimensions() != dimensions) {
    fail(ExitCode::kConfig,
         "network.shape '{}' has {} dimensions, machine {}'s torus has {} (--set changes their "
         "sizes, not their number; a machine file may declare its own)",
         net.shape.text(), net.shape.dimensions(), config.name, dimensions);
  }
  if (net.max_payload_bytes % 32 != 0 || net.header_bytes % 32 != 0) {
    fail(ExitCode::kConfig,
         "network.max_payload_bytes ({}) and network.header_bytes ({}) must be multiples of the "
         "32-byte chunk",
         net.max_payload_bytes, net.header_bytes);
  }
  // (The escape channel's bubble rule lets a packet enter only with room for it and a largest
  // packet more: smaller buffers would never take one.)
  if (net.vc_buffer_bytes < 2 * (net.max_payload_bytes + net.header_bytes)) {
    fail(ExitCode::kConfig,
         "network.vc_buffer_bytes ({}) must hold two of the largest packets ({} bytes each: "
         "max_payload_bytes + header_bytes)",
         net.vc_buffer_bytes, net.max_payload_bytes + net.header_bytes);
  }
  // (The link protocol's tokens are kept for the point-to-point channels, Blue Gene/P's; BG/Q's
  // collective channels have none: a torus with both is neither machine.)
  if (net.link_protocol && net.collectives) {
    fail(ExitCode::kConfig,
         "network.link_protocol (Blue Gene/P's link level) and network.collectives (Blue Gene/Q's "
         "collective classes) cannot both be on: the model keeps the protocol's tokens for the "
         "point-to-point channels only");
  }
  const auto timing = timingParamsFor(config);
  timing.validate();  // constraints between timing parameters
  // The caches are lazily backed, but a run that used every line of them must not exhaust the
  // host: the documented ranges allow caches far larger than a host's memory.
  const u64 state = timing.memParams().cacheStateBytes();
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_bytes = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_bytes > 0 && state > static_cast<u64>(pages) * page_bytes) {
    fail(ExitCode::kConfig,
         "the caches of machine {} ({} cores: l1i {} KiB, l1d {} KiB, {} KiB) need up to {} "
         "MiB of host memory for their state (33 bytes per line), more than this host's {} MiB",
         config.name, config.node.cores, config.timing.l1i.size_kib, config.timing.l1d.size_kib,
         timing.memParams().snooping() ? fmt::format("an E$ of {}", timing.fireplane.ecache_kib)
                                       : fmt::format("l2 {}", timing.l2.size_kib),
         state >> 20, (static_cast<u64>(pages) * page_bytes) >> 20);
  }
  return config;
}

bool keyApplies(const MachineConfig& config, std::string_view key) {
  return mem::keyRefusedOn(config.node.interconnect, key).empty();
}

config::Schema effectiveSchema(MachineConfig& config) {
  config::Schema schema(config);
  schema.omit([&config](std::string_view key) { return !keyApplies(config, key); });
  return schema;
}

nlohmann::json machineJson(MachineConfig& config) {
  return effectiveSchema(config).toJson();
}

KernelConfig kernelConfigFor(const MachineConfig& machine) {
  KernelConfig k;
  k.params = machine.kernel;
  k.cores = machine.node.cores;
  k.threads_per_core = machine.node.threads_per_core;
  k.clock_hz = machine.clockHz();
  k.memory_bytes = machine.node.memory_mib << 20;
  k.node_name = machine.name;
  const auto kib = [](u32 n) { return u64{n} << 10; };
  const auto& t = machine.timing;
  // The level below the L1s: the crossbar's shared L2, or each CPU's external cache.
  const bool ecache = machine.node.interconnect == probe::Interconnect::kFireplane;
  const mem::FireplaneParams& f = t.fireplane;
  k.caches = {{1, "Data", kib(t.l1d.size_kib), t.l1d.line_bytes, t.l1d.ways},
              {1, "Instruction", kib(t.l1i.size_kib), t.l1i.line_bytes, t.l1i.ways},
              ecache
                  ? CacheDescription{2, "Unified", kib(f.ecache_kib), f.line_bytes, f.ecache_ways}
                  : CacheDescription{2, "Unified", kib(t.l2.size_kib), t.l2.line_bytes, t.l2.ways}};
  return k;
}

timing::TimingParams timingParamsFor(const MachineConfig& machine) {
  timing::TimingParams t = machine.timing;
  t.cores = machine.node.cores;
  t.threads_per_core = machine.node.threads_per_core;
  t.interconnect = machine.node.interconnect;
  return t;
}

probe::Topology probeTopology(const MachineConfig& machine) {
  const mem::MemParams p = timingParamsFor(machine).memParams();
  probe::Topology topology;
  topology.threads = machine.hardwareThreads();
  topology.cores = machine.node.cores;
  topology.slices = p.l2Instances();
  topology.controllers = p.controllerInstances();
  topology.links = machine.torusLinks();
  topology.snoop_ports = p.snoopPorts();
  topology.l3_banks = p.l3Banks();
  topology.device_buses = p.deviceBuses();
  if (machine.collective.enabled) {
    topology.col_ports = net::kColPorts * net::kColVcs;
    topology.col_classes = net::kColClasses;
  }
  return topology;
}

}  // namespace hpm
