// The pure parts of how hpmsim sweep runs its points (tools/hpmsim/lib/sweep_run.h), without a
// child process: the child's command line, the figures read from made-up statistics, what
// hpmsim said in a point's output, the progress text and the marking of interrupted points.
// Test names state the rule they check.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <csignal>
#include <sstream>
#include <string>
#include <vector>

#include "tools/hpmsim/lib/sweep_run.h"

namespace hpm::tools {
namespace {

using nlohmann::json;
using Args = std::vector<std::string>;

SessionOptions session(Args command) {
  SessionOptions s;
  s.machine = "bgp";
  s.mode = "functional";
  s.root = "/guest-root";
  s.command = std::move(command);
  return s;
}

TEST(SweepRun, APendingSweepHasEveryPointOfTheCrossProductNotRun) {
  const SweepResult sweep = pendingSweep({{"a", {"1", "2"}}, {"b", {"x"}}});
  ASSERT_EQ(sweep.axes.size(), 2u);
  ASSERT_EQ(sweep.points.size(), 2u);
  EXPECT_EQ(sweep.points[0].values, (Args{"1", "x"}));
  EXPECT_EQ(sweep.points[1].values, (Args{"2", "x"}));
  for (const SweepPoint& p : sweep.points) {
    EXPECT_EQ(p.status, -1);
    EXPECT_EQ(p.error, "");
    EXPECT_FALSE(p.figures);
  }
}

TEST(SweepRun, APointIsHpmsimRunWithTheSessionsMachineModeSettingsRootAndProgram) {
  EXPECT_EQ(pointArguments("/bin/hpmsim", session({"./amg", "10", "1"}),
                           {"l2.size_kib=8192", "core.integer_pipes=2"}, "/tmp/d/point3.json"),
            (Args{"/bin/hpmsim", "run", "--machine", "bgp", "--mode", "functional", "--set",
                  "l2.size_kib=8192", "--set", "core.integer_pipes=2", "--stats-json",
                  "/tmp/d/point3.json", "--root", "/guest-root", "--", "./amg", "10", "1"}));
}

TEST(SweepRun, APointGetsTheSessionsEnvironmentOptionsInOrderBeforeTheProgram) {
  SessionOptions s = session({"./demo"});
  s.env.clear = true;
  s.env.settings = {"OMP_NUM_THREADS=4", "A=b"};
  EXPECT_EQ(pointArguments("hpmsim", s, {"k=v"}, "s.json"),
            (Args{"hpmsim", "run", "--machine", "bgp", "--mode", "functional", "--set", "k=v",
                  "--stats-json", "s.json", "--root", "/guest-root", "--env-clear", "--env",
                  "OMP_NUM_THREADS=4", "--env", "A=b", "--", "./demo"}));
}

// As hpmsim run --stats-json writes them (on one node), with more than the sweep reads.
TEST(SweepRun, FiguresAreTheRunsCyclesInstructionsGuestInputsAndRegionCycles) {
  const json stats = json::parse(R"({
    "cycles": 123456, "instructions": 7890, "host_seconds": 1.5, "guest_inputs": "5f3a",
    "regions": [
      {"id": 2, "name": "solve", "entries": 1, "instructions": 500, "cycles": 1000},
      {"id": 1, "name": "setup", "entries": 3, "instructions": 40, "cycles": 90}
    ]})");
  const auto f = pointFigures(stats);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->cycles, 123456u);
  EXPECT_EQ(f->instructions, 7890u);
  EXPECT_EQ(f->guest_inputs, "5f3a");
  ASSERT_EQ(f->regions.size(), 2u);
  EXPECT_EQ(f->regions[0].id, 2u);
  EXPECT_EQ(f->regions[0].name, "solve");
  EXPECT_EQ(f->regions[0].cycles, 1000u);
  EXPECT_EQ(f->regions[1].id, 1u);
  EXPECT_EQ(f->regions[1].name, "setup");
  EXPECT_EQ(f->regions[1].cycles, 90u);
}

// A run of many nodes records no guest_inputs, and a program without markers no regions.
TEST(SweepRun, StatisticsWithoutGuestInputsOrRegionsHaveFiguresWithoutThem) {
  const auto f = pointFigures(json::parse(R"({"cycles": 10, "instructions": 4})"));
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->guest_inputs);
  EXPECT_TRUE(f->regions.empty());
}

TEST(SweepRun, StatisticsWithoutCyclesHaveNoFigures) {
  EXPECT_FALSE(pointFigures(json::parse(R"({"instructions": 4})")));
  EXPECT_FALSE(pointFigures(json::object()));
}

TEST(SweepRun, StatisticsOfAnotherShapeThrow) {
  EXPECT_THROW(pointFigures(json::parse(R"({"cycles": "many", "instructions": 4})")),
               json::exception);
  EXPECT_THROW(pointFigures(json::parse(R"({"cycles": 10})")), json::exception);
  EXPECT_THROW(pointFigures(json::parse(R"({"cycles": 1, "instructions": 1, "regions": [{}]})")),
               json::exception);
}

TEST(SweepRun, WhatHpmsimSaidIsItsFirstLineInThePointsOutput) {
  std::istringstream out(
      "guest says hello\n"
      "hpmsim: guest killed by signal 11 SIGSEGV\n"
      "hpmsim: statistics written\n"
      "guest's last words\n");
  EXPECT_EQ(hpmsimSaid(out), "hpmsim: guest killed by signal 11 SIGSEGV");
}

TEST(SweepRun, WithoutALineOfHpmsimsWhatItSaidIsTheLastLineThatIsNotEmpty) {
  std::istringstream out("first\nsecond\n\n\n");
  EXPECT_EQ(hpmsimSaid(out), "second");
  std::istringstream nothing("");
  EXPECT_EQ(hpmsimSaid(nothing), "");
}

TEST(SweepRun, TheProgressTextGivesThePointsDoneAndTheHostSeconds) {
  EXPECT_EQ(sweepProgress(4, 0, 0.0, 3.2), "[hpmsim sweep] 0 of 4 points done, 3 s");
}

// 1 of 4 in 10 s leaves 3 at 10 s each, counted down while the next point runs.
TEST(SweepRun, OnceAPointHasFinishedTheProgressTextEstimatesTheTimeLeft) {
  EXPECT_EQ(sweepProgress(4, 1, 10.0, 10.0),
            "[hpmsim sweep] 1 of 4 points done, 10 s, about 30 s left");
  EXPECT_EQ(sweepProgress(4, 1, 10.0, 14.0),
            "[hpmsim sweep] 1 of 4 points done, 14 s, about 26 s left");
}

TEST(SweepRun, AfterAnInterruptPointsNotRunFailAndStoppedPointsLoseTheirFigures) {
  std::vector<SweepPoint> points(6);
  PointFigures f;
  f.cycles = 4242;
  points[0].status = 0;  // finished before the interrupt
  points[0].figures = f;
  points[1].status = 128 + SIGINT;  // stopped by the terminal's Ctrl-C
  points[1].error = "hpmsim: interrupted by SIGINT (interrupt) at cycle 4242: ...";
  points[1].figures = f;
  points[2].status = 128 + SIGTERM;  // stopped by the sweep's forwarded SIGTERM
  points[2].figures = f;
  points[3].status = 128 + SIGTERM;  // stopped before it wrote statistics
  points[3].error = "no statistics (status 143)";
  points[4].status = 3;  // its program failed before the interrupt
  points[4].error = "exit status 3";
  points[4].figures = f;
  // points[5] was not run
  markInterrupted(points);
  EXPECT_EQ(points[0].error, "");
  EXPECT_TRUE(points[0].figures);
  for (int i : {1, 2}) {
    EXPECT_EQ(points[i].error, "interrupted at cycle 4242") << i;
    EXPECT_FALSE(points[i].figures) << i;
  }
  EXPECT_EQ(points[3].error, "no statistics (status 143)");
  EXPECT_EQ(points[4].error, "exit status 3");
  EXPECT_TRUE(points[4].figures);
  EXPECT_EQ(points[5].error, "not run (interrupted)");
  EXPECT_EQ(points[5].status, -1);
}

}  // namespace
}  // namespace hpm::tools
