// The timing model of the node (seed 003): multi-threaded in-order cores with time-stamped
// resources, private L1 caches and L1P, a shared sliced L2 and DDR controllers.
//
// It is driven by the functional simulator, one instruction at a time, in issue order: before a
// hardware thread executes an instruction the driver asks issueTime(); if that time is not
// later than every other hardware thread's clock, the driver executes the instruction
// functionally and calls issue() with that time. So calls to issue() come in non-decreasing
// order of issue cycle across the whole node, and resources are reserved in time order. Ties
// (equal times) are broken round-robin by the driver.
//
// The model decides only *when* instructions issue and complete; functional execution is exact
// and knows nothing of it (design.md section 3).
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "isa/decode.h"
#include "mem/frames.h"
#include "stats/probe.h"
#include "stats/stats.h"

namespace hpm::mem {
class MemorySystem;      // mem/memory_system.h
struct DeviceLineTimes;  // mem/interconnect.h
}  // namespace hpm::mem

namespace hpm::timing {

struct TimingParams;  // core/timing_params.h: every parameter, with documented defaults

// Why an instruction issued later than its thread's clock. Each stall cycle is charged to the
// first constraint not yet met in that cycle, checked in the order: fetch (kMispredict or
// kIbufferEmpty, by why the instruction's group came late, then kIeratMiss, then kIcacheMiss),
// kDependency, kDeratMiss, kLmqFull, kPipeBusy, kSqFull (docs/timing.md "Stall attribution").
enum class Stall : u8 {
  kDependency,    // a source operand was not ready
  kPipeBusy,      // its execution pipe was taken (another thread, or a non-pipelined op)
  kIbufferEmpty,  // not yet fetched (fetch bandwidth, taken-branch redirect)
  kIcacheMiss,    // its fetch missed the instruction cache
  kMispredict,    // fetched after a mispredicted branch resolved
  kLmqFull,       // a load miss found the load-miss queue full
  kSqFull,        // a store found the store queue full
  kIdle,          // the hardware thread had nothing to run (idleUntil)
  kIeratMiss,     // its fetch waited for an I-ERAT reload (address translation)
  kDeratMiss,     // its load, store or atomic waited for a D-ERAT reload
  kCount
};
inline constexpr std::size_t kStallCount = static_cast<std::size_t>(Stall::kCount);
std::string_view stallName(Stall s);

// What one issue() cost its hardware thread: the cycles from the thread's clock before the
// instruction to its clock after, and how many of them were stalls, by cause.
struct IssueCost {
  Cycle cycles = 0;
  std::array<Cycle, kStallCount> stalls{};
  Cycle clock = 0;  // the thread's clock after it: hartTime()
  // Bit idx(s) is set when stalls[idx(s)] may be nonzero (every other entry is 0): most
  // instructions stall on nothing or on one cause, so a sum over the stalls need visit only these.
  u16 stall_mask = 0;
};

// Running totals of one core, for interval samples (profile mode).
struct CoreSnapshot {
  Cycle cycles = 0;             // the core's latest hardware-thread clock
  std::array<u64, 8> issued{};  // instructions issued per pipe: XU pipes, then AXU pipes
  u32 integer_pipes = 0;
  u32 fp_pipes = 0;
  u64 lmq_full_cycles = 0;  // cycles the load-miss queue was full
  u64 sq_full_cycles = 0;   // cycles the store queue was full
};

// The model is also the source of its hardware threads' level events for counting from
// statistics (probe::LevelSource): a lump is one issue() (the stalls in their attribution order,
// then the instruction's own cycles) or one idleUntil().
class NodeTiming final : public probe::LevelSource {
 public:
  // One model for `params.cores` cores of `params.threads_per_core` hardware threads each;
  // hardware thread h belongs to core h / threads_per_core. Validates the parameters (throws
  // hpm::Error with ExitCode::kConfig). All clocks start at cycle 0.
  explicit NodeTiming(const TimingParams& params);
  ~NodeTiming() override;
  NodeTiming(const NodeTiming&) = delete;
  NodeTiming& operator=(const NodeTiming&) = delete;

  // The earliest cycle at which hardware thread `h` can issue `inst` (at `pc`; `addr` is the
  // effective address of a load, store or atomic, for an integer divide its operands' serial
  // divider steps (serialDividerSteps in core/timing_params.h), else 0), given the state of every
  // resource now: its instruction fetch, its source operands, its execution pipe, and the load-miss
  // or store queue it needs. Never earlier than hartTime(h). Does not change the model.
  Cycle issueTime(u32 h, const isa::DecodedInst& inst, u64 pc, u64 addr);

  // Hardware thread `h` issues `inst` at cycle `at` (the value issueTime() returned for it, h's
  // last question, with no other issue() in between) and it retires: caches, queues, pipes,
  // predictors and register timestamps are updated; `next_pc` is the address of the next
  // instruction the thread executes (the branch outcome). Afterwards hartTime(h) is at least
  // at + 1. Returns what it cost (lastCost(h)).
  const IssueCost& issue(u32 h, const isa::DecodedInst& inst, u64 pc, u64 next_pc, u64 addr,
                         Cycle at);

  // Warm-up mode: the caches see the access of the instruction (statistics and state) but no
  // timing is modelled; the hardware thread's clock advances by one cycle.
  const IssueCost& warmup(u32 h, const isa::DecodedInst& inst, u64 pc, u64 addr);

  // The events the model publishes (those of its ground-truth table: every one it signals), and
  // those of them its warm-up path publishes too (warmup() and idleUntil(): a thread's cycles,
  // instructions and their classes; no pipeline, so no fetch, branch prediction, issue, stalls
  // or translation). What a run mode can count follows (node/run_modes.h).
  static bool publishes(probe::Event e);
  static bool publishesInWarmup(probe::Event e);

  // Which addresses are device registers (a counter unit's window: uncached and guarded, no
  // cache or queue holds them; docs/timing.md "Device registers"): the driver's page table, one
  // byte per page of 2^page_bits bytes, `device_bit` set on a device page. It must outlive the
  // model's use of it; addresses from pages << page_bits on are memory. Default: none.
  struct DevicePages {
    const u8* table = nullptr;
    u64 pages = 0;
    u32 page_bits = 12;
    u8 device_bit = 0;
    bool contains(u64 addr) const {
      const u64 page = addr >> page_bits;
      return page < pages && (table[page] & device_bit) != 0;
    }
  };
  void setDevicePages(const DevicePages& pages);

  // Address translation (TranslationParams::enabled): the size of the page holding a guest
  // address, as log2 of its bytes, from the kernel's static mapping of the process (CNK's large
  // pages). Asked only on ERAT misses. Without one, every page is translation.page_kib.
  using PageMap = std::function<u32(u64 addr)>;
  void setPageMap(PageMap map);

  // The cycle from which hardware thread h's next instruction may issue: its clock.
  Cycle hartTime(u32 h) const;
  // Starts fetching into the host's cache what planning hardware thread h's next instruction
  // reads first (a hint: no effect on the model).
  void prefetch(u32 h) const;
  // Moves hardware thread h's clock forward to `to` (no effect if it is already later); the
  // cycles in between count as idle (the thread waited on a futex, slept, or had no work), and
  // lastCost(h) becomes that interval, all of it Stall::kIdle.
  void idleUntil(u32 h, Cycle to);
  // Another guest thread takes hardware thread h from now on: its fetch state (instruction
  // buffer, branch history, pending redirect) no longer applies. Register timestamps are kept,
  // conservatively.
  void switchContext(u32 h);

  // The cost of the last issue() (or warmup(), or idleUntil()) of hardware thread h.
  const IssueCost& lastCost(u32 h) const;
  // Publishes every event also on `bus` (null: none); the caller sets the bus's clock to the
  // cycle of each instruction before issue() or warmup() (stats/probe.h).
  void setProbe(probe::Bus* bus);
  CoreSnapshot snapshot(u32 core) const;
  // Names on `bus` the statistic behind each event of the model's (probe::Bus::addTally), the
  // memory system's included, and the hardware threads' level events, which this model keeps
  // (probe::LevelSource, with `bus.setLevelSource(this)`). Statistics of the timing mode:
  // the warm-up mode counts instructions apart.
  void registerTallies(probe::Bus& bus) const;
  // The ground truth of event `e` of instance `instance` of its scope (the statistic the model
  // keeps for it: probe::TruthRow), if the model or its memory system publishes `e`.
  std::optional<u64> groundTruth(probe::Event e, u32 instance) const;
  // The memory system's interconnect transactions (mem::MemorySystem::transactionCounts).
  const probe::TransactionCounts& transactionCounts() const;
  // A device's memory accesses (mem::MemorySystem::deviceLines).
  void deviceLines(u64 addr, u64 bytes, Cycle at, bool write, bool timed,
                   std::vector<mem::DeviceLineTimes>* times);
  // mem::MemorySystem::l2Block.
  u32 l2Block(u64 addr) const;
  // The memory system's physical frames (mem::MemorySystem::frames): null when memory is mapped
  // 1:1.
  const mem::FrameTable* frames() const;
  // The memory system itself, for the node's devices that reach into it (the L1P's list
  // prefetchers: node/l1p_device.h).
  mem::MemorySystem& memory();
  // A counter that changes at every issue() and idleUntil() of the core's hardware threads.
  const u64* coreVersion(u32 core) const;

  // ---- probe::LevelSource ----
  Cycle levelClock(u32 thread) const override;
  Cycle lastLumpStart(u32 thread) const override;
  u64 levelBefore(probe::Event e, u32 thread, Cycle t) const override;
  std::pair<Cycle, Cycle> levelInLastLump(probe::Event e, u32 thread) const override;

  // The parameters the model was built with (validated).
  const TimingParams& params() const;
  u32 hardwareThreads() const;

  // Ground-truth statistics of every core, hardware thread, cache, L2 slice and DDR controller.
  void visitStats(stats::Visitor& v) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hpm::timing
