// The statistics of real runs (hpmsim run --stats-json) carry their measures (stats/measure.h):
// every statistic has its kind and unit in "units", the statistics others read are written with
// their declarations' measures, and every statistic the report reads exists in a run's. Test
// names state the rule they check.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "node/node_stats.h"
#include "stats/measure.h"
#include "tests/support/process.h"
#include "tests/support/stats_units.h"
#include "tools/hpmsim/lib/run_stats.h"
#include "tools/hpmsim/report.h"

namespace {

namespace fs = std::filesystem;
using hpm::test::RunResult;
using hpm::test::TempDir;
using nlohmann::json;

const std::string kHpmsim = HPM_TEST_HPMSIM;
const fs::path kGuestBinDir = HPM_TEST_GUEST_BIN_DIR;
constexpr std::chrono::seconds kTimeout{300};

// The statistics JSON of `hpmsim run ARGS --stats-json FILE -- PROGRAM...`.
json runStats(const std::vector<std::string>& args, const std::vector<std::string>& program) {
  TempDir dir;
  const fs::path out = dir.path() / "stats.json";
  std::vector<std::string> argv = {kHpmsim, "run", "--env-clear", "--stats-json", out.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--");
  argv.insert(argv.end(), program.begin(), program.end());
  const RunResult r = hpm::test::runProcess(argv, {"PATH=/usr/bin:/bin", "HOME=/tmp", "LANG=C"}, "",
                                            dir.path(), kTimeout);
  EXPECT_EQ(r.status(), 0) << r.describe() << r.err;
  return json::parse(hpm::test::readFile(out));
}

// amg (OpenMP, regions matvec, relax, axpy) on bgq's timing model; on Fireplane (sunfire), whose
// caches below the L1s are external caches; in the functional mode; and a run of two nodes
// (their statistics recorded and replayed). Made once for the whole suite.
struct Runs {
  json bgq, sunfire, functional, nodes;
};
const Runs& runs() {
  static const Runs* r = [] {
    const std::vector<std::string> amg = {(kGuestBinDir / "amg").string(), "12", "1"};
    return new Runs{
        .bgq = runStats({}, amg),
        .sunfire = runStats({"--machine", "sunfire"}, amg),
        .functional = runStats({"--mode", "functional"}, amg),
        .nodes = runStats({"--nodes", "2"}, {(kGuestBinDir / "mpi_ring").string()}),
    };
  }();
  return *r;
}

// A run's statistics: its JSON without what is not one (the configuration, the command, the
// digest of its inputs, the measures).
json statisticsOf(json run) {
  for (const char* key : {"config", "command", "guest_inputs", "units"}) run.erase(key);
  return run;
}

json measureOf(const hpm::stats::Stat& s) {
  return {{"kind", hpm::stats::kindName(s.measure.kind)},
          {"unit", hpm::stats::unitName(s.measure.unit)}};
}

TEST(TypedStats, EveryStatisticOfARunHasItsKindAndEveryTotalOrLevelItsUnit) {
  const Runs& r = runs();
  for (const json* run : {&r.bgq, &r.sunfire, &r.functional, &r.nodes}) {
    ASSERT_TRUE(run->contains("units"));
    EXPECT_EQ(hpm::test::measureProblems(statisticsOf(*run), (*run)["units"]),
              std::vector<std::string>{});
  }
}

TEST(TypedStats, TheUnitsOfTheStatisticsOthersReadAreTheirDeclarations) {
  namespace rs = hpm::tools::run_stat;
  namespace ns = hpm::node_stat;
  const Runs& r = runs();
  for (const json* run : {&r.bgq, &r.nodes}) {
    const json& units = (*run)["units"];
    for (const hpm::stats::Stat* s :
         {&rs::kInstructions, &rs::kCycles, &rs::kHostSeconds, &rs::kMips, &rs::kHostPeakRssKib,
          &rs::kMode, &rs::kExitStatus}) {
      EXPECT_EQ(units.value(std::string(s->name), json()), measureOf(*s)) << s->name;
    }
  }
  const json& units = r.bgq["units"];
  const std::string region = std::string(ns::kRegions) + ".*.";
  for (const hpm::stats::Stat* s : {&ns::kRegionId, &ns::kRegionName, &ns::kRegionEntries,
                                    &ns::kRegionInstructions, &ns::kRegionCycles}) {
    EXPECT_EQ(units.value(region + std::string(s->name), json()), measureOf(*s)) << s->name;
  }
  EXPECT_EQ(units.value(region + std::string(ns::kRegionStalls.name) + ".lmq_full", json()),
            measureOf(ns::kRegionStalls));
  const std::string span = std::string(ns::kRegionSpans) + ".*.";
  for (const hpm::stats::Stat* s : {&ns::kSpanTid, &ns::kSpanId, &ns::kSpanBegin, &ns::kSpanEnd}) {
    EXPECT_EQ(units.value(span + std::string(s->name), json()), measureOf(*s)) << s->name;
  }
}

TEST(TypedStats, EveryStatisticTheReportReadsIsInARunsStatistics) {
  const Runs& r = runs();
  hpm::tools::Report report;
  report.addRun(r.bgq, "bgq");
  report.addRun(r.sunfire, "sunfire");
  std::set<std::string> written;  // the statistics of either run, and the groups holding them
  for (const json* run : {&r.bgq, &r.sunfire}) {
    for (const auto& [path, measure] : (*run)["units"].items()) {
      for (std::size_t dot = path.find('.'); dot != std::string::npos;
           dot = path.find('.', dot + 1)) {
        written.insert(path.substr(0, dot));
      }
      written.insert(path);
    }
  }
  ASSERT_FALSE(report.statisticsRead().empty());
  for (const std::string& path : report.statisticsRead()) {
    EXPECT_TRUE(written.contains(path)) << path << " is read by the report but written by no run";
  }
  // Both kinds of caches below the L1s are read: one run has each.
  EXPECT_TRUE(report.statisticsRead().contains("timing.l2_slices.*.misses"));
  EXPECT_TRUE(report.statisticsRead().contains("timing.ecaches.*.misses"));
}

}  // namespace
