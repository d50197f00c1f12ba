// Report::chromeTrace: the report's timelines as Chrome trace events (the JSON object format of
// "Trace Event Format", which Perfetto and chrome://tracing open). Time is in microseconds of
// simulated time: cycles over the machine's clock (from a run's configuration or stat's
// clock_mhz); without a clock, one microsecond per cycle, said in otherData.
//
// A counter track holds each sample's value until the next sample: an interval's value is
// stamped at the interval's start (the first at 0), and a last sample of 0 at the last interval's
// end closes the track. (Stamped at their ends, every value showed one interval late and the
// last not at all.)
#include <optional>
#include <set>
#include <string>

#include "base/types.h"

#include "tools/hpmsim/report.h"

namespace hpm::tools {

using nlohmann::json;

json Report::chromeTrace() const {
  double mhz = 0;
  for (const json& r : data_["runs"]) mhz = mhz != 0 ? mhz : r.value("clock_mhz", 0.0);
  for (const json& s : data_["stats"]) mhz = mhz != 0 ? mhz : s.value("clock_mhz", 0.0);
  const double per_cycle = mhz > 0 ? 1.0 / mhz : 1.0;
  json events = json::array();
  constexpr int kNode = 1, kCounters = 2;
  events.push_back(
      {{"ph", "M"}, {"pid", kNode}, {"name", "process_name"}, {"args", {{"name", "hpmsim node"}}}});

  auto regionSlices = [&](const json& spans) {
    std::set<u64> threads;
    for (const json& s : spans) {
      const u64 tid = s["tid"].get<u64>();
      if (threads.insert(tid).second) {
        events.push_back({{"ph", "M"},
                          {"pid", kNode},
                          {"tid", tid},
                          {"name", "thread_name"},
                          {"args", {{"name", "guest thread " + std::to_string(tid)}}}});
      }
      const double begin = s["begin"].get<double>() * per_cycle;
      events.push_back({{"ph", "X"},
                        {"pid", kNode},
                        {"tid", tid},
                        {"name", s["name"]},
                        {"cat", "region"},
                        {"ts", begin},
                        {"dur", s["end"].get<double>() * per_cycle - begin}});
    }
  };
  for (const json& r : data_["runs"]) regionSlices(r["region_spans"]);
  for (const json& s : data_["stats"]) regionSlices(s["region_spans"]);

  // Per core: a counter track of its pipes' IPC and one of its queues' full share (%). A sample
  // is the interval ending at its cycle; in a gap (nulls: the core did not run) it issued
  // nothing, and the tracks read 0 from the end of the last interval it ran.
  for (const json& p : data_["profiles"]) {
    const u64 interval = p.value("interval", u64{0});
    for (const json& c : p["cores"]) {
      const std::string core = "core " + std::to_string(c["core"].get<u64>());
      const json& cycles = c["cycle"];
      // The sample of `entry` at `cycle` (no entry: the closing 0).
      auto sample = [&](u64 cycle, std::optional<std::size_t> entry) {
        json ipc = json::object(), full = json::object();
        for (const auto& [name, values] : c["series"].items()) {
          const bool zero = !entry || values[*entry].is_null();
          if (name.ends_with("_ipc")) {
            ipc[name] = zero ? 0.0 : values[*entry].get<double>();
          } else {
            full[name] = zero ? 0.0 : 100.0 * values[*entry].get<double>();
          }
        }
        const double ts = static_cast<double>(cycle) * per_cycle;
        events.push_back(
            {{"ph", "C"}, {"pid", kNode}, {"name", core + " IPC"}, {"ts", ts}, {"args", ipc}});
        events.push_back({{"ph", "C"},
                          {"pid", kNode},
                          {"name", core + " queues full %"},
                          {"ts", ts},
                          {"args", full}});
      };
      for (std::size_t i = 0; i < cycles.size(); ++i) {
        const u64 end = cycles[i].get<u64>();
        sample(end > interval ? end - interval : 0, i);
      }
      if (!cycles.empty()) sample(cycles.back().get<u64>(), std::nullopt);
    }
  }
  // Per stat event: a counter track of its count in each interval, at the interval's start.
  if (!data_["stats"].empty()) {
    events.push_back({{"ph", "M"},
                      {"pid", kCounters},
                      {"name", "process_name"},
                      {"args", {{"name", "counters (hpmsim stat)"}}}});
  }
  for (const json& s : data_["stats"]) {
    const json& intervals = s["intervals"];
    const json& ms = intervals["ms"];  // each interval's end
    for (const auto& [event, counts] : intervals["counts"].items()) {
      double start = 0;  // microseconds
      for (std::size_t i = 0; i < counts.size() && i < ms.size(); ++i) {
        events.push_back({{"ph", "C"},
                          {"pid", kCounters},
                          {"name", event},
                          {"ts", start},
                          {"args", {{"count", counts[i]}}}});
        start = ms[i].get<double>() * 1e3;
      }
      if (!counts.empty() && !ms.empty()) {
        events.push_back({{"ph", "C"},
                          {"pid", kCounters},
                          {"name", event},
                          {"ts", start},
                          {"args", {{"count", 0}}}});
      }
    }
  }
  return {
      {"traceEvents", events},
      {"displayTimeUnit", "ns"},
      {"otherData",
       {{"time", mhz > 0 ? "simulated microseconds" : "cycles (no clock)"}, {"clock_mhz", mhz}}}};
}

}  // namespace hpm::tools
