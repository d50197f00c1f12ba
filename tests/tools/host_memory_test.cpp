// The host memory budget (tools/hpmsim/host_memory.h, docs/kernel.md "Host memory"): whatever
// the guest or the command line asks for, hpmsim stops before the host's memory runs out, says
// what used it, writes its results and exits with 71, never left to the host's OOM killer.
// Test names state the rule they check.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
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
const std::string kGuestBinDir = HPM_TEST_GUEST_BIN_DIR;
constexpr std::chrono::seconds kTimeout{300};

RunResult hpmsim(const std::vector<std::string>& args, const fs::path& cwd) {
  std::vector<std::string> argv = {kHpmsim};
  argv.insert(argv.end(), args.begin(), args.end());
  return hpm::test::runProcess(argv, {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C"}, "", cwd, kTimeout);
}

// memory_limit takes 16 MiB blocks and touches every page until malloc fails: on bgq's 16 GiB
// node that is far more than the budget given here.
TEST(HostMemoryBudget, AGuestThatGrowsPastTheBudgetStopsTheRunWithItsResultsAndStatus71) {
  for (const char* command : {"run", "stat"}) {
    TempDir dir("hpm-budget");
    const bool run = std::string(command) == "run";
    const std::string file = run ? "stats.json" : "stat.json";
    std::vector<std::string> args = {command, "--quiet", "--host-memory", "300"};
    if (run) {
      args.insert(args.end(), {"--stats-json", file});
    } else {
      args.insert(args.end(), {"--json", "-o", file, "-e", "instructions"});
    }
    args.insert(args.end(), {"--", kGuestBinDir + "/memory_limit"});
    const RunResult r = hpmsim(args, dir.path());
    EXPECT_EQ(r.status(), 71) << command << r.describe();
    EXPECT_NE(r.err.find("past its budget of 300 MiB (--host-memory MIB sets it"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("the guest has touched"), std::string::npos) << r.err;
    const json j = json::parse(std::ifstream(dir.path() / file));
    if (run) {
      EXPECT_EQ(j.at("exit_status"), 71);
      // (Stopped within a check's step of the budget: 16 MiB of guest pages, the models' rest.)
      EXPECT_LT(j.at("host_peak_rss_kib").get<u64>(), u64{300 + 64} << 10);
      EXPECT_GT(j.at("instructions").get<u64>(), 0u);
    } else {
      EXPECT_GT(j.at("counts").at("instructions").get<u64>(), 0u) << j;
    }
  }
}

TEST(HostMemoryBudget, ManyNodesThatCannotFitAreRefusedBeforeTheRunStarts) {
  TempDir dir("hpm-budget");
  const RunResult r = hpmsim(
      {"run", "--quiet", "--nodes", "64", "--host-memory", "200", "--", kGuestBinDir + "/mpi_ring"},
      dir.path());
  EXPECT_EQ(r.status(), 71) << r.describe();
  EXPECT_NE(r.err.find("64 nodes need about"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("more than hpmsim's budget of 200 MiB"), std::string::npos) << r.err;
}

TEST(HostMemoryBudget, ANodeWhoseGuestGrowsPastTheBudgetEndsTheJobWithItsResults) {
  TempDir dir("hpm-budget");
  const RunResult r = hpmsim({"run", "--quiet", "--nodes", "2", "--host-memory", "200",
                              "--stats-json", "s.json", "--", kGuestBinDir + "/memory_limit"},
                             dir.path());
  EXPECT_EQ(r.status(), 71) << r.describe();
  EXPECT_NE(r.err.find("nodes here; their guests have touched"), std::string::npos) << r.err;
  const json j = json::parse(std::ifstream(dir.path() / "s.json"));
  EXPECT_EQ(j.at("exit_status"), 71);
  EXPECT_EQ(j.at("nodes").size(), 2u);
}

TEST(HostMemoryBudget, TheBudgetOptionRefusesZeroAndWords) {
  TempDir dir("hpm-budget");
  for (const char* bad : {"0", "lots", "-5"}) {
    const RunResult r =
        hpmsim({"run", "--host-memory", bad, "--", kGuestBinDir + "/exit_status"}, dir.path());
    EXPECT_EQ(r.status(), 2) << bad << r.describe();
    EXPECT_NE(r.err.find("--host-memory"), std::string::npos) << r.err;
  }
}

// stat -I writes each interval as it ends (its -x line to -o's file here) and keeps for the report
// only a bounded, coarser series: some 440,000 intervals of node_mix fit in a 100 MiB budget
// (keeping them, as stat did, took far more), and their counts add up to a run's of 2 intervals.
TEST(StatIntervals, AreWrittenAsTheyEndSoMemoryDoesNotGrowWithThem) {
  TempDir dir("hpm-budget");
  const auto total = [&](const std::string& cycles) {
    const RunResult r =
        hpmsim({"stat", "--quiet", "--host-memory", "100", "-e", "instructions,cycles",
                "--interval-cycles", cycles, "-x", ",", "-o", "s.csv", "--report", "r.html", "--",
                kGuestBinDir + "/node_mix", "2"},
               dir.path());
    EXPECT_EQ(r.status(), 0) << cycles << r.describe();
    std::ifstream csv(dir.path() / "s.csv");
    u64 lines = 0, instructions = 0;
    for (std::string line; std::getline(csv, line);) {
      ++lines;
      // time,value,unit,event,...
      const std::size_t a = line.find(','), b = line.find(',', a + 1), c = line.find(',', b + 1);
      if (line.substr(c + 1, line.find(',', c + 1) - c - 1) == "instructions") {
        instructions += std::stoull(line.substr(a + 1, b - a - 1));
      }
    }
    EXPECT_TRUE(fs::exists(dir.path() / "r.html"));
    return std::make_pair(lines, instructions);
  };
  const auto [many_lines, many] = total("4");
  const auto [few_lines, few] = total("100000000");
  EXPECT_GT(many_lines, 400000u);  // (two lines an interval)
  EXPECT_LT(few_lines, 10u);
  EXPECT_EQ(many, few);
  EXPECT_GT(few, 0u);
}

}  // namespace
