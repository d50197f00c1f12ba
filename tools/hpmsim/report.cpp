#include "tools/hpmsim/report.h"

#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "base/embedded.h"
#include "base/error.h"
#include "base/json_text.h"
#include "base/types.h"
#include "core/timing_stats.h"
#include "mem/mem_stats.h"
#include "node/node_stats.h"
#include "tools/hpmsim/lib/run_stats.h"

namespace hpm::report_assets {
std::span<const hpm::EmbeddedFile> files();    // report.html, report.css, render.js
std::span<const hpm::EmbeddedFile> chartJs();  // Debian's chart.min.js
}  // namespace hpm::report_assets

namespace hpm::tools {
namespace {

using nlohmann::json;

constexpr u64 kMaxInputBytes = u64{1} << 30;

std::string_view asset(std::span<const EmbeddedFile> files, std::string_view name) {
  for (const EmbeddedFile& f : files) {
    if (f.name == name) return f.text;
  }
  fail(ExitCode::kInternal, "report asset '{}' is not compiled in", name);
}

std::string readInput(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    fail(ExitCode::kIo, "cannot open '{}': {}", path, std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) fail(ExitCode::kIo, "'{}' is not a regular file", path);
  if (static_cast<u64>(st.st_size) > kMaxInputBytes) {
    fail(ExitCode::kIo, "'{}' is larger than 1 GiB: not a result hpmsim writes", path);
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) fail(ExitCode::kIo, "cannot read '{}'", path);
  return text.str();
}

// One CSV record (RFC 4180 quoting, as the profile writer quotes function names).
std::vector<std::string> csvFields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

std::vector<std::vector<std::string>> csvRecords(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) rows.push_back(csvFields(line));
  }
  return rows;
}

double number(const std::string& field, const std::string& name) {
  try {
    std::size_t used = 0;
    const double v = std::stod(field, &used);
    if (used == field.size()) return v;
  } catch (const std::exception&) {
  }
  fail(ExitCode::kIo, "'{}': '{}' is not a number", name, field);
}

// Every leaf of a configuration object as [dotted key, value text], in key order.
void flatten(const json& j, const std::string& prefix, json& out) {
  for (const auto& [key, value] : j.items()) {
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if (value.is_object()) {
      flatten(value, path, out);
    } else {
      out.push_back({path, value.is_string() ? value.get<std::string>() : jsonText(value)});
    }
  }
}

double share(u64 part, u64 whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

// A value of a result file with its place there (a JSON pointer: /timing/cores/0/l1d), read as
// the type it must have. A missing (or null) value reads as the default; one of another type
// fails (ExitCode::kIo) naming the file, the place and both types: a result file that was
// edited, cut or made by something else is refused as such, never an internal error.
// A statistic is read through its declaration (stat(), stats/measure.h); a Field made with a
// set of reads records there the path of each, as the statistics JSON's "units" writes it
// (list elements as '*'), found or not.
class Field {
 public:
  Field(const json& j, const std::string& file, std::set<std::string>* reads = nullptr)
      : j_(&j), file_(&file), reads_(reads) {}

  // The value at `key` of an object (a missing one: null); fails unless this is an object.
  Field operator[](std::string_view key) const {
    object();
    const auto it = j_->find(key);
    return Field(it != j_->end() ? *it : kNull(), path_ + "/" + pointerToken(key),
                 pattern_ + (pattern_.empty() ? "" : ".") + std::string(key), *file_, reads_);
  }
  // A statistic, a group or a list of statistics, by its declared name: as operator[], recorded.
  Field stat(std::string_view name) const {
    Field f = (*this)[name];
    if (reads_ != nullptr) reads_->insert(f.pattern_);
    return f;
  }
  Field operator[](const stats::Stat& s) const { return stat(s.name); }
  // The elements of an array (none: missing), each with its place.
  std::vector<Field> elements() const {
    std::vector<Field> out;
    const json& a = array();
    for (std::size_t i = 0; i < a.size(); ++i) {
      out.push_back(Field(a[i], path_ + "/" + std::to_string(i), pattern_ + ".*", *file_, reads_));
    }
    return out;
  }
  // The members of an object (none: missing), each with its key and place.
  std::vector<std::pair<std::string, Field>> members() const {
    std::vector<std::pair<std::string, Field>> out;
    for (const auto& [key, value] : object().items()) {
      out.emplace_back(
          key, Field(value, path_ + "/" + pointerToken(key), pattern_ + "." + key, *file_, reads_));
    }
    return out;
  }
  bool missing() const { return j_->is_null(); }
  const json& value() const { return *j_; }
  const std::string& place() const { return path_; }
  const std::string& file() const { return *file_; }

  const json& object() const {
    static const json kEmpty = json::object();
    if (missing()) return kEmpty;
    if (!j_->is_object()) wrong("an object");
    return *j_;
  }
  const json& array() const {
    static const json kEmpty = json::array();
    if (missing()) return kEmpty;
    if (!j_->is_array()) wrong("an array");
    return *j_;
  }
  // A count: a number that is not negative (0 when missing).
  u64 count() const {
    if (missing()) return 0;
    if (j_->is_number_unsigned()) return j_->get<u64>();
    // (A signed integer in memory: run and stat give their own results as they made them.)
    if (j_->is_number_integer() && j_->get<i64>() >= 0) return static_cast<u64>(j_->get<i64>());
    // (A fraction is cut; one of 2^64 or more is no count, and no u64 could hold it.)
    if (!j_->is_number_float() || !(j_->get<double>() >= 0 && j_->get<double>() < 0x1p64)) {
      wrong("a count (a number, not negative)");
    }
    return static_cast<u64>(j_->get<double>());
  }
  // An integer, negative or not (a sweep point's status: -1 when it did not run).
  i64 integer() const {
    if (missing()) return 0;
    if (!j_->is_number_integer()) wrong("an integer");
    return j_->get<i64>();
  }
  double real(double missing_value = 0.0) const {
    if (missing()) return missing_value;
    if (!j_->is_number()) wrong("a number");
    return j_->get<double>();
  }
  std::string text() const {
    if (missing()) return "";
    if (!j_->is_string()) wrong("a string");
    return j_->get<std::string>();
  }
  // A number or a string (a count that may be "<not counted>"), as it is.
  const json& countOrText() const {
    if (!missing() && !j_->is_number() && !j_->is_string()) wrong("a number or a string");
    return *j_;
  }

  [[noreturn]] void wrong(std::string_view expected) const {
    const std::string_view type = j_->type_name();
    const bool vowel = type.starts_with('a') || type.starts_with('o');
    fail(ExitCode::kIo, "'{}': {} is {} {} where {} belongs", *file_,
         path_.empty() ? std::string("the top level") : path_, vowel ? "an" : "a", type, expected);
  }

 private:
  Field(const json& j, std::string path, std::string pattern, const std::string& file,
        std::set<std::string>* reads)
      : j_(&j), file_(&file), reads_(reads), path_(std::move(path)), pattern_(std::move(pattern)) {}
  static const json& kNull() {
    static const json null;
    return null;
  }
  // RFC 6901: '~' as ~0, '/' as ~1.
  static std::string pointerToken(std::string_view key) {
    std::string out;
    for (const char c : key) {
      if (c == '~') {
        out += "~0";
      } else if (c == '/') {
        out += "~1";
      } else {
        out += c;
      }
    }
    return out;
  }
  const json* j_;
  const std::string* file_;
  std::set<std::string>* reads_;
  std::string path_;
  std::string pattern_;  // the statistics' path: names joined with '.', elements as '*'
};

// Instructions per cycle of a statistics group with both.
double ipc(const Field& f, const stats::Stat& instructions, const stats::Stat& cycles) {
  const u64 c = f[cycles].count();
  return c == 0 ? 0.0 : static_cast<double>(f[instructions].count()) / static_cast<double>(c);
}

// An axis title of a chart of statistics: what their unit counts.
std::string unitTitle(const stats::Stat& s) {
  return std::string(stats::unitName(s.measure.unit));
}
// ... of a quotient of two (instructions per cycle), the divisor's unit in the singular.
std::string perTitle(const stats::Stat& numerator, const stats::Stat& divisor) {
  std::string per = unitTitle(divisor);
  if (per.ends_with('s')) per.pop_back();
  return unitTitle(numerator) + " per " + per;
}

// A result's "command" (["./prog", "arg"]) as one line.
std::string commandLine(const Field& result) {
  std::string line;
  for (const Field& word : result["command"].elements()) {
    line += (line.empty() ? "" : " ") + word.text();
  }
  return line;
}

// A result's region_spans ({tid, id, begin, end}: a run's, node/node_stats.h, and stat's, which
// writes them alike) with each region's name for its id.
json namedSpans(const Field& spans, const std::map<u64, std::string>& names) {
  namespace ns = node_stat;
  json out = json::array();
  for (const Field& s : spans.elements()) {
    const auto name = names.find(s[ns::kSpanId].count());
    out.push_back({{"tid", s[ns::kSpanTid].count()},
                   {"name", name != names.end() ? name->second : ""},
                   {"begin", s[ns::kSpanBegin].count()},
                   {"end", s[ns::kSpanEnd].count()}});
  }
  return out;
}

// A core's samples with a gap where it did not run: where its next sample ends more than one
// interval after the last, one entry stamped an interval after the last, null in every series
// (the page's lines stop there; the trace reads 0 from the last sample's end).
json withGaps(const json& core, u64 interval) {
  json out = {{"core", core["core"]}, {"cycle", json::array()}, {"series", json::object()}};
  const json& cycles = core["cycle"];
  for (std::size_t i = 0; i < cycles.size(); ++i) {
    const u64 at = cycles[i].get<u64>();
    const u64 last = i > 0 ? cycles[i - 1].get<u64>() : at;
    if (interval != 0 && at > last && at - last > interval) {  // (no sum: no overflow)
      out["cycle"].push_back(last + interval);
      for (const auto& [column, values] : core["series"].items()) {
        out["series"][column].push_back(nullptr);
      }
    }
    out["cycle"].push_back(at);
    for (const auto& [column, values] : core["series"].items()) {
      out["series"][column].push_back(values[i]);
    }
  }
  return out;
}

std::string htmlEscape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// JSON inside a <script> element. JSON text has '<' only inside strings, where it is written
// \u003c: no string ("</script>", "<!--<script>") can end the element or change how the
// browser reads it.
std::string scriptJson(const json& j) {
  const std::string text = jsonText(j);
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

Report::Report()
    : data_{{"runs", json::array()},
            {"profiles", json::array()},
            {"functions", json::array()},
            {"stats", json::array()},
            {"sweeps", json::array()}} {}

void Report::addFile(const std::string& path) {
  addText(readInput(path), path);
}

void Report::addText(const std::string& text, const std::string& path) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) {
    const json j = json::parse(text, nullptr, false);
    if (j.is_discarded()) fail(ExitCode::kIo, "'{}' is not valid JSON", path);
    if (j.is_object() && j.contains("command") && j.contains("kernel")) return addRun(j, path);
    if (j.is_object() && j.contains("events") && j.contains("counts")) return addStat(j, path);
    if (j.is_array() && !j.empty() && j[0].is_object() && j[0].contains("speedup")) {
      return addSweep(j, path);
    }
  } else if (text.starts_with("core,cycle,")) {
    return addProfileSamples(text, path);
  } else if (text.starts_with("function,instructions,cycles")) {
    return addProfileFunctions(text, path);
  }
  fail(ExitCode::kIo,
       "'{}' is not a result hpmsim writes (run --stats-json, stat --json, sweep --json, or the "
       "profile mode's samples and functions CSV)",
       path);
}

void Report::addRun(const json& stats, const std::string& name) {
  namespace ms = mem::stat;
  namespace ns = node_stat;
  namespace ts = timing::stat;
  const Field in(stats, name, &statistics_read_);
  json run;
  run["file"] = name;
  const Field config = in["config"];
  run["summary"] = {{"command", commandLine(in)},
                    {"machine", config["name"].text()},
                    {"mode", in[run_stat::kMode].text()},
                    {"instructions", in[run_stat::kInstructions].count()},
                    {"cycles", in[run_stat::kCycles].count()},
                    {"host_seconds", in[run_stat::kHostSeconds].real()},
                    {"mips", in[run_stat::kMips].real()},
                    {"exit_status", in[run_stat::kExitStatus].count()}};
  run["config"] = json::array();
  flatten(config.object(), "", run["config"]);
  run["clock_mhz"] = config["node"]["clock_mhz"].real();
  // The charts' axes, titled by what their statistics count (a core's stalls: its threads').
  run["axes"] = {{"ipc", perTitle(ts::kInstructions, ts::kCycles)},
                 {"stalls", "thread-" + unitTitle(ts::kStalls)},
                 {"miss_pct", "% of " + std::string(ms::kAccesses.name)}};
  run["cores"] = json::array();
  std::set<std::string> causes;
  const Field timing = in.stat(ns::kTiming);
  const std::vector<Field> cores = timing.stat(ts::kCores).elements();
  for (std::size_t i = 0; i < cores.size(); ++i) {
    const Field& c = cores[i];
    if (c[ts::kInstructions].count() == 0) continue;  // an idle core draws nothing
    const Field l1d = c.stat(ms::kL1d), l1i = c.stat(ms::kL1i), l1p = c.stat(ms::kL1p);
    json stalls = json::object();
    for (const auto& [cause, v] : c[ts::kStalls].members()) {
      if (cause == "idle") continue;  // no thread to issue: not a stall of the program's
      stalls[cause] = v.count();
      causes.insert(cause);
    }
    const u64 l1d_accesses = l1d[ms::kAccesses].count();
    run["cores"].push_back(
        {{"core", i},
         {"ipc", ipc(c, ts::kInstructions, ts::kCycles)},
         {"stalls", stalls},
         {"l1d_accesses", l1d_accesses},
         {"l1d_miss_pct", share(l1d[ms::kMisses].count(), l1d_accesses)},
         {"l1i_miss_pct", share(l1i[ms::kMisses].count(), l1i[ms::kAccesses].count())},
         {"l1p_hits", l1p[ms::kHits].count()},
         {"l1p_prefetches", l1p[ms::kPrefetches].count()},
         {"lmq_full_cycles", c[ts::kLmqFullCycles].count()},
         {"sq_full_cycles", c[ts::kSqFullCycles].count()}});
  }
  run["stall_causes"] = causes;
  run["l2"] = json::array();
  // The caches below the L1s: the crossbar's L2 slices, or each CPU's external cache (Fireplane).
  const Field l2_slices = timing.stat(ms::kL2Slices);
  const Field below = l2_slices.missing() ? timing.stat(ms::kEcaches) : l2_slices;
  const std::vector<Field> slices = below.elements();
  for (std::size_t i = 0; i < slices.size(); ++i) {
    const Field& l = slices[i];
    const u64 requests = l[ms::kSliceRequests].count(), misses = l[ms::kSliceMisses].count();
    run["l2"].push_back({{"slice", i},
                         {"requests", requests},
                         {"hits", l[ms::kSliceHits].count()},
                         {"misses", misses},
                         {"miss_pct", share(misses, requests)},
                         {"evictions", l[ms::kSliceEvictions].count()},
                         {"writebacks", l[ms::kSliceWritebacks].count()}});
  }
  run["regions"] = json::array();
  std::map<u64, std::string> names;
  for (const Field& r : in.stat(ns::kRegions).elements()) {
    const std::string region = r[ns::kRegionName].text();
    names[r[ns::kRegionId].count()] = region;
    run["regions"].push_back({{"name", region},
                              {"entries", r[ns::kRegionEntries].count()},
                              {"instructions", r[ns::kRegionInstructions].count()},
                              {"cycles", r[ns::kRegionCycles].count()},
                              {"ipc", ipc(r, ns::kRegionInstructions, ns::kRegionCycles)}});
  }
  run["region_spans"] = namedSpans(in.stat(ns::kRegionSpans), names);
  data_["runs"].push_back(run);
}

void Report::addStat(const json& stat, const std::string& name) {
  const Field in(stat, name);
  json st;
  st["file"] = name;
  st["command"] = commandLine(in);
  st["machine"] = in["machine"].text();
  st["unit"] = in["unit"].text();
  st["cycles"] = in["cycles_simulated"].count();
  st["seconds"] = in["seconds_simulated"].real();
  st["exit_status"] = in["exit_status"].count();
  st["clock_mhz"] = in["clock_mhz"].real();
  st["events"] = json::array();
  st["counts"] = json::object();
  st["running"] = json::object();
  for (const Field& e : in["events"].elements()) {
    const std::string event = e["event"].text();
    st["events"].push_back(event);
    st["counts"][event] = e["counter-value"].countOrText();
    st["running"][event] = e["pcnt-running"].real(100.0);
  }
  json intervals = {{"ms", json::array()}, {"cycles", json::array()}, {"counts", json::object()}};
  for (const Field& row : in["intervals"].elements()) {
    intervals["ms"].push_back(row["seconds"].real() * 1e3);
    intervals["cycles"].push_back(row["cycle"].count());
    for (const auto& [event, n] : row["counts"].members()) {
      intervals["counts"][event].push_back(n.countOrText());
    }
  }
  st["intervals"] = intervals;
  st["regions"] = json::array();
  std::map<u64, std::string> names;
  for (const auto& [id, values] : in["regions"].members()) {
    json counts = json::object();
    for (const auto& [event, n] : values.members()) {
      if (event != "name") counts[event] = n.countOrText();
    }
    u64 number = 0;
    const auto [end, error] = std::from_chars(id.data(), id.data() + id.size(), number);
    if (id.empty() || error != std::errc() || end != id.data() + id.size()) {
      fail(ExitCode::kIo, "'{}': {} is not a region's number", name, values.place());
    }
    names[number] = values["name"].text();
    st["regions"].push_back({{"name", values["name"].text()}, {"counts", counts}});
  }
  st["region_spans"] = namedSpans(in["region_spans"], names);
  data_["stats"].push_back(st);
}

void Report::addSweep(const json& points_json, const std::string& name) {
  const std::vector<Field> points = Field(points_json, name).elements();
  json sw;
  sw["file"] = name;
  sw["parameters"] = json::array();
  if (points.empty()) fail(ExitCode::kIo, "'{}': a sweep of no points", name);
  for (const auto& [key, v] : points[0]["config"].members()) sw["parameters"].push_back(key);
  std::set<std::string> regions;
  for (const Field& p : points) {
    for (const auto& [r, v] : p["regions"].members()) regions.insert(r);
  }
  sw["regions"] = regions;
  const Field first_regions = points[0]["regions"];
  sw["points"] = json::array();
  for (const Field& p : points) {
    std::string label;
    json config = json::object();
    for (const auto& [key, v] : p["config"].members()) {
      const std::string value = v.value().is_string() ? v.text() : jsonText(v.value());
      config[key] = v.value();
      label +=
          (label.empty() ? "" : ", ") + (sw["parameters"].size() == 1 ? value : key + "=" + value);
    }
    json region_cycles = json::object();
    json region_speedup = json::object();
    const Field rc = p["regions"];
    for (const std::string& r : regions) {
      const Field cycles = rc[r];
      if (cycles.missing()) continue;
      region_cycles[r] = cycles.count();
      const Field first = first_regions[r];
      if (!first.missing() && cycles.count() != 0) {
        region_speedup[r] =
            static_cast<double>(first.count()) / static_cast<double>(cycles.count());
      }
    }
    sw["points"].push_back({{"label", label},
                            {"config", config},
                            {"status", p["status"].integer()},
                            {"cycles", p["cycles"].count()},
                            {"instructions", p["instructions"].count()},
                            {"speedup", p["speedup"].real()},
                            {"regions", region_cycles},
                            {"region_speedup", region_speedup}});
  }
  data_["sweeps"].push_back(sw);
}

void Report::addProfileSamples(const std::string& csv, const std::string& name) {
  const auto rows = csvRecords(csv);
  if (rows.empty() || rows[0].size() < 3) fail(ExitCode::kIo, "'{}': no samples", name);
  const std::vector<std::string>& header = rows[0];
  std::map<u64, json> cores;
  // The sampling interval, which the file does not state: every sample ends at a multiple of it
  // (Simulation::sampleCore), so it is the greatest common divisor of their cycles.
  u64 interval = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (rows[i].size() != header.size()) {
      fail(ExitCode::kIo, "'{}', line {}: {} fields where the header has {}", name, i + 1,
           rows[i].size(), header.size());
    }
    const double core_number = number(rows[i][0], name);
    if (!(core_number >= 0 && core_number < 65536) || core_number != std::floor(core_number)) {
      fail(ExitCode::kIo, "'{}', line {}: '{}' is not a core's number", name, i + 1, rows[i][0]);
    }
    const auto core = static_cast<u64>(core_number);
    const double cycle = number(rows[i][1], name);
    if (!(cycle >= 0 && cycle < 0x1p64) || cycle != std::floor(cycle)) {
      fail(ExitCode::kIo, "'{}', line {}: '{}' is not a cycle", name, i + 1, rows[i][1]);
    }
    interval = std::gcd(interval, static_cast<u64>(cycle));
    json& c = cores[core];
    c["core"] = core;
    c["cycle"].push_back(static_cast<u64>(cycle));
    for (std::size_t k = 2; k < header.size(); ++k) {
      c["series"][header[k]].push_back(number(rows[i][k], name));
    }
  }
  json p = {{"file", name}, {"interval", interval}, {"cores", json::array()}};
  for (auto& [core, c] : cores) {
    bool active = false;  // a core that never issued draws nothing
    for (const auto& [column, values] : c["series"].items()) {
      if (column.ends_with("_ipc")) {
        for (const json& v : values) active = active || v.get<double>() > 0;
      }
    }
    if (active) p["cores"].push_back(withGaps(c, interval));
  }
  data_["profiles"].push_back(p);
}

void Report::addProfileFunctions(const std::string& csv, const std::string& name) {
  const auto rows = csvRecords(csv);
  if (rows.empty()) fail(ExitCode::kIo, "'{}': no functions", name);
  const std::vector<std::string>& header = rows[0];
  json f = {{"file", name}, {"causes", json::array()}, {"rows", json::array()}};
  for (std::size_t k = 3; k < header.size(); ++k) {
    if (header[k] != "stall_idle") f["causes"].push_back(header[k].substr(header[k].find('_') + 1));
  }
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (rows[i].size() != header.size()) {
      fail(ExitCode::kIo, "'{}', line {}: {} fields where the header has {}", name, i + 1,
           rows[i].size(), header.size());
    }
    json stalls = json::object();
    for (std::size_t k = 3; k < header.size(); ++k) {
      if (header[k] != "stall_idle") {
        stalls[header[k].substr(header[k].find('_') + 1)] = number(rows[i][k], name);
      }
    }
    f["rows"].push_back({{"name", rows[i][0]},
                         {"instructions", number(rows[i][1], name)},
                         {"cycles", number(rows[i][2], name)},
                         {"stalls", stalls}});
  }
  data_["functions"].push_back(f);
}

std::string Report::html(const std::string& title) const {
  const auto files = report_assets::files();
  const std::string_view page = asset(files, "report.html");
  std::string sources;  // every input's name, for the page's first line
  for (const auto& [kind, entries] : data_.items()) {
    for (const json& e : entries)
      sources += (sources.empty() ? "" : ", ") + e["file"].get<std::string>();
  }
  const std::map<std::string, std::string, std::less<>> values = {
      {"TITLE", htmlEscape(title)},
      {"SOURCES", htmlEscape(sources.empty() ? "nothing" : sources)},
      {"CSS", std::string(asset(files, "report.css"))},
      {"CHART_JS", std::string(asset(report_assets::chartJs(), "chart.min.js"))},
      {"DATA", scriptJson(data_)},
      {"RENDER_JS", std::string(asset(files, "render.js"))}};
  // One pass over the template, so that nothing substituted is read as a placeholder.
  std::string out;
  std::size_t at = 0;
  while (true) {
    const std::size_t open = page.find('@', at);
    if (open == std::string_view::npos) break;
    const std::size_t close = page.find('@', open + 1);
    if (close == std::string_view::npos) break;
    const auto it = values.find(page.substr(open + 1, close - open - 1));
    if (it == values.end()) {
      out += page.substr(at, open + 1 - at);
      at = open + 1;
      continue;
    }
    out += page.substr(at, open - at);
    out += it->second;
    at = close + 1;
  }
  out += page.substr(at);
  return out;
}

}  // namespace hpm::tools
