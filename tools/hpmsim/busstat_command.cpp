// `hpmsim busstat`: the interconnect monitor from the host, in the spirit of Solaris busstat(1M)
// with seed 004's Fire Link events (docs/interconnect.md). It programs the monitor's counters
// with filter presets, samples them every interval of simulated cycles as a tool on the machine
// would, and, with --distribution, rotates the counters' type filters over the transaction types
// at every interval to estimate the run's transaction-type distribution (seed 004, Figure 3).
// The measurement is lib/busstat_measure.h's, the estimate and the printers
// lib/busstat_analysis.h's: here are the options and the outputs.
#include <nlohmann/json.hpp>

#include <optional>
#include <variant>

#include "base/json_text.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/lib/busstat_analysis.h"
#include "tools/hpmsim/lib/busstat_measure.h"
#include "tools/hpmsim/lib/finite_range.h"
#include "tools/hpmsim/lib/interconnect_tool.h"
#include "tools/hpmsim/lib/output.h"

namespace hpm::tools {
namespace {

int run(const BusstatOptions& opt) {
  Session session = openSession(opt.run, "busstat", kToolSession);
  const RunOptions ro = toolRunOptions(session);
  RunFiles& files = session.files;
  files.output(opt.csv, "--csv", !opt.csv.empty());
  files.output(opt.trace, "--trace", !opt.trace.empty());
  files.output(opt.output, "-o", !opt.output.empty());
  files.check();
  BusstatMeasure measure(opt, session, ro);
  const std::vector<std::string>& events = measure.events();

  // Every output that grows with the intervals is written as they end (the text on stderr, the
  // CSV files, the JSON's intervals to a spool read back at the end).
  std::optional<ResultFile> trace_file;
  if (!opt.trace.empty()) {
    trace_file.emplace(opt.trace);
    trace_file->write(traceHeaderCsv());
  }
  std::optional<ResultFile> csv_file;
  if (!opt.csv.empty()) csv_file.emplace(opt.csv);
  ReportStream report(opt.output);
  // Without --distribution: busstat's layout, one line per monitor and interval, its two
  // counters' events and counts; the CSV a row per interval; the JSON's intervals.
  std::optional<JsonRowSpool> json_intervals;
  if (opt.json && !opt.distribution) json_intervals.emplace();
  if (!opt.distribution) {
    if (!opt.json) report.write(intervalHeaderText(measure.header()));
    if (csv_file) csv_file->write(intervalHeaderCsv(events));
  }
  BusstatSinks sinks;
  sinks.interval = [&](Cycle cycle, const std::vector<u64>& counts) {
    if (!opt.json) report.write(intervalText(cycle, events, counts));
    if (csv_file) csv_file->write(intervalCsv(cycle, counts));
    if (json_intervals) json_intervals->add(intervalJson(cycle, events, counts));
  };
  if (trace_file) {
    sinks.record = [&](u32 monitor, const probe::Transaction& t) {
      trace_file->write(traceRecordCsv(monitor, t));
    };
  }
  const BusstatResult result = measure.run(sinks);

  nlohmann::json out;
  std::string text, csv;
  if (const auto* records = std::get_if<DistributionRecords>(&result.records)) {
    const Distribution d = busstatDistribution(*records);
    text = distributionText(d);
    csv = distributionCsv(d);
    out = distributionJson(d);
  } else {
    const CountsRecords& counted = std::get<CountsRecords>(result.records);
    text = countsText(counted);
    out = countsJson(counted);
  }
  if (csv_file) {
    csv_file->write(csv);
    csv_file->commit();
  }
  if (trace_file) trace_file->commit();
  if (json_intervals) {
    json_intervals->print([&report](std::string_view t) { report.write(t); }, out, "intervals");
  } else if (opt.json) {
    report.write(jsonText(out, 2) + "\n");
  } else {
    report.write(text);
  }
  report.commit();
  return result.status;
}

}  // namespace

void addBusstatCommand(CLI::App& root, Action& selected) {
  auto opt = std::make_shared<BusstatOptions>();
  CLI::App* cmd = root.add_subcommand(
      "busstat",
      "Count interconnect transactions with the interconnect monitor (as Solaris busstat)");
  addSessionOptions(*cmd, opt->run, kToolSession);
  cmd->add_option("-e,--event", opt->events,
                  "Interconnect events, comma-separated (hpmsim events --unit imon), two per "
                  "monitor")
      ->allow_extra_args(false);
  cmd->add_option("-I,--interval-print", opt->interval_ms,
                  "Print the counts of every interval of MSECS simulated milliseconds, as perf's "
                  "-I (--distribution: rotate the filters so often, default every 100000 cycles)")
      ->check(positiveInterval(IntervalUnit::kMilliseconds));
  cmd->add_option("--interval-cycles,--interval", opt->interval_cycles, "As -I, in cycles")
      ->check(positiveInterval(IntervalUnit::kCycles));
  cmd->add_flag("--distribution", opt->distribution,
                "Rotate the counters over the transaction types and estimate the run's "
                "transaction-type distribution (seed 004, Figure 3)");
  cmd->add_option("--csv", opt->csv, "Also write the intervals or the distribution as CSV");
  cmd->add_flag("--fifo", opt->fifo,
                "Also sample each monitor's sequence FIFO (counter 1's matches) at every interval "
                "and report how much of the stream it saw");
  cmd->add_option("--trace", opt->trace,
                  "Sample the FIFOs as --fifo does and write the records taken as CSV");
  cmd->add_flag("--json", opt->json, "Print a JSON object instead of the table");
  addReportOutput(*cmd, opt->output);
  addSessionProgram(*cmd, opt->run, kToolSession);
  cmd->callback([opt, &selected] {
    placeOutputs(opt->run, {&opt->output, &opt->csv, &opt->trace});
    selected = [opt] { return run(*opt); };
  });
}

}  // namespace hpm::tools
