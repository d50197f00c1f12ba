// hpmsim report's reading of result files (tools/hpmsim/report.h), without a simulation: every
// field of the wrong type is refused naming its place (never an internal error), and no string
// can break the page's script. Test names state the rule they check.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/json_text.h"
#include "tools/hpmsim/report.h"

namespace hpm::tools {
namespace {

using nlohmann::json;

// A run's statistics with every field the report reads (as `run --stats-json` writes them).
json runStats() {
  return json::parse(R"({
    "command": ["./amg", "12"], "mode": "timing", "instructions": 1000, "cycles": 2000,
    "host_seconds": 0.5, "mips": 2.0, "exit_status": 0, "kernel": {},
    "config": {"name": "bgq", "node": {"clock_mhz": 1600.0, "cores": 2}},
    "timing": {
      "cores": [{"instructions": 600, "cycles": 1200, "stalls": {"idle": 5, "raw": 7},
                 "l1d": {"accesses": 10, "misses": 2}, "l1i": {"accesses": 8, "misses": 1},
                 "l1p": {"hits": 3, "prefetches": 4}, "lmq_full_cycles": 9,
                 "sq_full_cycles": 11}],
      "l2_slices": [{"requests": 5, "hits": 4, "misses": 1, "evictions": 0, "writebacks": 0}]},
    "regions": [{"id": 1, "name": "relax", "entries": 2, "instructions": 100, "cycles": 150}],
    "region_spans": [{"tid": 1, "id": 1, "begin": 10, "end": 90}]})");
}

// stat --json with intervals and regions.
json statResult() {
  return json::parse(R"({
    "command": ["./amg"], "machine": "bgq", "unit": "upcq", "cycles_simulated": 2000,
    "seconds_simulated": 0.001, "exit_status": 0, "clock_mhz": 1600.0,
    "events": [{"event": "instructions", "counter-value": 1000, "pcnt-running": 100.0},
               {"event": "cycles", "counter-value": "<not counted>", "pcnt-running": 0.0}],
    "counts": {},
    "intervals": [{"cycle": 1000, "seconds": 0.0005, "counts": {"instructions": 400}}],
    "regions": {"1": {"name": "relax", "instructions": 100}},
    "region_spans": [{"tid": 1, "id": 1, "begin": 10, "end": 90}]})");
}

// sweep --json of two points.
json sweepPoints() {
  return json::parse(R"([
    {"config": {"l2.size_kib": "8192"}, "status": 0, "cycles": 2000, "instructions": 1000,
     "speedup": 1.0, "regions": {"relax": 150}},
    {"config": {"l2.size_kib": "32768"}, "status": -1, "cycles": 1000, "instructions": 1000,
     "speedup": 2.0, "regions": {"relax": 100}}])");
}

// The report of `text` (file "in.json"), its page and its trace made: "" when it is read, the
// error's message when it is refused (which must be an I/O error: exit status 6).
std::string outcome(const std::string& text) {
  try {
    Report report;
    report.addText(text, "in.json");
    (void)report.html("t");
    (void)report.chromeTrace();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kIo) << e.what();
    return e.what();
  }
  return "";
}

// Every place in `j` (JSON pointers), parents before their children.
void places(const json& j, const json::json_pointer& at, std::vector<json::json_pointer>& out) {
  out.push_back(at);
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) places(value, at / key, out);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) places(j[i], at / i, out);
  }
}

// A value of every JSON type but that of `like`.
std::vector<json> otherTypes(const json& like) {
  std::vector<json> out;
  for (const json& v : {json("text"), json(-3), json(2.5), json(true), json::array({1}),
                        json::object({{"k", 1}})}) {
    if (v.type() != like.type()) out.push_back(v);
  }
  return out;
}

// Each field of each kind of result, replaced by a value of each other type: the report is made
// (the field is one it does not read, or any value does) or refused as an I/O error naming the
// field's place; never an internal error. (Before, 52 of 510 such inputs were.)
TEST(ReportInput, FieldsOfTheWrongTypeAreRefusedNamingTheirPlace) {
  int mutated = 0, refused = 0;
  for (const json& result : {runStats(), statResult(), sweepPoints()}) {
    ASSERT_EQ(outcome(result.dump()), "");
    std::vector<json::json_pointer> all;
    places(result, json::json_pointer(), all);
    for (const json::json_pointer& place : all) {
      if (place.empty()) continue;  // (the top level decides the kind of result)
      for (const json& value : otherTypes(result.at(place))) {
        json changed = result;
        changed.at(place) = value;
        ++mutated;
        std::string message;
        try {
          message = outcome(changed.dump());
        } catch (const std::exception& e) {
          ADD_FAILURE() << place.to_string() << " = " << value.dump() << ": " << e.what();
          continue;
        }
        if (message.empty()) continue;
        ++refused;
        // The message names a place at or above the changed one (a parent that no longer looks
        // like a result of its kind is refused as a whole).
        const bool names_place =
            message.find("'in.json': " + place.to_string()) != std::string::npos ||
            message.find("'in.json' is not a result") != std::string::npos;
        bool names_parent = false;
        for (json::json_pointer p = place; !p.empty(); p = p.parent_pointer()) {
          names_parent = names_parent ||
                         message.find("'in.json': " + p.to_string() + " is ") != std::string::npos;
        }
        EXPECT_TRUE(names_place || names_parent)
            << place.to_string() << " = " << value.dump() << ": " << message;
      }
    }
  }
  EXPECT_GT(mutated, 400);
  EXPECT_GT(refused, 100);
}

// run and stat give the report their results as they made them, in memory, where a count may
// be a signed integer (an int exit status): a count is any number that is not negative.
TEST(ReportInput, CountsAreAnyNumberThatIsNotNegative) {
  json stat = statResult();
  stat["exit_status"] = int{3};  // (number_integer, not number_unsigned as parsed text gives)
  stat["cycles_simulated"] = 2000.0;
  Report report;
  report.addStat(stat, "in memory");
  EXPECT_EQ(report.data()["stats"][0]["exit_status"], 3);
  EXPECT_EQ(report.data()["stats"][0]["cycles"], 2000);
  stat["exit_status"] = int{-1};
  EXPECT_THROW(report.addStat(stat, "in memory"), Error);
}

TEST(ReportInput, AWrongTypeIsReportedWithTheFieldsPlaceAndBothTypes) {
  json run = runStats();
  run["timing"]["cores"][0]["l1d"]["misses"] = "two";
  EXPECT_EQ(outcome(run.dump()),
            "'in.json': /timing/cores/0/l1d/misses is a string where a count (a number, not "
            "negative) belongs");
  run = runStats();
  run["cycles"] = 1e300;  // (no u64 holds it)
  EXPECT_EQ(outcome(run.dump()),
            "'in.json': /cycles is a number where a count (a number, not negative) belongs");
  json stat = statResult();
  stat["regions"]["x"] = stat["regions"]["1"];
  EXPECT_EQ(outcome(stat.dump()), "'in.json': /regions/x is not a region's number");
}

// The page's data is JSON inside a <script> element: with every '<' written \u003c, no string
// ("</script>", "<!--<script>", which left the page blank) can end or change the element.
TEST(ReportInput, AnyStringIsSafeInsideThePagesScript) {
  const std::string hostile = "<!--<script></script><b>";
  json run = runStats();
  run["command"] = {hostile};
  run["regions"][0]["name"] = hostile;
  Report report;
  report.addRun(run, hostile);
  const std::string page = report.html("t");
  const std::size_t open = page.find("id=\"report-data\"");
  ASSERT_NE(open, std::string::npos);
  const std::size_t start = page.find('>', open) + 1;
  const std::size_t end = page.find("</script>", start);
  ASSERT_NE(end, std::string::npos);
  const std::string data = page.substr(start, end - start);
  EXPECT_EQ(data.find('<'), std::string::npos) << data;
  const json back = json::parse(data);
  EXPECT_EQ(back["runs"][0]["summary"]["command"], hostile);
  EXPECT_EQ(back["runs"][0]["regions"][0]["name"], hostile);
}

// Bytes that are not UTF-8 (a function's name in a profile, a file's name) are written as
// U+FFFD in the page and the trace, as in every JSON hpmsim writes.
TEST(ReportInput, BytesThatAreNotUtf8AreWrittenAsTheReplacementCharacter) {
  Report report;
  report.addText("function,instructions,cycles,stall_raw\nf\xff,10,20,3\n", "p\xfe-functions.csv");
  const std::string page = report.html("t");
  EXPECT_NE(page.find("f\xef\xbf\xbd"), std::string::npos);
  EXPECT_NE(page.find("p\xef\xbf\xbd-functions.csv"), std::string::npos);
  EXPECT_NO_THROW((void)jsonText(report.chromeTrace()));
}

// A profile's samples end at multiples of its interval (100 cycles here, the greatest common
// divisor of the cycles: the file does not state it). Where a core did not run (no samples at 300
// and 400), its data carries one gap, a null in every series, stamped one interval after the
// last sample before it; the page draws no line across it.
TEST(ReportInput, AProfileCarriesAGapWhereACoreDidNotRun) {
  Report report;
  report.addText(
      "core,cycle,xu0_ipc,sq_full_share\n0,100,1.0,0.1\n1,100,0.5,0\n0,200,0.5,0.2\n"
      "1,200,0.5,0\n1,300,0.5,0\n1,400,0.5,0\n0,500,2.0,0.3\n1,500,0.5,0\n",
      "p-samples.csv");
  const json& p = report.data()["profiles"][0];
  EXPECT_EQ(p["interval"], 100);
  ASSERT_EQ(p["cores"].size(), 2u);
  const json& idle = p["cores"][0];
  EXPECT_EQ(idle["cycle"], json::parse("[100, 200, 300, 500]"));
  EXPECT_EQ(idle["series"]["xu0_ipc"], json::parse("[1.0, 0.5, null, 2.0]"));
  EXPECT_EQ(idle["series"]["sq_full_share"], json::parse("[0.1, 0.2, null, 0.3]"));
  const json& busy = p["cores"][1];
  EXPECT_EQ(busy["cycle"], json::parse("[100, 200, 300, 400, 500]"));
  EXPECT_EQ(busy["series"]["xu0_ipc"], json::parse("[0.5, 0.5, 0.5, 0.5, 0.5]"));
}

// The samples of one counter track, in order: [ts, the value of args' `key`].
std::vector<std::pair<double, json>> track(const json& trace, const std::string& name,
                                           const std::string& key) {
  std::vector<std::pair<double, json>> out;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "C" && e["name"] == name)
      out.emplace_back(e["ts"].get<double>(), e["args"][key]);
  }
  return out;
}

// A counter track holds each value from its sample to the next, so each interval's value is
// stamped at the interval's start (the first at 0), and a last sample of 0 at the last interval's
// end closes it: stamped at their ends, every value showed one interval late and the last not at
// all.
TEST(ReportInput, ATraceCounterSampleIsStampedAtItsIntervalsStartAndTheLastIntervalEnds) {
  json stat = statResult();
  stat["intervals"] = json::parse(R"([
    {"cycle": 800, "seconds": 0.0005, "counts": {"instructions": 400}},
    {"cycle": 1600, "seconds": 0.001, "counts": {"instructions": 300}},
    {"cycle": 1920, "seconds": 0.0012, "counts": {"instructions": 100}}])");
  Report report;
  report.addStat(stat, "stat.json");
  const auto samples = track(report.chromeTrace(), "instructions", "count");
  ASSERT_EQ(samples.size(), 4u);
  const double starts[] = {0.0, 0.0005e6, 0.001e6, 0.0012e6};  // microseconds
  const int counts[] = {400, 300, 100, 0};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(samples[i].first, starts[i]) << i;
    EXPECT_EQ(samples[i].second, counts[i]) << i;
  }
}

// The same for a profile's samples (each the interval ending at its cycle), and a core that did
// not run issued nothing: its tracks read 0 from the end of the last interval it ran to the
// start of the next.
TEST(ReportInput,
     AProfileTraceSampleIsStampedAtItsIntervalsStartAndReadsZeroWhereTheCoreDidNotRun) {
  Report report;
  report.addText("core,cycle,xu0_ipc,sq_full_share\n0,100,1.0,0.1\n0,200,0.5,0.2\n0,500,2.0,0.3\n",
                 "p-samples.csv");
  const json trace = report.chromeTrace();  // (no clock: one microsecond per cycle)
  const auto ipc = track(trace, "core 0 IPC", "xu0_ipc");
  const auto full = track(trace, "core 0 queues full %", "sq_full_share");
  ASSERT_EQ(ipc.size(), 5u);
  ASSERT_EQ(full.size(), 5u);
  const double starts[] = {0, 100, 200, 400, 500};
  const double ipcs[] = {1.0, 0.5, 0.0, 2.0, 0.0};
  const double shares[] = {10.0, 20.0, 0.0, 30.0, 0.0};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_DOUBLE_EQ(ipc[i].first, starts[i]) << i;
    EXPECT_DOUBLE_EQ(ipc[i].second.get<double>(), ipcs[i]) << i;
    EXPECT_DOUBLE_EQ(full[i].first, starts[i]) << i;
    EXPECT_DOUBLE_EQ(full[i].second.get<double>(), shares[i]) << i;
  }
}

}  // namespace
}  // namespace hpm::tools
