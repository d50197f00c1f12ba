#include "kernel/kernel.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "base/bits.h"
#include "base/error.h"
#include "isa/decode.h"

namespace hpm {
namespace {

constexpr u64 kStackSize = u64{8} << 20;  // RLIMIT_STACK
constexpr u64 kMmapGap = u64{256} << 20;  // between the stack and the mmap area
// ELF_ET_DYN_BASE of Linux riscv64: two thirds of the user range (0x2aaaaaa000 under Sv39).
constexpr u64 pieBase(u64 limit) {
  return limit / 3 * 2 & ~(GuestMemory::kPageSize - 1);
}
static_assert(pieBase(GuestMemory::kMaxVaLimit) == 0x2aaaaaa000);
constexpr u64 kRlimInfinity = ~u64{0};

// RISC-V ISA letters in AT_HWCAP: one bit per letter, IMAFDC.
constexpr u64 kHwcap = (u64{1} << ('I' - 'A')) | (u64{1} << ('M' - 'A')) | (u64{1} << ('A' - 'A')) |
                       (u64{1} << ('F' - 'A')) | (u64{1} << ('D' - 'A')) | (u64{1} << ('C' - 'A'));

u64 rotl(u64 x, int k) {
  return (x << k) | (x >> (64 - k));
}

}  // namespace

void KernelStats::visit(stats::Visitor& v) const {
  v.beginGroup("syscalls");
  for (std::size_t i = 0; i < syscalls.size(); ++i) {
    if (syscalls[i] != 0) v.counter(abi::syscallName(i), syscalls[i], "");
  }
  if (syscalls_beyond != 0) {
    v.counter("numbered_512_or_more", syscalls_beyond, "Calls of numbers beyond the table");
  }
  v.endGroup();
  v.counter("unknown_syscalls", unknown_syscalls, "System calls answered with ENOSYS");
  v.counter("threads_created", threads_created, "Threads created (clone)");
  v.counter("migrations", migrations,
            "Threads moved to another hardware thread (an affinity that excluded their own)");
  v.counter("thread_exits", thread_exits, "Threads that exited");
  v.counter("futex_waits", futex_waits, "Futex waits that blocked");
  v.counter("futex_wakes", futex_wakes, "Threads woken by futex wakes");
  v.counter("signals_sent", signals_sent, "Signals queued");
  v.counter("signals_delivered", signals_delivered, "Signal handler frames built");
  v.counter("timer_expirations", timer_expirations, "Interval and POSIX timer expirations");
  v.counter("io_reads", io_reads, "Successful reads (files, pipes, devices)");
  v.counter("io_writes", io_writes, "Successful writes");
  v.counter("io_bytes_read", io_bytes_read, "Bytes read");
  v.counter("io_bytes_written", io_bytes_written, "Bytes written");
  v.counter("console_writes", console_writes, "Writes to standard output and error");
  v.counter("console_bytes", console_bytes, "Bytes written to standard output and error");
  v.counter("opens", opens, "Files opened");
  v.counter("faults_data", faults_data, "Loads and stores that faulted");
  v.counter("faults_fetch", faults_fetch, "Instruction fetches that faulted");
  v.counter("faults_alignment", faults_alignment, "Misaligned atomic memory operations");
  v.counter("faults_illegal", faults_illegal, "Illegal instructions");
  v.counter("faults_breakpoint", faults_breakpoint, "Breakpoints (ebreak)");
  const auto sum = [](const std::vector<u64>& by_thread) {
    return std::accumulate(by_thread.begin(), by_thread.end(), u64{0});
  };
  v.counter("counter_interrupts", sum(counter_interrupts), "Counter-unit interrupts queued");
  v.counter("external_interrupts", sum(external_interrupts),
            "Inter-processor interrupts the kernel sent between hardware threads");
  v.counter("memory_refusals", memory_refusals,
            "Memory requests refused with ENOMEM: they would exceed the node's memory");
  v.counter("scheduler_slices", slices, "Scheduler picks that ran a thread");
  v.counter("scheduler_empty_slices", empty_slices,
            "Picks that retired no instruction (the thread's next instruction issues later)");
  v.counter("scheduler_core_switches", core_switches,
            "Picks of a thread on another core than the pick before's");
  v.counter("poll_parks", poll_parks,
            "Functional mode: threads parked while they spun on memory (kernel.park_polls)");
  v.counter("poll_wakes_changed", poll_wakes_changed, "... woken because a polled word changed");
  v.counter("poll_wakes_timeout", poll_wakes_timeout,
            "... woken after kernel.poll_park_cycles without a change");
  v.counter("poll_wakes_idle", poll_wakes_idle,
            "... woken because no other thread could run, or one called sched_yield");
  v.counter("poll_wakes_signal", poll_wakes_signal, "... woken by a signal");
  v.counter("poll_parked_cycles", poll_parked_cycles, "Cycles threads spent parked");
  v.beginGroup("unknown_syscalls_by_number");
  for (const auto& [number, count] : unknown_by_number) {
    v.counter(std::to_string(number), count, "");
  }
  v.endGroup();
}

void Kernel::visitStats(stats::Visitor& v) const {
  stats_.visit(v);
  v.counter("code_cache_flushes", code_.flushCount(),
            "Predecoded-code flushes (fence.i, icache flush, code unmapped or re-protected)");
  v.counter("code_cache_capacity_flushes", code_.capacityFlushCount(),
            "... of which the cache's capacity caused (kernel.code_cache_mib)");
  v.counter("code_blocks_built", code_.blocksBuilt(), "Basic blocks decoded");
  v.counter("pages_first_touched", memory_.firstTouches(),
            "Pages a guest load, store or atomic reached first since they were mapped");
}

// (Rows of a statistic `stat` of KernelStats; the system calls by kind sum the calls of the
// numbers of that kind, as abi::syscallCategory sorts them.)
#define HPM_TRUTH(event, stat)                                                             \
  probe::TruthRow<Kernel> {                                                                \
    probe::Event::event,                                                                   \
        [](const Kernel& k, u32, probe::TruthTerms& t) { t.push_back({&k.stats_.stat}); }, \
        probe::Changes::kAnytime, probe::Tally::kNone                                      \
  }
// (Statistics kept per hardware thread: the thread's own, or the sum over the node's.)
#define HPM_TRUTH_THREAD(event, stat)                                                              \
  probe::TruthRow<Kernel> {                                                                        \
    probe::Event::event,                                                                           \
        [](const Kernel& k, u32 h, probe::TruthTerms& t) { t.push_back({&k.stats_.stat.at(h)}); }, \
        probe::Changes::kAnytime, probe::Tally::kNone                                              \
  }
#define HPM_TRUTH_THREADS(event, stat)                          \
  probe::TruthRow<Kernel> {                                     \
    probe::Event::event,                                        \
        [](const Kernel& k, u32, probe::TruthTerms& t) {        \
          for (const u64& n : k.stats_.stat) t.push_back({&n}); \
        },                                                      \
        probe::Changes::kAnytime, probe::Tally::kNone           \
  }
#define HPM_TRUTH_CALLS(event, category)                                        \
  probe::TruthRow<Kernel> {                                                     \
    probe::Event::event,                                                        \
        [](const Kernel& k, u32, probe::TruthTerms& t) {                        \
          for (u64 n = 0; n < k.stats_.syscalls.size(); ++n) {                  \
            if (abi::syscallCategory(n) == abi::SyscallCategory::category) {    \
              t.push_back({&k.stats_.syscalls[n]});                             \
            }                                                                   \
          }                                                                     \
          if (abi::SyscallCategory::category == abi::SyscallCategory::kOther) { \
            t.push_back({&k.stats_.syscalls_beyond});                           \
          }                                                                     \
        },                                                                      \
        probe::Changes::kAnytime, probe::Tally::kNone                           \
  }

std::span<const probe::TruthRow<Kernel>> Kernel::truthTable() {
  // (The kernel's events are counted from published events only: the CNK unit counts at once,
  // and the I/O unit's events come one per system call.)
  static const probe::TruthRow<Kernel> kRows[] = {
      {probe::Event::kSyscalls,
       [](const Kernel& k, u32, probe::TruthTerms& t) {
         for (const u64& n : k.stats_.syscalls) t.push_back({&n});
         t.push_back({&k.stats_.syscalls_beyond});
       },
       probe::Changes::kAnytime, probe::Tally::kNone},
      HPM_TRUTH(kSyscallsUnknown, unknown_syscalls),
      HPM_TRUTH_CALLS(kSyscallsFile, kFile),
      HPM_TRUTH_CALLS(kSyscallsMemory, kMemory),
      HPM_TRUTH_CALLS(kSyscallsThread, kThread),
      HPM_TRUTH_CALLS(kSyscallsSignal, kSignal),
      HPM_TRUTH_CALLS(kSyscallsTime, kTime),
      HPM_TRUTH_CALLS(kSyscallsOther, kOther),
      HPM_TRUTH(kSignalsSent, signals_sent),
      HPM_TRUTH(kSignalsDelivered, signals_delivered),
      HPM_TRUTH(kTimerExpirations, timer_expirations),
      {probe::Event::kPageFirstTouches,
       [](const Kernel& k, u32, probe::TruthTerms& t) { t.push_back({&k.memory_.firstTouches()}); },
       probe::Changes::kAnytime, probe::Tally::kNone},
      HPM_TRUTH(kFutexWaits, futex_waits),
      HPM_TRUTH(kFutexWakes, futex_wakes),
      HPM_TRUTH(kThreadsCreated, threads_created),
      HPM_TRUTH(kThreadExits, thread_exits),
      HPM_TRUTH(kIoReads, io_reads),
      HPM_TRUTH(kIoWrites, io_writes),
      HPM_TRUTH(kIoBytesRead, io_bytes_read),
      HPM_TRUTH(kIoBytesWritten, io_bytes_written),
      HPM_TRUTH(kIoConsoleWrites, console_writes),
      HPM_TRUTH(kIoConsoleBytes, console_bytes),
      HPM_TRUTH(kIoOpens, opens),
      HPM_TRUTH(kFaultsData, faults_data),
      HPM_TRUTH(kFaultsFetch, faults_fetch),
      HPM_TRUTH(kFaultsAlignment, faults_alignment),
      HPM_TRUTH(kFaultsIllegal, faults_illegal),
      HPM_TRUTH(kFaultsBreakpoint, faults_breakpoint),
      HPM_TRUTH_THREADS(kCounterInterrupts, counter_interrupts),
      HPM_TRUTH_THREADS(kExternalInterrupts, external_interrupts),
      HPM_TRUTH_THREAD(kExternalInterruptsTaken, external_interrupts),
      HPM_TRUTH_THREAD(kPerfMonInterruptsTaken, counter_interrupts),
      HPM_TRUTH(kMemoryRefusals, memory_refusals),
  };
  return kRows;
}

#undef HPM_TRUTH
#undef HPM_TRUTH_THREAD
#undef HPM_TRUTH_THREADS
#undef HPM_TRUTH_CALLS

void Kernel::checkLimit(bool grown) {
  if (!limit_source_ || finished()) return;
  if (std::optional<std::string> why = limit_source_(grown)) {
    endRun(static_cast<int>(ExitCode::kHost),
           fmt::format("hpmsim: the run stops at cycle {} (its results cover it so far): {}\n",
                       elapsedCycles(), *why));
  }
}

void Kernel::firstTouch(u64 /*page*/) {
  HPM_PROBE(bus_, kPageFirstTouches, 0, 1);
  if (++pages_since_limit_check_ == kLimitCheckPages) {
    pages_since_limit_check_ = 0;
    checkLimit(true);  // (the host memory a guest grows into is counted as it grows)
  }
}

u64 Kernel::cyclesFor(u64 nanos) const {
  const u128 cycles = static_cast<u128>(nanos) * config_.clock_hz / 1'000'000'000u;
  return cycles > kNever ? kNever : static_cast<u64>(cycles);
}

u64 Kernel::clockNanos(const Thread& t, u64 clock) const {
  const u64 cycle = t.hart().state().cycle;
  const Thread* cpu_owner = nullptr;
  if (cpuClock(clock, t, &cpu_owner)) {
    return nanosAt(cpu_owner != nullptr ? cpu_owner->busy_cycles : processCpuCycles());
  }
  switch (clock) {
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
    case CLOCK_TAI:
      if (config_.host_time) {
        timespec host{};
        ::clock_gettime(CLOCK_REALTIME, &host);
        return static_cast<u64>(host.tv_sec) * 1'000'000'000 + static_cast<u64>(host.tv_nsec);
      }
      return static_cast<u64>(kEpochSeconds) * 1'000'000'000 + nanosAt(cycle);
    default:  // the monotonic clocks and the boot-time clock
      if (config_.host_time) {
        timespec host{};
        ::clock_gettime(CLOCK_MONOTONIC, &host);
        return static_cast<u64>(host.tv_sec) * 1'000'000'000 + static_cast<u64>(host.tv_nsec);
      }
      return nanosAt(cycle);
  }
}

Kernel::Kernel(KernelConfig config)
    : config_(std::move(config)),
      memory_(config_.params.address_space_gib << 30),
      code_(memory_, config_.params.code_cache_mib << 20),
      space_(memory_, code_, config_.memory_bytes, stats_.memory_refusals),
      scheduler_(config_.hardwareThreads(), config_.threads_per_core) {
  fs_ = std::make_unique<FileSystem>(config_.root);
  stats_.external_interrupts.assign(config_.hardwareThreads(), 0);
  stats_.counter_interrupts.assign(config_.hardwareThreads(), 0);
  memory_.setDevice(this);
  memory_.setTouchListener(this);
  // splitmix64 expands the seed into the generator's state.
  u64 z = config_.params.random_seed;
  for (u64& word : random_state_) {
    z += 0x9e3779b97f4a7c15ull;
    u64 t = z;
    t = (t ^ (t >> 30)) * 0xbf58476d1ce4e5b9ull;
    t = (t ^ (t >> 27)) * 0x94d049bb133111ebull;
    word = t ^ (t >> 31);
  }
  for (auto& r : rlimits_) r = {kRlimInfinity, kRlimInfinity};
  rlimits_[RLIMIT_STACK] = {kStackSize, kRlimInfinity};
  rlimits_[RLIMIT_NOFILE] = {FdTable::kMaxFds, FdTable::kMaxFds};
  rlimits_[RLIMIT_CORE] = {0, kRlimInfinity};
  rlimits_[RLIMIT_NPROC] = {4096, 4096};
  rlimits_[RLIMIT_SIGPENDING] = {4096, 4096};
  rlimits_[RLIMIT_MEMLOCK] = {8 << 20, 8 << 20};
  rlimits_[RLIMIT_MSGQUEUE] = {819200, 819200};

  // The guest's standard streams are duplicates of ours, so a guest close() leaves ours alone.
  for (int fd = 0; fd < 3; ++fd) {
    const int host = ::fcntl(config_.stdio[fd], F_DUPFD_CLOEXEC, 3);
    if (host >= 0) fds_.installAt(fd, FdEntry{FdKind::kHost, host, false, ""});
  }
}

Kernel::~Kernel() = default;

u64 Kernel::nextRandom() {
  // xoshiro256**: deterministic, so the same seed gives the same guest run.
  auto& s = random_state_;
  const u64 result = rotl(s[1] * 5, 7) * 9;
  const u64 t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

void Kernel::fillRandom(u8* out, std::size_t n) {
  for (std::size_t i = 0; i < n; i += 8) {
    const u64 r = nextRandom();
    std::memcpy(out + i, &r, std::min<std::size_t>(8, n - i));
  }
}

u64 Kernel::nanosAt(u64 cycle) const {
  return static_cast<u64>(static_cast<u128>(cycle) * 1'000'000'000u / config_.clock_hz);
}

void Kernel::exec(const std::string& path, const std::vector<std::string>& argv,
                  const std::vector<std::string>& envp) {
  image_ = std::make_unique<ElfImage>(ElfImage::load(path));
  exe_guest_path_ = path;
  argv_ = argv;
  load_bias_ = image_->isPie() ? pieBase(memory_.limit()) : 0;
  image_->requireMemory(config_.memory_bytes, path);  // the stack is checked below
  const u64 phdr = image_->mapInto(memory_, load_bias_);
  for (const ElfSegment& seg : image_->segments()) {
    const u64 start = alignDown(seg.vaddr + load_bias_, GuestMemory::kPageSize);
    const u64 end = alignUp(seg.vaddr + load_bias_ + seg.memsz, GuestMemory::kPageSize);
    space_.vmas().insert(start, end, memory_.pagePerm(start), path);
  }

  // The stack: 8 MiB at the top of the user range, as Linux places it without randomisation;
  // the mmap area starts below it and grows down.
  const u64 stack_top = memory_.limit();
  const u8 stack_perm = GuestMemory::kRead | GuestMemory::kWrite |
                        (image_->executableStack() ? GuestMemory::kExec : 0);
  space_.mapRange(stack_top - kStackSize, kStackSize, stack_perm, "[stack]");
  space_.setLayout(image_->endOfImage(load_bias_), stack_top - kStackSize - kMmapGap, stack_top);

  // Signal handlers return through `li a7, 139 (rt_sigreturn); ecall`, in a page of its own as
  // Linux's vDSO provides it (qemu-user builds the same two instructions).
  sigreturn_trampoline_ = stack_top - kStackSize - 2 * GuestMemory::kPageSize;
  space_.mapRange(sigreturn_trampoline_, GuestMemory::kPageSize,
                  GuestMemory::kRead | GuestMemory::kExec, "[vdso]");
  if (space_.vmas().committedBytes() > config_.memory_bytes) {
    fail(ExitCode::kProgram,
         "'{}': its segments and the 8 MiB stack need {} MiB of memory, more than the node's {} "
         "MiB (node.memory_mib)",
         path, alignUp(space_.vmas().committedBytes(), u64{1} << 20) >> 20,
         config_.memory_bytes >> 20);
  }
  const u32 trampoline[2] = {0x08b00893u, 0x00000073u};
  std::memcpy(memory_.hostUnchecked(sigreturn_trampoline_), trampoline, sizeof trampoline);

  // The initial stack, laid out as qemu-user and Linux build it: strings at the top (the
  // executable's name, then the environment, then the arguments, each list copied from its last
  // element down), then AT_RANDOM's bytes, then 16-byte alignment, then argc, argv, envp, auxv.
  u64 sp = stack_top - 8;
  auto pushString = [&](const std::string& s) {
    sp -= s.size() + 1;
    std::memcpy(memory_.hostUnchecked(sp), s.c_str(), s.size() + 1);
    return sp;
  };
  const u64 execfn = pushString(path);
  std::vector<u64> env_ptrs(envp.size()), arg_ptrs(argv.size());
  for (std::size_t i = envp.size(); i-- > 0;) env_ptrs[i] = pushString(envp[i]);
  for (std::size_t i = argv.size(); i-- > 0;) arg_ptrs[i] = pushString(argv[i]);
  sp &= ~u64{15};  // Linux's arch_align_stack and qemu both align before what follows
  const std::string& platform = config_.params.platform;
  u64 platform_addr = 0;
  if (!platform.empty()) {
    sp -= alignUp(platform.size() + 1, 8);
    platform_addr = sp;
    std::memcpy(memory_.hostUnchecked(sp), platform.c_str(), platform.size() + 1);
  }
  sp -= 16;
  const u64 random_addr = sp;
  fillRandom(memory_.hostUnchecked(random_addr), 16);
  sp &= ~u64{15};

  std::vector<std::pair<u64, u64>> auxv = {
      {abi::kAtPhdr, phdr},
      {abi::kAtPhent, 56},
      {abi::kAtPhnum, image_->phnum()},
      {abi::kAtPagesz, GuestMemory::kPageSize},
      {abi::kAtBase, 0},
      {abi::kAtFlags, 0},
      {abi::kAtEntry, image_->entry() + load_bias_},
      {abi::kAtUid, ::getuid()},
      {abi::kAtEuid, ::geteuid()},
      {abi::kAtGid, ::getgid()},
      {abi::kAtEgid, ::getegid()},
      {abi::kAtHwcap, kHwcap},
      {abi::kAtClktck, 100},
      {abi::kAtRandom, random_addr},
      {abi::kAtSecure, 0},
      {abi::kAtExecfn, execfn},
  };
  if (platform_addr != 0) auxv.emplace_back(abi::kAtPlatform, platform_addr);
  auxv.emplace_back(abi::kAtNull, 0);
  const u64 words = 1 + argv.size() + 1 + envp.size() + 1 + 2 * auxv.size();
  sp = alignDown(sp - words * 8, 16);
  std::vector<u64> frame;
  frame.reserve(words);
  frame.push_back(argv.size());
  for (u64 p : arg_ptrs) frame.push_back(p);
  frame.push_back(0);
  for (u64 p : env_ptrs) frame.push_back(p);
  frame.push_back(0);
  for (const auto& [tag, value] : auxv) {
    frame.push_back(tag);
    frame.push_back(value);
  }
  std::memcpy(memory_.hostUnchecked(sp), frame.data(), frame.size() * 8);

  auto thread = std::make_unique<Thread>(next_tid_++, memory_, code_);
  HartState& s = thread->hart().state();
  s.pc = image_->entry() + load_bias_;
  s.x[2] = sp;
  thread->place(scheduler_.pickHardwareThread(threads_));
  threads_.push_back(std::move(thread));
  scheduler_.schedule(*threads_.back());
  // A signal that came while the program was loading ends the run before it starts (the
  // tools poll only between scheduling rounds, which a short program may never reach).
  if (interrupt_source_) {
    if (const int signo = interrupt_source_()) {
      interrupt(signo, fmt::format("while loading '{}': nothing ran", path));
    }
  }
}

void Kernel::terminate(Termination termination) {
  if (termination_) return;
  if (!host_only_path_.empty()) {
    termination.report += fmt::format(
        "hpmsim: note: the guest could not open {} although the host has it: the guest's / is "
        "the run's root folder {} (--root chooses it; the default is the current folder)\n",
        host_only_path_, fs_->hostRoot());
  }
  termination_ = std::move(termination);
}

void Kernel::noteMissingPath(const std::string& guest_path, i64 error) {
  if (error != -abi::kENOENT || !host_only_path_.empty() || !guest_path.starts_with('/')) return;
  const auto given = [&guest_path](const std::string& arg) {
    return arg == guest_path || (arg.size() > guest_path.size() && arg.ends_with(guest_path) &&
                                 arg[arg.size() - guest_path.size() - 1] == '=');
  };
  if (argv_.size() < 2 || std::none_of(argv_.begin() + 1, argv_.end(), given)) return;
  // (Only a diagnostic: whether the host has the path changes no result.)
  struct stat st {};
  if (::stat(guest_path.c_str(), &st) == 0) host_only_path_ = guest_path;
}

void Kernel::interrupt(int signo, std::string_view where) {
  Termination term;
  term.refused = true;
  term.status = 128 + signo;
  term.report = where.empty()
                    ? fmt::format(
                          "hpmsim: interrupted by {} at cycle {}: the results cover the run up "
                          "to there\n",
                          signalReportName(signo), elapsedCycles())
                    : fmt::format("hpmsim: interrupted by {} {}\n", signalReportName(signo), where);
  terminate(std::move(term));
}

void Kernel::killProcess(Thread& t, int signal, u64 fault_addr, std::string_view cause) {
  const HartState& s = t.hart().state();
  std::string where = fmt::format("{:#x}", s.pc);
  if (const ElfSymbol* sym = image_->symbolFor(s.pc - load_bias_)) {
    where += fmt::format(" <{}+{:#x}>", sym->name, s.pc - load_bias_ - sym->addr);
  }
  std::string instruction = "(not readable)";
  u8 bytes[4] = {};
  if (memory_.accessible(s.pc, 2, GuestMemory::kRead | GuestMemory::kExec) ||
      memory_.accessible(s.pc, 2, GuestMemory::kExec)) {
    std::memcpy(bytes, memory_.hostUnchecked(s.pc), 2);
    if (isa::instLength(loadUnaligned<u16>(bytes)) == 4 &&
        memory_.accessible(s.pc + 2, 2, GuestMemory::kExec)) {
      std::memcpy(bytes + 2, memory_.hostUnchecked(s.pc + 2), 2);
    }
    instruction = isa::disassemble(isa::decode(loadUnaligned<u32>(bytes)), s.pc);
  }
  Termination term;
  term.by_signal = true;
  term.signal = signal;
  term.status = 128 + signal;
  term.report = fmt::format(
      "hpmsim: guest killed by signal {} {}: {}\n"
      "hpmsim:   thread {} at pc {}\n"
      "hpmsim:   fault address {:#x}\n"
      "hpmsim:   instruction: {}\n",
      signal, signalReportName(signal), cause, t.tid(), where, fault_addr, instruction);
  terminate(std::move(term));
}

void Kernel::handleStop(Thread& t, const Stop& stop) {
  HartState& s = t.hart().state();
  constexpr i32 kSegvMapErr = 1, kSegvAccErr = 2, kIllIllOpc = 1, kBusAdrAln = 1, kTrapBrkpt = 1;
  switch (stop.reason) {
    case StopReason::kBudget:
    case StopReason::kObserver: return;
    case StopReason::kEcall: {
      const u64 number = s.x[17];
      const SyscallArgs args = {s.x[10], s.x[11], s.x[12], s.x[13], s.x[14], s.x[15]};
      if (number < stats_.syscalls.size()) {
        ++stats_.syscalls[number];
      } else {
        ++stats_.syscalls_beyond;
      }
      t.syscall_number = number;
      t.syscall_args = args;
      if (bus_ != nullptr) [[unlikely]] {
        bus_->setNow(std::max(bus_->now(), t.clock()));
        HPM_PROBE(bus_, kSyscalls, 0, 1);
        switch (abi::syscallCategory(number)) {
          case abi::SyscallCategory::kFile: HPM_PROBE(bus_, kSyscallsFile, 0, 1); break;
          case abi::SyscallCategory::kMemory: HPM_PROBE(bus_, kSyscallsMemory, 0, 1); break;
          case abi::SyscallCategory::kThread: HPM_PROBE(bus_, kSyscallsThread, 0, 1); break;
          case abi::SyscallCategory::kSignal: HPM_PROBE(bus_, kSyscallsSignal, 0, 1); break;
          case abi::SyscallCategory::kTime: HPM_PROBE(bus_, kSyscallsTime, 0, 1); break;
          case abi::SyscallCategory::kOther: HPM_PROBE(bus_, kSyscallsOther, 0, 1); break;
        }
      }
      const i64 result = dispatch(t, number, args);
      if (result == kBlocked || finished() || t.exited) return;
      s.x[10] = static_cast<u64>(result);
      deliverSignals(t);  // e.g. a signal the call sent to its own thread
      return;
    }
    case StopReason::kEbreak:
      countFault(t, probe::Event::kFaultsBreakpoint, stats_.faults_breakpoint);
      raiseFault(t, SIGTRAP, kTrapBrkpt, s.pc, "breakpoint (ebreak)");
      return;
    case StopReason::kIllegalInstruction:
      countFault(t, probe::Event::kFaultsIllegal, stats_.faults_illegal);
      raiseFault(t, SIGILL, kIllIllOpc, s.pc, "illegal instruction");
      return;
    case StopReason::kFetchFault:
      countFault(t, probe::Event::kFaultsFetch, stats_.faults_fetch);
      // (A mapping without the access, PROT_NONE included, is SEGV_ACCERR, as on Linux.)
      raiseFault(t, SIGSEGV, space_.vmas().find(stop.addr) ? kSegvAccErr : kSegvMapErr, stop.addr,
                 "instruction fetch from non-executable memory");
      return;
    case StopReason::kLoadFault:
    case StopReason::kStoreFault: {
      countFault(t, probe::Event::kFaultsData, stats_.faults_data);
      const bool mapped = space_.vmas().find(stop.addr) != nullptr;
      const bool load = stop.reason == StopReason::kLoadFault;
      raiseFault(t, SIGSEGV, mapped ? kSegvAccErr : kSegvMapErr, stop.addr,
                 load ? (mapped ? "load from protected memory" : "load from unmapped memory")
                      : (mapped ? "store to protected memory" : "store to unmapped memory"));
      return;
    }
    case StopReason::kMisalignedAtomic:
      countFault(t, probe::Event::kFaultsAlignment, stats_.faults_alignment);
      raiseFault(t, SIGBUS, kBusAdrAln, stop.addr, "misaligned atomic memory operation");
      return;
  }
}

u64 Kernel::elapsedCycles() const {
  u64 latest = 0;
  for (const HardwareThread& slot : scheduler_.slots()) latest = std::max(latest, slot.clock);
  for (const auto& t : threads_) latest = std::max(latest, t->clock());
  return latest;
}

i64 Kernel::unknownSyscall(u64 number) {
  ++stats_.unknown_syscalls;
  HPM_PROBE(bus_, kSyscallsUnknown, 0, 1);
  ++stats_.unknown_by_number[number];
  if (config_.strict_syscalls) {
    Termination term;
    term.refused = true;
    term.status = static_cast<int>(ExitCode::kGuestFault);
    term.report =
        fmt::format("hpmsim: unsupported system call {} ({}) in strict mode (--strict-syscalls)\n",
                    abi::syscallName(number), number);
    terminate(std::move(term));
  }
  return -abi::kENOSYS;
}

}  // namespace hpm

namespace hpm {

probe::DeviceBus Kernel::deviceBus(u64 addr) const {
  const AddressSpace::DeviceWindow* w = space_.deviceWindow(addr, 1);
  if (w == nullptr) {
    fail(ExitCode::kInternal, "a device access at {:#x} outside every device window", addr);
  }
  return devices_->bus(w->device);
}

bool Kernel::read(u64 addr, unsigned size, u64& value) {
  const AddressSpace::DeviceWindow* w = space_.deviceWindow(addr, size);
  if (w == nullptr) return false;
  // Registers are 64-bit: a narrower load reads its part of the register.
  const u64 offset = addr - w->start;
  if ((offset & 7) + size > 8) return false;  // straddles two registers
  const u64 reg = devices_->readRegister(w->device, offset & ~u64{7});
  const unsigned shift = static_cast<unsigned>(offset & 7) * 8;
  value = size == 8 ? reg : (reg >> shift) & ((u64{1} << (size * 8)) - 1);
  return true;
}

bool Kernel::write(u64 addr, unsigned size, u64 value) {
  const AddressSpace::DeviceWindow* w = space_.deviceWindow(addr, size);
  if (w == nullptr) return false;
  const u64 offset = addr - w->start;
  if ((offset & 7) + size > 8) return false;
  if (size == 8) {
    devices_->writeRegister(w->device, offset, value);
  } else {
    // A narrower store never reads the register (a read may pop a FIFO or clear a status):
    // the device says what it does (device.h).
    devices_->writeNarrow(w->device, offset, size, value & ((u64{1} << (size * 8)) - 1));
  }
  return true;
}

void Kernel::countFault(const Thread& t, probe::Event e, u64& stat) {
  ++stat;
  if (bus_ != nullptr && bus_->wants(e, 0)) [[unlikely]] {
    bus_->setNow(std::max(bus_->now(), t.clock()));
    bus_->pulse(e, 0, 1);
  }
}

void Kernel::counterInterrupt(int tid, int signo, i32 unit, i32 counter, Cycle when) {
  for (const auto& t : threads_) {
    if (t->tid() != tid || t->exited) continue;
    // The counter unit interrupts the thread's hardware thread: a performance-monitor
    // interrupt, which CNK's handler counts (PEVT_CNKHWT_PERFMON) and turns into the signal.
    ++stats_.counter_interrupts[t->slot];
    if (bus_ != nullptr) [[unlikely]] {
      if (bus_->wants(probe::Event::kCounterInterrupts, 0)) {
        bus_->setNow(std::max(bus_->now(), when));
        bus_->pulse(probe::Event::kCounterInterrupts, 0, 1);
      }
      if (bus_->wants(probe::Event::kPerfMonInterruptsTaken, t->slot)) {
        bus_->setNow(std::max(bus_->now(), when));
        bus_->pulse(probe::Event::kPerfMonInterruptsTaken, t->slot, 1);
      }
    }
    SigInfo info;
    info.signo = signo;
    info.code = kHpmSiCounter;
    std::memcpy(info.fields, &unit, 4);
    std::memcpy(info.fields + 4, &counter, 4);
    const u64 cycle = when;
    std::memcpy(info.fields + 8, &cycle, 8);
    sendToThread(*t, info, when, nullptr);
    return;
  }
}

void Kernel::interProcessorInterrupt(u32 from, u32 to) {
  // CNK, in a call of a thread on one hardware thread, makes a thread on another runnable
  // (Sched_Unblock) or gives it a signal (Signal_Deliver) by an inter-processor interrupt: a
  // message for the target and a write to the BIC's core-to-core send register, which raises
  // an external input interrupt on the target hardware thread (docs/kernel.md "Interrupts").
  // On its own hardware thread it needs none.
  if (from == to) return;
  ++stats_.external_interrupts[to];
  HPM_PROBE(bus_, kExternalInterrupts, 0, 1);
  HPM_PROBE(bus_, kExternalInterruptsTaken, to, 1);
}

}  // namespace hpm
