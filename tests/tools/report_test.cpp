// hpmsim report (and run/stat --report, --trace): every kind of report opened in a real browser
// (Debian's headless Chromium), which must run its script without an error and draw every
// chart's data; the figures on the page are the result files' own; the Chrome trace has a slice
// per region stay and a counter sample per interval; on results made by hand, the drawing rules
// (lines stop where a core did not run, one colour per stall cause, every axis titled, one time
// axis for a stat's charts) hold in the browser. Test names state the rule they check.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/support/process.h"

namespace {

namespace fs = std::filesystem;
using hpm::test::RunResult;
using hpm::test::TempDir;
using nlohmann::json;
using u64 = std::uint64_t;

const std::string kHpmsim = HPM_TEST_HPMSIM;
const std::string kChromium = HPM_TEST_CHROMIUM;
const fs::path kGuestBinDir = HPM_TEST_GUEST_BIN_DIR;
constexpr std::chrono::seconds kTimeout{300};

RunResult run(const std::vector<std::string>& argv, const fs::path& cwd) {
  return hpm::test::runProcess(argv, {"PATH=/usr/bin:/bin", "HOME=/tmp", "LANG=C"}, "", cwd,
                               kTimeout);
}

RunResult hpmsim(std::vector<std::string> args, const fs::path& cwd) {
  args.insert(args.begin(), kHpmsim);
  return run(args, cwd);
}

using hpm::test::readFile;

// The text of the element with id `id` in `html` (the page's JSON data, or its status).
std::string elementText(const std::string& html, const std::string& id) {
  const std::size_t open = html.find("id=\"" + id + "\"");
  if (open == std::string::npos) return "";
  const std::size_t start = html.find('>', open) + 1;
  return html.substr(start, html.find('<', start) - start);
}

// The page's status after the browser ran it: {errors, charts: [{id, datasets, points}]}.
json browserStatus(const fs::path& page, const fs::path& dir) {
  const RunResult r =
      run({kChromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--user-data-dir=" + (dir / "chromium-profile").string(), "--dump-dom",
           "file://" + page.string()},
          dir);
  EXPECT_TRUE(r.exited() && r.exit_code() == 0) << r.describe() << r.err.substr(0, 2000);
  std::string text = elementText(r.out, "report-status");
  for (std::size_t at = 0; (at = text.find("&quot;", at)) != std::string::npos;) {
    text.replace(at, 6, "\"");
  }
  const json status = json::parse(text, nullptr, false);
  EXPECT_FALSE(status.is_discarded()) << "no status on the page: " << r.out.substr(0, 2000);
  return status;
}

// Every chart of `status` drew every dataset's points; `expected` ids are among them.
void expectChartsDrawn(const json& status, const std::set<std::string>& expected) {
  ASSERT_TRUE(status.is_object());
  EXPECT_EQ(status["errors"], json::array()) << status["errors"].dump();
  std::set<std::string> ids;
  for (const json& c : status["charts"]) {
    ids.insert(c["id"].get<std::string>());
    EXPECT_GT(c["datasets"].get<u64>(), 0u) << c.dump();
    for (const json& n : c["points"]) EXPECT_GT(n.get<u64>(), 0u) << c.dump();
  }
  for (const std::string& id : expected) EXPECT_TRUE(ids.contains(id)) << id << " not drawn";
}

json pageData(const fs::path& page) {
  return json::parse(elementText(readFile(page), "report-data"));
}

struct Results {
  TempDir dir;
  fs::path run_json, samples, functions, stat_json, regions_json, sweep_json;
};

// A profile run, a stat run with intervals and regions, and a two-point sweep of amg (OpenMP,
// regions matvec, relax, axpy), as files; made once for the whole suite.
const Results& results() {
  static Results* r = [] {
    auto* made = new Results;
    const fs::path d = made->dir.path();
    fs::copy_file(kGuestBinDir / "amg", d / "amg");
    made->run_json = d / "run.json";
    made->samples = d / "p-samples.csv";
    made->functions = d / "p-functions.csv";
    made->stat_json = d / "stat.json";
    made->regions_json = d / "regions.json";
    made->sweep_json = d / "sweep.json";
    RunResult a =
        hpmsim({"run", "--env-clear", "--mode", "profile", "--profile-interval", "50000",
                "--profile-prefix", "p", "--stats-json", "run.json", "--", "./amg", "12", "1"},
               d);
    EXPECT_EQ(a.status(), 0) << a.err;
    // Intervals and regions in two runs (stat refuses them together).
    RunResult b = hpmsim({"stat", "--env-clear", "--json", "-o", "stat.json", "-I", "0.5", "-e",
                          "instructions,cycles,cache-misses", "--", "./amg", "12", "1"},
                         d);
    EXPECT_EQ(b.status(), 0) << b.err;
    b = hpmsim({"stat", "--env-clear", "--json", "-o", "regions.json", "--per-region", "-e",
                "instructions,cycles,cache-misses", "--", "./amg", "12", "1"},
               d);
    EXPECT_EQ(b.status(), 0) << b.err;
    RunResult c = hpmsim(
        {"sweep", "--json", "--set", "core.store_queue_entries=2,16", "--", "./amg", "12", "1"}, d);
    EXPECT_EQ(c.status(), 0) << c.err;
    std::ofstream(made->sweep_json) << c.out;
    return made;
  }();
  return *r;
}

TEST(Report, ARunWithItsProfileOpensInABrowserAndDrawsEveryChart) {
  const Results& r = results();
  TempDir out;
  const fs::path page = out.path() / "run.html";
  const RunResult made = hpmsim({"report", r.run_json.string(), r.samples.string(),
                                 r.functions.string(), "-o", page.string()},
                                out.path());
  ASSERT_EQ(made.status(), 0) << made.err;
  expectChartsDrawn(browserStatus(page, out.path()),
                    {"run0-ipc", "run0-stalls", "run0-l1d", "profile0-core0", "functions0-stalls"});
}

TEST(Report, StatIntervalsAndASweepOpenInABrowserAndDrawEveryChart) {
  const Results& r = results();
  TempDir out;
  const fs::path stat_page = out.path() / "stat.html";
  ASSERT_EQ(
      hpmsim({"report", r.stat_json.string(), r.regions_json.string(), "-o", stat_page.string()},
             out.path())
          .status(),
      0);
  expectChartsDrawn(browserStatus(stat_page, out.path()), {"stat0-0", "stat0-1", "stat0-2"});
  const fs::path sweep_page = out.path() / "sweep.html";
  ASSERT_EQ(
      hpmsim({"report", r.sweep_json.string(), "-o", sweep_page.string()}, out.path()).status(), 0);
  expectChartsDrawn(browserStatus(sweep_page, out.path()), {"sweep0-speedup", "sweep0-regions"});
}

TEST(Report, RunAndStatWriteTheirReportsDirectly) {
  const Results& r = results();
  TempDir out;
  fs::copy_file(r.dir.path() / "amg", out.path() / "amg");
  ASSERT_EQ(hpmsim({"run", "--env-clear", "--mode", "profile", "--profile-interval", "50000",
                    "--report", "run.html", "--", "./amg", "12", "1"},
                   out.path())
                .status(),
            0);
  expectChartsDrawn(browserStatus(out.path() / "run.html", out.path()),
                    {"run0-ipc", "profile0-core0", "functions0-stalls"});
  ASSERT_EQ(hpmsim({"stat", "--env-clear", "-I", "0.5", "--report", "stat.html", "--", "./amg",
                    "12", "1"},
                   out.path())
                .status(),
            0);
  expectChartsDrawn(browserStatus(out.path() / "stat.html", out.path()), {"stat0-0"});
}

// A multiplexed stat (more PUnit events than its 24 counters) shows each scaled count with the
// share of the run its set counted, as perf's column.
TEST(Report, AMultiplexedStatShowsEachCountsRunningShare) {
  const Results& r = results();
  TempDir out;
  fs::copy_file(r.dir.path() / "amg", out.path() / "amg");
  // (instructions, cycles as each thread's PEVT_CYCLES@t<t>, and 20 core events: 25 counters.)
  const std::string events =
      "instructions,cycles,PEVT_AXU_INSTR_COMMIT,PEVT_AXU_CR_COMMIT,PEVT_AXU_FP_DS_ACTIVE,"
      "PEVT_IU_IL1_MISS,PEVT_IU_ICACHE_FETCH,PEVT_IU_FXU_ISSUE_COUNT,PEVT_IU_TOT_ISSUE_COUNT,"
      "PEVT_XU_BR_COMMIT_CORE,PEVT_XU_BR_MISPRED_COMMIT_CORE,PEVT_XU_PPC_COMMIT,"
      "PEVT_XU_COMMIT,PEVT_XU_BR_COMMIT,PEVT_XU_BR_MISPRED_COMMIT,PEVT_XU_BR_TAKEN_COMMIT,"
      "PEVT_LSU_COMMIT_STS,PEVT_LSU_COMMIT_ST_MISSES,PEVT_LSU_COMMIT_LD_MISSES,"
      "PEVT_LSU_COMMIT_CACHEABLE_LDS,PEVT_LSU_COMMIT_AXU_LDS,PEVT_LSU_COMMIT_AXU_STS";
  ASSERT_EQ(hpmsim({"stat", "--env-clear", "--mux-interval-ms", "0.2", "--report", "mux.html", "-e",
                    events, "--", "./amg", "12", "1"},
                   out.path())
                .status(),
            0);
  const json status = browserStatus(out.path() / "mux.html", out.path());
  EXPECT_EQ(status["errors"], json::array()) << status.dump();
  const json data = pageData(out.path() / "mux.html");
  const double running = data["stats"][0]["running"]["instructions"].get<double>();
  EXPECT_GT(running, 0.0);
  EXPECT_LT(running, 100.0);
}

// The page's data are the files' figures, not recomputed ones.
TEST(Report, ThePagesFiguresAreTheResultFilesOwn) {
  const Results& r = results();
  TempDir out;
  const fs::path page = out.path() / "all.html";
  ASSERT_EQ(hpmsim({"report", r.run_json.string(), r.stat_json.string(), r.sweep_json.string(),
                    "-o", page.string()},
                   out.path())
                .status(),
            0);
  const json data = pageData(page);
  const json run = json::parse(readFile(r.run_json));
  EXPECT_EQ(data["runs"][0]["summary"]["instructions"], run["instructions"]);
  EXPECT_EQ(data["runs"][0]["summary"]["cycles"], run["cycles"]);
  EXPECT_EQ(data["runs"][0]["regions"].size(), run["regions"].size());
  const json stat = json::parse(readFile(r.stat_json));
  EXPECT_EQ(data["stats"][0]["counts"]["instructions"], stat["counts"]["instructions"]);
  u64 sum = 0;
  for (const json& n : data["stats"][0]["intervals"]["counts"]["instructions"]) sum += n.get<u64>();
  EXPECT_EQ(sum, stat["counts"]["instructions"].get<u64>()) << "the intervals add up to the total";
  const json sweep = json::parse(readFile(r.sweep_json));
  ASSERT_EQ(data["sweeps"][0]["points"].size(), sweep.size());
  for (std::size_t i = 0; i < sweep.size(); ++i) {
    EXPECT_EQ(data["sweeps"][0]["points"][i]["cycles"], sweep[i]["cycles"]);
    EXPECT_EQ(data["sweeps"][0]["points"][i]["speedup"], sweep[i]["speedup"]);
  }
}

// (And a sample of 0 where the last interval ends, which closes each counter track.)
TEST(Report, TheChromeTraceHasASliceForEveryRegionStayAndASampleForEveryIntervalAndItsEnd) {
  const Results& r = results();
  TempDir out;
  const fs::path trace = out.path() / "trace.json";
  ASSERT_EQ(hpmsim({"report", r.stat_json.string(), r.regions_json.string(), "-o",
                    (out.path() / "r.html").string(), "--trace", trace.string()},
                   out.path())
                .status(),
            0);
  const json t = json::parse(readFile(trace));
  const json stat = json::parse(readFile(r.stat_json));
  const json regions = json::parse(readFile(r.regions_json));
  const double mhz = stat["clock_mhz"].get<double>();
  std::vector<json> slices;
  std::map<std::string, u64> samples;
  for (const json& e : t["traceEvents"]) {
    if (e["ph"] == "X") slices.push_back(e);
    if (e["ph"] == "C") ++samples[e["name"].get<std::string>()];
  }
  ASSERT_EQ(slices.size(), regions["region_spans"].size());
  ASSERT_FALSE(slices.empty());
  const json& first = regions["region_spans"][0];
  EXPECT_DOUBLE_EQ(slices[0]["ts"].get<double>(), first["begin"].get<double>() / mhz);
  EXPECT_EQ(slices[0]["tid"], first["tid"]);
  for (const char* event : {"instructions", "cycles", "cache-misses"}) {
    EXPECT_EQ(samples[event], stat["intervals"].size() + 1) << event;
  }
}

// Results made by hand (no simulation) that hold what the drawing rules below are about: core 0
// of the profile did not run from cycle 200 to 400 (its samples end at multiples of the 100-cycle
// interval, and 300 and 400 are missing); the run's stall causes (in name order) and the
// functions' (in the model's order) are in different orders; the stat's three events differ in
// magnitude by eight digits, so their charts' value axes differ in width.
fs::path handMadePage(const fs::path& dir) {
  std::ofstream(dir / "run.json") << R"({
    "command": ["./prog"], "mode": "profile", "instructions": 1000, "cycles": 2000,
    "host_seconds": 0.5, "mips": 2.0, "exit_status": 0, "kernel": {},
    "config": {"name": "bgq", "node": {"clock_mhz": 1600.0}},
    "timing": {"cores": [
      {"instructions": 600, "cycles": 1200,
       "stalls": {"dependency": 50, "pipe_busy": 20, "icache_miss": 5, "sq_full": 3, "idle": 9}},
      {"instructions": 400, "cycles": 1200,
       "stalls": {"dependency": 30, "pipe_busy": 10, "icache_miss": 8, "sq_full": 1, "idle": 2}}]}})";
  std::ofstream(dir / "p-samples.csv")
      << "core,cycle,xu0_ipc,axu0_ipc,lmq_full_share,sq_full_share\n"
         "0,100,1.0,0.5,0.1,0.0\n1,100,0.8,0.2,0.0,0.0\n0,200,0.9,0.4,0.1,0.0\n"
         "1,200,0.7,0.3,0.0,0.0\n1,300,0.6,0.1,0.0,0.0\n1,400,0.7,0.2,0.0,0.0\n"
         "0,500,1.1,0.6,0.2,0.0\n1,500,0.8,0.3,0.0,0.0\n0,600,1.2,0.5,0.1,0.0\n"
         "1,600,0.9,0.2,0.0,0.0\n";
  std::ofstream(dir / "p-functions.csv")
      << "function,instructions,cycles,stall_dependency,stall_pipe_busy,stall_ibuffer_empty,"
         "stall_icache_miss,stall_sq_full,stall_idle\n"
         "\"main\",600,1500,60,25,4,10,3,7\n\"relax\",400,500,20,5,1,3,1,4\n";
  std::ofstream(dir / "stat.json") << R"({
    "command": ["./prog"], "machine": "bgq", "unit": "upcq", "cycles_simulated": 2768,
    "seconds_simulated": 0.00173, "exit_status": 0, "clock_mhz": 1.6,
    "events": [{"event": "instructions", "counter-value": 3200000000},
               {"event": "cycles", "counter-value": 2768},
               {"event": "cache-misses", "counter-value": 12}],
    "counts": {},
    "intervals": [
      {"cycle": 800, "seconds": 0.0005,
       "counts": {"instructions": 900000000, "cycles": 800, "cache-misses": 3}},
      {"cycle": 1600, "seconds": 0.001,
       "counts": {"instructions": 1000000000, "cycles": 800, "cache-misses": 5}},
      {"cycle": 2400, "seconds": 0.0015,
       "counts": {"instructions": 1100000000, "cycles": 800, "cache-misses": 4}},
      {"cycle": 2768, "seconds": 0.00173,
       "counts": {"instructions": 200000000, "cycles": 368, "cache-misses": 0}}]})";
  std::ofstream(dir / "sweep.json") << R"([
    {"config": {"core.store_queue_entries": "2"}, "status": 0, "cycles": 2000,
     "instructions": 1000, "speedup": 1.0, "regions": {"relax": 150}},
    {"config": {"core.store_queue_entries": "16"}, "status": 0, "cycles": 1000,
     "instructions": 1000, "speedup": 2.0, "regions": {"relax": 100}}])";
  const fs::path page = dir / "hand.html";
  const RunResult made = hpmsim({"report", "run.json", "p-samples.csv", "p-functions.csv",
                                 "stat.json", "sweep.json", "-o", page.string()},
                                dir);
  EXPECT_EQ(made.status(), 0) << made.err;
  return page;
}

// The status's entry for the chart `id` (null if none).
json chartStatus(const json& status, const std::string& id) {
  for (const json& c : status["charts"]) {
    if (c["id"] == id) return c;
  }
  ADD_FAILURE() << id << " not drawn: " << status.dump();
  return json();
}

// A profile's line stops where the core did not run and starts again where it ran: a straight
// line across the idle stretch looked like its IPC climbing.
TEST(Report, TheProfileChartBreaksItsLinesWhereACoreDidNotRun) {
  TempDir out;
  const json status = browserStatus(handMadePage(out.path()), out.path());
  expectChartsDrawn(status, {"profile0-core0", "profile0-core1"});
  const json idle = chartStatus(status, "profile0-core0");
  ASSERT_EQ(idle["datasets"], 4) << idle.dump();
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(idle["skipped"][i], 1) << idle.dump();   // the gap
    EXPECT_EQ(idle["segments"][i], 2) << idle.dump();  // before it and after it
  }
  const json busy = chartStatus(status, "profile0-core1");
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(busy["skipped"][i], 0) << busy.dump();
    EXPECT_EQ(busy["segments"][i], 1) << busy.dump();
  }
}

// Every chart of a page gives a stall cause the same colour (the run's per core, the top
// functions'), and no two causes one colour.
TEST(Report, EachStallCauseHasOneColourOnEveryChartOfAPage) {
  TempDir out;
  const json status = browserStatus(handMadePage(out.path()), out.path());
  expectChartsDrawn(status, {"run0-stalls", "functions0-stalls"});
  std::map<std::string, std::string> colour_of;
  std::map<std::string, std::string> cause_of;
  std::size_t checked = 0;
  for (const std::string id : {"run0-stalls", "functions0-stalls"}) {
    const json c = chartStatus(status, id);
    ASSERT_EQ(c["labels"].size(), c["colors"].size()) << c.dump();
    for (std::size_t i = 0; i < c["labels"].size(); ++i) {
      const std::string cause = c["labels"][i], colour = c["colors"][i];
      const auto [at, first] = colour_of.emplace(cause, colour);
      if (!first) ++checked;
      EXPECT_EQ(at->second, colour) << cause << " in " << id << ": " << status.dump();
      const auto [by, new_colour] = cause_of.emplace(colour, cause);
      EXPECT_EQ(by->second, cause) << colour << " in " << id;
    }
  }
  EXPECT_EQ(checked, 4u) << "dependency, icache_miss, pipe_busy and sq_full are on both charts";
}

// Every axis says what it counts; the sweep's x axis names the parameter swept.
TEST(Report, EveryAxisOfEveryChartHasATitleTheSweepsXItsParameter) {
  TempDir out;
  const json status = browserStatus(handMadePage(out.path()), out.path());
  expectChartsDrawn(status, {"run0-ipc", "run0-stalls", "run0-l1d", "profile0-core0",
                             "functions0-stalls", "stat0-0", "sweep0-speedup", "sweep0-regions"});
  for (const json& c : status["charts"]) {
    for (const auto& [axis, a] : c["axes"].items()) {
      EXPECT_NE(a["title"], "") << c["id"] << " axis " << axis;
    }
  }
  for (const std::string id : {"sweep0-speedup", "sweep0-regions"}) {
    EXPECT_EQ(chartStatus(status, id)["axes"]["x"]["title"], "core.store_queue_entries") << id;
  }
}

// The stat's small charts (one per event) share one time axis: from 0 to the end of the last
// interval, whatever the width of each chart's value axis.
TEST(Report, TheStatPagesChartsShareOneXRangeFromZeroToTheLastIntervalsEnd) {
  TempDir out;
  const json status = browserStatus(handMadePage(out.path()), out.path());
  expectChartsDrawn(status, {"stat0-0", "stat0-1", "stat0-2"});
  for (const std::string id : {"stat0-0", "stat0-1", "stat0-2"}) {
    const json x = chartStatus(status, id)["axes"]["x"];
    EXPECT_EQ(x["min"], 0) << id << ": " << x.dump();
    EXPECT_DOUBLE_EQ(x["max"].get<double>(), 1.73) << id << ": " << x.dump();
  }
}

TEST(Report, InputsThatAreNotResultsAndOutputsOverInputsAreRefused) {
  TempDir out;
  const fs::path notes = out.path() / "notes.txt";
  std::ofstream(notes) << "hello\n";
  RunResult r =
      hpmsim({"report", notes.string(), "-o", (out.path() / "r.html").string()}, out.path());
  EXPECT_EQ(r.status(), 6) << r.err;  // ExitCode::kIo
  EXPECT_NE(r.err.find("notes.txt' is not a result hpmsim writes"), std::string::npos) << r.err;
  r = hpmsim({"report", notes.string(), "-o", notes.string()}, out.path());
  EXPECT_EQ(r.status(), 2) << r.err;
  EXPECT_NE(r.err.find("is an input of the report"), std::string::npos) << r.err;
  EXPECT_EQ(readFile(notes), "hello\n");
}

}  // namespace
