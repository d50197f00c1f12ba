#include "tools/hpmsim/report.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "base/embedded.h"
#include "base/error.h"
#include "base/types.h"

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
      out.push_back({path, value.is_string() ? value.get<std::string>() : value.dump()});
    }
  }
}

double share(u64 part, u64 whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

// j[key] when it is an object, else an empty one: a reference that outlives a range-for over
// its items() (j.value(key, {}) would be a temporary gone before the loop's body).
const json& object(const json& j, const char* key) {
  static const json kEmpty = json::object();
  return j.is_object() && j.contains(key) && j[key].is_object() ? j[key] : kEmpty;
}

u64 count(const json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<u64>() : 0;
}

// Instructions per cycle of a statistics group with both ("instructions", "cycles").
double ipc(const json& j) {
  const u64 cycles = count(j, "cycles");
  return cycles == 0 ? 0.0
                     : static_cast<double>(count(j, "instructions")) / static_cast<double>(cycles);
}

// A result's "command" (["./prog", "arg"]) as one line.
std::string commandLine(const json& result) {
  std::string line;
  for (const auto& word : result.value("command", json::array())) {
    line += (line.empty() ? "" : " ") + word.get<std::string>();
  }
  return line;
}

// A result's region_spans ({tid, id, begin, end}) with each region's name for its id.
json namedSpans(const json& result, const std::map<u64, std::string>& names) {
  json out = json::array();
  for (const json& s : result.value("region_spans", json::array())) {
    const auto name = names.find(count(s, "id"));
    out.push_back({{"tid", count(s, "tid")},
                   {"name", name != names.end() ? name->second : ""},
                   {"begin", count(s, "begin")},
                   {"end", count(s, "end")}});
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

// JSON inside a <script> element: "</" would end the element early.
std::string scriptJson(const json& j) {
  std::string text = j.dump();
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') out += '\\';
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
  const std::string text = readInput(path);
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
  json run;
  run["file"] = name;
  const json config = stats.value("config", json::object());
  run["summary"] = {
      {"command", commandLine(stats)},    {"machine", config.value("name", "")},
      {"mode", stats.value("mode", "")},  {"instructions", count(stats, "instructions")},
      {"cycles", count(stats, "cycles")}, {"host_seconds", stats.value("host_seconds", 0.0)},
      {"mips", stats.value("mips", 0.0)}, {"exit_status", count(stats, "exit_status")}};
  run["config"] = json::array();
  flatten(config, "", run["config"]);
  run["clock_mhz"] = config.contains("node") ? config["node"].value("clock_mhz", 0.0) : 0.0;
  run["cores"] = json::array();
  std::set<std::string> causes;
  const json timing = stats.value("timing", json::object());
  const json cores = timing.value("cores", json::array());
  for (std::size_t i = 0; i < cores.size(); ++i) {
    const json& c = cores[i];
    if (count(c, "instructions") == 0) continue;  // an idle core draws nothing
    const json l1d = c.value("l1d", json::object());
    const json l1i = c.value("l1i", json::object());
    const json l1p = c.value("l1p", json::object());
    json stalls = c.value("stalls", json::object());
    stalls.erase("idle");  // no thread to issue: not a stall of the program's
    for (const auto& [cause, v] : stalls.items()) causes.insert(cause);
    run["cores"].push_back({{"core", i},
                            {"ipc", ipc(c)},
                            {"stalls", stalls},
                            {"l1d_accesses", count(l1d, "accesses")},
                            {"l1d_miss_pct", share(count(l1d, "misses"), count(l1d, "accesses"))},
                            {"l1i_miss_pct", share(count(l1i, "misses"), count(l1i, "accesses"))},
                            {"l1p_hits", count(l1p, "hits")},
                            {"l1p_prefetches", count(l1p, "prefetches")},
                            {"lmq_full_cycles", count(c, "lmq_full_cycles")},
                            {"sq_full_cycles", count(c, "sq_full_cycles")}});
  }
  run["stall_causes"] = causes;
  run["l2"] = json::array();
  const json slices = timing.value("l2_slices", json::array());
  for (std::size_t i = 0; i < slices.size(); ++i) {
    const json& l = slices[i];
    run["l2"].push_back({{"slice", i},
                         {"requests", count(l, "requests")},
                         {"hits", count(l, "hits")},
                         {"misses", count(l, "misses")},
                         {"miss_pct", share(count(l, "misses"), count(l, "requests"))},
                         {"evictions", count(l, "evictions")},
                         {"writebacks", count(l, "writebacks")}});
  }
  run["regions"] = json::array();
  std::map<u64, std::string> names;
  for (const json& r : stats.value("regions", json::array())) {
    names[count(r, "id")] = r.value("name", "");
    run["regions"].push_back({{"name", r.value("name", "")},
                              {"entries", count(r, "entries")},
                              {"instructions", count(r, "instructions")},
                              {"cycles", count(r, "cycles")},
                              {"ipc", ipc(r)}});
  }
  run["region_spans"] = namedSpans(stats, names);
  data_["runs"].push_back(run);
}

void Report::addStat(const json& stat, const std::string& name) {
  json st;
  st["file"] = name;
  st["command"] = commandLine(stat);
  st["machine"] = stat.value("machine", "");
  st["unit"] = stat.value("unit", "");
  st["cycles"] = count(stat, "cycles_simulated");
  st["seconds"] = stat.value("seconds_simulated", 0.0);
  st["exit_status"] = count(stat, "exit_status");
  st["clock_mhz"] = stat.value("clock_mhz", 0.0);
  st["events"] = json::array();
  st["counts"] = json::object();
  st["running"] = json::object();
  for (const json& e : stat.value("events", json::array())) {
    const std::string event = e.value("event", "");
    st["events"].push_back(event);
    st["counts"][event] = e.value("counter-value", json());
    st["running"][event] = e.value("pcnt-running", 100.0);
  }
  json intervals = {{"ms", json::array()}, {"cycles", json::array()}, {"counts", json::object()}};
  for (const json& row : stat.value("intervals", json::array())) {
    intervals["ms"].push_back(row.value("seconds", 0.0) * 1e3);
    intervals["cycles"].push_back(count(row, "cycle"));
    for (const auto& [event, n] : object(row, "counts").items()) {
      intervals["counts"][event].push_back(n);
    }
  }
  st["intervals"] = intervals;
  st["regions"] = json::array();
  std::map<u64, std::string> names;
  for (const auto& [id, values] : object(stat, "regions").items()) {
    json counts = values;
    counts.erase("name");
    names[std::stoull(id)] = values.value("name", "");
    st["regions"].push_back({{"name", values.value("name", "")}, {"counts", counts}});
  }
  st["region_spans"] = namedSpans(stat, names);
  data_["stats"].push_back(st);
}

void Report::addSweep(const json& points, const std::string& name) {
  json sw;
  sw["file"] = name;
  sw["parameters"] = json::array();
  for (const auto& [key, v] : object(points[0], "config").items()) {
    sw["parameters"].push_back(key);
  }
  std::set<std::string> regions;
  for (const json& p : points) {
    for (const auto& [r, v] : object(p, "regions").items()) regions.insert(r);
  }
  sw["regions"] = regions;
  const json first_regions = points[0].value("regions", json::object());
  sw["points"] = json::array();
  for (const json& p : points) {
    std::string label;
    for (const auto& [key, v] : object(p, "config").items()) {
      const std::string value = v.is_string() ? v.get<std::string>() : v.dump();
      label +=
          (label.empty() ? "" : ", ") + (sw["parameters"].size() == 1 ? value : key + "=" + value);
    }
    json region_speedup = json::object();
    const json rc = p.value("regions", json::object());
    for (const std::string& r : regions) {
      if (rc.contains(r) && first_regions.contains(r) && rc[r].get<u64>() != 0) {
        region_speedup[r] = first_regions[r].get<double>() / rc[r].get<double>();
      }
    }
    sw["points"].push_back({{"label", label},
                            {"config", p.value("config", json::object())},
                            {"status", count(p, "status")},
                            {"cycles", count(p, "cycles")},
                            {"instructions", count(p, "instructions")},
                            {"speedup", p.value("speedup", 0.0)},
                            {"regions", rc},
                            {"region_speedup", region_speedup}});
  }
  data_["sweeps"].push_back(sw);
}

void Report::addProfileSamples(const std::string& csv, const std::string& name) {
  const auto rows = csvRecords(csv);
  if (rows.empty() || rows[0].size() < 3) fail(ExitCode::kIo, "'{}': no samples", name);
  const std::vector<std::string>& header = rows[0];
  std::map<u64, json> cores;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (rows[i].size() != header.size()) {
      fail(ExitCode::kIo, "'{}', line {}: {} fields where the header has {}", name, i + 1,
           rows[i].size(), header.size());
    }
    const u64 core = static_cast<u64>(number(rows[i][0], name));
    json& c = cores[core];
    c["core"] = core;
    c["cycle"].push_back(number(rows[i][1], name));
    for (std::size_t k = 2; k < header.size(); ++k) {
      c["series"][header[k]].push_back(number(rows[i][k], name));
    }
  }
  json p = {{"file", name}, {"cores", json::array()}};
  for (auto& [core, c] : cores) {
    bool active = false;  // a core that never issued draws nothing
    for (const auto& [column, values] : c["series"].items()) {
      if (column.ends_with("_ipc")) {
        for (const json& v : values) active = active || v.get<double>() > 0;
      }
    }
    if (active) p["cores"].push_back(c);
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
