#include "mem/interconnect_base.h"

#include <algorithm>
#include <bit>

#include "mem/mem_stats.h"

namespace hpm::mem {

using probe::describe;
using probe::Event;

void SliceStats::visit(stats::Visitor& v) const {
  v.counter(stat::kSliceRequests, requests);
  v.counter("reads", reads, describe(Event::kL2Reads));
  v.counter("writes", writes, describe(Event::kL2Writes));
  v.counter("bytes", bytes, describe(Event::kL2Bytes));
  v.counter("busy_cycles", busy_cycles, describe(Event::kL2BusyCycles));
  v.counter(stat::kSliceHits, hits);
  v.counter(stat::kSliceMisses, misses);
  v.counter(stat::kSliceEvictions, evictions);
  v.counter(stat::kSliceWritebacks, writebacks);
  v.counter("back_invalidations", back_invalidations, describe(Event::kL2BackInvalidations));
}

void DdrStats::visit(stats::Visitor& v) const {
  v.counter("requests", requests, describe(Event::kDdrRequests));
  v.counter("reads", reads, describe(Event::kDdrReads));
  v.counter("writes", writes, describe(Event::kDdrWrites));
  v.counter("bytes", bytes, describe(Event::kDdrBytes));
  v.counter("busy_cycles", busy_cycles, describe(Event::kDdrBusyCycles));
}

InterconnectBase::InterconnectBase(const MemParams& p, PrivateCaches& caches, u32 slices, u32 sets,
                                   u32 ways, Replacement replacement, u32 set_shift)
    : p_(p), caches_(caches) {
  shift_ = std::countr_zero(p_.lineBytes());
  ddr_line_cycles_ = p_.ddr.busyCycles(p_.lineBytes());
  slices_.resize(slices);
  slice_versions_.assign(slices, 0);
  for (u32 s = 0; s < slices; ++s) {
    slices_[s].cache = Cache(sets, ways, set_shift, replacement, 0x4000 + s);
  }
  ddr_.resize(p_.controllerInstances());
  traffic_.assign(p_.cores, {});
}

u32 InterconnectBase::controllerWithin(u64 line) const {
  return p_.ddr.controllers == 1 ? 0 : foldHash(line ^ (line >> 3), 8) % p_.ddr.controllers;
}

Cycle InterconnectBase::ddrTransfer(u64 line, Cycle p, bool write, bool timed) {
  const u32 ctl = controllerOf(line << shift_);
  Controller& c = ddr_[ctl];
  Cycle start = p;
  if (timed) {
    start = std::max(p, c.free);
    c.free = start + ddr_line_cycles_;
    probe::count(bus_, Event::kDdrBusyCycles, ctl, c.stats.busy_cycles, ddr_line_cycles_);
  }
  probe::count(bus_, Event::kDdrRequests, ctl, c.stats.requests);
  CoreTrafficStats& traffic = traffic_[requester_];
  if (write) {
    probe::count(bus_, Event::kDdrWrites, ctl, c.stats.writes);
    probe::count(bus_, Event::kCoreDdrWrites, requester_, traffic.ddr_writes);
  } else {
    probe::count(bus_, Event::kDdrReads, ctl, c.stats.reads);
    probe::count(bus_, Event::kCoreDdrReads, requester_, traffic.ddr_reads);
  }
  probe::count(bus_, Event::kDdrBytes, ctl, c.stats.bytes, p_.lineBytes());
  return start;
}

Cycle InterconnectBase::readRequest(u32 sid, u32 core, Cycle p, Request request, u32 hold,
                                    bool timed) {
  Slice& s = slices_[sid];
  ++slice_versions_[sid];
  // A fetch miss was requested at its fetch cycle, before the issue that commits it; requests
  // processed in between must not push it back (it could starve), so it takes the uncontended
  // latency and only adds its busy time to the port and the controller.
  const bool waits = request != Request::kFetch;
  Cycle start = p;
  if (timed) {
    start = waits ? std::max(p, s.free) : p;
    s.free = std::max(s.free, start) + hold;
    probe::count(bus_, Event::kL2BusyCycles, sid, s.stats.busy_cycles, hold);
  }
  probe::count(bus_, Event::kL2Requests, sid, s.stats.requests);
  probe::count(bus_, Event::kL2Reads, sid, s.stats.reads);
  probe::count(bus_, Event::kL2Bytes, sid, s.stats.bytes, p_.lineBytes());
  CoreTrafficStats& traffic = traffic_[core];
  probe::count(bus_, Event::kCoreL2Reads, core, traffic.l2_reads);
  if (request == Request::kAtomic)
    probe::count(bus_, Event::kCoreL2Atomics, core, traffic.l2_atomics);
  return start;
}

void InterconnectBase::writeRequest(u32 sid, u32 core, u32 bytes, Cycle start, u32 hold,
                                    bool timed) {
  Slice& s = slices_[sid];
  ++slice_versions_[sid];
  if (timed) {
    s.free = std::max(s.free, start) + hold;
    probe::count(bus_, Event::kL2BusyCycles, sid, s.stats.busy_cycles, hold);
  }
  probe::count(bus_, Event::kL2Requests, sid, s.stats.requests);
  probe::count(bus_, Event::kL2Writes, sid, s.stats.writes);
  probe::count(bus_, Event::kL2Bytes, sid, s.stats.bytes, bytes);
  probe::count(bus_, Event::kCoreL2Writes, core, traffic_[core].l2_writes);
}

void InterconnectBase::hit(u32 sid, u32 core, bool core_too) {
  probe::count(bus_, Event::kL2Hits, sid, slices_[sid].stats.hits);
  if (core_too) probe::count(bus_, Event::kCoreL2Hits, core, traffic_[core].l2_hits);
}

void InterconnectBase::miss(u32 sid, u32 core, bool core_too) {
  probe::count(bus_, Event::kL2Misses, sid, slices_[sid].stats.misses);
  if (core_too) probe::count(bus_, Event::kCoreL2Misses, core, traffic_[core].l2_misses);
}

void InterconnectBase::transaction(probe::TransactionType type, u64 address, u32 source,
                                   probe::Snoop snoop, u32 supplier) {
  transactions_.add(type, snoop);
  const u32 agent = source >= probe::kSliceAgent ? source - probe::kSliceAgent
                                                 : static_cast<u32>(slices_.size()) + source;
  if (agent >= next_id_.size()) next_id_.resize(agent + 1, 0);
  const u32 id = next_id_[agent]++ & ((1u << probe::kTransactionIdBits) - 1);
  if (bus_ != nullptr && bus_->wantsTransactions()) [[unlikely]] {
    bus_->transaction(probe::Transaction{bus_->now(), address, source, id, supplier, type, snoop});
  }
}

void InterconnectBase::visitServers(stats::Visitor& v, std::string_view slices,
                                    std::string_view controllers) const {
  v.beginList(slices);
  for (const Slice& s : slices_) v.group("", s.stats);
  v.endList();
  v.beginList(controllers);
  for (const Controller& c : ddr_) v.group("", c.stats);
  v.endList();
  v.group("interconnect", transactions_);
}

// ---- Ground truth ----

// One row: `stat` (an expression of the model `m` and the instance `i`) is the event's count.
#define HPM_TRUTH(event, stat, changes)                                                         \
  probe::TruthRow<InterconnectBase> {                                                           \
    probe::Event::event,                                                                        \
        [](const InterconnectBase& m, u32 i, probe::TruthTerms& t) { t.push_back({&(stat)}); }, \
        probe::Changes::changes                                                                 \
  }

std::span<const probe::TruthRow<InterconnectBase>> InterconnectBase::truthTable() {
  // A core's requests are its own activity; the caches below the L1s (shared, or snooped by
  // every other CPU) change with every core's, and the controllers with everything above them.
  static const probe::TruthRow<InterconnectBase> kRows[] = {
      HPM_TRUTH(kCoreL2Reads, m.traffic_[i].l2_reads, kOwnCore),
      HPM_TRUTH(kCoreL2Writes, m.traffic_[i].l2_writes, kOwnCore),
      HPM_TRUTH(kCoreL2Hits, m.traffic_[i].l2_hits, kOwnCore),
      HPM_TRUTH(kCoreL2Misses, m.traffic_[i].l2_misses, kOwnCore),
      HPM_TRUTH(kCoreL2Atomics, m.traffic_[i].l2_atomics, kOwnCore),
      HPM_TRUTH(kCoreDdrReads, m.traffic_[i].ddr_reads, kOwnCore),
      HPM_TRUTH(kCoreDdrWrites, m.traffic_[i].ddr_writes, kOwnCore),
      HPM_TRUTH(kL2Requests, m.slices_[i].stats.requests, kShared),
      HPM_TRUTH(kL2Reads, m.slices_[i].stats.reads, kShared),
      HPM_TRUTH(kL2Writes, m.slices_[i].stats.writes, kShared),
      HPM_TRUTH(kL2Bytes, m.slices_[i].stats.bytes, kShared),
      HPM_TRUTH(kL2Hits, m.slices_[i].stats.hits, kShared),
      HPM_TRUTH(kL2Misses, m.slices_[i].stats.misses, kShared),
      HPM_TRUTH(kL2Evictions, m.slices_[i].stats.evictions, kShared),
      HPM_TRUTH(kL2Writebacks, m.slices_[i].stats.writebacks, kShared),
      HPM_TRUTH(kL2BackInvalidations, m.slices_[i].stats.back_invalidations, kShared),
      HPM_TRUTH(kL2BusyCycles, m.slices_[i].stats.busy_cycles, kShared),
      HPM_TRUTH(kDdrRequests, m.ddr_[i].stats.requests, kAnytime),
      HPM_TRUTH(kDdrReads, m.ddr_[i].stats.reads, kAnytime),
      HPM_TRUTH(kDdrWrites, m.ddr_[i].stats.writes, kAnytime),
      HPM_TRUTH(kDdrBytes, m.ddr_[i].stats.bytes, kAnytime),
      HPM_TRUTH(kDdrBusyCycles, m.ddr_[i].stats.busy_cycles, kAnytime),
  };
  return kRows;
}

#undef HPM_TRUTH

std::optional<u64> InterconnectBase::groundTruth(probe::Event e, u32 instance) const {
  return probe::truthOf(truthTable(), *this, e, instance);
}

void InterconnectBase::registerTallies(probe::Bus& bus,
                                       const std::function<const u64*(u32)>& core_version) const {
  probe::registerTallies(bus, truthTable(), *this, core_version,
                         [this](u32 slice) { return &slice_versions_[slice]; });
}

}  // namespace hpm::mem
