#include "tools/hpmsim/lib/session.h"

#include <fmt/core.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "base/error.h"
#include "node/machine.h"
#include "tools/hpmsim/interrupt.h"
#include "tools/hpmsim/lib/host_memory.h"
#include "tools/hpmsim/lib/nodes_run.h"
#include "tools/hpmsim/lib/program_path.h"
#include "tools/hpmsim/lib/progress.h"
#include "tools/hpmsim/mpi_hosts.h"

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

Session openSession(const SessionOptions& o, std::string_view name, const SessionSpec& spec) {
  if (o.command.empty()) {
    fail(ExitCode::kUsage, "{}: no program given (hpmsim {} [OPTIONS] -- PROGRAM)", name, name);
  }
  const auto mode = parseRunMode(o.mode);
  if (!mode) fail(ExitCode::kUsage, "{}: unknown --mode '{}' ({})", name, o.mode, spec.modes);
  if ((spec.runs & runModeBit(*mode)) == 0) {
    fail(ExitCode::kUsage, "{}: --mode must be {}{}", name, spec.modes, spec.modes_why);
  }
  Session s;
  s.options = o;
  s.command_name = name;
  s.mode = *mode;
  s.machine = loadMachine(o.machine, o.overrides);
  s.nodes = resolveNodes(s.machine, o.nodes, o.node_output, name);
  s.many_nodes = manyNodes(s.nodes, o.nodes);
  if (hostProcesses() > 1 && !s.many_nodes) {
    fail(ExitCode::kUsage,
         "{}: started by mpirun with {} processes, which spread the nodes of a many-node run "
         "(--nodes N) over them: give --nodes N",
         name, hostProcesses());
  }
  s.command = o.command;
  s.command[0] = resolveProgram(o.command[0]);
  s.envp = guestEnvironment(o.env);
  s.files.input(s.command[0], "the program");
  s.files.input(std::filesystem::is_regular_file(o.machine) ? o.machine : "", "the machine file");
  if (!o.output_dir.empty()) s.files.folder(o.output_dir);
  if (s.many_nodes) addNodeOutputs(s.files, o.node_output, s.nodes);
  return s;
}

void refuseWithManyNodes(const Session& s,
                         std::initializer_list<std::pair<bool, std::string_view>> options) {
  if (!s.many_nodes) return;
  for (const auto& [given, option] : options) {
    if (given) {
      fail(ExitCode::kUsage, "{}: {} is not available with many nodes yet", s.command_name, option);
    }
  }
}

double runSessionProgram(Simulation& sim, const Session& s) {
  sim.kernel().setInterruptSource(pendingInterrupt);
  HostMemoryBudget budget(s.options.host_memory);
  budget.describeGuests([&sim] { return guestMemoryText(sim.kernel()); });
  sim.kernel().setLimitSource(budget.limit());
  sim.exec(s.command[0], s.options.command, s.envp);
  const auto start = std::chrono::steady_clock::now();
  double seconds = 0;
  {
    ProgressLine progress(!s.options.quiet);
    sim.run(progress.follow(sim));
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }  // (the line erased before anything else is printed)
  std::fflush(stdout);
  return seconds;
}

}  // namespace hpm::tools
