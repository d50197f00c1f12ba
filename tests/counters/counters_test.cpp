// The counter units seen from the guest and from `hpmsim run --upc-config`, end to end (label
// "counters"). The programs of guest/counters use the guest library (guest/lib/hpmctr) and check
// exact counts themselves, printing one "ok ..." or "FAIL ..." line per check and a final
// "PASSED"/"FAILED" line; this harness runs them under `hpmsim run` (timing mode unless the test
// says otherwise) on both machines and holds their exit status and output, and checks what the
// examples (guest/examples) print. Test names state the rule:
//
//   GuestCounters/<rule>.<machine>   a guest program's exact counts on bgp (UPC-P) and bgq (UPC-Q)
//   GuestSlowOverflow.<rule>         bgq's I/O unit: slow overflow and its hold, end to end
//   SramFaults.<rule>                --sram-fault: a parity fault seen by the program and the host
//   HpmsimRunUpcConfig.<rule>        --upc-config programs all 256 counters and prints them
//
// The conventions the exact counts rest on are in guest/counters/ctr_common.h and
// docs/counters.md: a register store at cycle t acts on the events of cycle t (the start store
// is counted, the stop store is not), a load at t returns the events of the cycles before t.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tests/support/process.h"

namespace {

using hpm::test::RunResult;
using hpm::test::TempDir;

const std::string kHpmsim = HPM_TEST_HPMSIM;
const std::string kBin = std::string(HPM_TEST_GUEST_BIN_DIR) + "/";
const std::vector<std::string> kEnv = {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C"};
constexpr std::chrono::seconds kTimeout{300};

// hpmsim run [options] -- program [args], in a fresh directory.
RunResult run(const std::vector<std::string>& options, const std::string& program,
              const std::vector<std::string>& args = {},
              const std::vector<std::string>& extra_env = {}) {
  TempDir dir("hpm-counters");
  std::vector<std::string> argv = {kHpmsim, "run"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.push_back(kBin + program);
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> env = kEnv;
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  return hpm::test::runProcess(argv, env, "", dir.path(), kTimeout);
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

bool hasLine(const std::string& text, const std::string& line) {
  for (const std::string& l : lines(text)) {
    if (l == line) return true;
  }
  return false;
}

// The guest/counters output contract: exit 0, no FAIL line, at least `min_checks` ok lines and
// the final PASSED line.
void expectPassed(const RunResult& r, int min_checks) {
  ASSERT_TRUE(r.exited()) << r.describe() << "\n" << r.err;
  int ok = 0;
  for (const std::string& l : lines(r.out)) {
    EXPECT_FALSE(l.starts_with("FAIL")) << l;
    if (l.starts_with("ok ")) ++ok;
  }
  EXPECT_GE(ok, min_checks) << r.out;
  EXPECT_TRUE(hasLine(r.out, "PASSED: 0 failure(s)")) << r.out << r.err;
  EXPECT_EQ(r.exit_code(), 0) << r.out << r.err;
}

class GuestCounters : public ::testing::TestWithParam<std::string> {
 protected:
  std::vector<std::string> machine() const { return {"--machine", GetParam()}; }
  bool bgp() const { return GetParam() == "bgp"; }
};

TEST_P(GuestCounters, CountsALoopBetweenStartAndStopExactly) {
  const RunResult r = run(machine(), "ctr_loop");
  expectPassed(r, 30);
  // 1 + 2n: the start store and n x (addi, bnez), not the stop store.
  EXPECT_TRUE(hasLine(r.out, "ok n=1 instructions = 3")) << r.out;
  // The start store is a device access: no L1D access, store-queue entry or L2 write.
  EXPECT_TRUE(hasLine(r.out, "ok n=1 L1D accesses, store-queue entries, L2 writes = 0")) << r.out;
  EXPECT_TRUE(hasLine(r.out, "ok n=123457 instructions = 246915")) << r.out;
  EXPECT_TRUE(hasLine(r.out, "ok n=123457 read difference = 246915")) << r.out;
}

TEST_P(GuestCounters, CountsTheSameLoopInTheFunctionalWarmupAndProfileModes) {
  for (const char* mode : {"functional", "warmup", "profile"}) {
    std::vector<std::string> options = machine();
    options.insert(options.end(), {"--mode", mode});
    const RunResult r = run(options, "ctr_loop", {"7", "5000"});
    SCOPED_TRACE(mode);
    expectPassed(r, 12);
    EXPECT_TRUE(hasLine(r.out, "ok n=5000 instructions = 10001")) << r.out;
  }
}

TEST_P(GuestCounters, StartAndStopIsolateARegion) {
  const RunResult r = run(machine(), "ctr_region");
  expectPassed(r, 7);
  EXPECT_TRUE(hasLine(r.out, "ok both regions: instructions = 8002")) << r.out;
  EXPECT_TRUE(hasLine(r.out, "ok multiplications outside the excluded region = 800")) << r.out;
}

// Parses "period P: EVENT count C, K calls" lines.
struct PeriodResult {
  uint64_t period, count, calls;
};
std::vector<PeriodResult> periods(const std::string& out) {
  std::vector<PeriodResult> found;
  const std::regex re(R"(^period (\d+): \S+ count (\d+), (\d+) calls$)");
  for (const std::string& l : lines(out)) {
    std::smatch m;
    if (std::regex_match(l, m, re)) {
      found.push_back({std::stoull(m[1]), std::stoull(m[2]), std::stoull(m[3])});
    }
  }
  return found;
}

void expectThresholds(const RunResult& r, const std::vector<std::string>& wanted_periods) {
  expectPassed(r, 5 * static_cast<int>(wanted_periods.size()));
  const std::vector<PeriodResult> found = periods(r.out);
  ASSERT_EQ(found.size(), wanted_periods.size()) << r.out;
  for (std::size_t i = 0; i < found.size(); ++i) {
    EXPECT_EQ(found[i].period, std::stoull(wanted_periods[i]));
    EXPECT_EQ(found[i].calls, found[i].count / found[i].period) << r.out;
    EXPECT_GE(found[i].calls, 4u) << "too few interrupts to test anything";
  }
}

TEST_P(GuestCounters, ThresholdHandlerIsCalledFloorCountOverPeriodTimesOnMultiplications) {
  // UPC-P: periods below, at and above 2^12 (one, one and two low-order wraps: the (threshold,
  // preload) pairs with q = 1, 1, 2) and larger; UPC-Q PUnit: THRESHOLD registers.
  const std::vector<std::string> p =
      bgp() ? std::vector<std::string>{"1000", "4096", "4097", "10000", "12289"}
            : std::vector<std::string>{"1000", "4096", "10000", "12345"};
  std::vector<std::string> args = {"InstIntMul", "60000"};
  args.insert(args.end(), p.begin(), p.end());
  const RunResult r = run(machine(), "ctr_threshold", args);
  expectThresholds(r, p);
  // No handler code multiplies: bgp's unit is stopped while the interrupt is handled, so the
  // count is exactly N.
  if (bgp()) {
    for (const PeriodResult& pr : periods(r.out)) EXPECT_EQ(pr.count, 60000u);
  }
}

TEST_P(GuestCounters, ThresholdHandlerIsCalledFloorCountOverPeriodTimesOnInstructions) {
  const std::vector<std::string> p = {"1000", "5000", "12345"};
  std::vector<std::string> args = {"Instructions", "40000"};
  args.insert(args.end(), p.begin(), p.end());
  expectThresholds(run(machine(), "ctr_threshold", args), p);
}

TEST_P(GuestCounters, ReadEveryCounterOfTheUnit) {
  const RunResult r = run(machine(), "ctr_read_all");
  expectPassed(r, bgp() ? 10 : 15);
  EXPECT_TRUE(hasLine(r.out, bgp() ? "ok PU0_INSTRUCTIONS = 10001" : "ok PEVT_INST_ALL@t0 = 10001"))
      << r.out;
}

TEST_P(GuestCounters, CountOnSeveralCoresAtOnce) {
  const RunResult r = run(machine(), "ctr_threads");
  expectPassed(r, bgp() ? 4 : 24);
  EXPECT_TRUE(hasLine(r.out, "ok thread 1 (core 1) read difference, n=27919 = 55839")) << r.out;
}

TEST_P(GuestCounters, CounterReadCostsNoMoreThanAnUncachedLoad) {
  const RunResult r = run(machine(), "ctr_read_cost");
  expectPassed(r, 1);
  std::smatch m;
  const std::regex re(R"(cost counter=([\d.]+) l1=([\d.]+) uncached=([\d.]+) cold_counter=(\d+))");
  ASSERT_TRUE(std::regex_search(r.out, m, re)) << r.out;
  EXPECT_LE(std::stod(m[1]), std::stod(m[3]));
  EXPECT_GT(std::stod(m[3]), 2 * std::stod(m[2])) << "the uncached chain must miss the caches";
}

// Random loads and stores of every register of every unit (reserved ones and narrow accesses
// included), with events between them and interrupts answered by more random stores: the units
// take it as the hardware does, never an internal error or a crash, and two runs agree.
TEST_P(GuestCounters, RandomRegisterTrafficIsAnsweredAndDeterministic) {
  for (const char* seed : {"1", "3", "5"}) {
    const RunResult a = run(machine(), "ctr_storm", {seed, "20000"});
    ASSERT_TRUE(a.exited()) << a.describe() << "\n" << a.err;
    EXPECT_EQ(a.exit_code(), 0) << a.out << a.err;
    EXPECT_EQ(a.err.find("internal error"), std::string::npos) << a.err;
    const std::regex line(std::string("ctr_storm seed ") + seed +
                          (bgp() ? ": 1 units" : ": 19 units") +
                          R"(, 20000 accesses, \d+ interrupts, digest [0-9a-f]{16}\n)");
    EXPECT_TRUE(std::regex_search(a.out, line)) << a.out;
    const RunResult b = run(machine(), "ctr_storm", {seed, "20000"});
    EXPECT_EQ(a.out, b.out) << "seed " << seed;
  }
}

// ---- the examples --------------------------------------------------------------------------

TEST_P(GuestCounters, ExampleCountRegionCountsTheMatrixMultiply) {
  const RunResult r = run(machine(), "example_count_region");
  ASSERT_TRUE(r.exited() && r.exit_code() == 0) << r.describe() << r.err;
  // 48^3 fused multiply-adds (bgp: PU0_FPU_FMA_2, bgq: PEVT_INST_QFPU_FMA@t0).
  const std::regex fp(R"(^\S*FMA\S* +counter +\d+ +110592$)");
  bool found = false;
  for (const std::string& l : lines(r.out)) found = found || std::regex_match(l, fp);
  EXPECT_TRUE(found) << r.out;
  EXPECT_TRUE(hasLine(r.out, "c[47][47] = -70312")) << r.out;
}

TEST_P(GuestCounters, ExampleSamplePcChargesTheHeavierFunction) {
  const RunResult r = run(machine(), "example_sample_pc");
  ASSERT_TRUE(r.exited() && r.exit_code() == 0) << r.describe() << r.err;
  std::smatch light, heavy;
  ASSERT_TRUE(std::regex_search(r.out, light, std::regex(R"(light +(\d+) samples)"))) << r.out;
  ASSERT_TRUE(std::regex_search(r.out, heavy, std::regex(R"(heavy +(\d+) samples)"))) << r.out;
  // heavy does three times light's work: about three times the samples.
  EXPECT_GT(std::stoull(light[1]), 20u) << r.out;
  EXPECT_GT(std::stoull(heavy[1]), 2 * std::stoull(light[1])) << r.out;
  EXPECT_LT(std::stoull(heavy[1]), 4 * std::stoull(light[1])) << r.out;
}

TEST_P(GuestCounters, ExampleAllCountersPrintsEveryCounter) {
  const RunResult r = run(machine(), "example_all_counters");
  ASSERT_TRUE(r.exited() && r.exit_code() == 0) << r.describe() << r.err;
  if (bgp()) {
    EXPECT_TRUE(hasLine(r.out, "UPC-P: 256 counters")) << r.out;
    EXPECT_NE(r.out.find("PU0_IPIPE_INSTRUCTIONS"), std::string::npos) << r.out;
  } else {
    EXPECT_TRUE(hasLine(r.out, "PUnit: 24 counters")) << r.out;
    EXPECT_TRUE(hasLine(r.out, "CNKUnit: 32 counters")) << r.out;
    // (The first 24 events of the thread: the harmonic sum's 20000 divides, each holding the
    // AXU core.occupancy.fp_div = 72 cycles.)
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(PEVT_AXU_FP_DS_ACTIVE@t0 +20000\n)")))
        << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(PEVT_AXU_FP_DS_ACTIVE_CYC@t0 +1440000\n)")))
        << r.out;
  }
}

TEST_P(GuestCounters, ExampleThreadsCountsEachThreadsShare) {
  const RunResult r = run(machine(), "example_threads");
  ASSERT_TRUE(r.exited() && r.exit_code() == 0) << r.describe() << r.err;
  const std::regex re(
      R"(^thread (\d+) on core (\d+): (\d+) instructions in its share of the loop$)");
  std::set<int> cores;
  int threads = 0;
  for (const std::string& l : lines(r.out)) {
    std::smatch m;
    if (!std::regex_match(l, m, re)) continue;
    ++threads;
    cores.insert(std::stoi(m[2]));
    EXPECT_GT(std::stoull(m[3]), 100000u) << l;  // each share is a quarter or half of 200000
  }
  EXPECT_EQ(threads, bgp() ? 2 : 4) << r.out;
  EXPECT_EQ(static_cast<int>(cores.size()), threads) << "one thread per core\n" << r.out;
}

INSTANTIATE_TEST_SUITE_P(Machines, GuestCounters, ::testing::Values("bgp", "bgq"),
                         [](const auto& param_info) { return param_info.param; });

// ---- slow overflow (bgq's I/O unit) ----------------------------------------------------------

// "period P: PEVT_IO_WRITES count C, K calls, I interrupts"
struct SlowResult {
  uint64_t count, calls, interrupts;
};
std::optional<SlowResult> slowResult(const std::string& out) {
  const std::regex re(R"(^period \d+: PEVT_IO_WRITES count (\d+), (\d+) calls, (\d+) interrupts$)");
  for (const std::string& l : lines(out)) {
    std::smatch m;
    if (std::regex_match(l, m, re)) {
      return SlowResult{std::stoull(m[1]), std::stoull(m[2]), std::stoull(m[3])};
    }
  }
  return std::nullopt;
}

// docs/upcq.md, "Slow overflow": detected at the sweep, counting continues until the handler
// runs, held from the handler's start to its acknowledge. guest/counters/ctr_slow_overflow.c
// checks it per call; 200 writes, the handler writes 3 more each time (never counted).
TEST(GuestSlowOverflow, IoUnitCountsEveryWriteButTheHandlersAndCallsItOncePerPeriod) {
  // A period longer than the writes of a sweep period: one interrupt per period.
  const RunResult r = run({"--machine", "bgq"}, "ctr_slow_overflow", {"200", "25", "3"});
  expectPassed(r, 11);
  const std::optional<SlowResult> s = slowResult(r.out);
  ASSERT_TRUE(s.has_value()) << r.out;
  EXPECT_EQ(s->count, 200u)
      << "the handler's 24 writes are not counted, none of the program's lost";
  EXPECT_EQ(s->calls, 8u);
  EXPECT_EQ(s->interrupts, 8u);
}

TEST(GuestSlowOverflow, IoUnitHandlerIsCalledOncePerPeriodWhenOneSweepPassesSeveral) {
  // Several periods pass between two sweeps, and the writes counted before the hold reach the
  // lagging COUNTER during the handler: the library calls once per period all the same.
  const RunResult r = run({"--machine", "bgq"}, "ctr_slow_overflow", {"200", "3", "3"});
  expectPassed(r, 11);
  const std::optional<SlowResult> s = slowResult(r.out);
  ASSERT_TRUE(s.has_value()) << r.out;
  EXPECT_EQ(s->count, 200u);
  EXPECT_EQ(s->calls, 66u);
  EXPECT_LT(s->interrupts, s->calls)
      << "no interrupt covered several periods: the case is untested";
}

// ---- the interconnect monitor from the guest (hpm/imon.h) --------------------------------------

// guest/counters/imon_stream.c: one read of a fresh 1 MiB buffer, counted through an address
// trit filter. Without the L1P's prefetcher each 128-byte L2 line is one demand read on the
// crossbar: 8,192 exactly. Sampling the 8-entry FIFO every 4 lines loses nothing and sees every
// line once; every 64 lines it loses records, and says how many.
TEST(GuestInterconnect, AnAddressFilterCountsEachLineOfABufferOnceAndTheFifoSamplesThemAll) {
  const RunResult r =
      run({"--machine", "bgq", "--set", "l1p.prefetch=false"}, "imon_stream", {"128", "4", "8192"});
  expectPassed(r, 8);
  EXPECT_TRUE(hasLine(r.out, "imon: 8192 counted, 8192 taken, 0 lost")) << r.out;
}

TEST(GuestInterconnect, SamplingTooRarelyLosesRecordsAndAccountsForEachOne) {
  const RunResult r = run({"--machine", "bgq", "--set", "l1p.prefetch=false"}, "imon_stream",
                          {"128", "64", "8192"});
  expectPassed(r, 8);
}

// guest/counters/imon_narrow.c: 1-, 2- and 4-byte stores to FIFO_POP and FIFO_STATUS pop
// nothing and clear nothing (the kernel used to merge them by reading the register first); a
// narrow store to a filter register merges into its value.
TEST(GuestInterconnect, ANarrowStoreToAFifoRegisterNeitherPopsNorClearsTheLostCount) {
  const RunResult r = run({"--machine", "bgq", "--set", "l1p.prefetch=false"}, "imon_narrow", {});
  expectPassed(r, 5);
}

TEST(GuestInterconnect, WithThePrefetcherReadsAndPrefetchesStillAddUp) {
  const RunResult r = run({"--machine", "bgq"}, "imon_stream", {"128", "4"});
  expectPassed(r, 5);
}

// On sunfire a program finds its page's physical address in /proc/self/pagemap, filters the
// monitor to it, and sees every line another CPU reads supplied by its own CPU's cache.
TEST(GuestInterconnect, OnSunfireTheProgramSeesItsOwnCacheSupplyTheLinesAnotherCpuReads) {
  const RunResult r =
      run({"--machine", "sunfire", "--set", "l1p.prefetch=false"}, "imon_supplier", {});
  expectPassed(r, 9);
}

TEST(GuestInterconnect, AMachineWithoutTheMonitorHasNoDevice) {
  const RunResult r = run({"--machine", "bgp"}, "imon_stream", {"128", "4"});
  ASSERT_TRUE(r.exited()) << r.describe();
  EXPECT_EQ(r.status(), 2);
  EXPECT_TRUE(hasLine(r.out, "FAIL hpm_imon_open: error -2")) << r.out;
}

// ---- hpmsim run --sram-fault -------------------------------------------------------------------

// The host's report line of one fault: (flipped at, detected at, how), or nullopt.
struct FaultReport {
  uint64_t flipped = 0;
  uint64_t detected = 0;
  std::string how;
};
std::optional<FaultReport> faultReport(const std::string& err, int counter, int bit) {
  const std::regex re("hpmsim: SRAM fault in /dev/hpm/upc counter " + std::to_string(counter) +
                      " bit " + std::to_string(bit) +
                      R"(: flipped at cycle (\d+); detected at cycle (\d+) \((.*)\))");
  std::smatch m;
  if (!std::regex_search(err, m, re)) return std::nullopt;
  return FaultReport{std::stoull(m[1]), std::stoull(m[2]), m[3]};
}

TEST(SramFaults, AnInjectedFaultInterruptsTheProgramAndIsReportedToTheHostAtOneCycle) {
  const RunResult r = run({"--machine", "bgp", "--sram-fault", "counter=0,cycle=1000000"},
                          "ctr_parity", {"interrupt"});
  expectPassed(r, 5);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(parity error: counter 0 at cycle (\d+))")))
      << r.out;
  const auto report = faultReport(r.err, 0, 0);
  ASSERT_TRUE(report) << r.err;
  EXPECT_GE(report->flipped, 1000000u);
  EXPECT_GE(report->detected, report->flipped);
  EXPECT_EQ(report->detected, std::stoull(m[1])) << "the guest's and the host's cycle";
  EXPECT_EQ(report->how, "parity error: status registers and an interrupt");
}

TEST(SramFaults, WithParityInterruptsOffTheProgramFindsTheFaultInTheStatusRegister) {
  const RunResult r = run({"--machine", "bgp", "--sram-fault", "counter=0,cycle=1000000,bit=0"},
                          "ctr_parity", {"poll"});
  expectPassed(r, 2);
  EXPECT_TRUE(hasLine(r.out, "parity status: counter 0")) << r.out;
  const auto report = faultReport(r.err, 0, 0);
  ASSERT_TRUE(report) << r.err;
  EXPECT_EQ(report->how, "parity error: status registers; parity interrupts were off");
}

TEST(SramFaults, TheReportSaysWhatWasNeitherDetectedNorInjected) {
  // Counter 3 is never read (its carries never come: nothing counts on it); the second fault's
  // cycle is past the end of the run.
  const RunResult r = run({"--machine", "bgp", "--sram-fault", "counter=3,cycle=1000000,bit=55",
                           "--sram-fault", "counter=0,cycle=99999999"},
                          "ctr_parity", {"poll", "1500000"});
  ASSERT_TRUE(r.exited()) << r.describe();
  EXPECT_NE(r.err.find("counter 3 bit 55: flipped at cycle "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("; not detected (no read of the entry followed by the end"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("counter 0 bit 0: not injected: the run ended at cycle "), std::string::npos)
      << r.err;
}

TEST(SramFaults, BadSpecificationsAndUnitsWithoutSramAreUsageErrors) {
  for (const auto& [machine, spec, message] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"bgp", "counter=999,cycle=5", "/dev/hpm/upc has counters 0-255, not 999"},
           {"bgp", "counter=1,cycle=5,bit=56", "SRAM entries have bits 0-55, not 56"},
           {"bgp", "cycle=5", "--sram-fault 'cycle=5': no counter="},
           {"bgp", "counter=1,cycle=x", "cycle must be a number, not 'x'"},
           {"bgp", "counter=1,cycle=5,colour=red", "unknown key 'colour'"},
           {"bgp", "counter=1,cycle=5,unit=/dev/hpm/l2", "machine bgp has no unit /dev/hpm/l2"},
           {"bgq", "counter=1,cycle=5", "machine bgq's counter units keep their counts in no SRAM"},
       }) {
    const RunResult r = run({"--machine", machine, "--sram-fault", spec}, "ctr_parity", {"poll"});
    ASSERT_TRUE(r.exited()) << r.describe();
    EXPECT_EQ(r.exit_code(), 2) << spec;
    EXPECT_NE(r.err.find(message), std::string::npos) << spec << "\n" << r.err;
    EXPECT_EQ(r.out, "") << "the program must not run";
  }
}

// ---- hpmsim run --upc-config -------------------------------------------------------------------

// The rows printed at exit: counter -> (select, event, value).
struct Row {
  int select;
  std::string event;
  uint64_t value;
  bool reprogrammed;
};
std::map<int, Row> upcRows(const std::string& err) {
  std::map<int, Row> rows;
  const std::regex re(R"(^ +(\d+) +(\d+)  (\S+) +(\d+)(  \(reprogrammed by the guest\))?$)");
  for (const std::string& l : lines(err)) {
    std::smatch m;
    if (std::regex_match(l, m, re)) {
      rows[std::stoi(m[1])] = Row{std::stoi(m[2]), m[3], std::stoull(m[4]), m[5].matched};
    }
  }
  return rows;
}

std::string writeConfig(const TempDir& dir, const std::string& text) {
  const std::string path = (dir.path() / "upc.txt").string();
  std::ofstream(path) << text;
  return path;
}

TEST(HpmsimRunUpcConfig, PrintsEveryCounterWithItsEventAndIdAsStatCountsIt) {
  TempDir dir("hpm-upc-config");
  const std::string config = writeConfig(dir, "# all counters\nselect 0\n");
  const RunResult r = run({"--machine", "bgp", "--upc-config", config}, "bt", {"6", "1"});
  ASSERT_TRUE(r.exited() && r.exit_code() == 0) << r.describe() << r.err;
  const std::map<int, Row> rows = upcRows(r.err);
  ASSERT_EQ(rows.size(), 256u) << r.err;
  EXPECT_EQ(rows.begin()->first, 0);
  EXPECT_EQ(rows.rbegin()->first, 255);
  // select 0 is the first column of seed 002's Table 1: each counter's event is the catalogue's
  // for that counter and select.
  const RunResult events = hpm::test::runProcess({kHpmsim, "events", "--machine", "bgp"}, kEnv, "",
                                                 dir.path(), kTimeout);
  ASSERT_EQ(events.exit_code(), 0) << events.err;
  std::map<int, std::string> select0;
  const std::regex listed(R"(^(\S+) +counter +(\d+) select 0 )");
  for (const std::string& l : lines(events.out)) {
    std::smatch m;
    if (std::regex_search(l, m, listed)) select0[std::stoi(m[2])] = m[1];
  }
  ASSERT_EQ(select0.size(), 256u) << events.out;
  for (const auto& [counter, row] : rows) {
    EXPECT_EQ(row.select, 0);
    EXPECT_EQ(row.event, select0.at(counter)) << counter;
  }
  EXPECT_EQ(rows.at(4).event, "PU0_IPIPE_INSTRUCTIONS");
  EXPECT_EQ(rows.at(39).event, "PU1_IPIPE_INSTRUCTIONS");
  EXPECT_GT(rows.at(39).value, 0u) << "bt's second thread runs on core 1";
  // The same counts as hpmsim stat's for the same (deterministic) run.
  std::vector<std::string> argv = {kHpmsim,
                                   "stat",
                                   "--machine",
                                   "bgp",
                                   "--json",
                                   "-e",
                                   "PU0_IPIPE_INSTRUCTIONS,PU1_IPIPE_INSTRUCTIONS,PU0_DCACHE_MISS,"
                                   "PU0_CYCLES",
                                   "--",
                                   kBin + "bt",
                                   "6",
                                   "1"};
  const RunResult stat = hpm::test::runProcess(argv, kEnv, "", dir.path(), kTimeout);
  ASSERT_TRUE(stat.exited() && stat.exit_code() == 0) << stat.describe() << stat.err;
  for (const auto& [counter, name] :
       std::vector<std::pair<int, std::string>>{{4, "PU0_IPIPE_INSTRUCTIONS"},
                                                {39, "PU1_IPIPE_INSTRUCTIONS"},
                                                {15, "PU0_DCACHE_MISS"},
                                                {254, "PU0_CYCLES"}}) {
    ASSERT_EQ(rows.at(counter).event, name);
    const std::regex re("\"" + name + "\": (\\d+)");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(stat.err, m, re)) << stat.err;
    EXPECT_EQ(rows.at(counter).value, std::stoull(m[1])) << name;
  }
}

TEST(HpmsimRunUpcConfig, EventNamesOverrideTheSelectOfTheirCounter) {
  TempDir dir("hpm-upc-config");
  const std::string config = writeConfig(dir, "select 0\nPU2_INSTRUCTIONS   # core 2\n");
  const RunResult r = run({"--machine", "bgp", "--upc-config", config}, "bt", {"6", "1"});
  ASSERT_TRUE(r.exited() && r.exit_code() == 0) << r.describe() << r.err;
  const std::map<int, Row> rows = upcRows(r.err);
  ASSERT_EQ(rows.size(), 256u) << r.err;
  EXPECT_EQ(rows.at(0).event, "PU2_INSTRUCTIONS");
  EXPECT_EQ(rows.at(0).select, 3);
  EXPECT_EQ(rows.at(0).value, 0u) << "bt's two threads run on cores 0 and 1";
  EXPECT_EQ(rows.at(4).event, "PU0_IPIPE_INSTRUCTIONS");
  EXPECT_GT(rows.at(4).value, 0u);
  for (const auto& [counter, row] : rows) EXPECT_FALSE(row.reprogrammed) << counter;
}

TEST(HpmsimRunUpcConfig, ReportsWhatEachCounterCountsAtTheEnd) {
  // The guest reprograms counter 0 to PU0_INSTRUCTIONS (select 2): the row says so.
  TempDir dir("hpm-upc-config");
  const std::string config = writeConfig(dir, "select 0\nPU2_INSTRUCTIONS\n");
  const RunResult r = run({"--machine", "bgp", "--upc-config", config}, "ctr_loop", {"5"});
  ASSERT_TRUE(r.exited()) << r.describe() << r.err;
  const std::map<int, Row> rows = upcRows(r.err);
  ASSERT_EQ(rows.size(), 256u) << r.err;
  EXPECT_EQ(rows.at(0).event, "PU0_INSTRUCTIONS");
  EXPECT_EQ(rows.at(0).select, 2);
  EXPECT_TRUE(rows.at(0).reprogrammed);
  EXPECT_FALSE(rows.at(2).reprogrammed);
}

TEST(HpmsimRunUpcConfig, RefusesAMachineWithoutUpcP) {
  TempDir dir("hpm-upc-config");
  const RunResult r =
      run({"--machine", "bgq", "--upc-config", writeConfig(dir, "select 0\n")}, "ctr_loop");
  ASSERT_TRUE(r.exited()) << r.describe();
  EXPECT_EQ(r.exit_code(), 2);
  EXPECT_NE(r.err.find("--upc-config programs a UPC-P unit, and machine bgq has UPC-Q"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "") << "the program must not run";
}

TEST(HpmsimRunUpcConfig, RefusesTwoEventsOfOneCounter) {
  TempDir dir("hpm-upc-config");
  const std::string config = writeConfig(dir, "PU0_INSTRUCTIONS\nPU2_INSTRUCTIONS\n");
  const RunResult r = run({"--machine", "bgp", "--upc-config", config}, "ctr_loop");
  ASSERT_TRUE(r.exited()) << r.describe();
  EXPECT_EQ(r.exit_code(), 2);
  EXPECT_NE(r.err.find("upc.txt:2: PU2_INSTRUCTIONS and PU0_INSTRUCTIONS (line 1) are both "
                       "inputs of counter 0"),
            std::string::npos)
      << r.err;
}

TEST(HpmsimRunUpcConfig, RefusesUnknownEventsAndBadSelects) {
  TempDir dir("hpm-upc-config");
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {"PU0_NO_SUCH_EVENT\n", "upc.txt:1: unknown event 'PU0_NO_SUCH_EVENT'"},
           {"\n# nothing\nselect 4\n", "upc.txt:3: select 4 names no event of counter 0"},
           {"select\n", "upc.txt:1: expected `select S`"},
           {"# only a comment\n", "programs no counter"}}) {
    const RunResult r =
        run({"--machine", "bgp", "--upc-config", writeConfig(dir, text)}, "ctr_loop");
    ASSERT_TRUE(r.exited()) << r.describe();
    EXPECT_EQ(r.exit_code(), 2) << text;
    EXPECT_NE(r.err.find(message), std::string::npos) << text << "\n" << r.err;
  }
}

// A configuration is a regular file of bounded size: a device would be read without end.
TEST(HpmsimRunUpcConfig, RefusesADeviceAndAnOversizedFileBeforeReadingThem) {
  TempDir dir("hpm-upc-config");
  const std::string big = writeConfig(dir, std::string(2 << 20, '#'));
  for (const auto& [path, message] : std::vector<std::pair<std::string, std::string>>{
           {"/dev/zero", "'/dev/zero' is not a regular file"},
           {big, "is larger than 1048576 bytes"}}) {
    const RunResult r = run({"--machine", "bgp", "--upc-config", path}, "ctr_loop");
    ASSERT_TRUE(r.exited()) << r.describe();
    EXPECT_EQ(r.exit_code(), 6) << path;  // ExitCode::kIo
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
}

}  // namespace
