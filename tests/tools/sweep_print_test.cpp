// hpmsim sweep's printers (tools/hpmsim/lib/sweep_print.h) on made-up points, without a guest:
// the table's exact lines and the JSON list's shape, which hpmsim report and bench/whatif.py
// read. Test names state the rule they check.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "base/json_text.h"
#include "tools/hpmsim/lib/sweep_print.h"
#include "tools/hpmsim/lib/sweep_result.h"

namespace hpm::tools {
namespace {

using nlohmann::json;

SweepPoint measured(std::vector<std::string> values, u64 cycles,
                    std::vector<RegionCycles> regions = {}) {
  SweepPoint p;
  p.values = std::move(values);
  p.status = 0;
  PointFigures f;
  f.cycles = cycles;
  f.instructions = cycles / 2;
  f.guest_inputs = "digest";
  f.regions = std::move(regions);
  p.figures = f;
  return p;
}

SweepPoint failed(std::vector<std::string> values, int status, std::string error) {
  SweepPoint p;
  p.values = std::move(values);
  p.status = status;
  p.error = std::move(error);
  return p;
}

// Three points of core.integer_pipes: the first with two regions, the second with one, the
// third crashed.
SweepResult threePoints() {
  SweepResult r;
  r.axes = {{"core.integer_pipes", {"1", "2", "4"}}};
  r.points = {measured({"1"}, 2000, {{1, "setup", 500}, {2, "solve", 1500}}),
              measured({"2"}, 1000, {{2, "solve", 700}}),
              failed({"4"}, 139, "hpmsim: guest killed by signal 11 SIGSEGV")};
  return r;
}

TEST(SweepPrint, TheTableIsAHeaderThenARowPerPointWithCyclesRegionsAndSpeedup) {
  EXPECT_EQ(sweepText(threePoints()),
            "      core.integer_pipes           cycles            setup            solve  speedup\n"
            "                       1             2000              500             1500    1.000\n"
            "                       2             1000                -              700    2.000\n"
            "                       4 failed (status 139): hpmsim: guest killed by signal 11 "
            "SIGSEGV\n");
}

TEST(SweepPrint, EachAxisIsAColumnOfTwentyFourInTheAxesOrder) {
  SweepResult r;
  r.axes = {{"l2.size_kib", {"8192", "32768"}}, {"core.store_queue_entries", {"8"}}};
  r.points = {measured({"8192", "8"}, 400), measured({"32768", "8"}, 300)};
  EXPECT_EQ(sweepText(r),
            "             l2.size_kib core.store_queue_entries           cycles  speedup\n"
            "                    8192                        8              400    1.000\n"
            "                   32768                        8              300    1.333\n");
}

TEST(SweepPrint, SpeedupIsTheFirstPointsCyclesOverThePoints) {
  const SweepResult r = threePoints();
  EXPECT_DOUBLE_EQ(sweepSpeedup(r, *r.points[0].figures), 1.0);
  EXPECT_DOUBLE_EQ(sweepSpeedup(r, *r.points[1].figures), 2.0);
}

// The first point is the reference: without its figures there is nothing to compare with.
TEST(SweepPrint, WhenTheFirstPointFailedEverySpeedupIsZero) {
  SweepResult r;
  r.axes = {{"k", {"a", "b"}}};
  r.points = {failed({"a"}, -1, "not run (interrupted)"), measured({"b"}, 100)};
  EXPECT_EQ(sweepText(r),
            "                       k           cycles  speedup\n"
            "                       a failed (status -1): not run (interrupted)\n"
            "                       b              100    0.000\n");
  EXPECT_EQ(sweepJson(r)[1]["speedup"], 0.0);
}

TEST(SweepPrint, AFailedPointsErrorIsCutToTwoHundredBytesInTheTableButNotInTheJson) {
  SweepResult r;
  r.axes = {{"k", {"a"}}};
  const std::string error = "hpmsim: " + std::string(300, 'x');
  r.points = {failed({"a"}, 3, error)};
  EXPECT_EQ(sweepText(r),
            "                       k           cycles  speedup\n"
            "                       a failed (status 3): " +
                error.substr(0, 200) + "\n");
  EXPECT_EQ(sweepJson(r)[0]["error"], error);
}

// A point whose program failed keeps its figures beside its error: the table shows it failed,
// the JSON has both.
TEST(SweepPrint, APointWithAnErrorIsFailedInTheTableAndKeepsItsFiguresInTheJson) {
  SweepResult r;
  r.axes = {{"l2.size_kib", {"8192"}}};
  r.points = {measured({"8192"}, 900)};
  r.points[0].status = 3;
  r.points[0].error = "exit status 3";
  EXPECT_EQ(sweepText(r),
            "             l2.size_kib           cycles  speedup\n"
            "                    8192 failed (status 3): exit status 3\n");
  const json row = sweepJson(r)[0];
  EXPECT_EQ(row["error"], "exit status 3");
  EXPECT_EQ(row["status"], 3);
  EXPECT_EQ(row["cycles"], 900);
  EXPECT_EQ(sweepFailures(r), 1u);
}

TEST(SweepPrint, RegionsAreColumnsByIdNamedByTheLastPointThatHasThem) {
  SweepResult r;
  r.axes = {{"k", {"a", "b"}}};
  r.points = {measured({"a"}, 100, {{7, "late", 10}, {3, "old", 20}}),
              measured({"b"}, 100, {{3, "new", 30}})};
  EXPECT_EQ(sweepRegions(r), (std::map<u64, std::string>{{3, "new"}, {7, "late"}}));
  EXPECT_EQ(
      sweepText(r),
      "                       k           cycles              new             late  speedup\n"
      "                       a              100               20               10    1.000\n"
      "                       b              100               30                -    1.000\n");
}

TEST(SweepPrint, FailedPointsAreThoseWithAnErrorOrWithoutFigures) {
  SweepResult r = threePoints();
  EXPECT_EQ(sweepFailures(r), 1u);  // the crashed one
  r.points[0].figures.reset();      // no statistics, and no error said why
  EXPECT_EQ(sweepFailures(r), 2u);
  r.points.resize(2);
  r.points[0] = measured({"1"}, 10);
  EXPECT_EQ(sweepFailures(r), 0u);
}

TEST(SweepPrint, TheJsonIsAListOfEachPointsConfigStatusFiguresAndSpeedup) {
  const json expected = json::parse(R"([
    {"config": {"core.integer_pipes": "1"}, "status": 0, "cycles": 2000, "instructions": 1000,
     "guest_inputs": "digest", "regions": {"setup": 500, "solve": 1500}, "speedup": 1.0},
    {"config": {"core.integer_pipes": "2"}, "status": 0, "cycles": 1000, "instructions": 500,
     "guest_inputs": "digest", "regions": {"solve": 700}, "speedup": 2.0},
    {"config": {"core.integer_pipes": "4"}, "status": 139,
     "error": "hpmsim: guest killed by signal 11 SIGSEGV"}
  ])");
  EXPECT_EQ(sweepJson(threePoints()), expected);
}

TEST(SweepPrint, TheJsonHasRegionsAndGuestInputsOnlyWhereThePointHasThem) {
  SweepResult r;
  r.axes = {{"k", {"a"}}, {"m", {"b"}}};
  r.points = {measured({"a", "b"}, 100)};
  r.points[0].figures->guest_inputs.reset();  // a run of many nodes records none
  const json row = sweepJson(r)[0];
  EXPECT_FALSE(row.contains("regions"));
  EXPECT_FALSE(row.contains("guest_inputs"));
  EXPECT_FALSE(row.contains("error"));
  EXPECT_EQ(row["config"], json::parse(R"({"k": "a", "m": "b"})"));
}

// The keys are sorted and the text indented by 2, as every hpmsim JSON (base/json_text.h).
TEST(SweepPrint, TheJsonTextOfAPointIsSortedAndIndented) {
  SweepResult r;
  r.axes = {{"k", {"a"}}};
  r.points = {measured({"a"}, 100, {{1, "r", 40}})};
  EXPECT_EQ(jsonText(sweepJson(r), 2),
            "[\n"
            "  {\n"
            "    \"config\": {\n"
            "      \"k\": \"a\"\n"
            "    },\n"
            "    \"cycles\": 100,\n"
            "    \"guest_inputs\": \"digest\",\n"
            "    \"instructions\": 50,\n"
            "    \"regions\": {\n"
            "      \"r\": 40\n"
            "    },\n"
            "    \"speedup\": 1.0,\n"
            "    \"status\": 0\n"
            "  }\n"
            "]");
}

}  // namespace
}  // namespace hpm::tools
