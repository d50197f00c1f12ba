// The memory hierarchy of the timing model (seed 003 section 3, docs/timing.md "Memory"): per core
// an L1I, a write-through L1D and an L1P prefetch buffer with its stream prefetcher; below them
// the machine's interconnect (interconnect.h: the crossbar and its shared L2, or the Fireplane
// bus), which the memory system holds through its interface only. The L1 hit path is this
// file's .cpp alone; every L1 miss, store drain and atomic goes to the interconnect.
//
// On Fireplane, guest pages are translated to physical frames (frames.h) before any cache sees
// them.
//
// Every statistic has exactly one increment site, next to the event it counts, which the same
// call publishes on the probe bus (probe::count).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "base/interval_union.h"
#include "base/types.h"
#include "mem/cache.h"
#include "mem/frames.h"
#include "mem/interconnect.h"
#include "mem/list_prefetcher.h"
#include "mem/mem_params.h"
#include "mem/snoop_filter.h"
#include "mem/stream_control.h"
#include "stats/probe.h"
#include "stats/stats.h"

namespace hpm::mem {

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
};

// The L1P's own counts beyond CacheStats (kept apart so the caches' statistics keep their form).
struct L1pExtraStats {
  u64 streams_established = 0;  // streams established (confirmed, or at once when optimistic)
  u64 evict_unused = 0;         // stream-prefetched lines evicted before a demand hit
  u64 late_hits = 0;            // first demand hits on stream-prefetched lines still in flight
  u64 depth_steals = 0;         // lines of depth the adaptation took from another stream
  u64 list_hits = 0;            // first demand hits on list-prefetched lines
  u64 list_late_hits = 0;       // ... whose line was still in flight
};

// The signals of Blue Gene/P's L2 prefetch unit events that the L1P's other statistics do not
// give (probe::prefetchUnitSignal; docs/timing.md "L1P"), kept apart from them: one access's
// prefetch that dropped lines, and three levels, each the union of its requests' intervals from
// issue to fill (IntervalUnion: a core's requests are made in cycle order).
struct L1pSignalStats {
  u64 already_present = 0;         // accesses whose stream prefetch dropped a line the L1P held
  IntervalUnion prefetch_pending;  // [issue, fill) of each stream prefetch
  IntervalUnion read_pending;      // [departure, fill) of each L1P miss's read
  IntervalUnion fill_pending;      // [issue, ready) of each L1D load miss's line fill
};

// A core's L1D misses, by kind (the first of its "traffic" statistics).
struct L1MissStats {
  u64 l1d_load_misses = 0;
  u64 l1d_store_misses = 0;
};

struct LoadResult {
  Cycle ready = 0;  // the cycle the loaded value can be used
  Level level = Level::kL1;
  bool l1_miss = false;  // it missed the L1D (and so holds a load-miss-queue entry)
};

class MemorySystem final : private PrivateCaches {
 public:
  // Validates `params` (throws hpm::Error).
  explicit MemorySystem(const MemParams& params);
  ~MemorySystem();

  const MemParams& params() const { return p_; }
  // Events go to `bus` too (null: none); see stats/probe.h.
  void setProbe(probe::Bus* bus) {
    bus_ = bus;
    ic_->setProbe(bus);
    for (SnoopFilter& f : snoop_) f.setProbe(bus);
  }

  // ---- Instruction fetch ----
  // The cycle the fetch group at `addr` requested at `at` by `core` is available: at +
  // l1i.hit_latency on a hit, later while the line's fill is in flight, the interconnect's
  // return on a miss. A fetch miss takes the uncontended latency (it is committed after requests
  // of later cycles; docs/timing.md), but occupies the ports and controllers for its transfer.
  // fetchProbe() has no side effect; fetch() commits the same access.
  Cycle fetchProbe(u32 core, u64 addr, Cycle at) const {
    if (frames_ == nullptr) [[likely]] {
      const Cache& c = l1i_[core];
      const u32 slot = c.find(addr >> l1i_shift_);
      if (slot != Cache::kNone) [[likely]]
        return std::max(at + p_.l1i.hit_latency, c.ready(slot));
    }
    return fetchProbeMiss(core, addr, at);
  }
  Cycle fetch(u32 core, u64 addr, Cycle at) {
    // (A hit inline, the common case: the same statistics and events as fetchImpl's.)
    if (frames_ == nullptr) [[likely]] {
      const u32 slot = l1Hit(l1i_[core], l1i_stats_[core], probe::Event::kL1iAccesses,
                             probe::Event::kL1iHits, core, addr >> l1i_shift_);
      if (slot != Cache::kNone) [[likely]]
        return std::max(at + p_.l1i.hit_latency, l1i_[core].ready(slot));
    }
    return fetchImpl(core, physical(addr, core), at, true);
  }

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
  // A load issued at `at`. An L1D miss is served by the L1P or, after the L1P misses, by the
  // interconnect; its request leaves the core no earlier than `xbar_free` (queued stores win
  // the way out).
  LoadResult load(u32 core, u64 addr, Cycle at, Cycle xbar_free) {
    // (A hit inline, the common case: the same statistics and events as loadImpl's; with snoop
    // filters, whose snoops may hold the L1, always loadImpl.)
    if (frames_ == nullptr && snoop_.empty()) [[likely]] {
      const u32 slot = l1Hit(l1d_[core], l1d_stats_[core], probe::Event::kL1dAccesses,
                             probe::Event::kL1dHits, core, addr >> l1d_shift_);
      if (slot != Cache::kNone) [[likely]]
        return {std::max(at + p_.l1d.hit_latency, l1d_[core].ready(slot)), Level::kL1, false};
    }
    return loadImpl(core, physical(addr, core), at, xbar_free, true);
  }
  // A store issued at `at`: written through to the L1D if present (no allocation), and the
  // coherence the interconnect does at a store's issue (Interconnect::storeIssued).
  void storeIssue(u32 core, u64 addr, Cycle at);
  // The earliest cycle >= `earliest` at which core's store for `addr` can drain. No side effect.
  Cycle drainFree(u32 core, u64 addr, Cycle earliest) const {
    return ic_->drainFree(core, addr >> line_shift_, earliest);  // (any address on Fireplane)
  }
  // A store-queue entry of `bytes` drains at `start` (>= drainFree(...)): the cycle the write is
  // done (Interconnect::drain).
  Cycle drain(u32 core, u64 addr, u32 bytes, Cycle start);
  // `bytes` more were combined into an entry already sent by drain (statistics only).
  void drainCombined(u32 core, u64 addr, u32 bytes);
  // An atomic (LR, SC, AMO) issued at `at`, performed below the L1s: the cycle its result is
  // ready. Removes the line from every core's L1D and L1P, the issuing core's included.
  Cycle atomic(u32 core, u64 addr, Cycle at, Cycle xbar_free);

  // ---- Warm-up: the same state changes and statistics, with no timing ----
  void warmFetch(u32 core, u64 addr, Cycle now);
  void warmLoad(u32 core, u64 addr, Cycle now);
  void warmStore(u32 core, u64 addr, Cycle now);
  void warmAtomic(u32 core, u64 addr, Cycle now);

  // ---- The interconnect ----
  const Interconnect& interconnect() const { return *ic_; }
  Interconnect& interconnect() { return *ic_; }
  // The hardware thread whose instruction is being processed: the source of the interconnect
  // requests that follow (the timing driver sets it before each instruction's accesses).
  void setRequesterThread(u32 thread) {
    thread_ = thread;
    ic_->setRequesterThread(thread);
  }
  // An uncached access of the requester thread to a device register at `addr`: an I/O
  // transaction on the interconnect (it touches no cache; docs/timing.md "Device registers").
  void deviceAccess(u64 addr, bool write) { ic_->deviceAccess(addr, write); }
  // A device's reads or writes of `bytes` bytes of memory at `addr`, at cycle `at` (the message
  // unit's descriptors, payloads and reception FIFOs: docs/network.md), as the interconnect
  // takes them (Crossbar::deviceLines; the Fireplane bus has no such device).
  // Each line's times go to `times` when it is not null.
  void deviceLines(u64 addr, u64 bytes, Cycle at, bool write, bool timed,
                   std::vector<DeviceLineTimes>* times = nullptr) {
    ic_->deviceLines(addr, bytes, at, write, timed, times);
  }
  // Every transaction so far, by type and snoop result (the ground truth of a filtering counter).
  const probe::TransactionCounts& transactionCounts() const { return ic_->transactionCounts(); }
  // The physical frames of guest pages (Fireplane), or null (memory mapped 1:1).
  const FrameTable* frames() const { return frames_; }

  // Changes whenever a line of core's L1D or L1P is removed by another core's access (coherence
  // or an eviction below): a timing plan that looked at this core's caches is stale after.
  u64 remoteEpoch(u32 core) const { return epoch_[core]; }

  // ---- The list prefetchers (list_prefetcher.h), one per hardware thread ----
  // Where the lists are (guest memory); without it (null) no list runs.
  void setListMemory(ListMemory* memory) { list_memory_ = memory; }
  // Register accesses of hardware thread `thread` to its list prefetcher (l1plist offsets).
  u64 listRead(u32 thread, u64 offset) const { return lists_[thread].read(offset); }
  void listWrite(u32 thread, u64 offset, u64 value);
  const ListStats& listStats(u32 thread) const { return list_stats_[thread]; }
  const L1pExtraStats& l1pExtraStats(u32 core) const { return l1p_extra_[core]; }
  const L1pSignalStats& l1pSignals(u32 core) const { return signals_[core]; }

  // ---- The stream prefetchers' control registers (mem/stream_control.h), one per core ----
  // Register accesses of hardware thread `thread` to its core's L1P_CFG_PF_USR (l1pcfg::kPfUsr).
  u64 streamControlRead(u32 thread) const {
    return stream_cores_[thread / p_.threads_per_core].control.read();
  }
  void streamControlWrite(u32 thread, u64 value) {
    stream_cores_[thread / p_.threads_per_core].control.write(value);
  }
  // The depth of core's established stream that expects `l2line` next (0: none).
  u32 streamDepth(u32 core, u64 l2line) const;

  // ---- Structure and statistics ----
  // Where physical `addr`'s line competes for the ways of a set (Interconnect::block).
  u32 l2Block(u64 addr) const { return ic_->block(addr); }
  u32 controllerOf(u64 addr) const { return ic_->controllerOf(addr); }
  const CacheStats& l1iStats(u32 core) const { return l1i_stats_[core]; }
  const CacheStats& l1dStats(u32 core) const { return l1d_stats_[core]; }
  const CacheStats& l1pStats(u32 core) const { return l1p_stats_[core]; }
  // Core's snoop filter (params().snoop.filter only).
  const SnoopFilter& snoopFilter(u32 core) const { return snoop_[core]; }
  // The model's events and the statistics that are their ground truth (probe::TruthRow): the
  // private caches' here, the interconnect's (Interconnect::groundTruth) below them.
  static std::span<const probe::TruthRow<MemorySystem>> truthTable();
  // The events only its timed accesses publish: the cycles a resource is busy or a request waits
  // (L2 slices, DDR controllers, the L3's ports, directories and miss handlers, a return path
  // taken) and the L1P's pending intervals. The warm-up mode's accesses take no time, so these
  // do not count there (node/run_modes.h).
  static bool timedOnly(probe::Event e);
  // Names on `bus` the statistic behind each of this model's events (probe::Bus::addTally), with
  // `core_version(core)` for the events only a core's own activity changes.
  void registerTallies(probe::Bus& bus, const std::function<const u64*(u32)>& core_version) const;
  std::optional<u64> groundTruth(probe::Event e, u32 instance) const {
    if (auto v = probe::truthOf(truthTable(), *this, e, instance)) return v;
    return ic_->groundTruth(e, instance);
  }
  // Groups "l1i", "l1d", "l1p" and "traffic" of one core; the interconnect's shared statistics.
  void visitCoreStats(u32 core, stats::Visitor& v) const;
  void visitSharedStats(stats::Visitor& v) const { ic_->visitSharedStats(v); }

 private:
  struct Stream {
    u64 next = 0;            // the L1P line a continuing stream touches next
    u64 ahead = 0;           // the last line prefetched for it
    u64 age = 0;             // 0: unused
    bool confirmed = false;  // established (PEVT_L1P_STRM_STRM_ESTB counted)
    u32 depth = 0;           // lines it runs ahead: 0 until established
  };
  // A core's stream prefetcher beside its streams: its register, and the lines of depth its
  // established streams hold in all (the adaptation's budget is control.total).
  struct StreamCore {
    StreamControl control;
    u32 depth_used = 0;
  };

  // The inline hit of fetch() and load(): `line`'s slot in `c`, counted as an access and a hit
  // (as fetchImpl and loadImpl count them), or kNone, with nothing counted.
  u32 l1Hit(Cache& c, CacheStats& st, probe::Event access, probe::Event hit, u32 core, u64 line) {
    const u32 slot = c.find(line);
    if (slot != Cache::kNone) [[likely]] {
      probe::count(bus_, access, core, st.accesses);
      probe::count(bus_, hit, core, st.hits);
      c.touch(slot);
    }
    return slot;
  }
  // The physical address of core's access to `va` (identity without frames).
  u64 physical(u64 va, u32 core) { return frames_ != nullptr ? frames_->physical(va, core) : va; }
  LoadResult loadImpl(u32 core, u64 addr, Cycle at, Cycle xbar_free, bool timed);
  Cycle fetchImpl(u32 core, u64 addr, Cycle at, bool timed);
  Cycle fetchProbeMiss(u32 core, u64 addr, Cycle at) const;  // fetchProbe past an inline hit
  void storeImpl(u32 core, u64 addr, Cycle at, bool timed);
  Cycle atomicImpl(u32 core, u64 addr, Cycle at, Cycle xbar_free, bool timed);
  // PrivateCaches: removes line's copies from core's L1I, L1D and L1P; whether there were any.
  bool invalidateCore(u32 core, u64 line) override;
  void prefetchLine(u32 core, u64 line, Cycle at, bool timed);
  // ---- Snoop filters (snoop_ not empty) ----
  // A store or atomic of `source` to `line` leaving at `at`: its snoop to every other core's
  // filter; each one that passes takes its L1 snoop.l1_cycles cycles (`timed`).
  void snoopOthers(u32 source, u64 line, Cycle at, bool timed);
  // Core's filter learns that `c`'s `slot` now holds (tracked) or no longer holds (untracked)
  // its line (`l2line`: the line below the L1s); the stamp lives in the slot's meta word.
  void tracked(u32 core, Cache& c, u32 slot, u64 l2line) {
    if (!snoop_.empty()) c.setMeta(slot, snoop_[core].filled(l2line));
  }
  void untracked(u32 core, const Cache& c, u32 slot) {
    if (!snoop_.empty()) snoop_[core].removed(c.meta(slot));
  }
  // The cycle >= `at` core's L1 is free of snoops.
  Cycle snoopFree(u32 core, Cycle at) const {
    const auto [start, end] = snoop_busy_[core];
    return at >= start && at < end ? end : at;
  }
  u32 snoopPorts() const { return p_.snoopPorts(); }
  void streamOnMiss(u32 core, u64 line, Cycle at, bool timed);
  void streamOnPrefetchHit(u32 core, u64 line, Cycle at, bool timed);
  // ---- Establishment and depth adaptation (stream_prefetcher.cpp) ----
  // `s` (core's) becomes established with the register's initial depth (under adaptation, what
  // the budget leaves of it, at least a line), if establishment is on.
  void streamEstablish(u32 core, Stream& s);
  // A miss to `line` that continues no stream takes core's least recently used stream `slot`:
  // its depth goes back to the budget; the new stream expects line + 1 and, under the optimistic
  // policy, is established and prefetched at once.
  void streamStart(u32 core, Stream& slot, u64 line, Cycle at, bool timed);
  // A demand hit on a stream-prefetched line still in flight (PEVT_L1P_BAS_PF2DFC): with
  // adaptation on, the stream that expects the line gets one more line of depth.
  void streamOnLateHit(u32 core, u64 line);
  // `s` one line deeper: from the budget while the streams' depths leave some, else from the
  // deepest other established stream, when that is at least two lines deeper (a depth steal).
  void streamDeepen(u32 core, Stream& s);
  // A line of core's L1P is replaced by a fill (the statistics of the line it held).
  void evictL1p(u32 core, u32 slot);
  // ---- The signals of the L2 prefetch unit's events (l1p_signals.cpp) ----
  // The stream prefetcher's run for core's access to `line` (a miss, or else a first hit on a
  // prefetched line): streamOnMiss or streamOnPrefetchHit, and whether it dropped a line.
  void streamPrefetch(u32 core, u64 line, Cycle at, bool timed, bool miss);
  // A line prefetchLine found present (dropped), and one it requested at `at`, filled at `ready`.
  void prefetchDropped() { prefetch_dropped_ = true; }
  void prefetchRequested(u32 core, Cycle at, Cycle ready);
  // Core's L1P miss read, leaving at `departure`, filled at `ready`; its L1D line fill from `at`.
  void readRequested(u32 core, Cycle departure, Cycle ready);
  void lineFilled(u32 core, Cycle at, Cycle ready);
  // The L1D load miss to `line` of the requester thread reaches its running list prefetcher.
  void listOnMiss(u32 core, u64 line, Cycle at, bool timed);
  // Group "l1p_list": the list prefetchers of core's hardware threads (once some list started).
  void visitLists(u32 core, stats::Visitor& v) const;

  MemParams p_;
  u32 l1i_shift_ = 0;
  u32 l1d_shift_ = 0;
  u32 line_shift_ = 0;        // log2 of the line below the L1s (MemParams::lineBytes)
  u32 l1d_per_l2_shift_ = 0;  // log2(line below / l1d line)
  u32 l1i_per_l2_shift_ = 0;  // log2(line below / l1i line)
  std::vector<Cache> l1i_;
  std::vector<Cache> l1d_;
  std::vector<Cache> l1p_;       // one set of l1p.entries ways: fully associative
  std::vector<Stream> streams_;  // l1p.streams per core
  std::vector<StreamCore> stream_cores_;
  u64 stream_clock_ = 0;
  std::vector<CacheStats> l1i_stats_;
  std::vector<CacheStats> l1d_stats_;
  std::vector<CacheStats> l1p_stats_;
  std::vector<L1MissStats> miss_stats_;
  std::vector<L1pExtraStats> l1p_extra_;
  std::vector<L1pSignalStats> signals_;
  bool prefetch_dropped_ = false;  // the stream prefetcher's run dropped a line (streamPrefetch)
  std::vector<ListPrefetcher> lists_;  // by hardware thread
  std::vector<ListStats> list_stats_;
  ListOutcome list_out_;
  ListMemory* list_memory_ = nullptr;
  u32 lists_active_ = 0;     // list prefetchers misses reach (ListPrefetcher::active)
  bool lists_used_ = false;  // some list ever started (the statistics show them from then)
  u32 thread_ = 0;           // the requester thread (setRequesterThread)
  std::vector<u64> epoch_;
  std::vector<SnoopFilter> snoop_;  // by core (none without snoop filters)
  // By core: the last run of cycles [first, second) snoops took its L1 (after it, none).
  std::vector<std::pair<Cycle, Cycle>> snoop_busy_;
  probe::Bus* bus_ = nullptr;
  std::unique_ptr<Interconnect> ic_;
  FrameTable* frames_ = nullptr;  // the interconnect's (Interconnect::frames), or null
};

}  // namespace hpm::mem
