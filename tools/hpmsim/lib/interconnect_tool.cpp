#include "tools/hpmsim/lib/interconnect_tool.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <csignal>
#include <filesystem>

#include "base/error.h"
#include "base/json_text.h"
#include "hart/memory.h"
#include "tools/hpmsim/lib/finite_range.h"
#include "tools/hpmsim/lib/output.h"

namespace hpm::tools {

void addFifoSampling(CLI::App& cmd, FifoSampling& o, const std::string& top_what) {
  cmd.add_option("-I,--interval-print", o.interval_ms,
                 fmt::format("Sample the FIFO every MSECS simulated milliseconds (as perf's -I; "
                             "default: every {} cycles)",
                             o.interval))
      ->check(positiveInterval(IntervalUnit::kMilliseconds));
  cmd.add_option("--interval-cycles,--interval", o.interval_cycles, "As -I, in cycles")
      ->check(positiveInterval(IntervalUnit::kCycles));
  cmd.add_option("--top", o.top, "Report this many of the " + top_what)->capture_default_str();
  cmd.add_flag("--json", o.json, "Print a JSON object instead of the report");
  addReportOutput(cmd, o.output);
}

void addReportOutput(CLI::App& cmd, std::string& path) {
  cmd.add_option("-o,--output", path,
                 "Write the report (the JSON object with --json) to FILE instead of stderr");
}

void resolveFifoSampling(FifoSampling& o, const MachineConfig& machine, std::string_view tool) {
  if (const u64 given =
          intervalOptionCycles(o.interval_ms, o.interval_cycles, machine.node.clock_mhz, tool)) {
    o.interval = given;
  }
}

void printReport(const FifoSampling& o, const nlohmann::json& out, const std::string& text) {
  ReportStream report(o.output);
  report.write(o.json ? jsonText(out, 2) + "\n" : text);
  report.commit();
}

RunOptions toolRunOptions(const Session& s) {
  RunOptions ro;
  ro.mode = s.mode;
  ro.root = s.options.root;
  std::signal(SIGPIPE, SIG_IGN);
  return ro;
}

std::string commandLine(const Session& s) {
  return fmt::format("{}", fmt::join(s.options.command, " "));
}

std::string segmentName(const Vma& v) {
  if (v.name.empty()) return "[anonymous]";
  if (v.name.starts_with("[")) return v.name;
  const std::string file = std::filesystem::path(v.name).filename().string();
  return file + ((v.perm & GuestMemory::kExec) != 0 ? " (text)" : " (data)");
}

std::string segmentAt(const VmaMap& map, u64 address) {
  const Vma* v = map.find(address);
  return v == nullptr ? "(unmapped)" : segmentName(*v);
}

}  // namespace hpm::tools
