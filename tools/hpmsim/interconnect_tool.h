// What the interconnect monitor's host tools (busstat, conflicts) share: their simulation
// options (the machine, its overrides, a timing run mode, the guest's root, environment and
// program) and how they start the program.
#pragma once

#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "node/machine.h"
#include "node/simulation.h"
#include "tools/hpmsim/guest_env.h"

namespace hpm::tools {

struct ToolRunOptions {
  std::string machine = "bgq";
  std::string mode = "timing";
  std::vector<std::string> overrides;
  std::string root = ".";
  GuestEnvOptions env;
  bool quiet = false;   // --quiet: no progress line
  u64 host_memory = 0;  // --host-memory MIB (0: what the host has available)
  std::vector<std::string> command;
};

// --machine, --mode, --set, --root, --quiet, --host-memory and the environment's options.
void addToolRunOptions(CLI::App& cmd, ToolRunOptions& o);
// The PROGRAM [ARGS...] positional: added last.
void addToolProgram(CLI::App& cmd, ToolRunOptions& o);

// What the FIFO-sampling tools (conflicts, c2c) take besides: how often to sample, how many of
// the busiest items to report, and whether as JSON.
struct FifoSampling {
  u64 interval = 1000;  // cycles: the tool's default, then what the options say (resolve...)
  u32 top = 5;
  bool json = false;
  std::string output;       // -o: the report's file ("": standard error)
  double interval_ms = 0;   // -I: simulated milliseconds, as perf's -I (0: not given)
  u64 interval_cycles = 0;  // --interval-cycles (0: not given)
};
// -I/--interval-print MSECS, --interval-cycles/--interval N, --top (`top_what` says of what),
// --json and -o/--output.
void addFifoSampling(CLI::App& cmd, FifoSampling& o, const std::string& top_what);
// Sets o.interval from -I (at the machine's clock) or --interval-cycles, if given; fails
// (ExitCode::kUsage) naming `tool` when both are, (kIo) when -o's file cannot be written: before
// the run.
void resolveFifoSampling(FifoSampling& o, const MachineConfig& machine, std::string_view tool);

// A tool's report, on standard error (the guest owns standard output) or in -o's file: `out`
// with --json, else `text`.
void printReport(const FifoSampling& o, const nlohmann::json& out, const std::string& text);
// -o/--output FILE, for the report (`what`).
void addReportOutput(CLI::App& cmd, std::string& path);

// The run options of `o` (a timing or warm-up mode: the interconnect exists in those models'
// memory systems), or fails (ExitCode::kUsage) naming `tool` and the problem.
RunOptions toolRunOptions(const ToolRunOptions& o, std::string_view tool);
// Starts `o`'s program on `sim` and runs it to the end (Ctrl-C ends it early, as for stat).
void runToolProgram(Simulation& sim, const ToolRunOptions& o);

}  // namespace hpm::tools
