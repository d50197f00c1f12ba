// Parameters of the memory hierarchy of the timing model (seed 003, docs/timing.md): the private
// L1 instruction and data caches, the L1P prefetch/write-combining buffer, the shared L2 split
// into slices, and the DDR controllers. Defaults are Blue Gene/Q's; machines/bgp.toml overrides
// the values that differ for Blue Gene/P. Each default's source is in docs/timing.md.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "base/types.h"
#include "config/schema.h"
#include "stats/probe.h"
#include "stats/transaction.h"

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

// When the L1P's stream prefetcher establishes a stream (BG/Q's L1P_SetStreamPolicy; docs/timing.md
// "The stream prefetcher").
enum class StreamPolicy : u8 {
  kConfirmed,   // a miss to the line after a recorded miss's establishes the recorded stream
  kOptimistic,  // every miss that continues no stream establishes one at once
};
std::string_view streamPolicyName(StreamPolicy p);

// The L1P: a small fully-associative buffer of L2-line-sized entries between a core's L1D and
// the L2, filled by L1D misses and by its stream prefetcher. Its line size is the level below's
// (MemParams::lineBytes). The stream prefetcher's values here are those the guest finds in its
// core's L1P_CFG_PF_USR register at the start (mem/stream_control.h), which it may change.
struct L1pParams {
  u32 entries = 32;
  u32 hit_latency = 24;  // load-to-use cycles of an L1D miss that hits the L1P
  bool prefetch = true;  // stream prefetching on
  StreamPolicy stream_policy = StreamPolicy::kConfirmed;
  u32 streams = 16;        // sequential streams tracked per core
  u32 prefetch_depth = 3;  // lines a stream runs ahead when it is established
  // Depth adaptation: a demand hit on a stream-prefetched line still in flight gives its stream
  // one more line of depth, from the budget of total_depth lines or, once that is used, from
  // another stream (a depth steal).
  bool adaptive = true;
  u32 total_depth = 8;
  // A store joins the youngest store-queue entry, while that has not left, when it lies in the
  // same aligned combine_bytes block and continues the bytes the entry holds (bgq: 16, so two
  // aligned 8-byte stores share an entry; docs/timing.md section 5).
  bool write_combining = true;
  u32 combine_bytes = 16;
  // Blue Gene/P's L2 routes each uncached device access to the device or the network bus and
  // counts it there (mem/device_buses.h; bgp only).
  bool device_buses = false;

  void visit(config::Visitor& v);
  void validate() const;
};

// Blue Gene/P's snoop filters (section [snoop]; docs/timing.md "Snoop filters"): in front of each
// core's private caches, one port per other core, each with a snoop cache of recently filtered
// lines, and stream registers (an active and a history set) covering every line the caches may
// hold. Off: coherence by the L2's sharer masks alone (bgq, cva6; sunfire snoops its bus). The
// defaults besides `filter` are Blue Gene/P's (estimates where docs/timing.md says so).
struct SnoopParams {
  bool filter = false;
  u32 cache_entries = 32;    // snoop-cache entries per port
  u32 lines_per_entry = 4;   // lines one entry records (its vector), aligned
  u32 stream_registers = 8;  // in each of the active and the history set
  u32 l1_cycles = 1;         // cycles a snoop that passes takes the L1 from the core's loads

  void visit(config::Visitor& v);
  void validate() const;
};

// Blue Gene/P's L3 (section [l3]; docs/timing.md "Blue Gene/P's L3"; mem/l3.h): the crossbar's L2
// slices as the L3's eDRAM banks, each with three read ports, two write ports, two directories, a
// read-return path and a miss handler in front of the DDR controllers, and a prefetch into its
// eDRAM. Off: each slice has its one port (bgq, cva6). The defaults besides `banks` are Blue
// Gene/P's, estimates where docs/timing.md says so.
struct L3Params {
  bool banks = false;
  u32 directory_cycles = 1;         // cycles one lookup takes its directory
  u32 write_port_cycles = 4;        // cycles one deposit takes its write port
  u32 return_bytes_per_cycle = 32;  // a bank's read-return path
  u32 miss_handler_entries = 8;     // a bank's misses outstanding to DDR
  u32 prefetch_lines = 1;           // lines after a missing read's that its bank prefetches

  void visit(config::Visitor& v);
  void validate() const;
};

// The crossbar's shared L2 (section [l2]): `slices` equal slices; a line's slice is an XOR-fold
// hash of its address. Only the crossbar has it (MemParams::interconnect).
struct L2Params {
  u32 size_kib = 32768;
  u32 slices = 16;
  u32 ways = 16;
  u32 line_bytes = 128;
  Replacement replacement = Replacement::kLru;
  u32 hit_latency = 82;       // load-to-use cycles of an uncontended L2 hit
  u32 slice_busy_cycles = 2;  // cycles a slice's port is taken by one request
  // Data bandwidths of the crossbar, in bytes per core cycle (0: no limit beyond the above).
  // A read holds its slice's port max(slice_busy_cycles, ceil(line_bytes / slice_bytes_per_cycle))
  // cycles, and the requesting core's port ceil(line_bytes / core_port_bytes_per_cycle) cycles
  // (an atomic's 8-byte result: ceil(8 / ...)). bgq: 32 bytes per 800 MHz crossbar cycle each.
  u32 slice_bytes_per_cycle = 16;
  u32 core_port_bytes_per_cycle = 16;

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

// Where a page's physical frame is placed (Fireplane: on which board's memory).
enum class Placement : u8 {
  kFirstTouch,  // the board of the CPU whose access reaches the memory system first
  kInterleave,  // board = virtual page number mod boards
  kOneBoard,    // every page on fireplane.home_board
};

std::string_view placementName(Placement p);  // "first_touch", ...

// The Fireplane bus (section [fireplane]; sunfire, seed 004): no shared cache; each CPU has a
// private, physically indexed, write-back external cache (E$), kept coherent by snooping MOESI
// over one address bus; memory sits on the CPU/memory boards (ddr.controllers per board), and
// guest pages get physical frames on boards by `placement` (docs/sunfire.md).
struct FireplaneParams {
  // Each CPU's external cache.
  u32 ecache_kib = 8192;
  u32 ecache_ways = 2;
  u32 line_bytes = 64;  // the E$ line, the coherence unit (and the L1P's entry)
  Replacement ecache_replacement = Replacement::kLru;
  u32 ecache_hit_latency = 15;  // load-to-use cycles of an L1 miss that hits the E$
  u32 ecache_busy_cycles = 2;   // cycles one request holds the E$'s port
  // The bus and the boards.
  u32 boards = 4;                    // CPU/memory boards; CPU c is on board c / (cores / boards)
  u32 address_cycles = 8;            // CPU cycles one transaction holds the address bus
  u32 data_cycles = 16;              // CPU cycles a line transfer holds its board's data port
  u32 cache_to_cache_latency = 264;  // load-to-use cycles of a line another cache supplies
  u32 remote_latency = 48;  // cycles a reply from another board's memory adds to ddr.latency
  Placement placement = Placement::kFirstTouch;
  u32 home_board = 0;  // the board of placement "one_board"

  void visit(config::Visitor& v);
  void validate(u32 cores) const;
  // The board of CPU `core`.
  u32 boardOf(u32 core, u32 cores) const { return core / ((cores + boards - 1) / boards); }
  u32 ecacheSets() const {
    return static_cast<u32>(u64{ecache_kib} * 1024 / (u64{ecache_ways} * line_bytes));
  }
};

// The keys that moved when the interconnects got sections of their own (issue 42): each old key
// or section ("bus." covers every key under it) and the message that names its replacement.
// config::Schema refuses them with that message (and l2.* on a Fireplane machine:
// refusedOnFireplane).
struct MovedKey {
  std::string_view old_key;
  std::string_view message;
};
std::span<const MovedKey> movedKeys();
// Why a key set on a machine whose interconnect is `ic` does not apply to it, or "" if it does:
// the crossbar's l2.* on Fireplane (its E$ is fireplane.ecache_*), fireplane.* on the crossbar.
std::string keyRefusedOn(probe::Interconnect ic, std::string_view key);

// Physical addresses on Fireplane are 42 bits: board b's memory starts at b << kBoardShift.
inline constexpr u32 kBoardShift = 37;
inline constexpr u32 kPhysicalAddressBits = 42;

// Everything the memory system needs, with the number of cores it serves.
struct MemParams {
  u32 cores = 16;
  // Hardware threads per core (each has a list prefetcher); set from the timing model's.
  u32 threads_per_core = 1;
  CacheParams l1i = CacheParams::bgqL1i();
  CacheParams l1d = CacheParams::bgqL1d();
  L1pParams l1p;
  SnoopParams snoop;
  // The interconnect below the private caches (node.interconnect): crossbar (l2: a shared L2 of
  // slices, bgq, bgp, cva6) or fireplane (sunfire).
  probe::Interconnect interconnect = probe::Interconnect::kCrossbar;
  L2Params l2;
  L3Params l3;
  DdrParams ddr;
  FireplaneParams fireplane;

  // Every field, and the constraints between levels (line sizes nest). Throws hpm::Error.
  void validate() const;
  bool snooping() const { return interconnect == probe::Interconnect::kFireplane; }
  // The line of the level below the L1s (the L2's or the E$'s): the L1P's entry, the unit of
  // coherence.
  u32 lineBytes() const { return snooping() ? fireplane.line_bytes : l2.line_bytes; }
  // The L2 "slices" the statistics and events are kept by (Fireplane: one external cache per
  // core) and the memory controllers (Fireplane: ddr.controllers per board).
  u32 l2Instances() const { return snooping() ? cores : l2.slices; }
  // The sets of each of them (a slice's, or a whole external cache's), and their ways.
  u32 l2SetsPerInstance() const { return snooping() ? fireplane.ecacheSets() : l2.setsPerSlice(); }
  u32 l2Ways() const { return snooping() ? fireplane.ecache_ways : l2.ways; }
  // The host memory the caches' state takes when every line of every cache is in use (each
  // line's tag, age, ready cycle, sharers and flags: Cache::kBytesPerLine). The arrays are
  // lazily backed, so a run takes only what it touches; this is the most it can take.
  u64 cacheStateBytes() const;
  // The ports of each core's snoop filter (Topology::snoop_ports): the other cores, or 0 when
  // there are no snoop filters.
  u32 snoopPorts() const { return snoop.filter ? cores - 1 : 0; }
  // Blue Gene/P's L3 banks (Topology::l3_banks): the L2 slices with l3.banks, else 0.
  u32 l3Banks() const { return l3.banks && !snooping() ? l2.slices : 0; }
  // Each core's device buses (Topology::device_buses): probe::kDeviceBuses with
  // l1p.device_buses, else 0.
  u32 deviceBuses() const { return l1p.device_buses ? probe::kDeviceBuses : 0; }
  u32 controllerInstances() const {
    return snooping() ? fireplane.boards * ddr.controllers : ddr.controllers;
  }
};

}  // namespace hpm::mem
