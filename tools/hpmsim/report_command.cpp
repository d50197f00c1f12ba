// hpmsim report RESULTS... -o FILE.html [--trace FILE.json] [--title TEXT]: one self-contained
// HTML page with charts from the files runs write (report.h), and optionally a Chrome trace.
#include <fmt/core.h>

#include <memory>
#include <string>
#include <vector>

#include "base/json_text.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/lib/output.h"
#include "tools/hpmsim/report.h"

namespace hpm::tools {
namespace {

struct ReportOptions {
  std::vector<std::string> inputs;
  std::string output;
  std::string trace;
  bool trace_given = false;
  std::string title = "hpmsim report";
};

int run(const ReportOptions& opt) {
  RunFiles files;
  for (const std::string& in : opt.inputs) files.input(in, "an input of the report");
  files.output(opt.output, "-o");
  files.output(opt.trace, "--trace", opt.trace_given);
  files.check();
  Report report;
  for (const std::string& in : opt.inputs) report.addFile(in);
  writeTextFile(opt.output, report.html(opt.title));
  if (opt.trace_given) writeTextFile(opt.trace, jsonText(report.chromeTrace()) + "\n");
  return 0;
}

}  // namespace

void addReportCommand(CLI::App& root, Action& selected) {
  auto opt = std::make_shared<ReportOptions>();
  CLI::App* cmd = root.add_subcommand(
      "report",
      "One self-contained HTML page with charts (and a Chrome trace) from the files runs write: "
      "run --stats-json, the profile mode's CSVs, stat --json, sweep --json");
  cmd->add_option("results", opt->inputs, "Result files, any number and kind")->required();
  cmd->add_option("-o,--output", opt->output, "The HTML page to write")->required();
  cmd->add_option("--trace", opt->trace,
                  "Also write the timelines as a Chrome trace (Perfetto, chrome://tracing)")
      ->each([opt](const std::string&) { opt->trace_given = true; });
  cmd->add_option("--title", opt->title, "The page's title")->capture_default_str();
  cmd->callback([opt, &selected] { selected = [opt] { return run(*opt); }; });
}

}  // namespace hpm::tools
