// The node timing model's state (NodeTiming::Impl) and the types it is made of, shared by
// node_timing.cpp (fetch, issue, commit: the work per instruction) and node_timing_state.cpp
// (ground truth, levels, snapshots, statistics). Private to src/core.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <span>
#include <vector>

#include "core/node_timing.h"
#include "core/timing_params.h"
#include "core/translation.h"
#include "mem/memory_system.h"

namespace hpm::timing {

constexpr std::size_t kClasses = static_cast<std::size_t>(isa::InstClass::kCount);
constexpr u32 kMaxPipes = 8;
constexpr u32 kRing = 64;       // per-thread issue-time ring (>= ibuffer_entries)
constexpr u32 kPortRing = 512;  // per-core fetch-port reservation window, in cycles
constexpr u32 kMaxRas = 64;

constexpr std::size_t idx(Stall s) {
  return static_cast<std::size_t>(s);
}

// What an instruction does to the model, precomputed per opcode from the parameters.
enum class Kind : u8 { kPlain, kLoad, kStore, kAtomic, kBranch, kJal, kJalr, kFence, kSerialize };

struct OpTiming {
  Kind kind = Kind::kPlain;
  u8 axu = 0;      // 0: an XU pipe, 1: an AXU pipe
  u8 int_src = 0;  // bit 0 rs1, bit 1 rs2
  u8 fp_src = 0;   // bit 0 rs1, bit 1 rs2, bit 2 rs3
  u8 dst = 0;      // 0 none, 1 integer rd, 2 FP rd
  u8 bytes = 0;    // load or store size
  u8 cls = 0;
  u32 latency = 1;
  u32 occupancy = 1;
  u32 hold = 1;       // cycles the instruction advances its thread's clock (ecall: ecall_cycles)
  u8 wb_port = 0;     // shared write-back port (core.writeback), 0 for none
  u8 serial_div = 0;  // 1: an integer divide on the serial divider (core.divider)
  u32 wb_delay = 0;   // cycles from issue to its write-back on the port
  // The unit whose busy signal it raises (docs/timing.md "Core signals"): 1 the FP divide and
  // square root (FpDivSqrtBusy), 2 the integer multiply and divide (MulDivBusy), 0 none.
  u8 busy_unit = 0;
};

enum class Redirect : u8 { kNone, kTaken, kMispredict };

// Where the stall cycles of a lump lie (probe::LevelSource): from its first cycle, in the order
// the constraints were checked (an idle lump has only kIdle), then the instruction's own cycles.
// publishIssue publishes the same intervals.
constexpr Stall kLumpOrder[] = {Stall::kIdle,      Stall::kIbufferEmpty, Stall::kMispredict,
                                Stall::kIeratMiss, Stall::kIcacheMiss,   Stall::kDependency,
                                Stall::kDeratMiss, Stall::kLmqFull,      Stall::kPipeBusy,
                                Stall::kSqFull};

// The thread level event of each stall (probe.h: StallDependency .. StallIdle follow the stalls'
// order; the translation stalls are address translation's events).
constexpr probe::Event kStallEvents[] = {
    probe::Event::kStallDependency,   probe::Event::kStallPipeBusy,
    probe::Event::kStallIbufferEmpty, probe::Event::kStallIcacheMiss,
    probe::Event::kStallMispredict,   probe::Event::kStallLmqFull,
    probe::Event::kStallSqFull,       probe::Event::kStallIdle,
    probe::Event::kIeratMissCycles,   probe::Event::kDeratMissCycles};
static_assert(std::size(kStallEvents) == kStallCount);
constexpr probe::Event stallEvent(Stall s) {
  return kStallEvents[idx(s)];
}

// Cycles a queue was full, kept as disjoint intervals that begin in increasing order.
struct FullTracker {
  u64 done = 0;
  Cycle from = 0;
  Cycle until = 0;
  void add(Cycle f, Cycle u) {
    f = std::max(f, until);
    if (u <= f) return;
    done += until - from;
    from = f;
    until = u;
  }
  u64 total() const { return done + (until - from); }
  u64 upTo(Cycle now) const { return done + (now <= from ? 0 : std::min(now, until) - from); }
};

struct ThreadStats {
  // (Those every instruction counts first: see Thread.)
  u64 instructions = 0;
  u64 compressed = 0;                    // of the instructions (either mode), 16-bit ones
  std::array<u64, kClasses> by_class{};  // either mode
  std::array<u64, kMaxPipes> issued{};
  std::array<u64, kStallCount> stalls{};
  u64 branches = 0;
  u64 branches_taken = 0;
  u64 branch_mispredicts = 0;
  u64 jumps = 0;
  u64 jump_mispredicts = 0;
  u64 returns = 0;
  u64 return_mispredicts = 0;
  u64 fetch_groups = 0;
  u64 warmup_instructions = 0;
  u64 device_accesses = 0;  // loads and stores of device registers (either mode)
  // Address translation (timing mode): ERAT misses, and what the TLB answered them.
  u64 ierat_misses = 0;
  u64 derat_misses = 0;
  u64 tlb_hits_ierat = 0;
  u64 tlb_misses_ierat = 0;
  u64 tlb_hits_derat = 0;
  u64 tlb_misses_derat = 0;

  void add(const ThreadStats& o) {
    instructions += o.instructions;
    warmup_instructions += o.warmup_instructions;
    compressed += o.compressed;
    device_accesses += o.device_accesses;
    for (std::size_t i = 0; i < kClasses; ++i) by_class[i] += o.by_class[i];
    for (std::size_t i = 0; i < kMaxPipes; ++i) issued[i] += o.issued[i];
    for (std::size_t i = 0; i < kStallCount; ++i) stalls[i] += o.stalls[i];
    branches += o.branches;
    branches_taken += o.branches_taken;
    branch_mispredicts += o.branch_mispredicts;
    jumps += o.jumps;
    jump_mispredicts += o.jump_mispredicts;
    returns += o.returns;
    return_mispredicts += o.return_mispredicts;
    fetch_groups += o.fetch_groups;
    ierat_misses += o.ierat_misses;
    derat_misses += o.derat_misses;
    tlb_hits_ierat += o.tlb_hits_ierat;
    tlb_misses_ierat += o.tlb_misses_ierat;
    tlb_hits_derat += o.tlb_hits_derat;
    tlb_misses_derat += o.tlb_misses_derat;
  }
};

// The core's finer signals' statistics (docs/timing.md "Core signals"; probe::coreSignal), kept
// apart from ThreadStats at the end of Thread: most instructions touch none of them.
struct SignalStats {
  u64 fetch_slots = 0;
  u64 ibuffer_empties = 0;   // issues with StallIbufferEmpty cycles
  u64 serializations = 0;    // ecall, ebreak, fence.i issued (the fetch restarts after them)
  u64 dependency_axu = 0;    // of the dependency stall cycles, those on an AXU producer
  u64 fence_stalls = 0;      // of the dependency stall cycles, those of fences
  u64 pipe_busy_axu = 0;     // of the pipe-busy stall cycles, those of AXU instructions
  u64 fp_div_sqrt_busy = 0;  // cycles FP divides and square roots held their pipe
  u64 mul_div_busy = 0;      // cycles integer multiplies and divides held their pipe or divider
  u64 mul_div_collisions = 0;
  u64 lmq_full_stalls = 0;  // issues with StallLmqFull cycles
  u64 sq_full_stalls = 0;   // issues with StallSqFull cycles
  u64 load_hits_pending = 0;
};

struct CoreStats {
  u64 fetch_port_waits = 0;  // cycles group fetches waited for the shared fetch port
  u64 lmq_allocations = 0;
  u64 sq_allocations = 0;
  u64 sq_combined = 0;
  u64 tlb_hits_first_size = 0;  // ERAT misses the TLB held at translation.tlb_first_size_kib
};

// A hardware thread's last translated page of one side (fetch or data): a one-entry filter in
// front of the core's ERAT, which holds the page as long as the filter does (an ERAT eviction
// clears the filters holding the page). Empty: mask 0 and base 1, which no address matches.
struct PageFilter {
  u64 base = 1;
  u64 mask = 0;
  bool contains(u64 addr) const { return (addr & mask) == base; }
};

// A core's address translation (translation.enabled).
struct CoreTranslation {
  CoreTranslation(const TranslationParams& p)
      : ierat(p.ierat_entries), derat(p.derat_entries), tlb(p.tlb_entries, p.tlb_ways) {}
  Erat ierat;
  Erat derat;
  Tlb tlb;
  u64 stamp = 0;  // TLB uses
};

// The issue plan of one instruction, computed by issueTime() and reused by issue() (and by
// further issueTime() calls) while nothing it depends on has changed: its core (its threads'
// issues, idle time, context switches), its core's caches through other cores' accesses (the
// memory system's remote epoch) and, when its fetch missed the I-cache, the L2 (any issue).
struct Plan {
  u64 core_version = ~u64{0};
  u64 remote_epoch = 0;
  u64 node_version = 0;
  bool uses_l2 = false;
  u64 pc = 0;
  u64 addr = 0;
  bool device = false;  // the access is to a device register (docs/timing.md "Device registers")
  isa::DecodedInst inst;
  Cycle at = 0;
  // Stall attribution: the cycles from the thread's clock to `at`, charged in layers to the
  // constraints in the order they are checked (docs/timing.md "Stall attribution").
  // (Only the entries of stall_mask's bits are valid: replan writes no other.)
  std::array<Cycle, kStallCount> stalls{};
  u16 stall_mask = 0;  // bit idx(s): stalls[idx(s)] was charged
  static_assert(kStallCount <= 16);
  // Fetch.
  bool new_group = false;
  bool priority = false;
  u64 group = 0;
  u32 slots = 0;  // the new group's 4-byte slots from pc to its end (the buffer room it takes)
  Cycle fetch_earliest = 0;
  Cycle fetch = 0;
  Cycle arrival_hit = 0;  // when the group would arrive had its I-cache access hit
  Cycle arrival = 0;
  Stall group_cause = Stall::kIbufferEmpty;  // why it was fetched when it was
  // Address translation (translation.enabled): the pages of the new group's fetch and of the
  // access, whether their ERAT missed, and the cycles the reload holds them.
  Page ipage, dpage;
  bool imiss = false, dmiss = false;
  u32 icycles = 0, dcycles = 0;
  // Of the dependency stall, the cycles on operands of AXU producers (charged first).
  Cycle dependency_axu = 0;
  // Resources.
  u32 latency = 0;  // cycles from issue to a dependent issue (the serial divider's vary)
  u32 pipe = 0;
  bool lmq = false;
  bool combine = false;
};

// A hardware thread's timing state. (Aligned, the fields every instruction's plan and issue
// touch first and together: once 16 or more hardware threads run, the scheduler switches
// threads about every instruction and the picked thread's record is seldom in the host's L1
// cache, so each line it touches is a miss. The registers' ready times, the issue ring and the
// return stack follow, of which an instruction touches a line or two.)
struct alignas(64) Thread {
  Cycle clock = 0;
  u32 core = 0;  // its core, h / threads_per_core
  // Fetch stream.
  bool stream = false;  // the fetch state below describes this thread's instruction stream
  Redirect redirect = Redirect::kNone;
  Stall group_cause = Stall::kIbufferEmpty;
  u64 expect_pc = 0;    // the next pc the fetcher delivers
  u64 group = ~u64{0};  // the group being consumed
  Cycle group_fetch = 0;
  Cycle group_arrival_hit = 0;
  Cycle group_arrival = 0;
  Cycle redirect_time = 0;      // earliest fetch of the group after a redirect
  Cycle fetch_blocked = 0;      // an I-cache miss holds this thread's fetch until then
  u64 seq = 0;                  // instructions issued
  PageFilter ifilter, dfilter;  // address translation: the last pages of fetch and of data
  // Prediction.
  u32 ghr = 0;
  u32 xr_axu = 0;  // bit r: integer register r was last written by an AXU instruction
  u32 ras_top = 0;
  u32 ras_size = 0;
  // Memory ordering (fence).
  Cycle loads_done = 0;
  Cycle stores_done = 0;
  u64 warm_group = ~u64{0};
  ThreadStats st;
  IssueCost last;
  Plan plan;
  std::array<Cycle, 33> xr{};  // integer register ready times (32: the x0 sink)
  std::array<Cycle, 32> fr{};  // FP register ready times
  std::array<Cycle, kRing> issued_at{};
  std::array<u64, kMaxRas> ras{};
  // core.scoreboard_entries: when each instruction's scoreboard entry was free again (in order:
  // not before the entry of the instruction before it).
  std::array<Cycle, kRing> retired_at{};
  SignalStats sig;
};

struct IndirectEntry {
  u64 pc = ~u64{0};
  u64 target = 0;
};

struct Core {
  u64 version = 0;  // changes with every change of this core's state
  std::array<Cycle, kMaxPipes> pipe_free{};
  std::vector<u8> bht;
  std::array<Cycle, kPortRing> port;  // port[c % kPortRing] == c: the fetch port is taken in c
  std::vector<IndirectEntry> indirect;
  std::array<Cycle, 64> lmq{};  // release cycle of each load-miss-queue entry
  std::vector<Cycle> sq;        // departure of store-queue entry i at sq[i % entries]
  u64 sq_n = 0;                 // entries ever allocated
  u32 sq_pos = 0;               // sq_n % entries: the slot of the next entry
  Cycle sq_tail = 0;            // departure of the youngest entry
  // core.store_writes_in_flight: acknowledgement of entry n's write at acks[n % 64].
  std::array<Cycle, 64> acks{};
  // core.store_forwarding = false: the bytes [lo, hi) each entry writes, by slot as sq.
  std::vector<u64> sq_lo, sq_hi;
  u64 sq_young_lo = 0;  // the bytes [lo, hi) the youngest entry holds
  u64 sq_young_hi = 0;
  bool sq_open = false;    // the youngest entry holds a store (one a later store may join)
  Cycle divider_free = 0;  // core.divider = serial: the divider takes a new divide from then
  // Until when each pipe is held by the last multiply or divide it took (MulDivCollisions).
  std::array<Cycle, kMaxPipes> mul_div_until{};
  // core.writeback: wb[(port - 1) * kWindow + c % kWindow] == c when the port is taken in c.
  std::vector<Cycle> wb;
  FullTracker lmq_full;
  FullTracker sq_full;
  CoreStats st;
};

inline bool isLink(u8 r) {
  return r == 1 || r == 5;
}

struct NodeTiming::Impl {
  explicit Impl(const TimingParams& p);

  // The plan of hardware thread h's next instruction: the one kept when nothing it depends on
  // has changed since it was made (issueTime plans, issue asks again), else a new one. (The check
  // is inline: the second ask of every instruction then costs no call of the planner.)
  // (Defined in node_timing.cpp, where the planner is inlined into it.)
  const Plan& plan(u32 h, const isa::DecodedInst& d, u64 pc, u64 addr);
  // Whether nothing thread t's plan depends on has changed since it was made. (issue() asks
  // only this: its instruction is, by contract, the one issueTime() planned last.)
  bool current(const Thread& t) const {
    const Plan& p = t.plan;
    return p.core_version == cores[t.core].version && p.remote_epoch == mem.remoteEpoch(t.core) &&
           (!p.uses_l2 || p.node_version == version);
  }
  // (Inlined into NodeTiming::issueTime, which plans every instruction; issue() replans only
  // when something changed since, through replanOutOfLine.)
  [[gnu::always_inline]] inline const Plan& replan(u32 h, const isa::DecodedInst& d, u64 pc,
                                                   u64 addr);
  [[gnu::noinline]] const Plan& replanOutOfLine(u32 h, const isa::DecodedInst& d, u64 pc, u64 addr);
  // The fetch of the instruction at pc: the group being consumed (inline, most instructions'
  // case), or a new group's fetch (planGroup).
  void planFetch(const Thread& t, const Core& c, u32 core, u64 pc, u32 length, Plan& p) const {
    // (With straddling_fetch, an instruction crossing a group boundary belongs to the group
    // holding its last byte; the group holding its first is fetched the cycle before.)
    const u64 group = (pc + ((length - 1) & straddle_bytes)) & group_mask;
    p.icycles = 0;
    if (t.stream && pc == t.expect_pc && t.redirect == Redirect::kNone && group == t.group) {
      p.new_group = false;  // the next instruction of the group being consumed
      p.uses_l2 = false;
      p.arrival_hit = t.group_arrival_hit;
      p.arrival = t.group_arrival;
      p.group_cause = t.group_cause;
      return;
    }
    planGroup(t, c, core, pc, group, p);
  }
  void planGroup(const Thread& t, const Core& c, u32 core, u64 pc, u64 group, Plan& p) const;
  // (Inlined into NodeTiming::issue, its one caller: a call less per instruction.)
  [[gnu::always_inline]] inline void issue(u32 h, const isa::DecodedInst& d, u64 pc, u64 next_pc,
                                           u64 addr, Cycle at);
  void warmup(u32 h, const isa::DecodedInst& d, u64 pc, u64 addr);
  // Whether a store of o.bytes at `addr` issued at `at` joins the youngest entry: that entry has
  // not left, the store continues its bytes (right after or right before them), and both lie
  // in one aligned l1p.combine_bytes block.
  bool combinable(const Core& c, const OpTiming& o, u64 addr, Cycle at) const {
    const u64 block = ~u64{params.l1p.combine_bytes - 1};
    const u64 end = addr + o.bytes;
    return params.l1p.write_combining && c.sq_open && c.sq_tail > at &&
           (addr == c.sq_young_hi || end == c.sq_young_lo) &&
           (addr & block) == (c.sq_young_lo & block) && ((end - 1) & block) == (addr & block);
  }
  Cycle lmqFree(const Core& c) const {
    Cycle m = c.lmq[0];
    for (u32 i = 1; i < lmq_entries; ++i) m = std::min(m, c.lmq[i]);
    return m;
  }
  Cycle sqFree(const Core& c) const { return c.sq_n >= sq_entries ? c.sq[c.sq_pos] : 0; }
  // The earliest issue the structural limits beside the pipe allow an instruction planned for
  // `at` (docs/timing.md section 2: the scoreboard's entries, the serial divider, a shared
  // write-back port); sets `latency` for a serial divide (its steps come in `addr`).
  Cycle structuralIssue(const Thread& t, const Core& c, const OpTiming& o, u64 addr, Cycle at,
                        u32& latency) const;
  // What an issue at `at` takes of them; `result` is when its destination is ready.
  void structuralCommit(Thread& t, Core& c, const OpTiming& o, Cycle at, u32 latency,
                        Cycle result) const;
  // Without store forwarding: when the last queued store that overlaps [addr, addr + bytes)
  // leaves the queue (0 if none is queued after `at`).
  Cycle queuedStoreDeparture(const Core& c, u64 addr, u32 bytes, Cycle at) const;
  void lmqAllocate(Core& c, Cycle at, Cycle release);
  void storeCommit(Thread& t, Core& c, u32 core, const OpTiming& o, u64 addr, Cycle at);
  void control(Thread& t, Core& c, const OpTiming& o, const isa::DecodedInst& d, u64 pc,
               u64 next_pc, Cycle at);
  // A mispredicted branch or jump issued at `at`, its penalty by where it resolved.
  void mispredict(Thread& t, Cycle at, u32 penalty) const {
    t.redirect = Redirect::kMispredict;
    t.redirect_time = at + penalty - fetch_to_issue;
    // (Its statistic is the branch or jump mispredict the caller counts.)
    HPM_PROBE(bus, kPipelineFlushes, static_cast<u32>(&t - threads.data()), 1);
  }
  void takenRedirect(Thread& t) const {
    t.redirect = Redirect::kTaken;
    t.redirect_time = t.group_fetch + params.core.taken_branch_cycles;
  }
  // Address translation of `addr` by thread t's fetch (or data) side, planned: the page that
  // translates it, and whether the ERAT missed it; returns the cycles its reload holds it.
  // (The filter's hit inline: most accesses stay on the page of the one before.)
  u32 translation(const Thread& t, bool fetch, u64 addr, Page& page, bool& miss) const {
    const PageFilter& f = fetch ? t.ifilter : t.dfilter;
    if (f.contains(addr)) [[likely]] {
      miss = false;
      page = Page{f.base, static_cast<u32>(std::countr_zero(f.mask))};
      return 0;
    }
    return eratLookup(t, fetch, addr, page, miss);
  }
  // ... past the filter: the ERAT, and on its miss the TLB.
  u32 eratLookup(const Thread& t, bool fetch, u64 addr, Page& page, bool& miss) const;
  // ... and done at issue: the ERAT and TLB take the reload of a miss.
  void translated(Thread& t, bool fetch, const Page& page, bool miss) {
    PageFilter& f = fetch ? t.ifilter : t.dfilter;
    f = PageFilter{page.base, page.mask()};
    if (miss) [[unlikely]]
      reloaded(t, fetch, page);
  }
  void reloaded(Thread& t, bool fetch, const Page& page);
  void visitThread(stats::Visitor& v, const ThreadStats& s, Cycle cycles) const;
  void publishIssue(u32 h, const OpTiming& o, const Plan& p, Cycle before, Cycle at,
                    const IssueCost& cost);
  // The signals of a multiply, divide, FP divide or square root issued at `at` (o.busy_unit).
  void unitBusy(Thread& t, Core& c, const OpTiming& o, const Plan& p, Cycle at);
  // The model's events and the statistics that are their ground truth (probe::TruthRow); the
  // memory system's are its own (MemorySystem::truthTable).
  static std::span<const probe::TruthRow<Impl>> truthTable();

  TimingParams params;
  mem::MemorySystem mem;
  probe::Bus* bus = nullptr;
  probe::Bus* queue_bus = nullptr;  // LmqFull and SqFull (setProbe)
  NodeTiming::DevicePages device_pages;
  std::vector<Core> cores;
  std::vector<Thread> threads;
  // Address translation: on (translation.enabled), each core's ERATs and TLB, the pages' sizes.
  bool translate = false;
  std::vector<CoreTranslation> xlate;
  NodeTiming::PageMap page_map;
  u32 page_bits = 20;        // translation.page_kib, without a page map
  u32 first_size_bits = 20;  // translation.tlb_first_size_kib
  std::array<OpTiming, isa::kOpCount> ops{};
  u64 version = 0;
  u32 tpc = 1;
  u32 nx = 1;
  u32 nf = 1;
  u64 group_mask = ~u64{15};
  u32 group_bytes = 16;
  u32 ibuffer = 8;
  u32 fetch_to_issue = 6;
  // Mispredict penalties by where the branch resolves (CoreParams::penaltyNotTaken, ...).
  u32 penalty_taken = 13;
  u32 penalty_not_taken = 13;
  u32 penalty_jump = 13;
  u32 l1i_hit = 0;
  u32 l1d_hit = 0;
  u32 lmq_entries = 8;
  u32 sq_entries = 20;
  u32 ghr_mask = 0;
  u32 scoreboard = 0;
  u64 straddle_bytes =
      0;  // ~0 with core.straddling_fetch: a group holds an instruction's last byte
  bool forwarding = true;
  // Some structural limit beside the pipes is on (scoreboard, serial divider, shared write-back
  // ports): plan and issue consult structuralIssue and structuralCommit.
  bool structural = false;
};

}  // namespace hpm::timing
