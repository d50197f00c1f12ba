// Parameters of the node timing model (seed 003 section 3; docs/timing.md gives every formula
// and the source of every default). Defaults are Blue Gene/Q's A2 core; machines/bgp.toml sets
// the values that differ for Blue Gene/P.
#pragma once

#include <array>

#include "base/types.h"
#include "config/schema.h"
#include "isa/ops.h"
#include "mem/mem_params.h"

namespace hpm::timing {

// Result latency per instruction class: cycles from an instruction's issue to the issue of a
// dependent instruction. Loads and atomics take theirs from the memory level that serves them
// (l1d.hit_latency, l1p.hit_latency, l2.hit_latency, ddr.latency); branches and stores write
// no register.
struct LatencyTable {
  u32 int_alu = 1;
  u32 int_mul = 6;
  u32 int_div = 65;
  u32 jump = 1;  // the link register of jal/jalr
  u32 fp_add = 6;
  u32 fp_mul = 6;
  u32 fp_fma = 6;
  u32 fp_div = 72;  // fdiv.d (and fsqrt.d below)
  u32 fp_sqrt = 69;
  u32 fp_div_single = 59;  // fdiv.s and fsqrt.s: the A2 takes fewer cycles for single precision
  u32 fp_sqrt_single = 65;
  u32 fp_misc = 5;
  u32 fp_cvt = 6;
  u32 system = 6;  // CSR reads

  void visit(config::Visitor& v);
  // The latency of class `c`, 0 for the classes whose latency comes from memory or that write
  // no register.
  u32 of(isa::InstClass c) const;
  // The latency of `op`: its class's, but for the single-precision divide and square root.
  u32 ofOp(isa::Op op) const;
};

// Pipe occupancy per instruction class: cycles from an instruction's issue until its pipe can
// issue the next instruction (1 = fully pipelined; more = the operation holds the pipe).
struct OccupancyTable {
  u32 int_alu = 1;
  u32 int_mul = 3;
  u32 int_div = 65;
  u32 branch = 1;
  u32 jump = 1;
  u32 load = 1;
  u32 store = 1;
  u32 atomic = 1;
  u32 fp_load = 1;
  u32 fp_store = 1;
  u32 fp_add = 1;
  u32 fp_mul = 1;
  u32 fp_fma = 1;
  u32 fp_div = 72;
  u32 fp_sqrt = 69;
  u32 fp_div_single = 59;
  u32 fp_sqrt_single = 65;
  u32 fp_misc = 1;
  u32 fp_cvt = 1;
  u32 system = 1;

  void visit(config::Visitor& v);
  u32 of(isa::InstClass c) const;
  u32 ofOp(isa::Op op) const;  // as LatencyTable::ofOp
};

// Write-back ports shared between instruction classes (docs/timing.md "Write-back ports"): the
// port each class writes its result on, 0 for none that is shared. Two instructions whose
// classes name the same port k >= 1 cannot write back in the same cycle: one issued at cycle t
// writes back at t + its latency (a branch, which writes no register, takes its port at t + 1,
// as an ALU op does), and an instruction whose write-back cycle is taken issues later. Only
// classes of fixed latency take part (loads and stores have their own ports). bgq: none (A2's
// documentation gives no such rule); cva6: the ALU, branch unit, CSR unit and multiplier share
// one fixed-latency port, so that for one cycle after a multiply issues only another multiply
// may issue (CVA6 documentation).
struct WritebackPorts {
  // port[c]: the port of class c's results (only the classes takesPort accepts).
  std::array<u32, static_cast<std::size_t>(isa::InstClass::kCount)> port{};

  static constexpr u32 kMaxPorts = 4;
  // Write-backs are kept this many cycles ahead (a class on a shared port has a lower latency;
  // the serial divider's latency is at most 66 + 100).
  static constexpr u32 kWindow = 256;
  // The classes of fixed latency, which may share a port (memory accesses have their own).
  static bool takesPort(isa::InstClass c);
  void visit(config::Visitor& v);
  u32 of(isa::InstClass c) const { return port[static_cast<std::size_t>(c)]; }
  bool any() const;
};

// How integer divides and remainders take their latency.
enum class Divider : u8 {
  kFixed,   // latency.int_div and occupancy.int_div, whatever the operands
  kSerial,  // a radix-2 serial divider beside the pipe: serialDividerSteps(op, a, b) cycles
            // plus divider_extra_cycles, busy until then (docs/timing.md "Divider")
};

// The cycles CVA6's radix-2 serial divider (serdiv) takes from accepting the operands of `op`
// (dividend a, divisor b: register values; 32-bit forms use them sign- or zero-extended from
// bit 31, as the core extends them) to its result, as its documentation gives them: with
// x = a and y = b (for signed forms, x = ~a << 1 if a < 0 and y = ~b if b < 0), lzc(y) - lzc(x)
// + 2 when lzc(x) <= lzc(y), else 1; a zero divisor (and a signed divisor of -1) 66.
u32 serialDividerSteps(isa::Op op, u64 a, u64 b);

struct CoreParams {
  // Execution pipes (seed 003 section 6.2 explores integer_pipes = 1, 2, 4).
  u32 integer_pipes = 1;  // XU pipes
  u32 fp_pipes = 1;       // AXU pipes
  // Instruction fetch.
  u32 fetch_group_bytes = 16;   // aligned bytes fetched for one thread per cycle
  u32 ibuffer_entries = 8;      // per-thread instruction buffer
  u32 fetch_to_issue = 6;       // cycles from a group's fetch to the earliest issue of its insts
  u32 taken_branch_cycles = 3;  // from a predicted-taken branch's group fetch to its target's
  // Branch prediction.
  u32 mispredict_penalty = 13;  // from a mispredicted branch's issue to the target's issue
  // Where a branch resolves can change the penalty: a conditional branch that resolves not
  // taken, and a jalr whose target was mispredicted (0: mispredict_penalty for both).
  u32 mispredict_penalty_not_taken = 0;
  u32 mispredict_penalty_jump = 0;
  u32 bht_entries = 1024;     // gshare counters (2 bits) per core
  u32 history_bits = 10;      // per-thread global history length
  u32 ras_entries = 8;        // per-thread return-address stack; 0: returns are indirect jumps
  u32 indirect_entries = 64;  // per-core last-target table for other jalr; 0: always mispredict
  u32 penaltyNotTaken() const {
    return mispredict_penalty_not_taken != 0 ? mispredict_penalty_not_taken : mispredict_penalty;
  }
  u32 penaltyJump() const {
    return mispredict_penalty_jump != 0 ? mispredict_penalty_jump : mispredict_penalty;
  }
  // Memory queues.
  u32 load_miss_queue_entries = 8;  // per core, shared by its threads
  u32 store_queue_entries = 20;     // per core, in the L1P
  u32 store_drain_cycles = 2;       // cycles between two store-queue entries leaving for the L2
  // The store path below the queue (docs/timing.md "Stores"): a write is outstanding
  // store_ack_cycles after it leaves (its entry is held until then), at most
  // store_writes_in_flight at a time (0: no limit); loads that overlap a queued store take its
  // data (store_forwarding) or wait until it has left.
  u32 store_ack_cycles = 0;
  u32 store_writes_in_flight = 0;
  bool store_forwarding = true;
  // Device registers (a counter unit's window): uncached and guarded.
  u32 device_latency = 40;  // cycles from a device load's issue to its value (estimate)
  // System instructions.
  u32 ecall_cycles = 16;  // cycles ecall/ebreak hold their thread (before the refetch)
  // Instructions in flight per thread: an instruction issues only when the one
  // scoreboard_entries before it has completed (0: no limit).
  u32 scoreboard_entries = 0;
  // A 4-byte instruction that crosses a fetch-group boundary comes with the group holding its
  // last byte; after a redirect to it, its first group is fetched a cycle before.
  bool straddling_fetch = false;
  Divider divider = Divider::kFixed;
  u32 divider_extra_cycles = 1;  // serial divider: cycles from its result to a dependent issue
  LatencyTable latency;
  OccupancyTable occupancy;
  WritebackPorts writeback;

  void visit(config::Visitor& v);
  void validate() const;
};

// Address translation (docs/timing.md "Address translation"): Blue Gene/Q's A2 translates every
// instruction fetch through a 16-entry instruction ERAT and every load and store through a
// 32-entry data ERAT (effective-to-real address translation caches, shared by the core's threads),
// which reload from a 512-entry, 4-way TLB shared by the core's threads (A2 Processor User's
// Manual for Blue Gene/Q, chapter 6; Linux's reg_a2.h: A2_IERAT_SIZE 16, A2_DERAT_SIZE 32). CNK
// fills the TLB at job start with large pages covering the whole process (no page tables, no
// table walks), so in a program's steady state an ERAT miss always hits the TLB. Off (no cost
// at all) unless a machine enables it: bgq does; bgp, cva6 and sunfire do not.
struct TranslationParams {
  bool enabled = false;
  u32 ierat_entries = 16;
  u32 derat_entries = 32;
  u32 tlb_entries = 512;
  u32 tlb_ways = 4;
  u32 erat_miss_cycles = 12;  // an ERAT miss the TLB serves (estimate)
  u32 tlb_miss_cycles = 300;  // more when the TLB misses too: the kernel's refill (estimate)
  // The page size the TLB searches first on an ERAT miss (PEVT_MMU_TLB_HIT_FIRSTSIZE_TOT).
  u32 tlb_first_size_kib = 1024;
  // The pages' size where no page map is given (the model alone, in unit tests).
  u32 page_kib = 1024;

  void visit(config::Visitor& v);
  void validate() const;
};

// Everything the timing model needs. `cores`, `threads_per_core` and `interconnect` come from the
// node section
// of the machine configuration (NodeParams) and are not visited here.
struct TimingParams {
  u32 cores = 16;
  u32 threads_per_core = 4;
  probe::Interconnect interconnect = probe::Interconnect::kCrossbar;  // (node.interconnect)
  CoreParams core;
  mem::CacheParams l1i = mem::CacheParams::bgqL1i();
  mem::CacheParams l1d = mem::CacheParams::bgqL1d();
  mem::L1pParams l1p;
  mem::SnoopParams snoop;
  mem::L2Params l2;
  mem::L3Params l3;
  mem::DdrParams ddr;
  mem::FireplaneParams fireplane;
  TranslationParams translation;

  // Sections "core", "translation", "l1i", "l1d", "l1p", "snoop", "l2", "l3", "ddr", "fireplane" at
  // the visitor's current level.
  void visit(config::Visitor& v);
  // Throws hpm::Error(kConfig) with a message naming the parameter.
  void validate() const;
  mem::MemParams memParams() const;
};

}  // namespace hpm::timing
