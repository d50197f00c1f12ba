// The guest comparison harness: runs our guest programs under qemu-riscv64 (with our
// instruction-counting plugin, tests/qemu/insn_count.c) and under `hpmsim run`, on the same
// binary with the same arguments, environment and stdin, each run in its own fresh working
// directory, and holds the two against each other. Test names state the rule:
//
//   GuestCompare/QemuBaseline.<case>  the oracle itself: qemu gives the case's expected exit
//                                     status or signal, no internal check failed, and two qemu
//                                     runs agree on output and (single-threaded cases)
//                                     instruction count
//   GuestCompare/MatchesQemu.<case>   hpmsim's stdout equals qemu's; stderr equals it after
//                                     removing hpmsim's "hpmsim: " report lines and qemu's
//                                     "qemu: uncaught target signal" line; the exit status is the
//                                     same (qemu dying of signal S = hpmsim exiting 128+S, with a
//                                     "hpmsim: " report); and, for single-threaded cases, the
//                                     instruction counts agree (below). qemu runs a program's
//                                     threads in parallel on the host, so the counts of a
//                                     multi-threaded case are not compared with it.
//   GuestCompare/Deterministic.<case> hpmsim gives the expected status with no internal check
//                                     failed, and two runs give the same output, status, total
//                                     count and every thread's count. Cases whose output
//                                     depends on simulated time, the machine or Linux behaviour
//                                     qemu-user lacks have only this test.
//   HpmsimMachine/ReportsTheMachine.<case>  a program reports the machine it runs on (bgq: 64
//                                     hardware threads, bgp: 4) and creates the threads it must
//   HpmsimSandbox.<rule>              escape attempts from the --root directory fail and leave
//                                     the host outside it unchanged; a bad root is an error
//   HpmsimTime.<rule>                 simulated wall-clock time, and --host-time's
//   HpmsimFaultReport/ReportsTheDeath.<mode>  a guest killed by a signal gets a report naming
//                                     the signal, thread, pc and symbol, address, instruction
//   HpmsimRun/RefusesBadInput.<kind>  a program hpmsim cannot run is refused with an exit
//                                     status in 1..123 and a message naming the problem
//   QemuPlugin/<rule>.<program>       the plugin's counts on programs with known counts
//
// How the counts are compared: the plugin counts an instruction when it begins executing, so
// it counts an instruction that faults (a store to an unmapped page, an illegal encoding,
// ebreak, a misaligned AMO) although it does not retire; hpmsim counts retired instructions
// only. Every ecall is counted by both (a system call completes, so its ecall retires in
// hpmsim; the final exit_group's ecall included; qemu counts it as begun). So
//   hpmsim.instructions == qemu.instructions - case.faulting_instructions
// where faulting_instructions is the number of faulting instructions the case executes (1 for a
// program killed by a fault, the number of recovered faults for one that handles SIGSEGV, 0
// otherwise).
#include <elf.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/process.h"

namespace fs = std::filesystem;

namespace {

// ---- Configuration from the build ------------------------------------------------------------

const char* const kHpmsim = HPM_TEST_HPMSIM;
const char* const kQemu = HPM_TEST_QEMU;
const char* const kPlugin = HPM_TEST_QEMU_PLUGIN;
const char* const kGuestBinDir = HPM_TEST_GUEST_BIN_DIR;

// Generous limits: a hung child is killed and the test fails, but a slow (sanitizer) build of
// the simulator must still finish the largest case.
constexpr std::chrono::seconds kQemuTimeout{60};
constexpr std::chrono::seconds kHpmsimTimeout{300};

// The environment every guest gets (plus per-case extras): fixed and small, never the host's.
const std::vector<std::string> kBaseEnv = {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C"};

// hpmsim runs in the functional mode (one instruction per cycle, a fixed schedule of quanta):
// these tests hold its functional behaviour against qemu and against itself; the timing modes
// have their own tests, and would make this label several times slower. A case whose own
// arguments name a mode (hpmsim_args) runs in that one instead.
const std::vector<std::string> kHpmsimRun = {"run", "--mode", "functional"};

using hpm::test::runProcess;
using hpm::test::RunResult;
using hpm::test::TempDir;

// ---- The cases -------------------------------------------------------------------------------

struct Outcome {
  bool by_signal = false;
  int value = 0;  // exit status, or signal number
};
Outcome exits(int code) {
  return {false, code};
}
Outcome dies(int sig) {
  return {true, sig};
}

struct GuestCase {
  std::string name;     // test name: the program, plus a variant
  std::string program;  // file name in the guest bin directory
  std::vector<std::string> args;
  Outcome expected;                // under qemu, and under hpmsim (a signal S as status 128+S)
  uint64_t faulting_instructions;  // counted by qemu, not retired by hpmsim
  std::string input;               // stdin bytes
  std::vector<std::string> extra_env;
  // Multi-threaded: qemu runs the threads in parallel on the host, so its instruction count
  // depends on the host's schedule; only output and status are compared with it. hpmsim's
  // counts, per thread, must still be the same on every run.
  bool threaded = false;
  // Compared with qemu at all; false for programs whose output depends on simulated time, the
  // machine or the sandbox (they run under hpmsim only, with its default kernel settings).
  bool vs_qemu = true;
  std::vector<std::string> hpmsim_args = {};  // before "--", e.g. {"--machine", "bgp"}
};

std::string stdinText() {
  std::string s = "5 10 -20 30 400000 7\n";
  s += "First line of text\n";
  s += "\n";
  s += std::string(150, 'x') + " a line longer than the reader's buffer\n";
  s += "bytes above 0x7f: \xc3\xa9\xe2\x82\xac\xff\n";
  s += "\t tabs and spaces \t\n";
  for (int i = 0; i < 100; ++i) s += "line " + std::to_string(i) + "\n";
  s += "a final line without a newline";
  return s;
}

// The compute-node kernel's programs (issue 3).
void addKernelCases(std::vector<GuestCase>& c) {
  auto threaded = [&](const std::string& name, const std::string& program,
                      std::vector<std::string> args = {}, std::vector<std::string> env = {},
                      Outcome expected = exits(0)) {
    GuestCase gc{name, program, std::move(args), expected, 0, "", std::move(env)};
    gc.threaded = true;
    c.push_back(gc);
  };
  // Threads and synchronisation, compared with qemu on output and status.
  for (const char* p :
       {"pthread_mutex", "pthread_cond", "producer_consumer", "pthread_barrier_rwlock",
        "pthread_sem_spin_once", "thread_tls", "pthread_cancel", "pthread_join_detach", "futex_raw",
        "poll_pipes", "sig_threads", "cxx_threads", "cxx_thread_local", "fp_flags_threads",
        "time_edges"}) {
    threaded(p, p);
  }
  threaded("pthread_mutex_robust", "pthread_mutex", {"robust"});
  threaded("producer_consumer_capacity1", "producer_consumer", {"1"});
  threaded("pthread_join_detach_main_exit", "pthread_join_detach", {"main_exit"});
  threaded("pthread_join_detach_exit_in_thread", "pthread_join_detach", {"exit_in_thread"}, {},
           exits(7));
  threaded("many_threads_100", "many_threads", {"100"});
  threaded("many_threads_64", "many_threads", {"64"});
  threaded("atomics_threads_8", "atomics_threads", {"8"});
  threaded("atomics_threads_64", "atomics_threads", {"64"});
  // Transactions through libtm (docs/timing.md "Transactional memory"): under qemu and in the
  // functional mode there is no device and each runs irrevocably under the lock; in the timing
  // mode they run speculatively on bgq's L2, with conflicts, rollbacks and retries (and, with
  // more threads than hardware threads, preemptions): the output is the same.
  threaded("tm_counters", "tm_counters", {"4", "100"});
  for (const char* threads : {"8", "64"}) {
    GuestCase gc{std::string("tm_counters_timing_") + threads,
                 "tm_counters",
                 {threads, "40"},
                 exits(0),
                 0,
                 "",
                 {}};
    gc.threaded = true;
    gc.hpmsim_args = {"--mode", "timing"};
    c.push_back(gc);
  }
  // Threads that wait by spinning (the functional mode parks them: kernel/polling.cpp).
  for (const char* mode : {"flags", "countdown", "yield", "signal"}) {
    threaded(std::string("spin_wait_") + mode, "spin_wait", {mode});
  }
  for (const char* n : {"1", "2", "4", "16", "64"}) {
    for (const char* p : {"omp_loops", "omp_tasks"}) {
      threaded(std::string(p) + "_threads" + n, p, {}, {std::string("OMP_NUM_THREADS=") + n});
    }
  }
  // Signals in one thread: instruction counts are compared too. sig_context's four handled
  // faults begin under qemu without retiring under hpmsim.
  c.push_back({"sig_masks", "sig_masks", {}, exits(0), 0, "", {}});
  c.push_back({"sig_context", "sig_context", {}, exits(0), 4, "", {}});
  c.push_back({"fault_report_ill_main", "fault_report", {"ill_main"}, dies(SIGILL), 1, "", {}});
  threaded("fault_report_segv_thread", "fault_report", {"segv_thread"}, {}, dies(SIGSEGV));
  threaded("fault_report_bus_thread", "fault_report", {"bus_thread"}, {}, dies(SIGBUS));
  threaded("fault_report_usr1_thread", "fault_report", {"usr1_thread"}, {}, dies(SIGUSR1));
  c.push_back({"fault_report_trap_main", "fault_report", {"trap_main"}, dies(SIGTRAP), 1, "", {}});

  // Under hpmsim only: simulated time, the machine's own numbers, Linux behaviour qemu-user
  // 7.2 lacks (sa_mask on riscv64, robust futex lists).
  auto hpmsimOnly = [&](const std::string& name, const std::string& program,
                        std::vector<std::string> args, std::vector<std::string> hpmsim_args,
                        std::vector<std::string> env = {}) {
    GuestCase gc{name, program, std::move(args), exits(0), 0, "", std::move(env)};
    gc.threaded = true;
    gc.vs_qemu = false;
    gc.hpmsim_args = std::move(hpmsim_args);
    c.push_back(gc);
  };
  hpmsimOnly("sig_masks_sa_mask", "sig_masks", {"sa_mask"}, {});
  // FP flags stay with their hart when the timing mode switches sibling threads every few
  // instructions (the host's flag register is shared by every hart it runs), and the profile
  // mode's samples, computed in host floating point inside the run loop, raise none.
  hpmsimOnly("fp_flags_threads_timing", "fp_flags_threads", {}, {"--mode", "timing"});
  hpmsimOnly("fp_flags_threads_profile", "fp_flags_threads", {},
             {"--mode", "profile", "--profile-interval", "50"});
  // The kernel's robust futex lists (the comparison runs turn them off, as qemu lacks them).
  hpmsimOnly("pthread_mutex_robust_kernel_lists", "pthread_mutex", {"robust"}, {});
  hpmsimOnly("sim_time", "sim_time", {}, {});
  // Random system calls with hostile arguments: answered, never an internal error or a crash
  // (never under qemu: its calls reach the host). And the address-space edges the storm found,
  // each with Linux's answer (qemu-user 7.2 gives ENOMEM where Linux's mremap gives EINVAL).
  for (const char* seed : {"1", "6", "7"}) {
    hpmsimOnly(std::string("syscall_storm_") + seed, "syscall_storm", {seed, "20000"},
               {"--mode", "functional"});
  }
  hpmsimOnly("syscall_storm_timing", "syscall_storm", {"19", "5000"}, {"--mode", "timing"});
  hpmsimOnly("memory_map_edges", "memory_map_edges", {}, {});
  // Device windows (qemu-user has no /dev/hpm; the timing modes have the counter devices):
  // 70,000 mmaps, all taken until Linux's vm.max_map_count (65,530 mappings), ENOMEM after;
  // mprotect(PROT_EXEC) refused as mmap does.
  hpmsimOnly("mmap_device_limit", "mmap_device_limit", {}, {"--mode", "timing"});
  // The node's memory bounds the guest's (qemu-user has the host's).
  hpmsimOnly("memory_limit_256", "memory_limit", {}, {"--set", "node.memory_mib=256"});
  hpmsimOnly("memory_limit_1024_timing", "memory_limit", {},
             {"--set", "node.memory_mib=1024", "--mode", "timing"});
  // The random code's results do not depend on the mode (the qemu comparison runs functional).
  hpmsimOnly("isa_random_timing", "isa_random", {"1", "300"}, {"--mode", "timing"});
  // getrandom's bytes: the same on every run (qemu's are the host's).
  hpmsimOnly("syscalls_raw_random", "syscalls_raw", {"random"}, {});
  hpmsimOnly("sim_time_bgp", "sim_time", {}, {"--machine", "bgp"});
  hpmsimOnly("timers_itimer", "timers_itimer", {}, {});
  hpmsimOnly("timers_posix", "timers_posix", {}, {});
  hpmsimOnly("timers_posix_bgp", "timers_posix", {}, {"--machine", "bgp"});
  for (const char* m : {"bgq", "bgp"}) {
    const std::vector<std::string> machine = {"--machine", m};
    hpmsimOnly(std::string("sched_affinity_") + m, "sched_affinity", {}, machine);
    hpmsimOnly(std::string("dev_proc_sys_") + m, "dev_proc_sys", {}, machine);
    hpmsimOnly(std::string("omp_loops_default_") + m, "omp_loops", {}, machine);
    hpmsimOnly(std::string("omp_tasks_default_") + m, "omp_tasks", {}, machine);
    hpmsimOnly(std::string("many_threads_100_") + m, "many_threads", {"100"}, machine);
  }
}

std::vector<GuestCase> guestCases() {
  std::vector<GuestCase> c;
  auto ok = [&](const std::string& program, std::vector<std::string> args = {},
                std::string variant = "") {
    c.push_back({variant.empty() ? program : program + "_" + variant,
                 program,
                 std::move(args),
                 exits(0),
                 0,
                 "",
                 {}});
  };
  for (const char* p :
       {"stdio_printf",   "files",           "fd_ops",         "math_libm",
        "malloc_stress",  "strings",         "qsort_bsearch",  "setjmp_longjmp",
        "deep_recursion", "atomics",         "self_modifying", "big_code",
        "mmap_anon",      "brk_sbrk",        "sys_queries",    "syscalls_raw",
        "static_pie",     "cxx_exceptions",  "cxx_iostreams",  "cxx_virtual_templates",
        "cxx_stl",        "cxx_static_init", "isa_int",        "isa_mem",
        "isa_amo",        "isa_compressed",  "isa_csr",        "isa_fp_cvt",
        "isa_fp_misc"}) {
    ok(p);
  }
  // Fortran, built with the guest SDK's hpm-f90.
  ok("fortran_basics");
  ok("isa_fp_arith", {"s"}, "s");
  ok("isa_fp_arith", {"d"}, "d");
  ok("isa_fp_fma", {"s"}, "s");
  ok("isa_fp_fma", {"d"}, "d");
  // Random straight-line code from random operands (every register, fcsr and memory digested).
  for (const char* seed : {"1", "2", "3", "4"}) {
    ok("isa_random", {seed, "300"}, std::string("seed") + seed);
  }
  // The workloads at small sizes (their default sizes are for benchmarking).
  ok("demo", {"24"}, "small");
  ok("bench_int", {"2"}, "small");
  ok("bench_mem", {"2"}, "small");
  ok("bench_fp", {"24"}, "small");
  // The L1P list prefetcher's calls (libl1p): no device in the functional mode and under qemu,
  // so they do nothing on both sides, and the walks' checksums agree.
  ok("list_prefetch", {"512"}, "small");
  // ... and the stream prefetcher's (L1P_SetStreamPolicy, ...): the same, sums of zeros.
  ok("l1p_stream", {"1", "16"}, "small");
  // The published-figures micro-benchmarks (docs/timing.md), single-threaded kernels.
  ok("mem_figures", {"chase", "64", "64", "64"}, "chase");
  ok("mem_figures", {"fresh", "64"}, "fresh");
  ok("mem_figures", {"seq", "4096"}, "seq");

  c.push_back({"exit_status_0_return", "exit_status", {"0", "return"}, exits(0), 0, "", {}});
  c.push_back({"exit_status_42_exit", "exit_status", {"42", "exit"}, exits(42), 0, "", {}});
  c.push_back({"exit_status_255_exit", "exit_status", {"255", "_exit"}, exits(255), 0, "", {}});
  c.push_back({"exit_status_3_return", "exit_status", {"3", "return"}, exits(3), 0, "", {}});
  c.push_back({"exit_status_256_exit", "exit_status", {"256", "exit"}, exits(0), 0, "", {}});
  c.push_back({"args_env",
               "args_env",
               {"one", "two words", "", "tab\there", "\xc3\xbcnicode", "--flag=value"},
               exits(0),
               0,
               "",
               {"EXTRA=extra value", "EMPTY="}});
  c.push_back({"stdin_read", "stdin_read", {}, exits(0), 0, stdinText(), {}});
  c.push_back({"startup_stack", "startup_stack", {"one", "two words"}, exits(0), 0, "", {"X=1"}});
  c.push_back({"signals", "signals", {}, exits(0), 4, "", {}});
  c.push_back({"segfault", "segfault", {}, dies(SIGSEGV), 1, "", {}});
  // Four handled SIGSEGVs (their si_codes are compared), each a faulting instruction.
  c.push_back({"linux_edges", "linux_edges", {}, exits(0), 4, "", {}});
  for (const char* v : {"zero32", "zero16", "ones", "csr", "unimp"}) {
    c.push_back({std::string("illegal_insn_") + v, "illegal_insn", {v}, dies(SIGILL), 1, "", {}});
  }
  c.push_back({"ebreak", "ebreak", {"ebreak"}, dies(SIGTRAP), 1, "", {}});
  c.push_back({"ebreak_compressed", "ebreak", {"c.ebreak"}, dies(SIGTRAP), 1, "", {}});
  c.push_back({"misaligned_amo", "misaligned_amo", {}, dies(SIGBUS), 1, "", {}});
  for (const char* v : {"static5", "static6", "dyn5", "dyn6", "dyn7"}) {
    c.push_back({std::string("isa_fp_bad_rm_") + v, "isa_fp_bad_rm", {v}, dies(SIGILL), 1, "", {}});
  }
  // std::terminate -> abort() -> tgkill: SIGABRT from a completed system call, no fault.
  c.push_back(
      {"cxx_exceptions_uncaught", "cxx_exceptions", {"uncaught"}, dies(SIGABRT), 0, "", {}});
  addKernelCases(c);
  return c;
}

// ---- Running a case under each side ----------------------------------------------------------

struct SideResult {
  RunResult run;
  std::optional<uint64_t> instructions;
  std::string count_error;  // why `instructions` is missing
  // hpmsim only: each thread's (tid, instructions), from the statistics' `threads` list.
  std::vector<std::pair<uint64_t, uint64_t>> per_thread;
};

std::string guestPath(const std::string& program) {
  return (fs::path(kGuestBinDir) / program).string();
}

std::vector<std::string> caseEnv(const GuestCase& gc) {
  std::vector<std::string> env = kBaseEnv;
  env.insert(env.end(), gc.extra_env.begin(), gc.extra_env.end());
  return env;
}

using hpm::test::readFile;

// The plugin's file: text at a normal exit ("instructions N" first), or its raw counters
// (little-endian, "HPMICNT1", then the layout described in insn_count.c) if qemu died of a
// signal, since qemu-user 7.2 runs no atexit callback then.
std::optional<uint64_t> parseQemuCount(const std::string& data, std::string& error) {
  if (data.rfind("instructions ", 0) == 0) {
    return std::stoull(data.substr(13));
  }
  if (data.size() >= 64 && data.compare(0, 8, "HPMICNT1") == 0) {
    auto u64 = [&](size_t off) {
      uint64_t v = 0;
      std::memcpy(&v, data.data() + off, 8);
      return v;
    };
    uint32_t max_vcpus = 0;
    std::memcpy(&max_vcpus, data.data() + 8, 4);
    if (data.size() < 64 + size_t{max_vcpus} * 64) {
      error = "raw count file too short";
      return std::nullopt;
    }
    uint64_t total = u64(16) + u64(24);
    for (uint32_t i = 0; i < max_vcpus; ++i) total += u64(64 + size_t{i} * 64);
    return total;
  }
  error = data.empty() ? "count file missing or empty" : "count file not understood";
  return std::nullopt;
}

SideResult runQemu(const GuestCase& gc) {
  TempDir dir;
  fs::path cwd = dir.path() / "cwd";
  fs::create_directory(cwd);
  fs::path count = dir.path() / "count";
  std::vector<std::string> argv = {
      kQemu, "-plugin", std::string(kPlugin) + ",outfile=" + count.string(), guestPath(gc.program)};
  argv.insert(argv.end(), gc.args.begin(), gc.args.end());
  // qemu-user 7.2 hands its environment to the guest in reverse order (it builds the guest's
  // list by prepending), so it gets the case's environment reversed: the guest then sees the
  // same envp, in the same order, as under hpmsim (which passes its environment through).
  std::vector<std::string> env = caseEnv(gc);
  std::reverse(env.begin(), env.end());
  SideResult r;
  r.run = runProcess(argv, env, gc.input, cwd, kQemuTimeout);
  r.instructions = parseQemuCount(readFile(count), r.count_error);
  return r;
}

SideResult runHpmsim(const GuestCase& gc) {
  TempDir dir;
  fs::path cwd = dir.path() / "cwd";
  fs::create_directory(cwd);
  fs::path stats = dir.path() / "stats.json";
  std::vector<std::string> argv = {kHpmsim};
  const bool own_mode =
      std::find(gc.hpmsim_args.begin(), gc.hpmsim_args.end(), "--mode") != gc.hpmsim_args.end();
  argv.insert(argv.end(), kHpmsimRun.begin(), own_mode ? kHpmsimRun.begin() + 1 : kHpmsimRun.end());
  argv.insert(argv.end(), {"--stats-json", stats.string()});
  // qemu-user 7.2 has no set_robust_list, so glibc's start-up takes a different (one
  // instruction shorter) path under it; our kernel can answer the same way for the comparison.
  // Cases not compared with qemu run with the kernel's defaults.
  if (gc.vs_qemu) {
    argv.insert(argv.end(), {"--set", "kernel.robust_futex_lists=false"});
  }
  argv.insert(argv.end(), gc.hpmsim_args.begin(), gc.hpmsim_args.end());
  argv.push_back("--");
  argv.push_back(guestPath(gc.program));
  argv.insert(argv.end(), gc.args.begin(), gc.args.end());
  SideResult r;
  r.run = runProcess(argv, caseEnv(gc), gc.input, cwd, kHpmsimTimeout);
  std::string text = readFile(stats);
  if (text.empty()) {
    r.count_error = "no statistics written to --stats-json";
    return r;
  }
  try {
    auto j = nlohmann::json::parse(text);
    r.instructions = j.at("instructions").get<uint64_t>();
    for (const auto& t : j.at("threads")) {
      r.per_thread.emplace_back(t.at("tid").get<uint64_t>(), t.at("instructions").get<uint64_t>());
    }
  } catch (const std::exception& e) {
    r.count_error = std::string("statistics JSON: ") + e.what();
  }
  return r;
}

// ---- Comparing -------------------------------------------------------------------------------

std::string withoutLinesStartingWith(const std::string& text, const std::string& prefix) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) continue;
    out += line;
    if (!in.eof()) out += '\n';
  }
  return out;
}

// A short description of where two outputs first differ (the outputs can be megabytes).
std::string firstDifference(const std::string& a, const std::string& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  if (i == a.size() && i == b.size()) return "identical";
  size_t line_no =
      1 + static_cast<size_t>(std::count(a.begin(), a.begin() + static_cast<long>(i), '\n'));
  size_t start = a.rfind('\n', i == 0 ? 0 : i - 1);
  start = start == std::string::npos ? 0 : start + 1;
  auto lineAt = [&](const std::string& s) {
    size_t end = s.find('\n', start);
    std::string l = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
    return l.size() > 300 ? l.substr(0, 300) + "..." : l;
  };
  std::ostringstream os;
  os << "sizes " << a.size() << " vs " << b.size() << ", first difference at byte " << i
     << " (line " << line_no << "):\n  expected: " << (start <= a.size() ? lineAt(a) : "")
     << "\n  actual:   " << (start <= b.size() ? lineAt(b) : "");
  return os.str();
}

std::string excerpt(const std::string& s) {
  return s.size() > 2000
             ? s.substr(0, 2000) + "\n[... " + std::to_string(s.size() - 2000) + " more bytes]"
             : s;
}

bool outcomeIs(const RunResult& r, const Outcome& o) {
  return o.by_signal ? (r.signaled() && r.signal() == o.value)
                     : (r.exited() && r.exit_code() == o.value);
}

std::string outcomeText(const Outcome& o) {
  return o.by_signal
             ? "killed by signal " + std::to_string(o.value) + " (" + strsignal(o.value) + ")"
             : "exit status " + std::to_string(o.value);
}

// The rule for a guest killed by signal S: qemu dies of S itself; hpmsim exits with 128 + S.
bool sameStatus(const RunResult& qemu, const RunResult& sim) {
  if (!sim.exited()) return false;  // hpmsim itself must never die of a signal
  if (qemu.exited()) return sim.exit_code() == qemu.exit_code();
  return qemu.signaled() && sim.exit_code() == 128 + qemu.signal();
}

std::string threadCounts(const SideResult& r) {
  std::string text;
  for (const auto& [tid, n] : r.per_thread) {
    text += (text.empty() ? "" : " ") + std::to_string(tid) + ":" + std::to_string(n);
  }
  return "[" + text + "]";
}

// ---- The tests -------------------------------------------------------------------------------

class QemuBaseline : public testing::Test {
 public:
  explicit QemuBaseline(GuestCase gc) : gc_(std::move(gc)) {}
  void TestBody() override {
    SideResult a = runQemu(gc_);
    ASSERT_TRUE(outcomeIs(a.run, gc_.expected)) << "qemu: " << a.run.describe() << ", expected "
                                                << outcomeText(gc_.expected) << "\nstderr:\n"
                                                << excerpt(a.run.err);
    EXPECT_EQ(a.run.err.find("CHECK failed"), std::string::npos) << excerpt(a.run.err);
    EXPECT_FALSE(a.run.out.empty()) << "every case prints something";
    ASSERT_TRUE(a.instructions.has_value()) << a.count_error;
    EXPECT_GT(*a.instructions, 100u);
    // The oracle must be deterministic, or comparing against it would be meaningless. (For a
    // multi-threaded program only its output: qemu's threads run in parallel on the host.)
    SideResult b = runQemu(gc_);
    EXPECT_EQ(a.run.out, b.run.out) << firstDifference(a.run.out, b.run.out);
    EXPECT_EQ(a.run.err, b.run.err);
    EXPECT_EQ(a.run.wait_status, b.run.wait_status);
    if (!gc_.threaded) {
      EXPECT_EQ(a.instructions, b.instructions) << "qemu's count varies between runs";
    }
  }

 private:
  GuestCase gc_;
};

class MatchesQemu : public testing::Test {
 public:
  explicit MatchesQemu(GuestCase gc) : gc_(std::move(gc)) {}
  void TestBody() override {
    SideResult q = runQemu(gc_);
    ASSERT_TRUE(outcomeIs(q.run, gc_.expected))
        << "the oracle failed (see QemuBaseline): qemu " << q.run.describe();
    ASSERT_TRUE(q.instructions.has_value()) << "qemu: " << q.count_error;
    SideResult s = runHpmsim(gc_);
    ASSERT_TRUE(s.run.spawn_error.empty()) << s.run.spawn_error;
    ASSERT_FALSE(s.run.timed_out) << "hpmsim did not finish within " << kHpmsimTimeout.count()
                                  << " s\nstderr:\n"
                                  << excerpt(s.run.err);
    EXPECT_TRUE(sameStatus(q.run, s.run))
        << "qemu: " << q.run.describe() << "; hpmsim: " << s.run.describe() << "\nhpmsim stderr:\n"
        << excerpt(s.run.err);
    EXPECT_TRUE(q.run.out == s.run.out)
        << "stdout differs: " << firstDifference(q.run.out, s.run.out);
    if (q.run.signaled()) {
      EXPECT_TRUE(s.run.err.rfind("hpmsim: ", 0) == 0 ||
                  s.run.err.find("\nhpmsim: ") != std::string::npos)
          << "a guest killed by a signal gets a report on stderr in lines starting \"hpmsim: \"";
    }
    std::string q_err = withoutLinesStartingWith(q.run.err, "qemu: uncaught target signal");
    std::string s_err = withoutLinesStartingWith(s.run.err, "hpmsim: ");
    EXPECT_TRUE(q_err == s_err) << "stderr differs: " << firstDifference(q_err, s_err);
    ASSERT_TRUE(s.instructions.has_value()) << "hpmsim: " << s.count_error;
    if (gc_.threaded) return;  // qemu's count depends on the host's schedule
    EXPECT_EQ(*s.instructions, *q.instructions - gc_.faulting_instructions)
        << "hpmsim retired " << *s.instructions << " instructions; qemu began " << *q.instructions
        << ", of which " << gc_.faulting_instructions << " faulted (counted by qemu only)";
  }

 private:
  GuestCase gc_;
};

class Deterministic : public testing::Test {
 public:
  explicit Deterministic(GuestCase gc) : gc_(std::move(gc)) {}
  void TestBody() override {
    SideResult a = runHpmsim(gc_);
    ASSERT_FALSE(a.run.timed_out) << "hpmsim timed out";
    ASSERT_TRUE(a.instructions.has_value()) << a.count_error << "\n" << excerpt(a.run.err);
    // The run itself must succeed as expected (for the cases qemu does not check).
    const int status = gc_.expected.by_signal ? 128 + gc_.expected.value : gc_.expected.value;
    EXPECT_TRUE(a.run.exited() && a.run.exit_code() == status)
        << "hpmsim: " << a.run.describe() << ", expected exit status " << status << "\nstderr:\n"
        << excerpt(a.run.err);
    EXPECT_EQ(a.run.err.find("CHECK failed"), std::string::npos) << excerpt(a.run.err);
    SideResult b = runHpmsim(gc_);
    ASSERT_TRUE(b.instructions.has_value()) << b.count_error;
    EXPECT_EQ(*a.instructions, *b.instructions);
    // Every thread's count, not only the total: the schedule itself is fixed.
    EXPECT_EQ(a.per_thread.size(), b.per_thread.size());
    EXPECT_TRUE(a.per_thread == b.per_thread)
        << "per-thread instruction counts differ: " << threadCounts(a) << " vs " << threadCounts(b);
    EXPECT_TRUE(a.run.out == b.run.out) << firstDifference(a.run.out, b.run.out);
    EXPECT_TRUE(a.run.err == b.run.err) << firstDifference(a.run.err, b.run.err);
    EXPECT_EQ(a.run.wait_status, b.run.wait_status);
  }

 private:
  GuestCase gc_;
};

// ---- hpmsim run on programs it must refuse ---------------------------------------------------

struct BadInput {
  std::string name;
  std::string expected_message;
  // Writes the input into `dir` and returns its path.
  std::string (*make)(const fs::path& dir);
};

void writeFile(const fs::path& p, const std::string& data) {
  std::ofstream out(p, std::ios::binary);
  out << data;
  out.close();
  fs::permissions(p, fs::perms::owner_all);
}

// A valid static RV64 binary to edit: the tiny count_loop (no C library, simple headers).
std::string validElf() {
  return readFile(guestPath("count_loop"));
}

Elf64_Ehdr* ehdr(std::string& elf) {
  return reinterpret_cast<Elf64_Ehdr*>(elf.data());
}
Elf64_Phdr* firstLoad(std::string& elf) {
  Elf64_Ehdr* eh = ehdr(elf);
  for (unsigned i = 0; i < eh->e_phnum; ++i) {
    auto* ph = reinterpret_cast<Elf64_Phdr*>(elf.data() + eh->e_phoff + i * eh->e_phentsize);
    if (ph->p_type == PT_LOAD) return ph;
  }
  throw std::runtime_error("no PT_LOAD in count_loop");
}

std::string copyOfHost(const fs::path& dir) {
  // This test binary itself: an x86-64 ELF.
  std::string self = readFile("/proc/self/exe");
  fs::path p = dir / "x86_64_program";
  writeFile(p, self);
  return p.string();
}

const std::vector<BadInput>& badInputs() {
  static const std::vector<BadInput> inputs = {
      {"missing_file", "No such file",
       [](const fs::path& dir) { return (dir / "does-not-exist").string(); }},
      {"not_elf", "not an ELF file",
       [](const fs::path& dir) {
         writeFile(dir / "script.sh", "#!/bin/sh\necho this is a shell script\n");
         return (dir / "script.sh").string();
       }},
      {"elf_header_only", "truncated",
       [](const fs::path& dir) {
         writeFile(dir / "header_only", validElf().substr(0, sizeof(Elf64_Ehdr)));
         return (dir / "header_only").string();
       }},
      {"truncated_program_headers", "truncated",
       [](const fs::path& dir) {
         std::string elf = validElf();
         // Cut inside the program header table.
         writeFile(dir / "truncated", elf.substr(0, ehdr(elf)->e_phoff + 20));
         return (dir / "truncated").string();
       }},
      {"x86_64", "not a RISC-V program", copyOfHost},
      {"rv32", "32-bit", [](const fs::path&) { return guestPath("rv32_start"); }},
      {"dynamically_linked", "dynamically linked programs are not supported: link with -static",
       [](const fs::path&) { return guestPath("dynamic_hello"); }},
      {"segment_beyond_file", "beyond the end of the file",
       [](const fs::path& dir) {
         std::string elf = validElf();
         Elf64_Phdr* ph = firstLoad(elf);
         ph->p_filesz = elf.size() - ph->p_offset + 4096;  // 4 KiB past the end of the file
         ph->p_memsz = std::max(ph->p_memsz, ph->p_filesz);
         writeFile(dir / "beyond", elf);
         return (dir / "beyond").string();
       }},
      {"huge_segment", "too large",
       [](const fs::path& dir) {
         std::string elf = validElf();
         firstLoad(elf)->p_memsz = uint64_t{1} << 62;
         writeFile(dir / "huge_segment", elf);
         return (dir / "huge_segment").string();
       }},
      {"huge_program_header_table", "too large",
       [](const fs::path& dir) {
         std::string elf = validElf();
         ehdr(elf)->e_phnum = 0xffff;  // 65535 * 56 bytes: far beyond the file
         writeFile(dir / "huge_phnum", elf);
         return (dir / "huge_phnum").string();
       }},
  };
  return inputs;
}

class RefusesBadInput : public testing::Test {
 public:
  explicit RefusesBadInput(const BadInput& bad) : bad_(bad) {}
  void TestBody() override {
    TempDir dir;
    fs::path cwd = dir.path() / "cwd";
    fs::create_directory(cwd);
    std::string program = bad_.make(dir.path());
    RunResult r = runProcess({kHpmsim, "run", "--", program}, kBaseEnv, "", cwd, kHpmsimTimeout);
    ASSERT_TRUE(r.exited()) << "hpmsim " << r.describe() << "\nstderr:\n" << excerpt(r.err);
    EXPECT_GE(r.exit_code(), 1);
    EXPECT_LE(r.exit_code(), 123) << "statuses above 123 are reserved for guest signals";
    EXPECT_NE(r.err.find(bad_.expected_message), std::string::npos)
        << "expected \"" << bad_.expected_message << "\" in stderr:\n"
        << excerpt(r.err);
  }

 private:
  const BadInput& bad_;
};

// ---- The plugin's own checks -----------------------------------------------------------------

struct PluginRun {
  RunResult run;
  std::string counts;
};

PluginRun runPlugin(const std::string& program, const std::string& mode = "") {
  TempDir dir;
  fs::path count = dir.path() / "count";
  std::string arg = std::string(kPlugin) + ",outfile=" + count.string() + mode;
  PluginRun r;
  r.run = runProcess({kQemu, "-plugin", arg, guestPath(program)}, kBaseEnv, "", dir.path(),
                     kQemuTimeout);
  r.counts = readFile(count);
  return r;
}

std::optional<uint64_t> total(const PluginRun& r) {
  std::string error;
  return parseQemuCount(r.counts, error);
}

// ---- hpmsim alone: the machine, the sandbox, time, death reports ------------------------------

struct HpmsimRun {
  RunResult run;
  nlohmann::json stats;  // null if none was written
};

// Runs `hpmsim run OPTIONS -- PROGRAM ARGS` in `cwd` with the base environment plus `env`,
// through the command `prefix` if any (which must exec its arguments).
HpmsimRun runHpmsimWith(const std::vector<std::string>& options, const std::string& program,
                        const std::vector<std::string>& args, const fs::path& cwd,
                        const std::vector<std::string>& env = {},
                        const std::vector<std::string>& prefix = {}) {
  TempDir dir;
  fs::path stats = dir.path() / "stats.json";
  std::vector<std::string> argv = prefix;
  argv.push_back(kHpmsim);
  argv.insert(argv.end(), kHpmsimRun.begin(), kHpmsimRun.end());
  argv.insert(argv.end(), {"--stats-json", stats.string()});
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.push_back(guestPath(program));
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> full_env = kBaseEnv;
  full_env.insert(full_env.end(), env.begin(), env.end());
  HpmsimRun r;
  r.run = runProcess(argv, full_env, "", cwd, kHpmsimTimeout);
  const std::string text = readFile(stats);
  if (!text.empty()) r.stats = nlohmann::json::parse(text, nullptr, false);
  return r;
}

bool hasLine(const std::string& text, const std::string& line) {
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) {
    if (l == line) return true;
  }
  return false;
}

// What a program prints about the machine it runs on.
struct MachineCase {
  std::string name;
  std::string program;
  std::vector<std::string> args;
  std::string machine;
  std::vector<std::string> env;
  std::vector<std::string> lines;  // each must be a whole line of stdout
  size_t threads;                  // guest threads the run must have created (with main)
};

const std::vector<MachineCase>& machineCases() {
  static const std::vector<MachineCase> cases = {
      {"sched_affinity_bgq_has_64_cpus",
       "sched_affinity",
       {},
       "bgq",
       {},
       {"cpus in the affinity mask: 64",
        "sysconf online 64 configured 64, get_nprocs 64, "
        "get_nprocs_conf 64"},
       4},
      {"sched_affinity_bgp_has_4_cpus",
       "sched_affinity",
       {},
       "bgp",
       {},
       {"cpus in the affinity mask: 4",
        "sysconf online 4 configured 4, get_nprocs 4, "
        "get_nprocs_conf 4"},
       4},
      {"dev_proc_sys_bgq_describes_64_hardware_threads",
       "dev_proc_sys",
       {},
       "bgq",
       {},
       {"/sys/devices/system/cpu/online: 0-63", "/sys/devices/system/cpu/possible: 0-63",
        "/proc/cpuinfo: 64 processors, 64 with isa rv64imafdc",
        "/dev/tty with stdin not a terminal: ENXIO"},
       1},
      {"dev_proc_sys_bgp_describes_4_hardware_threads",
       "dev_proc_sys",
       {},
       "bgp",
       {},
       {"/sys/devices/system/cpu/online: 0-3", "/sys/devices/system/cpu/possible: 0-3",
        "/proc/cpuinfo: 4 processors, 4 with isa rv64imafdc"},
       1},
      {"pagemap_gives_a_touched_pages_frame_and_no_entry_for_others",
       "pagemap",
       {},
       "bgq",
       {},
       {"pagemap: touched page present 1, frame is the page 1, exclusive 1",
        "pagemap: untouched page entry 0", "pagemap: text page present 1, file 1",
        "pagemap: unmapped page entry 0", "pagemap: open for writing EACCES"},
       1},
      {"omp_loops_default_team_is_64_on_bgq",
       "omp_loops",
       {},
       "bgq",
       {},
       {"team size 64 (max threads 64)"},
       64},
      {"omp_loops_default_team_is_4_on_bgp",
       "omp_loops",
       {},
       "bgp",
       {},
       {"team size 4 (max threads 4)"},
       4},
      {"omp_tasks_default_team_is_64_on_bgq", "omp_tasks", {}, "bgq", {}, {"team size 64"}, 64},
      {"omp_tasks_default_team_is_4_on_bgp", "omp_tasks", {}, "bgp", {}, {"team size 4"}, 4},
      {"omp_loops_64_threads_time_multiplexed_on_bgp",
       "omp_loops",
       {},
       "bgp",
       {"OMP_NUM_THREADS=64"},
       {"team size 64 (max threads 64)"},
       64},
      {"many_threads_100_time_multiplexed_on_bgp",
       "many_threads",
       {"100"},
       "bgp",
       {},
       {"100 threads, all alive at once: 1, per-thread sums right: 1"},
       101},
      {"many_threads_100_on_bgq",
       "many_threads",
       {"100"},
       "bgq",
       {},
       {"100 threads, all alive at once: 1, per-thread sums right: 1"},
       101},
  };
  return cases;
}

class ReportsTheMachine : public testing::Test {
 public:
  explicit ReportsTheMachine(const MachineCase& mc) : mc_(mc) {}
  void TestBody() override {
    TempDir cwd;
    HpmsimRun r =
        runHpmsimWith({"--machine", mc_.machine}, mc_.program, mc_.args, cwd.path(), mc_.env);
    ASSERT_TRUE(r.run.exited() && r.run.exit_code() == 0) << r.run.describe() << "\nstderr:\n"
                                                          << excerpt(r.run.err);
    for (const std::string& line : mc_.lines) {
      EXPECT_TRUE(hasLine(r.run.out, line)) << "expected the line \"" << line << "\" in:\n"
                                            << excerpt(r.run.out);
    }
    ASSERT_TRUE(r.stats.is_object()) << "no statistics";
    const auto& threads = r.stats.at("threads");
    EXPECT_EQ(threads.size(), mc_.threads);
    for (const auto& t : threads) {
      EXPECT_GT(t.at("instructions").get<uint64_t>(), 0u) << "every thread ran: " << t.dump();
    }
    EXPECT_EQ(r.stats.at("config").at("name").get<std::string>(), mc_.machine);
  }

 private:
  const MachineCase& mc_;
};

// The sandbox: a root directory inside a temporary directory that also holds a secret file and
// a directory, which the guest must not reach; symlinks out of the root made by the host.
struct Sandbox {
  TempDir dir;
  fs::path root = dir.path() / "root";
  Sandbox() {
    fs::create_directories(root / "sub" / "deeper");
    fs::create_directory(dir.path() / "outside_dir");
    writeFile(dir.path() / "outside_secret.txt", "secret outside the root\n");
    writeFile(dir.path() / "outside_dir" / "x", "x\n");
    writeFile(root / "inside.txt", "inside the root\n");
    fs::create_symlink(dir.path() / "outside_secret.txt", root / "host_abs_link");
    fs::create_symlink("../outside_secret.txt", root / "host_rel_link");
  }
  // The host side after a run of sandbox_escape: nothing outside changed, and what the guest
  // created (also through "..") is inside the root.
  void checkAfterEscapeAttempts() const {
    EXPECT_EQ(readFile(dir.path() / "outside_secret.txt"), "secret outside the root\n");
    EXPECT_EQ(readFile(dir.path() / "outside_dir" / "x"), "x\n");
    std::vector<std::string> outside;
    for (const auto& e : fs::directory_iterator(dir.path())) {
      outside.push_back(e.path().filename().string());
    }
    std::sort(outside.begin(), outside.end());
    EXPECT_EQ(outside, (std::vector<std::string>{"outside_dir", "outside_secret.txt", "root"}));
    std::vector<std::string> in_outside_dir;
    for (const auto& e : fs::directory_iterator(dir.path() / "outside_dir")) {
      in_outside_dir.push_back(e.path().filename().string());
    }
    EXPECT_EQ(in_outside_dir, std::vector<std::string>{"x"});
    EXPECT_EQ(readFile(root / "moved_again.txt"), "a copy\n");
    EXPECT_FALSE(fs::exists(root / "inside_copy.txt"));
    EXPECT_EQ(readFile(root / "created_outside.txt"), "created\n");
    EXPECT_TRUE(fs::is_directory(root / "made_outside"));
    EXPECT_EQ(readFile(root / "hard_outside"), "inside the root\n");
    EXPECT_EQ(fs::read_symlink(root / "sym_outside"), "inside.txt");
    EXPECT_EQ(readFile(root / "written_by_guest.txt"), "written by the guest\n");
    EXPECT_EQ(readFile(root / "sub" / "new_dir" / "file.txt"), "nested\n");
  }
};

void expectEscapeAttemptsFailed(const HpmsimRun& r) {
  EXPECT_TRUE(r.run.exited() && r.run.exit_code() == 0) << r.run.describe() << "\nstderr:\n"
                                                        << excerpt(r.run.err);
  EXPECT_EQ(r.run.err.find("CHECK failed"), std::string::npos) << excerpt(r.run.err);
  EXPECT_NE(r.run.out.find(" escape attempts, none left the root; files written inside\n"),
            std::string::npos)
      << excerpt(r.run.out);
}

TEST(HpmsimSandbox, EscapeAttemptsStayInsideTheRoot) {
  Sandbox box;
  TempDir cwd;  // elsewhere: --root decides
  HpmsimRun r = runHpmsimWith({"--root", box.root.string()}, "sandbox_escape",
                              {box.dir.path().string()}, cwd.path());
  expectEscapeAttemptsFailed(r);
  box.checkAfterEscapeAttempts();
}

TEST(HpmsimSandbox, RootDefaultsToTheWorkingDirectory) {
  Sandbox box;
  HpmsimRun r = runHpmsimWith({}, "sandbox_escape", {box.dir.path().string()}, box.root);
  expectEscapeAttemptsFailed(r);
  box.checkAfterEscapeAttempts();
}

TEST(HpmsimSandbox, MissingRootIsAClearError) {
  TempDir cwd;
  const std::string missing = (cwd.path() / "no-such-directory").string();
  HpmsimRun r = runHpmsimWith({"--root", missing}, "stdio_printf", {}, cwd.path());
  ASSERT_TRUE(r.run.exited()) << r.run.describe();
  EXPECT_GE(r.run.exit_code(), 1);
  EXPECT_LE(r.run.exit_code(), 123) << "statuses above 123 are reserved for guest signals";
  EXPECT_NE(r.run.err.find("--root '" + missing + "'"), std::string::npos) << r.run.err;
  EXPECT_NE(r.run.err.find("No such file or directory"), std::string::npos) << r.run.err;
  EXPECT_TRUE(r.run.out.empty()) << "the guest must not have run: " << r.run.out;
}

TEST(HpmsimSandbox, RootThatIsAFileIsAClearError) {
  TempDir cwd;
  const fs::path file = cwd.path() / "a-file";
  writeFile(file, "not a directory\n");
  HpmsimRun r = runHpmsimWith({"--root", file.string()}, "stdio_printf", {}, cwd.path());
  ASSERT_TRUE(r.run.exited()) << r.run.describe();
  EXPECT_GE(r.run.exit_code(), 1);
  EXPECT_LE(r.run.exit_code(), 123);
  EXPECT_NE(r.run.err.find("not a directory"), std::string::npos) << r.run.err;
}

// System calls the simulator does not implement, and its seeded randomness.
// A guest asking for far more than the node has gets ENOMEM, and hpmsim's own host memory stays
// below the node's memory plus the overhead docs/kernel.md states for bgq (64 MiB).
TEST(HpmsimMemory, AGuestPastTheNodesMemoryGetsEnomemAndHpmsimsFootprintStaysBounded) {
  TempDir cwd;
  HpmsimRun r = runHpmsimWith({"--set", "node.memory_mib=256"}, "memory_limit", {}, cwd.path());
  ASSERT_TRUE(r.run.exited() && r.run.exit_code() == 0) << r.run.describe() << r.run.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.run.out, m, std::regex("touched_mib=([0-9]+)"))) << r.run.out;
  const std::uint64_t touched = std::stoull(m[1]);
  EXPECT_NE(r.run.out.find("stack_end_mib=262144\n"), std::string::npos)
      << "by default the guest's space is Sv39's user half\n"
      << r.run.out;
  EXPECT_GE(touched, 192u);
  EXPECT_LT(touched, 256u);
  ASSERT_TRUE(r.stats.is_object());
  EXPECT_GE(r.stats["kernel"]["memory_refusals"].get<std::uint64_t>(), 5u)
      << r.stats["kernel"].dump();
  const std::uint64_t peak_kib = r.stats["host_peak_rss_kib"].get<std::uint64_t>();
  EXPECT_GT(peak_kib, touched << 10) << "the guest's pages are the host's";
  EXPECT_LT(peak_kib, (std::uint64_t{256} + 64) << 10);
}

// `ulimit -v` counts the host address space hpmsim reserves for the guest: a guest space of
// kernel.address_space_gib runs under a limit of that plus the 128 MiB docs/kernel.md states,
// with the node's memory still the guest's limit; the default space under the same limit is
// refused with the parameter named.
std::vector<std::string> underAddressSpaceLimit(std::uint64_t mib) {
  return {"/bin/sh", "-c", "ulimit -v " + std::to_string(mib << 10) + " && exec \"$@\"", "sh"};
}

TEST(HpmsimMemory, UnderAnAddressSpaceLimitASmallerGuestSpaceRuns) {
  TempDir cwd;
  const auto limit = underAddressSpaceLimit(2048 + 128);
  HpmsimRun r =
      runHpmsimWith({"--set", "node.memory_mib=256", "--set", "kernel.address_space_gib=2"},
                    "memory_limit", {}, cwd.path(), {}, limit);
  ASSERT_TRUE(r.run.exited() && r.run.exit_code() == 0) << r.run.describe() << r.run.err;
  EXPECT_NE(r.run.out.find("freed and taken again"), std::string::npos) << r.run.out;
  EXPECT_NE(r.run.out.find("stack_end_mib=2048\n"), std::string::npos)
      << "the stack sits at the top of the guest's space\n"
      << r.run.out;
  ASSERT_TRUE(r.stats.is_object());
  EXPECT_GE(r.stats["kernel"]["memory_refusals"].get<std::uint64_t>(), 5u);

  HpmsimRun refused =
      runHpmsimWith({"--set", "node.memory_mib=256"}, "memory_limit", {}, cwd.path(), {}, limit);
  ASSERT_TRUE(refused.run.exited()) << refused.run.describe();
  EXPECT_EQ(refused.run.exit_code(), 71) << refused.run.err;  // ExitCode::kHost
  EXPECT_NE(refused.run.err.find("cannot reserve 262144 MiB of host address space"),
            std::string::npos)
      << refused.run.err;
  EXPECT_NE(refused.run.err.find("the address-space limit (ulimit -v) is 2176 MiB"),
            std::string::npos)
      << refused.run.err;
  EXPECT_NE(refused.run.err.find("kernel.address_space_gib"), std::string::npos) << refused.run.err;
  EXPECT_TRUE(refused.run.out.empty()) << refused.run.out;
}

// The code cache's capacity costs only the host's time to decode again: big_code's decoded code
// passes a 1 MiB cache several times, and every simulated figure equals the default cache's.
TEST(HpmsimCodeCache, ASmallCodeCacheStartsAgainEmptyAndChangesNoSimulatedResult) {
  TempDir cwd;
  HpmsimRun small = runHpmsimWith({"--set", "kernel.code_cache_mib=1"}, "big_code", {}, cwd.path());
  HpmsimRun large = runHpmsimWith({}, "big_code", {}, cwd.path());
  ASSERT_TRUE(small.run.exited() && small.run.exit_code() == 0) << small.run.describe();
  ASSERT_TRUE(large.run.exited() && large.run.exit_code() == 0) << large.run.describe();
  EXPECT_EQ(small.run.out, large.run.out);
  ASSERT_TRUE(small.stats.is_object() && large.stats.is_object());
  EXPECT_GE(small.stats["kernel"]["code_cache_capacity_flushes"].get<std::uint64_t>(), 2u);
  EXPECT_EQ(large.stats["kernel"]["code_cache_capacity_flushes"], 0);
  EXPECT_GT(small.stats["kernel"]["code_blocks_built"].get<std::uint64_t>(),
            large.stats["kernel"]["code_blocks_built"].get<std::uint64_t>());
  // Everything else, the timing model's and the monitor's statistics included, is equal.
  for (nlohmann::json* s : {&small.stats, &large.stats}) {
    for (const char* key : {"host_peak_rss_kib", "host_seconds", "mips"}) s->erase(key);
    (*s)["config"]["kernel"].erase("code_cache_mib");
    for (const char* key :
         {"code_cache_flushes", "code_cache_capacity_flushes", "code_blocks_built"})
      (*s)["kernel"].erase(key);
  }
  EXPECT_EQ(small.stats, large.stats);
  EXPECT_GT(small.stats["instructions"].get<std::uint64_t>(), 100'000u);
}

TEST(HpmsimSyscalls, AnUnknownCallReturnsEnosysAndIsCountedByNumber) {
  TempDir cwd;
  HpmsimRun r = runHpmsimWith({}, "syscalls_raw", {}, cwd.path());
  ASSERT_TRUE(r.run.exited() && r.run.exit_code() == 0) << r.run.describe() << r.run.err;
  EXPECT_NE(r.run.out.find("system call 400: -1 ENOSYS\n"), std::string::npos) << r.run.out;
  ASSERT_TRUE(r.stats.is_object());
  EXPECT_EQ(r.stats["kernel"]["unknown_syscalls"], 1) << r.stats["kernel"].dump();
  EXPECT_EQ(r.stats["kernel"]["unknown_syscalls_by_number"]["400"], 1) << r.stats["kernel"].dump();
}

TEST(HpmsimSyscalls, StrictModeEndsTheRunAtAnUnknownCallNamingIt) {
  TempDir cwd;
  HpmsimRun r = runHpmsimWith({"--strict-syscalls"}, "syscalls_raw", {}, cwd.path());
  ASSERT_TRUE(r.run.exited()) << r.run.describe();
  EXPECT_EQ(r.run.exit_code(), 5) << r.run.err;  // ExitCode::kGuestFault
  EXPECT_NE(r.run.err.find("hpmsim: unsupported system call unknown (400) in strict mode"),
            std::string::npos)
      << r.run.err;
  EXPECT_EQ(r.run.out.find("system call 400"), std::string::npos) << "the call must not return";
}

TEST(HpmsimSyscalls, GetrandomBytesFollowTheKernelSeed) {
  TempDir cwd;
  HpmsimRun a = runHpmsimWith({}, "syscalls_raw", {"random"}, cwd.path());
  HpmsimRun b =
      runHpmsimWith({"--set", "kernel.random_seed=7"}, "syscalls_raw", {"random"}, cwd.path());
  HpmsimRun c =
      runHpmsimWith({"--set", "kernel.random_seed=7"}, "syscalls_raw", {"random"}, cwd.path());
  ASSERT_TRUE(a.run.exited() && a.run.exit_code() == 0) << a.run.describe() << a.run.err;
  ASSERT_EQ(a.run.out.size(), 65u) << a.run.out;  // 32 bytes in hex and a newline
  EXPECT_NE(a.run.out, b.run.out) << "another seed, other bytes";
  EXPECT_EQ(b.run.out, c.run.out) << "the same seed, the same bytes";
}

// AT_PLATFORM: Linux on riscv64 passes none, nor does qemu-riscv64 (startup_stack's comparison
// holds the default to that); kernel.platform adds one, as other architectures' kernels do.
TEST(HpmsimStartup, KernelPlatformAddsAnAtPlatformString) {
  TempDir cwd;
  HpmsimRun plain = runHpmsimWith({}, "startup_stack", {}, cwd.path());
  HpmsimRun with =
      runHpmsimWith({"--set", "kernel.platform=riscv64"}, "startup_stack", {}, cwd.path());
  ASSERT_TRUE(with.run.exited() && with.run.exit_code() == 0) << with.run.describe();
  EXPECT_EQ(plain.run.out.find("AT_PLATFORM"), std::string::npos) << plain.run.out;
  EXPECT_TRUE(std::regex_search(with.run.out,
                                std::regex(R"(AT_PLATFORM \(15\) = argv\[0\]-[0-9]+ "riscv64")")))
      << with.run.out;
}

// Simulated wall-clock time starts at 2026-01-01T00:00:00Z (1767225600); --host-time gives the
// host's. sim_time "realtime" prints time(), gettimeofday's and clock_gettime's seconds.
TEST(HpmsimTime, RealtimeIsSimulatedByDefault) {
  TempDir cwd;
  HpmsimRun r = runHpmsimWith({}, "sim_time", {"realtime"}, cwd.path());
  ASSERT_TRUE(r.run.exited() && r.run.exit_code() == 0) << r.run.describe() << r.run.err;
  EXPECT_EQ(r.run.out, "realtime 1767225600 1767225600 1767225600\n");
}

TEST(HpmsimTime, HostTimeGivesTheHostsRealtime) {
  TempDir cwd;
  const auto before = std::chrono::system_clock::now();
  HpmsimRun r = runHpmsimWith({"--host-time"}, "sim_time", {"realtime"}, cwd.path());
  const auto after = std::chrono::system_clock::now();
  ASSERT_TRUE(r.run.exited() && r.run.exit_code() == 0) << r.run.describe() << r.run.err;
  long long t = 0, tv = 0, ts = 0;
  ASSERT_EQ(std::sscanf(r.run.out.c_str(), "realtime %lld %lld %lld", &t, &tv, &ts), 3)
      << r.run.out;
  const long long lo =
      std::chrono::duration_cast<std::chrono::seconds>(before.time_since_epoch()).count();
  const long long hi =
      std::chrono::duration_cast<std::chrono::seconds>(after.time_since_epoch()).count();
  for (long long v : {t, tv, ts}) {
    EXPECT_GE(v, lo) << r.run.out;
    EXPECT_LE(v, hi) << r.run.out;
  }
}

// A thread's CPU time is its cycles at the machine's clock: the same work (the same
// instructions, one per cycle in the functional mode) takes 1600/850 times longer on bgp.
TEST(HpmsimTime, CpuTimeIsCyclesAtTheMachinesClock) {
  TempDir cwd;
  auto threadZeroNs = [&](const std::string& machine, double& mhz) {
    HpmsimRun r = runHpmsimWith({"--machine", machine}, "sim_time", {}, cwd.path());
    EXPECT_TRUE(r.run.exited() && r.run.exit_code() == 0) << r.run.describe() << r.run.err;
    mhz = r.stats["config"]["node"]["clock_mhz"].get<double>();
    std::smatch m;
    EXPECT_TRUE(std::regex_search(r.run.out, m,
                                  std::regex(R"(thread 0 \(200000 iterations\): cpu ([0-9]+) ns)")))
        << r.run.out;
    return m.empty() ? 0.0 : std::stod(m[1]);
  };
  double bgq_mhz = 0;
  double bgp_mhz = 0;
  const double bgq_ns = threadZeroNs("bgq", bgq_mhz);
  const double bgp_ns = threadZeroNs("bgp", bgp_mhz);
  ASSERT_GT(bgq_ns, 0.0);
  EXPECT_EQ(bgq_mhz, 1600.0);
  EXPECT_EQ(bgp_mhz, 850.0);
  // The same loop on both machines; only the nanoseconds of the clock readings around it round
  // differently.
  EXPECT_NEAR(bgp_ns / bgq_ns, bgq_mhz / bgp_mhz, 1e-4 * bgq_mhz / bgp_mhz);
}

// /dev/tty opens the controlling terminal when the guest's stdin is a terminal (and is ENXIO
// otherwise: dev_proc_sys's comparison cases run with a pipe).
TEST(HpmsimDevices, DevTtyOpensWhenStdinIsATerminal) {
  TempDir cwd;
  std::vector<std::string> argv = {kHpmsim};
  argv.insert(argv.end(), kHpmsimRun.begin(), kHpmsimRun.end());
  argv.insert(argv.end(), {"--", guestPath("dev_proc_sys")});
  const RunResult r = hpm::test::runOnTerminal(argv, kBaseEnv, cwd.path(), kHpmsimTimeout);
  EXPECT_EQ(r.status(), 0) << r.describe() << "\n" << r.out;
  EXPECT_NE(r.out.find("/dev/tty with stdin a terminal: opened"), std::string::npos) << r.out;
}

// A guest killed by a signal: hpmsim exits with 128 + the signal and reports, in lines starting
// "hpmsim: ", the signal, the thread, the pc with the nearest ELF symbol, the faulting address
// and the disassembled instruction.
struct FaultCase {
  std::string mode;  // fault_report's argument
  int signal;
  std::vector<std::string> patterns;  // regular expressions, each matching a line of stderr
};

const std::vector<FaultCase>& faultCases() {
  static const std::vector<FaultCase> cases = {
      {"segv_thread",
       SIGSEGV,
       {R"(hpmsim: guest killed by signal 11 SIGSEGV \(segmentation fault\): store to unmapped memory)",
        R"(hpmsim:   thread 2 at pc 0x[0-9a-f]+ <store_to_null_page\+0x[0-9a-f]+>)",
        R"(hpmsim:   fault address 0x10)", R"(hpmsim:   instruction: sd t1, 0\(t0\))"}},
      {"ill_main",
       SIGILL,
       {R"(hpmsim: guest killed by signal 4 SIGILL \(illegal instruction\): illegal instruction)",
        R"(hpmsim:   thread 1 at pc (0x[0-9a-f]+) <illegal_in_main\+0x0>)",
        R"(hpmsim:   fault address 0x[0-9a-f]+)",
        R"(hpmsim:   instruction: csrrw zero, cycle, zero)"}},
      {"trap_main",
       SIGTRAP,
       {R"(hpmsim: guest killed by signal 5 SIGTRAP \(trace/breakpoint trap\): .+)",
        R"(hpmsim:   thread 1 at pc 0x[0-9a-f]+ <breakpoint_in_main\+0x4>)",
        R"(hpmsim:   instruction: ebreak)"}},
      {"bus_thread",
       SIGBUS,
       {R"(hpmsim: guest killed by signal 7 SIGBUS \(bus error\): misaligned atomic memory operation)",
        R"(hpmsim:   thread 2 at pc 0x[0-9a-f]+ <misaligned_amo_in_thread\+0x[0-9a-f]+>)",
        R"(hpmsim:   fault address 0x[0-9a-f]*[2a])",  // 2 bytes into an 8-byte aligned buffer
        R"(hpmsim:   instruction: amoadd\.w zero, t1, \([a-z0-9]+\))"}},
      {"usr1_thread",
       SIGUSR1,
       {R"(hpmsim: guest killed by signal 10 SIGUSR1 \(user signal 1\): sent by tgkill\(\))",
        R"(hpmsim:   thread 3 at pc 0x[0-9a-f]+ <[a-z_]+\+0x[0-9a-f]+>)",
        R"(hpmsim:   instruction: .+)"}},
  };
  return cases;
}

class ReportsTheDeath : public testing::Test {
 public:
  explicit ReportsTheDeath(const FaultCase& fc) : fc_(fc) {}
  void TestBody() override {
    TempDir cwd;
    HpmsimRun r = runHpmsimWith({}, "fault_report", {fc_.mode}, cwd.path());
    ASSERT_TRUE(r.run.exited()) << "hpmsim itself must not die: " << r.run.describe();
    EXPECT_EQ(r.run.exit_code(), 128 + fc_.signal);
    EXPECT_EQ(r.run.out, "about to die: " + fc_.mode + "\n");
    std::vector<std::string> report;
    std::istringstream in(r.run.err);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("hpmsim: ", 0) == 0) report.push_back(line);
    }
    for (const std::string& pattern : fc_.patterns) {
      const std::regex re(pattern);
      EXPECT_TRUE(std::any_of(report.begin(), report.end(),
                              [&](const std::string& l) { return std::regex_match(l, re); }))
          << "no report line matches " << pattern << "\nstderr:\n"
          << r.run.err;
    }
    if (fc_.mode == "ill_main") {
      // An illegal instruction faults at its own address: the report's pc and address agree.
      std::smatch pc, addr;
      const std::string err = r.run.err;
      ASSERT_TRUE(std::regex_search(err, pc, std::regex(R"(at pc (0x[0-9a-f]+))")));
      ASSERT_TRUE(std::regex_search(err, addr, std::regex(R"(fault address (0x[0-9a-f]+))")));
      EXPECT_EQ(pc[1], addr[1]);
    }
  }

 private:
  const FaultCase& fc_;
};

void registerTests() {
  for (const GuestCase& gc : guestCases()) {
    if (gc.vs_qemu) {
      testing::RegisterTest("GuestCompare/QemuBaseline", gc.name.c_str(), nullptr, nullptr,
                            __FILE__, __LINE__,
                            [gc]() -> testing::Test* { return new QemuBaseline(gc); });
      testing::RegisterTest("GuestCompare/MatchesQemu", gc.name.c_str(), nullptr, nullptr, __FILE__,
                            __LINE__, [gc]() -> testing::Test* { return new MatchesQemu(gc); });
    }
    testing::RegisterTest("GuestCompare/Deterministic", gc.name.c_str(), nullptr, nullptr, __FILE__,
                          __LINE__, [gc]() -> testing::Test* { return new Deterministic(gc); });
  }
  for (const MachineCase& mc : machineCases()) {
    testing::RegisterTest("HpmsimMachine/ReportsTheMachine", mc.name.c_str(), nullptr, nullptr,
                          __FILE__, __LINE__,
                          [&mc]() -> testing::Test* { return new ReportsTheMachine(mc); });
  }
  for (const FaultCase& fc : faultCases()) {
    testing::RegisterTest("HpmsimFaultReport/ReportsTheDeath", fc.mode.c_str(), nullptr, nullptr,
                          __FILE__, __LINE__,
                          [&fc]() -> testing::Test* { return new ReportsTheDeath(fc); });
  }
  for (const BadInput& bad : badInputs()) {
    testing::RegisterTest("HpmsimRun/RefusesBadInput", bad.name.c_str(), nullptr, nullptr, __FILE__,
                          __LINE__,
                          [&bad]() -> testing::Test* { return new RefusesBadInput(bad); });
  }
}

// count_loop executes exactly 2004 instructions (see its source).
TEST(QemuPlugin, CountsExactly) {
  for (const std::string mode : {"", ",mode=callback", ",mode=inline"}) {
    PluginRun r = runPlugin("count_loop", mode);
    ASSERT_TRUE(r.run.exited() && r.run.exit_code() == 0) << r.run.describe();
    EXPECT_EQ(total(r), 2004u) << "mode" << mode << ": " << r.counts;
    EXPECT_EQ(r.counts.rfind("instructions 2004\nexact 1\n", 0), 0u) << r.counts;
  }
}

// count_fault: li, li, then a store to an unmapped address. The faulting store began, so the
// plugin counts 3, and the counts survive qemu's death by the signal (the raw file).
TEST(QemuPlugin, CountsFaultingInstruction) {
  for (const std::string mode : {"", ",mode=inline"}) {
    PluginRun r = runPlugin("count_fault", mode);
    ASSERT_TRUE(r.run.signaled() && r.run.signal() == SIGSEGV) << r.run.describe();
    EXPECT_EQ(r.counts.compare(0, 8, "HPMICNT1"), 0) << "expected the raw counters";
    EXPECT_EQ(total(r), 3u) << "mode" << mode;
  }
}

// threads_loop: 4 threads, each with a loop of 2,000,001 instructions, alive at the same time.
TEST(QemuPlugin, CountsEveryThread) {
  PluginRun r = runPlugin("threads_loop");
  ASSERT_TRUE(r.run.exited() && r.run.exit_code() == 0) << r.run.describe();
  std::istringstream in(r.counts);
  std::string word;
  uint64_t total_count = 0, sum = 0, value = 0;
  int busy_vcpus = 0;
  in >> word >> total_count;
  ASSERT_EQ(word, "instructions") << r.counts;
  std::string line;
  while (std::getline(in, line)) {
    unsigned index = 0;
    if (std::sscanf(line.c_str(), "vcpu %u %lu", &index, &value) == 2) {
      sum += value;
      if (value >= 2000001) ++busy_vcpus;
    }
  }
  EXPECT_EQ(sum, total_count) << r.counts;
  EXPECT_EQ(busy_vcpus, 4) << "each worker thread has its own vCPU and loop:\n" << r.counts;
  EXPECT_GE(total_count, 4u * 2000001u);
}

TEST(QemuPlugin, RejectsMissingOutfile) {
  TempDir dir;
  RunResult r = runProcess({kQemu, "-plugin", kPlugin, guestPath("count_loop")}, kBaseEnv, "",
                           dir.path(), kQemuTimeout);
  EXPECT_FALSE(r.exited() && r.exit_code() == 0) << r.describe();
  EXPECT_NE(r.err.find("outfile"), std::string::npos) << r.err;
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);  // a child that stops reading its stdin must not kill the harness
  testing::InitGoogleTest(&argc, argv);
  registerTests();
  return RUN_ALL_TESTS();
}
