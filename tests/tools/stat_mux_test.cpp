// `hpmsim stat` with more events than the units have counters: multiplexed as perf does it, with
// perf's running-time column in every output form, estimates close to the exact counts of a run
// whose events fit, and the combinations that cannot be multiplexed refused with the reason.
// (The exactness of each set's slices is tests/node/host_mux_test.cpp's.)
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
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
constexpr int kUsage = 2;  // ExitCode::kUsage

RunResult hpmsim(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {kHpmsim};
  argv.insert(argv.end(), args.begin(), args.end());
  return hpm::test::runProcess(argv, {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C"}, "",
                               fs::current_path(), std::chrono::seconds{300});
}

// The PUnit's first `n` core-wide events (hpmsim events), comma-separated: the PUnit has 24
// counters, so 30 of them need two sets.
std::string punitEvents(std::size_t n) {
  const RunResult r = hpmsim({"events", "--machine", "bgq", "--json"});
  EXPECT_EQ(r.status(), 0) << r.err;
  std::string out;
  std::size_t taken = 0;
  const json catalogue = json::parse(r.out);
  for (const json& e : catalogue.at("events")) {
    if (taken == n) break;
    if (e.at("unit") != "punit" || e.value("thread", -1) >= 0) continue;
    out += (out.empty() ? "" : ",") + e.at("name").get<std::string>();
    ++taken;
  }
  return out;
}

const std::vector<std::string> kProgram = {"--", kGuestBinDir + "/bench_int", "4"};

std::vector<std::string> statArgs(std::vector<std::string> args) {
  args.insert(args.begin(), "stat");
  args.insert(args.end(), kProgram.begin(), kProgram.end());
  return args;
}

TEST(StatMultiplexing, EventsBeyondTheCountersTakeTurnsAndAreScaledWithPerfsRunningColumn) {
  const std::string events = "instructions,cycles," + punitEvents(30);
  TempDir dir;
  const fs::path out = dir.path() / "mux.json";
  const RunResult r = hpmsim(statArgs({"--mux-interval-ms", "0.5", "-e", events}));
  ASSERT_EQ(r.status(), 0) << r.err;
  // perf's layout: each multiplexed count ends with the share of the run its set counted.
  const std::regex line(
      R"(\n +[\d,]+ +instructions +# +[\d.]+ insn per cycle +\((\d+\.\d\d)%\)\n)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, line)) << r.err;
  const double pcnt = std::stod(m[1]);
  EXPECT_GT(pcnt, 30.0);
  EXPECT_LT(pcnt, 70.0);
  EXPECT_NE(r.err.find("(multiplexed: 2 sets of events took turns on the counters in 0.5 ms "
                       "slices"),
            std::string::npos)
      << r.err;

  // The estimates of a steady program are close to the exact counts, which a run whose events
  // fit gives (and shows without the column).
  const RunResult exact = hpmsim(statArgs({"--json", "-e", "instructions,cycles"}));
  ASSERT_EQ(exact.status(), 0) << exact.err;
  EXPECT_EQ(exact.err.find("%)"), std::string::npos) << "nothing multiplexed: " << exact.err;
  const RunResult muxed =
      hpmsim(statArgs({"--json", "--mux-interval-ms", "0.5", "-e", events, "-o", out.string()}));
  ASSERT_EQ(muxed.status(), 0) << muxed.err;
  std::ifstream in(out);
  const json j = json::parse(in);
  const json e = json::parse(exact.err.substr(exact.err.find("{\n")));
  for (const char* name : {"instructions", "cycles"}) {
    const double estimate = j.at("counts").at(name).get<double>();
    const double truth = e.at("counts").at(name).get<double>();
    EXPECT_LT(std::abs(estimate - truth) / truth, 0.03)
        << name << ": " << estimate << " vs " << truth;
  }
  EXPECT_EQ(j.at("multiplexing").at("sets"), 2);
  EXPECT_GE(j.at("multiplexing").at("switches").get<u64>(), 4u);
  for (const json& ev : j.at("events")) {
    EXPECT_GT(ev.at("pcnt-running").get<double>(), 0.0) << ev;
    EXPECT_LT(ev.at("pcnt-running").get<double>(), 100.0) << ev;
    EXPECT_LT(ev.at("event-runtime").get<u64>(),
              static_cast<u64>(j.at("seconds_simulated").get<double>() * 1e9))
        << ev;
  }
  for (const json& ev : e.at("events")) EXPECT_EQ(ev.at("pcnt-running"), 100.0) << ev;
}

TEST(StatMultiplexing, CsvCarriesTheRunningTimeAndShareAsPerfDoes) {
  const RunResult r = hpmsim(
      statArgs({"-x", ",", "--mux-interval-ms", "0.5", "-e", "instructions," + punitEvents(30)}));
  ASSERT_EQ(r.status(), 0) << r.err;
  // value,unit,event,run time (ns),percent running,metric value,metric unit
  const std::regex row(R"((?:^|\n)(\d+),,instructions,(\d+),(\d+\.\d\d),)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, row)) << r.err;
  EXPECT_GT(std::stod(m[3]), 0.0);
  EXPECT_LT(std::stod(m[3]), 100.0);
}

TEST(StatMultiplexing, ASetThatNeverHadATurnIsNotCounted) {
  // The run ends before the first switch: the second set never counts.
  const RunResult r = hpmsim(statArgs({"--mux-interval-ms", "1000", "-e", punitEvents(30)}));
  ASSERT_EQ(r.status(), 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(\n +<not counted> +PEVT_\w+ +\(0\.00%\)\n)")))
      << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(\n +[\d,]+ +PEVT_\w+ +\(100\.00%\)\n)")))
      << r.err;
  // perf's hint, below the counts.
  EXPECT_NE(r.err.find("\n Some events weren't counted: their set never had a turn on the "
                       "counters (the run ended first). Try a shorter --mux-interval-ms or fewer "
                       "events.\n"),
            std::string::npos)
      << r.err;
}

TEST(StatMultiplexing, AnEstimateFromFewerThanTenSlicesOfItsSetIsMarkedWithThem) {
  // bench_int 4 runs about 12 ms: 2 ms slices give each of the two sets 3 turns.
  const RunResult r = hpmsim(
      statArgs({"--json", "--mux-interval-ms", "2", "-e", "instructions," + punitEvents(30)}));
  ASSERT_EQ(r.status(), 0) << r.err;
  const json j = json::parse(r.err.substr(r.err.find("{\n")));
  const u64 slices = j.at("events").at(0).at("mux-slices").get<u64>();
  EXPECT_GE(slices, 1u);
  EXPECT_LT(slices, 10u);
  const RunResult text =
      hpmsim(statArgs({"--mux-interval-ms", "2", "-e", "instructions," + punitEvents(30)}));
  ASSERT_EQ(text.status(), 0) << text.err;
  EXPECT_TRUE(
      std::regex_search(text.err, std::regex(R"(\n +[\d,]+ +instructions +\(\d+\.\d\d%\) \[)" +
                                             std::to_string(slices) + R"( slices?\]\n)")))
      << text.err;
  EXPECT_NE(text.err.find(" [N slices]: an estimate from fewer than 10 slices of its set"),
            std::string::npos)
      << text.err;
}

TEST(StatMultiplexing, IntervalsRegionsAndSlicesShorterThanTheSettlingAreRefused) {
  const std::string events = punitEvents(30);
  for (const char* option : {"-I", "--per-region"}) {
    std::vector<std::string> args = {option};
    if (std::string(option) == "-I") args.push_back("1");
    args.insert(args.end(), {"-e", events});
    const RunResult r = hpmsim(statArgs(args));
    EXPECT_EQ(r.status(), kUsage) << option;
    EXPECT_NE(r.err.find("multiplexed in time slices; -I and --per-region read the counters"),
              std::string::npos)
        << r.err;
  }
  // UPC-Q's readings settle two sweeps (1,600 cycles) after a stop: a 1,600-cycle slice (a
  // microsecond at 1.6 GHz) would count nothing.
  const RunResult r = hpmsim(statArgs({"--mux-interval-ms", "0.001", "-e", events}));
  EXPECT_EQ(r.status(), kUsage);
  EXPECT_NE(r.err.find("a slice must last more than twice the units' settling time"),
            std::string::npos)
      << r.err;
  const RunResult nan = hpmsim(statArgs({"--mux-interval-ms", "nan", "-e", events}));
  EXPECT_EQ(nan.status(), kUsage);
  EXPECT_NE(nan.err.find("'nan' is not a finite number"), std::string::npos) << nan.err;
}

// Reading the counters at interval ends, or switching sets at slice ends, stops every hardware
// thread at the reading's cycle; a thread cut there goes on as if it had not been
// (Kernel::CutSlice): a run of 64 OpenMP threads retires the same instructions in the same
// cycles, read or not. (Before, a cut thread lost its ties: amg's 8,449,840 instructions
// became 8,470,933 with -I 0.01 and 8,487,182 multiplexed.)
TEST(StatSampling, IntervalReadingsAndMultiplexingLeaveAMultiThreadedRunAsItIs) {
  TempDir dir;
  const fs::path out = dir.path() / "stat.json";
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"stat", "--machine", "bgq", "--json", "-o", out.string()});
    args.insert(args.end(), {"--", kGuestBinDir + "/amg", "12", "1"});  // (64 threads)
    const RunResult r = hpmsim(args);
    EXPECT_EQ(r.status(), 0) << r.err;
    return json::parse(std::ifstream(out));
  };
  const json plain = run({"-e", "instructions"});
  EXPECT_EQ(plain.at("counts").at("instructions"), plain.at("instructions"));
  const json sampled = run({"-I", "0.01", "-e", "instructions"});
  const json multiplexed =
      run({"--mux-interval-ms", "0.05", "-e", "instructions,cycles," + punitEvents(30)});
  ASSERT_GT(sampled.at("intervals").size(), 100u);
  ASSERT_GT(multiplexed.at("multiplexing").at("switches").get<u64>(), 10u);
  for (const json* j : {&sampled, &multiplexed}) {
    EXPECT_EQ(j->at("instructions"), plain.at("instructions"));
    EXPECT_EQ(j->at("cycles_simulated"), plain.at("cycles_simulated"));
  }
  EXPECT_EQ(sampled.at("counts"), plain.at("counts"));
}

}  // namespace
