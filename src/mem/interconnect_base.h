// What both interconnects (interconnect.h) are made of: caches below the L1s with a port each
// (the crossbar's L2 slices, or each CPU's external cache on Fireplane), memory controllers,
// each core's traffic below its L1s, and the transactions they number; with the events these
// count (the L2-slice, core-traffic and controller events of stats/probe.h) and their ground
// truth, which is the same table for both.
//
// Timing (seed 003's approach, docs/timing.md "Memory"): an access takes the configured average
// latency of the level that serves it, plus the waiting of bounded resources. Each cache port
// and each memory controller is a server with a "free at" timestamp: a request arriving at cycle
// p starts at max(p, free), and the server is then free `busy` cycles after that start.
#pragma once

#include <vector>

#include "mem/cache.h"
#include "mem/interconnect.h"

namespace hpm::mem {

// One core's traffic below its L1s (the fields have the crossbar's names; each interconnect
// visits them under its own).
struct CoreTrafficStats {
  u64 l2_reads = 0;          // read requests (loads, fetches, prefetches, atomics)
  u64 l2_writes = 0;         // store-queue drains
  u64 l2_hits = 0;           // read requests that hit
  u64 l2_misses = 0;         // read and write requests that missed
  u64 l2_atomics = 0;        // atomic operations performed below the L1s
  u64 ddr_reads = 0;         // line reads its requests caused
  u64 ddr_writes = 0;        // line writebacks its requests caused
  u64 port_busy_cycles = 0;  // cycles its crossbar port was taken returning data
  u64 port_wait_cycles = 0;  // cycles its read requests waited for the port to be free
};

// A cache below the L1s (an L2 slice, an external cache).
struct SliceStats {
  u64 requests = 0;  // reads (loads, fetches, prefetches, atomics) and store drains
  u64 reads = 0;
  u64 writes = 0;
  u64 bytes = 0;
  u64 busy_cycles = 0;
  u64 hits = 0;
  u64 misses = 0;
  u64 evictions = 0;
  u64 writebacks = 0;          // dirty evictions written to memory
  u64 back_invalidations = 0;  // private copies removed because the cache evicted their line
  void visit(stats::Visitor& v) const;
};

struct DdrStats {
  u64 requests = 0;
  u64 reads = 0;
  u64 writes = 0;
  u64 bytes = 0;
  u64 busy_cycles = 0;
  void visit(stats::Visitor& v) const;
};

class InterconnectBase : public Interconnect {
 public:
  std::optional<u64> groundTruth(probe::Event e, u32 instance) const override;
  void registerTallies(probe::Bus& bus,
                       const std::function<const u64*(u32)>& core_version) const override;

  const CoreTrafficStats& trafficStats(u32 core) const { return traffic_[core]; }
  // Slice `s`'s statistics (on Fireplane: CPU s's external cache's).
  const SliceStats& sliceStats(u32 s) const { return slices_[s].stats; }
  const DdrStats& ddrStats(u32 controller) const { return ddr_[controller].stats; }

 protected:
  struct Slice {
    Cache cache;
    Cycle free = 0;
    SliceStats stats;
  };
  struct Controller {
    Cycle free = 0;
    DdrStats stats;
  };

  // `slices` caches of `sets` sets of `ways` (indexed from line bit `set_shift`) and lines of
  // p.lineBytes(), and p.controllerInstances() memory controllers.
  InterconnectBase(const MemParams& p, PrivateCaches& caches, u32 slices, u32 sets, u32 ways,
                   Replacement replacement, u32 set_shift);

  // Takes a memory controller for one line transfer from `p` (`timed` false: no waiting) for
  // the requester_'s request: returns the transfer's start.
  Cycle ddrTransfer(u64 line, Cycle p, bool write, bool timed);
  // A read request's port of slice `sid` from `p`, held `hold` cycles, and its statistics, the
  // slice's and core's: the request's start. (A fetch does not wait: see the .cpp.)
  Cycle readRequest(u32 sid, u32 core, Cycle p, Request request, u32 hold, bool timed);
  // A store drain's port of slice `sid` from `start` (already free: drainFree), held `hold`
  // cycles, and its statistics.
  void writeRequest(u32 sid, u32 core, u32 bytes, Cycle start, u32 hold, bool timed);
  // A request's hit or miss in slice `sid`, counted for the slice and (`core_too`) its core.
  void hit(u32 sid, u32 core, bool core_too);
  void miss(u32 sid, u32 core, bool core_too);
  // Counts a transaction and, when the bus wants transactions, publishes it at the bus's cycle.
  // `source`: a hardware thread, or probe::kSliceAgent + a slice.
  void transaction(probe::TransactionType type, u64 address, u32 source, probe::Snoop snoop,
                   u32 supplier = probe::kNoSupplier);
  // Marks slice `sid`'s statistics changed (its tallies' version).
  void bumpVersion(u32 sid) { ++slice_versions_[sid]; }
  // XOR of the bytes of x, then of its `bits`-wide fields: every address bit moves the result.
  // (Inline: every L2 access hashes its line to a slice.)
  static u32 foldHash(u64 x, u32 bits) {
    x ^= x >> 32;
    x ^= x >> 16;
    x ^= x >> 8;
    x &= 0xff;
    if (bits == 0) return 0;
    u64 h = 0;
    for (u32 i = 0; i < 8; i += bits) h ^= x >> i;
    return static_cast<u32>(h & ((u64{1} << bits) - 1));
  }
  // Which of p_.ddr.controllers (of its board, on Fireplane) serves `line`.
  u32 controllerWithin(u64 line) const;
  // Visits the lists `slices` and `controllers` (each interconnect names its own).
  void visitServers(stats::Visitor& v, std::string_view slices, std::string_view controllers) const;

  static constexpr u32 kNoCore = ~u32{0};

  MemParams p_;
  PrivateCaches& caches_;
  u32 shift_ = 0;  // log2 of the line
  u32 ddr_line_cycles_ = 1;
  std::vector<Slice> slices_;
  // By slice: changes whenever the slice's statistics do (the monitor's tallies of the slice's
  // events read them only then; one array, so the check stays in the host's cache).
  std::vector<u64> slice_versions_;
  std::vector<Controller> ddr_;
  std::vector<CoreTrafficStats> traffic_;
  u32 requester_ = 0;  // the core whose request is being served (for the memory's events)

 private:
  static std::span<const probe::TruthRow<InterconnectBase>> truthTable();
  // The next transaction id of each agent: slice s at s, hardware thread t at slices + t.
  std::vector<u16> next_id_;
};

}  // namespace hpm::mem
