#include "tools/hpmsim/lib/locality_analysis.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "tools/hpmsim/lib/output.h"

namespace hpm::tools {

void countTraffic(RegionRecord& region, u32 home, u32 requester) {
  ++region.homes[home];
  if (home == requester) {
    ++region.local;
  } else {
    ++region.remote;
    ++region.remote_from[requester];
  }
}

LocalityReport localityReport(LocalityRecords records, u32 top) {
  LocalityReport report;
  report.records = std::move(records);
  const LocalityRecords& r = report.records;
  report.exact = r.pair_counters >= r.pairs.size();
  double remote_estimate = 0, sum_estimate = 0;
  for (const PairRecord& p : r.pairs) {
    const double estimate = p.observed == 0
                                ? 0.0
                                : static_cast<double>(p.counted) * static_cast<double>(r.cycles) /
                                      static_cast<double>(p.observed);
    sum_estimate += estimate;
    if (p.requester != p.home) remote_estimate += estimate;
    report.matrix.push_back({.pair = p, .estimate = estimate});
  }
  report.remote_percent = sum_estimate > 0 ? 100.0 * remote_estimate / sum_estimate : 0.0;
  report.seen_percent =
      r.matched ? 100.0 * static_cast<double>(r.taken) / static_cast<double>(r.matched) : 0.0;
  std::vector<const RegionRecord*> hottest;
  for (const auto& [start, region] : r.regions) hottest.push_back(&region);
  // Stable: regions with as much remote traffic stay in address order.
  std::stable_sort(
      hottest.begin(), hottest.end(),
      [](const RegionRecord* a, const RegionRecord* b) { return a->remote > b->remote; });
  if (hottest.size() > top) hottest.resize(top);
  for (const RegionRecord* region : hottest) report.hottest.push_back(*region);
  return report;
}

namespace {

// "1:5 3:2": each board and its records.
std::string boardsText(const std::map<u32, u64>& by_board) {
  std::string text;
  for (const auto& [b, n] : by_board) text += fmt::format("{}{}:{}", text.empty() ? "" : " ", b, n);
  return text;
}

nlohmann::json boardsJson(const std::map<u32, u64>& by_board) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [b, n] : by_board) out[std::to_string(b)] = n;
  return out;
}

}  // namespace

std::string localityText(const LocalityReport& report) {
  const LocalityRecords& r = report.records;
  std::string text = fmt::format(
      "\n Coherent transactions (RTS, RTSA, RTO, RTOU, WB) of '{}' by requester board and home "
      "board (machine {}: {} boards of {} CPUs, placement {})\n {}\n\n",
      r.program, r.machine, r.boards, r.cpus_per_board, r.placement,
      !report.exact ? fmt::format("{} counters rotated over {} board pairs every {} cycles: "
                                  "estimates scaled by the share of the run each pair was watched",
                                  r.pair_counters, r.pairs.size(), withCommas(r.rotation))
                    : fmt::format("every board pair on a counter of its own: exact counts"));
  text += fmt::format(" {:>16}", "requester\\home");
  for (u32 h = 0; h < r.boards; ++h) text += fmt::format(" {:>12}", fmt::format("board {}", h));
  text += "\n";
  for (u32 b = 0; b < r.boards; ++b) {
    text += fmt::format(" {:>16}", fmt::format("board {}", b));
    for (u32 h = 0; h < r.boards; ++h) {
      const PairRow& p = report.matrix[b * r.boards + h];
      text += fmt::format(" {:>12}", withCommas(static_cast<u64>(p.estimate + 0.5)));
    }
    text += "\n";
  }
  text += fmt::format(
      "\n {} coherent transactions (counted exactly), {:.1f} % remote (off the requester's "
      "board)\n",
      withCommas(r.coherent), report.remote_percent);
  text += fmt::format(
      "\n FIFO sampled every {} cycles: {} of {} records seen ({:.1f} %), {} lost between "
      "samples, {} of no mapped page\n Regions with the most remote traffic:\n\n"
      "   {:<28} {:<31} {:>9} {:>9}  {}\n",
      withCommas(r.interval), withCommas(r.taken), withCommas(r.matched), report.seen_percent,
      withCommas(r.lost), withCommas(r.unmapped), "segment", "virtual range", "local", "remote",
      "remote from boards; home boards");
  for (const RegionRecord& region : report.hottest) {
    const std::string from = boardsText(region.remote_from);
    text +=
        fmt::format("   {:<28} {:#014x}-{:#014x} {:>9} {:>9}  {}; {}\n", region.segment,
                    region.start, region.end, withCommas(region.local), withCommas(region.remote),
                    from.empty() ? "-" : from, boardsText(region.homes));
  }
  return text + "\n";
}

nlohmann::json localityJson(const LocalityReport& report) {
  const LocalityRecords& r = report.records;
  nlohmann::json matrix = nlohmann::json::array();
  for (const PairRow& p : report.matrix) {
    matrix.push_back({{"requester", p.pair.requester},
                      {"home", p.pair.home},
                      {"counted", p.pair.counted},
                      {"observed_cycles", p.pair.observed},
                      {"estimated", p.estimate}});
  }
  nlohmann::json hot = nlohmann::json::array();
  for (const RegionRecord& region : report.hottest) {
    hot.push_back({{"segment", region.segment},
                   {"start", region.start},
                   {"end", region.end},
                   {"local", region.local},
                   {"remote", region.remote},
                   {"remote_from", boardsJson(region.remote_from)},
                   {"homes", boardsJson(region.homes)}});
  }
  return {{"machine", r.machine},
          {"cycles", r.cycles},
          {"boards", r.boards},
          {"cpus_per_board", r.cpus_per_board},
          {"coherent", r.coherent},
          {"exact", report.exact},
          {"rotation_cycles", r.rotation},
          {"matrix", matrix},
          {"remote_percent", report.remote_percent},
          {"sampled", r.taken},
          {"lost", r.lost},
          {"matched", r.matched},
          {"unmapped", r.unmapped},
          {"regions", hot}};
}

}  // namespace hpm::tools
