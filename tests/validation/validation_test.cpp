// Timing-model validation through the whole simulator: the micro-benchmarks of guest/validation
// run under `hpmsim run --mode timing --stats-json`, and each region's cycles are held against
// the value that docs/timing.md's formulas give for the parameters of that very run (read back
// from the stats file's "config"). Every parameter under test runs at two values.
//
// How a region's cycles follow from the formulas (guest/validation/vkernel.h explains the
// skeleton): the measured loop's first instruction issues one cycle after the begin marker,
// its exit branch is mispredicted, and the end marker (after the return) issues MP + T cycles
// after that branch (MP = core.mispredict_penalty, T = core.taken_branch_cycles), so
//
//     region = 1 + (exit branch issue - first loop instruction issue) + MP + T
//
// and the loop's part follows from the issue rule I = max(C, A, R, Q_lmq, P, Q_sq) of
// docs/timing.md section 2 for its 16-or-so instructions. Every loop instruction is 4 bytes,
// every loop head 16-byte aligned. Single-threaded kernels are deterministic and are asserted
// exactly. Where several hardware threads share a resource, which thread wins a tie is the
// driver's choice and the threads start a little apart, so those are asserted within a stated
// bound; so are random branch directions (the mispredict count is not known in advance) and
// bandwidth shared by 16 cores.
//
// Test names state the rule they check.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/process.h"

namespace fs = std::filesystem;
using nlohmann::json;
using u64 = std::uint64_t;
using i64 = std::int64_t;

namespace {

const char* const kHpmsim = HPM_TEST_HPMSIM;
const char* const kGuestBinDir = HPM_TEST_GUEST_BIN_DIR;
constexpr std::chrono::seconds kTimeout{240};

// ---- Running hpmsim ----------------------------------------------------------------------------

struct Process {
  std::string out;
  std::string err;
  int status = -1;  // exit status, or 128 + signal
  bool timed_out = false;
};

// Runs argv (argv[0] a path) in `cwd` with a fixed small environment, capturing stdout and
// stderr; kills the child's process group after the timeout.
Process runProcess(const std::vector<std::string>& argv, const fs::path& cwd) {
  const hpm::test::RunResult r =
      hpm::test::runProcess(argv, {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C"}, "", cwd, kTimeout);
  return {r.out, r.err, r.status(), r.timed_out};
}

using hpm::test::TempDir;

// The program as a run starts it: a copy in `dir`, the run's working directory, as ./PROGRAM.
// The path goes onto the guest's stack (AT_EXECFN): an absolute one would shift the stack with
// the checkout's location, and with it a multi-threaded run's interleaving.
std::string guest(const std::string& program, const fs::path& dir) {
  fs::copy_file(fs::path(kGuestBinDir) / program, dir / program,
                fs::copy_options::overwrite_existing);
  return "./" + program;
}

// One region of a run, all threads together and per thread (as --stats-json reports it).
struct Region {
  u64 cycles = 0;
  u64 instructions = 0;
  u64 entries = 0;
  std::map<std::string, u64> stalls;
  json threads;
  u64 stall(const std::string& name) const { return stalls.count(name) ? stalls.at(name) : 0; }
};

// The outcome of `hpmsim run`: its statistics, and its configuration for the predictions.
struct SimRun {
  json stats;
  std::string out;

  // A configuration parameter by its `hpmsim config` key, e.g. "core.mispredict_penalty".
  double param(const std::string& key) const {
    const json* node = &stats.at("config");
    std::stringstream parts(key);
    for (std::string part; std::getline(parts, part, '.');) node = &node->at(part);
    return node->get<double>();
  }
  u64 p(const std::string& key) const { return static_cast<u64>(param(key)); }

  Region region(const std::string& name) const {
    for (const json& r : stats.at("regions")) {
      if (r.at("name") != name) continue;
      Region found;
      found.cycles = r.at("cycles").get<u64>();
      found.instructions = r.at("instructions").get<u64>();
      found.entries = r.at("entries").get<u64>();
      for (const auto& [k, v] : r.at("stalls").items()) found.stalls[k] = v.get<u64>();
      found.threads = r.at("threads");
      return found;
    }
    ADD_FAILURE() << "no region '" << name << "' in the run";
    return {};
  }

  // The edges every kernel's region has: MP + T (see the top of this file).
  u64 edges() const { return p("core.mispredict_penalty") + p("core.taken_branch_cycles"); }
};

// `hpmsim run --mode MODE --set S... --stats-json F -- PROGRAM ARGS...`; fails the test unless
// the guest exits with status 0.
SimRun simulate(const std::string& program, const std::vector<std::string>& args,
                const std::vector<std::string>& sets = {}, const std::string& mode = "timing",
                const std::vector<std::string>& extra = {}) {
  TempDir dir;
  const std::string stats = (dir.path() / "stats.json").string();
  std::vector<std::string> argv = {kHpmsim, "run", "--mode", mode};
  for (const std::string& s : sets) {
    argv.push_back("--set");
    argv.push_back(s);
  }
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back("--stats-json");
  argv.push_back(stats);
  argv.push_back("--");
  argv.push_back(guest(program, dir.path()));
  argv.insert(argv.end(), args.begin(), args.end());
  const Process p = runProcess(argv, dir.path());
  SimRun run;
  run.out = p.out;
  EXPECT_FALSE(p.timed_out) << program;
  EXPECT_EQ(p.status, 0) << program << " failed: " << p.err;
  std::ifstream in(stats);
  if (!in) {
    ADD_FAILURE() << "no statistics from " << program << ": " << p.err;
    run.stats = json::object({{"regions", json::array()}, {"config", json::object()}});
    return run;
  }
  run.stats = json::parse(in);
  return run;
}

std::string set(const std::string& key, u64 value) {
  return key + "=" + std::to_string(value);
}

std::string describe(const std::vector<std::string>& sets) {
  std::string s;
  for (const auto& x : sets) s += " " + x;
  return s.empty() ? " (defaults)" : s;
}

// ---- Execution pipes (v_core; docs/timing.md section 2) ----------------------------------------
//
// Each loop: 14 operations, `addi a0, a0, -1` and `bnez a0` (16 instructions, 4 fetch groups).
// A 16-entry instruction buffer keeps fetch from binding (one thread with the default 8
// entries issues at most 0.8 instructions per cycle, section 3), except where stated.

constexpr u64 kOps = 14;   // operations per iteration
constexpr u64 kLoop = 16;  // instructions per iteration
const std::string kWide = "core.ibuffer_entries=16";

TEST(Pipeline, IntegerChainTakesFourteenLatenciesPlusTwoCyclesPerIteration) {
  // c1..c14 each wait L for the one before; the counter issues 1 after c14, the branch L after
  // the counter; the next c1 one after the branch: P = 14 L + 2. The exit branch issues P - 1
  // after its iteration's c1, so region = N P + MP + T.
  const u64 n = 100;
  for (u64 lat : {1, 2}) {
    const std::vector<std::string> sets = {kWide, set("core.latency.int_alu", lat)};
    const SimRun run = simulate("v_core", {"int_chain", std::to_string(n)}, sets);
    const u64 l = run.p("core.latency.int_alu");
    const Region r = run.region("int_chain");
    EXPECT_EQ(r.cycles, n * (kOps * l + 2) + run.edges()) << describe(sets);
    EXPECT_EQ(r.instructions, n * kLoop + 2);
    EXPECT_EQ(r.entries, 1u);
    // c2..c14 and the branch each wait L - 1 cycles for their source.
    EXPECT_EQ(r.stall("dependency"), n * kOps * (l - 1)) << describe(sets);
  }
}

TEST(Pipeline, SerialDivideChainTakesFourteenOperandDependentLatenciesPerIteration) {
  // The serial divider (docs/timing.md section 2): a divide of x by 1 takes
  // L = lzc(1) - lzc(x) + 2 + divider_extra_cycles, from the registers the driver reads before
  // it executes. c1..c14 each wait L for the one before; the counter and branch issue beside the
  // divider 1 and 2 after c14, so P = 14 L and the exit branch issues 13 L + 2 after its c1:
  // region = N P - L + 3 + MP + T.
  const u64 n = 20;
  for (u64 x : {u64{0xffff}, u64{1} << 40}) {
    for (u64 extra : {1, 3}) {
      const std::vector<std::string> sets = {"core.divider=serial", "core.occupancy.int_div=1",
                                             set("core.divider_extra_cycles", extra)};
      const SimRun run =
          simulate("v_div", {"div_chain", std::to_string(n), std::to_string(x)}, sets);
      const u64 l = 63 - static_cast<u64>(__builtin_clzll(x)) + 2 + extra;
      const Region r = run.region("div_chain");
      EXPECT_EQ(r.cycles, n * kOps * l - l + 3 + run.edges()) << x << describe(sets);
      EXPECT_EQ(r.instructions, n * kLoop + 2);
    }
  }
  // The fixed divider takes latency.int_div whatever the operands, and holds the pipe for
  // occupancy.int_div (both 65 on bgq): the counter waits for the pipe, as in int_chain.
  for (u64 x : {u64{0xffff}, u64{1} << 40}) {
    const SimRun run = simulate("v_div", {"div_chain", std::to_string(n), std::to_string(x)});
    const u64 l = run.p("core.latency.int_div");
    ASSERT_EQ(l, run.p("core.occupancy.int_div"));
    EXPECT_EQ(run.region("div_chain").cycles, n * (kOps * l + 2) + run.edges()) << x;
  }
}

TEST(Pipeline, OneCycleChainAtTheDefaultBufferIsFetchBound) {
  // With B = 8 buffer slots a thread has k = B / 4 groups of credit: k groups per D + 4 cycles
  // (section 3). The loop's 4 groups then take 4 (D + 4) / k > 16 cycles.
  const u64 n = 100;
  for (u64 d : {6, 8}) {
    const std::vector<std::string> sets = {set("core.fetch_to_issue", d)};
    const SimRun run = simulate("v_core", {"int_chain", std::to_string(n)}, sets);
    const u64 groups_of_credit = run.p("core.ibuffer_entries") / 4;
    const u64 period = 4 * (run.p("core.fetch_to_issue") + 4) / groups_of_credit;
    ASSERT_GT(period, kLoop);
    EXPECT_EQ(run.region("int_chain").cycles, n * period + run.edges()) << describe(sets);
  }
}

TEST(Pipeline, IndependentIntegerOpsTakeOneOccupancyEach) {
  // 14 ops and the counter hold the pipe O cycles each, the branch one more cycle after the
  // counter's O: P = 15 O + 1. The begin marker (an ALU op) holds the pipe O cycles too, so
  // the first op issues O after it: region = N P + (O - 1) + MP + T.
  const u64 n = 100;
  for (u64 occ : {1, 2}) {
    const std::vector<std::string> sets = {kWide, set("core.occupancy.int_alu", occ)};
    const SimRun run = simulate("v_core", {"int_indep", std::to_string(n)}, sets);
    const u64 o = run.p("core.occupancy.int_alu");
    EXPECT_EQ(run.region("int_indep").cycles, n * ((kOps + 1) * o + 1) + (o - 1) + run.edges())
        << describe(sets);
  }
}

TEST(Pipeline, FpChainTakesFourteenFpAddLatenciesPerIteration) {
  // FP adds on the AXU, each L after the one before; counter and branch (XU) fit in the wait:
  // P = 14 L (L >= 3). The exit branch issues 13 L + 2 after the last iteration's first add:
  // region = 1 + (N - 1) 14 L + 13 L + 2 + MP + T.
  const u64 n = 100;
  for (u64 lat : {6, 10}) {
    const std::vector<std::string> sets = {kWide, set("core.latency.fp_add", lat)};
    const SimRun run = simulate("v_core", {"fp_chain", std::to_string(n)}, sets);
    const u64 l = run.p("core.latency.fp_add");
    ASSERT_GE(l, 3u);
    EXPECT_EQ(run.region("fp_chain").cycles,
              1 + (n - 1) * kOps * l + (kOps - 1) * l + 2 + run.edges())
        << describe(sets);
  }
}

TEST(Pipeline, IndependentFpAddsTakeOneOccupancyEach) {
  // The adds issue O apart on the AXU; counter and branch follow (1, 2 after the last add);
  // the next add waits for the branch and for the pipe: P = 13 O + max(3, O).
  const u64 n = 100;
  for (u64 occ : {1, 2}) {
    const std::vector<std::string> sets = {kWide, set("core.occupancy.fp_add", occ)};
    const SimRun run = simulate("v_core", {"fp_indep", std::to_string(n)}, sets);
    const u64 o = run.p("core.occupancy.fp_add");
    const u64 period = (kOps - 1) * o + std::max<u64>(3, o);
    EXPECT_EQ(run.region("fp_indep").cycles,
              1 + (n - 1) * period + (kOps - 1) * o + 2 + run.edges())
        << describe(sets);
  }
}

// ---- Hardware threads sharing one core's pipes -------------------------------------------------
//
// k threads on hardware threads 0..k-1 of core 0 each run the loop; a thread issues at most one
// instruction per cycle and a pipe one per cycle for all threads (section 2), so each thread's
// iteration takes P_k = max(16, k * (pipe instructions per iteration) / pipes). Exact: every
// thread's region grows by exactly P_k per added iteration (runs of N = 100 and 500). Bound:
// which thread wins a tie is the driver's round-robin, and the threads enter and leave their
// regions a few cycles apart (after the barrier and the warm-up calls), a thread alone at an
// edge running faster; so each region is within two shared iterations (2 P_k) of
// N P_k + MP + T (one thread alone: exactly).

void expectSharing(const std::string& kernel, const std::string& pipes_key, u64 per_iteration) {
  const u64 n1 = 100, n2 = 500;
  for (u64 pipes : {1, 2}) {
    for (u64 threads : {1, 2, 4}) {
      const std::vector<std::string> sets = {kWide, set(pipes_key, pipes)};
      const SimRun short_run =
          simulate("v_core", {kernel, std::to_string(n1), std::to_string(threads)}, sets);
      const SimRun run =
          simulate("v_core", {kernel, std::to_string(n2), std::to_string(threads)}, sets);
      const u64 period = std::max<u64>(kLoop, threads * per_iteration / run.p(pipes_key));
      const Region r = run.region(kernel);
      const Region r1 = short_run.region(kernel);
      ASSERT_EQ(r.threads.size(), threads);
      ASSERT_EQ(r1.threads.size(), threads);
      EXPECT_EQ(r.entries, threads);
      EXPECT_EQ(r.instructions, threads * (n2 * kLoop + 2));
      const i64 want = static_cast<i64>(n2 * period + run.edges());
      for (std::size_t i = 0; i < threads; ++i) {
        const i64 got = r.threads[i].at("cycles").get<i64>();
        const i64 got1 = r1.threads[i].at("cycles").get<i64>();
        const std::string what = kernel + " threads " + std::to_string(threads) + describe(sets) +
                                 " tid " + r.threads[i].at("tid").dump();
        EXPECT_EQ(got - got1, static_cast<i64>((n2 - n1) * period)) << what;
        if (threads == 1) {
          EXPECT_EQ(got, want) << what;
        } else {
          EXPECT_LE(std::abs(got - want), 2 * static_cast<i64>(period)) << what;
        }
      }
    }
  }
}

TEST(SharedPipes, ThreadsOfOneCoreShareItsIntegerPipes) {
  // 16 XU instructions per iteration: 1 thread 16 cycles; 2 and 4 threads on one XU 32 and
  // 64; on two XU pipes 16 and 32.
  expectSharing("int_indep", "core.integer_pipes", kLoop);
}

TEST(SharedPipes, ThreadsOfOneCoreShareItsFpPipes) {
  // 14 AXU instructions per iteration: 2 and 4 threads on one AXU take 28 and 56 cycles, on
  // two AXU pipes 16 (the thread's own limit) and 28.
  expectSharing("fp_indep", "core.fp_pipes", kOps);
}

// ---- Load-to-use (v_mem chases; docs/timing.md section 5) --------------------------------------
//
// Eight dependent loads `ld a1, 0(a1)`, counter and branch: each load waits for the one before,
// P = 8 L for a load-to-use latency L >= 3, and the exit branch issues 7 L + 2 after the last
// iteration's first load: region = 8 N L - L + 3 + MP + T. The data layouts (v_mem.c) put
// every load of `l1` in the L1D, of `l1p` in the L1P (missing the L1D), of `l2` in the L2
// (missing the L1D and the L1P).

void expectChase(const std::string& level, const std::string& latency_key, u64 second) {
  const u64 n = 50;
  for (const std::vector<std::string>& sets :
       {std::vector<std::string>{}, std::vector<std::string>{set(latency_key, second)}}) {
    const SimRun run = simulate("v_mem", {level, std::to_string(n)}, sets);
    const u64 l = run.p(latency_key);
    const Region r = run.region("chase");
    EXPECT_EQ(r.cycles, 8 * n * l - l + 3 + run.edges()) << level << describe(sets);
    EXPECT_EQ(r.instructions, n * 10 + 2);
    EXPECT_EQ(r.stall("lmq_full"), 0u);
  }
}

TEST(LoadToUse, ChaseOverTheL1dTakesTheL1dHitLatencyPerLoad) {
  expectChase("l1", "l1d.hit_latency", 9);
}

TEST(LoadToUse, ChaseMissingTheL1dTakesTheL1pHitLatencyPerLoad) {
  expectChase("l1p", "l1p.hit_latency", 40);
}

TEST(LoadToUse, ChaseMissingTheL1pTakesTheL2HitLatencyPerLoad) {
  expectChase("l2", "l2.hit_latency", 120);
}

TEST(LoadToUse, LoadsOfFreshMemoryTakeTheDdrLatency) {
  // 8 x (ld t0, k*256(a1); add a1, a1, t0), add a1, a1, 2048, counter, branch: each load
  // waits for the add before it (L + 1 per load); P = 7 (L + 1) + L + 4 = 8 L + 11, and the exit
  // branch issues P - 1 after its iteration's first load: region = N P + MP + T.
  const u64 n = 8;
  for (const std::vector<std::string>& sets :
       {std::vector<std::string>{}, std::vector<std::string>{"ddr.latency=500"}}) {
    const SimRun run = simulate("v_mem", {"ddr", std::to_string(n)}, sets);
    const u64 l = run.p("ddr.latency");
    EXPECT_EQ(run.region("fresh_chase").cycles, n * (8 * l + 11) + run.edges()) << describe(sets);
  }
}

// ---- Load-miss queue (v_mem l2stream) ----------------------------------------------------------

TEST(LoadMissQueue, IndependentMissesIssueOneQueueFullPerMissLatency) {
  // 16 independent L2-hitting loads per iteration (16 different slices: no slice waits), then
  // add, add, counter, branch (one fetch group). With E entries each held L (the L2 latency),
  // load k of an iteration issues at (k / E) L + (k mod E) after the first: P = (16 / E) L.
  // The tail group is fetched when the buffer has room for it: one cycle after the issue of the
  // load B - 4 instructions before it (section 3), so its first instruction issues at
  // max(I_15 + 1, I_11 + 1 + D) and the exit branch three later.
  const u64 n = 30;
  for (u64 entries : {8, 4}) {
    // The crossbar's widths off: the queue's rule alone (with them each line also holds the
    // core's port 8 cycles, Node.ACoresPortReturnsOneLinePerLineOverItsWidth).
    const std::vector<std::string> sets = {set("core.load_miss_queue_entries", entries),
                                           "l2.core_port_bytes_per_cycle=0",
                                           "l2.slice_bytes_per_cycle=0"};
    const SimRun run = simulate("v_mem", {"l2stream", std::to_string(n)}, sets);
    const u64 e = run.p("core.load_miss_queue_entries");
    const u64 l = run.p("l2.hit_latency");
    const u64 b = run.p("core.ibuffer_entries");
    const u64 d = run.p("core.fetch_to_issue");
    ASSERT_EQ(16 % e, 0u);
    auto at = [&](u64 k) { return (k / e) * l + k % e; };  // in the last iteration
    const u64 last_load = (n - 1) * (16 / e) * l + at(15);
    const u64 tail = std::max(at(15) + 1, at(16 - 1 - (b - 4)) + 1 + d) - at(15);
    const Region r = run.region("stream");
    EXPECT_EQ(r.cycles, 1 + last_load + tail + 3 + run.edges()) << describe(sets);
    EXPECT_GT(r.stall("lmq_full"), 0u);
  }
}

// ---- Store queue (v_store; docs/timing.md section 5) -------------------------------------------
//
// 16 stores per iteration, then the pointer add, counter and branch. Entries leave one per
// store_drain_cycles D_s from the first store on (stores arrive faster than they leave), so entry
// j leaves at s0 + D_s (j + 1), and a store needing entry j waits for entry j - E to leave.
// When the queue binds at the end, the last store issues at s0 + D_s (entries - E), the exit
// branch 3 later.

TEST(StoreQueue, DistinctStoresIssueOnePerDrainOnceTheQueueIsFull) {
  // M = 16 N stores, one entry each: region = 1 + D_s (M - E) + 3 + MP + T.
  const u64 n = 50;
  for (const std::vector<std::string>& sets :
       {std::vector<std::string>{}, std::vector<std::string>{"core.store_queue_entries=10"},
        std::vector<std::string>{"core.store_drain_cycles=4"}}) {
    const SimRun run = simulate("v_store", {"distinct", std::to_string(n)}, sets);
    const u64 e = run.p("core.store_queue_entries");
    const u64 ds = run.p("core.store_drain_cycles");
    const Region r = run.region("sq_distinct");
    EXPECT_EQ(r.cycles, 1 + ds * (16 * n - e) + 3 + run.edges()) << describe(sets);
    EXPECT_EQ(r.instructions, n * 19 + 2);
    EXPECT_GT(r.stall("sq_full"), 0u);
  }
}

TEST(StoreQueue, CombinedPairsNeedHalfTheEntries) {
  // 8 pairs of stores to the halves of aligned 16-byte blocks, drain 4 (so that the queue
  // fills). Combining: the second store of a pair joins the first's entry, 8 N entries; the
  // last pair's first store issues at s0 + D_s (8 N - E), its partner one later:
  // region = 1 + D_s (8 N - E) + 1 + 3 + MP + T. Without combining every store takes an entry,
  // as for distinct blocks.
  const u64 n = 50;
  for (bool combining : {true, false}) {
    const std::vector<std::string> sets = {
        "core.store_drain_cycles=4",
        std::string("l1p.write_combining=") + (combining ? "true" : "false")};
    const SimRun run = simulate("v_store", {"pairs", std::to_string(n)}, sets);
    const u64 e = run.p("core.store_queue_entries");
    const u64 ds = run.p("core.store_drain_cycles");
    const u64 want = combining ? 1 + ds * (8 * n - e) + 1 + 3 + run.edges()
                               : 1 + ds * (16 * n - e) + 3 + run.edges();
    EXPECT_EQ(run.region("sq_pairs").cycles, want) << describe(sets);
  }
}

TEST(StoreQueue, CombinedPairsAtTheDefaultDrainNeverFillTheQueue) {
  // One entry per two stores leaves every 2 cycles: the queue drains as fast as one thread can
  // issue pairs, so no store waits for it.
  const SimRun run = simulate("v_store", {"pairs", "50"});
  EXPECT_EQ(run.p("core.store_drain_cycles"), 2u);
  EXPECT_EQ(run.region("sq_pairs").stall("sq_full"), 0u);
  const SimRun distinct = simulate("v_store", {"distinct", "50"});
  EXPECT_LT(run.region("sq_pairs").cycles, distinct.region("sq_distinct").cycles);
}

// ---- Branch prediction (v_branch; docs/timing.md section 4) ------------------------------------
//
// lbu t0; addi; beqz t0 (over one addi); addi; counter; bnez. Never taken: the load's L, then
// 4 more instructions: P = L + 4 (L = l1d.hit_latency), region = N P + MP + T.

TEST(Branches, PredictableBranchesCostNoPenalty) {
  const u64 n = 1000;
  for (const std::vector<std::string>& sets :
       {std::vector<std::string>{}, std::vector<std::string>{"core.mispredict_penalty=20"},
        std::vector<std::string>{"l1d.hit_latency=9"}}) {
    const SimRun run = simulate("v_branch", {"predictable", std::to_string(n)}, sets);
    const u64 l = run.p("l1d.hit_latency");
    const Region r = run.region("branch");
    EXPECT_EQ(r.cycles, n * (l + 4) + run.edges()) << describe(sets);
    // The one mispredict is the loop's exit: MP - 1 stall cycles.
    EXPECT_EQ(r.stall("mispredict"), run.p("core.mispredict_penalty") - 1) << describe(sets);
  }
}

u64 takenCount(const std::string& out) {
  const auto at = out.find("taken=");
  return at == std::string::npos ? ~u64{0} : std::stoull(out.substr(at + 6));
}

TEST(Branches, EveryMispredictAddsThePenalty) {
  // Random directions: the instruction after a mispredicted branch issues MP cycles after it
  // (MP - 1 stall cycles charged to "mispredict"), so the mispredict count m is the stall over
  // MP - 1, the same at both penalties (prediction does not depend on timing), and the region
  // grows by exactly (MP' - MP) m. Bound: m is not known in advance; random directions defeat
  // the predictor about half the time (0.4 N .. 0.6 N).
  // Against the same path correctly predicted (P = L + 4 not taken, L + 3 taken: one
  // instruction fewer), each mispredict costs MP - 1 (the loop branch) or MP (the inner branch,
  // whose refetch also delays the next taken branch's redirect by one cycle): the region lies
  // between base + (MP - 1) m + T and base + MP m + T.
  const u64 n = 1000;
  u64 m_first = 0;
  u64 cycles_first = 0;
  u64 mp_first = 0;
  for (u64 mp : {13, 20}) {
    const std::vector<std::string> sets = {set("core.mispredict_penalty", mp)};
    const SimRun run = simulate("v_branch", {"random", std::to_string(n)}, sets);
    const u64 penalty = run.p("core.mispredict_penalty");
    const u64 l = run.p("l1d.hit_latency");
    const u64 t = run.p("core.taken_branch_cycles");
    const u64 taken = takenCount(run.out);
    ASSERT_LE(taken, n) << run.out;
    const Region r = run.region("branch");
    const u64 stall = r.stall("mispredict");
    ASSERT_EQ(stall % (penalty - 1), 0u) << "mispredict stall " << stall << describe(sets);
    const u64 m = stall / (penalty - 1);
    EXPECT_GE(m, 4 * n / 10);
    EXPECT_LE(m, 6 * n / 10);
    const u64 base = (n - taken) * (l + 4) + taken * (l + 3);
    EXPECT_GE(r.cycles, base + (penalty - 1) * m + t) << describe(sets);
    EXPECT_LE(r.cycles, base + penalty * m + t) << describe(sets);
    if (m_first == 0) {
      m_first = m;
      cycles_first = r.cycles;
      mp_first = penalty;
    } else {
      EXPECT_EQ(m, m_first);
      EXPECT_EQ(r.cycles - cycles_first, (penalty - mp_first) * m);
    }
  }
}

// ---- Sixteen cores sharing the L2 and DDR (v_mem streams, one thread per core) -----------------
//
// Each core streams 16 N independent loads (16 per 4 KiB block, a different L2 slice each).
// Alone, a core is bound by its load-miss queue. Sixteen cores share the L2 slice ports (one
// request per slice_busy_cycles each) and the DDR controllers (one line per
// ceil(line / bytes_per_cycle) each). Bound: a region ends when its thread's last loads issue,
// so up to E loads per core (E = load_miss_queue_entries) are still queued when it ends, and
// the threads start their regions up to one latency L of the level apart: the slowest region
// is within [R c - 16 E c - L, R c + 2 L], R c being the R requests' service time (c = server
// cycles per request over the number of servers).

constexpr u64 kCores = 16;

TEST(SharedMemory, SixteenCoresShareTheL2SlicePorts) {
  const u64 n = 32;
  // At 2 cycles per request and no data-width limit 16 cores do not saturate the L2: each core
  // takes what it takes alone, give or take a few slice waits (within 1 %).
  const std::vector<std::string> request_rule = {"l2.core_port_bytes_per_cycle=0",
                                                 "l2.slice_bytes_per_cycle=0"};
  const SimRun alone = simulate("v_mem", {"l2stream", std::to_string(n), "1", "4"}, request_rule);
  const SimRun all = simulate("v_mem", {"l2stream", std::to_string(n), "16", "4"}, request_rule);
  const u64 one = alone.region("stream").cycles;
  EXPECT_GE(all.region("stream").cycles, one);
  EXPECT_LE(all.region("stream").cycles, one + one / 100);
  EXPECT_EQ(all.region("stream").entries, kCores);
  // At 32 cycles per request the 16 slices serve 0.5 requests per cycle, less than 16 cores
  // ask: the region takes the requests' service time.
  for (u64 busy : {32, 64}) {
    const std::vector<std::string> sets = {set("l2.slice_busy_cycles", busy)};
    const SimRun run = simulate("v_mem", {"l2stream", std::to_string(n), "16", "4"}, sets);
    // A read holds the port max(busy, line / width) cycles (bgq's width: 8 cycles a line).
    const double hold =
        std::max(run.param("l2.slice_busy_cycles"),
                 run.param("l2.line_bytes") / run.param("l2.slice_bytes_per_cycle"));
    const double c = hold / run.param("l2.slices");
    const double e = run.param("core.load_miss_queue_entries");
    const double requests = static_cast<double>(kCores * 16 * n);
    const double got = static_cast<double>(run.region("stream").cycles);
    EXPECT_GE(got, requests * c - kCores * e * c - run.param("l2.hit_latency")) << describe(sets);
    EXPECT_LE(got, requests * c + 2 * run.param("l2.hit_latency")) << describe(sets);
  }
}

TEST(SharedMemory, SixteenCoresShareTheDdrBandwidth) {
  const u64 n = 32;
  for (double bytes_per_cycle : {13.33, 6.67}) {
    const std::vector<std::string> sets = {"ddr.bytes_per_cycle=" +
                                           std::to_string(bytes_per_cycle)};
    const SimRun alone = simulate("v_mem", {"ddrstream", std::to_string(n), "1", "4"}, sets);
    const SimRun run = simulate("v_mem", {"ddrstream", std::to_string(n), "16", "4"}, sets);
    const double line_cycles =
        std::ceil(run.param("l2.line_bytes") / run.param("ddr.bytes_per_cycle"));
    const double c = line_cycles / run.param("ddr.controllers");
    const double e = run.param("core.load_miss_queue_entries");
    const double requests = static_cast<double>(kCores * 16 * n);
    const double got = static_cast<double>(run.region("stream").cycles);
    EXPECT_GE(got, requests * c - kCores * e * c - run.param("ddr.latency")) << describe(sets);
    EXPECT_LE(got, requests * c + 2 * run.param("ddr.latency")) << describe(sets);
    // Alone, the core is bound by its queue, well below the controllers' bandwidth.
    EXPECT_LT(static_cast<double>(alone.region("stream").cycles), 0.6 * got) << describe(sets);
  }
}

// ---- Regions, the profile mode and the sweep ---------------------------------------------------

TEST(Regions, PerThreadTotalsAddUpToTheRegionTotals) {
  const SimRun run = simulate("v_core", {"int_indep", "200", "4"});
  const Region r = run.region("int_indep");
  ASSERT_EQ(r.threads.size(), 4u);
  u64 instructions = 0, entries = 0, longest = 0;
  std::map<std::string, u64> stalls;
  for (const json& t : r.threads) {
    instructions += t.at("instructions").get<u64>();
    entries += t.at("entries").get<u64>();
    longest = std::max(longest, t.at("cycles").get<u64>());
    for (const auto& [k, v] : t.at("stalls").items()) stalls[k] += v.get<u64>();
  }
  EXPECT_EQ(instructions, r.instructions);
  EXPECT_EQ(entries, r.entries);
  EXPECT_EQ(longest, r.cycles);  // threads overlap in time: the region's cycles are the longest
  EXPECT_EQ(stalls, r.stalls);
  EXPECT_GT(r.stall("pipe_busy"), 0u);
}

std::vector<std::vector<std::string>> readCsv(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::stringstream s(line);
    for (std::string cell; std::getline(s, cell, ',');) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

TEST(ProfileMode, WritesSamplesAndAFlatProfileWithTheDocumentedColumns) {
  TempDir out;
  const std::string prefix = (out.path() / "prof").string();
  const u64 interval = 500;
  const u64 n = 50;
  const SimRun run =
      simulate("v_store", {"distinct", std::to_string(n)}, {}, "profile",
               {"--profile-interval", std::to_string(interval), "--profile-prefix", prefix});
  // Profile mode times exactly as the timing mode does.
  const SimRun timing = simulate("v_store", {"distinct", std::to_string(n)});
  EXPECT_EQ(run.stats.at("cycles"), timing.stats.at("cycles"));
  EXPECT_EQ(run.region("sq_distinct").cycles, timing.region("sq_distinct").cycles);

  // Samples: one per core with activity every `interval` cycles, the IPC of each pipe and the
  // shares of cycles the load-miss and store queues were full.
  const auto samples = readCsv(prefix + "-samples.csv");
  ASSERT_GE(samples.size(), 2u);
  EXPECT_EQ(samples[0], (std::vector<std::string>{"core", "cycle", "xu0_ipc", "axu0_ipc",
                                                  "lmq_full_share", "sq_full_share"}));
  const u64 cycles = run.stats.at("cycles").get<u64>();
  u64 last = 0;
  double most_sq_full = 0;
  for (std::size_t i = 1; i < samples.size(); ++i) {
    ASSERT_EQ(samples[i].size(), 6u);
    EXPECT_EQ(samples[i][0], "0");  // one thread: core 0 only
    const u64 cycle = std::stoull(samples[i][1]);
    EXPECT_EQ(cycle % interval, 0u);
    EXPECT_GT(cycle, last);
    last = cycle;
    for (std::size_t c = 2; c < 6; ++c) {
      EXPECT_GE(std::stod(samples[i][c]), 0.0);
      EXPECT_LE(std::stod(samples[i][c]), 1.0);
    }
    most_sq_full = std::max(most_sq_full, std::stod(samples[i][5]));
  }
  EXPECT_EQ(samples.size() - 1, (cycles + interval - 1) / interval);
  EXPECT_GT(most_sq_full, 0.5);  // the stores fill the queue for most of an interval

  // The flat profile: every function that ran, its instructions, cycles and stalls.
  const auto functions = readCsv(prefix + "-functions.csv");
  ASSERT_GE(functions.size(), 2u);
  EXPECT_EQ(functions[0],
            (std::vector<std::string>{"function", "instructions", "cycles", "stall_dependency",
                                      "stall_pipe_busy", "stall_ibuffer_empty", "stall_icache_miss",
                                      "stall_mispredict", "stall_lmq_full", "stall_sq_full",
                                      "stall_idle", "stall_ierat_miss", "stall_derat_miss"}));
  u64 instructions = 0;
  u64 body_instructions = 0;
  u64 body_sq_full = 0;
  for (std::size_t i = 1; i < functions.size(); ++i) {
    ASSERT_EQ(functions[i].size(), 13u);
    instructions += std::stoull(functions[i][1]);
    if (functions[i][0] == "\"vk_sq_distinct_body\"") {
      body_instructions = std::stoull(functions[i][1]);
      body_sq_full = std::stoull(functions[i][9]);
    }
  }
  EXPECT_EQ(instructions, run.stats.at("instructions").get<u64>());
  // The body per call: fence, li, li, one alignment nop (4), the 16 x 2 warm-up loop, nop, begin
  // marker, 19 per iteration, ret; three warm-up calls of 20 iterations and the measured one.
  EXPECT_EQ(body_instructions, 3 * (39 + 19 * 20) + 39 + 19 * n);
  // The region's stores are the body's: its store-queue stalls are among the body's, and the
  // body's are all the run's (nothing else stores enough to fill the queue).
  EXPECT_GE(body_sq_full, run.region("sq_distinct").stall("sq_full"));
  u64 run_sq_full = 0;
  for (const json& core : run.stats.at("timing").at("cores")) {
    run_sq_full += core.at("stalls").at("sq_full").get<u64>();
  }
  EXPECT_EQ(body_sq_full, run_sq_full);
}

TEST(Sweep, RunsTheCrossProductAndReportsRegionsAndSpeedups) {
  TempDir dir;
  const Process p = runProcess(
      {kHpmsim, "sweep", "--json", "--set", "core.store_queue_entries=20,10", "--set",
       "core.store_drain_cycles=2,4", "--", guest("v_store", dir.path()), "distinct", "50"},
      dir.path());
  ASSERT_EQ(p.status, 0) << p.err;
  const json rows = json::parse(p.out);
  ASSERT_EQ(rows.size(), 4u);
  const double base = rows[0].at("cycles").get<double>();
  std::size_t i = 0;
  for (u64 entries : {20, 10}) {
    for (u64 drain : {2, 4}) {
      const json& row = rows[i++];
      EXPECT_EQ(row.at("config").at("core.store_queue_entries"), std::to_string(entries));
      EXPECT_EQ(row.at("config").at("core.store_drain_cycles"), std::to_string(drain));
      // The distinct-store formula above, with MP + T = 16 at the defaults.
      EXPECT_EQ(row.at("regions").at("sq_distinct").get<u64>(),
                1 + drain * (16 * 50 - entries) + 3 + 16);
      EXPECT_DOUBLE_EQ(row.at("speedup").get<double>(), base / row.at("cycles").get<double>());
    }
  }
  // The table: configuration, total cycles, the region's cycles and the speedup.
  const Process table = runProcess({kHpmsim, "sweep", "--set", "core.store_queue_entries=20,10",
                                    "--", guest("v_store", dir.path()), "distinct", "50"},
                                   dir.path());
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("core.store_queue_entries"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("sq_distinct"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("speedup"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("1.000"), std::string::npos) << table.out;
}

}  // namespace
