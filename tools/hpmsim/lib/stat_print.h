// `hpmsim stat`'s printers: perf stat's text, its -x CSV and its JSON, and the -I interval
// lines, each a function of the results (stat_result.h) alone, in perf's exact formats.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tools/hpmsim/lib/stat_result.h"

namespace hpm::tools {

struct StatPrintOptions {
  std::string separator;    // -x SEP: perf's CSV ("": perf's text)
  bool no_big_num = false;  // --no-big-num: counts without thousands separators
  bool no_aggr = false;     // -A: every counter apart, after the counts
  bool intervals = false;   // -I: the events' lines were printed interval by interval
};

// The derived ratio perf stat shows beside `name` ("insn per cycle" beside instructions), when
// its pair was counted (`counts` by request name) and the denominator is not 0.
std::optional<Metric> metricOf(const std::string& name,
                               const std::map<std::string, double>& counts);

// A line of perf stat -x SEP: value, unit, event, [variance,] run time (ns), percent running,
// metric value, metric unit; `prefix` first (-I: the interval's end, in seconds, and SEP). The
// run time is `runtime_ns` times `pcnt` percent.
std::string perfCsvLine(const std::string& sep, const std::string& prefix, const std::string& value,
                        const std::string& name, const std::optional<double>& variance,
                        const std::optional<Metric>& derived, u64 runtime_ns, double pcnt = 100);

// perf stat's report: the header, each request's line (mean, metric, variance, running
// percentage), the multiplexing note, then the per-node, per-core, per-thread, -A and region
// tables and the simulated and host times.
std::string statText(const StatResult& result, const StatPrintOptions& options);
// perf stat -x SEP's lines (none with -I: the intervals' lines were the output), then each
// node's ("N<k>" first).
std::string statCsv(const StatResult& result, const StatPrintOptions& options);
// The results as one JSON object (--json prints it, --report and --trace draw it): `counts` by
// request, perf stat -j's `events`, and the tables (docs/counters.md names every key).
nlohmann::json statJson(const StatResult& result);

// -I's output as the intervals end: perf stat -I's lines (or -x's, or a JSON row each),
// each interval's counts the differences of its cumulative counts from the previous one's.
class IntervalPrinter {
 public:
  explicit IntervalPrinter(StatPrintOptions options) : options_(std::move(options)) {}
  // The lines of the interval that ended at `row` (the first interval's header first).
  std::string text(const std::vector<Request>& requests, const IntervalRow& row);
  // The interval as a JSON row: its end, its counts and the cumulative counts.
  nlohmann::json json(const std::vector<Request>& requests, const IntervalRow& row);

 private:
  void advance(const std::vector<Request>& requests, const IntervalRow& row);
  StatPrintOptions options_;
  std::map<std::string, u64> before_;  // the cumulative counts at the previous interval's end
  double before_seconds_ = 0;
  bool header_ = false;  // perf's header line was printed
};

}  // namespace hpm::tools
