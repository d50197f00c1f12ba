// The simulation driver's state (Simulation::Impl), shared by its files: simulation.cpp (the
// run loop: the timing observer and slice runner), simulation_events.cpp (the driver's own
// events and what it publishes), simulation_results.cpp (regions, profile, statistics). Private
// to src/node.
#pragma once

#include <array>
#include <bit>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/node_timing.h"
#include "isa/ops.h"
#include "kernel/kernel.h"
#include "node/l1p_device.h"
#include "node/monitor.h"
#include "node/simulation.h"
#include "node/speculation.h"
#include "node/tm_device.h"
#include "stats/probe.h"

namespace hpm::driver {

// The instruction-mix properties of every operation (isa::opMix), for the events the driver
// publishes (the events that depend only on the instruction, not on the timing model).
using isa::OpMix;
inline std::array<OpMix, isa::kOpCount> makeOpMix() {
  std::array<OpMix, isa::kOpCount> table{};
  for (u32 i = 0; i < isa::kOpCount; ++i) table[i] = isa::opMix(static_cast<isa::Op>(i));
  return table;
}

inline const std::array<OpMix, isa::kOpCount> kOpMix = makeOpMix();

// Calls f(event, count) for each instruction-mix event that one instruction of the operation
// `m` describes signals, whatever its data (publishMix publishes them, registerOpTallies makes
// them sums of operation counts).
static_assert(static_cast<u32>(probe::Event::kLoads8) ==
                  static_cast<u32>(probe::Event::kLoads1) + 3 &&
              static_cast<u32>(probe::Event::kStores8) ==
                  static_cast<u32>(probe::Event::kStores1) + 3);
template <typename F>
void forEachMixEvent(const OpMix& m, F&& f) {
  using probe::Event;
  // (The size events follow each other in the catalogue: 1, 2, 4 and 8 bytes.)
  const auto bySize = [](Event one_byte, u8 bytes) {
    return static_cast<Event>(static_cast<u32>(one_byte) + std::countr_zero(bytes));
  };
  if (m.load_bytes != 0) f(bySize(Event::kLoads1, m.load_bytes), 1);
  if (m.store_bytes != 0) f(bySize(Event::kStores1, m.store_bytes), 1);
  if (m.flops != 0) {
    f(Event::kFpOps, m.flops);
    f(m.precision == 2 ? Event::kFpDouble : Event::kFpSingle, 1);
    if (m.precision == 1) f(Event::kFpOpsSingle, m.flops);
  }
  if (m.lr) f(Event::kLoadReserved, 1);
  if (m.amo) f(Event::kAtomicMemoryOps, 1);
  if (m.ecall) f(Event::kEcalls, 1);
  if (m.csr) f(Event::kCsrAccesses, 1);
  if (m.fence) f(Event::kFences, 1);
}

}  // namespace hpm::driver

namespace hpm {

struct Simulation::Impl final : TmDevice::Hooks {
  MachineConfig machine;
  RunOptions options;
  std::unique_ptr<Kernel> kernel;
  std::unique_ptr<timing::NodeTiming> model;
  std::unique_ptr<probe::Bus> bus;
  std::unique_ptr<Monitor> monitor;
  // The L1P's list prefetchers' window (with a timing model), and the hardware thread whose
  // slice runs: the one its register accesses come from.
  std::unique_ptr<L1pDevice> l1p_device;
  u32 running_hw = 0;
  Thread* running_thread = nullptr;  // the guest thread of running_hw's slice
  // BG/Q's L2 speculation (transactional memory, node/speculation.h) and its window
  // (/dev/hpm/tm): on UPC-Q's node (BG/Q's) with a timing model; null elsewhere.
  std::unique_ptr<Speculation> speculation;
  std::unique_ptr<TmDevice> tm_device;
  // Per hardware thread: the guest thread of its transaction, the registers it rolls back to
  // (taken before the first instruction after the begin), and the code of a rollback of the
  // running thread's transaction, applied when its run stops (tm_pending: which).
  struct TmThread {
    Thread* thread = nullptr;
    HartState checkpoint;
    bool checkpoint_pending = false;
    u64 pending_code = 0;
  };
  std::vector<TmThread> tm_threads;
  u64 tm_pending = 0;
  // What the observer tests before every instruction: some transaction runs, or a rollback is
  // pending (the one branch transactional memory costs when no transaction runs).
  bool tm_watch = false;
  // The speculation model, on BG/Q's node with a timing model (the constructor's).
  void createSpeculation();
  // Before `d` issues on hw (at `pc`, effective address `addr`), while tm_watch: takes a pending
  // checkpoint, and checks the access against the transactions' lines, rolling back the losers;
  // false when hw's own transaction rolled back (the run stops before `d`).
  bool tmCheck(u32 hw, const isa::DecodedInst& d, u64 pc, const HartState& s, u64 addr);
  // Restores the registers of hw's transaction's thread to its checkpoint, a0 = `code`.
  void tmRestore(u32 hw, u64 code);
  // The running hardware thread's pending rollback, once its run has stopped.
  void tmApplyPending(u32 hw);
  // TmDevice::Hooks
  u32 runningThread() const override { return running_hw; }
  void began(u32 hw) override;
  void rolledBack(u32 hw, u64 code) override;
  u64 context_switches = 0;  // a hardware thread changed guest threads
  // Cached from the bus's wanted set (recomputed when its epoch changes): whether the timing
  // model publishes at all, and per hardware thread whether any instruction-mix event is wanted.
  Cycle hook_first = ~Cycle{0};
  std::function<Cycle(Cycle)> timed_hook;
  bool hook_installed = false;                         // in the kernel (run: once)
  std::vector<Simulation::TruthSource> truth_sources;  // addTruthSource
  std::function<void(u32, bool, Cycle)> region_hook;
  std::vector<RegionSpan> region_spans;
  u64 region_spans_dropped = 0;
  u64 bus_epoch = ~u64{0};
  // By hardware thread: kCountOps (some input made of operation counts is counted from
  // statistics: op_counts counts its instructions), kPublishMix (publishMix: some instruction-mix
  // event is published); else kPublishDataEvents (misaligned accesses or SC outcomes are).
  // kInterestChanged: the bus's wanted set changed since the view was made (Bus::watchEpoch).
  enum : u8 { kCountOps = 1, kPublishMix = 2, kPublishDataEvents = 4, kInterestChanged = 128 };
  std::vector<u64> op_counts;  // by hardware thread x operation: instructions retired
  // The monitor's Monitor::levelDue while it counts from statistics, else null.
  const Cycle* level_due = nullptr;
  // What the timing observer of a hardware thread consults at every instruction, derived from
  // the bus's wanted set (noteInterest) and copied at the start of each run.
  static constexpr Cycle kNeverDue = ~Cycle{0};
  struct DriverView {
    Monitor* tallying = nullptr;          // the monitor while it counts from statistics
    const u8* dormant = nullptr;          // then: the thread's Monitor::dormantFlag
    const Cycle* level_due = &kNeverDue;  // then: the thread's Monitor::levelDue entry
    u64* op_counts = nullptr;             // with kCountOps: the thread's row of op_counts
    u8 mix = 0;  // kCountOps | kPublishMix | kPublishDataEvents (| kInterestChanged: a copy)
  };
  void noteInterest();
  // Names the operation counts on the bus as the statistics of the per-operation inputs and of
  // the instruction-mix events that depend on the operation alone.
  void registerOpTallies();
  // The driver's events and their statistics (probe::TruthRow).
  static std::span<const probe::TruthRow<Impl>> truthTable();

  // ---- the functional mode's counting (FunctionalRunner in simulation.cpp) ----
  // While a counter unit is in use (Monitor::inUse) the functional mode runs every instruction
  // through an observer that keeps these statistics by hardware thread, and publishes what
  // they count when a counter wants it (publishFunctional); until then it runs as without
  // units. Instructions by operation are op_counts (as the warm-up mode's operation counts).
  std::vector<u64> compressed;   // 16-bit instructions retired
  std::vector<u64> misaligned;   // loads and stores not aligned to their size
  std::vector<u64> sc_failed;    // store-conditionals that failed
  std::vector<u64> idle_cycles;  // cycles the hardware thread had nothing to run
  // Instructions retired: the sum of the thread's op_counts, kept apart so that counting its
  // instructions and cycles from statistics reads one statistic, not one per operation.
  std::vector<u64> retired;
  // Each hardware thread's clock at the end of its last slice (counted or not): a later slice
  // that starts past it waited (idle) in between.
  std::vector<Cycle> functional_clock;
  // The functional mode on a node with counter units: they are built when first needed
  // (ensureMonitor: the first open of a device under /dev/hpm/, or the host's asking for them),
  // so that a program that never uses them pays nothing for them. Until then bus and monitor
  // are null. (A unit built late counts from then on: the CNK unit's kernel events too.)
  bool lazy_units = false;
  std::unique_ptr<DeviceProvider> lazy_provider;
  void ensureMonitor();
  // The functional mode's events and their statistics (probe::TruthRow): every event it
  // publishes has a row, and only those (Simulation::countsInFunctionalMode, the run modes).
  static std::span<const probe::TruthRow<Impl>> functionalTable();
  void registerFunctionalTallies();
  // What publishFunctional publishes for a hardware thread, from the bus's wanted set (made by
  // noteInterest, so that an instruction asks nothing of the bus): by operation, its wanted
  // pulses, and which of the data-dependent and level events are wanted.
  struct FunctionalWants {
    std::vector<u32> first;  // by operation, kOpCount + 1 entries: its range in `pulses`
    // (event, count); Event::kCount: the operation's own input (Bus::pulseOp), count 1.
    std::vector<std::pair<probe::Event, u64>> pulses;
    bool compressed = false, misaligned = false, sc_success = false, sc_fail = false;
    bool cycles = false, running = false;
    // Whether an instruction of `op` publishes a pulse whatever its data (publishFunctional
    // need not be called for it otherwise, but for compressed ones, misaligned accesses and
    // store-conditionals, which `data` says are wanted).
    bool publishes(u32 op) const { return first[op] != first[op + 1]; }
    bool data = false;  // compressed, misaligned, sc_success or sc_fail
  };
  std::vector<FunctionalWants> functional_wants;  // by hardware thread
  void noteFunctionalWants(u32 hw);
  // Instruction `d` of hardware thread hw retired, misaligned or not, and if it is a
  // store-conditional, failed or not: its pulses that are wanted (the levels of its cycle,
  // Cycles and ThreadRunning, are the observer's: FunctionalObserver::retire).
  void publishFunctional(u32 hw, const isa::DecodedInst& d, bool misaligned_access,
                         bool sc_failure);
  // Hardware thread hw waited during [from, to) (idle).
  void functionalIdle(u32 hw, Cycle from, Cycle to);

  void publishMix(u32 hw, const isa::DecodedInst& d, u64 addr, const HartState& s);
  // The events that depend on the instruction's data: misaligned accesses, SC outcomes. (First
  // touches of pages are the kernel's: GuestMemory::translate finds them.)
  void publishDataEvents(u32 hw, const isa::DecodedInst& d, u64 addr, const HartState& s);

  // Per hardware thread, what the timing runner reads at every pick: the guest thread that last
  // ran on it, whether its clock was moved to a pending instruction's issue cycle (a stall, not
  // idle time), and the view its observer copies (the default one without a bus). One line of
  // the host's cache: with 16 or more hardware threads running, the picked one's is seldom in
  // the host's L1, and each line is a miss.
  struct alignas(64) HartDriver {
    const Thread* last_thread = nullptr;
    Cycle parked_at = 0;
    bool parked = false;
    DriverView view;
  };
  std::vector<HartDriver> harts;
  // Profile mode, per hardware thread: the function the last instruction belonged to, as a
  // [lo, hi) cache.
  struct FunctionCache {
    u64 lo = 1, hi = 0;
    std::size_t index = 0;
  };
  std::vector<FunctionCache> function_caches;

  // Regions.
  struct OpenRegion {
    u32 id;
    Cycle start_cycle;
    u64 start_instructions;
    std::array<u64, timing::kStallCount> start_stalls;
  };
  struct ThreadRegions {
    std::vector<OpenRegion> open;
    u64 instructions = 0;  // retired through the observer while some region was open
    std::array<u64, timing::kStallCount> stalls{};
  };
  std::vector<ThreadRegions> thread_regions;  // by tid (tids are small integers)
  // By tid, whether any of the thread's regions is open: what the observer asks at every pick,
  // compact so that it stays in the host's cache (thread_regions[tid].open is a line a thread).
  std::vector<u8> in_region;
  ThreadRegions& regionsOf(int tid) {
    if (static_cast<std::size_t>(tid) >= thread_regions.size()) {
      thread_regions.resize(tid + 1);
      in_region.resize(tid + 1, 0);
    }
    return thread_regions[tid];
  }
  std::map<u32, std::map<int, RegionTotals>> regions;  // by id, then tid
  std::map<u32, std::string> region_names;

  // Profile.
  std::vector<ProfileSample> samples;
  std::vector<timing::CoreSnapshot> last_snapshot;
  std::vector<Cycle> next_sample;
  std::vector<FunctionProfile> functions;  // index = symbol index, plus one "[unknown]" at the end

  void readRegionNames();
  // A region marker of `t` that issued at `issued` and completed at `now` (its clock after
  // it): the region's span runs between the markers' `now`, and the region hook reads the
  // counters at `issued`, as the marker's thread would read them there (every other hardware
  // thread has done all it does before that cycle, and only then).
  void regionMarker(Thread& t, const isa::DecodedInst& d, Cycle issued, Cycle now);
  void sampleCore(u32 core, Cycle now);
  std::size_t functionIndex(u32 hw, u64 pc);
};

}  // namespace hpm
