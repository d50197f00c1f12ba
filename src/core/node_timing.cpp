// The node timing model: time-stamped resources (seed 003 section 3). docs/timing.md states every
// rule implemented here as a formula; the comments below name the rule each piece implements.
#include "core/node_timing.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include "base/error.h"
#include "core/timing_params.h"
#include "mem/memory_system.h"

namespace hpm::timing {

std::string_view stallName(Stall s) {
  switch (s) {
    case Stall::kDependency: return "dependency";
    case Stall::kPipeBusy: return "pipe_busy";
    case Stall::kIbufferEmpty: return "ibuffer_empty";
    case Stall::kIcacheMiss: return "icache_miss";
    case Stall::kMispredict: return "mispredict";
    case Stall::kLmqFull: return "lmq_full";
    case Stall::kSqFull: return "sq_full";
    case Stall::kIdle: return "idle";
    case Stall::kCount: break;
  }
  return "?";
}

namespace {

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
};

enum class Redirect : u8 { kNone, kTaken, kMispredict };

// Where the stall cycles of a lump lie (probe::LevelSource): from its first cycle, in the order
// the constraints were checked (an idle lump has only kIdle), then the instruction's own cycles.
// publishIssue publishes the same intervals.
constexpr Stall kLumpOrder[] = {Stall::kIdle,       Stall::kIbufferEmpty, Stall::kMispredict,
                                Stall::kIcacheMiss, Stall::kDependency,   Stall::kLmqFull,
                                Stall::kPipeBusy,   Stall::kSqFull};

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
  }
};

struct CoreStats {
  u64 fetch_port_waits = 0;  // cycles group fetches waited for the shared fetch port
  u64 lmq_allocations = 0;
  u64 sq_allocations = 0;
  u64 sq_combined = 0;
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
  std::array<Cycle, kStallCount> stalls{};
  // Fetch.
  bool new_group = false;
  bool priority = false;
  u64 group = 0;
  Cycle fetch_earliest = 0;
  Cycle fetch = 0;
  Cycle arrival_hit = 0;  // when the group would arrive had its I-cache access hit
  Cycle arrival = 0;
  Stall group_cause = Stall::kIbufferEmpty;  // why it was fetched when it was
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
  Cycle redirect_time = 0;  // earliest fetch of the group after a redirect
  Cycle fetch_blocked = 0;  // an I-cache miss holds this thread's fetch until then
  u64 seq = 0;              // instructions issued
  // Prediction.
  u32 ghr = 0;
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
  // core.writeback: wb[(port - 1) * kWindow + c % kWindow] == c when the port is taken in c.
  std::vector<Cycle> wb;
  FullTracker lmq_full;
  FullTracker sq_full;
  CoreStats st;
};

bool isLink(u8 r) {
  return r == 1 || r == 5;
}

}  // namespace

struct NodeTiming::Impl {
  explicit Impl(const TimingParams& p);

  const Plan& plan(u32 h, const isa::DecodedInst& d, u64 pc, u64 addr);
  void planFetch(const Thread& t, const Core& c, u32 core, u64 pc, u32 length, Plan& p) const;
  void issue(u32 h, const isa::DecodedInst& d, u64 pc, u64 next_pc, u64 addr, Cycle at);
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
  }
  void takenRedirect(Thread& t) const {
    t.redirect = Redirect::kTaken;
    t.redirect_time = t.group_fetch + params.core.taken_branch_cycles;
  }
  void visitThread(stats::Visitor& v, const ThreadStats& s, Cycle cycles) const;
  void publishIssue(u32 h, u8 cls, Cycle before, Cycle at, const IssueCost& cost);
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

namespace {

TimingParams validated(const TimingParams& p) {
  p.validate();
  return p;
}

OpTiming opTiming(isa::Op op, const CoreParams& cp) {
  using isa::Format;
  using C = isa::InstClass;
  const isa::OpInfo& info = isa::opInfo(op);
  const Format f = info.format;
  OpTiming o;
  o.cls = static_cast<u8>(info.cls);
  o.axu = info.cls >= C::kFpLoad && info.cls <= C::kFpCvt;
  o.latency = cp.latency.ofOp(op);
  o.occupancy = cp.occupancy.ofOp(op);
  o.wb_port = static_cast<u8>(cp.writeback.of(info.cls));
  o.wb_delay = info.cls == C::kBranch ? 1 : o.latency;
  o.serial_div = info.cls == C::kIntDiv && cp.divider == Divider::kSerial;
  if (isa::readsRs1(f) && !isa::rs1IsFp(f)) o.int_src |= 1;
  if (isa::readsRs2(f) && !isa::rs2IsFp(f)) o.int_src |= 2;
  if (isa::rs1IsFp(f)) o.fp_src |= 1;
  if (isa::rs2IsFp(f)) o.fp_src |= 2;
  if (isa::readsRs3(f)) o.fp_src |= 4;
  if (isa::rdIsFp(f)) o.dst = 2;
  if (isa::writesIntRd(f)) o.dst = 1;
  const isa::OpMix mix = isa::opMix(op);
  o.bytes = mix.load_bytes | mix.store_bytes;
  switch (info.cls) {
    case C::kLoad:
    case C::kFpLoad: o.kind = Kind::kLoad; break;
    case C::kStore:
    case C::kFpStore: o.kind = Kind::kStore; break;
    case C::kAtomic: o.kind = Kind::kAtomic; break;
    case C::kBranch: o.kind = Kind::kBranch; break;
    default: break;
  }
  switch (op) {
    case isa::Op::kJal: o.kind = Kind::kJal; break;
    case isa::Op::kJalr: o.kind = Kind::kJalr; break;
    case isa::Op::kFence: o.kind = Kind::kFence; break;
    case isa::Op::kEcall:
    case isa::Op::kEbreak:
      o.kind = Kind::kSerialize;
      o.hold = cp.ecall_cycles;
      break;
    case isa::Op::kFenceI: o.kind = Kind::kSerialize; break;
    default: break;
  }
  return o;
}

}  // namespace

NodeTiming::Impl::Impl(const TimingParams& p) : params(validated(p)), mem(params.memParams()) {
  const CoreParams& cp = params.core;
  tpc = params.threads_per_core;
  nx = cp.integer_pipes;
  nf = cp.fp_pipes;
  group_bytes = cp.fetch_group_bytes;
  group_mask = ~u64{group_bytes - 1};
  ibuffer = cp.ibuffer_entries;
  fetch_to_issue = cp.fetch_to_issue;
  penalty_taken = cp.mispredict_penalty;
  penalty_not_taken = cp.penaltyNotTaken();
  penalty_jump = cp.penaltyJump();
  l1i_hit = params.l1i.hit_latency;
  lmq_entries = cp.load_miss_queue_entries;
  sq_entries = cp.store_queue_entries;
  ghr_mask = cp.history_bits >= 32 ? ~u32{0} : (u32{1} << cp.history_bits) - 1;
  scoreboard = cp.scoreboard_entries;
  straddle_bytes = cp.straddling_fetch ? ~u64{0} : 0;
  forwarding = cp.store_forwarding;
  structural = scoreboard != 0 || cp.divider == Divider::kSerial || cp.writeback.any();
  for (std::size_t i = 0; i < isa::kOpCount; ++i) ops[i] = opTiming(static_cast<isa::Op>(i), cp);
  cores.resize(params.cores);
  for (Core& c : cores) {
    c.bht.assign(cp.bht_entries, 1);  // weakly not taken
    c.port.fill(~Cycle{0});
    c.indirect.assign(cp.indirect_entries, IndirectEntry{});
    c.sq.assign(sq_entries, 0);
    if (!cp.store_forwarding) {
      c.sq_lo.assign(sq_entries, 0);
      c.sq_hi.assign(sq_entries, 0);
    }
    if (cp.writeback.any())
      c.wb.assign(WritebackPorts::kMaxPorts * WritebackPorts::kWindow, ~Cycle{0});
  }
  threads.resize(std::size_t{params.cores} * tpc);
  for (std::size_t h = 0; h < threads.size(); ++h) threads[h].core = static_cast<u32>(h / tpc);
}

// ---- Fetch (docs/timing.md "Instruction fetch") ----

void NodeTiming::Impl::planFetch(const Thread& t, const Core& c, u32 core, u64 pc, u32 length,
                                 Plan& p) const {
  // (With straddling_fetch, an instruction crossing a group boundary belongs to the group
  // holding its last byte; the group holding its first is fetched the cycle before.)
  const u64 group = (pc + ((length - 1) & straddle_bytes)) & group_mask;
  const bool straddles = group != (pc & group_mask);
  if (t.stream && pc == t.expect_pc && t.redirect == Redirect::kNone && group == t.group) {
    p.new_group = false;  // the next instruction of the group being consumed
    p.uses_l2 = false;
    p.arrival_hit = t.group_arrival_hit;
    p.arrival = t.group_arrival;
    p.group_cause = t.group_cause;
    return;
  }
  p.new_group = true;
  p.group = group;
  Cycle e;
  Stall cause = Stall::kIbufferEmpty;
  if (!t.stream || pc != t.expect_pc) {
    e = t.clock;  // a restart: refetch from the thread's clock
  } else if (t.redirect == Redirect::kNone) {
    e = t.group_fetch + 1;  // the sequentially next group
  } else {
    e = t.redirect_time;
    if (t.redirect == Redirect::kMispredict) cause = Stall::kMispredict;
  }
  if (straddles && (!t.stream || pc != t.expect_pc || t.redirect != Redirect::kNone)) ++e;
  // Buffer credit: the fetch is requested only when the buffer has room for the whole group
  // (`slots` 4-byte slots from pc to the group's end), counting instructions in flight: of the
  // instructions before the group, at most ibuffer - slots may still wait to issue.
  const u32 slots = static_cast<u32>((group + group_bytes - pc + 3) / 4);
  const u64 keep = ibuffer - slots;
  if (t.seq > keep) e = std::max(e, t.issued_at[(t.seq - 1 - keep) % kRing] + 1);
  e = std::max(e, t.fetch_blocked);
  p.fetch_earliest = e;
  // One thread fetches per cycle; a thread with an empty buffer and no fetch in flight wins.
  p.priority = t.clock <= e && t.group_arrival <= e;
  Cycle f = e;
  if (!p.priority) {
    while (c.port[f % kPortRing] == f) ++f;
  }
  p.fetch = f;
  p.arrival_hit = f + l1i_hit + fetch_to_issue;
  p.arrival = mem.fetchProbe(core, group, f) + fetch_to_issue;
  p.uses_l2 = p.arrival > p.arrival_hit;  // a miss: the answer depends on the L2
  p.group_cause = cause;
}

// ---- Issue planning (docs/timing.md "Issue") ----

const Plan& NodeTiming::Impl::plan(u32 h, const isa::DecodedInst& d, u64 pc, u64 addr) {
  Thread& t = threads[h];
  Plan& p = t.plan;
  const u32 core = t.core;
  const Core& c = cores[core];
  if (p.core_version == c.version && p.remote_epoch == mem.remoteEpoch(core) &&
      (!p.uses_l2 || p.node_version == version) && p.pc == pc && p.addr == addr &&
      std::memcmp(&p.inst, &d, sizeof d) == 0) {
    return p;
  }
  p.core_version = c.version;
  p.remote_epoch = mem.remoteEpoch(core);
  p.node_version = version;
  p.pc = pc;
  p.addr = addr;
  p.inst = d;
  const OpTiming& o = ops[static_cast<std::size_t>(d.op)];

  // Each constraint that is later than every constraint before it delays the issue; the cycles
  // it adds are charged to it. So a stall cycle goes to the first constraint, in the order
  // fetch, operands, load-miss queue, pipe, store queue, that is not yet met in that cycle.
  Cycle at = t.clock;
  p.stalls = {};
  auto bind = [&](Cycle x, Stall s) {
    if (x > at) {
      p.stalls[idx(s)] += x - at;
      at = x;
    }
  };
  planFetch(t, c, core, pc, d.length, p);
  bind(p.arrival_hit, p.group_cause);
  bind(p.arrival, Stall::kIcacheMiss);

  Cycle operands = 0;
  if (o.int_src & 1) operands = std::max(operands, t.xr[d.rs1 & 31]);
  if (o.int_src & 2) operands = std::max(operands, t.xr[d.rs2 & 31]);
  if (o.fp_src & 1) operands = std::max(operands, t.fr[d.rs1 & 31]);
  if (o.fp_src & 2) operands = std::max(operands, t.fr[d.rs2 & 31]);
  if (o.fp_src & 4) operands = std::max(operands, t.fr[d.rs3 & 31]);
  if (o.kind == Kind::kFence) operands = std::max({operands, t.loads_done, t.stores_done});
  bind(operands, Stall::kDependency);
  if (!forwarding && o.kind == Kind::kLoad) [[unlikely]]
    bind(queuedStoreDeparture(c, addr, o.bytes, at), Stall::kDependency);

  // A device access takes no load-miss-queue or store-queue entry (docs/timing.md "Device
  // registers"). (Only memory accesses look at the page table.)
  const bool device =
      o.kind >= Kind::kLoad && o.kind <= Kind::kAtomic && device_pages.contains(addr);
  p.device = device;
  p.lmq = !device &&
          (o.kind == Kind::kAtomic || (o.kind == Kind::kLoad && !mem.l1dPresent(core, addr)));
  if (p.lmq) bind(lmqFree(c), Stall::kLmqFull);

  const u32 first = o.axu ? nx : 0;
  const u32 last = o.axu ? nx + nf : nx;
  u32 pipe = first;
  for (u32 i = first + 1; i < last; ++i) {
    if (c.pipe_free[i] < c.pipe_free[pipe]) pipe = i;
  }
  p.pipe = pipe;
  bind(c.pipe_free[pipe], Stall::kPipeBusy);

  p.latency = o.latency;
  if (structural) [[unlikely]] {
    const Cycle x = structuralIssue(t, c, o, addr, at, p.latency);
    bind(x, Stall::kPipeBusy);
  }

  p.combine = false;
  if (o.kind == Kind::kStore && !device) {
    p.combine = combinable(c, o, addr, at);
    if (!p.combine) bind(sqFree(c), Stall::kSqFull);
  }
  p.at = at;
  return p;
}

// ---- Commit ----

Cycle NodeTiming::Impl::structuralIssue(const Thread& t, const Core& c, const OpTiming& o, u64 addr,
                                        Cycle at, u32& latency) const {
  if (scoreboard != 0 && t.seq >= scoreboard) {
    at = std::max(at, t.retired_at[(t.seq - scoreboard) % kRing]);
  }
  if (o.serial_div) {
    latency = static_cast<u32>(addr) + params.core.divider_extra_cycles;
    at = std::max(at, c.divider_free);
  }
  if (o.wb_port != 0) {
    const Cycle* ring = &c.wb[std::size_t{o.wb_port - 1u} * WritebackPorts::kWindow];
    const u32 delay = o.serial_div ? latency : o.wb_delay;
    Cycle w = at + delay;
    while (ring[w % WritebackPorts::kWindow] == w) ++w;
    at = w - delay;
  }
  return at;
}

void NodeTiming::Impl::structuralCommit(Thread& t, Core& c, const OpTiming& o, Cycle at,
                                        u32 latency, Cycle result) const {
  if (scoreboard != 0) {
    // Completion in order: not before the instruction before it (stores and branches a cycle
    // after issue; loads when their data returns).
    const Cycle prev = t.seq == 0 ? 0 : t.retired_at[(t.seq - 1) % kRing];
    t.retired_at[t.seq % kRing] = std::max({prev, at + 1, result});
  }
  if (o.serial_div) c.divider_free = at + latency;
  if (o.wb_port != 0) {
    const Cycle w = at + (o.serial_div ? latency : o.wb_delay);
    c.wb[std::size_t{o.wb_port - 1u} * WritebackPorts::kWindow + w % WritebackPorts::kWindow] = w;
  }
}

Cycle NodeTiming::Impl::queuedStoreDeparture(const Core& c, u64 addr, u32 bytes, Cycle at) const {
  // (Entries leave in order; each slot's departure is the write's ack minus store_ack_cycles.)
  const u64 n = std::min<u64>(c.sq_n, sq_entries);
  const Cycle ack = params.core.store_ack_cycles;
  Cycle until = 0;
  for (u64 k = 0; k < n; ++k) {
    const u32 slot = static_cast<u32>((c.sq_pos + sq_entries - 1 - k) % sq_entries);
    const Cycle departure = c.sq[slot] - ack;
    if (departure <= at) break;  // it and every older entry have left
    if (c.sq_lo[slot] < addr + bytes && addr < c.sq_hi[slot]) until = std::max(until, departure);
  }
  return until;
}

void NodeTiming::Impl::lmqAllocate(Core& c, Cycle at, Cycle release) {
  u32 m = 0;
  for (u32 i = 1; i < lmq_entries; ++i) {
    if (c.lmq[i] < c.lmq[m]) m = i;
  }
  c.lmq[m] = release;
  ++c.st.lmq_allocations;
  const u32 core = static_cast<u32>(&c - cores.data());
  HPM_PROBE(bus, kLmqAllocations, core, 1);
  const Cycle free = lmqFree(c);
  if (free > at) {
    const Cycle until_before = c.lmq_full.until;
    c.lmq_full.add(at, free);
    HPM_PROBE_LEVEL(queue_bus, kLmqFull, core, std::max(at, until_before), free);
  }
}

void NodeTiming::Impl::storeCommit(Thread& t, Core& c, u32 core, const OpTiming& o, u64 addr,
                                   Cycle at) {
  mem.storeIssue(core, addr, at);
  if (combinable(c, o, addr, at)) {
    c.sq_young_lo = std::min(c.sq_young_lo, addr);
    c.sq_young_hi = std::max(c.sq_young_hi, addr + o.bytes);
    ++c.st.sq_combined;
    HPM_PROBE(bus, kSqCombined, core, 1);
    mem.drainCombined(core, addr, o.bytes);
    if (!c.sq_lo.empty()) {
      const u32 young = (c.sq_pos + sq_entries - 1) % sq_entries;
      c.sq_lo[young] = std::min(c.sq_lo[young], addr);
      c.sq_hi[young] = std::max(c.sq_hi[young], addr + o.bytes);
    }
    t.stores_done = std::max(t.stores_done, c.sq[(c.sq_pos + sq_entries - 1) % sq_entries]);
    return;
  }
  // Entries leave in order, one per store_drain_cycles, when their L2 slice takes them (on
  // Fireplane, once their line is owned).
  const Cycle start = mem.drainFree(core, addr, std::max(at, c.sq_tail));
  const Cycle done = mem.drain(core, addr, o.bytes, start);
  const CoreParams& cp = params.core;
  Cycle departure = done + cp.store_drain_cycles;
  // At most store_writes_in_flight writes outstanding: this one leaves once the write that many
  // before it is acknowledged.
  if (cp.store_writes_in_flight != 0 && c.sq_n >= cp.store_writes_in_flight) {
    departure = std::max(departure, c.acks[(c.sq_n - cp.store_writes_in_flight) % c.acks.size()]);
  }
  const Cycle acked = departure + cp.store_ack_cycles;
  if (cp.store_writes_in_flight != 0) c.acks[c.sq_n % c.acks.size()] = acked;
  c.sq[c.sq_pos] = acked;
  if (!c.sq_lo.empty()) {
    c.sq_lo[c.sq_pos] = addr;
    c.sq_hi[c.sq_pos] = addr + o.bytes;
  }
  ++c.sq_n;
  if (++c.sq_pos == sq_entries) c.sq_pos = 0;
  ++c.st.sq_allocations;
  HPM_PROBE(bus, kSqAllocations, core, 1);
  c.sq_tail = departure;
  c.sq_young_lo = addr;
  c.sq_young_hi = addr + o.bytes;
  c.sq_open = true;
  if (c.sq_n >= sq_entries) {
    const Cycle oldest = c.sq[c.sq_pos];
    if (oldest > at) {
      const Cycle until_before = c.sq_full.until;
      c.sq_full.add(at, oldest);
      HPM_PROBE_LEVEL(queue_bus, kSqFull, core, std::max(at, until_before), oldest);
    }
  }
  t.stores_done = std::max(t.stores_done, acked);
}

void NodeTiming::Impl::control(Thread& t, Core& c, const OpTiming& o, const isa::DecodedInst& d,
                               u64 pc, u64 next_pc, Cycle at) {
  const CoreParams& cp = params.core;
  t.expect_pc = next_pc;
  if (o.kind == Kind::kBranch) {
    const bool taken = next_pc != pc + d.length;
    u8& ctr = c.bht[((pc >> 1) ^ t.ghr) & (cp.bht_entries - 1)];
    const bool predicted = ctr >= 2;
    ctr = taken ? static_cast<u8>(std::min(3, ctr + 1)) : static_cast<u8>(ctr == 0 ? 0 : ctr - 1);
    t.ghr = ((t.ghr << 1) | (taken ? 1 : 0)) & ghr_mask;
    ++t.st.branches;
    t.st.branches_taken += taken ? 1 : 0;
    const u32 h = static_cast<u32>(&t - threads.data());
    if (taken) {
      HPM_PROBE(bus, kBranchesTaken, h, 1);
    } else {
      HPM_PROBE(bus, kBranchesNotTaken, h, 1);
    }
    if (predicted != taken) {
      ++t.st.branch_mispredicts;
      HPM_PROBE(bus, kBranchMispredicts, h, 1);
      mispredict(t, at, taken ? penalty_taken : penalty_not_taken);
    } else if (taken) {
      takenRedirect(t);
    }
    return;
  }
  auto push = [&](u64 ret) {
    if (cp.ras_entries == 0) return;
    t.ras_top = (t.ras_top + 1) % cp.ras_entries;
    t.ras[t.ras_top] = ret;
    t.ras_size = std::min(t.ras_size + 1, cp.ras_entries);
  };
  ++t.st.jumps;
  if (o.kind == Kind::kJal) {
    // Direct: the target is known at fetch, so it is always predicted.
    if (isLink(d.rd)) push(pc + d.length);
    takenRedirect(t);
    return;
  }
  // jalr: a return pops the return-address stack; other jalr use the per-core target table.
  const bool is_return = cp.ras_entries > 0 && isLink(d.rs1) && !(isLink(d.rd) && d.rd == d.rs1);
  bool correct = false;
  if (is_return) {
    ++t.st.returns;
    HPM_PROBE(bus, kReturns, static_cast<u32>(&t - threads.data()), 1);
    if (t.ras_size > 0) {
      correct = t.ras[t.ras_top] == next_pc;
      t.ras_top = (t.ras_top + cp.ras_entries - 1) % cp.ras_entries;
      --t.ras_size;
    }
    if (!correct) {
      ++t.st.return_mispredicts;
      HPM_PROBE(bus, kReturnMispredicts, static_cast<u32>(&t - threads.data()), 1);
    }
  } else if (!c.indirect.empty()) {
    IndirectEntry& e = c.indirect[(pc >> 1) & (c.indirect.size() - 1)];
    correct = e.pc == pc && e.target == next_pc;
    e = IndirectEntry{pc, next_pc};
  }
  if (isLink(d.rd)) push(pc + d.length);
  if (correct) {
    takenRedirect(t);
  } else {
    ++t.st.jump_mispredicts;
    HPM_PROBE(bus, kJumpMispredicts, static_cast<u32>(&t - threads.data()), 1);
    mispredict(t, at, penalty_jump);
  }
}

void NodeTiming::Impl::issue(u32 h, const isa::DecodedInst& d, u64 pc, u64 next_pc, u64 addr,
                             Cycle at) {
  const Plan& p = plan(h, d, pc, addr);
  if (at < p.at) {
    fail(ExitCode::kInternal,
         "timing: hardware thread {} issued at cycle {}, before its issue time {}", h, at, p.at);
  }
  ++version;
  Thread& t = threads[h];
  const u32 core = t.core;
  Core& c = cores[core];
  ++c.version;
  const OpTiming& o = ops[static_cast<std::size_t>(d.op)];
  const Cycle before = t.clock;
  mem.setRequesterThread(h);

  if (p.new_group) {
    c.port[p.fetch % kPortRing] = p.fetch;
    c.st.fetch_port_waits += p.fetch - p.fetch_earliest;
    if (p.fetch > p.fetch_earliest)
      HPM_PROBE(bus, kFetchPortWaits, core, p.fetch - p.fetch_earliest);
    const Cycle ready = mem.fetch(core, p.group, p.fetch);
    t.group = p.group;
    t.group_fetch = p.fetch;
    t.group_arrival_hit = p.arrival_hit;
    t.group_arrival = ready + fetch_to_issue;
    t.group_cause = p.group_cause;
    if (ready > p.fetch + l1i_hit) t.fetch_blocked = ready;
    t.stream = true;
    t.redirect = Redirect::kNone;
    ++t.st.fetch_groups;
    HPM_PROBE(bus, kFetchGroups, h, 1);
  }

  IssueCost& cost = t.last;
  cost.stalls = p.stalls;
  if (at > p.at) cost.stalls[idx(Stall::kPipeBusy)] += at - p.at;

  c.pipe_free[p.pipe] = at + o.occupancy;
  ++t.st.issued[p.pipe];
  if (p.pipe < nx) {
    HPM_PROBE(bus, kIssueXu, h, 1);
  } else {
    HPM_PROBE(bus, kIssueAxu, h, 1);
  }

  Cycle result = at + p.latency;
  t.expect_pc = pc + d.length;
  if (p.device) [[unlikely]] {
    // Uncached and guarded: a load's value comes back device_latency cycles after it issues, a
    // store is posted; no cache, queue or L2 sees either (docs/timing.md "Device registers").
    ++t.st.device_accesses;
    mem.deviceAccess(addr, o.kind == Kind::kStore);
    if (o.kind == Kind::kLoad || o.kind == Kind::kAtomic) {
      result = at + params.core.device_latency;
      t.loads_done = std::max(t.loads_done, result);
    }
  } else {
    switch (o.kind) {
      case Kind::kLoad: {
        const mem::LoadResult r = mem.load(core, addr, at, c.sq_tail);
        result = r.ready;
        if (r.l1_miss) lmqAllocate(c, at, r.ready);
        t.loads_done = std::max(t.loads_done, r.ready);
        break;
      }
      case Kind::kAtomic:
        result = mem.atomic(core, addr, at, c.sq_tail);
        lmqAllocate(c, at, result);
        t.loads_done = std::max(t.loads_done, result);
        break;
      case Kind::kStore: storeCommit(t, c, core, o, addr, at); break;
      case Kind::kBranch:
      case Kind::kJal:
      case Kind::kJalr: control(t, c, o, d, pc, next_pc, at); break;
      case Kind::kSerialize: t.stream = false; break;  // the pipeline refetches after it
      case Kind::kFence:
      case Kind::kPlain: break;
    }
  }
  if (o.dst == 1) {
    if (d.rd != 0 && d.rd < 32) t.xr[d.rd] = result;
  } else if (o.dst == 2) {
    t.fr[d.rd & 31] = result;
  }

  t.issued_at[t.seq % kRing] = at;
  if (structural) [[unlikely]]
    structuralCommit(t, c, o, at, p.latency, result);
  ++t.seq;
  t.clock = at + o.hold;
  cost.cycles = t.clock - before;
  cost.clock = t.clock;
  ++t.st.instructions;
  ++t.st.by_class[o.cls];
  t.st.compressed += d.length == 2;
  for (std::size_t i = 0; i < kStallCount; ++i) t.st.stalls[i] += cost.stalls[i];
  if (bus != nullptr) [[unlikely]]
    publishIssue(h, o.cls, before, at, cost);
}

void NodeTiming::Impl::publishIssue(u32 h, u8 cls, Cycle before, Cycle at, const IssueCost& cost) {
  HPM_PROBE(bus, kInstructions, h, 1);
  const auto event = static_cast<probe::Event>(static_cast<u32>(probe::Event::kInstIntAlu) + cls);
  if (bus->wants(event, h)) bus->pulse(event, h, 1);
  Cycle t0 = before;
  for (Stall s : kLumpOrder) {
    const Cycle n = cost.stalls[idx(s)];
    if (n == 0) continue;
    const auto stall = static_cast<probe::Event>(static_cast<u32>(probe::Event::kStallDependency) +
                                                 static_cast<u32>(s));
    if (bus->wants(stall, h)) bus->level(stall, h, t0, t0 + n);
    t0 += n;
  }
  HPM_PROBE_LEVEL(bus, kStallAny, h, before, at);
  HPM_PROBE_LEVEL(bus, kCycles, h, before, before + cost.cycles);
}

void NodeTiming::Impl::warmup(u32 h, const isa::DecodedInst& d, u64 pc, u64 addr) {
  ++version;
  Thread& t = threads[h];
  const u32 core = t.core;
  ++cores[core].version;
  const OpTiming& o = ops[static_cast<std::size_t>(d.op)];
  mem.setRequesterThread(h);
  const u64 group = pc & group_mask;
  if (group != t.warm_group) {
    mem.warmFetch(core, group, t.clock);
    t.warm_group = group;
  }
  const bool device =
      o.kind >= Kind::kLoad && o.kind <= Kind::kAtomic && device_pages.contains(addr);
  if (device) {
    ++t.st.device_accesses;
    mem.deviceAccess(addr, o.kind == Kind::kStore);
  }
  switch (device ? Kind::kPlain : o.kind) {
    case Kind::kLoad: mem.warmLoad(core, addr, t.clock); break;
    case Kind::kStore: mem.warmStore(core, addr, t.clock); break;
    case Kind::kAtomic: mem.warmAtomic(core, addr, t.clock); break;
    default: break;
  }
  t.stream = false;
  t.clock += 1;
  t.last = IssueCost{};
  t.last.cycles = 1;
  t.last.clock = t.clock;
  ++t.st.warmup_instructions;
  ++t.st.by_class[o.cls];
  t.st.compressed += d.length == 2;
  if (bus != nullptr) [[unlikely]] {
    HPM_PROBE_LEVEL(bus, kCycles, h, t.clock - 1, t.clock);
    HPM_PROBE(bus, kInstructions, h, 1);
    const auto event =
        static_cast<probe::Event>(static_cast<u32>(probe::Event::kInstIntAlu) + o.cls);
    if (bus->wants(event, h)) bus->pulse(event, h, 1);
  }
}

// ---- Statistics ----

void NodeTiming::Impl::visitThread(stats::Visitor& v, const ThreadStats& s, Cycle cycles) const {
  v.counter("cycles", cycles, "Clock of the latest hardware thread: cycles simulated");
  v.counter("instructions", s.instructions, "Instructions issued");
  v.counter("warmup_instructions", s.warmup_instructions, "Instructions run in warm-up mode");
  v.counter("compressed", s.compressed, "Instructions (issued or warm-up) that were 16-bit");
  v.beginGroup("instructions_by_class");
  for (std::size_t i = 0; i < kClasses; ++i) {
    v.counter(isa::instClassName(static_cast<isa::InstClass>(i)), s.by_class[i],
              "Instructions of this class issued or run in warm-up mode");
  }
  v.endGroup();
  v.beginGroup("issued");
  for (u32 i = 0; i < nx + nf; ++i) {
    const std::string name = i < nx ? fmt::format("xu{}", i) : fmt::format("axu{}", i - nx);
    v.counter(name, s.issued[i], "Cycles this pipe issued an instruction");
  }
  v.endGroup();
  v.beginGroup("stalls");
  for (std::size_t i = 0; i < kStallCount; ++i) {
    v.counter(stallName(static_cast<Stall>(i)), s.stalls[i],
              "Cycles instructions waited past their thread's clock, charged to the first "
              "constraint not met");
  }
  v.endGroup();
  v.counter("branches", s.branches, "Conditional branches");
  v.counter("branches_taken", s.branches_taken, "Conditional branches taken");
  v.counter("branch_mispredicts", s.branch_mispredicts, "Mispredicted conditional branches");
  v.counter("jumps", s.jumps, "jal and jalr");
  v.counter("jump_mispredicts", s.jump_mispredicts, "jalr whose target was mispredicted");
  v.counter("returns", s.returns, "jalr predicted by the return-address stack");
  v.counter("return_mispredicts", s.return_mispredicts, "Returns whose target was mispredicted");
  v.counter("fetch_groups", s.fetch_groups, "Instruction groups fetched");
  v.counter("device_accesses", s.device_accesses,
            "Loads and stores of device registers (uncached, guarded: no cache or queue)");
}

NodeTiming::NodeTiming(const TimingParams& params) : impl_(std::make_unique<Impl>(params)) {}
NodeTiming::~NodeTiming() = default;

Cycle NodeTiming::issueTime(u32 h, const isa::DecodedInst& inst, u64 pc, u64 addr) {
  return impl_->plan(h, inst, pc, addr).at;
}

const IssueCost& NodeTiming::issue(u32 h, const isa::DecodedInst& inst, u64 pc, u64 next_pc,
                                   u64 addr, Cycle at) {
  impl_->issue(h, inst, pc, next_pc, addr, at);
  return impl_->threads[h].last;
}

void NodeTiming::setDevicePages(const DevicePages& pages) {
  impl_->device_pages = pages;
}

const IssueCost& NodeTiming::warmup(u32 h, const isa::DecodedInst& inst, u64 pc, u64 addr) {
  impl_->warmup(h, inst, pc, addr);
  return impl_->threads[h].last;
}

void NodeTiming::prefetch(u32 h) const {
  // (The record's first two lines, every instruction's, and its plan's first.)
  const Thread& t = impl_->threads[h];
  __builtin_prefetch(&t.clock);
  __builtin_prefetch(&t.fetch_blocked);
  __builtin_prefetch(&t.plan);
}

Cycle NodeTiming::hartTime(u32 h) const {
  return impl_->threads[h].clock;
}

void NodeTiming::idleUntil(u32 h, Cycle to) {
  Thread& t = impl_->threads[h];
  if (to <= t.clock) return;
  ++impl_->version;
  ++impl_->cores[t.core].version;
  t.last = IssueCost{};
  t.last.cycles = to - t.clock;
  t.last.stalls[idx(Stall::kIdle)] = to - t.clock;
  t.last.clock = to;
  t.st.stalls[idx(Stall::kIdle)] += to - t.clock;
  HPM_PROBE_LEVEL(impl_->bus, kStallIdle, h, t.clock, to);
  HPM_PROBE_LEVEL(impl_->bus, kCycles, h, t.clock, to);
  t.clock = to;
}

void NodeTiming::switchContext(u32 h) {
  Thread& t = impl_->threads[h];
  ++impl_->version;
  ++impl_->cores[t.core].version;
  t.stream = false;
  t.redirect = Redirect::kNone;
  t.ghr = 0;
  t.ras_size = 0;
  t.warm_group = ~u64{0};
}

// ---- Ground truth ----

std::span<const probe::TruthRow<NodeTiming::Impl>> NodeTiming::Impl::truthTable() {
  using probe::Changes;
  using probe::Event;
  using probe::Tally;
  using probe::TruthTerms;
  using Row = probe::TruthRow<Impl>;
  static const std::vector<Row> kRows = [] {
    std::vector<Row> rows = {
        // A thread's clock: every cycle is one of its (idle ones included), in warm-up mode too.
        {Event::kCycles,
         [](const Impl& m, u32 h, TruthTerms& t) { t.push_back({&m.threads[h].clock}); },
         Changes::kOwnCore, Tally::kLevel},
        // Instructions of the timing mode, or of the warm-up mode (which counts apart).
        {Event::kInstructions,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].st.instructions});
           t.push_back({&m.threads[h].st.warmup_instructions});
         }},
        {Event::kInstCompressed,
         [](const Impl& m, u32 h, TruthTerms& t) { t.push_back({&m.threads[h].st.compressed}); }},
        {Event::kFpOps,
         [](const Impl& m, u32 h, TruthTerms& t) {
           for (u32 c = 0; c < kClasses; ++c) {
             const u32 flops = isa::flopsOf(static_cast<isa::InstClass>(c));
             if (flops != 0) t.push_back({&m.threads[h].st.by_class[c], flops});
           }
         }},
        {Event::kBranchesTaken,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].st.branches_taken});
         }},
        {Event::kBranchesNotTaken,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].st.branches});
           t.push_back({&m.threads[h].st.branches_taken, ~u64{0}});
         }},
        {Event::kBranchMispredicts,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].st.branch_mispredicts});
         }},
        {Event::kJumpMispredicts,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].st.jump_mispredicts});
         }},
        {Event::kReturns,
         [](const Impl& m, u32 h, TruthTerms& t) { t.push_back({&m.threads[h].st.returns}); }},
        {Event::kReturnMispredicts,
         [](const Impl& m, u32 h, TruthTerms& t) {
           t.push_back({&m.threads[h].st.return_mispredicts});
         }},
        {Event::kFetchGroups,
         [](const Impl& m, u32 h, TruthTerms& t) { t.push_back({&m.threads[h].st.fetch_groups}); }},
        {Event::kIssueXu,
         [](const Impl& m, u32 h, TruthTerms& t) {
           for (u32 p = 0; p < m.nx; ++p) t.push_back({&m.threads[h].st.issued[p]});
         }},
        {Event::kIssueAxu,
         [](const Impl& m, u32 h, TruthTerms& t) {
           for (u32 p = 0; p < m.nf; ++p) t.push_back({&m.threads[h].st.issued[m.nx + p]});
         }},
        {Event::kStallAny,
         [](const Impl& m, u32 h, TruthTerms& t) {
           for (u32 k = 0; k < kStallCount; ++k) {
             if (static_cast<Stall>(k) != Stall::kIdle) t.push_back({&m.threads[h].st.stalls[k]});
           }
         },
         Changes::kOwnCore, Tally::kLevel},
        {Event::kLmqAllocations,
         [](const Impl& m, u32 c, TruthTerms& t) {
           t.push_back({&m.cores[c].st.lmq_allocations});
         }},
        {Event::kSqAllocations,
         [](const Impl& m, u32 c, TruthTerms& t) { t.push_back({&m.cores[c].st.sq_allocations}); }},
        {Event::kSqCombined,
         [](const Impl& m, u32 c, TruthTerms& t) { t.push_back({&m.cores[c].st.sq_combined}); }},
        {Event::kFetchPortWaits,
         [](const Impl& m, u32 c, TruthTerms& t) {
           t.push_back({&m.cores[c].st.fetch_port_waits});
         }},
        // The queue-full levels reach into the future as they are published: counted from
        // events only (their cycles so far: done + until - from).
        {Event::kLmqFull,
         [](const Impl& m, u32 c, TruthTerms& t) {
           const FullTracker& f = m.cores[c].lmq_full;
           t.insert(t.end(), {{&f.done}, {&f.until}, {&f.from, ~u64{0}}});
         },
         Changes::kAnytime, Tally::kNone},
        {Event::kSqFull,
         [](const Impl& m, u32 c, TruthTerms& t) {
           const FullTracker& f = m.cores[c].sq_full;
           t.insert(t.end(), {{&f.done}, {&f.until}, {&f.from, ~u64{0}}});
         },
         Changes::kAnytime, Tally::kNone},
    };
    // The instruction classes (InstIntAlu .. InstSystem follow the classes' order) and the
    // stall causes (StallDependency .. StallIdle follow the stalls').
    const auto each = [&rows]<u32... I>(std::integer_sequence<u32, I...>, auto make) {
      (rows.push_back(make(std::integral_constant<u32, I>{})), ...);
    };
    each(std::make_integer_sequence<u32, kClasses>{}, [](auto c) {
      return Row{static_cast<Event>(static_cast<u32>(Event::kInstIntAlu) + c.value),
                 [](const Impl& m, u32 h, TruthTerms& t) {
                   t.push_back({&m.threads[h].st.by_class[decltype(c)::value]});
                 }};
    });
    each(std::make_integer_sequence<u32, kStallCount>{}, [](auto k) {
      return Row{static_cast<Event>(static_cast<u32>(Event::kStallDependency) + k.value),
                 [](const Impl& m, u32 h, TruthTerms& t) {
                   t.push_back({&m.threads[h].st.stalls[decltype(k)::value]});
                 },
                 Changes::kOwnCore, Tally::kLevel};
    });
    return rows;
  }();
  return kRows;
}

void NodeTiming::registerTallies(probe::Bus& bus) const {
  // What only a core's own instructions change changes its version (issue() and idleUntil()
  // step it first): its threads' events, its queues, its caches' own accesses and its traffic
  // below them (the tables' kOwnCore rows).
  const Impl& m = *impl_;
  const auto core_version = [&m](u32 core) { return &m.cores[core].version; };
  probe::registerTallies(bus, Impl::truthTable(), m, core_version,
                         [](u32) -> const u64* { return nullptr; });
  m.mem.registerTallies(bus, core_version);
}

std::optional<u64> NodeTiming::groundTruth(probe::Event e, u32 instance) const {
  if (auto v = probe::truthOf(Impl::truthTable(), *impl_, e, instance)) return v;
  return impl_->mem.groundTruth(e, instance);
}

void NodeTiming::deviceLines(u64 addr, u64 bytes, Cycle at, bool write, bool timed) {
  impl_->mem.deviceLines(addr, bytes, at, write, timed);
}

const probe::TransactionCounts& NodeTiming::transactionCounts() const {
  return impl_->mem.transactionCounts();
}

u32 NodeTiming::l2Block(u64 addr) const {
  return impl_->mem.l2Block(addr);
}

const mem::FrameTable* NodeTiming::frames() const {
  return impl_->mem.frames();
}

const u64* NodeTiming::coreVersion(u32 core) const {
  return &impl_->cores[core].version;
}

namespace {

// The thread level events' stall, for StallDependency .. StallIdle.
bool stallOf(probe::Event e, Stall& s) {
  const auto first = static_cast<u32>(probe::Event::kStallDependency);
  const auto k = static_cast<u32>(e) - first;
  if (static_cast<u32>(e) < first || k >= kStallCount) return false;
  s = static_cast<Stall>(k);
  return true;
}

}  // namespace

Cycle NodeTiming::levelClock(u32 thread) const {
  return impl_->threads[thread].clock;
}

Cycle NodeTiming::lastLumpStart(u32 thread) const {
  const Thread& t = impl_->threads[thread];
  return t.clock - t.last.cycles;
}

std::pair<Cycle, Cycle> NodeTiming::levelInLastLump(probe::Event e, u32 thread) const {
  const Thread& t = impl_->threads[thread];
  const Cycle start = t.clock - t.last.cycles;
  if (e == probe::Event::kCycles) return {start, t.clock};
  if (e == probe::Event::kStallAny) {
    Cycle n = 0;
    for (std::size_t i = 0; i < kStallCount; ++i)
      n += i == idx(Stall::kIdle) ? 0 : t.last.stalls[i];
    return {start, start + n};
  }
  Stall wanted = Stall::kCount;
  if (!stallOf(e, wanted))
    fail(ExitCode::kInternal, "timing: {} is no thread level event", probe::info(e).name);
  Cycle x = start;
  for (Stall s : kLumpOrder) {
    const Cycle n = t.last.stalls[idx(s)];
    if (s == wanted) return {x, x + n};
    x += n;
  }
  return {x, x};
}

u64 NodeTiming::levelBefore(probe::Event e, u32 thread, Cycle at) const {
  const Thread& t = impl_->threads[thread];
  u64 total = 0;
  Stall s = Stall::kCount;
  if (e == probe::Event::kCycles) {
    total = t.clock;
  } else if (e == probe::Event::kStallAny) {
    for (std::size_t i = 0; i < kStallCount; ++i)
      total += i == idx(Stall::kIdle) ? 0 : t.st.stalls[i];
  } else if (stallOf(e, s)) {
    total = t.st.stalls[idx(s)];
  } else {
    fail(ExitCode::kInternal, "timing: {} is no thread level event", probe::info(e).name);
  }
  if (at >= t.clock) return total;
  if (at < t.clock - t.last.cycles) {
    fail(ExitCode::kInternal,
         "timing: level count of thread {} before cycle {}, inside a lump that ended", thread, at);
  }
  const auto [x, y] = levelInLastLump(e, thread);
  const Cycle from = std::max(x, at);
  return total - (y > from ? y - from : 0);
}

void NodeTiming::setProbe(probe::Bus* bus) {
  // Each part gets the bus only while some event of its own is published (not counted from
  // statistics, or not at all): the probes of a part without it cost a compare each. The
  // queue-full levels, published as intervals that reach into the future, have their own.
  using probe::Event;
  using probe::Scope;
  bool timing = false, queues = false, memory = false;
  for (std::size_t e = 0; bus != nullptr && e < probe::kEventCount; ++e) {
    const Scope scope = probe::kEventInfo[e].scope;
    if (probe::nodeWide(scope)) continue;
    bool wanted = false;
    for (u32 s = 0; s < bus->topology().instances(scope) && !wanted; ++s) {
      wanted = bus->wants(static_cast<Event>(e), s);
    }
    if (!wanted) continue;
    const auto event = static_cast<Event>(e);
    // (The thread events from InstCompressed to Fences are the driver's instruction mix.)
    const bool mix = event >= Event::kInstCompressed && event <= Event::kFences;
    if (event == Event::kLmqFull || event == Event::kSqFull) {
      queues = true;
    } else if (mix) {
      continue;
    } else if (scope == Scope::kThread || event == Event::kLmqAllocations ||
               event == Event::kSqAllocations || event == Event::kSqCombined ||
               event == Event::kFetchPortWaits) {
      timing = true;
    } else {
      memory = true;
    }
  }
  impl_->bus = timing ? bus : nullptr;
  impl_->queue_bus = queues ? bus : nullptr;
  // The memory system publishes the interconnect's transactions too.
  if (bus != nullptr && bus->wantsTransactions()) memory = true;
  impl_->mem.setProbe(memory ? bus : nullptr);
}

const IssueCost& NodeTiming::lastCost(u32 h) const {
  return impl_->threads[h].last;
}

CoreSnapshot NodeTiming::snapshot(u32 core) const {
  const Impl& m = *impl_;
  CoreSnapshot s;
  s.integer_pipes = m.nx;
  s.fp_pipes = m.nf;
  for (u32 i = 0; i < m.tpc; ++i) {
    const Thread& t = m.threads[std::size_t{core} * m.tpc + i];
    s.cycles = std::max(s.cycles, t.clock);
    for (u32 p = 0; p < kMaxPipes; ++p) s.issued[p] += t.st.issued[p];
  }
  const Core& c = m.cores[core];
  s.lmq_full_cycles = c.lmq_full.upTo(s.cycles);
  s.sq_full_cycles = c.sq_full.upTo(s.cycles);
  return s;
}

const TimingParams& NodeTiming::params() const {
  return impl_->params;
}

u32 NodeTiming::hardwareThreads() const {
  return static_cast<u32>(impl_->threads.size());
}

void NodeTiming::visitStats(stats::Visitor& v) const {
  const Impl& m = *impl_;
  v.beginList("cores");
  for (u32 core = 0; core < m.cores.size(); ++core) {
    const Core& c = m.cores[core];
    ThreadStats sum;
    Cycle cycles = 0;
    for (u32 i = 0; i < m.tpc; ++i) {
      const Thread& t = m.threads[std::size_t{core} * m.tpc + i];
      sum.add(t.st);
      cycles = std::max(cycles, t.clock);
    }
    v.beginGroup("");
    m.visitThread(v, sum, cycles);
    v.counter("fetch_port_waits", c.st.fetch_port_waits,
              "Cycles group fetches waited for the core's fetch port");
    v.counter("lmq_allocations", c.st.lmq_allocations,
              "Load-miss-queue entries taken (L1D-missing loads, atomics)");
    v.counter("lmq_full_cycles", c.lmq_full.total(), "Cycles the load-miss queue was full");
    v.counter("sq_allocations", c.st.sq_allocations, "Store-queue entries taken");
    v.counter("sq_combined", c.st.sq_combined,
              "Stores combined into the entry of the store before them");
    v.counter("sq_full_cycles", c.sq_full.total(), "Cycles the store queue was full");
    m.mem.visitCoreStats(core, v);
    v.beginList("threads");
    for (u32 i = 0; i < m.tpc; ++i) {
      const Thread& t = m.threads[std::size_t{core} * m.tpc + i];
      v.beginGroup("");
      m.visitThread(v, t.st, t.clock);
      v.endGroup();
    }
    v.endList();
    v.endGroup();
  }
  v.endList();
  m.mem.visitSharedStats(v);
}

}  // namespace hpm::timing
