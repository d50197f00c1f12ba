// `hpmsim run`'s outputs as functions of their records, without a guest: the profile's CSVs and
// its top functions, --summary's lines, the reading of a --upc-config file and the table of the
// counters it programmed.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "base/error.h"
#include "tests/support/process.h"
#include "tools/hpmsim/lib/profile_csv.h"
#include "tools/hpmsim/lib/run_result.h"
#include "tools/hpmsim/lib/upc_config.h"

namespace hpm::tools {
namespace {

TEST(ProfileCsv, SamplesHaveAColumnPerPipeOfTheWidestSampleXuFirstWithFourPlaces) {
  std::vector<ProfileSample> samples(2);
  samples[0] = {0, 1000, {0.5, 0.25, 1.0}, 0.125, 0.0};
  samples[1] = {1, 1000, {0.75}, 0.0, 0.5};
  EXPECT_EQ(profileSamplesCsv(samples, 2),
            "core,cycle,xu0_ipc,xu1_ipc,axu0_ipc,lmq_full_share,sq_full_share\n"
            "0,1000,0.5000,0.2500,1.0000,0.1250,0.0000\n"
            "1,1000,0.7500,0.0000,0.0000,0.0000,0.5000\n");
}

TEST(ProfileCsv, FunctionsHaveTheirCountsAndACycleColumnPerStallCause) {
  FunctionProfile f{"main", 10, 20, {}};
  f.stalls[static_cast<std::size_t>(timing::Stall::kIdle)] = 3;
  const std::string csv = profileFunctionsCsv({f});
  std::string header = "function,instructions,cycles";
  std::string row = "\"main\",10,20";
  for (std::size_t i = 0; i < timing::kStallCount; ++i) {
    header += ",stall_" + std::string(timing::stallName(static_cast<timing::Stall>(i)));
    row += i == static_cast<std::size_t>(timing::Stall::kIdle) ? ",3" : ",0";
  }
  EXPECT_EQ(csv, header + "\n" + row + "\n");
}

TEST(ProfileCsv, TheTopFunctionsShowTheirShareOfAllCyclesAndTheirCpi) {
  const std::vector<FunctionProfile> f = {
      {"hot", 100, 300, {}}, {"cold", 50, 100, {}}, {"idle", 0, 0, {}}};
  EXPECT_EQ(profileTopText(f, 2),
            " cycles%         cycles   instructions      CPI  function\n"
            "  75.00%            300            100     3.00  hot\n"
            "  25.00%            100             50     2.00  cold\n");
  EXPECT_EQ(profileTopText({}, 20), " cycles%         cycles   instructions      CPI  function\n");
}

// A UPC-P-like catalogue: counter c counts input select x 4 + c.
std::vector<NativeEvent> catalogue() {
  std::vector<NativeEvent> events;
  for (i32 select = 0; select < 2; ++select) {
    for (i32 c = 0; c < 4; ++c) {
      NativeEvent e;
      e.name = "EV_" + std::to_string(select) + "_" + std::to_string(c);
      e.counter = c;
      e.select = select;
      events.push_back(e);
    }
  }
  return events;
}

std::string configFile(const test::TempDir& dir, const std::string& text) {
  const std::string path = (dir.path() / "upc.txt").string();
  std::ofstream(path) << text;
  return path;
}

std::vector<std::string> names(const std::vector<const NativeEvent*>& events) {
  std::vector<std::string> out;
  for (const NativeEvent* e : events) out.push_back(e->name);
  return out;
}

TEST(UpcConfig, ASelectProgramsEveryCounterAndANamedEventOverridesItsCounter) {
  test::TempDir dir;
  const auto events = catalogue();
  EXPECT_EQ(
      names(parseUpcConfig(configFile(dir, "# mode 0\nEV_1_2\nselect 0  # the rest\n"), events, 4)),
      (std::vector<std::string>{"EV_0_0", "EV_0_1", "EV_1_2", "EV_0_3"}));
  EXPECT_EQ(names(parseUpcConfig(configFile(dir, "EV_1_3\n"), events, 4)),
            (std::vector<std::string>{"EV_1_3"}));
}

TEST(UpcConfig, MistakesAreRefusedNamingTheLine) {
  test::TempDir dir;
  const auto events = catalogue();
  const auto error = [&](const std::string& text) -> std::string {
    try {
      parseUpcConfig(configFile(dir, text), events, 4);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error("select 7\n").find("upc.txt:1: select 7 names no event of counter 0"),
            std::string::npos);
  EXPECT_NE(error("\nselect\n").find("upc.txt:2: expected `select S`"), std::string::npos);
  EXPECT_NE(error("EV_0_0 EV_0_1\n").find("upc.txt:1: one event name per line"), std::string::npos);
  EXPECT_NE(error("NOPE\n").find("upc.txt:1: unknown event 'NOPE'"), std::string::npos);
  EXPECT_NE(error("EV_0_1\nEV_1_1\n")
                .find("upc.txt:2: EV_1_1 and EV_0_1 (line 1) are both inputs "
                      "of counter 1"),
            std::string::npos);
  EXPECT_NE(error("# nothing\n").find("programs no counter"), std::string::npos);
}

TEST(UpcCountersText, EachCounterShowsItsSelectAndEventAndTheGuestsChangesAreMarked) {
  const std::vector<UpcCounterRow> rows = {{0, 0, "EV_0_0", 12345, false},
                                           {1, 1, "EV_1_1", 7, true}};
  EXPECT_EQ(upcCountersText("upc.txt", 1000, rows),
            "hpmsim: UPC-P counters programmed by upc.txt (2 counters, 1000 cycles)\n"
            " counter  select  event                                               value\n"
            "       0       0  EV_0_0                                              12345\n"
            "       1       1  EV_1_1                                                  7  "
            "(reprogrammed by the guest)\n");
}

TEST(RunSummary, TotalsGiveElapsedCyclesSimulatedSecondsAndMipsThenOneLinePerRegion) {
  RunResult r;
  r.program = "./prog";
  r.machine = "bgq";
  r.clock_mhz = 1600;
  r.mode = "timing";
  r.instructions = 3'000'000;
  r.cycles = 1'600'000;
  r.simulated_ns = 1'000'000;
  r.host_seconds = 2.0;
  r.exit_status = 3;
  RegionReport region;
  region.id = 1;
  region.name = "solve";
  region.total.entries = 2;
  region.total.instructions = 1000;
  region.total.cycles = 500;
  r.regions = {region};
  EXPECT_DOUBLE_EQ(r.mips(), 1.5);
  EXPECT_EQ(runSummaryText(r),
            "hpmsim: ./prog on bgq (timing mode): 3000000 instructions, 1600000 cycles elapsed "
            "(0.001000 s simulated at 1600 MHz), 2.000 s host, 1.5 MIPS, exit status 3\n"
            "hpmsim:   region 1 (solve): 2 entries, 1000 instructions, 500 cycles elapsed\n");
  r.host_seconds = 0;
  EXPECT_DOUBLE_EQ(r.mips(), 0.0);  // (no host time: no rate)
}

}  // namespace
}  // namespace hpm::tools
