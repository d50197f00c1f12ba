#include "tools/hpmsim/lib/stat_print.h"

#include <fmt/core.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "node/node_stats.h"
#include "tools/hpmsim/lib/output.h"

namespace hpm::tools {
namespace {

bool isClock(const Request& r) {
  return r.source == Request::Source::kSoftware && r.name.ends_with("clock");
}

// Interval and region tables are the units' (software events are the kernel's totals).
bool sampled(const Request& r) {
  return r.source == Request::Source::kUnit;
}

// What the printers share: each request's summary, and the derived metric beside it.
class Summaries {
 public:
  explicit Summaries(const StatResult& result) : result_(result), by_name_(summarize(result)) {
    for (const auto& [name, s] : by_name_) {
      if (s.state == EventSummary::State::kCounted) means_[name] = s.mean;
    }
  }
  const EventSummary& operator[](const Request& r) const { return by_name_.at(r.name); }
  // Whether some request's summary keeps `rule`.
  template <class Rule>
  bool any(Rule rule) const {
    return std::any_of(by_name_.begin(), by_name_.end(),
                       [&](const auto& named) { return rule(named.second); });
  }
  double msec(const Request& r) const { return by_name_.at(r.name).mean / 1e6; }
  // task-clock's "CPUs utilized", or the pair's ratio.
  std::optional<Metric> metric(const Request& r) const {
    if (isClock(r)) {
      const double seconds = result_.last().seconds;
      if (seconds <= 0) return std::nullopt;
      return Metric{msec(r) / (seconds * 1e3), "CPUs utilized", false};
    }
    return metricOf(r.name, means_);
  }
  bool repeated() const { return result_.runs.size() > 1; }

 private:
  const StatResult& result_;
  std::map<std::string, EventSummary> by_name_;
  std::map<std::string, double> means_;
};

// A multiplexed estimate from too few slices (one whose set counted the whole run is exact).
bool untrusted(const EventSummary& e) {
  return e.multiplexed && e.pcnt_running < 100 && e.turns < kTrustedMuxTurns;
}

std::string number(u64 v, bool no_big_num) {
  return no_big_num ? std::to_string(v) : withCommas(v);
}

std::string number(double v, bool no_big_num) {
  return number(static_cast<u64>(v + 0.5), no_big_num);
}

}  // namespace

std::map<std::string, EventSummary> summarize(const StatResult& result) {
  const StatRun& m = result.last();
  std::map<std::string, EventSummary> out;
  for (const Request& r : m.requests) {
    EventSummary& s = out[r.name];
    s.clock = isClock(r);
    if (const auto it = m.pcnt_running.find(r.name); it != m.pcnt_running.end()) {
      s.multiplexed = true;
      s.pcnt_running = it->second;
      const auto turns = m.mux_turns.find(r.name);
      s.turns = turns != m.mux_turns.end() ? turns->second : 0;
    }
    if (r.source == Request::Source::kUnsupported) {
      s.state = EventSummary::State::kNotSupported;
      continue;
    }
    if (!m.counts.contains(r.name)) {
      s.state = EventSummary::State::kNotCounted;
      continue;
    }
    double sum = 0, squares = 0;
    for (const StatRun& one : result.runs) sum += static_cast<double>(one.counts.at(r.name));
    const double n = static_cast<double>(result.runs.size());
    s.mean = sum / n;
    for (const StatRun& one : result.runs) {
      const double d = static_cast<double>(one.counts.at(r.name)) - s.mean;
      squares += d * d;
    }
    const double stddev_of_mean = result.runs.size() > 1 ? std::sqrt(squares / (n - 1) / n) : 0;
    s.spread = s.mean != 0 ? 100 * stddev_of_mean / s.mean : 0;
  }
  return out;
}

u64 multiplexEstimate(u64 counted, Cycle enabled, Cycle running) {
  if (running == 0) return 0;
  return static_cast<u64>(static_cast<double>(counted) * static_cast<double>(enabled) /
                              static_cast<double>(running) +
                          0.5);
}

std::optional<Metric> metricOf(const std::string& name, const std::map<std::string, double>& c) {
  auto ratio = [&](const std::string& num, const std::string& den) -> std::optional<double> {
    if (!c.contains(num) || !c.contains(den) || c.at(den) == 0) return std::nullopt;
    return c.at(num) / c.at(den);
  };
  struct Derived {
    const char* name;
    const char* denominator;
    const char* unit;
    bool percent;
  };
  static const Derived kDerived[] = {
      {"instructions", "cycles", "insn per cycle", false},
      {"branch-misses", "branches", "of all branches", true},
      {"cache-misses", "cache-references", "of all cache refs", true},
      {"L1-dcache-load-misses", "L1-dcache-loads", "of all L1-dcache loads", true},
      {"LLC-load-misses", "LLC-loads", "of all LLC loads", true},
      {"L1-icache-load-misses", "L1-icache-loads", "of all L1-icache loads", true},
  };
  for (const Derived& d : kDerived) {
    if (name != d.name) continue;
    if (auto r = ratio(d.name, d.denominator)) {
      return Metric{d.percent ? 100 * *r : *r, d.unit, d.percent};
    }
  }
  return std::nullopt;
}

std::string perfCsvLine(const std::string& sep, const std::string& prefix, const std::string& value,
                        const std::string& name, const std::optional<double>& variance,
                        const std::optional<Metric>& derived, u64 runtime_ns, double pcnt) {
  std::string l = prefix + value + sep + sep + name;
  if (variance) l += sep + fmt::format("{:.2f}%", *variance);
  l += sep + std::to_string(static_cast<u64>(static_cast<double>(runtime_ns) * pcnt / 100 + 0.5)) +
       sep + fmt::format("{:.2f}", pcnt) + sep;
  if (derived) {
    l += fmt::format("{:.2f}", derived->value) + sep + (derived->percent ? "% " : "") +
         derived->unit;
  } else {
    l += sep;
  }
  return l + "\n";
}

std::string statCsv(const StatResult& result, const StatPrintOptions& options) {
  const StatRun& m = result.last();
  const Summaries s(result);
  const std::string& sep = options.separator;
  const u64 runtime = static_cast<u64>(m.seconds * 1e9 + 0.5);
  const auto line = [&](const std::string& prefix, const std::string& value,
                        const std::string& name, const std::optional<double>& variance,
                        const std::optional<Metric>& derived, double pcnt = 100) {
    return perfCsvLine(sep, prefix, value, name, variance, derived, runtime, pcnt);
  };
  std::string text;
  if (options.intervals) return text;  // (-I: the intervals' lines were the output)
  for (const Request& r : m.requests) {
    const EventSummary& e = s[r];
    if (e.state == EventSummary::State::kNotSupported) {
      text += line("", "<not supported>", r.name, std::nullopt, std::nullopt);
      continue;
    }
    if (e.state == EventSummary::State::kNotCounted) {
      text += line("", "<not counted>", r.name, std::nullopt, std::nullopt, 0);
      continue;
    }
    const std::string value =
        e.clock ? fmt::format("{:.2f}", s.msec(r)) : std::to_string(static_cast<u64>(e.mean + 0.5));
    std::string l =
        line("", value, r.name, s.repeated() ? std::optional<double>(e.spread) : std::nullopt,
             s.metric(r), e.pcnt_running);
    if (e.clock) l.insert(value.size() + sep.size(), "msec");  // the unit field
    text += l;
  }
  // As perf stat --per-node -x: "N<k>" first on each node's lines.
  for (std::size_t n = 0; n < m.per_node.size(); ++n) {
    for (const Request& r : m.requests) {
      if (!m.per_node[n].contains(r.name)) continue;
      const u64 v = m.per_node[n].at(r.name);
      const std::string value =
          isClock(r) ? fmt::format("{:.2f}", static_cast<double>(v) / 1e6) : std::to_string(v);
      text += line(fmt::format("N{}", n) + sep, value, r.name, std::nullopt, std::nullopt);
    }
  }
  return text;
}

std::string statText(const StatResult& result, const StatPrintOptions& options) {
  const StatRun& m = result.last();
  const Summaries s(result);
  const auto number = [&](double v) { return tools::number(v, options.no_big_num); };
  std::string cmdline;
  for (const std::string& a : result.command) cmdline += (cmdline.empty() ? "" : " ") + a;
  // (-I: the intervals' lines, perf stat -I's, were printed as they ended.)
  const std::string on_cores =
      m.cores.empty() ? "" : fmt::format(", cores {}", fmt::join(m.cores, ","));
  const std::string on_nodes =
      m.per_node.empty()
          ? ""
          : fmt::format(", {} nodes ({}), summed", m.per_node.size(), result.network_shape);
  // (perf says "system wide" for -a; here its cycles are every hardware thread's clock.)
  std::string text = fmt::format(
      "\n Performance counter stats for '{}' (machine {}, {}, {} mode{}{}{}{}):\n\n", cmdline,
      result.machine, m.unit_title, result.mode, on_cores, on_nodes,
      result.system_wide ? ", system wide: cycles of every hardware thread, idle included" : "",
      s.repeated() ? fmt::format(", {} runs", result.runs.size()) : "");
  for (const Request& r : m.requests) {
    const EventSummary& e = s[r];
    if (e.state == EventSummary::State::kNotSupported) {
      text += fmt::format("{:>20}      {}\n", "<not supported>", r.name);
      continue;
    }
    if (e.state == EventSummary::State::kNotCounted) {
      text += fmt::format("{:>20}      {:<28} (0.00%)\n", "<not counted>", r.name);
      continue;
    }
    std::string shown;
    if (const auto d = s.metric(r)) {
      shown = fmt::format("#  {:.2f}{} {}", d->value, d->percent ? "%" : "", d->unit);
    }
    const std::string variance = s.repeated() ? fmt::format("  ( +- {:>5.2f}% )", e.spread) : "";
    if (e.clock) {
      // "1,234.56 msec task-clock", as perf.
      const u64 hundredths = static_cast<u64>(s.msec(r) * 100 + 0.5);
      const std::string value =
          fmt::format("{}.{:02d}", number(static_cast<double>(hundredths / 100)), hundredths % 100);
      text += fmt::format("{:>20} msec {:<23} {}{}\n", value, r.name, shown, variance);
      continue;
    }
    // perf's running-time column, for what was multiplexed; an estimate from too few slices is
    // marked with its slices.
    std::string pcnt = e.multiplexed ? fmt::format("  ({:.2f}%)", e.pcnt_running) : "";
    if (untrusted(e)) {
      pcnt += fmt::format(" [{} slice{}]", e.turns, e.turns == 1 ? "" : "s");
    }
    text +=
        fmt::format("{:>20}      {:<28} {}{}{}\n", number(e.mean), r.name, shown, variance, pcnt);
  }
  if (m.mux_sets > 1) {
    text += fmt::format(
        "\n (multiplexed: {} sets of events took turns on the counters in {:g} ms slices, {} "
        "switches; counts are scaled by the run's time over their set's)\n",
        m.mux_sets, result.mux_interval_ms, m.mux_switches);
    if (s.any([](const EventSummary& e) { return e.state == EventSummary::State::kNotCounted; })) {
      text +=
          " Some events weren't counted: their set never had a turn on the counters (the run "
          "ended first). Try a shorter --mux-interval-ms or fewer events.\n";
    }
    if (s.any([](const EventSummary& e) {
          return e.state == EventSummary::State::kCounted && untrusted(e);
        })) {
      text += fmt::format(
          " [N slices]: an estimate from fewer than {} slices of its set, too few stretches of "
          "the run to be trusted. Try a shorter --mux-interval-ms or fewer events.\n",
          kTrustedMuxTurns);
    }
  }
  // Many nodes: each node's counts, as perf stat --per-node prints its nodes ("N0 ...").
  if (!m.per_node.empty()) text += "\n";
  for (std::size_t n = 0; n < m.per_node.size(); ++n) {
    for (const Request& r : m.requests) {
      if (!m.per_node[n].contains(r.name)) continue;
      const double v = static_cast<double>(m.per_node[n].at(r.name));
      text += isClock(r)
                  ? fmt::format("{:<8} {:>20} msec {}\n", fmt::format("N{}", n),
                                fmt::format("{:.2f}", v / 1e6), r.name)
                  : fmt::format("{:<8} {:>20}      {}\n", fmt::format("N{}", n), number(v), r.name);
    }
  }
  // As perf stat --per-core: each core's counts (per-core units, or a node-wide unit's per-core
  // inputs).
  if (!m.per_core.empty()) text += "\n";
  for (const auto& [core, values] : m.per_core) {
    for (const Request& r : m.requests) {
      if (!values.contains(r.name)) continue;
      text += fmt::format("{:<8} {:>20}      {}\n", fmt::format("C{}", core),
                          number(static_cast<double>(values.at(r.name))), r.name);
    }
  }
  // As perf stat --per-thread: "COMM-TID  count  event" (threads that shared a hardware thread:
  // "COMM-TID+TID").
  if (!m.per_thread.empty()) text += "\n";
  const std::string comm = std::filesystem::path(result.command[0]).filename().string();
  for (const ThreadGroup& g : m.per_thread) {
    std::string label = comm.substr(0, 15);
    for (std::size_t i = 0; i < g.tids.size(); ++i) {
      label += fmt::format("{}{}", i == 0 ? "-" : "+", g.tids[i]);
    }
    for (const Request& r : m.requests) {
      if (r.source != Request::Source::kUnit) continue;
      // (Not counted: a thread on cores --cores left out, or an event counted per core.)
      const std::string value = g.counts.contains(r.name)
                                    ? number(static_cast<double>(g.counts.at(r.name)))
                                    : "<not counted>";
      text += fmt::format("{:>20} {:>20}      {}\n", label, value, r.name);
    }
  }
  if (options.no_aggr) {
    // As perf stat -A: each counter apart, where it counted.
    text += "\n";
    for (const ProgrammedCounter& c : m.counters) {
      if (!m.cores.empty() && c.core >= 0 &&
          std::find(m.cores.begin(), m.cores.end(), static_cast<u32>(c.core)) == m.cores.end()) {
        continue;
      }
      const std::string where =
          c.port >= 0 ? fmt::format("{} {} {}", c.device, c.port_name, c.port) : c.device;
      text += fmt::format("{:>20}      {:<28} {} counter {}\n",
                          number(static_cast<double>(c.value)), c.event, where, c.counter);
    }
  }
  for (const auto& [id, values] : m.regions) {
    // (What a region's counts are: the counters' differences between its markers, every
    // hardware thread's summed; its cycles the threads' busy cycles there, as the run's.)
    text += fmt::format("\n region {} ({}): counts between its markers, every thread's summed\n",
                        id, m.region_names.at(id));
    for (const Request& r : m.requests) {
      if (!sampled(r)) continue;
      text +=
          fmt::format("{:>20}      {}\n", number(static_cast<double>(values.at(r.name))), r.name);
    }
  }
  text += fmt::format("\n{:>20.9f} seconds simulated ({} cycles at {:g} MHz)\n", m.seconds,
                      number(static_cast<double>(m.end)), result.clock_mhz);
  text += fmt::format(
      "{:>20.3f} seconds host ({:.1f} million simulated instructions per second)\n\n",
      m.host_seconds,
      m.host_seconds > 0 ? static_cast<double>(m.instructions) / m.host_seconds / 1e6 : 0.0);
  return text;
}

nlohmann::json statJson(const StatResult& result) {
  const StatRun& m = result.last();
  const Summaries s(result);
  nlohmann::json out;
  out["command"] = result.command;
  out["guest_inputs"] = result.guest_inputs;
  out["clock_mhz"] = result.clock_mhz;
  out["machine"] = result.machine;
  out["mode"] = result.mode;
  if (result.system_wide) out["system_wide"] = true;
  if (!m.per_node.empty()) {
    out["nodes"] = m.per_node.size();
    out["network_shape"] = result.network_shape;
    nlohmann::json pn = nlohmann::json::array();
    for (const auto& counts : m.per_node) pn.push_back(counts);
    out["per_node"] = pn;
  }
  out["unit"] = m.unit_name;
  nlohmann::json counts = nlohmann::json::object();
  for (const Request& r : m.requests) {
    if (m.counts.contains(r.name)) counts[r.name] = m.counts.at(r.name);
  }
  out["counts"] = counts;
  // perf stat -j's fields, one object per event.
  nlohmann::json events = nlohmann::json::array();
  for (const Request& r : m.requests) {
    const EventSummary& e = s[r];
    nlohmann::json j = {
        {"event", r.name},
        {"unit", e.clock ? "msec" : ""},
        {"event-runtime", static_cast<u64>(m.seconds * 1e9 * e.pcnt_running / 100 + 0.5)},
        {"pcnt-running", e.pcnt_running}};
    if (e.state == EventSummary::State::kNotSupported) {
      j["counter-value"] = "<not supported>";
      j["pcnt-running"] = 0.0;
    } else if (e.state == EventSummary::State::kNotCounted) {
      j["counter-value"] = "<not counted>";
    } else {
      j["counter-value"] = e.clock ? s.msec(r) : e.mean;
      if (e.multiplexed) j["mux-slices"] = e.turns;
      if (s.repeated()) j["variance"] = e.spread;
      if (const auto d = s.metric(r)) {
        j["metric-value"] = d->value;
        j["metric-unit"] = (d->percent ? "% " : "") + d->unit;
      }
    }
    if (r.group != 0) j["group"] = r.group;
    events.push_back(j);
  }
  if (!m.per_thread.empty()) {
    nlohmann::json pt = nlohmann::json::array();
    for (const ThreadGroup& g : m.per_thread) {
      pt.push_back(
          {{"tids", g.tids}, {"hardware_threads", g.hardware_threads}, {"counts", g.counts}});
    }
    out["per_thread"] = pt;
  }
  if (!m.per_core.empty()) {
    nlohmann::json pc = nlohmann::json::object();
    for (const auto& [core, values] : m.per_core) pc[std::to_string(core)] = values;
    out["per_core"] = pc;
  }
  out["events"] = events;
  if (s.repeated()) {
    out["runs"] = result.runs.size();
    nlohmann::json each = nlohmann::json::array();
    for (const StatRun& one : result.runs) each.push_back(one.counts);
    out["counts_per_run"] = each;
  }
  if (!m.cores.empty()) out["cores"] = m.cores;
  if (m.mux_sets > 1) {
    out["multiplexing"] = {
        {"sets", m.mux_sets}, {"switches", m.mux_switches}, {"slice_ms", result.mux_interval_ms}};
  }
  out["cycles_simulated"] = m.end;
  out["seconds_simulated"] = m.seconds;
  out["host_seconds"] = m.host_seconds;
  out["instructions"] = m.instructions;
  out["exit_status"] = m.status;
  nlohmann::json cj = nlohmann::json::array();
  for (const ProgrammedCounter& c : m.counters) {
    nlohmann::json row = {
        {"event", c.event}, {"device", c.device}, {"counter", c.counter}, {"value", c.value}};
    if (c.port >= 0) row[std::string(c.port_name)] = c.port;
    cj.push_back(row);
  }
  out["counters"] = cj;
  if (!m.intervals.empty()) {
    IntervalPrinter rows({});
    nlohmann::json ij = nlohmann::json::array();
    for (const IntervalRow& row : m.intervals) ij.push_back(rows.json(m.requests, row));
    out["intervals"] = ij;
  }
  if (!m.regions.empty()) {
    nlohmann::json rj;
    for (const auto& [id, values] : m.regions) {
      for (const Request& r : m.requests) {
        if (sampled(r)) rj[std::to_string(id)][r.name] = values.at(r.name);
      }
      rj[std::to_string(id)]["name"] = m.region_names.at(id);
    }
    out["regions"] = rj;
    nlohmann::json spans = nlohmann::json::array();
    for (const RegionSpan& span : m.region_spans) {
      // (The run's own keys, which the report reads: node/node_stats.h.)
      spans.push_back({{node_stat::kSpanTid.name, span.tid},
                       {node_stat::kSpanId.name, span.id},
                       {node_stat::kSpanBegin.name, span.begin},
                       {node_stat::kSpanEnd.name, span.end}});
    }
    out[node_stat::kRegionSpans] = spans;
  }
  return out;
}

void IntervalPrinter::advance(const std::vector<Request>& requests, const IntervalRow& row) {
  // (The last row holds the run's final counts, which have no unsupported request.)
  for (const Request& r : requests) {
    if (const auto it = row.cumulative.find(r.name); it != row.cumulative.end()) {
      before_[r.name] = it->second;
    }
  }
  before_seconds_ = row.seconds;
}

nlohmann::json IntervalPrinter::json(const std::vector<Request>& requests, const IntervalRow& row) {
  nlohmann::json j;
  j["cycle"] = row.cycle;
  j["seconds"] = row.seconds;
  for (const Request& r : requests) {
    if (!sampled(r)) continue;
    const u64 now = row.cumulative.at(r.name);
    j["counts"][r.name] = now - before_[r.name];
    j["cumulative"][r.name] = now;
  }
  advance(requests, row);
  return j;
}

std::string IntervalPrinter::text(const std::vector<Request>& requests, const IntervalRow& row) {
  std::string text;
  if (!options_.separator.empty()) {
    std::map<std::string, double> delta;
    for (const Request& r : requests) {
      if (sampled(r))
        delta[r.name] = static_cast<double>(row.cumulative.at(r.name) - before_[r.name]);
    }
    // (The run time field: the interval's, as perf stat -I -x gives it.)
    const u64 ns = static_cast<u64>((row.seconds - before_seconds_) * 1e9 + 0.5);
    for (const Request& r : requests) {
      if (!sampled(r)) continue;
      text +=
          perfCsvLine(options_.separator, fmt::format("{:.9f}", row.seconds) + options_.separator,
                      std::to_string(row.cumulative.at(r.name) - before_[r.name]), r.name,
                      std::nullopt, metricOf(r.name, delta), ns);
    }
  } else {
    // As perf stat -I: the counts of each interval, at its end in (simulated) seconds, the last
    // (partial) one included.
    if (!header_) text += fmt::format("#{:>13} {:>20}      {}\n", "time", "counts", "event");
    header_ = true;
    for (const Request& r : requests) {
      if (!sampled(r)) continue;
      const u64 v = row.cumulative.at(r.name) - before_[r.name];
      text += fmt::format("{:>14.9f} {:>20}      {}\n", row.seconds, number(v, options_.no_big_num),
                          r.name);
    }
  }
  advance(requests, row);
  return text;
}

}  // namespace hpm::tools
