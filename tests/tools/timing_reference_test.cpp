// The timing results held to a fixed reference (issue 43): a set of programs on both machines,
// 1 to 64 threads, in the timing mode (and one each in the profile and warm-up modes), each
// run's every statistic (its --stats-json, less what depends on the host: seconds, speed,
// memory, the command line; and less the statistics' measures) reduced to a 64-bit digest and
// compared with tests/data/timing_reference.txt. So work on the timing model's speed cannot change
// a result unnoticed: any change to any statistic of any of these runs fails its case, which prints
// the instructions and cycles it expected and got, and leaves the run's statistics in the test's
// working directory (timing_reference/<case>.json) to compare with a run of the earlier binary.
//
// A change that is meant to change results regenerates the file: `ninja timing_reference`
// (runs this test with HPM_TIMING_REFERENCE_WRITE set to the file's path).
//
// The guest's environment is empty and its program path relative (run from the programs'
// folder), so the runs do not depend on where the tree is checked out.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/process.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kHpmsim = HPM_TEST_HPMSIM;
const fs::path kGuestBinDir = HPM_TEST_GUEST_BIN_DIR;
const fs::path kReference = fs::path(HPM_TEST_SOURCE_DIR) / "tests/data/timing_reference.txt";

struct Case {
  std::string name;  // [a-z0-9_]: the reference file's key and the test's name
  std::string machine;
  std::string mode;
  int threads;  // OMP_NUM_THREADS (0: unset)
  std::vector<std::string> program;
};

const std::vector<Case> kCases = {
    {"bgq_node_mix", "bgq", "timing", 0, {"node_mix"}},
    {"bgq_bench_int", "bgq", "timing", 0, {"bench_int", "10"}},
    {"bgq_bench_mem", "bgq", "timing", 0, {"bench_mem", "1"}},
    {"bgq_bench_fp", "bgq", "timing", 0, {"bench_fp", "48"}},
    {"bgq_bt", "bgq", "timing", 0, {"bt", "6"}},
    {"bgq_amg_1", "bgq", "timing", 1, {"amg", "8", "1"}},
    {"bgq_amg_4", "bgq", "timing", 4, {"amg", "8", "1"}},
    {"bgq_amg_16", "bgq", "timing", 16, {"amg", "8", "1"}},
    {"bgq_amg_64", "bgq", "timing", 64, {"amg", "8", "1"}},
    {"bgq_bench_omp_4", "bgq", "timing", 4, {"bench_omp", "1"}},
    {"bgq_bench_omp_64", "bgq", "timing", 64, {"bench_omp", "1"}},
    {"bgq_amg_4_profile", "bgq", "profile", 4, {"amg", "8", "1"}},
    {"bgq_amg_4_warmup", "bgq", "warmup", 4, {"amg", "8", "1"}},
    {"bgp_node_mix", "bgp", "timing", 0, {"node_mix"}},
    {"bgp_bench_int", "bgp", "timing", 0, {"bench_int", "10"}},
    {"bgp_amg_1", "bgp", "timing", 1, {"amg", "8", "1"}},
    {"bgp_amg_4", "bgp", "timing", 4, {"amg", "8", "1"}},
    {"bgp_bench_omp_4", "bgp", "timing", 4, {"bench_omp", "1"}},
};

// Removes what depends on the host from a run's statistics: keys naming the host, its speed or
// the command line (and its digest with the environment, guest_inputs), at any depth.
void dropHostKeys(json& j) {
  if (j.is_array()) {
    for (json& e : j) dropHostKeys(e);
    return;
  }
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end();) {
    const std::string& key = it.key();
    if (key.starts_with("host_") || key == "mips" || key == "command" || key == "guest_inputs") {
      it = j.erase(it);
    } else {
      dropHostKeys(it.value());
      ++it;
    }
  }
}

// FNV-1a over the bytes: any change of any statistic changes it (a collision between two
// results is as likely as 2^-64).
std::uint64_t digest(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

struct Result {
  std::uint64_t digest = 0;
  std::uint64_t instructions = 0, cycles = 0;
  std::string line() const {
    std::ostringstream s;
    s << std::hex << digest << std::dec << ' ' << instructions << ' ' << cycles;
    return s.str();
  }
};

// The reference file: "<case> <digest> <instructions> <cycles>" a line.
std::map<std::string, std::string> readReference() {
  std::map<std::string, std::string> out;
  std::ifstream in(kReference);
  std::string name, rest;
  while (in >> name && std::getline(in, rest)) out[name] = rest.substr(rest.find_first_not_of(' '));
  return out;
}

// In the writing mode: each case's line, written out at the end.
std::map<std::string, std::string>& written() {
  static std::map<std::string, std::string> lines;
  return lines;
}

class WriteReference : public ::testing::Environment {
 public:
  void TearDown() override {
    const char* path = std::getenv("HPM_TIMING_REFERENCE_WRITE");
    if (path == nullptr || written().size() != kCases.size()) return;
    std::ofstream out(path);
    out << "# hpmsim's timing results (tests/tools/timing_reference_test.cpp): case, digest of "
           "its statistics, instructions, cycles. Regenerate: ninja timing_reference\n";
    for (const auto& [name, line] : written()) out << name << ' ' << line << '\n';
  }
};

const auto* const kWriter = ::testing::AddGlobalTestEnvironment(new WriteReference);

class TimingReference : public ::testing::TestWithParam<Case> {};

TEST_P(TimingReference, EveryStatisticOfTheRunIsTheReferences) {
  const Case& c = GetParam();
  const fs::path out_dir = fs::current_path() / "timing_reference";
  fs::create_directories(out_dir);
  const fs::path stats = out_dir / (c.name + ".json");
  std::vector<std::string> argv = {kHpmsim, "run",         "--machine",    c.machine,     "--mode",
                                   c.mode,  "--env-clear", "--stats-json", stats.string()};
  if (c.mode == "profile") {
    // (Its CSV files go beside the statistics, not into the programs' folder.)
    argv.push_back("--profile-prefix");
    argv.push_back((out_dir / c.name).string());
  }
  if (c.threads > 0) {
    argv.push_back("--env");
    argv.push_back("OMP_NUM_THREADS=" + std::to_string(c.threads));
  }
  argv.push_back("--");
  argv.insert(argv.end(), c.program.begin(), c.program.end());
  const hpm::test::RunResult r = hpm::test::runProcess(
      argv, {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C"}, "", kGuestBinDir, std::chrono::minutes(5));
  ASSERT_EQ(r.status(), 0) << r.describe();
  json j = json::parse(hpm::test::readFile(stats), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << stats;
  // The statistics' measures ("units": kinds and units, not results) are held by
  // typed_stats_test; the digest is of the statistics, as the reference has them.
  ASSERT_EQ(j.erase("units"), 1u) << stats;
  dropHostKeys(j);
  Result got{digest(j.dump()), j.at("instructions").get<std::uint64_t>(),
             j.at("cycles").get<std::uint64_t>()};
  if (std::getenv("HPM_TIMING_REFERENCE_WRITE") != nullptr) {
    written()[c.name] = got.line();
    return;
  }
  const std::map<std::string, std::string> reference = readReference();
  ASSERT_TRUE(reference.contains(c.name))
      << c.name << " is not in " << kReference << ": run `ninja timing_reference`";
  EXPECT_EQ(got.line(), reference.at(c.name))
      << c.name << ": a statistic changed (digest, instructions, cycles; the run's statistics "
      << "are in " << stats << "). If the change is meant, run `ninja timing_reference`.";
}

INSTANTIATE_TEST_SUITE_P(Runs, TimingReference, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& p) { return p.param.name; });

}  // namespace
