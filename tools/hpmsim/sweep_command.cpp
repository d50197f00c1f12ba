// `hpmsim sweep`: what-if experiments. Runs a program once per point of the cross product of
// parameter values, in parallel on the host's cores (each point is a separate `hpmsim run`), and
// prints total cycles, cycles per region and the speedup against the first point. The plan is
// lib/sweep_plan.h's, the running lib/sweep_run.h's, the printing lib/sweep_print.h's.
#include <fmt/core.h>

#include <filesystem>
#include <memory>

#include "base/error.h"
#include "base/json_text.h"
#include "node/machine.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/lib/guest_env.h"
#include "tools/hpmsim/lib/program_path.h"
#include "tools/hpmsim/lib/session.h"
#include "tools/hpmsim/lib/sweep_plan.h"
#include "tools/hpmsim/lib/sweep_print.h"
#include "tools/hpmsim/lib/sweep_run.h"

namespace hpm::tools {
namespace {

struct SweepOptions {
  // --machine, --mode, --root, the environment, the program: every point's, as run's (--set is
  // sweep's own: a parameter and its values)
  SessionOptions session;
  std::vector<std::string> sets;  // KEY=V1,V2,...
  unsigned jobs = 0;              // 0: the host's cores
  bool json = false;
};

// sweep's points run one node each; its --set is its own (a parameter and its values), and it
// takes no --host-memory (each point is hpmsim run's, with run's default budget).
constexpr SessionSpec kSweepSession{
    .modes = "functional, warmup, timing or profile, of every point",
    .runs = kModesWithUnits,
    .modes_why = "",
    .overrides = false,
    .host_memory = false,
    .nodes = false,
    .nodes_what = "",
    .output_dir = false};

int run(const SweepOptions& opt) {
  if (opt.session.command.empty())
    fail(ExitCode::kUsage, "sweep: no program given (-- PROGRAM ...)");
  std::vector<SweepAxis> axes = parseAxes(opt.sets);
  if (axes.empty()) fail(ExitCode::kUsage, "sweep: give at least one --set KEY=V1,V2,...");
  (void)guestEnvironment(opt.session.env);  // (its settings checked before any point runs)
  SweepResult sweep = pendingSweep(std::move(axes));
  // The program exists and every point's configuration is valid before any runs: a misspelt
  // path or key, or a value out of range, is one error, not a table of failed runs.
  if (const std::string program = resolveProgram(opt.session.command[0]);
      !std::filesystem::is_regular_file(program)) {
    fail(ExitCode::kUsage, "sweep: cannot open program '{}'", opt.session.command[0]);
  }
  for (const SweepPoint& p : sweep.points) {
    loadMachine(opt.session.machine, pointSettings(sweep.axes, p.values));
  }
  const int interrupted = runSweep(opt.session, sweep, opt.jobs);
  if (opt.json) {
    fmt::print("{}\n", jsonText(sweepJson(sweep), 2));
  } else {
    fmt::print("{}", sweepText(sweep));
  }
  if (interrupted != 0) return 128 + interrupted;
  return sweepFailures(sweep) == 0 ? 0 : static_cast<int>(ExitCode::kGuestFault);
}

}  // namespace

void addSweepCommand(CLI::App& root, Action& selected) {
  auto opt = std::make_shared<SweepOptions>();
  CLI::App* cmd = root.add_subcommand(
      "sweep", "Run a program over the cross product of parameter values, in parallel");
  addSessionOptions(*cmd, opt->session, kSweepSession);
  cmd->add_option("--set", opt->sets, "A parameter and its values: KEY=V1,V2,... (repeatable)")
      ->allow_extra_args(false)
      ->required();
  cmd->add_option("--jobs", opt->jobs, "Runs at a time (default: the host's cores)");
  cmd->add_flag("--json", opt->json, "Print the results as a JSON list");
  addSessionProgram(*cmd, opt->session, kSweepSession);
  cmd->callback([opt, &selected] { selected = [opt] { return run(*opt); }; });
}

}  // namespace hpm::tools
