#include "tools/hpmsim/lib/session.h"

#include <fmt/core.h>

#include <filesystem>

#include "node/machine.h"
#include "tools/hpmsim/lib/host_memory.h"
#include "tools/hpmsim/lib/nodes_run.h"

namespace hpm::tools {

std::string machineOptionHelp() {
  std::string names;
  for (const std::string& name : machinePresets()) names += (names.empty() ? "" : ", ") + name;
  return fmt::format("Machine preset ({}) or TOML file", names);
}

void addMachineOptions(CLI::App& cmd, std::string& machine, std::vector<std::string>& overrides) {
  cmd.add_option("--machine", machine, machineOptionHelp())->capture_default_str();
  cmd.add_option("--set", overrides, "Override a configuration parameter (KEY=VALUE)")
      ->allow_extra_args(false);
}

void addSessionOptions(CLI::App& cmd, SessionOptions& o, const SessionSpec& spec) {
  if (spec.overrides) {
    addMachineOptions(cmd, o.machine, o.overrides);
  } else {
    cmd.add_option("--machine", o.machine, machineOptionHelp())->capture_default_str();
  }
  cmd.add_option("--mode", o.mode, fmt::format("Run mode: {}", spec.modes))->capture_default_str();
}

void addSessionProgram(CLI::App& cmd, SessionOptions& o, const SessionSpec& spec) {
  cmd.add_option("--root", o.root, "Directory the guest sees as /")->capture_default_str();
  cmd.add_flag("--quiet", o.quiet, "No progress line on stderr (shown only on a terminal)");
  if (spec.host_memory) addHostMemoryOption(cmd, o.host_memory);
  if (spec.nodes) addNodeOptions(cmd, o.nodes, o.node_output, spec.nodes_what);
  if (spec.output_dir) {
    cmd.add_option("--output-dir", o.output_dir,
                   "Write every file the run writes (results, report, trace, profile, node "
                   "outputs) into DIR, made if missing: relative output paths are taken in it");
  }
  addGuestEnvOptions(cmd, o.env);
  cmd.add_option("command", o.command, "PROGRAM [ARGS...], after --")->required();
  cmd.positionals_at_end();
}

void placeOutputs(const SessionOptions& o, std::initializer_list<std::string*> paths) {
  if (o.output_dir.empty()) return;
  for (std::string* path : paths) {
    if (path->empty() || std::filesystem::path(*path).is_absolute()) continue;
    *path = (std::filesystem::path(o.output_dir) / *path).string();
  }
}

}  // namespace hpm::tools
