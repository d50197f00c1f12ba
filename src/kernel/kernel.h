// The compute-node kernel: runs one guest process (its threads on the node's hardware threads),
// emulating the Linux system calls that static glibc, libstdc++ and libgomp programs use, with
// simulated time, a sandboxed file system and deterministic randomness.
//
// The kernel never prints: the report of a guest killed by a signal, and any refusal (an unknown
// system call in strict mode), are kept in Termination for the tool to print.
#pragma once

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/types.h"
#include "config/schema.h"
#include "hart/code_cache.h"
#include "hart/hart.h"
#include "hart/memory.h"
#include "kernel/abi.h"
#include "kernel/address_space.h"
#include "kernel/device.h"
#include "kernel/elf.h"
#include "kernel/files.h"
#include "kernel/futex.h"
#include "kernel/scheduler.h"
#include "kernel/signal_state.h"
#include "kernel/thread.h"
#include "kernel/timer_table.h"
#include "kernel/vma.h"
#include "stats/probe.h"
#include "stats/stats.h"

namespace hpm {

// Behaviour of the kernel that a machine description may set.
struct KernelParams {
  // AT_PLATFORM string; empty gives none, as Linux builds the auxiliary vector on riscv64.
  std::string platform;
  // set_robust_list succeeds (Linux) or returns ENOSYS (qemu-user 7.2, which lacks it; the
  // comparison tests use that so glibc takes the same path under both).
  bool robust_futex_lists = true;
  // Seed of getrandom, /dev/urandom and AT_RANDOM: runs are deterministic.
  u64 random_seed = 0x68706d73696dull;
  // Functional mode: instructions a thread runs before the next one is scheduled.
  u64 quantum = 10000;
  // Timing modes: how many cycles a hardware thread may run ahead of the earliest other one
  // (0: strictly in cycle order, as the timing model assumes; more trades exactness of the
  // interference between hardware threads for simulation speed).
  u64 lookahead = 0;
  // The guest's virtual address space in GiB: its stack sits at the top, PIE programs at two
  // thirds. The default is Sv39's user half, as Linux gives a riscv64 process; hpmsim reserves
  // that much host address space (no memory), so under `ulimit -v` a smaller space fits.
  u64 address_space_gib = 256;
  // Decoded guest code kept at most, in MiB: past it the code cache starts again empty (a
  // host-side cost only; simulated results do not depend on it).
  u64 code_cache_mib = 64;
  // Functional mode: a thread found in a loop that only loads a few words (a spin wait) is
  // parked until one of them changes, instead of spinning through its quanta
  // (kernel/polling.cpp). Its results are those of a run in which the thread was descheduled
  // while it waited; only the instructions it would have spun are not run.
  bool park_polls = true;
  // ... and a parked thread whose words did not change runs again after this many cycles
  // (twice as many after each such park in a row, up to 64 times as many), so that a loop
  // that polls for long (or was not a wait) still goes on.
  u64 poll_park_cycles = 65536;
  // ... and a running thread is probed for a poll every this many instructions.
  u64 poll_probe_interval = 1000;

  void visit(config::Visitor& v) {
    v.param("platform", platform, "AT_PLATFORM string given to the guest; empty for none");
    v.param("robust_futex_lists", robust_futex_lists,
            "Whether set_robust_list is supported (false: ENOSYS, as in qemu-user)");
    v.param("random_seed", random_seed, "Seed of the guest's random numbers");
    v.param("quantum", quantum, "Functional-mode scheduling quantum in instructions",
            config::Range{1, 1e12});
    v.param("lookahead", lookahead,
            "Timing modes: cycles a hardware thread may run ahead of the earliest other one "
            "(0: strict cycle order)",
            config::Range{0, 1e9});
    v.param("address_space_gib", address_space_gib,
            "The guest's virtual address space in GiB (256: Sv39's user half); hpmsim reserves "
            "this much host address space, which costs no memory but counts against ulimit -v",
            config::Range{1, 256});
    v.param("code_cache_mib", code_cache_mib,
            "Decoded guest code kept at most, in MiB, before the code cache starts again empty "
            "(host memory only; results do not depend on it)",
            config::Range{1, 65536});
    v.param("park_polls", park_polls,
            "Functional mode: park a thread that spins on a few words of memory until another "
            "thread changes one (false: it spins through its quanta)");
    v.param("poll_park_cycles", poll_park_cycles,
            "Functional mode: cycles after which a parked polling thread runs again though its "
            "words did not change (doubling for each such park in a row, up to 64 times)",
            config::Range{1, 1e12});
    v.param("poll_probe_interval", poll_probe_interval,
            "Functional mode: instructions between two looks at whether a thread polls",
            config::Range{1, 1e12});
  }
};

// One cache level as Linux describes it under /sys/devices/system/cpu/cpu<N>/cache/index<i>/.
struct CacheDescription {
  u32 level = 1;
  std::string type = "Data";  // Data, Instruction or Unified
  u64 size_bytes = 0;
  u32 line_bytes = 64;
  u32 ways = 1;
};

struct KernelConfig {
  KernelParams params;
  u32 cores = 16;
  u32 threads_per_core = 4;
  u64 clock_hz = 1'600'000'000;
  u64 memory_bytes = u64{16} << 30;      // reported by sysinfo and /proc/meminfo
  std::string node_name = "bgq";         // uname nodename and /proc/cpuinfo
  std::string root = ".";                // the sandbox root: the guest's "/"
  bool strict_syscalls = false;          // an unknown system call stops the run
  bool host_time = false;                // wall-clock time from the host instead of simulated
  std::vector<CacheDescription> caches;  // every CPU's, index 0 first (/sys, for PAPI's tools)
  // The simulator's run mode ("functional", "warmup", "timing", "profile"), which the guest
  // reads from /proc/hpmsim/mode (its libraries offer only the events the mode counts:
  // docs/papi.md "Run modes"); empty: the file does not exist.
  std::string run_mode;
  // The host descriptors the guest's standard input, output and error duplicate (a node of a
  // many-node run writes to its own; the descriptors stay the caller's).
  std::array<int, 3> stdio{0, 1, 2};

  u32 hardwareThreads() const { return cores * threads_per_core; }
};

struct KernelStats {
  std::array<u64, 512> syscalls{};  // calls by number below 512
  u64 syscalls_beyond = 0;          // calls numbered 512 or more (no row: unknown, kOther)
  u64 unknown_syscalls = 0;
  std::map<u64, u64> unknown_by_number;
  u64 threads_created = 0;
  u64 migrations = 0;  // threads moved to another hardware thread (sched_setaffinity)
  u64 futex_waits = 0;
  u64 signals_sent = 0;
  u64 signals_delivered = 0;  // handler frames built
  u64 futex_wakes = 0;        // threads woken by futex wakes
  u64 thread_exits = 0;
  u64 timer_expirations = 0;  // interval and POSIX timer expirations
  u64 io_reads = 0;           // successful reads and writes, and their bytes
  u64 io_writes = 0;
  u64 io_bytes_read = 0;
  u64 io_bytes_written = 0;
  u64 console_writes = 0;  // writes to guest descriptors 1 and 2
  u64 console_bytes = 0;
  u64 opens = 0;  // files opened (openat that succeeded)
  // Faults by kind (whether a handler took them or they killed the process).
  u64 faults_data = 0, faults_fetch = 0, faults_alignment = 0, faults_illegal = 0;
  u64 faults_breakpoint = 0;
  // Interrupts taken, by hardware thread (docs/kernel.md "Interrupts"; the kernel sizes them to
  // the node's): the kernel's inter-processor interrupts (external inputs), and the counter
  // units' interrupts queued for a thread (performance-monitor interrupts).
  std::vector<u64> external_interrupts;
  std::vector<u64> counter_interrupts;
  u64 memory_refusals = 0;  // brk, mmap, mremap, mprotect refused: node memory exhausted
  u64 slices = 0;           // scheduler picks that ran a thread
  u64 empty_slices = 0;     // ... of which retired no instruction (a timed wait to issue)
  u64 core_switches = 0;    // ... of which ran a thread of another core than the pick before
  // Functional mode's polling threads (KernelParams::park_polls): parks, and how they ended.
  u64 poll_parks = 0;
  u64 poll_wakes_changed = 0;  // a polled word changed
  u64 poll_wakes_timeout = 0;  // poll_park_cycles passed
  u64 poll_wakes_idle = 0;     // no other thread could run, or one yielded
  u64 poll_wakes_signal = 0;   // a signal came
  u64 poll_parked_cycles = 0;  // cycles threads spent parked

  void visit(stats::Visitor& v) const;
};

// How the guest ended.
struct Termination {
  int status = 0;          // the process exit status hpmsim returns
  bool by_signal = false;  // killed by `signal`
  int signal = 0;
  std::string report;    // multi-line report when by_signal or refused; empty otherwise
  bool refused = false;  // the kernel stopped the run (strict mode, deadlock, ...)
};

class Kernel : public MemoryDevice, public TouchListener {
 public:
  explicit Kernel(KernelConfig config);
  ~Kernel();

  // Loads a static RV64 program and builds its initial stack; creates the main thread.
  // `argv` and `envp` reach the guest exactly as given. Throws Error for bad programs.
  void exec(const std::string& path, const std::vector<std::string>& argv,
            const std::vector<std::string>& envp);

  // Handles a stop of a thread's run loop (system call, fault, ...).
  void handleStop(Thread& thread, const Stop& stop);

  // Runs one scheduler slice of a thread; the run mode provides it. A virtual call rather than
  // a std::function: in the timing modes a slice is a few instructions, so the call is paid
  // about once per instruction.
  class SliceRunner {
   public:
    virtual ~SliceRunner() = default;
    // Runs `thread` until its clock (HartState::cycle) reaches `limit`. The functional runner
    // runs at least one instruction and may overshoot by what one block of instructions takes;
    // the timing modes' runner stops before the first instruction that would issue after
    // `limit` (possibly the first: then only the clock moves, to that instruction's issue
    // cycle).
    virtual Stop runSlice(Thread& thread, u64 limit) = 0;
    // Under Interleaving::kQuantum, asked at each pick: whether this pick's slice must keep the
    // hardware threads' instructions in cycle order, as kEarliestFirst does (the functional
    // mode while a counter unit is in use: its units must see events in time order). A slice
    // in cycle order stops before the first instruction past its limit, as the timing modes'.
    virtual bool cycleOrder() const { return false; }
  };
  // Called between scheduling rounds so a tool can show progress; may be empty.
  using ProgressFn = std::function<void()>;
  // Calls `hook` with the cycle B = `first`, and then at each cycle B it returns (~0: no more;
  // a cycle not after the call's is taken as the next one), once every hardware thread has done
  // all it does before B and nothing at or after B: slices end before B (in the timing modes,
  // where a slice stops before an instruction that would issue past its limit; the functional
  // mode overshoots by up to a block). The call comes before timers expiring at B. In the
  // timing modes the hook changes nothing in the run: a slice that B alone cut goes on after
  // it as if uncut (CutSlice). An empty hook removes it.
  void setTimedHook(u64 first, std::function<u64(u64 when)> hook);
  // The physical address of a virtual one, or nullopt while its page has no frame: set when the
  // node's memory is not mapped 1:1 (sunfire's boards; mem/frames.h). /proc/self/pagemap shows
  // it; without one a touched page's frame is its page number.
  using FrameSource = std::function<std::optional<u64>(u64 va)>;
  void setFrameSource(FrameSource source) { frame_source_ = std::move(source); }
  // Called before the guest writes to the host's standard output or error, so that a tool
  // showing a progress line on the terminal can erase it first; may be empty.
  void setBeforeConsoleWrite(std::function<void()> hook) {
    before_console_write_ = std::move(hook);
  }

  // Runs the process until it ends. The scheduler always runs the hardware thread with the
  // earliest clock (ties: the one that ran least recently), its guest threads in turn; a slice
  // ends at the next timer or timeout, and as `interleaving` says. Deterministic.
  void run(SliceRunner& runner, Interleaving interleaving, const ProgressFn& progress = {});
  // The functional mode: one instruction per cycle per hardware thread.
  void runFunctional(const ProgressFn& progress = {});

  bool finished() const { return termination_.has_value(); }
  // Ends the run at once, as the host signal `signo` asked (SIGINT, SIGTERM): the guest's state
  // and every statistic stay as they are, the termination's status is 128 + signo and its report
  // says where the run stopped (its cycle, or `where`). Nothing if the run has ended already.
  void interrupt(int signo, std::string_view where = {});
  // Where the tool's interrupts come from (the host signal received, or 0; may be empty): the
  // kernel asks between scheduling rounds, and when a host call the guest is blocked in
  // (a read of a terminal or a pipe from outside, a poll of them) returns EINTR, and then
  // interrupts the run.
  using InterruptSource = std::function<int()>;
  void setInterruptSource(InterruptSource source) { interrupt_source_ = std::move(source); }
  // A limit the tool keeps on the host (its memory budget): asked with the interrupts and, with
  // `grown` true, after every kLimitCheckPages pages the guest first touches; a reason it gives
  // ends the run there (status 71, ExitCode::kHost; the report says why), every statistic kept.
  using LimitSource = std::function<std::optional<std::string>(bool grown)>;
  void setLimitSource(LimitSource source) { limit_source_ = std::move(source); }
  static constexpr u64 kLimitCheckPages = 4096;  // 16 MiB of guest pages
  // Asks the interrupt and limit sources; true when the run has ended (now or before).
  bool pollInterrupt() {
    if (interrupt_source_) {
      if (const int signo = interrupt_source_()) interrupt(signo);
    }
    checkLimit(false);
    return finished();
  }
  void checkLimit(bool grown);
  const Termination& termination() const { return *termination_; }
  // Ends the run from outside the process (another node of a many-node run failed): `report`
  // says why, the status is `status`. Nothing if the run has ended already.
  void endRun(int status, std::string report);

  // ---- many nodes (net/): each node's kernel is driven window by window ----
  // Where run() stops: once every hardware thread has done all it does before `cycle` (as a
  // timed hook at `cycle` sees it; the hook at the same cycle comes first), run() returns, and a
  // later call goes on from there, in the timing modes exactly as an unpaused run would
  // (CutSlice). ~0 (the default): run to the end.
  void setPausePoint(u64 cycle) { pause_at_ = cycle; }
  // With outside wakes, a process whose every thread is blocked with nothing due is not
  // deadlocked: a packet from another node may wake it. run() then returns with
  // waitingOutside() true, and the caller delivers something or declares the deadlock.
  void allowOutsideWakes(bool on) { outside_wakes_ = on; }
  bool waitingOutside() const { return waiting_outside_; }
  // Calls `action(when)` at cycle `when`, between slices and in time order with the timers
  // (`when` not before any thread's next slice: the caller's windows guarantee it).
  void at(u64 when, std::function<void(u64 now)> action);
  // Wakes every thread waiting in futex on guest address `addr`, as FUTEX_WAKE would at `when`.
  // (No interrupt: BG/Q's wake-up unit resumes a thread waiting on the word the message unit
  // writes; docs/kernel.md "Interrupts".)
  i64 wakeFutexWaiters(u64 addr, u64 when) { return futexWake(addr, ~0u, ~0u, when, nullptr); }

  const std::vector<std::unique_ptr<Thread>>& threads() const { return threads_; }
  const std::vector<HardwareThread>& hardwareThreads() const { return scheduler_.slots(); }
  const KernelStats& stats() const { return stats_; }
  // Cycles the process's threads have run so far, over every hardware thread (its CPU time).
  u64 processCpuCycles() const { return scheduler_.busyCycles(); }
  // In the timing modes, while a slice runs: the hardware thread the scheduler would pick if the
  // running one were done (MinTree::kNone if none), most often the next pick. A runner may
  // fetch its state ahead.
  u32 nextHint() const { return scheduler_.nextHint(); }
  // The counter devices under /dev/hpm/ (null: none); see device.h.
  void addDeviceProvider(DeviceProvider* provider) {
    device_chain_.add(provider);
    devices_ = &device_chain_;
    space_.setDevices(devices_);
  }
  // Queues a counter unit's interrupt for thread `tid` as signal `signo`, at cycle `when`.
  void counterInterrupt(int tid, int signo, i32 unit, i32 counter, Cycle when);
  // Counts a fault of kind `e` in `stat` (and on the bus, at the faulting thread's clock).
  void countFault(const Thread& t, probe::Event e, u64& stat);

  // The bus of the device whose window holds `addr`, a device page's address (DeviceProvider::bus).
  probe::DeviceBus deviceBus(u64 addr) const;
  // MemoryDevice: guest accesses to mapped device windows.
  bool read(u64 addr, unsigned size, u64& value) override;
  bool write(u64 addr, unsigned size, u64 value) override;
  // TouchListener: a guest instruction's first access to a page (PageFirstTouches, at the
  // bus's cycle: the instruction's).
  void firstTouch(u64 page) override;

  // Kernel and I/O events also go to `bus` (null: none); see stats/probe.h.
  void setProbe(probe::Bus* bus) {
    bus_ = bus;
    space_.setProbe(bus);
  }
  // The kernel's events and the statistics that are their ground truth (probe::TruthRow).
  static std::span<const probe::TruthRow<Kernel>> truthTable();
  std::optional<u64> groundTruth(probe::Event e, u32 instance) const {
    return probe::truthOf(truthTable(), *this, e, instance);
  }
  probe::Bus* probeBus() const { return bus_; }
  void visitStats(stats::Visitor& v) const;
  const ElfImage& image() const { return *image_; }
  u64 loadBias() const { return load_bias_; }
  const KernelConfig& config() const { return config_; }
  GuestMemory& memory() { return memory_; }
  const GuestMemory& memory() const { return memory_; }
  // The process's mappings now ([stack], [heap], the program's segments, mmaps).
  const VmaMap& memoryMap() const { return space_.vmas(); }
  // The page size (log2) of `addr` in CNK's static large-page mapping (AddressSpace).
  u32 staticPageBits(u64 addr) const { return space_.staticPageBits(addr); }
  // The simulated time of the whole run: the latest clock of any hardware thread.
  u64 elapsedCycles() const;

  // Simulated nanoseconds since boot at a cycle, and cycles in a span of nanoseconds (kNever
  // when the span is longer than a cycle count can hold: some 365 years at 1.6 GHz).
  u64 nanosAt(u64 cycle) const;
  u64 cyclesFor(u64 nanos) const;
  // A time that never comes: a timeout or timer this far away never expires (Linux clamps such
  // times to KTIME_MAX, some 292 years, which no run reaches either).
  static constexpr u64 kNever = ~u64{0};
  // `cycles` after `now`, or kNever when that is past what a cycle count can hold.
  static u64 cyclesAfter(u64 now, u64 cycles) {
    return cycles > kNever - now ? kNever : now + cycles;
  }
  // A timespec's or timeval's length in nanoseconds (fields already checked non-negative),
  // saturating at kNever.
  static u64 spanNanos(i64 sec, i64 nsec) {
    const u128 n = static_cast<u128>(sec) * 1'000'000'000u + static_cast<u128>(nsec);
    return n > kNever ? kNever : static_cast<u64>(n);
  }
  // The time of a Linux clock (CLOCK_REALTIME, ...) for thread `t`, in nanoseconds.
  u64 clockNanos(const Thread& t, u64 clock) const;

  // "SIGSEGV (segmentation fault)", for reports.
  static std::string signalReportName(int signal);

  // Simulated wall-clock time starts at 2026-01-01T00:00:00Z.
  static constexpr i64 kEpochSeconds = 1767225600;
  // A system call that blocked its thread: the result is written when the wait ends.
  static constexpr i64 kBlocked = INT64_MIN;

 private:
  // ---- scheduling and blocking (run.cpp, threads.cpp; the state: scheduler_) ----
  using Event = Scheduler::Event;
  void block(Thread& t, WaitKind kind, std::optional<u64> deadline);
  // Ends a wait: the blocked system call returns `result` (or restarts) at time `when`.
  void wake(Thread& t, i64 result, u64 when);
  void fireEvent(const Event& e);
  // Completes the calls of threads waiting on a guest pipe that is now ready, at time `now`.
  // Returns whether any thread was woken.
  bool pollFileWaits(u64 now);
  // ---- the functional mode's polling threads (polling.cpp) ----
  // Runs a functional slice of `t` up to `limit`, with a probe every poll_probe_interval
  // instructions, and parks `t` when a probe sees a poll.
  Stop runPolling(SliceRunner& runner, Thread& t, u64 limit);
  // Runs at most PollProbe::kMaxRun instructions of `t` under a PollProbe (none when its next
  // block has an effect) and parks `t` when they are a poll.
  Stop probe(Thread& t, u64 limit);
  // Wakes, at `when`, every parked thread one of whose words no longer holds its value.
  void wakeChangedPolls(u64 when);
  // Wakes every parked thread at its own clock (no other thread can run).
  void wakeParkedPolls();
  // Whether a probe can tell anything: another thread lives that could write.
  bool othersLive() const { return stats_.threads_created > stats_.thread_exits; }
  void threadExit(Thread& t, int code);

  // Runs `t`, the front of hardware thread `index`, up to `limit`, and handles how it stopped.
  // `polls`: the functional mode's polling probes (runPolling).
  Stop runSlice(SliceRunner& runner, u32 index, Thread& t, u64 limit, bool polls);
  // Whether a slice that stopped with `stop` was cut by `limit` where its own limit was `own`
  // (`own` without the timed hook and the pause point): see CutSlice.
  bool isCut(const Stop& stop, const Thread& t, u64 limit, u64 own) const;
  // run()'s step while a cut slice waits (CutSlice): runs it on, unless the hook or the pause
  // comes first or the slice cannot go on (then the cut is dropped). Returns whether it ran.
  bool resumeCut(SliceRunner& runner, u64 best_start, u64 next_event);
  // Counts a slice that ended (KernelStats::slices, empty_slices).
  void endSlice(const Thread& t, u64 instret_start);

  // ---- system calls ----
  // Calls the row's handler of kernel/syscall_table.h (unknownSyscall without a row).
  i64 dispatch(Thread& t, u64 number, const SyscallArgs& a);
  // A handler, as every row names one.
  using SyscallHandler = i64 (Kernel::*)(Thread& t, u64 number, const SyscallArgs& a);
  i64 unknownSyscall(u64 number);
  // A path the guest gave that did not resolve (`error`): when it is absolute, came from the
  // program's arguments (alone or after '=': the user gave it, not a library looking for
  // /etc/localtime) and exists on the host outside the root, the first such is kept for the
  // note the run's end gives (terminate): a user who passes the host's absolute paths learns
  // that the guest's / is the root folder.
  void noteMissingPath(const std::string& guest_path, i64 error);
  // A known call that is not emulated: answered as an unknown one.
  i64 sysUnsupported(Thread& t, u64 number, const SyscallArgs& a);
  // Process identity, limits and system information (syscalls.cpp).
  i64 sysExitGroup(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysGetpid(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysGetppid(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysGetuid(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysGeteuid(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysGetgid(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysGetegid(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysUmask(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysPrctl(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysUname(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysSysinfo(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysRlimit(Thread& t, u64 number, const SyscallArgs& a);  // getrlimit, setrlimit, prlimit64
  i64 sysGetrandom(Thread& t, u64 number, const SyscallArgs& a);
  void terminate(Termination termination);
  void killProcess(Thread& t, int signal, u64 fault_addr, std::string_view cause);
  u64 nextRandom();
  void fillRandom(u8* out, std::size_t n);

  // Threads and synchronisation (threads.cpp; the small calls in syscalls.cpp).
  i64 sysClone(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysClone3(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysExit(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysGettid(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysSetTidAddress(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysSetRobustList(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysSchedYield(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysAffinity(Thread& t, u64 number, const SyscallArgs& a);  // sched_[gs]etaffinity
  i64 sysGetcpu(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysFutex(Thread& t, u64 number, const SyscallArgs& a);
  // `waker`: the thread whose call wakes them (null: the message unit, from outside the node's
  // threads), which sends an inter-processor interrupt to each one on another hardware thread.
  i64 futexWake(u64 addr, u32 count, u32 bitset, u64 when, const Thread* waker);
  i64 sysSleep(Thread& t, u64 number, const SyscallArgs& a);
  void processRobustList(Thread& t);

  // Signals (signals.cpp).
  i64 sysSigaction(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysSigprocmask(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysSigaltstack(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysSigreturn(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysSigsuspend(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysSigtimedwait(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysSigpending(Thread& t, u64 number, const SyscallArgs& a);
  // kill, tkill, tgkill, rt_sigqueueinfo and rt_tgsigqueueinfo.
  i64 sysKill(Thread& t, u64 number, const SyscallArgs& a);
  // Queues a signal for a thread (tgkill) or the process (kill, timers); wakes a waiter.
  // `sender`: the thread whose call sends it (null: the kernel's timers and the counter units),
  // which interrupts the target's hardware thread when it is another.
  void sendToThread(Thread& target, const SigInfo& info, u64 when, const Thread* sender);
  void sendToProcess(const SigInfo& info, u64 when, const Thread* sender);
  // A synchronous fault: delivered at once to `t` (its handler runs next) or ends the process.
  void raiseFault(Thread& t, int signal, i32 code, u64 addr, std::string_view cause);
  // Delivers the first deliverable pending signal of `t`, if any: builds the handler's frame
  // or applies the default action. Returns true if a handler frame was set up.
  bool deliverSignals(Thread& t);
  bool signalPendingFor(const Thread& t) const;
  bool takeSignal(Thread& t, u64 set, SigInfo& out);
  void setupFrame(Thread& t, const SigInfo& info, const SignalAction& action);
  // Interrupts a blocked thread for a signal: its call returns EINTR or restarts.
  void interruptWait(Thread& t, u64 when);

  // Interrupts (docs/kernel.md "Interrupts"; kernel.cpp). A system call on hardware thread
  // `from` made a thread on hardware thread `to` runnable or gave it a signal: an
  // inter-processor interrupt when they differ, which `to` takes as an external input interrupt
  // (at no simulated cost).
  void interProcessorInterrupt(u32 from, u32 to);

  // Timers (timers.cpp).
  i64 sysSetitimer(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysGetitimer(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysTimerCreate(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysTimerSettime(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysTimerGettime(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysTimerGetoverrun(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysTimerDelete(Thread& t, u64 number, const SyscallArgs& a);
  // (setitimer, timer_settime and timer_delete: their handlers note the change afterwards.)
  i64 armItimer(Thread& t, const SyscallArgs& a);
  i64 armPosixTimer(Thread& t, const SyscallArgs& a);
  i64 deletePosixTimer(const SyscallArgs& a);
  void checkCpuTimers(u64 when);
  u64 cpuTimerBudget() const;  // cycles of process CPU time until the next CPU-time timer
  // The thread whose CPU time `clock` counts (nullptr: the process's), for
  // CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID and the clock ids that
  // clock_getcpuclockid and pthread_getcpuclockid make; false if `clock` is no CPU-time clock
  // of this process.
  bool cpuClock(u64 clock, const Thread& caller, const Thread** owner) const;
  // The current value of a CPU-time timer's clock, in cycles.
  u64 cpuTimerNow(const PosixTimer& pt) const;
  // A POSIX timer expired `expirations` times at `when`: queues its signal, or counts overruns
  // while the signal it queued earlier has not been taken.
  void expirePosixTimer(std::size_t id, u64 expirations, u64 when);
  // Called for every signal taken from a pending queue: a timer's signal gets its overrun count.
  void timerSignalTaken(SigInfo& info);

  // Memory management (memory_syscalls.cpp; the work: space_).
  i64 sysBrk(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysMmap(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysMunmap(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysMprotect(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysMremap(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysMadvise(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysMsync(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysFlushIcache(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysMembarrier(Thread& t, u64 number, const SyscallArgs& a);

  // Files: descriptors (fd_syscalls.cpp), paths and /proc (file_syscalls.cpp).
  // Reads a path argument as Linux does: -EFAULT if a byte before its end cannot be read,
  // -ENAMETOOLONG if it has no terminator within PATH_MAX (4096) bytes, else 0.
  i64 readPath(u64 addr, std::string& out) const;
  std::string guestPath(i64 dirfd, const std::string& path, i64* error) const;
  i64 openVirtual(const std::string& normalized, int flags, bool* handled);
  i64 sysOpenat(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysClose(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysLseek(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysDup(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysDup3(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysPipe2(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysGetcwd(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysChdir(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysFchdir(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysFtruncate(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysFsync(Thread& t, u64 number, const SyscallArgs& a);  // and fdatasync
  i64 sysFchmod(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysReadWrite(Thread& t, u64 number, const SyscallArgs& a);  // read, write, readv, ... pwritev
  i64 sysStat(Thread& t, u64 number, const SyscallArgs& a);       // newfstatat
  i64 sysStatx(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysFstat(Thread& t, u64 number, const SyscallArgs& a);
  i64 statFd(i64 fd, u64 stat_addr);
  i64 sysPathOp(Thread& t, u64 number, const SyscallArgs& a);  // mkdirat, unlinkat, ...
  i64 sysReadlinkat(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysIoctl(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysFcntl(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysGetdents(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysPpoll(Thread& t, u64 number, const SyscallArgs& a);

  // Clocks (timers.cpp).
  i64 sysClockGettime(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysClockGetres(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysGettimeofday(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysTimes(Thread& t, u64 number, const SyscallArgs& a);
  i64 sysGetrusage(Thread& t, u64 number, const SyscallArgs& a);
  i64 writeTimespec(u64 addr, u64 nanos);
  // /proc files (file_syscalls.cpp).
  std::string procFileText(const std::string& normalized) const;
  // /proc/self/pagemap as of now: a host descriptor (memfd) or -errno.
  int pagemapFile() const;

  KernelConfig config_;
  FrameSource frame_source_;
  GuestMemory memory_;
  CodeCache code_;
  AddressSpace space_;  // mappings, break, mmap area, device windows
  FdTable fds_;
  std::unique_ptr<FileSystem> fs_;
  std::unique_ptr<ElfImage> image_;
  std::vector<std::unique_ptr<Thread>> threads_;
  std::string exe_guest_path_;
  u64 load_bias_ = 0;
  u32 umask_ = 022;
  std::array<abi::Rlimit, 16> rlimits_{};
  std::array<u64, 4> random_state_{};
  std::optional<Termination> termination_;
  std::string host_only_path_;     // noteMissingPath's first path (empty: none)
  std::vector<std::string> argv_;  // exec's arguments (for noteMissingPath)
  InterruptSource interrupt_source_;
  LimitSource limit_source_;
  u64 pages_since_limit_check_ = 0;
  KernelStats stats_;
  std::function<void()> before_console_write_;  // see setBeforeConsoleWrite
  u64 next_hook_ = ~u64{0};                     // the timed hook's next call (setTimedHook)
  std::function<u64(u64)> timed_hook_;
  u64 pause_at_ = ~u64{0};  // see setPausePoint
  bool outside_wakes_ = false;
  bool waiting_outside_ = false;
  std::map<u64, std::function<void(u64)>> outside_actions_;  // at(), by key
  u64 next_outside_key_ = 0;
  int next_tid_ = 1;
  int last_exit_code_ = 0;

  Scheduler scheduler_;  // hardware threads, ready tree, events (the fields of every pick)
  FutexQueues futexes_;  // threads blocked in FUTEX_WAIT, by address
  std::vector<Thread*> fd_waiters_;
  std::vector<Thread*> parked_;   // WaitKind::kPoll, in the order they parked
  SignalState signals_;           // actions, and the signals queued for the process
  TimerTable timers_;             // interval and POSIX timers
  u64 sigreturn_trampoline_ = 0;  // guest address of `li a7, 139; ecall`
  probe::Bus* bus_ = nullptr;
  DeviceChain device_chain_;           // every provider added
  DeviceProvider* devices_ = nullptr;  // the chain once one is added
  // A slice that the timed hook or the pause point alone cut short (run(), earliest-first
  // order). At a tie a running thread goes on (it issues up to its limit, the others' clock),
  // while a picked one waits for those that ran less recently: so its thread goes on, after the
  // hook or the pause, with the limit it would have had, before anything else, and sampling a
  // run or pausing it between windows changes nothing in it.
  struct CutSlice {
    u32 index = 0;  // its hardware thread
    Thread* thread = nullptr;
    u64 limit = 0;          // the slice's limit without the hook and the pause point
    u64 instret_start = 0;  // (for the empty-slice statistic: one slice, counted at its end)
  };
  std::optional<CutSlice> cut_;  // (last: the scheduler's hot fields keep their lines)
};

}  // namespace hpm
