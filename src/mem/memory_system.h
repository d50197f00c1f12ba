// The memory hierarchy of the timing model (seed 003 section 3, docs/timing.md "Memory"): per core
// an L1I, a write-through L1D and an L1P prefetch buffer; below them one of two interconnects
// (BusParams::kind): a crossbar to a shared L2 of address-hashed slices, inclusive of the
// private caches and keeping their sharer masks, with DDR controllers (bgq, bgp; this file's
// .cpp); or a Fireplane bus (sunfire, seed 004; snooping.cpp): each core's private write-back
// external cache ("L2" in the statistics and events, one "slice" per core), kept coherent by
// snooping MOESI on one address bus, with memory on boards and guest pages translated to
// physical frames (frames.h).
//
// Timing follows the seed's approach: an access takes the configured average latency of the level
// that serves it, plus the waiting of bounded resources. Each L2 slice port and each DDR
// controller is a server with a "free at" timestamp: a request arriving at cycle p starts at
// max(p, free), and the server is then free `busy` cycles after that start. Requests are served in
// the order the model processes them (issue order), which is time order except for requests
// that wait behind queued stores; docs/timing.md lists that deviation.
//
// Every statistic has exactly one increment site, in this file's .cpp, next to the event it
// counts, so that issue 6 can publish the same events on the probe bus.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "base/types.h"
#include "mem/cache.h"
#include "mem/frames.h"
#include "mem/mem_params.h"
#include "stats/probe.h"
#include "stats/stats.h"

namespace hpm::mem {

// Which level served a load (kPeer: another core's cache, on a Fireplane bus).
enum class Level : u8 { kL1, kL1p, kL2, kDdr, kPeer };

struct CacheStats {
  u64 accesses = 0;
  u64 hits = 0;
  u64 misses = 0;
  u64 writes = 0;  // accesses that were stores (the L1D is write-through, no allocate)
  u64 evictions = 0;
  u64 writebacks = 0;
  u64 prefetches = 0;     // lines the L1P prefetcher requested
  u64 prefetch_hits = 0;  // first demand hits on prefetched lines
  u64 invalidations = 0;  // lines removed by coherence (a store or atomic of another core)
  void visit(stats::Visitor& v) const;
};

// One core's traffic below its L1s (the per-core view of the shared levels' statistics).
struct CoreTrafficStats {
  u64 l1d_load_misses = 0;
  u64 l1d_store_misses = 0;
  u64 l2_reads = 0;          // read requests (loads, fetches, prefetches, atomics)
  u64 l2_writes = 0;         // store-queue drains
  u64 l2_hits = 0;           // read requests that hit
  u64 l2_misses = 0;         // read and write requests that missed
  u64 l2_atomics = 0;        // atomic operations performed at the L2
  u64 ddr_reads = 0;         // line reads its requests caused
  u64 ddr_writes = 0;        // line writebacks its requests caused
  u64 port_busy_cycles = 0;  // cycles its crossbar port was taken returning data
  u64 port_wait_cycles = 0;  // cycles its read requests waited for the port to be free
  void visit(stats::Visitor& v) const;
};

struct SliceStats {
  u64 requests = 0;  // reads (loads, fetches, prefetches, atomics) and store drains
  u64 reads = 0;
  u64 writes = 0;
  u64 bytes = 0;
  u64 busy_cycles = 0;
  u64 hits = 0;
  u64 misses = 0;
  u64 evictions = 0;
  u64 writebacks = 0;          // dirty evictions written to DDR
  u64 back_invalidations = 0;  // private copies removed because the L2 evicted their line
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

// The Fireplane address bus (BusParams::kind fireplane): its occupancy and where the lines its
// reads and ownership requests asked for came from.
struct BusStats {
  u64 busy_cycles = 0;          // cycles the address bus was taken
  u64 data_busy_cycles = 0;     // cycles the boards' data ports were taken, over every board
  u64 cache_to_cache = 0;       // lines another cache supplied
  u64 memory_local = 0;         // lines memory on the requester's board supplied
  u64 memory_remote = 0;        // lines memory on another board supplied
  u64 writebacks_local = 0;     // writebacks to memory on the evicting CPU's board
  u64 writebacks_remote = 0;    // writebacks to another board's memory
  u64 snoop_invalidations = 0;  // external-cache lines other CPUs' ownership requests removed
  void visit(stats::Visitor& v) const;
};

struct LoadResult {
  Cycle ready = 0;  // the cycle the loaded value can be used
  Level level = Level::kL1;
  bool l1_miss = false;  // it missed the L1D (and so holds a load-miss-queue entry)
};

class MemorySystem {
 public:
  // Validates `params` (throws hpm::Error).
  explicit MemorySystem(const MemParams& params);

  const MemParams& params() const { return p_; }
  // Events go to `bus` too (null: none); see stats/probe.h.
  void setProbe(probe::Bus* bus) { bus_ = bus; }

  // ---- Instruction fetch ----
  // The cycle the fetch group at `addr` requested at `at` by `core` is available: at +
  // l1i.hit_latency on a hit, later while the line's fill is in flight, the L2/DDR return on a
  // miss. A fetch miss takes the uncontended L2 or DDR latency (it is committed after requests
  // of later cycles; docs/timing.md), but occupies the slice and controller for its transfer.
  // fetchProbe() has no side effect; fetch() commits the same access.
  Cycle fetchProbe(u32 core, u64 addr, Cycle at) const;
  Cycle fetch(u32 core, u64 addr, Cycle at);

  // ---- Data ----
  // Whether `addr`'s line is in core's L1D (ready or in flight): a load to it is a hit and needs
  // no load-miss-queue entry. No side effect.
  bool l1dPresent(u32 core, u64 addr) const {
    if (frames_ != nullptr) {
      const auto pa = frames_->peek(addr);
      if (!pa) return false;
      addr = *pa;
    }
    return l1d_[core].find(addr >> l1d_shift_) != Cache::kNone;
  }
  // A load issued at `at`. An L1D miss is served by the L1P or, after the L1P misses, by the L2
  // (and DDR); the L2 request leaves the core no earlier than `xbar_free` (queued stores win
  // the crossbar).
  LoadResult load(u32 core, u64 addr, Cycle at, Cycle xbar_free);
  // A store issued at `at`: written through to the L1D if present (no allocation). On the
  // crossbar it removes the line from every other core's L1D and L1P (coherence); on Fireplane
  // that happens when the store drains (l2Write: the ownership request).
  void storeIssue(u32 core, u64 addr, Cycle at);
  // The earliest cycle >= `earliest` at which core's store for `addr` can drain (the port of its
  // L2 slice, or of the core's external cache). No side effect.
  Cycle sliceFree(u32 core, u64 addr, Cycle earliest) const;
  // A store-queue entry of `bytes` drains into the L2 at `start` (>= sliceFree(...)): takes the
  // slice port, marks the line dirty, allocating it (a DDR read) on a miss. Returns the cycle the
  // write is done: `start` on the crossbar; on Fireplane the cycle the line is owned (a miss or a
  // shared line waits for its ownership request).
  Cycle l2Write(u32 core, u64 addr, u32 bytes, Cycle start);
  // `bytes` more were combined into an entry already sent by l2Write (statistics only).
  void l2WriteCombined(u32 core, u64 addr, u32 bytes);
  // An atomic (LR, SC, AMO) issued at `at`, performed at the L2: the cycle its result is ready.
  // Removes the line from every core's L1D and L1P, the issuing core's included.
  Cycle atomic(u32 core, u64 addr, Cycle at, Cycle xbar_free);

  // ---- Warm-up: the same state changes and statistics, with no timing ----
  void warmFetch(u32 core, u64 addr, Cycle now);
  void warmLoad(u32 core, u64 addr, Cycle now);
  void warmStore(u32 core, u64 addr, Cycle now);
  void warmAtomic(u32 core, u64 addr, Cycle now);

  // ---- The interconnect's transactions (stats/transaction.h) ----
  // The hardware thread whose instruction is being processed: the source of the crossbar
  // requests that follow (the timing driver sets it before each instruction's accesses).
  void setRequesterThread(u32 thread) { thread_ = thread; }
  // An uncached access of the requester thread to a device register at `addr`: an I/O
  // transaction on the interconnect (it touches no cache; docs/timing.md "Device registers").
  void deviceAccess(u64 addr, bool write);
  // A device's reads or writes of `bytes` bytes of memory at `addr`, at cycle `at` (the message
  // unit's descriptors, payloads and reception FIFOs: docs/network.md): each L2 line they touch
  // is one request to its slice, a hit or a miss (a miss reads the line from DDR unless a write
  // covers it whole), and a write leaves the line dirty and takes the cores' L1 copies away, as
  // another core's store would. No core is charged; `timed` false (warm-up) leaves the slices'
  // and DDR's clocks alone. The snooping bus has no such device (does nothing).
  void deviceLines(u64 addr, u64 bytes, Cycle at, bool write, bool timed);
  // Every transaction so far, by type and snoop result (the ground truth of a filtering counter).
  const probe::TransactionCounts& transactionCounts() const { return transactions_; }
  // The physical frames of guest pages (Fireplane), or null (the crossbar maps memory 1:1).
  const FrameTable* frames() const { return frames_.get(); }
  const BusStats& busStats() const { return bus_stats_; }

  // Changes whenever a line of core's L1D or L1P is removed by another core's access (coherence
  // or L2 back-invalidation): a timing plan that looked at this core's caches is stale after.
  u64 remoteEpoch(u32 core) const { return epoch_[core]; }

  // ---- Structure and statistics ----
  // The crossbar's L2 slice of `addr` (on Fireplane each core's external cache is its slice).
  u32 sliceOf(u64 addr) const { return sliceOfLine(addr >> l2_shift_); }
  // The L2 block (slice x sets per slice + set) that holds `addr`'s line: where the line
  // competes with others for the set's ways (the cache-conflict tool's unit). On Fireplane,
  // `addr` is physical and the block is the set of every external cache.
  u32 l2Block(u64 addr) const {
    const u64 line = addr >> l2_shift_;
    if (snoop_) return static_cast<u32>(line & (slices_[0].cache.sets() - 1));
    return sliceOfLine(line) * p_.l2.setsPerSlice() +
           static_cast<u32>((line >> slice_bits_) & (p_.l2.setsPerSlice() - 1));
  }
  u32 controllerOf(u64 addr) const;
  const CacheStats& l1iStats(u32 core) const { return l1i_stats_[core]; }
  const CacheStats& l1dStats(u32 core) const { return l1d_stats_[core]; }
  const CacheStats& l1pStats(u32 core) const { return l1p_stats_[core]; }
  const CoreTrafficStats& trafficStats(u32 core) const { return traffic_stats_[core]; }
  const SliceStats& sliceStats(u32 slice) const { return slices_[slice].stats; }
  const DdrStats& ddrStats(u32 controller) const { return ddr_[controller].stats; }
  // Changes with every change of the slice's statistics.
  const u64* sliceVersion(u32 slice) const { return &slice_versions_[slice]; }
  // The model's events and the statistics that are their ground truth (probe::TruthRow): the
  // caches', the queues' traffic below them, the L2 slices' and the DDR controllers'.
  static std::span<const probe::TruthRow<MemorySystem>> truthTable();
  // Names on `bus` the statistic behind each of this model's events (probe::Bus::addTally), with
  // `core_version(core)` for the events only a core's own activity changes.
  void registerTallies(probe::Bus& bus, const std::function<const u64*(u32)>& core_version) const;
  std::optional<u64> groundTruth(probe::Event e, u32 instance) const {
    return probe::truthOf(truthTable(), *this, e, instance);
  }
  // Groups "l1i", "l1d", "l1p" of one core; lists "l2_slices" and "ddr_controllers".
  void visitCoreStats(u32 core, stats::Visitor& v) const;
  void visitSharedStats(stats::Visitor& v) const;

 private:
  enum class Source : u8 { kData, kPrefetch, kFetch, kAtomic };
  static probe::TransactionType transactionOf(Source src);
  struct Slice {
    Cache cache;
    Cycle free = 0;
    SliceStats stats;
  };
  struct Controller {
    Cycle free = 0;
    DdrStats stats;
  };
  struct Stream {
    u64 next = 0;   // the L1P line a continuing stream touches next
    u64 ahead = 0;  // the last line prefetched for it
    u64 age = 0;    // 0: unused
  };

  u32 sliceOfLine(u64 l2line) const;
  // The physical address of core's access to `va` (identity on the crossbar).
  u64 physical(u64 va, u32 core) { return frames_ != nullptr ? frames_->physical(va, core) : va; }
  // The L2 read path (slice port, L2 lookup, DDR on a miss) for a request leaving the core at
  // `p`; `timed` false in warm-up (no waiting, no busy time). Sets `level` to kL2 or kDdr.
  Cycle l2Read(u32 core, u64 l2line, Cycle p, Source src, bool timed, Level* level);
  // A read request's slice port (waiting for it, but for a fetch; `timed` false: no waiting)
  // and its statistics, the slice's and core's: the request's start.
  Cycle readRequest(u32 sid, u32 core, Cycle p, Source src, bool timed);
  // The cycle >= `p` a read leaving core at `p` gets core's crossbar port (a fetch does not
  // wait: it only adds its transfer), which it then holds for its data's transfer.
  Cycle corePort(u32 core, Cycle p, Source src);
  // A store drain's slice port from `start` (already free: sliceFree) and its statistics.
  void writeRequest(u32 sid, u32 core, u32 bytes, Cycle start, bool timed);
  // What l2Read returns for an instruction fetch, without side effects.
  Cycle fetchL2Probe(u32 core, u64 l2line, Cycle p) const;
  // Takes a DDR controller for one line transfer from `p`: returns the transfer's start.
  Cycle ddrTransfer(u64 l2line, Cycle p, bool write, bool timed);
  // Frees an L2 slot for `l2line`: writeback of a dirty victim, back-invalidation of copies.
  u32 l2Victim(Slice& s, u64 l2line, Cycle at, bool timed);
  LoadResult loadImpl(u32 core, u64 addr, Cycle at, Cycle xbar_free, bool timed);
  Cycle fetchImpl(u32 core, u64 addr, Cycle at, bool timed);
  void storeImpl(u32 core, u64 addr);
  Cycle l2WriteImpl(u32 core, u64 addr, u32 bytes, Cycle start, bool timed);
  Cycle atomicImpl(u32 core, u64 addr, Cycle at, Cycle xbar_free, bool timed);
  // Removes l2line's copies from the L1D and L1P of the cores in `sharers` (bit c % 64), except
  // `keep` (kNoCore: none kept).
  void invalidateSharers(u64 l2line, u64 sharers, u32 keep);
  // Counts a transaction and, when the bus wants transactions, publishes it at the bus's cycle.
  void transaction(probe::TransactionType type, u64 address, u32 source, probe::Snoop snoop,
                   u32 supplier = probe::kNoSupplier);
  // Removes l2line's copies from core's L1I, L1D and L1P; whether there were any.
  bool invalidateCore(u32 core, u64 l2line);

  // ---- Fireplane (snooping.cpp) ----
  // What the other external caches' snoop of a request for `l2line` found and did.
  struct SnoopOutcome {
    probe::Snoop snoop = probe::Snoop::kMemory;
    bool others = false;                // another cache keeps a copy (after a ReadToShare)
    u32 supplier = probe::kNoSupplier;  // the CPU whose M or O copy supplied the line
  };
  // Snoops every external cache but core's: a ReadToShare (own false) turns M into O and E into
  // S; an ownership request (own true) invalidates every copy (their L1 copies with them).
  SnoopOutcome snoopOthers(u32 core, u64 l2line, bool own);
  // Takes the address bus for one transaction from `p` (waiting when `waits`): its start.
  Cycle busSlot(Cycle p, bool timed, bool waits);
  // The data of a line for core's bus transaction that started at `bstart`: another cache's
  // (snoop Owned/Modified) or its home board's memory. `waits`: the memory controller queues it.
  Cycle busData(u32 core, u64 l2line, Cycle bstart, probe::Snoop snoop, bool timed, bool waits);
  // Frees a slot of core's external cache for `l2line`: the victim's writeback (a WB
  // transaction) when it is M or O, and its L1 copies (inclusion).
  u32 ecacheVictim(u32 core, u64 l2line, Cycle at, bool timed);
  Cycle snoopRead(u32 core, u64 l2line, Cycle p, Source src, bool timed, Level* level);
  // A store drain (src kData) or atomic (kAtomic): the line in M in core's external cache.
  // Returns when the write is done (a store) or the old value is ready (an atomic).
  Cycle snoopOwn(u32 core, u64 l2line, u32 bytes, Cycle p, Source src, bool timed);
  Cycle snoopProbe(u32 core, u64 l2line, Cycle p) const;
  Cycle memoryLatency(u32 core, u64 l2line) const;
  // Whether l2line's home board is not core's.
  bool remote(u32 core, u64 l2line) const {
    return FrameTable::homeBoard(l2line << l2_shift_) != board_of_[core];
  }
  // A line transfer through `board`'s data port that would arrive at `arrival` (waiting for the
  // port when `waits`): when it arrives.
  Cycle dataPort(u32 board, Cycle arrival, bool timed, bool waits);
  void prefetchLine(u32 core, u64 l2line, Cycle at, bool timed);
  void streamOnMiss(u32 core, u64 l2line, Cycle at, bool timed);
  void streamOnPrefetchHit(u32 core, u64 l2line, Cycle at, bool timed);

  static constexpr u32 kNoCore = ~u32{0};
  static u64 coreBit(u32 core) { return u64{1} << (core & 63); }

  MemParams p_;
  u32 l1i_shift_ = 0;
  u32 l1d_shift_ = 0;
  u32 l2_shift_ = 0;
  u32 slice_bits_ = 0;
  u32 l1d_per_l2_shift_ = 0;  // log2(l2 line / l1d line)
  u32 l1i_per_l2_shift_ = 0;  // log2(l2 line / l1i line)
  u32 ddr_line_cycles_ = 1;
  u32 slice_read_cycles_ = 1;     // a read's hold of its slice's port
  u32 port_line_cycles_ = 0;      // a line's hold of a core's crossbar port (0: no limit)
  u32 port_atomic_cycles_ = 0;    // an atomic result's
  std::vector<Cycle> port_free_;  // by core: its crossbar port's next free cycle
  std::vector<Cache> l1i_;
  std::vector<Cache> l1d_;
  std::vector<Cache> l1p_;       // one set of l1p.entries ways: fully associative
  std::vector<Stream> streams_;  // l1p.streams per core
  u64 stream_clock_ = 0;
  std::vector<CacheStats> l1i_stats_;
  std::vector<CacheStats> l1d_stats_;
  std::vector<CacheStats> l1p_stats_;
  std::vector<CoreTrafficStats> traffic_stats_;
  std::vector<Slice> slices_;
  // By slice: changes whenever the slice's statistics do (the monitor's tallies of the slice's
  // events read them only then; one array, so the check stays in the host's cache).
  std::vector<u64> slice_versions_;
  std::vector<Controller> ddr_;
  std::vector<u64> epoch_;
  bool snoop_ = false;                  // a Fireplane bus (BusParams::snooping)
  std::unique_ptr<FrameTable> frames_;  // Fireplane: guest pages' physical frames
  Cycle bus_free_ = 0;                  // the address bus's next free cycle
  std::vector<Cycle> data_free_;        // by board: its data port's next free cycle
  std::vector<u32> board_of_;           // by core: its board (BusParams::boardOf, once)
  BusStats bus_stats_;
  probe::Bus* bus_ = nullptr;
  u32 requester_ = 0;  // the core whose request is being served (for DDR events)
  u32 thread_ = 0;     // the hardware thread whose instruction is being processed
  probe::TransactionCounts transactions_;
  // The next transaction id of each agent: L2 slice s at s, hardware thread t at slices + t.
  std::vector<u16> next_id_;
};

}  // namespace hpm::mem
