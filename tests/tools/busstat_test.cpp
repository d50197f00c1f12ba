// The interconnect monitor's host tools (docs/interconnect.md). `hpmsim busstat`: its counts held
// against the simulator's own count of the interconnect's transactions (`hpmsim run
// --stats-json`, "interconnect"), its transaction-type distribution (seed 004's Figure 3) against
// the same, its FIFO sampling, and its errors. `hpmsim conflicts` (seed 004's cache-conflict
// tool): it finds a deliberate conflict's contending addresses, and tells capacity writebacks
// from it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
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
const std::string kNodeMix = std::string(HPM_TEST_GUEST_BIN_DIR) + "/node_mix";
const std::string kWritebacks = std::string(HPM_TEST_GUEST_BIN_DIR) + "/writebacks";
const std::string kFalseSharing = std::string(HPM_TEST_GUEST_BIN_DIR) + "/false_sharing";
const std::string kFirstTouch = std::string(HPM_TEST_GUEST_BIN_DIR) + "/first_touch";
const std::string kHandoff = std::string(HPM_TEST_GUEST_BIN_DIR) + "/handoff";
constexpr std::chrono::seconds kTimeout{300};
constexpr int kUsage = 2;  // ExitCode::kUsage

RunResult hpmsim(const std::vector<std::string>& args, const fs::path& cwd) {
  std::vector<std::string> argv = {kHpmsim};
  argv.insert(argv.end(), args.begin(), args.end());
  return hpm::test::runProcess(argv, {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C"}, "", cwd, kTimeout);
}

// The simulator's count of node_mix's transactions by statistic name ("read_l2", ...).
json truthOf(const std::vector<std::string>& machine_args, const std::string& threads = "3") {
  TempDir dir("hpm-busstat");
  std::vector<std::string> args = {"run"};
  args.insert(args.end(), machine_args.begin(), machine_args.end());
  const std::vector<std::string> tail = {"--stats-json", "stats.json", "--", kNodeMix, threads};
  args.insert(args.end(), tail.begin(), tail.end());
  const RunResult r = hpmsim(args, dir.path());
  EXPECT_EQ(r.status(), 0) << r.err;
  std::ifstream in(dir.path() / "stats.json");
  return json::parse(in).at("timing").at("interconnect");
}

u64 sumWithPrefix(const json& truth, const std::string& prefix) {
  u64 sum = 0;
  for (const auto& [key, value] : truth.items()) {
    if (prefix.empty() || key.starts_with(prefix)) sum += value.get<u64>();
  }
  return sum;
}

TEST(Busstat, IntervalCountsAddUpToTheSimulatorsCountOfEachPresetsTransactions) {
  TempDir dir("hpm-busstat");
  const RunResult r = hpmsim(
      {"busstat", "--machine", "bgq", "--interval-cycles", "200000", "-e",
       "sfi_hstgrm_all_trans,ic_write,ic_mem_read,sfi_hstgrm_int", "--json", "--", kNodeMix, "3"},
      dir.path());
  ASSERT_EQ(r.status(), 0) << r.err;
  const json out = json::parse(r.err);
  EXPECT_GT(out.at("intervals").size(), 3u) << "several intervals, the last partial";
  std::map<std::string, u64> sums;
  for (const json& row : out.at("intervals")) {
    for (const auto& [name, value] : row.at("counts").items()) sums[name] += value.get<u64>();
  }
  for (const auto& [name, value] : sums) EXPECT_EQ(value, out.at("counts").at(name)) << name;
  // Each count is the simulator's count of its filter's transactions in the same run.
  for (const auto& [name, value] : out.at("counts").items()) {
    EXPECT_EQ(value, out.at("exact").at(name)) << name;
  }
  // The presets mean what their names say, against a plain run's statistics: the same run, as
  // the samples end no slice of node_mix's three threads early (docs/timing.md section 1).
  const json truth = truthOf({"--machine", "bgq"}, "3");
  EXPECT_EQ(out.at("counts").at("sfi_hstgrm_all_trans"), sumWithPrefix(truth, ""));
  EXPECT_EQ(out.at("counts").at("ic_write"), sumWithPrefix(truth, "write_"));
  EXPECT_EQ(out.at("counts").at("ic_mem_read"), sumWithPrefix(truth, "mem_read_"));
  EXPECT_GT(sumWithPrefix(truth, "write_"), 1000u);
  EXPECT_EQ(out.at("counts").at("sfi_hstgrm_int"), 0u) << "no interrupt crosses the crossbar";
}

// Without -e busstat counts four events the machine's interconnect has: on sunfire the writes to
// memory are the external caches' writebacks (ic_mem_write is the crossbar's).
TEST(Busstat, WithoutEventsItCountsTheMachinesOwnDefaultsOnEitherInterconnect) {
  TempDir dir("hpm-busstat-defaults");
  for (const std::string machine : {"bgq", "sunfire"}) {
    const RunResult r =
        hpmsim({"busstat", "--machine", machine, "--json", "--", kNodeMix, "3"}, dir.path());
    ASSERT_EQ(r.status(), 0) << machine << ": " << r.err;
    const json counts = json::parse(r.err).at("counts");
    const std::string writes = machine == "sunfire" ? "ic_write_back" : "ic_mem_write";
    for (const std::string& name : std::vector<std::string>{
             "sfi_hstgrm_all_trans", "sfi_hstgm_cohrnt", "sfi_hstgrm_io", writes}) {
      EXPECT_TRUE(counts.contains(name)) << machine << " " << name;
    }
    EXPECT_GT(counts.at("sfi_hstgrm_all_trans").get<u64>(), 0u) << machine;
  }
}

TEST(Busstat, DistributionSamplesExactlyTheTypesItWatchedTheWholeRun) {
  // One rotation longer than the run: the four counters watch the first four types throughout,
  // so those are sampled (and estimated) exactly, and the others not at all.
  TempDir dir("hpm-busstat");
  const RunResult r = hpmsim({"busstat", "--machine", "bgq", "--distribution", "--interval-cycles",
                              "1000000000", "--json", "--csv", "dist.csv", "--", kNodeMix, "3"},
                             dir.path());
  ASSERT_EQ(r.status(), 0) << r.err;
  const json out = json::parse(r.err);
  const json truth = truthOf({"--machine", "bgq"});
  const json& rows = out.at("distribution");
  ASSERT_EQ(rows.size(), 10u);
  const char* prefixes[] = {"read_",       "fetch_",    "prefetch_",  "write_",   "atomic_",
                            "invalidate_", "mem_read_", "mem_write_", "io_read_", "io_write_"};
  for (std::size_t t = 0; t < rows.size(); ++t) {
    SCOPED_TRACE(rows[t].at("name").get<std::string>());
    EXPECT_EQ(rows[t].at("exact"), sumWithPrefix(truth, prefixes[t]));
    if (t < 4) {
      EXPECT_EQ(rows[t].at("sampled"), rows[t].at("exact"));
      EXPECT_EQ(rows[t].at("observed_cycles"), out.at("cycles"));
    } else {
      EXPECT_EQ(rows[t].at("sampled"), 0u);
      EXPECT_EQ(rows[t].at("observed_cycles"), 0u);
    }
  }
  std::ifstream csv(dir.path() / "dist.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, "type,name,sampled,observed_cycles,estimated,share,exact");
}

// On sunfire the rotation covers Fireplane's 19 types, each row equal to the simulator's count.
TEST(Busstat, OnSunfireTheDistributionCoversTheNineteenFireplaneTypes) {
  TempDir dir("hpm-busstat");
  const std::vector<std::string> machine = {"--machine", "sunfire", "--set", "node.cores=4"};
  std::vector<std::string> args = {"busstat"};
  args.insert(args.end(), machine.begin(), machine.end());
  for (const char* a :
       {"--distribution", "--interval-cycles", "1000000000", "--json", "--", "./node_mix", "4"}) {
    args.push_back(a);
  }
  fs::copy_file(kNodeMix, dir.path() / "node_mix");
  const RunResult r = hpmsim(args, dir.path());
  ASSERT_EQ(r.status(), 0) << r.err;
  const json out = json::parse(r.err);
  const json& rows = out.at("distribution");
  ASSERT_EQ(rows.size(), 19u);
  const char* names[] = {"RTS", "RTSA", "RTSR", "RTSM", "RTO", "RTOR", "RTOU", "RS",  "RSR", "WS",
                         "WSR", "WB",   "WBR",  "RIO",  "WIO", "RBIO", "WBIO", "INT", "FLS"};
  for (std::size_t t = 0; t < rows.size(); ++t) {
    EXPECT_EQ(rows[t].at("type"), names[t]);
    if (t < 4) {
      EXPECT_EQ(rows[t].at("sampled"), rows[t].at("exact")) << names[t];
    }
  }
  EXPECT_GT(rows[0].at("exact").get<u64>(), 0u) << "ReadToShare";
  EXPECT_GT(rows[1].at("exact").get<u64>(), 0u) << "ReadToShareAlways";
  EXPECT_GT(rows[4].at("exact").get<u64>(), 0u) << "ReadToOwn";
}

// First-touch placement puts a page on the board of the CPU that touches it first, and the guest
// sees it through /proc/self/pagemap: initialised by its own thread, each chunk is on that
// thread's board (CPU / 4); initialised by the main thread, all are on the main thread's.
TEST(Sunfire, FirstTouchPlacesEachPageOnTheBoardOfTheCpuThatTouchedItAsPagemapShows) {
  TempDir dir("hpm-sunfire");
  fs::copy_file(kFirstTouch, dir.path() / "first_touch");
  for (const std::string mode : {"each", "one"}) {
    SCOPED_TRACE(mode);
    const RunResult r = hpmsim(
        {"run", "--machine", "sunfire", "--env-clear", "--", "./first_touch", mode, "16", "1"},
        dir.path());
    ASSERT_EQ(r.status(), 0) << r.err;
    std::istringstream lines(r.out);
    std::string line;
    std::set<unsigned> boards;
    int threads = 0;
    while (std::getline(lines, line)) {
      unsigned id = 0, mask = 0;
      int cpu = -1;
      if (std::sscanf(line.c_str(), "thread %u cpu %d boards 0x%x", &id, &cpu, &mask) != 3) {
        continue;
      }
      ++threads;
      EXPECT_EQ(line.find("absent"), std::string::npos) << line;
      ASSERT_GE(cpu, 0) << line;
      if (mode == "each") {
        EXPECT_EQ(mask, 1u << (cpu / 4)) << line;
      }
      boards.insert(mask);
    }
    EXPECT_EQ(threads, 16);
    if (mode == "each") {
      EXPECT_EQ(boards, (std::set<unsigned>{1, 2, 4, 8}));
    } else {
      EXPECT_EQ(boards.size(), 1u) << "every chunk on the main thread's board";
    }
  }
}

TEST(Busstat, DistributionRotatesEveryTypeThroughTheCounters) {
  TempDir dir("hpm-busstat");
  const RunResult r = hpmsim({"busstat", "--machine", "bgq", "--distribution", "--interval-cycles",
                              "20000", "--json", "--", kNodeMix, "3"},
                             dir.path());
  ASSERT_EQ(r.status(), 0) << r.err;
  const json out = json::parse(r.err);
  u64 observed = 0;
  for (const json& row : out.at("distribution")) {
    EXPECT_GT(row.at("observed_cycles").get<u64>(), 0u) << row.at("name");
    EXPECT_LE(row.at("sampled").get<u64>(), row.at("exact").get<u64>()) << row.at("name");
    observed += row.at("observed_cycles").get<u64>();
  }
  // Four counters watch a type each at every moment.
  EXPECT_EQ(observed, 4 * out.at("cycles").get<u64>());
}

TEST(Busstat, FifoSamplingAccountsForEveryMatchOfCounterOneAsTakenOrLost) {
  // Sampled often, the FIFO loses little; sampled rarely, most; either way every write counter 1
  // matched is a record taken or one the FIFO reported lost, and the trace holds those taken.
  for (const char* interval : {"500", "100000"}) {
    SCOPED_TRACE(interval);
    TempDir dir("hpm-busstat");
    const RunResult r = hpmsim({"busstat", "-e", "ic_read,ic_write", "--interval-cycles", interval,
                                "--trace", "trace.csv", "--json", "--", kNodeMix, "3"},
                               dir.path());
    ASSERT_EQ(r.status(), 0) << r.err;
    const json out = json::parse(r.err);
    const json& fifo = out.at("fifo");
    EXPECT_EQ(fifo.at("matched"), out.at("counts").at("ic_write"));
    EXPECT_EQ(fifo.at("taken").get<u64>() + fifo.at("lost").get<u64>(),
              fifo.at("matched").get<u64>());
    EXPECT_GT(fifo.at("taken").get<u64>(), 0u);
    std::ifstream trace(dir.path() / "trace.csv");
    std::string line;
    u64 records = 0;
    std::getline(trace, line);
    EXPECT_EQ(line, "cycle,monitor,address,type,snoop,source,id");
    while (std::getline(trace, line)) {
      ++records;
      EXPECT_NE(line.find(",WR,"), std::string::npos) << line;
    }
    EXPECT_EQ(records, fifo.at("taken").get<u64>());
  }
}

TEST(Busstat, RefusesWhatItCannotCountNamingTheProblem) {
  TempDir dir("hpm-busstat");
  RunResult r = hpmsim({"busstat", "--machine", "bgp", "--", kNodeMix, "1"}, dir.path());
  EXPECT_EQ(r.status(), kUsage);
  EXPECT_NE(r.err.find("no interconnect monitor"), std::string::npos) << r.err;
  r = hpmsim({"busstat", "-e", "sfi_nonsense", "--", kNodeMix, "1"}, dir.path());
  EXPECT_EQ(r.status(), kUsage);
  EXPECT_NE(r.err.find("unknown event 'sfi_nonsense'"), std::string::npos) << r.err;
  r = hpmsim(
      {"busstat", "-e", "ic_read,ic_write,ic_fetch,ic_prefetch,ic_atomic", "--", kNodeMix, "1"},
      dir.path());
  EXPECT_EQ(r.status(), kUsage);
  EXPECT_NE(r.err.find("has 4 counters"), std::string::npos) << r.err;
  r = hpmsim({"busstat", "--distribution", "-e", "ic_read", "--", kNodeMix, "1"}, dir.path());
  EXPECT_EQ(r.status(), kUsage);
  r = hpmsim({"busstat", "--mode", "functional", "--", kNodeMix, "1"}, dir.path());
  EXPECT_EQ(r.status(), kUsage);
}

// ---- hpmsim conflicts ---------------------------------------------------------------------------

// 24 lines 2 MiB apart contend for one set of a one-slice L2 of 16,384 sets of 16 ways: every
// round's stores evict the lines the previous round left dirty. The tool sees one block, the 24
// addresses in the program's data segment, and accounts for every writeback.
TEST(Conflicts, FindsTheAddressesContendingForOneSetAndAccountsForEveryWriteback) {
  TempDir dir("hpm-conflicts");
  const RunResult r =
      hpmsim({"conflicts", "--set", "l2.slices=1", "--interval-cycles", "100", "--json", "--csv",
              "blocks.csv", "--", kWritebacks, "conflict", "24", "2097152", "50"},
             dir.path());
  ASSERT_EQ(r.status(), 0) << r.err;
  const json out = json::parse(r.err);
  // Every store of a round after the first fills misses and writes a dirty line back: 24 x 50
  // stores, less the 16 that found free ways.
  EXPECT_GE(out.at("writebacks").get<u64>(), 24u * 50 - 16);
  EXPECT_EQ(out.at("taken").get<u64>() + out.at("lost").get<u64>(),
            out.at("writebacks").get<u64>());
  EXPECT_GT(out.at("taken").get<u64>(), 100u);
  const json& hot = out.at("hottest").at(0);
  EXPECT_GE(hot.at("writebacks").get<u64>() * 100, out.at("taken").get<u64>() * 95)
      << "nearly every writeback seen is of the one contended block";
  // The 24 lines, each written back again and again (another line of the set, a variable of
  // the C library's, may appear once or twice).
  std::set<u64> contending, offsets;
  for (const json& a : hot.at("addresses")) {
    if (a.at("writebacks").get<u64>() < 10) continue;
    contending.insert(a.at("address").get<u64>());
    offsets.insert(a.at("address").get<u64>() % 2097152);
  }
  EXPECT_EQ(contending.size(), 24u);
  EXPECT_EQ(offsets.size(), 1u) << "the addresses are 2 MiB apart";
  for (const json& p : hot.at("pages")) EXPECT_EQ(p.at("segment"), "writebacks (data)");
  std::ifstream csv(dir.path() / "blocks.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, "block,slice,set,writebacks");
}

// A stencil over two 1 MiB arrays on a 512 KiB L2: capacity writebacks, spread over every block,
// each block's from many pages of the allocated arrays, a few each.
TEST(Conflicts, CapacityWritebacksSpreadOverEveryBlockFromManyPages) {
  TempDir dir("hpm-conflicts");
  const RunResult r = hpmsim({"conflicts", "--set", "l2.size_kib=512", "--interval-cycles", "500",
                              "--json", "--top", "1", "--", kWritebacks, "stencil", "1024", "3"},
                             dir.path());
  ASSERT_EQ(r.status(), 0) << r.err;
  const json out = json::parse(r.err);
  EXPECT_EQ(out.at("taken").get<u64>() + out.at("lost").get<u64>(),
            out.at("writebacks").get<u64>());
  EXPECT_EQ(out.at("blocks").get<u64>(), 16u * out.at("sets_per_slice").get<u64>())
      << "every block of the 16 slices wrote back";
  const json& hot = out.at("hottest").at(0);
  EXPECT_GT(hot.at("pages").size(), 32u);
  EXPECT_LT(hot.at("writebacks").get<u64>() * 100, out.at("taken").get<u64>())
      << "no block stands out";
  u64 anonymous = 0;
  for (const json& p : hot.at("pages")) anonymous += p.at("segment") == "[anonymous]";
  EXPECT_GT(anonymous * 2, hot.at("pages").size()) << "the arrays are mmap'ed by malloc";
}

TEST(Conflicts, RefusesAMachineWithoutTheMonitorAndAZeroInterval) {
  TempDir dir("hpm-conflicts");
  RunResult r = hpmsim({"conflicts", "--machine", "bgp", "--", kNodeMix, "1"}, dir.path());
  EXPECT_EQ(r.status(), kUsage);
  EXPECT_NE(r.err.find("no interconnect monitor"), std::string::npos) << r.err;
  r = hpmsim({"conflicts", "--interval-cycles", "0", "--", kNodeMix, "1"}, dir.path());
  EXPECT_EQ(r.status(), kUsage);
}

// -I is simulated milliseconds, as perf's -I and stat's (bgq's clock: 1600 MHz, so 0.125 ms are
// 200,000 cycles), --interval-cycles cycles: the same interval either way gives the same report.
TEST(InterconnectTools, DashIIsMillisecondsAndIntervalCyclesIsCyclesForEveryTool) {
  for (const char* tool : {"busstat", "conflicts"}) {
    TempDir dir("hpm-tool-interval");
    const RunResult ms = hpmsim({tool, "-I", "0.125", "--json", "--", kNodeMix, "1"}, dir.path());
    const RunResult cycles =
        hpmsim({tool, "--interval-cycles", "200000", "--json", "--", kNodeMix, "1"}, dir.path());
    ASSERT_EQ(ms.status(), 0) << tool << ": " << ms.err;
    ASSERT_EQ(cycles.status(), 0) << tool << ": " << cycles.err;
    EXPECT_EQ(json::parse(ms.err), json::parse(cycles.err)) << tool;
  }
}

// The interconnect tools' reports go to -o's file when given, never mixed with the guest's stderr:
// the file holds the JSON that stderr would have held (the runs are deterministic), stderr none
// of it; a file that cannot be written is refused before the run.
TEST(InterconnectTools, OutputOptionWritesTheReportToItsFileNotToStderr) {
  for (const char* tool : {"busstat", "c2c", "conflicts", "locality"}) {
    TempDir dir("hpm-tool-output");
    const RunResult plain = hpmsim({tool, "--json", "--", kNodeMix, "1"}, dir.path());
    ASSERT_EQ(plain.status(), 0) << tool << ": " << plain.err;
    const RunResult to_file =
        hpmsim({tool, "--json", "-o", "report.json", "--", kNodeMix, "1"}, dir.path());
    ASSERT_EQ(to_file.status(), 0) << tool << ": " << to_file.err;
    EXPECT_EQ(to_file.err.find('{'), std::string::npos) << tool << ": " << to_file.err;
    std::ifstream in(dir.path() / "report.json");
    EXPECT_EQ(json::parse(in), json::parse(plain.err)) << tool;
    const RunResult text = hpmsim({tool, "-o", "report.txt", "--", kNodeMix, "1"}, dir.path());
    ASSERT_EQ(text.status(), 0) << tool << ": " << text.err;
    EXPECT_GT(fs::file_size(dir.path() / "report.txt"), 0u) << tool;
    const RunResult unwritable =
        hpmsim({tool, "-o", "no/such/folder/r.json", "--", kNodeMix, "1"}, dir.path());
    EXPECT_NE(unwritable.status(), 0) << tool;
    EXPECT_NE(unwritable.err.find("cannot write 'no/such/folder/r.json'"), std::string::npos)
        << tool << ": " << unwritable.err;
    EXPECT_EQ(unwritable.out, "") << tool << ": the program ran";
    // -o naming the program (a copy here) is refused before the run, which would overwrite it.
    fs::copy_file(kNodeMix, dir.path() / "prog");
    const RunResult onto = hpmsim({tool, "-o", "prog", "--", "./prog", "1"}, dir.path());
    EXPECT_NE(onto.status(), 0) << tool;
    EXPECT_NE(onto.err.find("-o 'prog' is the program: the run would overwrite it"),
              std::string::npos)
        << tool << ": " << onto.err;
    EXPECT_EQ(onto.out, "") << tool << ": the program ran";
  }
}

// ---- hpmsim c2c ---------------------------------------------------------------------------------

// c2c's report of false_sharing's run, with the address of the program's counters (it prints
// "counters at 0x...") under "counters".
json c2c(const std::string& layout) {
  TempDir dir("hpm-c2c");
  const RunResult r = hpmsim(
      {"c2c", "--interval-cycles", "200", "--json", "--", kFalseSharing, layout, "4", "2000"},
      dir.path());
  EXPECT_EQ(r.status(), 0) << r.err;
  if (r.status() != 0) return json::object();
  json report = json::parse(r.err);
  const std::size_t at = r.out.find("counters at 0x");
  EXPECT_NE(at, std::string::npos) << r.out;
  if (at != std::string::npos) report["counters"] = std::stoull(r.out.substr(at + 14), nullptr, 16);
  return report;
}

// Four threads on four hardware threads increment counters that share one line: c2c finds the
// line, its four writers and the invalidations that pass it around; padded, each counter's line
// has one writer (the thread whose counter it is) and nothing is invalidated much. (Other lines
// may have several writers: the C library's own shared data, such as the line that holds
// __nptl_nthreads, which every thread updates when it starts and exits, is truly shared.)
TEST(C2c, FindsTheFalselySharedLineWithItsWritersAndInvalidations) {
  const json packed = c2c("packed");
  ASSERT_TRUE(packed.contains("shared"));
  EXPECT_EQ(packed.at("from_l2").get<u64>() + packed.at("from_memory").get<u64>(),
            packed.at("reads").get<u64>())
      << "every line read is supplied by the L2 or memory";
  EXPECT_EQ(packed.at("sampled").get<u64>() + packed.at("lost").get<u64>(),
            packed.at("matched").get<u64>());
  const json& line = packed.at("shared").at(0);
  EXPECT_GE(line.at("writers").size(), 4u);
  EXPECT_GT(line.at("invalidations").get<u64>(), 50u);

  const json padded = c2c("padded");
  ASSERT_TRUE(padded.contains("shared"));
  ASSERT_TRUE(padded.contains("counters"));
  const u64 counters = padded.at("counters").get<u64>();
  std::size_t counter_lines = 0;
  for (const json& l : padded.at("shared")) {
    const u64 address = l.at("address").get<u64>();
    if (address >= counters && address < counters + 4 * 128) {
      ++counter_lines;
      EXPECT_LE(l.at("writers").size(), 1u) << l.dump();
    }
    EXPECT_LT(l.at("invalidations").get<u64>() * 10, line.at("invalidations").get<u64>())
        << l.dump();
  }
  EXPECT_GT(counter_lines, 0u) << "c2c saw none of the counters' lines: the check proves nothing";
}

// On sunfire a consumer's reads of what the producer just wrote come from the producer's cache:
// the exact counts split every line request into memory and cache, each sampled record names the
// supplying CPU, and the handed-off lines are found with the producer writing and the consumer
// reading.
TEST(C2c, OnSunfireTheConsumersLinesComeFromTheProducersCacheWhichTheRecordsName) {
  TempDir dir("hpm-c2c");
  fs::copy_file(kHandoff, dir.path() / "handoff");
  const RunResult r = hpmsim({"c2c", "--machine", "sunfire", "--set", "node.cores=4", "--json",
                              "--top", "40", "--env-clear", "--", "./handoff", "16", "200"},
                             dir.path());
  ASSERT_EQ(r.status(), 0) << r.err;
  const json out = json::parse(r.err);
  EXPECT_EQ(out.at("from_memory").get<u64>() + out.at("from_cache").get<u64>(),
            out.at("requests").get<u64>());
  // Each round after the first, the consumer's 16 reads take the lines from the producer's cache
  // (the producer then takes them back with upgrades: it kept them Owned, no data moves).
  EXPECT_GE(out.at("from_cache").get<u64>(), 16u * 199);
  EXPECT_EQ(out.at("sampled").get<u64>() + out.at("lost").get<u64>(), out.at("matched").get<u64>());
  std::map<u64, u64> supplier_of;  // source -> its only supplier
  for (const json& s : out.at("sources")) {
    if (s.at("from_cache").get<u64>() == 0) continue;
    ASSERT_EQ(s.at("suppliers").size(), 1u) << s.dump();
    supplier_of[s.at("source").get<u64>()] = std::stoull(s.at("suppliers").begin().key());
  }
  ASSERT_EQ(supplier_of.size(), 2u) << "the producer's and the consumer's CPUs";
  const u64 a = supplier_of.begin()->first, b = supplier_of.rbegin()->first;
  EXPECT_EQ(supplier_of[a], b);
  EXPECT_EQ(supplier_of[b], a);
  u64 handed_off = 0;
  for (const json& line : out.at("shared")) {
    if (line.at("readers").size() == 1 && line.at("writers").size() == 1 &&
        line.at("readers") != line.at("writers")) {
      ++handed_off;
    }
  }
  EXPECT_GE(handed_off, 16u) << "the buffer's lines: one CPU writes, the other reads";
}

// The array's address, as first_touch prints it.
u64 arrayOf(const std::string& out) {
  const auto at = out.find("array at ");
  if (at == std::string::npos) return 0;
  return std::stoull(out.substr(at + 9), nullptr, 16);
}

struct LocalityRun {
  json out;
  u64 array = 0;
  u64 at(const json& matrix, u64 requester, u64 home) const {
    for (const json& p : matrix) {
      if (p.at("requester") == requester && p.at("home") == home) return p.at("counted");
    }
    return ~u64{0};
  }
};

LocalityRun locality(const TempDir& dir, const std::string& mode,
                     const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"locality", "--json", "--env-clear", "--interval-cycles", "200"};
  args.insert(args.end(), extra.begin(), extra.end());
  for (const std::string a : {"--", "./first_touch", mode.c_str(), "16", "2"}) args.push_back(a);
  const RunResult r = hpmsim(args, dir.path());
  EXPECT_EQ(r.status(), 0) << r.err;
  LocalityRun run;
  if (r.status() != 0) return run;
  run.out = json::parse(r.err);
  run.array = arrayOf(r.out);
  return run;
}

// With a counter per board pair (nine monitors: 16 pairs and the FIFO's two) the matrix is exact:
// initialised by the main thread, the whole array is on board 0 and the other boards' CPUs read
// it remotely, at least their 4 x 16 pages' lines each; the region with the most remote traffic
// is the array's mapping. Initialised by its users, each board's traffic stays on it.
TEST(Locality, OneThreadsInitialisationMakesTheArraysRegionTheRemoteHotSpot) {
  TempDir dir("hpm-locality");
  fs::copy_file(kFirstTouch, dir.path() / "first_touch");
  const std::vector<std::string> exact = {"--set", "imon.monitors=9"};
  const LocalityRun one = locality(dir, "one", exact);
  ASSERT_FALSE(one.out.is_null());
  EXPECT_TRUE(one.out.at("exact").get<bool>());
  const json& m = one.out.at("matrix");
  ASSERT_EQ(m.size(), 16u);
  u64 sum = 0;
  for (const json& p : m) sum += p.at("counted").get<u64>();
  EXPECT_EQ(sum, one.out.at("coherent").get<u64>()) << "every coherent transaction in one pair";
  constexpr u64 kLinesPerBoard = 4 * 64 * 1024 / 64;  // 4 CPUs' 64 KiB chunks
  for (u64 r = 0; r < 4; ++r) {
    for (u64 h = 1; h < 4; ++h) EXPECT_EQ(one.at(m, r, h), 0u) << "every page is on board 0";
    if (r > 0) {
      EXPECT_GE(one.at(m, r, 0), kLinesPerBoard) << "board " << r << " reads remotely";
    }
  }
  EXPECT_GT(one.out.at("remote_percent").get<double>(), 30.0);
  const json& top = one.out.at("regions").at(0);
  EXPECT_LE(top.at("start").get<u64>(), one.array);
  EXPECT_GT(top.at("end").get<u64>(), one.array) << "the hottest region is the array's";
  EXPECT_EQ(top.at("segment"), "[anonymous]");
  EXPECT_EQ(top.at("remote_from").size(), 3u) << "boards 1, 2 and 3";

  const LocalityRun each = locality(dir, "each", exact);
  ASSERT_FALSE(each.out.is_null());
  for (u64 b = 1; b < 4; ++b) {
    EXPECT_GE(each.at(each.out.at("matrix"), b, b), kLinesPerBoard) << "board " << b;
  }
  EXPECT_LT(each.out.at("remote_percent").get<double>(), 15.0);
  for (const json& region : each.out.at("regions")) {
    if (region.at("start").get<u64>() <= each.array && region.at("end").get<u64>() > each.array) {
      EXPECT_LT(region.at("remote").get<u64>() * 20, region.at("local").get<u64>())
          << "the array's traffic stays on its boards";
    }
  }
}

// With the default two monitors the 16 pairs take turns on two counters; every pair is watched
// for a share of the run, and the tool says its matrix is estimated.
TEST(Locality, FewCountersRotateOverEveryPairAndSayTheMatrixIsEstimated) {
  TempDir dir("hpm-locality");
  fs::copy_file(kFirstTouch, dir.path() / "first_touch");
  const LocalityRun run = locality(dir, "one", {"--rotate", "2000"});
  ASSERT_FALSE(run.out.is_null());
  EXPECT_FALSE(run.out.at("exact").get<bool>());
  for (const json& p : run.out.at("matrix")) {
    EXPECT_GT(p.at("observed_cycles").get<u64>(), 0u) << p.dump();
    EXPECT_LT(p.at("observed_cycles").get<u64>(), run.out.at("cycles").get<u64>());
  }
}

TEST(Locality, RefusesAMachineWithoutBoardsNamingWhy) {
  TempDir dir("hpm-locality");
  const RunResult r = hpmsim({"locality", "--machine", "bgq", "--", kNodeMix, "1"}, dir.path());
  EXPECT_EQ(r.status(), kUsage);
  EXPECT_NE(r.err.find("node.interconnect = crossbar"), std::string::npos) << r.err;
}

// sunfire has no counter unit, only the interconnect monitor: events lists its presets, stat
// counts them (by default the all-transactions and coherent events) and matches the run's truth.
TEST(Sunfire, EventsAndStatWorkWithTheInterconnectMonitorAlone) {
  TempDir dir("hpm-sunfire");
  const RunResult events = hpmsim({"events", "--machine", "sunfire", "--json"}, dir.path());
  ASSERT_EQ(events.status(), 0) << events.err;
  const json catalogue = json::parse(events.out);
  EXPECT_EQ(catalogue.at("unit"), "none");
  EXPECT_EQ(catalogue.at("events").size(), 32u);
  const RunResult stat = hpmsim(
      {"stat", "--machine", "sunfire", "--set", "node.cores=4", "--json", "--", kNodeMix, "3"},
      dir.path());
  ASSERT_EQ(stat.status(), 0) << stat.err;
  const json out = json::parse(stat.err);
  const json truth = truthOf({"--machine", "sunfire", "--set", "node.cores=4"});
  u64 all = 0;
  for (const auto& [key, value] : truth.items()) all += value.get<u64>();
  ASSERT_EQ(out.at("counts").size(), 2u);
  EXPECT_EQ(out.at("counts").at("sfi_hstgrm_all_trans"), all);
  EXPECT_EQ(out.at("unit"), "none");
  EXPECT_GT(all, 0u);
}

// On sunfire's physically indexed external caches a conflict is between physical addresses a
// way's size apart: 24 lines 2 MiB apart virtually get frames in the order they are touched,
// about a page apart, so every eighth or so shares a set of the 2-way 64 KiB cache (32 KiB ways)
// and three contend for each of 8 sets. conflicts finds them, and maps each back to its virtual
// page: pages 2 MiB apart, as the program laid them out.
TEST(Conflicts, OnSunfireItFindsThePhysicalContendersAndMapsThemBackToTheirVirtualPages) {
  TempDir dir("hpm-conflicts");
  fs::copy_file(kWritebacks, dir.path() / "writebacks");
  const RunResult r = hpmsim({"conflicts", "--machine", "sunfire", "--set", "node.cores=4", "--set",
                              "fireplane.ecache_kib=64", "--json", "--top", "8", "--env-clear",
                              "--", "./writebacks", "conflict", "24", "2097152", "50"},
                             dir.path());
  ASSERT_EQ(r.status(), 0) << r.err;
  const json out = json::parse(r.err);
  EXPECT_EQ(out.at("taken").get<u64>() + out.at("lost").get<u64>(),
            out.at("writebacks").get<u64>());
  EXPECT_GE(out.at("writebacks").get<u64>(), 24u * 50 - 16);
  ASSERT_EQ(out.at("hottest").size(), 8u);
  for (const json& block : out.at("hottest")) {
    SCOPED_TRACE(block.at("block").get<u64>());
    // Three lines contend for the set's two ways (another line of the set, a variable of the C
    // library's, may appear once or twice).
    std::vector<u64> physical, virtual_pages;
    for (const json& a : block.at("addresses")) {
      if (a.at("writebacks").get<u64>() >= 10) physical.push_back(a.at("address").get<u64>());
    }
    for (const json& p : block.at("pages")) {
      if (p.at("writebacks").get<u64>() < 10) continue;
      virtual_pages.push_back(p.at("virtual_page").get<u64>());
      EXPECT_EQ(p.at("segment"), "writebacks (data)");
    }
    ASSERT_EQ(physical.size(), 3u);
    ASSERT_EQ(virtual_pages.size(), 3u);
    std::sort(physical.begin(), physical.end());
    std::sort(virtual_pages.begin(), virtual_pages.end());
    // The virtual pages are the workload's lines (2 MiB apart), not the physical ones (frames in
    // the order pages were touched): the tool mapped each back through the frame table.
    EXPECT_EQ((virtual_pages[1] - virtual_pages[0]) % 2097152, 0u);
    EXPECT_EQ((virtual_pages[2] - virtual_pages[1]) % 2097152, 0u);
    EXPECT_LT(physical[2] - physical[0], virtual_pages[2] - virtual_pages[0]);
  }
}

// Intervals are written as they end (issue 39): busstat -I 4 on node_mix takes some 600,000
// intervals, and hpmsim's memory does not grow with them. The host memory budget makes that a
// rule: a busstat that kept its intervals (some 400 MiB of text, rows and samples) would pass
// 100 MiB and stop with 71; one that streams them ends with 0, its CSV complete, every interval
// a row, the counts summing to the totals of the text.
TEST(Busstat, IntervalsAreWrittenAsTheyEndSoMemoryDoesNotGrowWithThem) {
  TempDir dir("hpm-busstat");
  // Each column's sum over a CSV's rows, and the rows.
  const auto sums = [&](const std::string& interval, const std::string& file) {
    const std::string command = kHpmsim + " busstat --quiet --host-memory 100 --interval-cycles " +
                                interval + " --csv " + file + " -- " + kNodeMix +
                                " 2>/dev/null >/dev/null";
    const RunResult r =
        hpm::test::runProcess({"/bin/sh", "-c", command},
                              {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C"}, "", dir.path(), kTimeout);
    EXPECT_EQ(r.status(), 0) << interval << r.describe();
    std::ifstream csv(dir.path() / file);
    std::string line;
    std::getline(csv, line);
    EXPECT_EQ(line.rfind("cycle,", 0), 0u) << line;
    std::vector<u64> total;
    u64 rows = 0;
    while (std::getline(csv, line)) {
      ++rows;
      std::stringstream fields(line);
      std::string field;
      std::getline(fields, field, ',');  // (the cycle)
      for (std::size_t c = 0; std::getline(fields, field, ','); ++c) {
        if (total.size() <= c) total.resize(c + 1);
        total[c] += std::stoull(field);
      }
    }
    return std::make_pair(rows, total);
  };
  const auto [many, many_sums] = sums("4", "many.csv");
  const auto [few, few_sums] = sums("100000000", "few.csv");
  EXPECT_GT(many, 500000u);
  EXPECT_LT(few, 10u);
  EXPECT_EQ(many_sums, few_sums);
}

}  // namespace
