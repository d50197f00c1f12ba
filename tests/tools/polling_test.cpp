// The functional mode's parking of threads that spin on memory (kernel/polling.cpp,
// kernel.park_polls): a parked thread prints what a spinning one prints, every way a park ends
// works, runs stay deterministic, the timing mode is untouched, and an OpenMP program with
// libgomp's active waiting retires about what it retires with passive waiting.
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

struct Outcome {
  std::string out;
  json stats;
  u64 instructions() const { return stats["instructions"].get<u64>(); }
  u64 kernel(const std::string& key) const { return stats["kernel"][key].get<u64>(); }
};

// hpmsim run in `mode` with `settings` (--set KEY=VALUE) and `env` for the guest.
Outcome run(const std::vector<std::string>& program, const std::string& mode = "functional",
            const std::vector<std::string>& settings = {},
            const std::vector<std::string>& env = {}) {
  TempDir dir;
  const fs::path stats = dir.path() / "stats.json";
  std::vector<std::string> argv = {kHpmsim, "run",          "--quiet",     "--mode",
                                   mode,    "--stats-json", stats.string()};
  for (const std::string& s : settings) argv.insert(argv.end(), {"--set", s});
  for (const std::string& e : env) argv.insert(argv.end(), {"--env", e});
  argv.push_back("--");
  argv.push_back(kGuestBinDir + "/" + program.front());
  argv.insert(argv.end(), program.begin() + 1, program.end());
  const RunResult r = hpm::test::runProcess(argv, {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C"}, "",
                                            fs::current_path(), kTimeout);
  EXPECT_EQ(r.status(), 0) << r.describe() << r.err;
  Outcome result;
  result.out = r.out;
  std::ifstream in(stats);
  result.stats = json::parse(in);
  return result;
}

const std::vector<std::string> kNoParking = {"kernel.park_polls=false"};

TEST(Polling, ThreadsSpinningOnAWordAreParkedAndThePrintedResultsStayTheSame) {
  const Outcome parked = run({"spin_wait", "flags"});
  const Outcome spinning = run({"spin_wait", "flags"}, "functional", kNoParking);
  EXPECT_EQ(parked.out, spinning.out);
  EXPECT_EQ(parked.out, "flags: 20 rounds, sum 7560, work 70292861880020\n");
  EXPECT_GT(parked.kernel("poll_parks"), 0u);
  EXPECT_GT(parked.kernel("poll_wakes_changed"), 0u);
  EXPECT_EQ(spinning.kernel("poll_parks"), 0u);
  // Eight workers spin while the main thread works: parked, they retire almost nothing.
  EXPECT_LT(parked.instructions() * 4, spinning.instructions());
}

TEST(Polling, EveryParkEndsAndTheirCountsAddUp) {
  const Outcome r = run({"spin_wait", "flags"});
  const u64 ended = r.kernel("poll_wakes_changed") + r.kernel("poll_wakes_timeout") +
                    r.kernel("poll_wakes_idle") + r.kernel("poll_wakes_signal");
  EXPECT_EQ(r.kernel("poll_parks"), ended);  // every thread was joined: none is left parked
  EXPECT_GT(r.kernel("poll_parked_cycles"), 0u);
}

TEST(Polling, RunsThatParkAreDeterministic) {
  Outcome a = run({"spin_wait", "flags"});
  Outcome b = run({"spin_wait", "flags"});
  for (json* j : {&a.stats, &b.stats}) {
    for (const char* host : {"host_seconds", "host_peak_rss_kib", "mips"}) j->erase(host);
  }
  EXPECT_EQ(a.stats, b.stats);
  EXPECT_EQ(a.out, b.out);
}

TEST(Polling, ACountedSpinWithNothingElseToRunRunsEveryIteration) {
  // The main thread waits in pthread_join: only the parked worker can run, so it runs on and
  // retires exactly the instructions it retires when it is never parked.
  const Outcome parked = run({"spin_wait", "countdown"});
  const Outcome spinning = run({"spin_wait", "countdown"}, "functional", kNoParking);
  EXPECT_EQ(parked.out, "countdown: the worker spun 50000 times\n");
  EXPECT_EQ(parked.out, spinning.out);
  EXPECT_GT(parked.kernel("poll_wakes_idle"), 0u);
  EXPECT_EQ(parked.instructions(), spinning.instructions());
}

TEST(Polling, SchedYieldGivesTheProcessorToAParkedThread) {
  // The main thread waits for the worker's count to run out in a sched_yield loop: each yield
  // lets the parked worker run on (without it, only the park's timeouts would).
  const Outcome r =
      run({"spin_wait", "yield"}, "functional", {"kernel.poll_park_cycles=1000000000"});
  EXPECT_EQ(r.out, "yield: the worker spun 50000 times\n");
  EXPECT_GT(r.kernel("poll_wakes_idle"), 0u);
  EXPECT_EQ(r.kernel("poll_wakes_timeout"), 0u);
}

TEST(Polling, ASignalEndsAParkAndTheHandlerRuns) {
  const Outcome r =
      run({"spin_wait", "signal"}, "functional", {"kernel.poll_park_cycles=1000000000"});
  EXPECT_EQ(r.out, "signal: the handler ended the wait (1), work 336023164034\n");
  EXPECT_EQ(r.kernel("poll_wakes_signal"), 1u);
}

TEST(Polling, AParkWhoseWordsDoNotChangeEndsAfterPollParkCycles) {
  // The workers wait a round's work (~200 000 cycles) for the main thread's next generation.
  const Outcome short_parks =
      run({"spin_wait", "flags"}, "functional", {"kernel.poll_park_cycles=4096"});
  const Outcome long_parks =
      run({"spin_wait", "flags"}, "functional", {"kernel.poll_park_cycles=1000000000"});
  EXPECT_GT(short_parks.kernel("poll_wakes_timeout"), 0u);
  EXPECT_EQ(long_parks.kernel("poll_wakes_timeout"), 0u);
  EXPECT_EQ(short_parks.out, long_parks.out);
}

TEST(Polling, TheTimingModeNeverParks) {
  json with = run({"spin_wait", "countdown"}, "timing").stats;
  json without = run({"spin_wait", "countdown"}, "timing", kNoParking).stats;
  EXPECT_EQ(with["kernel"]["poll_parks"], 0);
  for (json* j : {&with, &without}) {
    for (const char* host : {"host_seconds", "host_peak_rss_kib", "mips", "config"}) {
      j->erase(host);
    }
  }
  EXPECT_EQ(with, without);
}

TEST(Polling, ActiveOpenMpWaitingAtSixtyFourThreadsRetiresAtMostHalfAgainItsPassiveCount) {
  // amg's regions end in barriers at which 63 threads wait: with libgomp's default (spinning)
  // and active waiting they spin, with passive waiting they sleep in the kernel.
  const std::vector<std::string> amg = {"amg", "30", "1"};
  const std::string threads = "OMP_NUM_THREADS=64";
  const Outcome passive = run(amg, "functional", {}, {threads, "OMP_WAIT_POLICY=passive"});
  const Outcome by_default = run(amg, "functional", {}, {threads});
  const Outcome active = run(amg, "functional", {}, {threads, "OMP_WAIT_POLICY=active"});
  const Outcome spinning = run(amg, "functional", kNoParking, {threads, "OMP_WAIT_POLICY=active"});
  EXPECT_EQ(passive.out, by_default.out);
  EXPECT_EQ(passive.out, active.out);
  EXPECT_LE(by_default.instructions(), passive.instructions() * 3 / 2);
  EXPECT_LE(active.instructions(), passive.instructions() * 3 / 2);
  EXPECT_GT(spinning.instructions(), passive.instructions() * 3 / 2);  // what parking saves
}

}  // namespace
