#include "core/timing_params.h"

#include <bit>
#include <string>
#include <utility>

#include "base/error.h"

namespace hpm::timing {

namespace {
constexpr config::Range kLatencyRange{1, 100000};
}  // namespace

void LatencyTable::visit(config::Visitor& v) {
  v.param("int_alu", int_alu,
          "Integer ALU ops (bgq: 1; A2 simple integer 1, shifts and compares 2)", kLatencyRange);
  v.param("int_mul", int_mul, "Integer multiplies (bgq: 6, A2 64-bit multiply)", kLatencyRange);
  v.param("int_div", int_div, "Integer divides and remainders (bgq: 65, A2 64-bit divide)",
          kLatencyRange);
  v.param("jump", jump, "Link register of jal/jalr (bgq: 1)", kLatencyRange);
  v.param("fp_add", fp_add, "FP add/subtract (bgq: 6, A2 FPU)", kLatencyRange);
  v.param("fp_mul", fp_mul, "FP multiply (bgq: 6)", kLatencyRange);
  v.param("fp_fma", fp_fma, "FP fused multiply-add (bgq: 6)", kLatencyRange);
  v.param("fp_div", fp_div, "FP divide (bgq: 72, A2 double divide)", kLatencyRange);
  v.param("fp_sqrt", fp_sqrt, "FP square root (bgq: 69, A2 double square root)", kLatencyRange);
  v.param("fp_div_single", fp_div_single, "fdiv.s (bgq: 59, A2 single divide)", kLatencyRange);
  v.param("fp_sqrt_single", fp_sqrt_single, "fsqrt.s (bgq: 65, A2 single square root)",
          kLatencyRange);
  v.param("fp_misc", fp_misc, "FP compare, min/max, sign injection, class, moves (bgq: 5)",
          kLatencyRange);
  v.param("fp_cvt", fp_cvt, "FP conversions (bgq: 6)", kLatencyRange);
  v.param("system", system, "CSR reads (bgq: 6, A2 mfspr)", kLatencyRange);
}

u32 LatencyTable::of(isa::InstClass c) const {
  using C = isa::InstClass;
  switch (c) {
    case C::kIntAlu: return int_alu;
    case C::kIntMul: return int_mul;
    case C::kIntDiv: return int_div;
    case C::kJump: return jump;
    case C::kFpAdd: return fp_add;
    case C::kFpMul: return fp_mul;
    case C::kFpFma: return fp_fma;
    case C::kFpDiv: return fp_div;
    case C::kFpSqrt: return fp_sqrt;
    case C::kFpMisc: return fp_misc;
    case C::kFpCvt: return fp_cvt;
    case C::kSystem: return system;
    default: return 0;
  }
}

u32 LatencyTable::ofOp(isa::Op op) const {
  if (op == isa::Op::kFdivS) return fp_div_single;
  if (op == isa::Op::kFsqrtS) return fp_sqrt_single;
  return of(isa::opInfo(op).cls);
}

void OccupancyTable::visit(config::Visitor& v) {
  v.param("int_alu", int_alu, "Integer ALU ops (bgq: 1)", kLatencyRange);
  v.param("int_mul", int_mul, "Integer multiplies (bgq: 3, A2 multiplier busy 3 cycles)",
          kLatencyRange);
  v.param("int_div", int_div, "Integer divides, not pipelined (bgq: 65)", kLatencyRange);
  v.param("branch", branch, "Conditional branches (bgq: 1)", kLatencyRange);
  v.param("jump", jump, "jal, jalr (bgq: 1)", kLatencyRange);
  v.param("load", load, "Integer loads (bgq: 1)", kLatencyRange);
  v.param("store", store, "Integer stores (bgq: 1)", kLatencyRange);
  v.param("atomic", atomic, "LR, SC, AMOs (bgq: 1)", kLatencyRange);
  v.param("fp_load", fp_load, "FP loads, on the AXU (bgq: 1)", kLatencyRange);
  v.param("fp_store", fp_store, "FP stores, on the AXU (bgq: 1)", kLatencyRange);
  v.param("fp_add", fp_add, "FP add/subtract (bgq: 1)", kLatencyRange);
  v.param("fp_mul", fp_mul, "FP multiply (bgq: 1)", kLatencyRange);
  v.param("fp_fma", fp_fma, "FP fused multiply-add (bgq: 1)", kLatencyRange);
  v.param("fp_div", fp_div, "FP divide, not pipelined (bgq: 72)", kLatencyRange);
  v.param("fp_sqrt", fp_sqrt, "FP square root, not pipelined (bgq: 69)", kLatencyRange);
  v.param("fp_div_single", fp_div_single, "fdiv.s, not pipelined (bgq: 59)", kLatencyRange);
  v.param("fp_sqrt_single", fp_sqrt_single, "fsqrt.s, not pipelined (bgq: 65)", kLatencyRange);
  v.param("fp_misc", fp_misc, "FP compare, min/max, sign injection, moves (bgq: 1)", kLatencyRange);
  v.param("fp_cvt", fp_cvt, "FP conversions (bgq: 1)", kLatencyRange);
  v.param("system", system, "CSR accesses, fences, ecall (bgq: 1)", kLatencyRange);
}

u32 OccupancyTable::of(isa::InstClass c) const {
  using C = isa::InstClass;
  switch (c) {
    case C::kIntAlu: return int_alu;
    case C::kIntMul: return int_mul;
    case C::kIntDiv: return int_div;
    case C::kBranch: return branch;
    case C::kJump: return jump;
    case C::kLoad: return load;
    case C::kStore: return store;
    case C::kAtomic: return atomic;
    case C::kFpLoad: return fp_load;
    case C::kFpStore: return fp_store;
    case C::kFpAdd: return fp_add;
    case C::kFpMul: return fp_mul;
    case C::kFpFma: return fp_fma;
    case C::kFpDiv: return fp_div;
    case C::kFpSqrt: return fp_sqrt;
    case C::kFpMisc: return fp_misc;
    case C::kFpCvt: return fp_cvt;
    case C::kSystem: return system;
    case C::kCount: break;
  }
  return 1;
}

u32 OccupancyTable::ofOp(isa::Op op) const {
  if (op == isa::Op::kFdivS) return fp_div_single;
  if (op == isa::Op::kFsqrtS) return fp_sqrt_single;
  return of(isa::opInfo(op).cls);
}

bool WritebackPorts::takesPort(isa::InstClass c) {
  using C = isa::InstClass;
  return c != C::kLoad && c != C::kStore && c != C::kAtomic && c != C::kFpLoad && c != C::kFpStore;
}

void WritebackPorts::visit(config::Visitor& v) {
  for (u32 c = 0; c < port.size(); ++c) {
    const auto cls = static_cast<isa::InstClass>(c);
    if (!takesPort(cls)) continue;
    v.param(isa::instClassName(cls), port[c],
            "The shared write-back port of this class's results, 0 for none (bgq: 0)",
            config::Range{0, kMaxPorts});
  }
}

bool WritebackPorts::any() const {
  for (u32 p : port) {
    if (p != 0) return true;
  }
  return false;
}

u32 serialDividerSteps(isa::Op op, u64 a, u64 b) {
  using isa::Op;
  const bool is_signed = op == Op::kDiv || op == Op::kRem || op == Op::kDivw || op == Op::kRemw;
  const bool word = op == Op::kDivw || op == Op::kDivuw || op == Op::kRemw || op == Op::kRemuw;
  if (word) {
    a = is_signed ? static_cast<u64>(static_cast<i64>(static_cast<i32>(a))) : u64{u32(a)};
    b = is_signed ? static_cast<u64>(static_cast<i64>(static_cast<i32>(b))) : u64{u32(b)};
  }
  constexpr u32 kWidth = 64;
  if (b == 0 || (is_signed && b == ~u64{0})) return kWidth + 2;
  const u64 x = is_signed && static_cast<i64>(a) < 0 ? ~a << 1 : a;
  const u64 y = is_signed && static_cast<i64>(b) < 0 ? ~b : b;
  const u32 lzx = static_cast<u32>(std::countl_zero(x));
  const u32 lzy = static_cast<u32>(std::countl_zero(y));
  return lzx <= lzy ? lzy - lzx + 2 : 1;
}

void CoreParams::visit(config::Visitor& v) {
  v.param("integer_pipes", integer_pipes,
          "Integer (XU) pipes per core: integer, branch, load/store and system instructions "
          "(bgq: 1)",
          config::Range{1, 7});
  v.param("fp_pipes", fp_pipes,
          "Floating-point (AXU) pipes per core: FP arithmetic and FP loads/stores (bgq: 1)",
          config::Range{1, 7});
  v.param("fetch_group_bytes", fetch_group_bytes,
          "Aligned bytes one thread fetches in a cycle (bgq: 16, four instructions)",
          config::powerOfTwo(4, 64));
  v.param("ibuffer_entries", ibuffer_entries,
          "Per-thread instruction buffer, in 4-byte instruction slots (bgq: 8)",
          config::Range{1, 64});
  v.param("fetch_to_issue", fetch_to_issue,
          "Cycles from a group's fetch to the earliest issue of its instructions (bgq: 6, A2 "
          "stages IU0 to IU6)",
          config::Range{1, 1000});
  v.param("taken_branch_cycles", taken_branch_cycles,
          "Cycles from the fetch of the group holding a correctly predicted taken branch or jump "
          "to the fetch of its target (bgq: 3, estimate)",
          config::Range{1, 1000});
  v.param("mispredict_penalty", mispredict_penalty,
          "Cycles from a mispredicted branch's issue to the issue of the correct target, and so "
          "at least from its fetch to the target's fetch (bgq: 13, seed 003)",
          config::Range{2, 10000});
  v.param("mispredict_penalty_not_taken", mispredict_penalty_not_taken,
          "The penalty of a mispredicted conditional branch that resolves not taken; 0: "
          "mispredict_penalty (bgq: 0: the seed gives one penalty)",
          config::Range{0, 10000});
  v.param("mispredict_penalty_jump", mispredict_penalty_jump,
          "The penalty of a jalr whose target was mispredicted; 0: mispredict_penalty (bgq: 0)",
          config::Range{0, 10000});
  v.param("bht_entries", bht_entries,
          "Two-bit counters of the gshare branch history table, per core (bgq: 1024, seed 003)",
          config::powerOfTwo(2, 1 << 20));
  v.param("history_bits", history_bits,
          "Length of each thread's global branch history, XORed into the table index (bgq: 10, "
          "estimate; 0 gives a bimodal predictor)",
          config::Range{0, 32});
  v.param("ras_entries", ras_entries,
          "Per-thread return-address stack predicting returns (bgq: 8, estimate; 0: returns are "
          "predicted like other indirect jumps)",
          config::Range{0, 64});
  v.param("indirect_entries", indirect_entries,
          "Per-core table of last targets predicting jalr that are not returns (bgq: 64, "
          "estimate; 0: always mispredicted)",
          config::Range{0, 1 << 16});
  v.param("load_miss_queue_entries", load_miss_queue_entries,
          "Load-miss queue entries per core, shared by its threads; an L1D-missing load or an "
          "atomic holds one until its data returns (bgq: 8, seed 003)",
          config::Range{1, 64});
  v.param("store_queue_entries", store_queue_entries,
          "Store-queue entries per core in the L1P; a store holds one until it leaves for the L2 "
          "(bgq: 20, seed 003)",
          config::Range{1, 256});
  v.param("store_drain_cycles", store_drain_cycles,
          "Cycles between two store-queue entries leaving for the L2 over the crossbar, which "
          "runs at half the core clock (bgq: 2)",
          config::Range{1, 10000});
  v.param("store_ack_cycles", store_ack_cycles,
          "Cycles from a store-queue entry's write leaving for the next level to its "
          "acknowledgement; the entry stays taken until then (bgq: 0, freed when the crossbar "
          "takes it, seed 003; cva6: 3, one AXI write)",
          config::Range{0, 10000});
  v.param("store_writes_in_flight", store_writes_in_flight,
          "Writes outstanding to the next level at once: an entry leaves only once the write "
          "this many before it is acknowledged (bgq: 0, no limit; cva6: 1, one AXI write in "
          "flight)",
          config::Range{0, 64});
  v.param("store_forwarding", store_forwarding,
          "Whether a load takes the data of a queued store it overlaps (true) or waits until "
          "that store has left the queue (false) (bgq: true, the L1D is written through at the "
          "store's issue; cva6: false)");
  v.param("device_latency", device_latency,
          "Cycles from a load of a device register (a counter unit's window, uncached and "
          "guarded) to its value; device stores are posted. No cache, queue or L2 sees device "
          "accesses (bgq: 40, estimate)",
          config::Range{1, 100000});
  v.param("ecall_cycles", ecall_cycles,
          "Cycles ecall and ebreak hold their thread before the pipeline refetches (bgq: 16, A2 "
          "sc latency; the kernel's own work is not included)",
          config::Range{1, 1000000});
  v.param("scoreboard_entries", scoreboard_entries,
          "Instructions in flight per hardware thread: an instruction issues only once the one "
          "this many before it has completed, in order (bgq: 0, no limit; cva6: 8)",
          config::Range{0, 32});
  v.param("straddling_fetch", straddling_fetch,
          "A 4-byte instruction crossing a fetch-group boundary arrives with the group holding "
          "its last byte, and after a redirect to it its first group is fetched a cycle earlier "
          "(bgq: false; A2's PowerPC instructions never straddle)");
  v.param("divider", divider,
          "Integer divides: fixed (latency.int_div, occupancy.int_div) or serial (a radix-2 "
          "divider beside the pipe, as CVA6's: its documented cycles for the operands plus "
          "divider_extra_cycles, and busy until then) (bgq: fixed)",
          {{"fixed", Divider::kFixed}, {"serial", Divider::kSerial}});
  v.param("divider_extra_cycles", divider_extra_cycles,
          "Serial divider: cycles from the divider's result to the issue of a dependent "
          "instruction (cva6: 1)",
          config::Range{0, 100});
  v.section("latency", latency);
  v.section("occupancy", occupancy);
  v.section("writeback", writeback);
}

void CoreParams::validate() const {
  if (integer_pipes < 1 || fp_pipes < 1 || integer_pipes + fp_pipes > 8) {
    fail(ExitCode::kConfig,
         "core: integer_pipes = {} and fp_pipes = {} must each be at least 1 and together at "
         "most 8",
         integer_pipes, fp_pipes);
  }
  if (!std::has_single_bit(fetch_group_bytes) || fetch_group_bytes < 4 || fetch_group_bytes > 64) {
    fail(ExitCode::kConfig, "core: fetch_group_bytes = {} must be a power of two from 4 to 64",
         fetch_group_bytes);
  }
  if (ibuffer_entries < fetch_group_bytes / 4 || ibuffer_entries > 64) {
    fail(ExitCode::kConfig,
         "core: ibuffer_entries = {} must hold a fetch group ({} slots) and be at most 64",
         ibuffer_entries, fetch_group_bytes / 4);
  }
  if (fetch_to_issue < 1) fail(ExitCode::kConfig, "core: fetch_to_issue must be at least 1");
  for (const auto& [name, penalty] : {std::pair{"mispredict_penalty", mispredict_penalty},
                                      std::pair{"mispredict_penalty_not_taken", penaltyNotTaken()},
                                      std::pair{"mispredict_penalty_jump", penaltyJump()}}) {
    if (penalty <= fetch_to_issue) {
      fail(ExitCode::kConfig,
           "core: {} = {} must exceed fetch_to_issue = {} (the target is fetched "
           "penalty - fetch_to_issue cycles after the branch issues)",
           name, penalty, fetch_to_issue);
    }
  }
  if (taken_branch_cycles < 1) {
    fail(ExitCode::kConfig, "core: taken_branch_cycles must be at least 1");
  }
  if (!std::has_single_bit(bht_entries)) {
    fail(ExitCode::kConfig, "core: bht_entries = {} must be a power of two", bht_entries);
  }
  if (history_bits > 32) fail(ExitCode::kConfig, "core: history_bits must be at most 32");
  if (ras_entries > 64) fail(ExitCode::kConfig, "core: ras_entries must be at most 64");
  if (indirect_entries != 0 && !std::has_single_bit(indirect_entries)) {
    fail(ExitCode::kConfig, "core: indirect_entries = {} must be 0 or a power of two",
         indirect_entries);
  }
  if (load_miss_queue_entries < 1 || load_miss_queue_entries > 64) {
    fail(ExitCode::kConfig, "core: load_miss_queue_entries = {} must be from 1 to 64",
         load_miss_queue_entries);
  }
  if (store_queue_entries < 1 || store_queue_entries > 256) {
    fail(ExitCode::kConfig, "core: store_queue_entries = {} must be from 1 to 256",
         store_queue_entries);
  }
  if (store_drain_cycles < 1) fail(ExitCode::kConfig, "core: store_drain_cycles must be >= 1");
  if (ecall_cycles < 1) fail(ExitCode::kConfig, "core: ecall_cycles must be at least 1");
  // Every opcode's values (the single-precision divide and square root have their own).
  for (u32 i = 0; i < isa::kOpCount; ++i) {
    const auto op = static_cast<isa::Op>(i);
    const isa::InstClass cls = isa::opInfo(op).cls;
    const bool single = op == isa::Op::kFdivS || op == isa::Op::kFsqrtS;
    const std::string name = std::string(isa::instClassName(cls)) + (single ? "_single" : "");
    if (occupancy.ofOp(op) < 1)
      fail(ExitCode::kConfig, "core.occupancy.{} must be at least 1", name);
    // A port's reservations are kept for WritebackPorts::kWindow cycles ahead.
    if (writeback.of(cls) != 0 && latency.ofOp(op) >= WritebackPorts::kWindow) {
      fail(ExitCode::kConfig,
           "core.writeback.{} names a shared port, but core.latency.{} = {} is not below {}, "
           "the cycles ahead a port's write-backs are kept",
           isa::instClassName(cls), name, latency.ofOp(op), WritebackPorts::kWindow);
    }
  }
  // (The model keeps the last 64 instructions' completions, the last 64 writes' acknowledgements,
  // and write-backs WritebackPorts::kWindow cycles ahead: 66 + 100 for a serial divide.)
  if (scoreboard_entries > 32) fail(ExitCode::kConfig, "core: scoreboard_entries must be <= 32");
  if (store_writes_in_flight > 64) {
    fail(ExitCode::kConfig, "core: store_writes_in_flight must be <= 64");
  }
  if (divider_extra_cycles > 100)
    fail(ExitCode::kConfig, "core: divider_extra_cycles must be <= 100");
}

void TranslationParams::visit(config::Visitor& v) {
  v.param("enabled", enabled,
          "Whether the core translates addresses through ERATs and a TLB, charging their misses "
          "(bgq: true; bgp, cva6, sunfire: false, no translation modelled and no cost)");
  v.param("ierat_entries", ierat_entries,
          "Instruction ERAT entries per core, fully associative, round-robin replacement, shared "
          "by the core's threads (bgq: 16, A2 manual)",
          config::Range{1, 256});
  v.param("derat_entries", derat_entries,
          "Data ERAT entries per core, as the instruction ERAT (bgq: 32, A2 manual)",
          config::Range{1, 256});
  v.param("tlb_entries", tlb_entries,
          "TLB entries per core, shared by its threads, least recently used replacement in a set "
          "(bgq: 512, A2 manual)",
          config::powerOfTwo(1, 1 << 16));
  v.param("tlb_ways", tlb_ways, "TLB ways (bgq: 4, A2 manual)", config::powerOfTwo(1, 64));
  v.param("erat_miss_cycles", erat_miss_cycles,
          "Cycles an ERAT miss holds its fetch or access while the TLB reloads the entry (bgq: 12, "
          "estimate)",
          config::Range{0, 100000});
  v.param("tlb_miss_cycles", tlb_miss_cycles,
          "Further cycles when the TLB misses too: a page evicted from the TLB that the kernel "
          "writes back (CNK's static mapping never takes one while the TLB holds every page) "
          "(bgq: 300, estimate)",
          config::Range{0, 1000000});
  v.param("tlb_first_size_kib", tlb_first_size_kib,
          "The page size the TLB searches first on an ERAT miss, in KiB (bgq: 1024, estimate: "
          "CNK's smallest page)",
          config::powerOfTwo(4, 1 << 20));
  v.param("page_kib", page_kib,
          "The size of every page when the model runs without the kernel's page map (a model on "
          "its own; a simulation takes each page's size from CNK's static mapping of the process) "
          "(bgq: 1024)",
          config::powerOfTwo(4, 1 << 20));
}

void TranslationParams::validate() const {
  if (tlb_ways > tlb_entries) {
    fail(ExitCode::kConfig, "translation: tlb_ways ({}) must be at most tlb_entries ({})", tlb_ways,
         tlb_entries);
  }
}

void TimingParams::visit(config::Visitor& v) {
  v.section("core", core);
  v.section("translation", translation);
  v.section("l1i", l1i);
  v.section("l1d", l1d);
  v.section("l1p", l1p);
  v.section("snoop", snoop);
  v.section("l2", l2);
  v.section("l3", l3);
  v.section("ddr", ddr);
  v.section("fireplane", fireplane);
}

mem::MemParams TimingParams::memParams() const {
  mem::MemParams m;
  m.cores = cores;
  m.threads_per_core = threads_per_core;
  m.l1i = l1i;
  m.l1d = l1d;
  m.l1p = l1p;
  m.snoop = snoop;
  m.interconnect = interconnect;
  m.l2 = l2;
  m.l3 = l3;
  m.ddr = ddr;
  m.fireplane = fireplane;
  return m;
}

void TimingParams::validate() const {
  if (cores < 1) fail(ExitCode::kConfig, "the timing model needs at least one core");
  if (threads_per_core < 1 || threads_per_core > 64) {
    fail(ExitCode::kConfig, "threads_per_core = {} must be from 1 to 64", threads_per_core);
  }
  core.validate();
  translation.validate();
  memParams().validate();
  if (l1i.line_bytes < core.fetch_group_bytes) {
    fail(ExitCode::kConfig,
         "l1i.line_bytes = {} must hold a fetch group (core.fetch_group_bytes "
         "= {})",
         l1i.line_bytes, core.fetch_group_bytes);
  }
}

}  // namespace hpm::timing
