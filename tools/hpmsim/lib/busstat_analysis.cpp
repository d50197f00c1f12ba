#include "tools/hpmsim/lib/busstat_analysis.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>

#include "pmu/imon/unit.h"
#include "tools/hpmsim/lib/output.h"

namespace hpm::tools {

Distribution busstatDistribution(const DistributionRecords& records) {
  Distribution d;
  d.run = records.run;
  d.counters = records.counters;
  d.rotation = records.rotation;
  const Cycle end = records.run.cycles;
  for (const TypeRecord& t : records.types) {
    DistributionRow row;
    row.type = t;
    row.estimate = t.observed == 0 ? 0
                                   : static_cast<double>(t.sampled) * static_cast<double>(end) /
                                         static_cast<double>(t.observed);
    row.observed_percent =
        end ? 100.0 * static_cast<double>(t.observed) / static_cast<double>(end) : 0.0;
    if (t.exact != 0) {
      row.error_percent =
          100.0 * (row.estimate - static_cast<double>(t.exact)) / static_cast<double>(t.exact);
    }
    d.total_exact += t.exact;
    d.total_estimate += row.estimate;
    d.rows.push_back(row);
  }
  for (DistributionRow& row : d.rows) {
    row.share_percent = d.total_estimate > 0 ? 100.0 * row.estimate / d.total_estimate : 0;
  }
  return d;
}

std::string simulatedTimeText(const BusstatRun& run) {
  return fmt::format("{:>20.9f} seconds simulated ({} cycles at {:g} MHz)\n\n",
                     static_cast<double>(run.cycles) / static_cast<double>(run.clock_hz),
                     withCommas(run.cycles), run.clock_mhz);
}

std::string distributionText(const Distribution& d) {
  std::string text = fmt::format(
      "\n Transaction distribution of '{}' (machine {}, interconnect monitor: {} counters "
      "rotated over {} types every {} cycles; {} cycles)\n\n",
      d.run.program, d.run.machine, d.counters, d.rows.size(), withCommas(d.rotation),
      withCommas(d.run.cycles));
  std::size_t name_width = 11;  // at least, or the namespace's longest name
  for (const DistributionRow& row : d.rows) name_width = std::max(name_width, row.type.name.size());
  text += fmt::format("  {:<5} {:<{}} {:>12} {:>9} {:>14} {:>7} {:>14} {:>8}\n", "type", "name",
                      name_width, "sampled", "observed", "estimated", "share", "exact", "error");
  for (const DistributionRow& row : d.rows) {
    const TypeRecord& t = row.type;
    const std::string error = !row.error_percent ? (row.estimate == 0 ? "0.0 %" : "-")
                                                 : fmt::format("{:+.1f} %", *row.error_percent);
    text += fmt::format("  {:<5} {:<{}} {:>12} {:>8.1f}% {:>14} {:>6.1f}% {:>14} {:>8}\n",
                        t.mnemonic, t.name, name_width, withCommas(t.sampled), row.observed_percent,
                        withCommas(static_cast<u64>(row.estimate + 0.5)), row.share_percent,
                        withCommas(t.exact), error);
  }
  text += fmt::format("  {:<5} {:<{}} {:>12} {:>9} {:>14} {:>7} {:>14}\n\n", "all", "", name_width,
                      "", "", withCommas(static_cast<u64>(d.total_estimate + 0.5)), "",
                      withCommas(d.total_exact));
  return text + simulatedTimeText(d.run);
}

std::string distributionCsv(const Distribution& d) {
  std::string csv = "type,name,sampled,observed_cycles,estimated,share,exact\n";
  for (const DistributionRow& row : d.rows) {
    const TypeRecord& t = row.type;
    csv += fmt::format("{},{},{},{},{:.1f},{:.4f},{}\n", t.mnemonic, t.name, t.sampled, t.observed,
                       row.estimate, row.share_percent, t.exact);
  }
  return csv;
}

nlohmann::json distributionJson(const Distribution& d) {
  nlohmann::json rows = nlohmann::json::array();
  for (const DistributionRow& row : d.rows) {
    const TypeRecord& t = row.type;
    rows.push_back({{"type", t.mnemonic},
                    {"name", t.name},
                    {"sampled", t.sampled},
                    {"observed_cycles", t.observed},
                    {"estimated", row.estimate},
                    {"share_percent", row.share_percent},
                    {"exact", t.exact}});
  }
  nlohmann::json out;
  out["distribution"] = rows;
  out["rotation_cycles"] = d.rotation;
  out["cycles"] = d.run.cycles;
  out["machine"] = d.run.machine;
  return out;
}

std::string intervalHeaderText(const BusstatRun& run) {
  std::string head = fmt::format("\n Interconnect transactions of '{}' (machine {})\n\n",
                                 run.program, run.machine);
  head += fmt::format("{:>14}  {:<6}", "cycle", "dev");
  for (u32 k = 0; k < imon::kCountersPerMonitor; ++k) {
    head += fmt::format(" {:<30} {:>12}", fmt::format("event{}", k), fmt::format("pic{}", k));
  }
  return head + "\n";
}

std::string intervalHeaderCsv(const std::vector<std::string>& events) {
  std::string csv = "cycle";
  for (const std::string& n : events) csv += "," + n;
  return csv + "\n";
}

std::string intervalText(Cycle cycle, const std::vector<std::string>& events,
                         const std::vector<u64>& counts) {
  const u32 used = static_cast<u32>(events.size());
  std::string text;
  for (u32 m = 0; m * imon::kCountersPerMonitor < used; ++m) {
    text += fmt::format("{:>14}  imon{:<2}", withCommas(cycle), m);
    for (u32 c = m * imon::kCountersPerMonitor;
         c < std::min<u32>(used, (m + 1) * imon::kCountersPerMonitor); ++c) {
      text += fmt::format(" {:<30} {:>12}", events[c], withCommas(counts[c]));
    }
    text += "\n";
  }
  return text;
}

std::string intervalCsv(Cycle cycle, const std::vector<u64>& counts) {
  std::string csv = std::to_string(cycle);
  for (const u64 n : counts) csv += "," + std::to_string(n);
  return csv + "\n";
}

nlohmann::json intervalJson(Cycle cycle, const std::vector<std::string>& events,
                            const std::vector<u64>& counts) {
  nlohmann::json row = {{"cycle", cycle}};
  for (std::size_t c = 0; c < events.size(); ++c) row["counts"][events[c]] = counts[c];
  return row;
}

std::string traceHeaderCsv() {
  return "cycle,monitor,address,type,snoop,source,id\n";
}

std::string traceRecordCsv(u32 monitor, const probe::Transaction& t) {
  return fmt::format("{},{},{:#x},{},{},{},{}\n", t.cycle, monitor, t.address,
                     probe::kTransactionTypeInfo[static_cast<u32>(t.type)].mnemonic,
                     probe::kSnoopInfo[static_cast<u32>(t.snoop)].name, t.source, t.id);
}

FifoSeen fifoSeen(const CountsRecords& records) {
  FifoSeen seen;
  if (records.fifo) seen.fifo = *records.fifo;
  // Counter 1 of each monitor feeds its FIFO (busstat uses at most two monitors' FIFOs).
  const std::vector<u64>& t = records.totals;
  seen.matched = (t.size() > 1 ? t[1] : 0) + (t.size() > 3 ? t[3] : 0);
  seen.seen_percent = seen.matched ? 100.0 * static_cast<double>(seen.fifo.taken) /
                                         static_cast<double>(seen.matched)
                                   : 0.0;
  return seen;
}

std::string countsText(const CountsRecords& records) {
  std::string text = "\n";
  for (std::size_t c = 0; c < records.events.size(); ++c) {
    text += fmt::format("{:>20}      {}\n", withCommas(records.totals[c]), records.events[c]);
  }
  text += "\n";
  if (records.fifo) {
    // Honest sampling: what the FIFOs dropped between two samples was never seen.
    const FifoSeen seen = fifoSeen(records);
    text += fmt::format(
        "{:>20}      FIFO records taken ({} lost between samples; {:.1f} % of counter 1's "
        "matches seen)\n\n",
        withCommas(seen.fifo.taken), withCommas(seen.fifo.lost), seen.seen_percent);
  }
  return text + simulatedTimeText(records.run);
}

nlohmann::json countsJson(const CountsRecords& records) {
  nlohmann::json out;
  for (std::size_t c = 0; c < records.events.size(); ++c) {
    out["counts"][records.events[c]] = records.totals[c];
    // The simulator's count of what the counter's filter matches, over the same run (as
    // --distribution's `exact`): a sampled counter differs from it only if it lost counts.
    out["exact"][records.events[c]] = records.exact[c];
  }
  if (records.fifo) {
    const FifoSeen seen = fifoSeen(records);
    out["fifo"] = {{"taken", seen.fifo.taken}, {"lost", seen.fifo.lost}, {"matched", seen.matched}};
  }
  out["cycles"] = records.run.cycles;
  out["machine"] = records.run.machine;
  return out;
}

}  // namespace hpm::tools
