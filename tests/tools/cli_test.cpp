// The hpmsim command line: the commands other test labels do not cover (config, events, stat),
// its errors, and stat's counts held against `hpmsim run --stats-json` of the same program.
// Test names state the rule they check.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <chrono>

#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tests/fuzz/elf_seeds.h"
#include "tests/support/process.h"

namespace {

namespace fs = std::filesystem;
using hpm::test::RunResult;
using hpm::test::TempDir;
using nlohmann::json;
using u64 = std::uint64_t;

const std::string kHpmsim = HPM_TEST_HPMSIM;
const std::string kGuestBinDir = HPM_TEST_GUEST_BIN_DIR;
const fs::path kSourceDir = HPM_TEST_SOURCE_DIR;
constexpr std::chrono::seconds kTimeout{300};
constexpr int kUsage = 2;   // ExitCode::kUsage
constexpr int kConfig = 3;  // ExitCode::kConfig

std::string guest(const std::string& name) {
  return kGuestBinDir + "/" + name;
}

RunResult hpmsim(const std::vector<std::string>& args, const fs::path& cwd = fs::current_path()) {
  std::vector<std::string> argv = {kHpmsim};
  argv.insert(argv.end(), args.begin(), args.end());
  return hpm::test::runProcess(argv, {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C"}, "", cwd, kTimeout);
}

// hpmsim with `args`, sent SIGINT to its process group (as Ctrl-C does) after `after`.
RunResult hpmsimInterrupted(const std::vector<std::string>& args, std::chrono::milliseconds after,
                            const fs::path& cwd = fs::current_path()) {
  std::vector<std::string> argv = {kHpmsim};
  argv.insert(argv.end(), args.begin(), args.end());
  return hpm::test::runProcess(argv, {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C"}, "", cwd, kTimeout,
                               64u << 20, {after, SIGINT});
}

json readJson(const fs::path& path) {
  std::ifstream in(path);
  return json::parse(in);
}

// ---- the command line --------------------------------------------------------------------------

TEST(CommandLine, VersionPrintsTheVersion) {
  const RunResult r = hpmsim({"--version"});
  EXPECT_EQ(r.status(), 0);
  EXPECT_EQ(r.out.rfind("hpmsim ", 0), 0u) << r.out;
}

TEST(CommandLine, EveryCommandHasHelp) {
  for (const std::vector<std::string>& command : {std::vector<std::string>{},
                                                  {"run"},
                                                  {"stat"},
                                                  {"events"},
                                                  {"config"},
                                                  {"sweep"},
                                                  {"upc"},
                                                  {"upc", "explore"}}) {
    std::vector<std::string> args = command;
    args.push_back("--help");
    const RunResult r = hpmsim(args);
    std::string usage = "Usage: hpmsim";
    for (const std::string& word : command) usage += " " + word;
    EXPECT_EQ(r.status(), 0) << usage;
    EXPECT_NE(r.out.find(usage), std::string::npos) << r.out;
  }
}

TEST(CommandLine, UnknownOptionIsAUsageErrorNamingIt) {
  const RunResult r = hpmsim({"run", "--frobnicate", "--", guest("exit_status")});
  EXPECT_EQ(r.status(), kUsage);
  EXPECT_NE(r.err.find("unknown option '--frobnicate' for `hpmsim run`"), std::string::npos)
      << r.err;
}

TEST(CommandLine, UnknownCommandIsAUsageErrorListingTheCommands) {
  const RunResult r = hpmsim({"simulate"});
  EXPECT_EQ(r.status(), kUsage);
  EXPECT_NE(r.err.find("unknown command 'simulate' (commands: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("stat"), std::string::npos) << r.err;
}

TEST(CommandLine, MissingProgramIsAUsageError) {
  const RunResult r = hpmsim({"stat"});
  EXPECT_EQ(r.status(), kUsage);
  EXPECT_NE(r.err.find("no program given"), std::string::npos) << r.err;
}

// The keys of --stats-json that scripts rely on, with their types.
TEST(Run, StatsJsonHasTheDocumentedTopLevelKeys) {
  TempDir dir;
  const fs::path stats = dir.path() / "s.json";
  const RunResult r =
      hpmsim({"run", "--stats-json", stats.string(), "--", guest("exit_status"), "3", "exit"});
  ASSERT_EQ(r.status(), 3) << r.err;
  const json j = readJson(stats);
  ASSERT_TRUE(j.contains("instructions") && j["instructions"].is_number_unsigned()) << j.dump();
  ASSERT_TRUE(j.contains("cycles") && j["cycles"].is_number_unsigned());
  ASSERT_TRUE(j.contains("host_seconds") && j["host_seconds"].is_number());
  ASSERT_TRUE(j.contains("mips") && j["mips"].is_number());
  ASSERT_TRUE(j.contains("config") && j["config"].is_object());
  ASSERT_TRUE(j.contains("threads") && j["threads"].is_array());
  EXPECT_GT(j["host_seconds"].get<double>(), 0.0);
  EXPECT_GE(j["cycles"].get<u64>(), j["instructions"].get<u64>()) << "one thread: IPC <= 1";
  ASSERT_EQ(j["threads"].size(), 1u);
  EXPECT_EQ(j["threads"][0]["instructions"], j["instructions"]);
  EXPECT_EQ(j["config"]["name"], "bgq") << j["config"].dump();
}

// The guest's / is the run's root folder: a program given the host's absolute path finds
// nothing there, and the run's end says why, once, naming the path and the root (a relative path
// that is missing, or an absolute one the host lacks too, gets no note; nor does a path a library
// looks for by itself, such as /etc/localtime: only paths among the program's arguments).
TEST(Run, AnAbsoluteHostPathTheGuestCannotOpenGetsANoteAboutTheRoot) {
  ASSERT_TRUE(fs::exists("/etc/passwd"));
  TempDir dir;
  const RunResult r =
      hpmsim({"run", "--quiet", "--", guest("fifo_block"), "open", "/etc/passwd"}, dir.path());
  EXPECT_EQ(r.status(), 3) << r.err;
  const std::string note =
      "hpmsim: note: the guest could not open /etc/passwd although the host "
      "has it: the guest's / is the run's root folder ";
  EXPECT_NE(r.err.find(note), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(note), r.err.rfind(note)) << "once";
  EXPECT_NE(r.err.find("--root chooses it"), std::string::npos) << r.err;
  for (const char* missing : {"passwd", "/no/such/path/anywhere"}) {
    const RunResult quiet =
        hpmsim({"run", "--quiet", "--", guest("fifo_block"), "open", missing}, dir.path());
    EXPECT_EQ(quiet.status(), 3) << quiet.err;
    EXPECT_EQ(quiet.err.find("note:"), std::string::npos) << missing << ": " << quiet.err;
  }
}

// A directory given as the program is bad input like any other file that is not a program.
TEST(Run, DirectoryAsProgramIsRefusedWithAMessage) {
  TempDir dir;
  const RunResult r = hpmsim({"run", "--", dir.path().string()});
  EXPECT_EQ(r.status(), 4) << r.err;  // ExitCode::kProgram
  EXPECT_NE(r.err.find("is not a regular file (a directory)"), std::string::npos) << r.err;
}

// Opening a FIFO would wait for a writer, for ever if none comes: refused before opening.
TEST(Run, FifoOrDeviceAsProgramIsRefusedWithoutWaiting) {
  TempDir dir;
  const fs::path fifo = dir.path() / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const RunResult r = hpmsim({"run", "--", fifo.string()});
  EXPECT_EQ(r.status(), 4) << r.describe() << r.err;
  EXPECT_NE(r.err.find("is not a regular file (a FIFO)"), std::string::npos) << r.err;
  const RunResult dev = hpmsim({"run", "--", "/dev/null"});
  EXPECT_EQ(dev.status(), 4) << dev.err;
  EXPECT_NE(dev.err.find("'/dev/null' is not a regular file (a device)"), std::string::npos)
      << dev.err;
}

// The loader maps each segment in one host call and refuses what the node cannot hold.
std::vector<std::uint8_t> seedNamed(const std::string& name) {
  std::ifstream in(kSourceDir / "tests/fuzz/corpus/elf/tiny_static", std::ios::binary);
  const std::vector<std::uint8_t> real{std::istreambuf_iterator<char>(in),
                                       std::istreambuf_iterator<char>()};
  for (hpm::test::ElfSeed& seed : hpm::test::malformedElfSeeds(real)) {
    if (seed.name == name) return std::move(seed.bytes);
  }
  ADD_FAILURE() << "no seed " << name;
  return {};
}

fs::path writeProgram(const fs::path& dir, const std::vector<std::uint8_t>& bytes) {
  const fs::path path = dir / "prog";
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  fs::permissions(path, fs::perms::owner_all);
  return path;
}

TEST(Run, ASegmentLargerThanTheNodesMemoryIsRefusedAtLoadNamingIt) {
  TempDir dir;
  const fs::path prog = writeProgram(dir.path(), seedNamed("memsz_248g"));
  const RunResult r = hpmsim({"run", "--", prog.string()});
  EXPECT_EQ(r.status(), 4) << r.describe() << r.err;  // ExitCode::kProgram
  EXPECT_NE(r.err.find("segment 1 needs 266287972352 bytes of memory (253952 MiB), more than the "
                       "node's 16384 MiB (node.memory_mib)"),
            std::string::npos)
      << r.err;
  const RunResult small = hpmsim({"run", "--set", "node.memory_mib=4096", "--",
                                  writeProgram(dir.path(), seedNamed("memsz_8g")).string()});
  EXPECT_EQ(small.status(), 4) << small.err;
  EXPECT_NE(small.err.find("more than the node's 4096 MiB"), std::string::npos) << small.err;
}

TEST(Run, AnEightGibSegmentLoadsWithoutBackingItsPages) {
  TempDir dir;
  const fs::path prog = writeProgram(dir.path(), seedNamed("memsz_8g"));
  const fs::path stats = dir.path() / "s.json";
  const RunResult r =
      hpmsim({"run", "--mode", "functional", "--stats-json", stats.string(), "--", prog.string()});
  EXPECT_EQ(r.status(), 0) << r.describe() << r.err;
  const json j = readJson(stats);
  EXPECT_LT(j["host_peak_rss_kib"].get<u64>(), u64{256} << 10) << "KiB; 8 GiB were mapped";
}

// SIGINT pending before hpmsim starts (blocked by its parent, so not lost): the run stops before
// its first instruction, says so, and exits 130.
TEST(Run, AnInterruptDuringLoadingStopsTheRunBeforeItStarts) {
  TempDir dir;
  const fs::path err = dir.path() / "err";
  const fs::path stats = dir.path() / "s.json";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigprocmask(SIG_BLOCK, &set, nullptr);
    ::raise(SIGINT);  // pending until hpmsim unblocks it
    std::freopen(err.c_str(), "w", stderr);
    std::freopen("/dev/null", "w", stdout);
    const std::string program = guest("exit_status");
    ::execl(kHpmsim.c_str(), kHpmsim.c_str(), "run", "--stats-json", stats.c_str(), "--",
            program.c_str(), "3", "exit", nullptr);
    ::_exit(127);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT);
  std::ifstream in(err);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_NE(text.find("hpmsim: interrupted by SIGINT (interrupt) while loading '"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("exit_status': nothing ran"), std::string::npos) << text;
  EXPECT_EQ(readJson(stats)["instructions"], 0);
}

// A report that cannot be written in full (a full disk; /dev/full) fails loudly at the end,
// even when it is small enough to sit in the stream's buffer until the file is closed.
TEST(Run, EnvClearGivesTheProgramOnlyTheEnvSettings) {
  // The host's environment (PATH, HOME, LANG here) is the default; --env-clear empties it, and
  // --env sets entries in order, a later one replacing an earlier one of the same name.
  const RunResult plain = hpmsim({"run", "--", guest("args_env")});
  ASSERT_EQ(plain.exit_code(), 0) << plain.err;
  EXPECT_NE(plain.out.find("env[0]=[PATH=/usr/bin:/bin]"), std::string::npos) << plain.out;
  const RunResult r = hpmsim({"run", "--env-clear", "--env", "A=1", "--env", "HOME=/h", "--env",
                              "A=2", "--", guest("args_env")});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_NE(r.out.find("env[0]=[HOME=/h]\nenv[1]=[A=2]\ngetenv HOME=/h"), std::string::npos)
      << r.out;
  for (const char* bad : {"NOEQUALS", "=value"}) {
    const RunResult e = hpmsim({"stat", "--env", bad, "--", guest("args_env")});
    EXPECT_EQ(e.exit_code(), kUsage) << bad;
    EXPECT_NE(e.err.find(std::string("--env '") + bad + "': expected KEY=VALUE"), std::string::npos)
        << e.err;
    EXPECT_EQ(e.out, "") << "the program must not run";
  }
}

TEST(Run, OpenMpisLauncherVariablesNeverReachTheGuest) {
  // (They describe hpmsim's host processes under mpirun, not the simulated nodes.)
  const RunResult r = hpm::test::runProcess(
      {kHpmsim, "run", "--env", "OMPI_SET_BY_ENV=kept", "--", guest("args_env")},
      {"PATH=/usr/bin:/bin", "OMPI_COMM_WORLD_RANK=0", "PMIX_RANK=0", "HFI_NO_BACKTRACE=1",
       "IPATH_NO_BACKTRACE=1", "OMPIX=1"},
      "", fs::current_path(), kTimeout);
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_NE(
      r.out.find("env[0]=[PATH=/usr/bin:/bin]\nenv[1]=[OMPIX=1]\nenv[2]=[OMPI_SET_BY_ENV=kept]\n"),
      std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("RANK"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("BACKTRACE"), std::string::npos) << r.out;
}

TEST(Stat, SlicedL2EventsCountEachSliceAsItsStatisticAndAddUpToTheCombinedOnes) {
  // The same deterministic run three times: counted sliced, counted combined, and with its
  // statistics (counting does not change the run).
  TempDir dir;
  const std::vector<std::string> program = {"--", guest("bt"), "6", "1"};
  auto stat = [&](const std::string& events, const std::string& out) {
    std::vector<std::string> args = {"stat", "--json", "-o", (dir.path() / out).string(),
                                     "-e",   events};
    args.insert(args.end(), program.begin(), program.end());
    const RunResult r = hpmsim(args);
    EXPECT_EQ(r.exit_code(), 0) << r.err;
    return readJson(dir.path() / out);
  };
  const json sliced = stat("PEVT_L2_HITS_SLICE,PEVT_L2_MISSES_SLICE", "sliced.json");
  const json combined = stat("PEVT_L2_HITS,PEVT_L2_MISSES", "combined.json");
  std::vector<std::string> args = {"run", "--stats-json", (dir.path() / "run.json").string()};
  args.insert(args.end(), program.begin(), program.end());
  ASSERT_EQ(hpmsim(args).exit_code(), 0);
  const json slices = readJson(dir.path() / "run.json").at("timing").at("l2_slices");
  std::map<std::pair<std::string, u64>, u64> per_slice;
  for (const json& c : sliced.at("counters")) {
    ASSERT_TRUE(c.contains("slice")) << c;
    per_slice[{c.at("event").get<std::string>(), c.at("slice").get<u64>()}] =
        c.at("value").get<u64>();
  }
  ASSERT_EQ(per_slice.size(), 2 * slices.size());
  u64 hits = 0;
  for (u64 s = 0; s < slices.size(); ++s) {
    EXPECT_EQ(per_slice.at({"PEVT_L2_HITS_SLICE", s}), slices[s].at("hits").get<u64>()) << s;
    EXPECT_EQ(per_slice.at({"PEVT_L2_MISSES_SLICE", s}), slices[s].at("misses").get<u64>()) << s;
    hits += slices[s].at("hits").get<u64>();
  }
  EXPECT_GT(hits, 0u);
  EXPECT_EQ(sliced.at("counts").at("PEVT_L2_HITS_SLICE"), combined.at("counts").at("PEVT_L2_HITS"));
  EXPECT_EQ(sliced.at("counts").at("PEVT_L2_MISSES_SLICE"),
            combined.at("counts").at("PEVT_L2_MISSES"));
  // One mode at a time, as BGPM's groups: the two modes take turns (multiplexed), and a group
  // that needs both at once is refused.
  const RunResult both = hpmsim({"stat", "--mux-interval-ms", "0.2", "-e",
                                 "PEVT_L2_HITS,PEVT_L2_HITS_SLICE", "--", guest("bt"), "6", "1"});
  EXPECT_EQ(both.exit_code(), 0) << both.err;
  EXPECT_TRUE(std::regex_search(both.err, std::regex(R"(PEVT_L2_HITS +\([1-9][0-9]\.[0-9]{2}%\))")))
      << both.err;
  EXPECT_NE(both.err.find("(multiplexed: 2 sets of events"), std::string::npos) << both.err;
  const RunResult group =
      hpmsim({"stat", "-e", "{PEVT_L2_HITS,PEVT_L2_HITS_SLICE}", "--", guest("bt"), "6", "1"});
  EXPECT_EQ(group.exit_code(), kUsage);
  EXPECT_NE(group.err.find("/dev/hpm/l2 counts in one mode at a time"), std::string::npos)
      << group.err;
  EXPECT_NE(group.err.find("group {PEVT_L2_HITS,PEVT_L2_HITS_SLICE}"), std::string::npos)
      << group.err;
}

TEST(Stat, NoAggrPrintsEveryCounterWhereItCounted) {
  const RunResult r =
      hpmsim({"stat", "-A", "-e", "PEVT_L2_HITS_SLICE,PEVT_INST_ALL", "--", guest("bt"), "6", "1"});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_TRUE(std::regex_search(
      r.err, std::regex(R"(\n +[\d,]+ +PEVT_L2_HITS_SLICE +/dev/hpm/l2 slice 15 counter 90\n)")))
      << r.err;
  EXPECT_TRUE(std::regex_search(
      r.err, std::regex(R"(\n +[\d,]+ +PEVT_INST_ALL +/dev/hpm/punit3 counter 0\n)")))
      << r.err;
}

TEST(Stat, ReportThatCannotBeWrittenFailsWithTheReason) {
  ASSERT_TRUE(fs::exists("/dev/full"));
  const RunResult r = hpmsim(
      {"stat", "-o", "/dev/full", "-e", "instructions", "--", guest("exit_status"), "0", "return"});
  EXPECT_EQ(r.status(), 6) << r.err;  // ExitCode::kIo
  EXPECT_NE(r.err.find("cannot write '/dev/full': No space left on device"), std::string::npos)
      << r.err;
}

// An output that cannot be written is refused before the program runs, not after: no results
// of a long run are lost to a mistyped path.
TEST(Run, UnwritableOutputIsRefusedBeforeTheProgramRuns) {
  TempDir dir;
  const std::string missing = (dir.path() / "no-such-dir" / "out").string();
  const std::vector<std::vector<std::string>> cases = {
      {"run", "--stats-json", missing},
      {"run", "--mode", "profile", "--profile-prefix", missing},
      {"stat", "-e", "instructions", "-o", missing},
      {"run", "--stats-text", missing},
  };
  for (std::vector<std::string> args : cases) {
    args.insert(args.end(), {"--", guest("exit_status"), "0", "return"});
    const RunResult r = hpmsim(args);
    EXPECT_EQ(r.status(), 6) << r.err;  // ExitCode::kIo
    EXPECT_NE(r.err.find("cannot write '" + missing), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << "the program ran: " << r.out;
  }
}

// No output overwrites an input or another output, and an empty output path is an error: each is
// refused before the program runs, naming the options, and the program file is left intact.
TEST(Run, OutputsThatWouldOverwriteTheProgramOrEachOtherAreRefusedBeforeTheRun) {
  TempDir dir;
  const fs::path program = dir.path() / "exit_status";
  fs::copy_file(guest("exit_status"), program);
  const auto size = fs::file_size(program);
  const std::string p = program.string();
  const std::string out = (dir.path() / "x.json").string();
  const std::string same = (dir.path() / "." / "x.json").string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"run", "--stats-json", p}, "is the program"},
      {{"run", "--stats-text", p}, "is the program"},
      {{"run", "--stats-json", out, "--stats-text", same}, "name the same file"},
      {{"run", "--stats-json", ""}, "--stats-json: an empty path"},
      {{"stat", "-e", "instructions", "-o", p}, "is the program"},
      {{"busstat", "--csv", p}, "is the program"},
  };
  for (auto [args, says] : cases) {
    args.insert(args.end(), {"--", p, "0", "return"});
    const RunResult r = hpmsim(args);
    EXPECT_EQ(r.status(), 2) << r.err;  // ExitCode::kUsage
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << "the program ran: " << r.out;
    EXPECT_EQ(fs::file_size(program), size) << "the program is intact";
  }
}

// The files of --node-output DIR (DIR/node-K.stdout, DIR/node-K.stderr) are outputs like any
// other: a program or a machine file there (or a symlink to one) is refused before anything is
// written, as is another output on one of them; the folder is made when it is missing.
TEST(Run, NodeOutputFilesAreCheckedAsEveryOutputAndTheirFolderIsMade) {
  TempDir dir;
  const fs::path out = dir.path() / "out";
  const fs::path linked = dir.path() / "linked";
  fs::create_directory(out);
  fs::create_directory(linked);
  const fs::path program = out / "node-1.stderr";
  fs::copy_file(guest("exit_status"), program);
  fs::create_symlink(program, linked / "node-1.stderr");
  const fs::path machine = out / "node-0.stdout";
  const std::string machine_text = "inherits = \"bgq\"\nname = \"mine\"\n";
  std::ofstream(machine) << machine_text;
  const auto size = fs::file_size(program);
  const std::string p = program.string(), o = out.string(), l = linked.string();
  const std::string other = guest("exit_status");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"run", "--nodes", "2", "--node-output", o, "--", p}, "is the program"},
      {{"stat", "-e", "instructions", "--nodes", "2", "--node-output", o, "--", p},
       "is the program"},
      {{"run", "--nodes", "2", "--node-output", l, "--", p}, "is the program"},
      {{"run", "--machine", machine.string(), "--nodes", "2", "--node-output", o, "--", other},
       "is the machine file"},
      {{"run", "--nodes", "2", "--node-output", l, "--stats-json",
        (linked / "node-0.stdout").string(), "--", other},
       "name the same file"},
  };
  for (auto [args, says] : cases) {
    args.insert(args.end(), {"0", "return"});
    const RunResult r = hpmsim(args);
    EXPECT_EQ(r.status(), 2) << r.err;  // ExitCode::kUsage
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    EXPECT_EQ(fs::file_size(program), size) << "the program is intact";
    EXPECT_EQ(hpm::test::readFile(machine), machine_text) << "the machine file is intact";
  }
  const fs::path made = dir.path() / "new" / "folder";
  const RunResult r =
      hpmsim({"run", "--nodes", "2", "--node-output", made.string(), "--", other, "0", "return"});
  EXPECT_EQ(r.status(), 0) << r.err;
  for (const char* name : {"node-0.stdout", "node-0.stderr", "node-1.stdout", "node-1.stderr"}) {
    EXPECT_TRUE(fs::is_regular_file(made / name)) << name;
  }
}

// Paths, arguments and environment values are bytes, not always UTF-8, and JSON text must be:
// every JSON hpmsim writes (run and stat, on one node or many, sweep) gives each invalid
// sequence as U+FFFD, never an internal error or an empty statistics file.
TEST(Run, BytesThatAreNotUtf8AreWrittenAsTheReplacementCharacterInEveryJson) {
  TempDir dir;
  const std::string replaced = "\xef\xbf\xbd";  // U+FFFD in UTF-8
  const fs::path program = dir.path() / "args\xff";
  fs::copy_file(guest("args_env"), program);
  const std::string p = program.string();
  const std::vector<std::string> command = {"--env", "K=v\xfd", "--", p, "a\xfe"};
  const fs::path stats = dir.path() / "run.json";
  const auto expectCommand = [&](const json& j, const std::string& what) {
    EXPECT_EQ(j["command"], json({(dir.path() / "args").string() + replaced, "a" + replaced}))
        << what;
  };
  std::vector<std::string> args = {"run", "--stats-json", stats.string()};
  args.insert(args.end(), command.begin(), command.end());
  RunResult r = hpmsim(args);
  ASSERT_EQ(r.status(), 0) << r.err;
  expectCommand(readJson(stats), "run");

  args = {"run",          "--nodes",     "2", "--node-output", dir.path().string(),
          "--stats-json", stats.string()};
  args.insert(args.end(), command.begin(), command.end());
  r = hpmsim(args);
  ASSERT_EQ(r.status(), 0) << r.err;
  expectCommand(readJson(stats), "run --nodes 2");

  const fs::path counted = dir.path() / "stat.json";
  args = {"stat", "--json", "-o", counted.string(), "-e", "instructions"};
  args.insert(args.end(), command.begin(), command.end());
  r = hpmsim(args);
  ASSERT_EQ(r.status(), 0) << r.err;
  expectCommand(readJson(counted), "stat");

  args = {"sweep", "--json", "--set", "core.store_queue_entries=8,20", "--", p, "a\xfe"};
  r = hpmsim(args);
  ASSERT_EQ(r.status(), 0) << r.err;
  const json points = json::parse(r.out);
  ASSERT_EQ(points.size(), 2u);
  for (const json& point : points) EXPECT_EQ(point["status"], 0) << point.dump();
}

// Results are written whole or not at all (to a new file in the same folder, renamed into
// place): the check before the run leaves no file behind, a run that fails or is killed leaves
// none where its results belong, a finished one leaves nothing else in the folder, and an
// output that is a symlink has its file written, the link kept.
TEST(Run, ResultFilesAreWrittenWholeOrNotAtAll) {
  TempDir dir;
  const fs::path stats = dir.path() / "s.json";
  const fs::path not_elf = dir.path() / "notes";
  std::ofstream(not_elf) << "not a program\n";
  RunResult r = hpmsim({"run", "--stats-json", stats.string(), "--", not_elf.string()});
  EXPECT_NE(r.status(), 0) << r.err;
  EXPECT_FALSE(fs::exists(stats)) << "a failed run left a file";

  auto killed =
      hpm::test::runProcess({kHpmsim, "run", "--stats-json", stats.string(), "--", guest("demo")},
                            {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C"}, "", dir.path(), kTimeout,
                            64u << 20, {std::chrono::milliseconds(500), SIGKILL});
  EXPECT_TRUE(killed.signaled()) << killed.describe();
  EXPECT_FALSE(fs::exists(stats)) << "a killed run left a file";

  const fs::path kept = dir.path() / "kept.json";
  std::ofstream(kept) << "old\n";
  fs::create_symlink(kept, dir.path() / "link.json");
  r = hpmsim({"run", "--stats-json", (dir.path() / "link.json").string(), "--stats-text",
              stats.string(), "--", guest("exit_status"), "0", "return"});
  ASSERT_EQ(r.status(), 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir.path() / "link.json"));
  EXPECT_EQ(readJson(kept)["exit_status"], 0);
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    names.insert(entry.path().filename().string());
  }
  EXPECT_EQ(names, (std::set<std::string>{"kept.json", "link.json", "notes", "s.json"}));
}

// A sweep whose parameters are not all valid is one configuration error, before any point runs.
// Ctrl-C ends a long simulation without losing its results: the run stops at its next poll,
// writes everything it would at any end, and exits with 128 + SIGINT.
TEST(Run, InterruptWritesTheStatisticsOfTheRunSoFar) {
  TempDir dir;
  const fs::path stats = dir.path() / "s.json";
  const RunResult r = hpmsimInterrupted(
      {"run", "--stats-json", stats.string(), "--", guest("demo")}, std::chrono::seconds(1));
  EXPECT_EQ(r.status(), 128 + SIGINT) << r.err;
  EXPECT_NE(r.err.find("hpmsim: interrupted by SIGINT (interrupt) at cycle "), std::string::npos)
      << r.err;
  const json j = readJson(stats);
  EXPECT_EQ(j["exit_status"], 128 + SIGINT);
  EXPECT_GT(j["instructions"].get<u64>(), 0u);
  EXPECT_NE(r.err.find("at cycle " + std::to_string(j["cycles"].get<u64>()) + ":"),
            std::string::npos)
      << "the report names the cycle the statistics end at: " << r.err;
}

// `timeout` or a shell forwarding signals may deliver one Ctrl-C twice: two SIGINTs a few
// milliseconds apart are one request, which stops the run as one does (it used to end hpmsim
// at once, with nothing written).
TEST(Run, TwoInterruptsWithinASecondStopTheRunAsOneDoes) {
  TempDir dir;
  const fs::path stats = dir.path() / "s.json";
  const std::string script =
      "\"$0\" run --stats-json \"$1\" -- \"$2\" & pid=$!; sleep 1; "
      "kill -INT $pid; kill -INT $pid; wait $pid; echo \"status $?\"";
  const RunResult r =
      hpm::test::runProcess({"/bin/sh", "-c", script, kHpmsim, stats.string(), guest("demo")},
                            {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C"}, "", dir.path(), kTimeout);
  EXPECT_NE(r.out.find("status 130"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.err.find("hpmsim: interrupted by SIGINT (interrupt) at cycle "), std::string::npos)
      << r.err;
  const json j = readJson(stats);
  EXPECT_EQ(j["exit_status"], 128 + SIGINT);
  EXPECT_GT(j["instructions"].get<u64>(), 0u);
}

// A closed stdout and stderr (`hpmsim run -- papi_avail 2>&1 | head -1`): the guest dies of
// SIGPIPE, and hpmsim, whose report cannot be written either, ends as a shell expects (141, by
// SIGPIPE) with its statistics written; it used to abort (134).
TEST(Run, AClosedOutputPipeEndsTheRunBySigpipeWithTheStatisticsWritten) {
  TempDir dir;
  const fs::path stats = dir.path() / "s.json";
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);  // the reader is gone before hpmsim writes anything
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    ::signal(SIGPIPE, SIG_DFL);
    const std::string out = stats.string(), program = guest("papi_avail");
    ::execl(kHpmsim.c_str(), kHpmsim.c_str(), "run", "--stats-json", out.c_str(), "--",
            program.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGPIPE);
  const json j = readJson(stats);
  EXPECT_EQ(j["exit_status"], 128 + SIGPIPE);
  EXPECT_GT(j["instructions"].get<u64>(), 0u);
}

// A guest waiting on the host (a FIFO nobody writes, or opens) is stopped too.
TEST(Run, InterruptEndsAWaitOnTheHost) {
  for (const char* mode : {"open", "read"}) {
    TempDir dir;
    ASSERT_EQ(::mkfifo((dir.path() / "fifo").c_str(), 0600), 0);
    const RunResult r = hpmsimInterrupted({"run", "--", guest("fifo_block"), mode, "fifo"},
                                          std::chrono::milliseconds(500), dir.path());
    EXPECT_EQ(r.status(), 128 + SIGINT) << mode << ": " << r.describe() << r.err;
    EXPECT_NE(r.err.find("hpmsim: interrupted by SIGINT (interrupt) at cycle "), std::string::npos)
        << r.err;
  }
}

TEST(Stat, InterruptPrintsExactCountsOfTheRunSoFar) {
  TempDir dir;
  const fs::path out = dir.path() / "c.json";
  const RunResult r = hpmsimInterrupted(
      {"stat", "--json", "-o", out.string(), "-e", "instructions", "--", guest("demo")},
      std::chrono::seconds(1));
  EXPECT_EQ(r.status(), 128 + SIGINT) << r.err;
  const json j = readJson(out);
  EXPECT_GT(j["instructions"].get<u64>(), 0u);
  EXPECT_EQ(j["counts"]["instructions"], j["instructions"]);
  EXPECT_EQ(j["exit_status"], 128 + SIGINT);
}

TEST(Sweep, InterruptStopsTheRunningPointsAndRunsNoMore) {
  const RunResult r = hpmsimInterrupted(
      {"sweep", "--jobs", "1", "--set", "core.integer_pipes=1,2", "--", guest("demo")},
      std::chrono::milliseconds(3000));  // the first point runs (about 10 s), even on a busy host
  EXPECT_EQ(r.status(), 128 + SIGINT) << r.out << r.err;
  EXPECT_NE(r.out.find("failed (status 130): interrupted at cycle "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not run (interrupted)"), std::string::npos) << r.out;
}

TEST(Sweep, InvalidParameterIsAConfigurationErrorBeforeAnyRun) {
  for (const char* set : {"core.bogus=1,2", "node.cores=1,0"}) {
    const RunResult r = hpmsim({"sweep", "--set", set, "--", guest("exit_status"), "0", "return"});
    EXPECT_EQ(r.status(), kConfig) << set << ": " << r.err;
    EXPECT_EQ(r.out, "") << set << ": points ran";
  }
}

// A point whose program crashed or failed is shown as failed, with hpmsim's report, and the sweep
// exits non-zero; a missing program is one error before any point runs.
TEST(Sweep, FailedPointsAreShownAsFailedAndTheSweepExitsNonZero) {
  const RunResult crashed =
      hpmsim({"sweep", "--set", "l2.size_kib=8192,32768", "--", guest("segfault")});
  EXPECT_EQ(crashed.status(), 5) << crashed.err;  // ExitCode::kGuestFault
  EXPECT_NE(crashed.out.find("failed (status 139): hpmsim: guest killed by signal 11 SIGSEGV"),
            std::string::npos)
      << crashed.out;
  const RunResult listed = hpmsim(
      {"sweep", "--json", "--set", "l2.size_kib=8192", "--", guest("exit_status"), "3", "return"});
  EXPECT_EQ(listed.status(), 5) << listed.err;
  const auto rows = json::parse(listed.out);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["status"], 3);
  EXPECT_EQ(rows[0]["error"], "exit status 3");
  EXPECT_TRUE(rows[0].contains("cycles")) << "its figures are kept";
  const RunResult missing =
      hpmsim({"sweep", "--set", "l2.size_kib=8192,32768", "--", "./no-such-program"});
  EXPECT_EQ(missing.status(), 2);
  EXPECT_NE(missing.err.find("cannot open program './no-such-program'"), std::string::npos)
      << missing.err;
  EXPECT_EQ(missing.out, "") << "no point ran";
}

TEST(Run, ProgressLineAppearsOnlyWhenStderrIsATerminal) {
  // About a second in the functional mode: the line is refreshed every half second.
  const std::vector<std::string> args = {"run", "--mode", "functional", "--", guest("bench_int")};
  std::vector<std::string> argv = {kHpmsim};
  argv.insert(argv.end(), args.begin(), args.end());
  const RunResult on_tty = hpm::test::runOnTerminal(argv, {"PATH=/usr/bin:/bin", "HOME=/"},
                                                    fs::current_path(), kTimeout);
  ASSERT_EQ(on_tty.status(), 0) << on_tty.describe() << on_tty.out;
  const std::string& tty = on_tty.out;
  EXPECT_NE(tty.find("[hpmsim] "), std::string::npos) << tty;
  EXPECT_NE(tty.find(" instructions, "), std::string::npos) << tty;
  EXPECT_NE(tty.find(" MIPS"), std::string::npos) << tty;
  EXPECT_NE(tty.find("\r\033[K"), std::string::npos) << "the line is erased at the end";
  // The guest's output begins on a clean line: the progress line is erased before it.
  for (std::size_t at = tty.find(" MIPS"); at != std::string::npos;
       at = tty.find(" MIPS", at + 1)) {
    EXPECT_EQ(tty.compare(at + 5, 1, "\r"), 0) << "text after a progress line:\n" << tty;
  }
  EXPECT_NE(tty.find("\r\033[Kbench_int"), std::string::npos) << tty;
  const RunResult piped = hpmsim(args);
  ASSERT_EQ(piped.status(), 0) << piped.err;
  EXPECT_EQ(piped.err, "") << "nothing on stderr that is not a terminal";
}

// The progress line says how far a run is (instructions, cycles, host time, speed; for a sweep,
// points done and the time left), and --quiet turns it off, on a terminal too.
TEST(Run, ProgressLineGivesCyclesAndHostTimeAndQuietTurnsItOff) {
  const std::vector<std::string> env = {"PATH=/usr/bin:/bin", "HOME=/"};
  const RunResult shown =
      hpm::test::runOnTerminal({kHpmsim, "run", "--mode", "functional", "--", guest("bench_int")},
                               env, fs::current_path(), kTimeout);
  ASSERT_EQ(shown.status(), 0) << shown.out;
  EXPECT_TRUE(std::regex_search(
      shown.out,
      std::regex(R"(\[hpmsim\] +[0-9]+ instructions, +[0-9]+ cycles, +[0-9]+ s, +[0-9.]+ MIPS)")))
      << shown.out;
  const RunResult quiet = hpm::test::runOnTerminal(
      {kHpmsim, "run", "--quiet", "--mode", "functional", "--", guest("bench_int")}, env,
      fs::current_path(), kTimeout);
  ASSERT_EQ(quiet.status(), 0) << quiet.out;
  EXPECT_EQ(quiet.out.find("[hpmsim]"), std::string::npos) << quiet.out;
  EXPECT_EQ(quiet.out.find("\033[K"), std::string::npos) << quiet.out;
}

TEST(Stat, ProgressLineIsShownOnATerminalAndNotWithQuiet) {
  const std::vector<std::string> env = {"PATH=/usr/bin:/bin", "HOME=/"};
  // About 1.5 s each here (the line is refreshed every half second).
  const std::vector<std::string> args = {"stat", "-e", "instructions", "--", guest("bench_int"),
                                         "24"};
  std::vector<std::string> argv = {kHpmsim};
  argv.insert(argv.end(), args.begin(), args.end());
  const RunResult shown = hpm::test::runOnTerminal(argv, env, fs::current_path(), kTimeout);
  ASSERT_EQ(shown.status(), 0) << shown.out;
  EXPECT_NE(shown.out.find("[hpmsim] "), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("Performance counter stats"), std::string::npos) << shown.out;
  argv.insert(argv.begin() + 2, "--quiet");
  const RunResult quiet = hpm::test::runOnTerminal(argv, env, fs::current_path(), kTimeout);
  ASSERT_EQ(quiet.status(), 0) << quiet.out;
  EXPECT_EQ(quiet.out.find("[hpmsim] "), std::string::npos) << quiet.out;
}

TEST(Sweep, ProgressLineCountsPointsAndEstimatesTheTimeLeft) {
  const std::vector<std::string> env = {"PATH=/usr/bin:/bin", "HOME=/"};
  std::vector<std::string> argv = {kHpmsim,  "sweep",           "--jobs", "1",
                                   "--mode", "functional",      "--set",  "node.cores=1,2,4,8",
                                   "--",     guest("bench_int")};
  const RunResult shown = hpm::test::runOnTerminal(argv, env, fs::current_path(), kTimeout);
  ASSERT_EQ(shown.status(), 0) << shown.out;
  EXPECT_NE(shown.out.find("[hpmsim sweep] 0 of 4 points done"), std::string::npos) << shown.out;
  EXPECT_TRUE(std::regex_search(
      shown.out, std::regex(R"([123] of 4 points done, [0-9]+ s, about [0-9]+ s left)")))
      << shown.out;
  argv.insert(argv.begin() + 2, "--quiet");
  const RunResult quiet = hpm::test::runOnTerminal(argv, env, fs::current_path(), kTimeout);
  ASSERT_EQ(quiet.status(), 0) << quiet.out;
  EXPECT_EQ(quiet.out.find("[hpmsim sweep]"), std::string::npos) << quiet.out;
}

// ---- upc explore ------------------------------------------------------------------------------

json explore(const std::vector<std::string>& options) {
  std::vector<std::string> args = {"upc", "explore", "--json"};
  args.insert(args.end(), options.begin(), options.end());
  const RunResult r = hpmsim(args);
  EXPECT_EQ(r.status(), 0) << r.err;
  return json::parse(r.out);
}

// The smallest L at which a low-order register cannot carry twice between two visits:
// 2^L >= R x N x S (seed 002: 12 bits for 256 counters visited every 16 cycles).
TEST(UpcExplore, MinimalSafeWidthIsTheSeedsTwelveBitsAndScalesWithCountersAndRate) {
  EXPECT_EQ(explore({"--counters", "256", "--service-cycles", "16"})["min_low_bits"], 12);
  EXPECT_EQ(explore({"--counters", "1024", "--service-cycles", "16"})["min_low_bits"], 14);
  EXPECT_EQ(
      explore({"--counters", "256", "--service-cycles", "16", "--rate", "0.25"})["min_low_bits"],
      10);
}

// Floating-point options refuse NaN and infinities and name the value as written.
TEST(UpcExplore, NumbersThatAreNotFiniteOrOutOfRangeAreRefusedAsWritten) {
  for (const auto& [option, value, says] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"--rate", "nan", "--rate: 'nan' is not a finite number"},
           {"--total-rate", "nan", "--total-rate: 'nan' is not a finite number"},
           {"--ff-sram-ratio", "inf", "--ff-sram-ratio: 'inf' is not a finite number"},
           {"--rate", "0", "--rate: 0 is not between 1e-09 and 4096"},
           {"--rate", "1x", "--rate: '1x' is not a number"},
           // Negative numbers reach the option's check (CLI11 alone takes "-1" for an option).
           {"--counters", "-1", "--counters: Value -1 not in range 1 to 1048576"},
           {"--rate", "-0.5", "--rate: -0.5 is not between 1e-09 and 4096"},
           {"--rate", "-inf", "--rate: '-inf' is not a finite number"}}) {
    const RunResult r = hpmsim({"upc", "explore", option, value});
    EXPECT_EQ(r.status(), 2) << option << " " << value;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  }
}

// Every interval option refuses 0, negative, NaN, infinite and too large values with the reason,
// before the program runs (`stat -I nan` used to be accepted, `busstat -I 0` meant "none").
TEST(CommandLine, IntervalValuesThatAreNotPositiveFiniteOrFitIn64BitsAreRefusedWithTheReason) {
  using Case = std::tuple<std::vector<std::string>, std::string>;
  std::vector<Case> cases = {
      {{"stat", "-I", "nan"}, "'nan' is not a finite number"},
      {{"stat", "-I", "inf"}, "'inf' is not a finite number"},
      {{"stat", "-I", "0"}, "0 is not a positive interval"},
      {{"stat", "-I", "-5"}, "-5 is not a positive interval"},
      {{"stat", "-I", "1e300"}, "stat: -I 1e+300: "},
      {{"stat", "--interval-cycles", "0"}, "0 cycles: give at least 1"},
      {{"stat", "--interval-cycles", "-5"}, "'-5' is not a whole number of cycles"},
      {{"stat", "--interval-cycles", "18446744073709551616"},
       "18446744073709551616 cycles are too many"},
      {{"stat", "--mux-interval-ms", "nan"}, "'nan' is not a finite number"},
      {{"stat", "--mux-interval-ms", "-1"}, "-1 is not a positive interval"},
      {{"stat", "--mux-interval-ms", "1e300"}, "stat: --mux-interval-ms 1e+300: "},
      {{"stat", "-r", "-1"}, "'-1' is not a whole number of runs"},
      {{"stat", "-r", "0"}, "0 runs: give at least 1"},
  };
  for (const char* tool : {"busstat", "c2c", "conflicts", "locality"}) {
    // -I is simulated milliseconds, as perf's and stat's; --interval-cycles is cycles.
    cases.push_back({{tool, "--interval-cycles", "0"}, "0 cycles: give at least 1"});
    cases.push_back({{tool, "--interval-cycles", "-1"}, "'-1' is not a whole number of cycles"});
    cases.push_back({{tool, "--interval-cycles", "nan"}, "'nan' is not a whole number of cycles"});
    cases.push_back({{tool, "--interval-cycles", "99999999999999999999"}, "cycles are too many"});
    cases.push_back({{tool, "-I", "0"}, "0 is not a positive interval"});
    cases.push_back({{tool, "-I", "nan"}, "'nan' is not a finite number"});
    cases.push_back({{tool, "-I", "1e-9"}, "is less than one cycle at"});
    cases.push_back({{tool, "-I", "1", "--interval-cycles", "5"}, "not both"});
  }
  for (auto [args, says] : cases) {
    std::string what;
    for (const std::string& a : args) what += (what.empty() ? "" : " ") + a;
    args.insert(args.end(), {"--", guest("demo")});
    const RunResult r = hpmsim(args);
    EXPECT_EQ(r.status(), kUsage) << what << ": " << r.describe() << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << what << ": " << r.err;
    EXPECT_EQ(r.err.find("unknown option"), std::string::npos) << what << ": " << r.err;
    EXPECT_EQ(r.out, "") << what << ": the program ran";
  }
}

TEST(UpcExplore, SimulationBelowTheSafeWidthReportsEveryLostCarry) {
  const std::vector<std::string> base = {
      "upc", "explore", "--counters", "256", "--service-cycles", "16", "--simulate"};
  std::vector<std::string> narrow = base;
  narrow.insert(narrow.end(), {"--low-bits", "11"});
  const RunResult r = hpmsim(narrow);
  ASSERT_EQ(r.status(), 0) << r.err;
  EXPECT_NE(r.out.find("lost carries 62336"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("worst carry-to-service latency"), std::string::npos) << r.out;
  std::vector<std::string> safe = base;
  safe.insert(safe.end(), {"--low-bits", "12", "--pattern", "bursty", "--json"});
  const RunResult b = hpmsim(safe);
  ASSERT_EQ(b.status(), 0) << b.err;
  const json sim = json::parse(b.out)["simulation"];
  EXPECT_EQ(sim["pattern"], "bursty");
  EXPECT_EQ(sim["lost_carries"], 0);
  EXPECT_EQ(sim["deviating_counters"], 0);
  EXPECT_LE(sim["worst_service_latency"].get<u64>(), 256u * 16u);
}

// ---- config ------------------------------------------------------------------------------------

TEST(Config, OverridesChangeTheEffectiveConfiguration) {
  const RunResult r = hpmsim({"config", "--set", "node.cores=8", "--set", "l2.ways=4", "--json"});
  ASSERT_EQ(r.status(), 0) << r.err;
  const json c = json::parse(r.out);
  EXPECT_EQ(c["node"]["cores"], 8);
  EXPECT_EQ(c["l2"]["ways"], 4);
  EXPECT_EQ(c["node"]["threads_per_core"], 4);  // the rest stays bgq's
}

TEST(Config, UnknownKeyIsAConfigurationErrorNamingIt) {
  const RunResult r = hpmsim({"config", "--set", "node.corez=8"});
  EXPECT_EQ(r.status(), kConfig);
  EXPECT_NE(r.err.find("'node.corez'"), std::string::npos) << r.err;
}

TEST(Config, ValueOutOfRangeIsAConfigurationError) {
  const RunResult r = hpmsim({"config", "--set", "node.cores=0"});
  EXPECT_EQ(r.status(), kConfig);
  EXPECT_NE(r.err.find("node.cores"), std::string::npos) << r.err;
}

// Caches are lazily backed: a gibibyte L1D costs hello-world little host memory; but caches whose
// state could exceed the host's memory, were every line used, are refused, saying how much.
TEST(Config, HugeCachesCostOnlyWhatARunTouchesAndThoseThatCouldExhaustTheHostAreRefused) {
  TempDir dir;
  const fs::path stats = dir.path() / "s.json";
  const RunResult big = hpmsim({"run", "--set", "l1d.size_kib=1048576", "--stats-json",
                                stats.string(), "--", guest("exit_status"), "0", "return"});
  EXPECT_EQ(big.status(), 0) << big.err;
  EXPECT_LT(readJson(stats)["host_peak_rss_kib"].get<u64>(), u64{256} << 10)
      << "KiB for 16 cores with 1 GiB L1Ds";
  const RunResult r = hpmsim({"config", "--set", "node.cores=1024", "--set", "l1d.size_kib=1048576",
                              "--set", "l1d.line_bytes=8"});
  EXPECT_EQ(r.status(), kConfig) << r.err;
  EXPECT_NE(r.err.find("the caches of machine bgq (1024 cores: l1i 16 KiB, l1d 1048576 KiB, l2 "
                       "32768 KiB) need up to 4"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("MiB of host memory for their state (33 bytes per line), more than this "
                       "host's "),
            std::string::npos)
      << r.err;
}

TEST(Config, MachineFileInheritsAPresetAndOverridesIt) {
  TempDir dir;
  const fs::path file = dir.path() / "slow_bgp.toml";
  std::ofstream(file) << "inherits = \"bgp\"\nname = \"slow_bgp\"\n[node]\nclock_mhz = 425.0\n";
  const RunResult r = hpmsim({"config", "--machine", file.string(), "--json"});
  ASSERT_EQ(r.status(), 0) << r.err;
  const json c = json::parse(r.out);
  EXPECT_EQ(c["name"], "slow_bgp");
  EXPECT_EQ(c["node"]["cores"], 4);  // bgp's
  EXPECT_EQ(c["node"]["clock_mhz"], 425.0);
  EXPECT_EQ(c["monitor"]["unit"], "upc");
}

TEST(Config, UnknownKeyInAMachineFileIsAConfigurationError) {
  TempDir dir;
  const fs::path file = dir.path() / "bad.toml";
  std::ofstream(file) << "[node]\ncores = 4\nsockets = 2\n";
  const RunResult r = hpmsim({"config", "--machine", file.string()});
  EXPECT_EQ(r.status(), kConfig);
  EXPECT_NE(r.err.find("sockets"), std::string::npos) << r.err;
}

// An out-of-range value is named as written, a large unsigned one too (not as its i64 wrap).
TEST(Config, OutOfRangeValuesAreReportedAsWritten) {
  const RunResult big = hpmsim({"config", "--set", "kernel.lookahead=18446744073709551615"});
  EXPECT_EQ(big.status(), kConfig);
  EXPECT_NE(big.err.find("18446744073709551615 is outside"), std::string::npos) << big.err;
  const RunResult negative = hpmsim({"config", "--set", "node.cores=-3"});
  EXPECT_EQ(negative.status(), kConfig);
  EXPECT_NE(negative.err.find("-3 is outside"), std::string::npos) << negative.err;
}

// A machine file is a regular file of bounded size (a wrong path is not read whole).
TEST(Config, OversizedMachineFileIsAConfigurationError) {
  TempDir dir;
  const fs::path file = dir.path() / "huge.toml";
  std::ofstream(file) << std::string(2 << 20, '#');
  const RunResult r = hpmsim({"config", "--machine", file.string()});
  EXPECT_EQ(r.status(), kConfig);
  EXPECT_NE(r.err.find("larger than 1048576 bytes"), std::string::npos) << r.err;
}

TEST(Config, MissingMachineIsAConfigurationError) {
  const RunResult r = hpmsim({"config", "--machine", "bgz"});
  EXPECT_EQ(r.status(), kConfig);
  EXPECT_NE(r.err.find("bgz"), std::string::npos) << r.err;
}

TEST(Config, MarkdownTableHasARowForEveryParameter) {
  const RunResult list = hpmsim({"config", "--json"});
  const RunResult table = hpmsim({"config", "--markdown"});
  ASSERT_EQ(list.status(), 0);
  ASSERT_EQ(table.status(), 0);
  // Every leaf of the JSON configuration is a row "| `key` | ...".
  std::vector<std::string> keys;
  auto walk = [&](auto&& self, const json& node, const std::string& prefix) -> void {
    for (const auto& [k, v] : node.items()) {
      const std::string key = prefix.empty() ? k : prefix + "." + k;
      if (v.is_object()) {
        self(self, v, key);
      } else {
        keys.push_back(key);
      }
    }
  };
  walk(walk, json::parse(list.out), "");
  ASSERT_GT(keys.size(), 50u);
  for (const std::string& key : keys) {
    EXPECT_NE(table.out.find("| `" + key + "` |"), std::string::npos) << key;
  }
}

TEST(Config, MarkdownPipeInATextIsEscapedSoEveryRowHasTheHeadersColumns) {
  const RunResult table = hpmsim({"config", "--markdown"});
  ASSERT_EQ(table.status(), 0);
  auto cells = [](const std::string& line) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < line.size(); ++i)
      n += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
    return n;
  };
  std::istringstream in(table.out);
  std::string header, line;
  std::getline(in, header);
  std::size_t rows = 0;
  while (std::getline(in, line)) {
    EXPECT_EQ(cells(line), cells(header)) << line;
    ++rows;
  }
  EXPECT_GT(rows, 50u);
  EXPECT_NE(table.out.find("one of none\\|upc\\|upcq"), std::string::npos);
}

TEST(Docs, ConfigurationReferenceIsCurrent) {
  std::ifstream in(kSourceDir / "docs" / "configuration.md");
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string marker = "<!-- generated: hpmsim config --markdown -->\n";
  const std::size_t at = doc.find(marker);
  ASSERT_NE(at, std::string::npos);
  const RunResult r = hpmsim({"config", "--markdown"});
  ASSERT_EQ(r.status(), 0);
  EXPECT_EQ(doc.substr(at + marker.size()), r.out)
      << "docs/configuration.md is stale: regenerate its table with `hpmsim config --markdown`";
}

// ---- events ------------------------------------------------------------------------------------

TEST(Events, BgpCatalogueWiresEveryUpcInputToOneDistinctEvent) {
  const RunResult r = hpmsim({"events", "--machine", "bgp", "--json"});
  ASSERT_EQ(r.status(), 0) << r.err;
  const json c = json::parse(r.out);
  EXPECT_EQ(c["unit"], "upc");
  std::set<std::string> names;
  std::set<std::pair<int, int>> inputs;
  for (const json& e : c["events"]) {
    EXPECT_TRUE(names.insert(e["name"].get<std::string>()).second) << e["name"];
    EXPECT_TRUE(inputs.insert({e["counter"].get<int>(), e["select"].get<int>()}).second)
        << e["name"];
    EXPECT_EQ(e["input"].get<int>(), e["select"].get<int>() * 256 + e["counter"].get<int>());
  }
  EXPECT_EQ(inputs.size(), 1024u);
}

TEST(Events, BgqCatalogueHasAPunitPerCoreAndTheNodeUnits) {
  const RunResult r = hpmsim({"events", "--machine", "bgq", "--json"});
  ASSERT_EQ(r.status(), 0) << r.err;
  const json c = json::parse(r.out);
  std::set<std::string> devices(c["devices"].begin(), c["devices"].end());
  for (int k = 0; k < 16; ++k) EXPECT_TRUE(devices.contains("/dev/hpm/punit" + std::to_string(k)));
  for (const char* unit :
       {"/dev/hpm/l2", "/dev/hpm/io", "/dev/hpm/cnk", "/dev/hpm/nw", "/dev/hpm/imon"}) {
    EXPECT_TRUE(devices.contains(unit)) << unit;
  }
  std::set<std::string> units;
  for (const json& e : c["events"]) units.insert(e["unit"].get<std::string>());
  EXPECT_EQ(units, (std::set<std::string>{"punit", "l2", "io", "cnk", "nw", "imon"}))
      << "UPC-Q's units and, beside them, the interconnect monitor";
}

// Every event says what one count covers, as the catalogue's scopes.
TEST(Events, EveryEventNamesItsScope) {
  const RunResult r = hpmsim({"events", "--machine", "bgq", "--json"});
  ASSERT_EQ(r.status(), 0) << r.err;
  const json catalogue = json::parse(r.out);
  std::map<std::string, std::string> scope;
  for (const json& e : catalogue["events"]) {
    scope[e["name"].get<std::string>()] = e["scope"].get<std::string>();
  }
  const std::set<std::string> known = {
      "hardware thread", "core", "L2 slice", "memory controller", "node", "kernel", "torus link"};
  for (const auto& [name, s] : scope) EXPECT_TRUE(known.count(s)) << name << ": " << s;
  EXPECT_EQ(scope.at("PEVT_INST_ALL@t0"), "hardware thread");
  EXPECT_EQ(scope.at("PEVT_INST_ALL"), "core") << "the sum over a core's threads";
  EXPECT_EQ(scope.at("PEVT_L2_HITS"), "L2 slice");
  EXPECT_EQ(scope.at("PEVT_DDR_READS"), "memory controller");
  EXPECT_EQ(scope.at("PEVT_IO_WRITES"), "node");
  EXPECT_EQ(scope.at("PEVT_CNKHWT_SYSCALL"), "kernel");
  EXPECT_EQ(scope.at("PEVT_NW_USER_PP_SENT"), "torus link");
}

TEST(Events, UnitOptionKeepsOnlyThatUnitsEvents) {
  const RunResult r = hpmsim({"events", "--machine", "bgq", "--unit", "l2", "--json"});
  ASSERT_EQ(r.status(), 0) << r.err;
  const json c = json::parse(r.out);
  ASSERT_FALSE(c["events"].empty());
  for (const json& e : c["events"]) EXPECT_EQ(e["unit"], "l2") << e["name"];
}

// ---- stat --------------------------------------------------------------------------------------

// `hpmsim run --stats-json` of a program (timing mode, default machine unless given).
json runStats(const std::vector<std::string>& options, const std::vector<std::string>& program,
              std::string* out = nullptr) {
  TempDir dir;
  std::vector<std::string> args = {"run", "--stats-json", (dir.path() / "s.json").string()};
  args.insert(args.end(), options.begin(), options.end());
  args.push_back("--");
  args.insert(args.end(), program.begin(), program.end());
  const RunResult r = hpmsim(args);
  EXPECT_EQ(r.status(), 0) << r.err;
  if (out != nullptr) *out = r.out;
  return readJson(dir.path() / "s.json");
}

// `hpmsim stat --json -o FILE` of a program.
json statJson(const std::vector<std::string>& options, const std::vector<std::string>& program,
              std::string* out = nullptr) {
  TempDir dir;
  std::vector<std::string> args = {"stat", "--json", "-o", (dir.path() / "c.json").string()};
  args.insert(args.end(), options.begin(), options.end());
  args.push_back("--");
  args.insert(args.end(), program.begin(), program.end());
  const RunResult r = hpmsim(args);
  EXPECT_EQ(r.status(), 0) << r.err;
  if (out != nullptr) *out = r.out;
  return readJson(dir.path() / "c.json");
}

TEST(Stat, CountsEqualTheRunsInstructionsAndTheGuestsOutputPassesThrough) {
  const std::vector<std::string> program = {guest("node_mix"), "4"};
  std::string run_out, stat_out;
  const json run = runStats({}, program, &run_out);
  const json stat = statJson({"-e", "instructions,cycles"}, program, &stat_out);
  EXPECT_EQ(stat["counts"]["instructions"], run["instructions"]);
  EXPECT_EQ(stat["cycles_simulated"], run["cycles"]);
  EXPECT_EQ(stat["exit_status"], 0);
  EXPECT_EQ(stat_out, run_out);
  // "cycles" are the cycles the program's threads ran, as perf's for a process: each hardware
  // thread's clock less its idle cycles, summed (the timing model's statistics); -a (system
  // wide) counts every hardware thread's clock, idle ones included.
  u64 busy = 0, clocks = 0;
  for (const json& core : run["timing"]["cores"]) {
    for (const json& t : core["threads"]) {
      busy += t["cycles"].get<u64>() - t["stalls"]["idle"].get<u64>();
      clocks += t["cycles"].get<u64>();
    }
  }
  EXPECT_EQ(stat["counts"]["cycles"].get<u64>(), busy);
  const json all = statJson({"-a", "-e", "instructions,cycles"}, program);
  EXPECT_EQ(all["counts"]["cycles"].get<u64>(), clocks);
  EXPECT_EQ(all["system_wide"], true);
  EXPECT_LT(busy, clocks) << "node_mix 4 leaves hardware threads idle";
}

// One meaning of cycles in stat's text: its IPC line divides by the program's threads' cycles,
// the header names -a's, and a region's table says what its counts are.
TEST(Stat, TheInsnPerCycleLineDividesByTheProgramsCyclesAndSystemWideIsNamed) {
  const std::vector<std::string> program = {guest("node_mix"), "4"};
  const json stat = statJson({"-e", "instructions,cycles"}, program);
  const double ipc =
      stat["counts"]["instructions"].get<double>() / stat["counts"]["cycles"].get<double>();
  EXPECT_DOUBLE_EQ(stat["events"][0]["metric-value"].get<double>(), ipc);
  const RunResult text =
      hpmsim({"stat", "--quiet", "-a", "-e", "instructions,cycles", "--", guest("node_mix"), "4"});
  ASSERT_EQ(text.status(), 0) << text.err;
  EXPECT_NE(text.err.find(", system wide: cycles of every hardware thread, idle included):"),
            std::string::npos)
      << text.err;
}

TEST(Stat, GenericEventsSumTheirNativeEvents) {
  const std::vector<std::string> program = {guest("node_mix"), "4"};
  const json stat = statJson({"-e", "L1dMisses,PEVT_L1D_MISSES"}, program);
  const json run = runStats({}, program);
  u64 misses = 0;
  for (const json& core : run["timing"]["cores"]) misses += core["l1d"]["misses"].get<u64>();
  EXPECT_EQ(stat["counts"]["L1dMisses"], misses);
  EXPECT_EQ(stat["counts"]["PEVT_L1D_MISSES"], misses);
}

TEST(Stat, BgpNodeWideCountsTakeTwoRunsThatTheCoresOptionSelects) {
  const std::vector<std::string> program = {guest("node_mix"), "4"};
  const RunResult refused =
      hpmsim({"stat", "--machine", "bgp", "-e", "instructions", "--", guest("node_mix")});
  EXPECT_EQ(refused.status(), kUsage);
  EXPECT_NE(refused.err.find("--cores 0,1 (then --cores 2,3)"), std::string::npos) << refused.err;

  const json low = statJson({"--machine", "bgp", "--cores", "0,1", "-e", "instructions"}, program);
  const json high = statJson({"--machine", "bgp", "--cores", "2,3", "-e", "instructions"}, program);
  const json run = runStats({"--machine", "bgp"}, program);
  EXPECT_EQ(low["counts"]["instructions"].get<u64>() + high["counts"]["instructions"].get<u64>(),
            run["instructions"].get<u64>());
  EXPECT_GT(high["counts"]["instructions"].get<u64>(), 0u);
}

TEST(Stat, DefaultEventsOnBgpCountCoresZeroAndOneAndSaySo) {
  // perf stat's defaults always work; on UPC-P they count one pair of cores.
  const std::vector<std::string> program = {guest("node_mix"), "4"};
  const json defaults = statJson({"--machine", "bgp"}, program);
  EXPECT_EQ(defaults["cores"], json::array({0, 1}));
  for (const char* name : {"instructions", "cycles", "branches", "branch-misses",
                           "cache-references", "cache-misses"}) {
    EXPECT_TRUE(defaults["counts"].contains(name)) << name;
  }
  const json low = statJson({"--machine", "bgp", "--cores", "0,1", "-e", "instructions"}, program);
  EXPECT_EQ(defaults["counts"]["instructions"], low["counts"]["instructions"]);
  const RunResult text =
      hpmsim({"stat", "--machine", "bgp", "--", guest("exit_status"), "0", "return"});
  EXPECT_EQ(text.status(), 0) << text.err;
  EXPECT_NE(text.err.find("(machine bgp, UPC-P, timing mode, cores 0,1)"), std::string::npos)
      << text.err;
}

TEST(Stat, CoresOnUpcQCountOnlyThoseCoresPUnits) {
  // Six threads: four on core 0, two on core 1 (bgq fills a core's hardware threads first).
  const std::vector<std::string> program = {guest("node_mix"), "6"};
  const json all = statJson({"-e", "instructions,L1dMisses"}, program);
  const json core0 = statJson({"--cores", "0", "-e", "instructions,L1dMisses"}, program);
  const json others = statJson(
      {"--cores", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15", "-e", "instructions,L1dMisses"}, program);
  const json run = runStats({}, program);
  EXPECT_EQ(all["counts"]["instructions"], run["instructions"]);
  for (const char* name : {"instructions", "L1dMisses"}) {
    EXPECT_GT(core0["counts"][name].get<u64>(), 0u) << name;
    EXPECT_GT(others["counts"][name].get<u64>(), 0u) << name;
    EXPECT_EQ(core0["counts"][name].get<u64>() + others["counts"][name].get<u64>(),
              all["counts"][name].get<u64>())
        << name;
  }
  u64 core0_misses = run["timing"]["cores"][0]["l1d"]["misses"].get<u64>();
  EXPECT_EQ(core0["counts"]["L1dMisses"].get<u64>(), core0_misses);
}

TEST(Stat, CoresThatDoNotExistAreRefused) {
  for (const char* machine : {"bgq", "bgp"}) {
    const RunResult r = hpmsim({"stat", "--machine", machine, "--cores", "0,16", "-e",
                                "instructions", "--", guest("exit_status"), "0"});
    EXPECT_EQ(r.status(), kUsage) << machine;
    EXPECT_NE(r.err.find("--cores 16: machine"), std::string::npos) << r.err;
  }
}

// Two native events of one UPC-P counter take turns (multiplexed, as perf does with what does not
// fit); in a group, which counts together or not at all, they are refused.
TEST(Stat, ConflictingNativeEventsAreMultiplexedAndAGroupOfThemIsRefusedWithoutACoresHint) {
  const RunResult mux = hpmsim({"stat", "--machine", "bgp", "-e", "PU0_CYCLES,PU2_CYCLES", "--",
                                guest("exit_status"), "0", "exit"});
  EXPECT_EQ(mux.status(), 0) << mux.err;
  EXPECT_NE(mux.err.find("(multiplexed: 2 sets"), std::string::npos) << mux.err;
  const RunResult r = hpmsim({"stat", "--machine", "bgp", "-e", "{PU0_CYCLES,PU2_CYCLES}", "--",
                              guest("exit_status"), "0", "exit"});
  EXPECT_EQ(r.status(), kUsage);
  EXPECT_NE(r.err.find("UPC-P cannot count PU0_CYCLES and PU2_CYCLES together"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("No assignment counts both in one run"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("--cores"), std::string::npos) << "no hint that cannot help: " << r.err;
}

TEST(Stat, UnknownEventIsAUsageErrorNamingIt) {
  const RunResult r = hpmsim({"stat", "-e", "instructions,L1Dmises", "--", guest("exit_status")});
  EXPECT_EQ(r.status(), kUsage);
  EXPECT_NE(r.err.find("unknown event 'L1Dmises'"), std::string::npos) << r.err;
}

TEST(Stat, TheFunctionalModeCountsInstructionsExactlyAndCacheAndPipelineEventsAreNotSupported) {
  // Six threads on two cores' hardware threads: the count is the run's instructions.
  const json stat = statJson({"--mode", "functional", "-e",
                              "instructions,cycles,branches,L1dMisses,PEVT_XU_BR_TAKEN_COMMIT"},
                             {guest("node_mix"), "6"});
  EXPECT_EQ(stat["mode"], "functional");
  EXPECT_EQ(stat["counts"]["instructions"], stat["instructions"]);
  EXPECT_GE(stat["counts"]["cycles"].get<u64>(), stat["cycles_simulated"].get<u64>());
  EXPECT_GT(stat["counts"]["branches"].get<u64>(), 0u);
  EXPECT_FALSE(stat["counts"].contains("L1dMisses"));
  EXPECT_FALSE(stat["counts"].contains("PEVT_XU_BR_TAKEN_COMMIT"));
  EXPECT_EQ(stat["events"][3]["counter-value"], "<not supported>");
  EXPECT_EQ(stat["events"][4]["counter-value"], "<not supported>");
  // One thread: one instruction per cycle in both modes, so the warm-up mode's very counts.
  const std::vector<std::string> events = {"-e", "instructions,cycles,branches,PEVT_INST_XU_BRC"};
  std::vector<std::string> functional = {"--mode", "functional"}, warmup = {"--mode", "warmup"};
  functional.insert(functional.end(), events.begin(), events.end());
  warmup.insert(warmup.end(), events.begin(), events.end());
  const json f = statJson(functional, {guest("count_loop")});
  const json w = statJson(warmup, {guest("count_loop")});
  EXPECT_EQ(f["counts"], w["counts"]);
  EXPECT_EQ(f["counts"]["instructions"], f["instructions"]);
}

// ---- counting from statistics -------------------------------------------------------------------

// hpmsim on bt (two OpenMP threads) with `args` and monitor.counting = `counting`; its stats file
// in *stats.
RunResult btWithCounting(std::vector<std::string> args, const std::string& counting,
                         json* stats = nullptr) {
  TempDir dir;
  const std::string stats_path = (dir.path() / "s.json").string();
  args.insert(args.begin() + 1, {"--set", "monitor.counting=" + counting});
  if (stats != nullptr) args.insert(args.begin() + 1, {"--stats-json", stats_path});
  args.insert(args.begin(), kHpmsim);
  for (const char* a : {"--", "bt", "6", "1"}) args.push_back(a);
  args[args.size() - 3] = guest("bt");
  const RunResult r = hpm::test::runProcess(
      args, {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C", "OMP_NUM_THREADS=2"}, "", ".", kTimeout);
  EXPECT_EQ(r.status(), 0) << r.err;
  if (stats != nullptr) *stats = readJson(stats_path);
  return r;
}

// hpmsim stat --json with `args` on bt (bgq), counting from statistics and from events: the two
// reports.
std::pair<json, json> statOnBothPaths(const std::vector<std::string>& args) {
  TempDir dir;
  auto counted = [&](const std::string& counting) {
    const std::string path = (dir.path() / (counting + ".json")).string();
    std::vector<std::string> full = {"stat", "--json", "-o", path};
    full.insert(full.end(), args.begin(), args.end());
    btWithCounting(full, counting);
    return readJson(path);
  };
  json from_statistics = counted("statistics");
  return {std::move(from_statistics), counted("events")};
}

TEST(Counting, FromStatisticsUpcPCountersEqualThoseOfPublishedEvents) {
  // Every one of the 256 counters, level high without interrupt: all but the queue-full levels
  // and the data-dependent events count from statistics.
  const std::vector<std::string> args = {"run", "--machine", "bgp", "--upc-config",
                                         (kSourceDir / "bench/upc-select0.txt").string()};
  json from_statistics, from_events;
  const RunResult s = btWithCounting(args, "statistics", &from_statistics);
  const RunResult e = btWithCounting(args, "events", &from_events);
  EXPECT_EQ(s.err, e.err);  // the table of every counter's value
  EXPECT_NE(s.err.find("PU1_STALL_ANY"), std::string::npos) << s.err;
  EXPECT_GT(from_statistics["monitor"]["tallied_counters"].get<u64>(), 80u);
  EXPECT_GT(from_statistics["monitor"]["tally_windows"].get<u64>(), 1000u);
  EXPECT_EQ(from_events["monitor"]["tallied_counters"].get<u64>(), 0u);
  EXPECT_EQ(from_statistics["monitor"]["upc"]["lost_carries"], 0);
  EXPECT_EQ(from_events["monitor"]["upc"]["lost_carries"], 0);
}

TEST(Counting, FromStatisticsUpcQCountsEqualThoseOfPublishedEvents) {
  // Thread and core events of every PUnit (sums over threads, levels of a thread created late)
  // and the L2 unit (combined), for the whole run; and first touches of pages, which the driver
  // tracks apart when no instruction-mix event is published.
  const auto [from_statistics, from_events] = statOnBothPaths(
      {"-e",
       "PEVT_CYCLES@t0,PEVT_CYCLES@t1,PEVT_INST_ALL,PEVT_INST_ALL@t1,PEVT_STALL_ANY@t0,"
       "PEVT_IU_IS1_STALL_CYC@t1,PEVT_STALL_IDLE@t1,PEVT_INST_QFPU_FPGRP1,PEVT_LOADS8,"
       "PEVT_OP_ADDI,PEVT_BRANCHES_NOT_TAKEN,PEVT_L1D_MISSES,PEVT_L1P_BAS_HIT,"
       "PEVT_SQ_ALLOCATIONS,PEVT_L2_HITS,PEVT_L2_REQ_RETIRE,PEVT_DDR_READS,PEVT_CNKHWT_DTLB"});
  EXPECT_EQ(from_statistics["counts"], from_events["counts"]);
  EXPECT_GT(from_statistics["counts"]["PEVT_STALL_IDLE@t1"].get<u64>(), 0u);
  EXPECT_GT(from_statistics["counts"]["PEVT_CNKHWT_DTLB"].get<u64>(), 10u);
}

TEST(Counting, FromStatisticsUpcQReadingsBetweenSweepsEqualThoseOfPublishedEvents) {
  // Readings every 3,001 cycles (never at a visit of every counter): each sees the windows its
  // counters' visits closed, whether they came as pulses or in bulk (upcq::Unit::sweptWindows)
  // or, on the events path, as events. The readings of level events are not compared: one that
  // falls while a thread lags attributes the thread's cycles differently on the two paths
  // (docs/counters.md, "Level events read during a run"); their totals are, and are exact.
  const std::vector<std::string> pulse_events = {
      "PEVT_INST_ALL@t0",   "PEVT_INST_ALL",  "PEVT_INST_QFPU_FPGRP1@t1", "PEVT_L1D_MISSES",
      "PEVT_L2_REQ_RETIRE", "PEVT_L2_WRITES", "PEVT_IO_BYTES_WRITTEN",    "PEVT_CNKHWT_SYSCALL"};
  std::string events = "PEVT_CYCLES@t0,PEVT_STALL_ANY@t0,PEVT_STALL_IDLE@t1";
  for (const std::string& e : pulse_events) events += "," + e;
  const auto [from_statistics, from_events] = statOnBothPaths({"--interval", "3001", "-e", events});
  const json& intervals = from_statistics["intervals"];
  ASSERT_GT(intervals.size(), 100u);
  ASSERT_EQ(intervals.size(), from_events["intervals"].size());
  for (std::size_t i = 0; i < intervals.size(); ++i) {
    for (const std::string& e : pulse_events) {
      ASSERT_EQ(intervals[i]["counts"][e], from_events["intervals"][i]["counts"][e])
          << e << " at " << intervals[i]["cycle"];
    }
  }
  for (const std::string& e : pulse_events) {
    EXPECT_EQ(from_statistics["counts"][e], from_events["counts"][e]) << e;
  }
  for (const char* e : {"PEVT_CYCLES@t0", "PEVT_STALL_ANY@t0", "PEVT_STALL_IDLE@t1"}) {
    EXPECT_EQ(from_statistics["counts"][e], from_events["counts"][e]) << e;
  }
  // Thread 0 runs to the end: its cycles are the run's.
  EXPECT_EQ(from_statistics["counts"]["PEVT_CYCLES@t0"], from_statistics["cycles_simulated"]);
  EXPECT_EQ(from_events["counts"]["PEVT_CYCLES@t0"], from_events["cycles_simulated"]);
  EXPECT_GT(from_statistics["counts"]["PEVT_STALL_IDLE@t1"].get<u64>(), 0u);
}

TEST(Docs, LevelReadingFiguresComeFromARun) {
  // docs/counters.md, "Level events read during a run", quotes this run on both counting paths:
  // from the program's directory (its path in the guest's file system, /bt, is the same in every
  // checkout).
  TempDir dir;
  auto counted = [&](const std::string& counting) {
    const std::string path = (dir.path() / (counting + ".json")).string();
    const RunResult r = hpm::test::runProcess(
        {kHpmsim, "stat", "--json", "-o", path, "--set", "monitor.counting=" + counting,
         "--interval-cycles", "5000", "-e", "PEVT_CYCLES@t0,PEVT_CYCLES@t1,PEVT_STALL_ANY@t1", "--",
         "bt", "6", "1"},
        {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C", "OMP_NUM_THREADS=2"}, "", kGuestBinDir,
        kTimeout);
    EXPECT_EQ(r.status(), 0) << r.err;
    return readJson(path);
  };
  const json from_statistics = counted("statistics");
  const json from_events = counted("events");
  const json& a = from_statistics["intervals"];
  const json& b = from_events["intervals"];
  ASSERT_EQ(a.size(), b.size());
  auto commas = [](u64 v) {
    const std::string digits = std::to_string(v);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
      if (i != 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
      out.push_back(digits[i]);
    }
    return out;
  };
  std::map<std::string, u64> largest;
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (const char* e : {"PEVT_CYCLES@t0", "PEVT_CYCLES@t1", "PEVT_STALL_ANY@t1"}) {
      const u64 x = a[i]["cumulative"][e].get<u64>(), y = b[i]["cumulative"][e].get<u64>();
      largest[e] = std::max(largest[e], x > y ? x - y : y - x);
    }
  }
  EXPECT_EQ(from_statistics["counts"], from_events["counts"]);
  EXPECT_EQ(from_statistics["counts"]["PEVT_CYCLES@t0"], from_statistics["cycles_simulated"]);
  std::ifstream in(kSourceDir / "docs" / "counters.md");
  std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  doc = std::regex_replace(doc, std::regex(R"(\s+)"), " ");
  std::ostringstream q;
  q << "makes " << a.size() << " readings; the largest difference between the two paths' "
    << "readings is " << commas(largest["PEVT_CYCLES@t0"]) << " cycles for `PEVT_CYCLES@t0`, "
    << commas(largest["PEVT_CYCLES@t1"]) << " for `PEVT_CYCLES@t1` and "
    << commas(largest["PEVT_STALL_ANY@t1"]) << " for `PEVT_STALL_ANY@t1`, and both paths' totals "
    << "are " << commas(from_statistics["counts"]["PEVT_CYCLES@t0"].get<u64>()) << " and "
    << commas(from_statistics["counts"]["PEVT_CYCLES@t1"].get<u64>()) << " cycles";
  const std::string quoted = q.str();
  EXPECT_NE(doc.find(quoted), std::string::npos) << "docs/counters.md should say:\n" << quoted;
}

// Intervals end at every multiple of the period, and the last, partial one at the run's end with
// the final (settled) counts: the interval counts add up to the total.
TEST(Stat, IntervalCountsAddUpToTheTotalWithTheLastPartialInterval) {
  const json stat =
      statJson({"-e", "instructions", "--interval-cycles", "100000"}, {guest("node_mix"), "4"});
  ASSERT_TRUE(stat.contains("intervals"));
  const json& intervals = stat["intervals"];
  ASSERT_GT(intervals.size(), 5u);
  u64 sum = 0, last_cycle = 0;
  for (std::size_t i = 0; i < intervals.size(); ++i) {
    const json& row = intervals[i];
    if (i + 1 < intervals.size()) {
      EXPECT_EQ(row["cycle"].get<u64>(), last_cycle + 100000);
    } else {
      EXPECT_EQ(row["cycle"], stat["cycles_simulated"]) << "the last interval ends with the run";
      EXPECT_LT(row["cycle"].get<u64>(), last_cycle + 100000) << "and is partial";
    }
    last_cycle = row["cycle"].get<u64>();
    sum += row["counts"]["instructions"].get<u64>();
    EXPECT_EQ(row["cumulative"]["instructions"].get<u64>(), sum);
  }
  EXPECT_EQ(sum, stat["counts"]["instructions"].get<u64>());
}

// -I takes simulated milliseconds (perf's unit), at the machine's clock: 0.1 ms is 160,000
// cycles at bgq's 1.6 GHz; the text output prints the partial last interval too.
TEST(Stat, IntervalPrintTakesSimulatedMilliseconds) {
  const json stat = statJson({"-e", "instructions", "-I", "0.1"}, {guest("node_mix"), "4"});
  const json& intervals = stat["intervals"];
  ASSERT_GT(intervals.size(), 3u);
  EXPECT_EQ(intervals[0]["cycle"], 160000u);
  EXPECT_EQ(intervals[1]["cycle"], 320000u);
  EXPECT_NEAR(intervals[0]["seconds"].get<double>(), 0.0001, 1e-12);
  const RunResult both =
      hpmsim({"stat", "-I", "1", "--interval-cycles", "5", "--", guest("node_mix"), "1"});
  EXPECT_EQ(both.status(), 2) << "one interval option at a time";
}

// -x SEP prints perf stat's CSV fields: value, unit, event, run time (ns), percent running, metric
// value, metric unit; the values are the JSON output's.
TEST(Stat, FieldSeparatorPrintsPerfsCsvFields) {
  const std::vector<std::string> program = {guest("node_mix"), "2"};
  const json counts = statJson({"-e", "instructions,cycles"}, program);
  const RunResult r =
      hpmsim({"stat", "-x", ";", "-e", "instructions,cycles", "--", guest("node_mix"), "2"});
  ASSERT_EQ(r.status(), 0) << r.err;
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(r.err);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields;
    std::string field;
    std::istringstream cells(line);
    while (std::getline(cells, field, ';')) fields.push_back(field);
    if (line.ends_with(";")) fields.emplace_back();
    rows.push_back(fields);
  }
  ASSERT_EQ(rows.size(), 2u) << r.err;
  for (const auto& row : rows) ASSERT_EQ(row.size(), 7u) << r.err;
  EXPECT_EQ(rows[0][2], "instructions");
  EXPECT_EQ(std::stoull(rows[0][0]), counts["counts"]["instructions"].get<u64>());
  EXPECT_EQ(rows[0][1], "");
  EXPECT_EQ(std::stoull(rows[0][3]),
            static_cast<u64>(counts["seconds_simulated"].get<double>() * 1e9 + 0.5));
  EXPECT_EQ(rows[0][4], "100.00");
  EXPECT_EQ(rows[0][6], "insn per cycle");
  EXPECT_EQ(rows[1][2], "cycles");
  EXPECT_EQ(rows[1][5], "");
}

// -r N runs the program N times: a simulated run repeats exactly, so every count's variance is 0.
TEST(Stat, RepeatedRunsGiveTheMeanAndAZeroVarianceForADeterministicProgram) {
  const json stat = statJson({"-r", "3", "-e", "instructions,cycles"}, {guest("node_mix"), "2"});
  EXPECT_EQ(stat["runs"], 3u);
  ASSERT_EQ(stat["counts_per_run"].size(), 3u);
  for (const json& one : stat["counts_per_run"]) EXPECT_EQ(one, stat["counts"]);
  for (const json& e : stat["events"]) {
    EXPECT_EQ(e["variance"].get<double>(), 0.0) << e.dump();
    EXPECT_EQ(e["counter-value"].get<double>(),
              stat["counts"][e["event"].get<std::string>()].get<double>());
  }
  const RunResult text = hpmsim(
      {"stat", "-r", "2", "--no-big-num", "-e", "instructions", "--", guest("node_mix"), "1"});
  ASSERT_EQ(text.status(), 0) << text.err;
  EXPECT_NE(text.err.find("2 runs"), std::string::npos) << text.err;
  EXPECT_NE(text.err.find("( +-  0.00% )"), std::string::npos) << text.err;
  EXPECT_FALSE(std::regex_search(text.err, std::regex("[0-9],[0-9]")))
      << "--no-big-num: no thousands separators\n"
      << text.err;
}

// Groups ({a,b}) are counted together, as every request is; unbalanced braces and perf's
// modifiers are refused, naming the problem.
TEST(Stat, GroupsAreCountedTogetherAndMalformedListsAndModifiersAreRefused) {
  const json stat = statJson({"-e", "{instructions,cycles},branches"}, {guest("node_mix"), "1"});
  ASSERT_EQ(stat["events"].size(), 3u);
  EXPECT_EQ(stat["events"][0]["group"], 1);
  EXPECT_EQ(stat["events"][1]["group"], 1);
  EXPECT_FALSE(stat["events"][2].contains("group"));
  for (const auto& [list, says] :
       std::vector<std::pair<std::string, std::string>>{{"{instructions,cycles", "without '}'"},
                                                        {"instructions}", "without '{'"},
                                                        {"instructions:u", "modifiers"}}) {
    const RunResult r = hpmsim({"stat", "-e", list, "--", guest("node_mix"), "1"});
    EXPECT_EQ(r.status(), 2) << list;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  }
}

// perf's software events are the kernel's own figures: cpu-migrations its count of threads moved
// to another hardware thread, task-clock and cpu-clock the process's CPU time (between the run's
// length and the threads' number times it); perf names without a model print "<not supported>".
TEST(Stat, SoftwareEventsAreTheKernelsFiguresAndUnmodelledOnesAreNotSupported) {
  const std::vector<std::string> moves = {guest("sched_affinity")};
  const json stat = statJson({"-e", "cpu-migrations"}, moves);
  const json run = runStats({}, moves);
  EXPECT_EQ(stat["counts"]["cpu-migrations"], run["kernel"]["migrations"]);
  EXPECT_GE(stat["counts"]["cpu-migrations"].get<u64>(), 63u) << "to each of 64 CPUs in turn";

  const json clocks = statJson({"-e", "task-clock,cpu-clock,dTLB-load-misses,instructions"},
                               {guest("node_mix"), "4"});
  const u64 task = clocks["counts"]["task-clock"].get<u64>();
  const double elapsed = clocks["seconds_simulated"].get<double>() * 1e9;
  EXPECT_EQ(clocks["counts"]["cpu-clock"].get<u64>(), task);
  EXPECT_GE(static_cast<double>(task), elapsed * 0.99);
  EXPECT_LE(static_cast<double>(task), elapsed * 5.01) << "five threads at most";
  EXPECT_FALSE(clocks["counts"].contains("dTLB-load-misses"));
  EXPECT_EQ(clocks["events"][2]["counter-value"], "<not supported>");
  EXPECT_EQ(clocks["events"][0]["unit"], "msec");
  const RunResult text =
      hpmsim({"stat", "-e", "task-clock,dTLB-load-misses", "--", guest("node_mix"), "1"});
  ASSERT_EQ(text.status(), 0) << text.err;
  EXPECT_NE(text.err.find("<not supported>      dTLB-load-misses"), std::string::npos) << text.err;
  EXPECT_NE(text.err.find(" msec task-clock"), std::string::npos) << text.err;
  EXPECT_NE(text.err.find("CPUs utilized"), std::string::npos) << text.err;
}

// An event the machine has no model for is <not supported> with -I too: the intervals print the
// events that count (in text, -x and JSON), and the totals mark it. (The last interval, which
// holds the run's final counts, once stopped the run with "internal error: map::at".)
TEST(Stat, IntervalsGoWithAnEventThatIsNotSupported) {
  for (const std::vector<std::string>& format :
       {std::vector<std::string>{}, {"-x", ","}, {"--json"}}) {
    std::vector<std::string> args = {"stat", "--quiet", "-I", "1", "-e", "instructions,dTLB-loads"};
    args.insert(args.end(), format.begin(), format.end());
    args.insert(args.end(), {"--", guest("bench_int"), "2"});
    const RunResult r = hpmsim(args);
    ASSERT_EQ(r.status(), 0) << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("instructions"), std::string::npos) << r.err;
    if (format.empty()) {
      EXPECT_NE(r.err.find("<not supported>      dTLB-loads"), std::string::npos) << r.err;
    }
  }
}

// Results record a digest of what the guest was given (arguments and environment), so two
// results can be told comparable: equal for the same inputs under run, stat and every sweep
// point (sweep passes --env-clear and --env on), different when one variable or argument
// differs.
TEST(Run, ResultsRecordADigestOfTheGuestsArgumentsAndEnvironment) {
  TempDir dir;
  const auto digest = [&](const std::vector<std::string>& env, const std::string& arg) {
    std::vector<std::string> args = {"run", "--quiet", "--stats-json",
                                     (dir.path() / "d.json").string(), "--env-clear"};
    args.insert(args.end(), env.begin(), env.end());
    args.insert(args.end(), {"--", guest("exit_status"), arg, "exit"});
    const RunResult r = hpmsim(args);
    EXPECT_EQ(r.status(), std::stoi(arg)) << r.err;
    return readJson(dir.path() / "d.json")["guest_inputs"].get<std::string>();
  };
  const std::string base = digest({"--env", "A=1"}, "0");
  EXPECT_EQ(base.size(), 16u) << base;
  EXPECT_EQ(digest({"--env", "A=1"}, "0"), base);
  EXPECT_NE(digest({"--env", "A=2"}, "0"), base);
  EXPECT_NE(digest({"--env", "A=1"}, "1"), base);
  EXPECT_NE(digest({}, "0"), base);
  const json stat = statJson({"-e", "instructions", "--env-clear", "--env", "A=1"},
                             {guest("exit_status"), "0", "exit"});
  EXPECT_EQ(stat["guest_inputs"], base);
  const RunResult sweep =
      hpmsim({"sweep", "--quiet", "--json", "--jobs", "1", "--set", "core.store_queue_entries=8,20",
              "--env-clear", "--env", "A=1", "--", guest("exit_status"), "0", "exit"});
  ASSERT_EQ(sweep.status(), 0) << sweep.err;
  for (const json& point : json::parse(sweep.out)) EXPECT_EQ(point["guest_inputs"], base);
}

// perf's names are never unknown events: cpu-cycles (perf's alias) and ref-cycles (the clock is
// never scaled) count the cycles; a perf name whose events a machine has no model for (sunfire's
// instructions: it has no counter unit) is <not supported>; -d and -dd append perf's detailed
// events, each level to the one before, after the events asked for.
TEST(Stat, PerfNamesAreNeverUnknownAndDetailedLevelsAddPerfsDetailedEvents) {
  const json cycles = statJson({"-e", "cpu-cycles,ref-cycles,cycles"}, {guest("count_loop")});
  EXPECT_GT(cycles["counts"]["cycles"].get<u64>(), 0u);
  EXPECT_EQ(cycles["counts"]["cpu-cycles"], cycles["counts"]["cycles"]);
  EXPECT_EQ(cycles["counts"]["ref-cycles"], cycles["counts"]["cycles"]);
  const RunResult sunfire =
      hpmsim({"stat", "--machine", "sunfire", "-e", "instructions", "--", guest("count_loop")});
  ASSERT_EQ(sunfire.status(), 0) << sunfire.err;
  EXPECT_NE(sunfire.err.find("<not supported>      instructions"), std::string::npos)
      << sunfire.err;
  const auto names = [](const json& j) {
    std::vector<std::string> out;
    for (const json& e : j["events"]) out.push_back(e["event"].get<std::string>());
    return out;
  };
  const json d = statJson({"-d", "-e", "instructions"}, {guest("count_loop")});
  EXPECT_EQ(names(d),
            (std::vector<std::string>{"instructions", "L1-dcache-loads", "L1-dcache-load-misses",
                                      "LLC-loads", "LLC-load-misses"}));
  const json dd = statJson({"-dd"}, {guest("count_loop")});
  const std::vector<std::string> all = names(dd);
  ASSERT_EQ(all.size(), 16u);
  EXPECT_EQ(all[0], "instructions");
  EXPECT_EQ(all[6], "L1-dcache-loads");
  EXPECT_EQ(all[15], "iTLB-load-misses");
  EXPECT_EQ(dd["counts"]["L1-icache-loads"].get<u64>() > 0, true);
  EXPECT_FALSE(dd["counts"].contains("dTLB-loads")) << "no model: <not supported>";
}

// In the warm-up mode the timing model's pipeline does not run: its events are "<not supported>"
// there, with a note naming the modes they count in, never a silent 0; what the warm-up mode
// keeps (instructions) counts as in the timing mode.
TEST(Stat, APipelineEventIsNotSupportedInTheWarmupModeNeverASilentZero) {
  const RunResult r = hpmsim(
      {"stat", "--mode", "warmup", "-e", "PEVT_XU_BR_TAKEN_COMMIT", "--", guest("count_loop")});
  ASSERT_EQ(r.status(), 0) << r.err;
  EXPECT_NE(r.err.find("hpmsim stat: PEVT_XU_BR_TAKEN_COMMIT counts in the timing and profile "
                       "modes only: <not supported> in the warmup mode"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("<not supported>      PEVT_XU_BR_TAKEN_COMMIT"), std::string::npos) << r.err;
  const json warm = statJson({"--mode", "warmup", "-e", "PEVT_INST_ALL,PEVT_XU_BR_TAKEN_COMMIT"},
                             {guest("count_loop")});
  const json timed = statJson({"-e", "PEVT_INST_ALL"}, {guest("count_loop")});
  EXPECT_EQ(warm["counts"]["PEVT_INST_ALL"], timed["counts"]["PEVT_INST_ALL"]);
  EXPECT_FALSE(warm["counts"].contains("PEVT_XU_BR_TAKEN_COMMIT"));
  EXPECT_EQ(warm["events"][1]["counter-value"], "<not supported>");
}

// --per-core splits each count by core; the cores' counts add up to the node's.
TEST(Stat, PerCoreCountsAddUpToTheNodes) {
  const json stat =
      statJson({"--per-core", "-e", "instructions,L1dMisses"}, {guest("node_mix"), "6"});
  ASSERT_TRUE(stat.contains("per_core"));
  u64 instructions = 0, misses = 0, busy = 0;
  for (const auto& [core, counts] : stat["per_core"].items()) {
    instructions += counts["instructions"].get<u64>();
    misses += counts["L1dMisses"].get<u64>();
    if (counts["instructions"].get<u64>() > 0) ++busy;
  }
  EXPECT_EQ(instructions, stat["counts"]["instructions"].get<u64>());
  EXPECT_EQ(misses, stat["counts"]["L1dMisses"].get<u64>());
  EXPECT_EQ(busy, 2u) << "six threads: four on core 0, two on core 1";
}

// events --generic lists every name stat takes besides native ones, with its definition on the
// machine: perf's names first (each resolves on bgq, or is a software or unsupported one), then
// the catalogue's generic events.
// --per-thread: a guest thread alone on its hardware thread gets exactly its own counts (the
// run's per-thread statistics); threads that shared one are counted together.
TEST(Stat, PerThreadCountsAreEachThreadsOwnWhenItHasAHardwareThreadAlone) {
  TempDir dir;
  fs::copy_file(guest("bench_omp"), dir.path() / "bench_omp");
  const std::vector<std::string> program = {"--env-clear", "--env",       "OMP_NUM_THREADS=8",
                                            "--",          "./bench_omp", "1"};
  std::vector<std::string> stat = {
      "stat", "--json", "-o", "stat.json", "--per-thread", "-e", "instructions,cycles"};
  stat.insert(stat.end(), program.begin(), program.end());
  ASSERT_EQ(hpmsim(stat, dir.path()).status(), 0);
  std::vector<std::string> run = {"run", "--stats-json", "run.json"};
  run.insert(run.end(), program.begin(), program.end());
  ASSERT_EQ(hpmsim(run, dir.path()).status(), 0);
  const json s = readJson(dir.path() / "stat.json");
  const json r = readJson(dir.path() / "run.json");
  std::map<u64, u64> truth;
  for (const json& t : r["threads"]) truth[t["tid"].get<u64>()] = t["instructions"].get<u64>();
  ASSERT_EQ(truth.size(), 8u);
  ASSERT_EQ(s["per_thread"].size(), 8u) << s["per_thread"].dump();
  u64 sum = 0;
  for (const json& g : s["per_thread"]) {
    ASSERT_EQ(g["tids"].size(), 1u) << g.dump();
    const u64 tid = g["tids"][0].get<u64>();
    EXPECT_EQ(g["counts"]["instructions"].get<u64>(), truth[tid]) << "tid " << tid;
    // Cycles are those its hardware thread ran it (the timing model's statistics of it: its
    // clock less its idle cycles, so a wait for another thread is not among them, as in perf).
    ASSERT_EQ(g["hardware_threads"].size(), 1u);
    const u64 hw = g["hardware_threads"][0].get<u64>();
    const json& t = r["timing"]["cores"][hw / 4]["threads"][hw % 4];
    EXPECT_EQ(g["counts"]["cycles"].get<u64>(),
              t["cycles"].get<u64>() - t["stalls"]["idle"].get<u64>())
        << "tid " << tid << " on hardware thread " << hw;
    sum += g["counts"]["instructions"].get<u64>();
  }
  EXPECT_EQ(sum, s["counts"]["instructions"].get<u64>());
}

TEST(Stat, PerThreadCountsThreadsThatShareAHardwareThreadTogether) {
  // bgp: four single-threaded cores for six threads; --cores 0,1 counts two of them.
  const RunResult r =
      hpmsim({"stat", "--machine", "bgp", "--cores", "0,1", "--per-thread", "-e", "instructions",
              "--env-clear", "--env", "OMP_NUM_THREADS=6", "--", guest("bench_omp"), "1"});
  ASSERT_EQ(r.status(), 0) << r.err;
  std::smatch a, b;
  ASSERT_TRUE(std::regex_search(r.err, a, std::regex(R"(bench_omp-1\+5 +([0-9,]+) +instructions)")))
      << r.err;
  ASSERT_TRUE(std::regex_search(r.err, b, std::regex(R"(bench_omp-2\+6 +([0-9,]+) +instructions)")))
      << r.err;
  std::smatch total;
  ASSERT_TRUE(std::regex_search(r.err, total, std::regex(R"(\n +([0-9,]+) +instructions)")));
  const auto value = [](std::string text) {
    std::erase(text, ',');
    return std::stoull(text);
  };
  EXPECT_EQ(value(a[1]) + value(b[1]), value(total[1]));
  EXPECT_NE(r.err.find("bench_omp-3        <not counted>      instructions"), std::string::npos)
      << r.err;
}

// Together an interval's reading moves a waiting hardware thread's cycles into later regions
// (a known defect): refused rather than wrong.
TEST(Stat, IntervalsAndPerRegionCountsAreRefusedTogether) {
  const RunResult r = hpmsim({"stat", "-I", "0.2", "--per-region", "-e", "instructions", "--",
                              guest("exit_status"), "0", "return"});
  EXPECT_EQ(r.status(), kUsage) << r.err;
  EXPECT_NE(r.err.find("-I and --per-region do not go together yet"), std::string::npos) << r.err;
}

// perf's raw events: rHEX is the native event of that number (BGPM's on bgq: 277 = 0x115 is
// PEVT_INST_ALL; on bgp the UPC-P input).
TEST(Stat, RawEventsAreTheNativeEventsOfThatNumber) {
  TempDir dir;
  const fs::path out = dir.path() / "s.json";
  ASSERT_EQ(hpmsim({"stat", "--json", "-o", out.string(), "-e", "r115,PEVT_INST_ALL", "--",
                    guest("exit_status"), "0", "return"})
                .status(),
            0);
  const json j = readJson(out);
  EXPECT_GT(j["counts"]["r115"].get<u64>(), 0u);
  EXPECT_EQ(j["counts"]["r115"], j["counts"]["PEVT_INST_ALL"]);
  const RunResult unknown =
      hpmsim({"stat", "-e", "r7ffff", "--", guest("exit_status"), "0", "return"});
  EXPECT_EQ(unknown.status(), kUsage);
  EXPECT_NE(unknown.err.find("unknown event 'r7ffff'"), std::string::npos) << unknown.err;
}

TEST(Events, GenericListsEveryPerfAndGenericNameWithItsNativeDefinition) {
  const RunResult r = hpmsim({"events", "--generic", "--json"});
  ASSERT_EQ(r.status(), 0) << r.err;
  const json out = json::parse(r.out);
  std::map<std::string, json> by_name;
  for (const json& n : out["names"]) by_name[n["name"].get<std::string>()] = n;
  EXPECT_EQ(by_name["cache-misses"]["natives"], json::array({"PEVT_CORE_L2_MISSES"}));
  EXPECT_EQ(by_name["instructions"]["natives"], json::array({"PEVT_INST_ALL"}));
  EXPECT_EQ(by_name["dTLB-loads"]["definition"], "<not supported> (no model of it here)");
  EXPECT_EQ(by_name["task-clock"]["kind"], "perf");
  EXPECT_EQ(by_name["L1dMisses"]["kind"], "generic");
  for (const json& n : out["names"]) {
    if (n["kind"] != "perf") continue;
    const std::string d = n["definition"];
    EXPECT_TRUE(!n["natives"].empty() || d.starts_with("<not supported> (no model") ||
                d.starts_with("the kernel"))
        << n.dump();
  }
}

// perf's cache-references and cache-misses are the last level's (the L2 here), not the L1's.
TEST(Stat, CacheMissesAreLastLevelMissesAsPerfMeansThem) {
  const json stat = statJson({"-e",
                              "cache-references,cache-misses,CoreL2Misses,CoreL2Reads,"
                              "CoreL2Writes,L1dMisses"},
                             {guest("node_mix"), "4"});
  const json& c = stat["counts"];
  EXPECT_EQ(c["cache-misses"], c["CoreL2Misses"]);
  EXPECT_EQ(c["cache-references"].get<u64>(),
            c["CoreL2Reads"].get<u64>() + c["CoreL2Writes"].get<u64>());
  EXPECT_LT(c["cache-misses"].get<u64>(), c["L1dMisses"].get<u64>());
  // LLC-load-misses: loads only, the reads that missed (reads less their hits); the writes'
  // misses are the rest of cache-misses.
  const json loads = statJson({"-e", "LLC-load-misses,CoreL2Reads,CoreL2Hits,CoreL2Misses"},
                              {guest("node_mix"), "4"});
  const json& l = loads["counts"];
  EXPECT_EQ(l["LLC-load-misses"].get<u64>(),
            l["CoreL2Reads"].get<u64>() - l["CoreL2Hits"].get<u64>());
  EXPECT_LT(l["LLC-load-misses"].get<u64>(), l["CoreL2Misses"].get<u64>());
  const RunResult generic = hpmsim({"events", "--generic"});
  EXPECT_NE(generic.out.find("PEVT_CORE_L2_READS - PEVT_CORE_L2_HITS"), std::string::npos)
      << generic.out;
}

// An interval's reading is taken once every hardware thread has reached its boundary and none
// has run past it: on UPC-P (no sweep lag) the cycles counted by a boundary B are B, less at
// most the stall of an instruction waiting across B (its stall cycles are signalled when it
// issues), and never more.
TEST(Stat, IntervalReadingsNeverCountPastTheirBoundary) {
  const u64 period = 20000;
  const json stat = statJson({"--machine", "bgp", "-e", "PU0_CYCLES,PU0_INSTRUCTIONS", "--interval",
                              std::to_string(period)},
                             {guest("v_core"), "int_chain", "20000"});
  const json& intervals = stat["intervals"];
  ASSERT_GT(intervals.size(), 4u);
  u64 boundary = 0;
  for (const json& row : intervals) {
    // The last interval ends with the run, before its boundary: its reading is the final one.
    boundary = std::min(boundary + period, stat["cycles_simulated"].get<u64>());
    ASSERT_EQ(row["cycle"].get<u64>(), boundary);
    const u64 cycles = row["cumulative"]["PU0_CYCLES"].get<u64>();
    EXPECT_LE(cycles, boundary);
    EXPECT_GE(cycles + 1000, boundary) << "at most one instruction's stall behind";
    EXPECT_LE(row["cumulative"]["PU0_INSTRUCTIONS"].get<u64>(), cycles + 1)
        << "single issue: at most one instruction per cycle";
  }
}

TEST(Stat, PerRegionCountsOnUpcPEqualTheRegionsInstructions) {
  // UPC-P reads exactly at any cycle: a region's count is exact.
  const std::vector<std::string> program = {guest("v_core"), "int_chain", "2000"};
  const json stat = statJson(
      {"--machine", "bgp", "--cores", "0,1", "-e", "instructions", "--per-region"}, program);
  const json run = runStats({"--machine", "bgp"}, program);
  ASSERT_FALSE(run["regions"].empty());
  for (const json& region : run["regions"]) {
    const std::string id = std::to_string(region["id"].get<u64>());
    EXPECT_EQ(stat["regions"][id]["instructions"], region["instructions"]) << "region " << id;
  }
}

TEST(Stat, PerRegionCountsOnUpcQLagByAtMostTheSweep) {
  // UPC-Q's readable value is the one of the last sweep visit (upcq.punit.sweep.period = 800
  // cycles): each marker's reading misses at most the instructions of that many cycles, two
  // pipes' worth per cycle on one core.
  const std::vector<std::string> program = {guest("v_core"), "int_chain", "2000"};
  const json stat = statJson({"-e", "instructions", "--per-region"}, program);
  const json run = runStats({}, program);
  ASSERT_FALSE(run["regions"].empty());
  for (const json& region : run["regions"]) {
    const std::string id = std::to_string(region["id"].get<u64>());
    const auto counted = stat["regions"][id]["instructions"].get<long long>();
    const auto truth = region["instructions"].get<long long>();
    EXPECT_LE(std::llabs(counted - truth), 2 * 800 * 2) << "region " << id;
    EXPECT_GT(counted, truth / 2) << "region " << id;
  }
}

}  // namespace

namespace {

// The files directly in `dir`, by name.
std::set<std::string> filesIn(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename());
  return names;
}

}  // namespace

// --output-dir DIR puts every file a run writes in DIR, made if missing (relative output paths
// are taken in it, absolute ones are kept); the profile mode writes its CSVs only when asked
// (--profile-prefix) or into DIR, never into the current folder unasked.
TEST(Run, OutputDirHoldsEveryFileTheRunWritesAndTheProfileIsWrittenOnlyWhenAsked) {
  TempDir dir;
  const fs::path out = dir.path() / "results" / "amg";
  const fs::path elsewhere = dir.path() / "kept.json";
  const RunResult r =
      hpmsim({"run", "--quiet", "--mode", "profile", "--output-dir", out.string(), "--stats-json",
              "stats.json", "--stats-text", elsewhere.string(), "--report", "run.html", "--trace",
              "trace.json", "--", guest("amg"), "6", "1"},
             dir.path());
  ASSERT_EQ(r.status(), 0) << r.err;
  EXPECT_EQ(filesIn(out),
            (std::set<std::string>{"stats.json", "run.html", "trace.json",
                                   "hpmsim-profile-samples.csv", "hpmsim-profile-functions.csv"}));
  EXPECT_EQ(filesIn(dir.path()), (std::set<std::string>{"results", "kept.json"}));

  TempDir plain;
  const RunResult unasked = hpmsim(
      {"run", "--quiet", "--mode", "profile", "--report", "r.html", "--", guest("amg"), "6", "1"},
      plain.path());
  ASSERT_EQ(unasked.status(), 0) << unasked.err;
  EXPECT_EQ(filesIn(plain.path()), (std::set<std::string>{"r.html"}));
  EXPECT_NE(unasked.err.find("--profile-prefix or --output-dir writes them"), std::string::npos)
      << unasked.err;
  // The report still draws the profile.
  std::ifstream page(plain.path() / "r.html");
  const std::string html((std::istreambuf_iterator<char>(page)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("profile-samples.csv"), std::string::npos);
}

TEST(Stat, OutputDirHoldsTheReportTheTraceAndTheCounts) {
  TempDir dir;
  const RunResult r =
      hpmsim({"stat", "--quiet", "--output-dir", "out", "-o", "counts.txt", "--report", "stat.html",
              "--trace", "trace.json", "-I", "1", "--", guest("bench_int"), "2"},
             dir.path());
  ASSERT_EQ(r.status(), 0) << r.err;
  EXPECT_EQ(filesIn(dir.path() / "out"),
            (std::set<std::string>{"counts.txt", "stat.html", "trace.json"}));
  EXPECT_EQ(filesIn(dir.path()), (std::set<std::string>{"out"}));
}

// The interconnect tools take --output-dir too: their report (-o) and files (--csv) go there.
TEST(InterconnectTools, OutputDirHoldsTheReportAndTheCsv) {
  TempDir dir;
  const RunResult r =
      hpmsim({"busstat", "--quiet", "--machine", "bgq", "--distribution", "--output-dir", "out",
              "-o", "dist.txt", "--csv", "dist.csv", "--", guest("node_mix"), "2"},
             dir.path());
  ASSERT_EQ(r.status(), 0) << r.err;
  EXPECT_EQ(filesIn(dir.path() / "out"), (std::set<std::string>{"dist.txt", "dist.csv"}));
  EXPECT_EQ(filesIn(dir.path()), (std::set<std::string>{"out"}));
}
