// Parameters of the node timing model (seed 003 section 3; docs/timing.md gives every formula
// and the source of every default). Defaults are Blue Gene/Q's A2 core; machines/bgp.toml sets
// the values that differ for Blue Gene/P.
#pragma once

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
  u32 fp_div = 72;
  u32 fp_sqrt = 69;
  u32 fp_misc = 5;
  u32 fp_cvt = 6;
  u32 system = 6;  // CSR reads

  void visit(config::Visitor& v);
  // The latency of class `c`, 0 for the classes whose latency comes from memory or that write
  // no register.
  u32 of(isa::InstClass c) const;
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
  u32 fp_misc = 1;
  u32 fp_cvt = 1;
  u32 system = 1;

  void visit(config::Visitor& v);
  u32 of(isa::InstClass c) const;
};

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
  u32 bht_entries = 1024;       // gshare counters (2 bits) per core
  u32 history_bits = 10;        // per-thread global history length
  u32 ras_entries = 8;          // per-thread return-address stack; 0: returns are indirect jumps
  u32 indirect_entries = 64;    // per-core last-target table for other jalr; 0: always mispredict
  // Memory queues.
  u32 load_miss_queue_entries = 8;  // per core, shared by its threads
  u32 store_queue_entries = 20;     // per core, in the L1P
  u32 store_drain_cycles = 2;       // cycles between two store-queue entries leaving for the L2
  // Device registers (a counter unit's window): uncached and guarded.
  u32 device_latency = 40;  // cycles from a device load's issue to its value (estimate)
  // System instructions.
  u32 ecall_cycles = 16;  // cycles ecall/ebreak hold their thread (before the refetch)
  LatencyTable latency;
  OccupancyTable occupancy;

  void visit(config::Visitor& v);
  void validate() const;
};

// Everything the timing model needs. `cores` and `threads_per_core` come from the node section
// of the machine configuration (NodeParams) and are not visited here.
struct TimingParams {
  u32 cores = 16;
  u32 threads_per_core = 4;
  CoreParams core;
  mem::CacheParams l1i = mem::CacheParams::bgqL1i();
  mem::CacheParams l1d = mem::CacheParams::bgqL1d();
  mem::L1pParams l1p;
  mem::L2Params l2;
  mem::DdrParams ddr;
  mem::BusParams bus;

  // Sections "core", "l1i", "l1d", "l1p", "l2", "ddr", "bus" at the visitor's current level.
  void visit(config::Visitor& v);
  // Throws hpm::Error(kConfig) with a message naming the parameter.
  void validate() const;
  mem::MemParams memParams() const;
};

}  // namespace hpm::timing
