// BGPM and PAPI on the simulated bgq node, end to end (label "papi"). The programs of guest/papi
// check exact counts and the libraries' rules themselves, printing one "ok ..." or "FAIL ..."
// line per check and a final "PASSED"/"FAILED" line (guest/counters' contract); this harness runs
// them under `hpmsim run` in timing mode and holds their exit status and output. Test names
// state the rule:
//
//   Bgpm.<rule>   libbgpm: BGPM's calls, error codes and restrictions, exact counts
//   Papi.<rule>   libpapi: PAPI's calls and rules, exact counts, presets, seed 001's work-arounds
//   PapiTools.<rule>  the PAPI utilities, run by name (`hpmsim run -- papi_avail`)
//   PapiExample.<rule>  one PAPI source built for the node (ours) and the host (Debian's PAPI)
//   PapiHighLevel.<rule>  PAPI_hl_*: the JSON report a run leaves
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/process.h"

namespace {

using hpm::test::RunResult;
using hpm::test::TempDir;

const std::string kHpmsim = HPM_TEST_HPMSIM;
const std::string kBin = std::string(HPM_TEST_GUEST_BIN_DIR) + "/";
const std::string kPapiHost = HPM_TEST_PAPI_HOST;
const std::vector<std::string> kEnv = {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C"};
constexpr std::chrono::seconds kTimeout{300};

RunResult run(const std::vector<std::string>& options, const std::string& program,
              const std::vector<std::string>& args = {}) {
  TempDir dir("hpm-papi");
  std::vector<std::string> argv = {kHpmsim, "run"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.push_back(kBin + program);
  argv.insert(argv.end(), args.begin(), args.end());
  return hpm::test::runProcess(argv, kEnv, "", dir.path(), kTimeout);
}

// The output contract: exit 0, no FAIL line, at least `min_checks` ok lines, the PASSED line.
void expectPassed(const RunResult& r, int min_checks) {
  ASSERT_TRUE(r.exited()) << r.describe() << "\n" << r.err;
  int ok = 0;
  bool passed = false;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    EXPECT_FALSE(line.starts_with("FAIL")) << line;
    if (line.starts_with("ok ")) ++ok;
    if (line == "PASSED: 0 failure(s)") passed = true;
  }
  EXPECT_GE(ok, min_checks) << r.out;
  EXPECT_TRUE(passed) << r.out << r.err;
  EXPECT_EQ(r.exit_code(), 0) << r.out << r.err;
}

TEST(Bgpm, KeepsBgpmRulesErrorCodesAndExactCounts) {
  expectPassed(run({"--machine", "bgq"}, "bgpm_basic"), 40);
}

TEST(Bgpm, AnErrorPrintsAndExitsByDefault) {
  const RunResult r = run({"--machine", "bgq"}, "bgpm_basic", {"exit-on-error"});
  ASSERT_TRUE(r.exited()) << r.describe();
  EXPECT_EQ(r.exit_code(), 1) << r.out << r.err;
  EXPECT_NE(r.err.find("Bgpm error -2004 in Bgpm_Start: invalid event set handle"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
}

TEST(Bgpm, InitRefusesAMachineWithoutUpcQ) {
  const RunResult r = run({"--machine", "bgp"}, "bgpm_basic");
  ASSERT_TRUE(r.exited()) << r.describe() << r.err;
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_NE(r.out.find("FAIL Bgpm_Init(BGPM_MODE_SWDISTRIB) = -1001, want 0"), std::string::npos)
      << r.out;
}

TEST(Papi, KeepsPapiRulesCountsExactlyAndWorksAroundBgpm) {
  expectPassed(run({"--machine", "bgq"}, "papi_basic"), 85);
}

TEST(Papi, EachThreadCountsItsOwnInstructionsExactlyWhileOthersCountToo) {
  expectPassed(run({"--machine", "bgq"}, "papi_threads"), 26);
}

TEST(Papi, TheGroundTruthComponentReadsTheSimulatorsStatisticsAndHoldsCountersAgainstThem) {
  expectPassed(run({"--machine", "bgq"}, "papi_sim"), 14);
}

TEST(Papi, OverflowsInSoftwareAndProfilesIntoBucketsAsProfilDoes) {
  expectPassed(run({"--machine", "bgq"}, "papi_profil"), 15);
}

// ---- hpmsim's run modes (docs/papi.md "Run modes"): each mode offers what it counts ----

TEST(PapiModes, TheFunctionalModeCountsInstructionsExactlyAndRefusesCacheAndPipelineEvents) {
  expectPassed(run({"--machine", "bgq", "--mode", "functional"}, "papi_modes", {"functional"}), 0);
}

TEST(PapiModes, TheWarmupModeRefusesThePipelinesEventsWhenAddedAndCountsTheOthersExactly) {
  expectPassed(run({"--machine", "bgq", "--mode", "warmup"}, "papi_modes", {"warmup"}), 44);
}

TEST(PapiModes, TheTimingModeTakesThePipelinesEventsAndCountsThemExactly) {
  expectPassed(run({"--machine", "bgq"}, "papi_modes", {"timing"}), 45);
}

// A PAPI utility run by its name alone, as a user types it, from an empty directory (`dir`, or
// one of its own), with hpmsim's `options` (a mode).
RunResult tool(const std::vector<std::string>& command,
               const std::vector<std::string>& options = {}, const std::string& dir = "") {
  TempDir own("hpm-papi-tool");
  std::vector<std::string> argv = {kHpmsim, "run"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  return hpm::test::runProcess(argv, kEnv, "", dir.empty() ? own.path().string() : dir, kTimeout);
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(PapiTools, AvailIsFoundByNameAndListsThisNodesPresets) {
  const RunResult r = tool({"papi_avail"});
  ASSERT_TRUE(r.exited()) << r.describe() << r.err;
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_TRUE(has(r.out, "Of 108 possible events, 37 are available, of which 10 are derived."))
      << r.out;
  EXPECT_TRUE(has(r.out, "PAPI_TOT_INS 0x80000032  Yes   No   Instructions completed\n")) << r.out;
  EXPECT_TRUE(has(r.out, "PAPI_VEC_INS 0x80000038  No    No   Vector/SIMD instructions")) << r.out;
  EXPECT_TRUE(has(r.out, "CPU Max MHz              : 1600\n")) << r.out;
}

TEST(PapiTools, AvailInTheWarmupModeListsOnlyThePresetsWhoseEventsTheModeCounts) {
  const RunResult r = tool({"papi_avail"}, {"--mode", "warmup"});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_TRUE(has(r.out, "PAPI_TOT_INS 0x80000032  Yes   No   Instructions completed\n")) << r.out;
  EXPECT_TRUE(has(r.out, "PAPI_BR_CN   0x8000002b  Yes   No ")) << r.out;
  EXPECT_TRUE(has(r.out, "PAPI_L1_DCM  0x80000000  Yes   Yes ")) << r.out;
  EXPECT_TRUE(has(r.out, "PAPI_BR_TKN  0x8000002c  No    No ")) << r.out;
  EXPECT_TRUE(has(r.out, "PAPI_STL_ICY 0x80000025  No    No ")) << r.out;
  const std::smatch m = [&] {
    std::smatch found;
    std::regex_search(r.out, found, std::regex(R"(Of 108 possible events, (\d+) are available)"));
    return found;
  }();
  ASSERT_EQ(m.size(), 2u) << r.out;
  EXPECT_LT(std::stoi(m[1]), 37) << "the timing mode's 37 presets, less the pipeline's";
  EXPECT_GT(std::stoi(m[1]), 15);
}

TEST(PapiTools, ComponentAvailInTheFunctionalModeListsTheCounterComponentsEnabled) {
  const RunResult r = tool({"papi_component_avail"}, {"--machine", "bgq", "--mode", "functional"});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  // Each counter component's line, and no reason for it being disabled after it.
  std::vector<std::string> lines;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  for (const std::string c :
       {"bgpm/PUnit ", "bgpm/L2Unit ", "bgpm/IOUnit ", "bgpm/CNKUnit ", "bgpm/NWUnit ", "sim "}) {
    const auto at = std::find_if(lines.begin(), lines.end(), [&](const std::string& l) {
      return l.starts_with("Name:   " + c);
    });
    ASSERT_TRUE(at != lines.end()) << c << "\n" << r.out;
    EXPECT_TRUE(at + 1 == lines.end() || !has(*(at + 1), "Disabled")) << c << "\n" << r.out;
  }
  EXPECT_FALSE(has(r.out, "Disabled")) << r.out;
}

TEST(PapiTools, AvailInTheFunctionalModeListsOnlyThePresetsOfInstructionsAndCycles) {
  const RunResult r = tool({"papi_avail"}, {"--mode", "functional"});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_TRUE(has(r.out, "PAPI_TOT_INS 0x80000032  Yes   No   Instructions completed\n")) << r.out;
  EXPECT_TRUE(has(r.out, "PAPI_TOT_CYC 0x8000003b  Yes   No ")) << r.out;
  EXPECT_TRUE(has(r.out, "PAPI_BR_CN   0x8000002b  Yes   No ")) << r.out;
  EXPECT_TRUE(has(r.out, "PAPI_LD_INS  0x80000035  Yes   No ")) << r.out;
  EXPECT_TRUE(has(r.out, "PAPI_SR_INS  0x80000036  Yes   No ")) << r.out;
  EXPECT_TRUE(has(r.out, "PAPI_L1_DCM  0x80000000  No    No ")) << r.out;
  EXPECT_TRUE(has(r.out, "PAPI_L2_DCM  0x80000002  No    No ")) << r.out;
  EXPECT_TRUE(has(r.out, "PAPI_BR_TKN  0x8000002c  No    No ")) << r.out;
  const std::smatch m = [&] {
    std::smatch found;
    std::regex_search(r.out, found, std::regex(R"(Of 108 possible events, (\d+) are available)"));
    return found;
  }();
  ASSERT_EQ(m.size(), 2u) << r.out;
  EXPECT_LT(std::stoi(m[1]), 27) << "the warm-up mode's 27 presets, less the caches'";
  EXPECT_GT(std::stoi(m[1]), 15);
}

TEST(PapiTools, AvailDetailsADerivedPreset) {
  const RunResult r = tool({"papi_avail", "-e", "PAPI_BR_NTK"});
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_TRUE(has(r.out, "Derived Type:                |DERIVED_POSTFIX|")) << r.out;
  EXPECT_TRUE(has(r.out, "Postfix Processing String:   |N0|N1|-|N2|+||")) << r.out;
  EXPECT_TRUE(has(r.out, "|PEVT_INST_XU_BRC|")) << r.out;
}

TEST(PapiTools, NativeAvailListsEveryActiveComponentsEventsAsComponentAvailCountsThem) {
  const RunResult native = tool({"papi_native_avail"});
  const RunResult components = tool({"papi_component_avail"});
  ASSERT_EQ(native.exit_code(), 0) << native.err;
  ASSERT_EQ(components.exit_code(), 0) << components.err;
  EXPECT_TRUE(has(native.out, " Native Events in Component: bgpm/L2Unit\n")) << native.out;
  EXPECT_TRUE(has(native.out, "| PEVT_L2_HITS ")) << native.out;
  EXPECT_TRUE(has(native.out, " Native Events in Component: bgpm/NWUnit\n")) << native.out;
  EXPECT_TRUE(has(native.out, "| PEVT_NW_USER_PP_SENT ")) << native.out;
  // The total papi_native_avail reports is the sum of the active components' native counts.
  const std::regex counts(R"(Native: (\d+), Preset: \d+, Counters: \d+)");
  long sum = 0;
  for (std::sregex_iterator it(components.out.begin(), components.out.end(), counts), end;
       it != end; ++it) {
    sum += std::stol((*it)[1]);
  }
  EXPECT_GT(sum, 500);
  EXPECT_TRUE(has(native.out, "Total events reported: " + std::to_string(sum) + "\n")) << sum;
  EXPECT_TRUE(has(components.out, "Name:   bgpm/NWUnit")) << components.out;
  EXPECT_FALSE(has(components.out, "Disabled")) << components.out;
}

// Its work is PAPI's testlib's flops loop (1,000,000 iterations of c += a * b: one fused
// multiply-add each) and a pass over a 512 KiB buffer, so the floating-point counts are exact.
TEST(PapiTools, CommandLineCountsTheEventsItIsGivenAroundKnownWorkAndNamesTheOnesItCannot) {
  const RunResult r = tool(
      {"papi_command_line", "PAPI_TOT_INS", "PEVT_NO_SUCH_EVENT", "PAPI_FP_OPS", "PAPI_FP_INS"});
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_TRUE(
      r.out.starts_with("\nThis utility lets you add events from the command line "
                        "interface to see if they work.\n\nSuccessfully added: "
                        "PAPI_TOT_INS\n"))
      << r.out;
  EXPECT_TRUE(has(r.out, "Failed adding: PEVT_NO_SUCH_EVENT\nbecause: Event does not exist\n"))
      << r.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(\nPAPI_TOT_INS : \t(\d+) \n)"))) << r.out;
  EXPECT_GT(std::stoll(m[1]), 3000000);
  EXPECT_TRUE(has(r.out, "\nPAPI_FP_OPS : \t2000000 \n")) << r.out;
  // The loop's 1,000,000 fused multiply-adds, and the register move (fmv.d) the compiler puts
  // before it: an instruction of the floating-point unit, not an operation.
  EXPECT_TRUE(has(r.out, "\nPAPI_FP_INS : \t1000001 \n")) << r.out;
  EXPECT_TRUE(r.out.ends_with("\n----------------------------------\n")) << r.out;
}

// PAPI 7's layout: the header, a line per preset (name, code, whether derived, description),
// the rule and the total; the given events are already in the set, so not listed.
TEST(PapiTools, EventChooserListsEventsCountableWithTheGivenOnes) {
  const RunResult r = tool({"papi_event_chooser", "PRESET", "PAPI_TOT_INS"});
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_TRUE(
      r.out.starts_with("Event Chooser: Available events which can be added with given "
                        "events.\n-----"))
      << r.out;
  EXPECT_TRUE(has(r.out, "\n    Name        Code    Deriv Description (Note)\n")) << r.out;
  EXPECT_TRUE(has(r.out, "\nPAPI_TOT_CYC 0x8000003b  No   Total cycles\n")) << r.out;
  EXPECT_TRUE(has(r.out, "\nPAPI_BR_NTK  0x8000002d  Yes  ")) << r.out;
  EXPECT_FALSE(has(r.out, "\nPAPI_TOT_INS ")) << r.out;  // already in the set
  EXPECT_FALSE(has(r.out, "PASSED")) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\n-{73}\nTotal events reported: \\d+\n$")))
      << r.out;
  const RunResult native = tool({"papi_event_chooser", "NATIVE", "PEVT_INST_ALL"});
  EXPECT_EQ(native.exit_code(), 0) << native.err;
  EXPECT_TRUE(
      std::regex_search(native.out, std::regex("\nPEVT_CYCLES\t0x[0-9a-f]+\n \\|[^\n]+\\|\n")))
      << native.out;
  const RunResult usage = tool({"papi_event_chooser", "PRESET"});
  EXPECT_EQ(usage.exit_code(), 1);
  EXPECT_EQ(usage.err, "Usage: papi_event_chooser NATIVE|PRESET evt1 evt2 ... \n");
}

TEST(PapiTools, CostReportsEachCallInCycles) {
  const RunResult r = tool({"papi_cost", "-t", "100"});
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  for (const char* what :
       {"PAPI_start/stop (2 counters)", "PAPI_read (2 counters)", "PAPI_read_ts (2 counters)",
        "PAPI_accum (2 counters)", "PAPI_reset (2 counters)"}) {
    EXPECT_TRUE(has(r.out, std::string("Total cost for ") + what + " over 100 iterations\n"))
        << what << "\n"
        << r.out;
  }
}

// PAPI 7's papi_multiplex_cost: its messages, and its five .dat files (a header, then a row per
// set size: the kernel-multiplexed set's min, max, mean and standard deviation in cycles, then the
// software-multiplexed one's), with figures of real calls: positive, min <= mean <= max, and a
// start/stop dearer than a read.
TEST(PapiTools, MultiplexCostWritesPapisFiveDatFilesOfRealCallCosts) {
  TempDir dir("hpm-papi-mpx");
  const RunResult r = tool({"papi_multiplex_cost", "-x", "4", "-t", "20"}, {}, dir.path());
  ASSERT_EQ(r.exit_code(), 0) << r.out << r.err;
  EXPECT_EQ(r.out,
            "This utility benchmarks the overhead of PAPI multiplexing\n"
            "Warning!  This can take a long time (many minutes) to run\n"
            "The output goes to multiple .dat files in the current directory\n\n");
  EXPECT_EQ(r.err, "Running test[s]\n\tKernel multiplexing read\n\tSoftware Multiplexing read\n");
  const std::string columns =
      "#number of events\tmin cycles\tmax cycles\tmean cycles\tstd deviation\tsw min cycles\t"
      "sw max cycles\tsw avg cycles\tsw std dev\n";
  std::map<std::string, double> mean_of;  // file -> the mean of its last row, kernel set
  for (const auto& [file, title] : std::vector<std::pair<std::string, std::string>>{
           {"papi_startstop.dat", "Multiplexed PAPI_read()"},
           {"papi_read.dat", "Multiplexed PAPI_read()"},
           {"papi_read_ts.dat", "Multiplexed PAPI_read_ts()"},
           {"papi_accum.dat", "Multiplexed PAPI_accum()"},
           {"papi_reset.dat", "Multiplexed PAPI_reset()"}}) {
    SCOPED_TRACE(file);
    std::ifstream in(std::filesystem::path(dir.path()) / file);
    ASSERT_TRUE(in.good());
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "###" + title);
    std::getline(in, line);
    EXPECT_EQ(line + "\n", columns);
    int rows = 0;
    while (std::getline(in, line)) {
      // "%20d\t%10lld\t%10lld\t%10lf\t%10lf" twice over (the events' count once).
      const std::regex row(R"( {19}(\d)\t *(\d+)\t *(\d+)\t *([\d.]+)\t *([\d.]+))"
                           R"(\t *(\d+)\t *(\d+)\t *([\d.]+)\t *([\d.]+))");
      std::smatch m;
      ASSERT_TRUE(std::regex_match(line, m, row)) << line;
      ++rows;
      EXPECT_EQ(std::stoi(m[1]), rows) << "sets of 1, 2, 3 events (-x 4: up to 3, as PAPI's)";
      for (int k : {2, 6}) {
        const double lo = std::stod(m[k]), hi = std::stod(m[k + 1]), mean = std::stod(m[k + 2]);
        EXPECT_GT(lo, 0) << line;
        EXPECT_LE(lo, mean) << line;
        EXPECT_LE(mean, hi) << line;
        EXPECT_GE(std::stod(m[k + 3]), 0) << line;
      }
      mean_of[file] = std::stod(m[4]);
    }
    EXPECT_EQ(rows, 3);
  }
  EXPECT_GT(mean_of["papi_startstop.dat"], mean_of["papi_read.dat"]) << "a start and a stop";
}

TEST(PapiTools, MemInfoGivesTheMachinesCacheGeometry) {
  const RunResult bgq = tool({"papi_mem_info"});
  EXPECT_EQ(bgq.exit_code(), 0) << bgq.err;
  EXPECT_TRUE(has(bgq.out,
                  "L1 Data Cache:\n  Total size:             16 KB\n  Line size:              "
                  "64 B\n  Number of Lines:       256\n  Associativity:           8\n"))
      << bgq.out;
  EXPECT_TRUE(has(bgq.out,
                  "L2 Unified Cache:\n  Total size:          32768 KB\n  Line size:     "
                  "        128 B\n"))
      << bgq.out;
  TempDir dir("hpm-papi-tool");
  const RunResult bigger =
      hpm::test::runProcess({kHpmsim, "run", "--set", "l1d.size_kib=32", "--", "papi_mem_info"},
                            kEnv, "", dir.path(), kTimeout);
  EXPECT_TRUE(has(bigger.out, "L1 Data Cache:\n  Total size:             32 KB\n")) << bigger.out;
}

TEST(PapiTools, DecodeWritesThePresetsAsCsv) {
  const RunResult r = tool({"papi_decode", "-a"});
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_TRUE(has(r.out, "name,derived,postfix,short_descr,long_descr,note,[native,...]\n"))
      << r.out;
  EXPECT_TRUE(has(r.out,
                  "PAPI_TOT_INS,NOT_DERIVED,,\"Instr completed\",\"Instructions completed\",\"\","
                  "PEVT_INST_ALL\n"))
      << r.out;
  EXPECT_FALSE(has(r.out, "PAPI_VEC_INS")) << r.out;
}

TEST(PapiTools, VersionPrintsTheVersionTheLibraryImplements) {
  const RunResult r = tool({"papi_version"});
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_EQ(r.out, "PAPI Version: 7.0.0.0\n");
}

// PAPI 7's 28 error codes (0 and -1 to -27), each with PAPI_strerror's message.
TEST(PapiTools, ErrorCodesListsEveryCodeWithItsMessage) {
  const RunResult r = tool({"papi_error_codes"});
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_TRUE(
      r.out.starts_with("\n----------------------------------\nFor PAPI Version: "
                        "7.0.0.0\n----------------------------------\nError code    0: "
                        "No error\nError code   -1: Invalid argument\n"))
      << r.out;
  EXPECT_TRUE(has(r.out,
                  "Error code   -8: Event exists, but cannot be counted due to counter resource "
                  "limitations\n"))
      << r.out;
  EXPECT_TRUE(has(r.out, "\nError code  -27: ")) << r.out;
  EXPECT_FALSE(has(r.out, "\nError code  -28: ")) << r.out;
  EXPECT_TRUE(
      has(r.out, "There are 28 error codes defined\n----------------------------------\n\n"))
      << r.out;
}

// Each clock reads a non-decreasing time; the real cycle clock advances between two readings
// (each reading is a few instructions: several cycles), as the simulated node's time base does.
TEST(PapiTools, ClockresGivesEachClocksLatencyAndResolution) {
  const RunResult r = tool({"papi_clockres", "-n", "1000"});
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_TRUE(
      r.out.starts_with("Printing Clock latency and resolution.\n"
                        "-----------------------------------------------\n"))
      << r.out;
  for (const char* clock :
       {"PAPI_get_real_cyc", "PAPI_get_real_usec", "PAPI_get_virt_cyc", "PAPI_get_virt_usec"}) {
    EXPECT_TRUE(std::regex_search(
        r.out, std::regex(std::string(clock) + R"(: min \d+\.\d{3}  max \d+\.\d{3} \n)")))
        << clock << "\n"
        << r.out;
  }
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(PAPI_get_real_cyc: min (\d+)\.)")))
      << r.out;
  EXPECT_GT(std::stol(m[1]), 0) << r.out;
  // Every reading of the cycle clock differs from the one before: "<" marks a resolution finer
  // than one reading.
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(PAPI_get_real_cyc : +\d+\.\d{3}   <)")))
      << r.out;
}

// The sysdetect component's device queries: the CPU type with the node's cores, threads and
// caches (bgq: 16 cores of 4 threads, 16 KiB 8-way L1s of 64-byte lines, the 32 MiB L2 of
// 128-byte lines), the GPU types empty.
TEST(PapiTools, HardwareAvailDescribesTheNodesDevices) {
  const RunResult r = tool({"papi_hardware_avail"});
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_TRUE(r.out.starts_with(
      "\nDevice Summary -----------------------------------------------------------------\n"
      "Vendor           DevCount \nhpmsim             (1)\n \\-> Status: Device Initialized\n\n"
      "NVIDIA             (0)\n \\-> Status: CUDA not configured, no CUDA device available\n\n"))
      << r.out;
  for (const char* line : {"Sockets                               : 1\n",
                           "Cores per socket                      : 16\n",
                           "Cores per NUMA region                 : 64\n",
                           "SMT threads per core                  : 4\n",
                           "L1i Cache                             : Size/LineSize/Lines/Assoc "
                           "16KB/64B/256/4\n",
                           "L1d Cache                             : Size/LineSize/Lines/Assoc "
                           "16KB/64B/256/8\n",
                           "L2 Cache                              : Size/LineSize/Lines/Assoc "
                           "32768KB/128B/262144/16\n"}) {
    EXPECT_TRUE(has(r.out, line)) << line << r.out;
  }
  EXPECT_TRUE(std::regex_search(r.out, std::regex("Numa Node 0 Memory +: [1-9]\\d*MB\n"))) << r.out;
  EXPECT_TRUE(has(r.out, "Numa Node 0 Threads                   : 0 1 2 3 4 ")) << r.out;
  EXPECT_TRUE(has(r.out, " 62 63 \n\n-----")) << r.out;
}

// PAPI 7's XML: the hardware, then each component's events that fit beside the named ones.
TEST(PapiTools, XmlEventInfoWritesTheCountableEventsAsXml) {
  const RunResult r = tool({"papi_xml_event_info", "-c", "0", "PAPI_TOT_INS"});
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_TRUE(
      r.out.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<eventinfo>\n"
                        "<hardware>\n  <vendor string=\""))
      << r.out;
  EXPECT_TRUE(has(r.out, "  <cpuMaxMegahertz value=\"1600\"/>\n")) << r.out;
  EXPECT_TRUE(has(r.out,
                  "</hardware>\n<component index=\"0\" type=\"CPU\" id=\"bgpm/PUnit\">\n"
                  "  <eventset type=\"NATIVE\">\n"))
      << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(\n    <event index="\d+" name="PAPI_TOT_CYC" desc="Total cycles">\n)"
                        R"(    </event>\n)")))
      << r.out;
  EXPECT_FALSE(has(r.out, "name=\"PAPI_TOT_INS\"")) << r.out;  // already in the set
  EXPECT_FALSE(has(r.out, "bgpm/L2Unit")) << r.out;            // -c 0
  EXPECT_TRUE(r.out.ends_with("  </eventset>\n</component>\n</eventinfo>\n")) << r.out;
  const auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = r.out.find(what); at != std::string::npos; at = r.out.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_GT(count("<event "), 30u);
  EXPECT_EQ(count("<event "), count("</event>"));
  const RunResult unknown = tool({"papi_xml_event_info", "PEVT_NO_SUCH"});
  EXPECT_EQ(unknown.exit_code(), 1);
  EXPECT_TRUE(unknown.err.starts_with("Error: unknown event: PEVT_NO_SUCH\nUsage: "))
      << unknown.err;
}

// guest/examples/papi_count.c's "PAPI_TOT_INS <n> <2n>" line: the two counts.
std::pair<long long, long long> counts(const std::string& out, const std::string& event) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex(event + R"( (\d+) (\d+)\n)"))) return {-1, -1};
  return {std::stoll(m[1]), std::stoll(m[2])};
}

TEST(PapiExample, TheSameSourceCountsTheLoopOnTheNode) {
  const long n = 100000;
  const RunResult r = run({"--machine", "bgq"}, "example_papi_count", {std::to_string(n)});
  ASSERT_EQ(r.exit_code(), 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "component 0: bgpm/PUnit\n")) << r.out;
  const auto [one, two] = counts(r.out, "PAPI_TOT_INS");
  // The second run's n more iterations of a loop of k instructions: k n more, give or take the
  // few instructions the compiler places differently around the two calls (exactness is
  // Papi.KeepsPapiRulesCountsExactlyAndWorksAroundBgpm's, on loops it controls).
  ASSERT_GT(one, n) << r.out;
  const long long k = (two - one + n / 2) / n;
  EXPECT_GE(k, 3) << r.out;
  EXPECT_LE(k, 10) << r.out;
  EXPECT_LE(std::llabs(two - one - k * n), 32) << r.out;
  const auto [c1, c2] = counts(r.out, "PAPI_TOT_CYC");
  EXPECT_GT(c2, c1) << r.out;
  EXPECT_GE(c1, one) << r.out;
}

TEST(PapiExample, TheSameSourceRunsOnTheHostAgainstDebiansPapi) {
  const long n = 100000;
  TempDir dir("hpm-papi-host");
  const RunResult r =
      hpm::test::runProcess({kPapiHost, std::to_string(n)}, kEnv, "", dir.path(), kTimeout);
  ASSERT_TRUE(r.exited()) << r.describe() << r.err;
  if (r.exit_code() == 77) {
    // No hardware counters reach this host's kernel: PAPI itself says so, cleanly.
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m,
                                  std::regex(R"(PAPI_\w+(\(\w+\))?: [^\n]+ \(PAPI error -\d+\))")))
        << r.out;
    GTEST_SKIP() << "the host's PAPI cannot count PAPI_TOT_INS here: " << m[0] << " ("
                 << r.out.substr(0, r.out.find('\n')) << ")";
  }
  ASSERT_EQ(r.exit_code(), 0) << r.out << r.err;
  const auto [one, two] = counts(r.out, "PAPI_TOT_INS");
  EXPECT_GT(one, n) << r.out;
  EXPECT_GT(two, one + n) << r.out;
}

// guest/papi/papi_hl.c run in a fresh directory with `options`; its report, parsed.
nlohmann::json highLevelReport(const std::vector<std::string>& options, RunResult* result,
                               const std::string& directory = "papi_hl_output") {
  TempDir dir("hpm-papi-hl");
  std::vector<std::string> argv = {kHpmsim, "run", "--machine", "bgq"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), {"--", kBin + "papi_hl"});
  *result = hpm::test::runProcess(argv, kEnv, "", dir.path(), kTimeout);
  const std::filesystem::path out = std::filesystem::path(dir.path()) / directory;
  if (!std::filesystem::is_directory(out)) return nullptr;
  for (const auto& entry : std::filesystem::directory_iterator(out)) {
    std::ifstream in(entry.path());
    return nlohmann::json::parse(in, nullptr, false);
  }
  return nullptr;
}

TEST(PapiHighLevel, WritesPapisReportWithEachRegionsExactCounts) {
  RunResult r;
  const nlohmann::json report =
      highLevelReport({"--env", "PAPI_EVENTS=PAPI_TOT_INS,PAPI_TOT_CYC"}, &r);
  ASSERT_EQ(r.exit_code(), 0) << r.out << r.err;
  ASSERT_TRUE(report.is_object()) << r.out << r.err;
  EXPECT_EQ(report["papi_version"], "7.0.0.0");
  EXPECT_EQ(report["max_cpu_rate_mhz"], "1600");
  EXPECT_EQ(report["event_definitions"]["PAPI_TOT_INS"]["component"], "bgpm/PUnit");
  EXPECT_EQ(report["event_definitions"]["PAPI_TOT_INS"]["type"], "delta");
  const nlohmann::json& regions = report["threads"]["0"]["regions"];
  ASSERT_EQ(regions.size(), 6u) << regions.dump(2);
  EXPECT_EQ(regions["0"]["name"], "loop");
  EXPECT_EQ(regions["1"]["name"], "loop");
  // The same code around loops of 1000 and 51000 iterations of 2 instructions.
  EXPECT_EQ(std::stoll(regions["1"]["PAPI_TOT_INS"].get<std::string>()) -
                std::stoll(regions["0"]["PAPI_TOT_INS"].get<std::string>()),
            100000);
  EXPECT_EQ(regions["2"]["name"], "outer");
  EXPECT_EQ(regions["2"]["parent_region_id"], "-1");
  EXPECT_EQ(regions["3"]["name"], "inner");
  EXPECT_EQ(regions["3"]["parent_region_id"], "2");
  EXPECT_GT(std::stoll(regions["2"]["PAPI_TOT_INS"].get<std::string>()),
            std::stoll(regions["3"]["PAPI_TOT_INS"].get<std::string>()));
  // A read midway records the region so far, under the open region.
  EXPECT_EQ(regions["5"]["name"], "reading");
  EXPECT_EQ(regions["5"]["parent_region_id"], "4");
  EXPECT_LT(std::stoll(regions["5"]["PAPI_TOT_INS"].get<std::string>()),
            std::stoll(regions["4"]["PAPI_TOT_INS"].get<std::string>()));
  EXPECT_GE(std::stoll(regions["1"]["cycles"].get<std::string>()), 100000);
}

TEST(PapiHighLevel, TakesItsDirectoryFromTheEnvironmentAndReportsOnStdoutWhenAsked) {
  RunResult r;
  const nlohmann::json report =
      highLevelReport({"--env", "PAPI_OUTPUT_DIRECTORY=hl", "--env", "PAPI_REPORT=1"}, &r, "hl");
  ASSERT_EQ(r.exit_code(), 0) << r.out << r.err;
  ASSERT_TRUE(report.is_object()) << r.out;
  // The default events: those of PAPI_TOT_INS, PAPI_TOT_CYC, PAPI_FP_INS and PAPI_FP_OPS here.
  EXPECT_EQ(report["event_definitions"].size(), 4u) << report.dump(2);
  EXPECT_TRUE(has(r.out, "\n\nPAPI-HL Output:\n{\n  \"papi_version\":\"7.0.0.0\",")) << r.out;
}

}  // namespace
