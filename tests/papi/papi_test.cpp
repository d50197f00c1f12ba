// BGPM and PAPI on the simulated bgq node, end to end (label "papi"). The programs of guest/papi
// check exact counts and the libraries' rules themselves, printing one "ok ..." or "FAIL ..."
// line per check and a final "PASSED"/"FAILED" line (guest/counters' contract); this harness runs
// them under `hpmsim run` in timing mode and holds their exit status and output. Test names
// state the rule:
//
//   Bgpm.<rule>   libbgpm: BGPM's calls, error codes and restrictions, exact counts
//   Papi.<rule>   libpapi: PAPI's calls and rules, exact counts, presets, seed 001's work-arounds
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/process.h"

namespace {

using hpm::test::RunResult;
using hpm::test::TempDir;

const std::string kHpmsim = HPM_TEST_HPMSIM;
const std::string kBin = std::string(HPM_TEST_GUEST_BIN_DIR) + "/";
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
  expectPassed(run({"--machine", "bgq"}, "papi_basic"), 70);
}

}  // namespace
