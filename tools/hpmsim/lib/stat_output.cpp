#include "tools/hpmsim/lib/stat_output.h"

#include "base/json_text.h"

namespace hpm::tools {

StatOutput::StatOutput(const StatOptions& opt, u64 interval, bool reports)
    : opt_(opt),
      interval_(interval),
      reports_(reports),
      print_{opt.separator, opt.no_big_num, opt.no_aggr, interval != 0},
      printer_(print_) {
  if (!reports_) return;
  report_.emplace(opt.output);
  if (opt.json && interval != 0) json_rows_.emplace();
}

IntervalSink StatOutput::intervals() {
  if (interval_ == 0 || !reports_) return {};
  return [this](const std::vector<Request>& requests, const IntervalRow& row) {
    if (json_rows_) {
      json_rows_->add(printer_.json(requests, row));
    } else {
      report_->write(printer_.text(requests, row));
    }
  };
}

void StatOutput::finish(const StatResult& result) {
  if (!reports_) return;
  if (json_rows_) {
    // (Every interval, from the spool: statJson's are the few the report draws.)
    json_rows_->print([this](std::string_view t) { report_->write(t); }, statJson(result),
                      "intervals");
  } else if (opt_.json) {
    report_->write(jsonText(statJson(result), 2) + "\n");
  } else {
    report_->write(opt_.separator.empty() ? statText(result, print_) : statCsv(result, print_));
  }
  report_->commit();
}

}  // namespace hpm::tools
