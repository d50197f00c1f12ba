// A simulated node running one guest program: the kernel, and in the warm-up, timing and profile
// modes the timing model (core/node_timing.h), driven instruction by instruction.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "core/node_timing.h"
#include "kernel/kernel.h"
#include "node/machine.h"
#include "stats/stats.h"

namespace hpm {

enum class RunMode : u8 {
  kFunctional,  // instructions only: one per cycle per hardware thread, no memory hierarchy
  // The caches see every access (statistics), still one instruction per cycle. Hardware threads
  // run in cycle order, as in the timing modes: the caches see the threads' accesses
  // interleaved as they would be, and a counter unit sees its events in time order (with
  // slices of many cycles per thread it would see bursts no real unit could count).
  kWarmup,
  kTiming,   // the timing model decides when every instruction issues (the default)
  kProfile,  // timing, plus interval samples per core and a flat profile by function
};

std::optional<RunMode> parseRunMode(std::string_view name);
std::string_view runModeName(RunMode mode);

struct RunOptions {
  RunMode mode = RunMode::kTiming;
  std::string root = ".";         // the guest's "/"
  bool strict_syscalls = false;   // an unsupported system call stops the run
  bool host_time = false;         // wall-clock time from the host
  u64 profile_interval = 100000;  // profile mode: cycles between samples
  // The host descriptors of the guest's standard input, output and error (KernelConfig::stdio).
  std::array<int, 3> stdio{0, 1, 2};
  // The node has a device whose registers need their access's cycle (accessCycle): the timing
  // modes then keep the probe bus's clock even without a counter unit.
  bool timed_devices = false;
  // The unit families monitor.unit may name (node/families.h).
  std::vector<UnitFamily> families = unitFamilies();
};

// Guest-marked regions: `slti x0, x0, ID` opens region ID and `sltiu x0, x0, ID` closes it
// (architectural no-ops: HINT encodings, so marked programs run unchanged anywhere). Names come
// from the ELF section ".hpm_regions" (guest/include/hpm/region.h).
struct RegionTotals {
  u64 entries = 0;
  u64 instructions = 0;
  u64 cycles = 0;
  std::array<u64, timing::kStallCount> stalls{};
};
struct RegionReport {
  u32 id = 0;
  std::string name;
  RegionTotals total;                                   // all threads
  std::vector<std::pair<int, RegionTotals>> by_thread;  // (tid, totals), by tid
};

// One thread's stay in a region, for timelines (the first kMaxRegionSpans of a run are kept).
struct RegionSpan {
  int tid = 0;
  u32 id = 0;
  Cycle begin = 0;
  Cycle end = 0;
};
inline constexpr std::size_t kMaxRegionSpans = 10000;

// Profile mode: one sample per core every RunOptions::profile_interval cycles.
struct ProfileSample {
  u32 core = 0;
  Cycle cycle = 0;               // end of the interval
  std::vector<double> pipe_ipc;  // instructions per cycle of each pipe (XU pipes, then AXU)
  double lmq_full_share = 0;     // share of the interval's cycles with the LMQ full
  double sq_full_share = 0;      // ... with the store queue full
};
struct FunctionProfile {
  std::string name;
  u64 instructions = 0;
  u64 cycles = 0;
  std::array<u64, timing::kStallCount> stalls{};
};

class Monitor;

class Simulation {
 public:
  Simulation(MachineConfig machine, RunOptions options);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Loads the program (hpm::Error for bad programs).
  void exec(const std::string& path, const std::vector<std::string>& argv,
            const std::vector<std::string>& envp);
  // Called with the cycle each time the simulated time passes a multiple of `cycles` (warm-up,
  // timing and profile modes; the functional mode when a counter unit is in use as the run
  // starts: the host's counters), and at every region marker (id, begin or end, cycle).
  void setIntervalHook(u64 cycles, std::function<void(Cycle)> hook);
  // The general form (one at a time: each replaces the other): called at cycle `first`, then
  // at each cycle the hook returns (~0: no more), between instructions (Kernel::setTimedHook).
  void setTimedHook(Cycle first, std::function<Cycle(Cycle now)> hook);
  // For a timed hook at `now` that is about to stop counters (host multiplexing): every hardware
  // thread that a live guest thread may run on again, and whose clock is before `now` without an
  // instruction pending, is brought to `now` as idle, so its level events up to `now` (cycles,
  // idle stalls) reach the units before the stop, as hardware counts them while they pass. Else
  // they would reach them when the thread resumes (an interval published late), after the stop.
  // (A thread waiting when the process ends thus has its wait counted up to the last such call,
  // where otherwise none of a wait that never ends is.)
  void idleWaitingHardwareThreads(Cycle now);
  void setRegionHook(std::function<void(u32 id, bool begin, Cycle now)> hook);

  // Runs it to the end; `progress` is called now and then (may be empty). With a pause point
  // (Kernel::setPausePoint) it returns there, and a later call goes on.
  void run(const Kernel::ProgressFn& progress = {});
  // The cycle of the instruction making a device register access (RunOptions::timed_devices):
  // its issue cycle in the timing modes, its cycle in the functional mode while a counter unit
  // is in use; otherwise, in the functional mode, where slices have no time inside, the node's
  // latest clock.
  Cycle accessCycle() const;
  // A device of the node (the message unit) reads or writes `bytes` bytes of guest memory at
  // `addr` at cycle `at`: in the timing and warm-up modes the caches see it
  // (mem::MemorySystem::deviceLines); in the functional mode nothing does.
  // Each line's times go to `times` when it is not null (none in the functional mode).
  void deviceMemory(u64 addr, u64 bytes, Cycle at, bool write,
                    std::vector<mem::DeviceLineTimes>* times = nullptr);

  const Kernel& kernel() const;
  Kernel& kernel();
  const MachineConfig& machine() const;
  const RunOptions& options() const;
  // The simulated time of the run: the latest clock of any hardware thread.
  Cycle elapsedCycles() const;
  u64 retiredInstructions() const;

  std::vector<RegionReport> regions() const;
  // Each closed region stay, in the order they closed (at most kMaxRegionSpans; the rest are
  // counted by regionSpansDropped).
  const std::vector<RegionSpan>& regionSpans() const;
  u64 regionSpansDropped() const;
  const std::vector<ProfileSample>& samples() const;
  // Functions by descending cycles (profile mode).
  std::vector<FunctionProfile> functionProfile() const;

  // The node's counter unit, when it has one (else null). (The functional mode builds its units
  // when first needed: this call, or the guest's first open of a device under /dev/hpm/.)
  Monitor* monitor() const;
  // Whether probe event `e` counts in the functional mode: the kernel's events and those the
  // functional mode's statistics keep (instructions, by class and operation, the instruction
  // mix that depends on the operation alone, cycles; node/simulation_events.cpp).
  static bool countsInFunctionalMode(probe::Event e);

  // The ground truth of event `e` of instance `instance` of its scope: the statistic the model
  // publishing it keeps (kernel, timing model, memory system, the driver: probe::TruthRow), if
  // it is kept in this run's mode.
  std::optional<u64> groundTruth(probe::Event e, u32 instance) const;
  // A model outside the node publishing on its bus (the message unit) names its ground truth
  // here: groundTruth asks each source after the node's own models.
  using TruthSource = std::function<std::optional<u64>(probe::Event e, u32 instance)>;
  void addTruthSource(TruthSource source);
  // The interconnect's transactions so far by type and snoop result (the ground truth of the
  // interconnect monitor's counters); null without a memory system (the functional mode).
  const probe::TransactionCounts* transactionTruth() const;
  // The block of the cache whose evictions the interconnect carries (bgq: the L2's slice x sets
  // per slice + set) holding `addr`; nullopt without a memory system.
  std::optional<u32> cacheBlockOf(u64 addr) const;
  // The virtual address of physical address `pa`: itself where memory is mapped 1:1, the page
  // the frame table placed there on sunfire (nullopt: no page has that frame).
  std::optional<u64> virtualOf(u64 pa) const;

  // Every ground-truth statistic: kernel, timing model, regions.
  void visitStats(stats::Visitor& v) const;

  // Opaque; public only so that the run-mode drivers in simulation.cpp can name it.
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace hpm
