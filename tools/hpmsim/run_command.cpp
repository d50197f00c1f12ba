// `hpmsim run`: runs a guest program on the modelled node.
#include <fmt/core.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>

#include "base/error.h"
#include "kernel/kernel.h"
#include "node/machine.h"
#include "stats/stats.h"
#include "tools/hpmsim/commands.h"

extern char** environ;

namespace hpm::tools {
namespace {

struct RunOptions {
  std::string machine = "bgq";
  std::string mode = "functional";
  std::vector<std::string> overrides;
  std::string stats_json;
  std::string root = ".";
  bool strict_syscalls = false;
  bool host_time = false;
  bool summary = false;
  std::vector<std::string> command;  // program and its arguments
};

std::vector<std::string> hostEnvironment() {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  return env;
}

int run(const RunOptions& opt) {
  if (opt.command.empty()) fail(ExitCode::kUsage, "run: no program given (hpmsim run -- PROGRAM)");
  if (opt.mode != "functional") {
    fail(ExitCode::kUsage, "run: unknown --mode '{}' (available: functional)", opt.mode);
  }
  MachineConfig machine = loadMachine(opt.machine, opt.overrides);
  KernelConfig kc = kernelConfigFor(machine);
  kc.root = opt.root;
  kc.strict_syscalls = opt.strict_syscalls;
  kc.host_time = opt.host_time;

  // A guest writing to a closed pipe gets SIGPIPE from our kernel; hpmsim itself must not die.
  std::signal(SIGPIPE, SIG_IGN);

  Kernel kernel(kc);
  kernel.exec(opt.command[0], opt.command, hostEnvironment());

  const bool progress = ::isatty(STDERR_FILENO) != 0;
  const auto start = std::chrono::steady_clock::now();
  auto last_report = start;
  auto totalInstructions = [&kernel] {
    u64 n = 0;
    for (const auto& t : kernel.threads()) n += t->hart().state().instret;
    return n;
  };
  Kernel::ProgressFn on_progress;
  if (progress) {
    on_progress = [&] {
      const auto now = std::chrono::steady_clock::now();
      if (now - last_report < std::chrono::milliseconds(500)) return;
      last_report = now;
      const double seconds = std::chrono::duration<double>(now - start).count();
      const u64 n = totalInstructions();
      fmt::print(stderr, "\r[hpmsim] {:>14} instructions, {:8.1f} MIPS", n, n / seconds / 1e6);
      std::fflush(stderr);
    };
  }
  kernel.runFunctional(on_progress);
  const double host_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (progress && host_seconds >= 0.5) fmt::print(stderr, "\r\033[K");

  const Termination& end = kernel.termination();
  const u64 instructions = totalInstructions();
  u64 cycles = 0;
  for (const auto& t : kernel.threads()) cycles = std::max(cycles, t->hart().state().cycle);
  const double mips = host_seconds > 0 ? instructions / host_seconds / 1e6 : 0.0;

  if (!opt.stats_json.empty()) {
    stats::JsonWriter json;
    json.counter("instructions", instructions, "");
    json.counter("cycles", cycles, "");
    json.real("host_seconds", host_seconds, "");
    json.real("mips", mips, "");
    json.text("mode", opt.mode, "");
    json.counter("exit_status", static_cast<u64>(end.status), "");
    json.beginList("threads");
    for (const auto& t : kernel.threads()) {
      json.beginGroup("");
      json.counter("tid", static_cast<u64>(t->tid()), "");
      json.counter("instructions", t->hart().state().instret, "");
      json.counter("cycles", t->hart().state().cycle, "");
      json.endGroup();
    }
    json.endList();
    json.beginGroup("kernel");
    kernel.visitStats(json);
    json.endGroup();
    json.result()["config"] = machineJson(machine);
    json.result()["command"] = opt.command;
    std::ofstream out(opt.stats_json);
    out << json.result().dump(2) << "\n";
    if (!out) fail(ExitCode::kIo, "cannot write statistics to '{}'", opt.stats_json);
  }
  std::fflush(stdout);
  if (!end.report.empty()) fmt::print(stderr, "{}", end.report);
  if (opt.summary) {
    fmt::print(stderr,
               "hpmsim: {} on {}: {} instructions, {} cycles ({:.6f} s simulated at {:g} MHz), "
               "{:.3f} s host, {:.1f} MIPS, exit status {}\n",
               opt.command[0], machine.name, instructions, cycles,
               static_cast<double>(kernel.nanosAt(cycles)) / 1e9, machine.node.clock_mhz,
               host_seconds, mips, end.status);
  }
  return end.status;
}

}  // namespace

void addRunCommand(CLI::App& root, Action& selected) {
  auto opt = std::make_shared<RunOptions>();
  CLI::App* cmd =
      root.add_subcommand("run", "Run a static RV64 Linux program on the modelled node");
  cmd->add_option("--machine", opt->machine, "Machine preset (bgq, bgp) or TOML file")
      ->capture_default_str();
  cmd->add_option("--mode", opt->mode, "Run mode: functional")->capture_default_str();
  cmd->add_option("--set", opt->overrides, "Override a configuration parameter (KEY=VALUE)")
      ->allow_extra_args(false);
  cmd->add_option("--stats-json", opt->stats_json, "Write statistics as JSON to FILE");
  cmd->add_option("--root", opt->root, "Directory the guest sees as / (default: .)");
  cmd->add_flag("--strict-syscalls", opt->strict_syscalls,
                "Stop with an error at the first unsupported system call");
  cmd->add_flag("--host-time", opt->host_time,
                "Wall-clock time from the host instead of simulated time");
  cmd->add_flag("--summary", opt->summary,
                "Print instructions, simulated time and MIPS on stderr at the end");
  cmd->add_option("command", opt->command, "PROGRAM [ARGS...], after --")->required();
  cmd->positionals_at_end();
  cmd->callback([opt, &selected] { selected = [opt] { return run(*opt); }; });
}

}  // namespace hpm::tools
