// Blue Gene/P's snoop filter (Salapura, Blumrich and Gara, "Design and implementation of the Blue
// Gene/P snoop filter", HPCA 2008; docs/timing.md "Snoop filters"): one in front of each core's
// private caches. Every store or atomic of another core sends this core a snoop (an invalidation
// request for its line) on the port of its source; the filter rejects the snoops whose line
// cannot be in the caches and passes the others, each of which then takes the L1 a cycle.
//
// Two filters look at a snoop in parallel, and either rejects it:
//  - each port's snoop cache: lines the port snooped before and the core has not loaded since
//    (loading a line removes it from every port's snoop cache). An entry records an aligned
//    block of lines_per_entry lines as a vector; a snoop not rejected is recorded, in the entry of
//    its block (an "update") or a new one (LRU);
//  - the stream registers: each a base and a mask covering the lines whose masked bits equal the
//    base's. Every line the caches load joins the active set (the register it costs the fewest
//    mask bits grows to cover it). A "cache wrap" (every line the caches held when the active
//    set started is gone) makes the active set the history set and empties it: a line the caches
//    hold was loaded since the last wrap (active) or between the two before (history).
// So the filter is conservative: a snoop for a line the caches hold always passes (the unit test
// tests/mem/snoop_filter_test.cpp holds it over random sequences against the set of lines held).
//
// The filter tracks the lines the memory system tells it of (filled(), removed()); it does not
// look at the caches. Each line carries the "stamp" filled() returns until removed() gets it
// back (the memory system keeps it in the cache's meta word).
#pragma once

#include <vector>

#include "base/types.h"
#include "mem/mem_params.h"
#include "stats/probe.h"
#include "stats/stats.h"

namespace hpm::mem {

// One port's statistics: each the ground truth of the event of its name (stats/probe.h).
struct SnoopPortStats {
  u64 requests = 0;           // SnoopRequests
  u64 cache_rejected = 0;     // SnoopCacheRejected
  u64 register_rejected = 0;  // SnoopRegisterRejected
  u64 both_rejected = 0;      // SnoopBothRejected
  u64 rejected = 0;           // SnoopRejected
  u64 active_hits = 0;        // SnoopActiveHits
  u64 history_hits = 0;       // SnoopHistoryHits
  u64 cache_updates = 0;      // SnoopCacheUpdates
  void visit(stats::Visitor& v) const;
};

class SnoopFilter {
 public:
  // The filter of core `core` with `ports` ports; its events go to the bus set by setProbe.
  SnoopFilter(const SnoopParams& p, u32 core, u32 ports);

  void setProbe(probe::Bus* bus) { bus_ = bus; }

  // A snoop for `line` on `port`: whether it passes to the caches. Counts its events.
  bool snoop(u32 port, u64 line);
  // The caches loaded `line`: the stamp the line carries until it is removed (never 0).
  u64 filled(u64 line);
  // The caches dropped a line (evicted or invalidated) that carried `stamp` (0: none, ignored).
  void removed(u64 stamp);

  const SnoopPortStats& portStats(u32 port) const { return ports_[port].stats; }
  const u64& wraps() const { return wraps_; }
  u32 ports() const { return static_cast<u32>(ports_.size()); }
  void visit(stats::Visitor& v) const;

 private:
  struct Entry {
    u64 block = 0;  // line >> block_shift_
    u64 bits = 0;   // the block's lines recorded (0: the entry is free)
    u64 age = 0;
  };
  struct Port {
    std::vector<Entry> entries;
    // Entries in use by block mod 64: a lookup scans the entries only when its count is not 0
    // (most lookups, a fill's in particular, find none: this keeps the filter cheap to host).
    u16 in_use[64] = {};
    SnoopPortStats stats;
  };
  struct Register {
    u64 base = 0;
    u64 mask = 0;
    bool valid = false;
    bool covers(u64 line) const { return valid && ((line ^ base) & mask) == 0; }
  };

  static bool anyCovers(const std::vector<Register>& set, u64 line);
  // The entry of port `p`'s snoop cache holding `line`'s block, or null.
  Entry* find(Port& p, u64 line);
  void wrapIfDone();

  u32 core_ = 0;
  u32 block_shift_ = 0;
  std::vector<Port> ports_;
  std::vector<Register> active_;
  std::vector<Register> history_;
  // The epoch: lines filled since the last wrap carry stamp epoch_, those filled between the two
  // wraps before it epoch_ - 1 (stamps start at 2: 0 means none). live_ counts both.
  u64 epoch_ = 2;
  u64 live_current_ = 0;
  u64 live_previous_ = 0;
  u64 clock_ = 0;  // snoop-cache LRU stamps
  u64 wraps_ = 0;  // SnoopWraps
  probe::Bus* bus_ = nullptr;
};

}  // namespace hpm::mem
