// Where `hpmsim stat`'s report goes and in which form: -o's file (written whole or not at all) or
// standard error (as perf stat: the guest owns standard output); with -I each interval's lines as
// it ends (perf stat -I's, or -x's), or with --json its row spooled to a file, so that memory does
// not grow with the intervals; then the totals (perf's text, -x CSV or the JSON object).
#pragma once

#include <optional>
#include <string_view>

#include "base/types.h"
#include "tools/hpmsim/lib/output.h"
#include "tools/hpmsim/lib/stat_measure.h"
#include "tools/hpmsim/lib/stat_print.h"

namespace hpm::tools {

class StatOutput {
 public:
  // `interval`: -I's cycles (0: none); `reports`: this process reports (false on the host
  // processes of a many-node run but host 0, which print nothing).
  StatOutput(const StatOptions& opt, u64 interval, bool reports);
  StatOutput(const StatOutput&) = delete;
  StatOutput& operator=(const StatOutput&) = delete;

  // What measureStat hands each interval to (empty without -I, or when this process does not
  // report). It refers to this object, which must outlive the runs.
  IntervalSink intervals();
  // The totals of `result` (with --json and -I, every spooled interval in the object), then -o's
  // file put in place.
  void finish(const StatResult& result);

 private:
  const StatOptions& opt_;
  u64 interval_;
  bool reports_;
  StatPrintOptions print_;
  IntervalPrinter printer_;
  std::optional<ReportStream> report_;  // (only when this process reports)
  std::optional<JsonRowSpool> json_rows_;
};

}  // namespace hpm::tools
