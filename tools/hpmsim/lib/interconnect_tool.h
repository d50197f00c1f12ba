// What the interconnect monitor's host tools (busstat, conflicts, c2c, locality) share: the
// session's options they take (a timing or warm-up mode, one node), how they sample FIFOs and
// write their reports, how they start the program and how they name the process's mappings.
#pragma once

#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "kernel/vma.h"
#include "node/machine.h"
#include "node/simulation.h"
#include "tools/hpmsim/lib/session.h"

namespace hpm::tools {

// The session's options the tools take (session.h): one node, in the modes whose memory system
// has the interconnect; their outputs go into --output-dir (each command places them, and the
// session's RunFiles makes the folder when the command checks its outputs).
inline constexpr SessionSpec kToolSession{
    .modes = "timing or warmup",
    .runs = runModeBit(RunMode::kTiming) | runModeBit(RunMode::kWarmup),
    .modes_why =
        " (the interconnect exists in those modes' memory "
        "system)",
    .overrides = true,
    .host_memory = true,
    .nodes = false,
    .nodes_what = "",
    .output_dir = true};

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
// (ExitCode::kUsage) naming `tool` when both are. (-o's file is checked with the session's other
// files: Session::files.)
void resolveFifoSampling(FifoSampling& o, const MachineConfig& machine, std::string_view tool);

// A tool's report, on standard error (the guest owns standard output) or in -o's file: `out`
// with --json, else `text`.
void printReport(const FifoSampling& o, const nlohmann::json& out, const std::string& text);
// -o/--output FILE, for the report (`what`).
void addReportOutput(CLI::App& cmd, std::string& path);

// The run options of a tool's session (opened with kToolSession); SIGPIPE ignored from here on (a
// guest writing to a closed pipe must not end hpmsim).
RunOptions toolRunOptions(const Session& s);

// The program's command line as the reports name it: its words (as given) joined by spaces.
std::string commandLine(const Session& s);

// A mapping of the process as the reports name it: "[heap]" (the kernel's name), "[anonymous]",
// or its file's name and whether it is its text or its data ("prog (text)").
std::string segmentName(const Vma& v);
// The segment `address` belongs to in the process's mappings `map` now ("(unmapped)": none).
std::string segmentAt(const VmaMap& map, u64 address);

}  // namespace hpm::tools
