// Parameters of the memory hierarchy of the timing model (seed 003, docs/timing.md): the private
// L1 instruction and data caches, the L1P prefetch/write-combining buffer, the shared L2 split
// into slices, and the DDR controllers. Defaults are Blue Gene/Q's; machines/bgp.toml overrides
// the values that differ for Blue Gene/P. Each default's source is in docs/timing.md.
#pragma once

#include <string_view>

#include "base/types.h"
#include "config/schema.h"

namespace hpm::mem {

// Which line of a set a fill replaces (invalid lines are always taken first).
enum class Replacement : u8 {
  kLru,     // least recently used (hits refresh a line)
  kFifo,    // oldest fill first (hits do not refresh); PowerPC 440/450 "round-robin"
  kRandom,  // pseudo-random, from a fixed-seed xorshift generator (deterministic runs)
};
std::string_view replacementName(Replacement r);

// A set-associative private cache (L1I or L1D).
struct CacheParams {
  u32 size_kib = 16;
  u32 ways = 8;
  u32 line_bytes = 64;
  Replacement replacement = Replacement::kLru;
  // L1D: load-to-use cycles of a hit. L1I: cycles a hitting fetch adds to core.fetch_to_issue.
  u32 hit_latency = 6;

  static CacheParams bgqL1i() { return {16, 4, 64, Replacement::kLru, 0}; }
  static CacheParams bgqL1d() { return {16, 8, 64, Replacement::kLru, 6}; }

  void visit(config::Visitor& v);
  // Throws hpm::Error(kConfig) naming `name` (e.g. "l1d") when the geometry is inconsistent.
  void validate(std::string_view name) const;
  u32 sets() const { return static_cast<u32>(u64{size_kib} * 1024 / (u64{ways} * line_bytes)); }
};

// The L1P: a small fully-associative buffer of L2-line-sized entries between a core's L1D and
// the L2, filled by L1D misses and by its stream prefetcher. Its line size is l2.line_bytes.
struct L1pParams {
  u32 entries = 32;
  u32 hit_latency = 24;         // load-to-use cycles of an L1D miss that hits the L1P
  bool prefetch = true;         // stream prefetching on
  u32 streams = 16;             // sequential streams tracked per core
  u32 prefetch_depth = 2;       // lines fetched ahead of a confirmed stream
  bool write_combining = true;  // two 8-byte stores to one aligned 16-byte block share a SQ entry

  void visit(config::Visitor& v);
  void validate() const;
};

// The shared L2: `slices` equal slices; a line's slice is an XOR-fold hash of its address.
struct L2Params {
  u32 size_kib = 32768;
  u32 slices = 16;
  u32 ways = 16;
  u32 line_bytes = 128;
  Replacement replacement = Replacement::kLru;
  u32 hit_latency = 82;       // load-to-use cycles of an uncontended L2 hit
  u32 slice_busy_cycles = 2;  // cycles a slice's port is taken by one request

  void visit(config::Visitor& v);
  void validate() const;
  u32 setsPerSlice() const {
    return static_cast<u32>(u64{size_kib} * 1024 / (u64{slices} * ways * line_bytes));
  }
};

// The DDR controllers behind the L2; a line's controller is a hash of its address.
struct DdrParams {
  u32 controllers = 2;
  u32 latency = 350;               // load-to-use cycles of an uncontended access served by DDR
  double bytes_per_cycle = 13.33;  // per controller, in core cycles

  void visit(config::Visitor& v);
  void validate() const;
  // Cycles a controller is busy moving `bytes`: ceil(bytes / bytes_per_cycle).
  u32 busyCycles(u32 bytes) const;
};

// Everything the memory system needs, with the number of cores it serves.
struct MemParams {
  u32 cores = 16;
  CacheParams l1i = CacheParams::bgqL1i();
  CacheParams l1d = CacheParams::bgqL1d();
  L1pParams l1p;
  L2Params l2;
  DdrParams ddr;

  // Every field, and the constraints between levels (line sizes nest). Throws hpm::Error.
  void validate() const;
};

}  // namespace hpm::mem
