#include "tools/hpmsim/interconnect_tool.h"

#include <csignal>

#include "base/error.h"
#include "tools/hpmsim/interrupt.h"
#include "tools/hpmsim/program_path.h"

namespace hpm::tools {

void addToolRunOptions(CLI::App& cmd, ToolRunOptions& o) {
  cmd.add_option("--machine", o.machine, "Machine preset or TOML file")->capture_default_str();
  cmd.add_option("--mode", o.mode, "Run mode: timing or warmup")->capture_default_str();
  cmd.add_option("--set", o.overrides, "Override a configuration parameter (KEY=VALUE)")
      ->allow_extra_args(false);
  cmd.add_option("--root", o.root, "Directory the guest sees as /");
  addGuestEnvOptions(cmd, o.env);
}

void addToolProgram(CLI::App& cmd, ToolRunOptions& o) {
  cmd.add_option("command", o.command, "PROGRAM [ARGS...], after --")->required();
  cmd.positionals_at_end();
}

RunOptions toolRunOptions(const ToolRunOptions& o, std::string_view tool) {
  if (o.command.empty()) fail(ExitCode::kUsage, "{}: no program given (-- PROGRAM)", tool);
  const auto mode = parseRunMode(o.mode);
  if (!mode || (*mode != RunMode::kTiming && *mode != RunMode::kWarmup)) {
    fail(ExitCode::kUsage,
         "{}: --mode must be timing or warmup (the interconnect exists in those modes' memory "
         "system)",
         tool);
  }
  RunOptions ro;
  ro.mode = *mode;
  ro.root = o.root;
  std::signal(SIGPIPE, SIG_IGN);
  return ro;
}

void runToolProgram(Simulation& sim, const ToolRunOptions& o) {
  sim.exec(resolveProgram(o.command[0]), o.command, guestEnvironment(o.env));
  sim.kernel().setInterruptSource(pendingInterrupt);
  sim.run();
  std::fflush(stdout);
}

}  // namespace hpm::tools
