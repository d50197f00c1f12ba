// hpmsim stat's printers and its multiplexing estimate on made-up results, without a guest: the
// lines are perf stat's (text, -x CSV, -I, -j), so scripts written for perf read them.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "tools/hpmsim/lib/stat_print.h"
#include "tools/hpmsim/lib/stat_result.h"

namespace hpm::tools {
namespace {

Request unitRequest(const std::string& name, int group = 0) {
  Request r;
  r.name = name;
  r.group = group;
  return r;
}

Request softwareRequest(const std::string& name) {
  Request r;
  r.name = name;
  r.source = Request::Source::kSoftware;
  return r;
}

Request unsupportedRequest(const std::string& name) {
  Request r;
  r.name = name;
  r.source = Request::Source::kUnsupported;
  return r;
}

// One run of `prog` that took 1 ms (1,600,000 cycles at 1,600 MHz) and counted `counts`.
StatResult oneRun(const std::vector<Request>& requests, const std::map<std::string, u64>& counts) {
  StatResult result;
  result.command = {"/bin/prog", "7"};
  result.machine = "bgq";
  result.clock_mhz = 1600;
  result.mode = "timing";
  result.mux_interval_ms = 4;
  StatRun run;
  run.requests = requests;
  run.unit_title = "UPC-Q";
  run.counts = counts;
  run.end = 1600000;
  run.seconds = 0.001;
  run.host_seconds = 2;
  run.instructions = 4000000;
  result.runs.push_back(run);
  return result;
}

StatPrintOptions csvOptions(const std::string& separator) {
  StatPrintOptions o;
  o.separator = separator;
  return o;
}

StatPrintOptions noBigNum() {
  StatPrintOptions o;
  o.no_big_num = true;
  return o;
}

// The lines of `text` that name `event` (perf's event column).
std::string lineOf(const std::string& text, const std::string& event) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find(" " + event + " ") != std::string::npos || line.ends_with(" " + event) ||
        line.find("," + event + ",") != std::string::npos) {
      return line;
    }
  }
  return "";
}

TEST(StatPrint, ACountIsRightAlignedInTwentyColumnsWithItsEventAndPerfsDerivedRatio) {
  const StatResult r = oneRun({unitRequest("instructions"), unitRequest("cycles")},
                              {{"instructions", 2500000}, {"cycles", 1000000}});
  const std::string text = statText(r, {});
  EXPECT_EQ(lineOf(text, "instructions"),
            "           2,500,000      instructions                 #  2.50 insn per cycle");
  EXPECT_EQ(lineOf(text, "cycles"), "           1,000,000      cycles                       ");
  EXPECT_NE(text.find("\n Performance counter stats for '/bin/prog 7' (machine bgq, UPC-Q, timing "
                      "mode):\n\n"),
            std::string::npos);
  EXPECT_NE(text.find("\n         0.001000000 seconds simulated (1,600,000 cycles at 1600 MHz)\n"
                      "               2.000 seconds host (2.0 million simulated instructions per "
                      "second)\n\n"),
            std::string::npos)
      << text;
}

TEST(StatPrint, NoBigNumDropsTheThousandsSeparators) {
  const StatResult r = oneRun({unitRequest("instructions")}, {{"instructions", 2500000}});
  EXPECT_EQ(lineOf(statText(r, noBigNum()), "instructions"),
            "             2500000      instructions                 ");
}

TEST(StatPrint, AnUnsupportedEventAndANeverScheduledOneArePerfsMarks) {
  StatResult r =
      oneRun({unitRequest("cycles"), unsupportedRequest("dTLB-loads")}, {{"cycles", 10}});
  r.runs[0].requests.push_back(unitRequest("branches"));
  r.runs[0].pcnt_running["branches"] = 0;  // multiplexed; its set never had a turn
  const std::string text = statText(r, {});
  EXPECT_EQ(lineOf(text, "dTLB-loads"), "     <not supported>      dTLB-loads");
  EXPECT_EQ(lineOf(text, "branches"),
            "       <not counted>      branches                     (0.00%)");
  const std::string csv = statCsv(r, csvOptions(","));
  EXPECT_EQ(lineOf(csv, "dTLB-loads"), "<not supported>,,dTLB-loads,1000000,100.00,,");
  EXPECT_EQ(lineOf(csv, "branches"), "<not counted>,,branches,0,0.00,,");
}

TEST(StatPrint, CsvFieldsAreValueUnitEventRunTimePercentRunningMetricValueAndUnit) {
  const StatResult r = oneRun({unitRequest("branches"), unitRequest("branch-misses")},
                              {{"branches", 400}, {"branch-misses", 10}});
  EXPECT_EQ(statCsv(r, csvOptions(";")),
            "400;;branches;1000000;100.00;;\n"
            "10;;branch-misses;1000000;100.00;2.50;% of all branches\n");
}

TEST(StatPrint, RepeatedRunsPrintTheMeanAndTheRelativeStandardDeviationOfTheMean) {
  StatResult r = oneRun({unitRequest("instructions")}, {{"instructions", 100}});
  r.runs.push_back(r.runs[0]);
  r.runs[1].counts["instructions"] = 300;
  // Mean 200; sample standard deviation 141.42, of the mean 100: 50 % of the mean.
  EXPECT_EQ(lineOf(statText(r, {}), "instructions"),
            "                 200      instructions                   ( +- 50.00% )");
  EXPECT_EQ(statCsv(r, csvOptions(",")), "200,,instructions,50.00%,1000000,100.00,,\n");
  const auto j = statJson(r);
  EXPECT_EQ(j["runs"], 2);
  EXPECT_DOUBLE_EQ(j["events"][0]["variance"].get<double>(), 50.0);
  EXPECT_EQ(j["counts_per_run"][1]["instructions"], 300);
}

TEST(StatPrint, AMultiplexedEventShowsTheShareOfTheRunItsSetCounted) {
  StatResult r = oneRun({unitRequest("instructions")}, {{"instructions", 4000}});
  r.runs[0].pcnt_running["instructions"] = 25;
  r.runs[0].mux_turns["instructions"] = 10;
  r.runs[0].mux_sets = 4;
  r.runs[0].mux_switches = 39;
  const std::string text = statText(r, {});
  EXPECT_EQ(lineOf(text, "instructions"),
            "               4,000      instructions                   (25.00%)");
  EXPECT_NE(text.find(" (multiplexed: 4 sets of events took turns on the counters in 4 ms "
                      "slices, 39 switches; counts are scaled by the run's time over their "
                      "set's)\n"),
            std::string::npos);
  // -x: the run time field is the event's share of the run.
  EXPECT_EQ(statCsv(r, csvOptions(",")), "4000,,instructions,250000,25.00,,\n");
  const auto j = statJson(r);
  EXPECT_EQ(j["events"][0]["event-runtime"], 250000);
  EXPECT_EQ(j["multiplexing"]["sets"], 4);
}

TEST(StatPrint, AnEstimateFromFewerThanTenSlicesOfItsSetIsMarkedWithThemAndExplained) {
  StatResult r = oneRun({unitRequest("instructions"), unitRequest("cycles")},
                        {{"instructions", 4000}, {"cycles", 8000}});
  r.runs[0].mux_sets = 2;
  r.runs[0].pcnt_running = {{"instructions", 50}, {"cycles", 50}};
  r.runs[0].mux_turns = {{"instructions", 9}, {"cycles", 1}};
  const std::string text = statText(r, {});
  EXPECT_EQ(lineOf(text, "instructions"),
            "               4,000      instructions                 #  0.50 insn per cycle  "
            "(50.00%) [9 slices]");
  EXPECT_EQ(lineOf(text, "cycles"),
            "               8,000      cycles                         (50.00%) [1 slice]");
  EXPECT_NE(text.find(" [N slices]: an estimate from fewer than 10 slices of its set"),
            std::string::npos)
      << text;
  EXPECT_EQ(statJson(r)["events"][1]["mux-slices"], 1);
  // The CSV keeps perf's fields: the mark is the text's.
  EXPECT_EQ(lineOf(statCsv(r, csvOptions(",")), "cycles"), "8000,,cycles,500000,50.00,,");
  r.runs[0].mux_turns = {{"instructions", 10}, {"cycles", 10}};
  const std::string trusted = statText(r, {});
  EXPECT_EQ(trusted.find("slice]"), std::string::npos) << trusted;
  EXPECT_EQ(trusted.find("slices]"), std::string::npos) << trusted;
}

TEST(StatPrint, ASetThatNeverHadATurnGivesPerfsHintBelowTheCounts) {
  StatResult r =
      oneRun({unitRequest("instructions"), unitRequest("cycles")}, {{"instructions", 4000}});
  r.runs[0].mux_sets = 2;
  r.runs[0].pcnt_running = {{"instructions", 100}, {"cycles", 0}};
  r.runs[0].mux_turns = {{"instructions", 12}, {"cycles", 0}};
  const std::string text = statText(r, {});
  EXPECT_NE(text.find(" Some events weren't counted: their set never had a turn on the counters"),
            std::string::npos)
      << text;
  r.runs[0].counts["cycles"] = 10;
  r.runs[0].pcnt_running["cycles"] = 1;
  r.runs[0].mux_turns["cycles"] = 12;
  EXPECT_EQ(statText(r, {}).find("weren't counted"), std::string::npos);
}

TEST(StatPrint, AMultiplexedCountIsScaledByEnabledOverRunningTimeRoundedToTheNearest) {
  EXPECT_EQ(multiplexEstimate(100, 1000, 250), 400U);
  EXPECT_EQ(multiplexEstimate(1, 3, 2), 2U);  // 1.5
  EXPECT_EQ(multiplexEstimate(1, 4, 3), 1U);  // 1.33
  EXPECT_EQ(multiplexEstimate(7, 1000, 1000), 7U);
  EXPECT_EQ(multiplexEstimate(5, 1000, 0), 0U);  // never ran: no estimate
}

TEST(StatPrint, TaskClockIsShownInMsecWithTheCpusItUsed) {
  const StatResult r = oneRun({softwareRequest("task-clock")}, {{"task-clock", 500000}});
  EXPECT_EQ(lineOf(statText(r, {}), "task-clock"),
            "                0.50 msec task-clock              #  0.50 CPUs utilized");
  EXPECT_EQ(statCsv(r, csvOptions(",")),
            "0.50,msec,task-clock,1000000,100.00,0.50,CPUs utilized\n");
  const auto j = statJson(r);
  EXPECT_EQ(j["events"][0]["unit"], "msec");
  EXPECT_DOUBLE_EQ(j["events"][0]["counter-value"].get<double>(), 0.5);
}

TEST(StatPrint, JsonHasTheCountsAndPerfStatJsEventFields) {
  const StatResult r = oneRun(
      {unitRequest("instructions", 1), unitRequest("cycles", 1), unsupportedRequest("ref-cycles")},
      {{"instructions", 30}, {"cycles", 20}});
  const auto j = statJson(r);
  EXPECT_EQ(j["counts"], (nlohmann::json{{"instructions", 30}, {"cycles", 20}}));
  EXPECT_EQ(j["events"][0]["event"], "instructions");
  EXPECT_EQ(j["events"][0]["group"], 1);
  EXPECT_DOUBLE_EQ(j["events"][0]["metric-value"].get<double>(), 1.5);
  EXPECT_EQ(j["events"][0]["metric-unit"], "insn per cycle");
  EXPECT_EQ(j["events"][2]["counter-value"], "<not supported>");
  EXPECT_EQ(j["events"][2]["pcnt-running"], 0.0);
  EXPECT_EQ(j["cycles_simulated"], 1600000);
  EXPECT_EQ(j["machine"], "bgq");
}

TEST(StatPrint, IntervalsPrintEachIntervalsDifferenceUnderOneHeaderAsPerfStatI) {
  const std::vector<Request> requests = {unitRequest("instructions"),
                                         softwareRequest("task-clock")};
  IntervalPrinter printer({});
  EXPECT_EQ(printer.text(requests, {1600, 0.000001, {{"instructions", 1000}, {"task-clock", 0}}}),
            "#         time               counts      event\n"
            "   0.000001000                1,000      instructions\n");
  EXPECT_EQ(printer.text(requests, {3200, 0.000002, {{"instructions", 1500}, {"task-clock", 0}}}),
            "   0.000002000                  500      instructions\n");
  IntervalPrinter csv(csvOptions(","));
  csv.text(requests, {1600, 0.000001, {{"instructions", 1000}, {"task-clock", 0}}});
  EXPECT_EQ(csv.text(requests, {3200, 0.000002, {{"instructions", 1500}, {"task-clock", 0}}}),
            "0.000002000,500,,instructions,1000,100.00,,\n");
  IntervalPrinter json({});
  json.json(requests, {1600, 0.000001, {{"instructions", 1000}}});
  const auto row = json.json(requests, {3200, 0.000002, {{"instructions", 1500}}});
  EXPECT_EQ(row["counts"]["instructions"], 500);
  EXPECT_EQ(row["cumulative"]["instructions"], 1500);
  EXPECT_FALSE(row["counts"].contains("task-clock"));
}

}  // namespace
}  // namespace hpm::tools
