#include "mem/crossbar.h"

#include <algorithm>
#include <bit>

#include "mem/mem_stats.h"

namespace hpm::mem {

using probe::Event;
using probe::Snoop;
using probe::TransactionType;

Crossbar::Crossbar(const MemParams& p, PrivateCaches& caches)
    : InterconnectBase(p, caches, p.l2.slices, p.l2.setsPerSlice(), p.l2.ways, p.l2.replacement,
                       static_cast<u32>(std::countr_zero(p.l2.slices))) {
  slice_bits_ = std::countr_zero(p_.l2.slices);
  const auto transfer = [](u32 bytes, u32 per_cycle) {
    return per_cycle == 0 ? 0 : (bytes + per_cycle - 1) / per_cycle;
  };
  slice_read_cycles_ =
      std::max(p_.l2.slice_busy_cycles, transfer(p_.l2.line_bytes, p_.l2.slice_bytes_per_cycle));
  port_line_cycles_ = transfer(p_.l2.line_bytes, p_.l2.core_port_bytes_per_cycle);
  port_atomic_cycles_ = transfer(8, p_.l2.core_port_bytes_per_cycle);
  port_free_.assign(p_.cores, 0);
  transactions_.interconnect = probe::Interconnect::kCrossbar;
  if (p_.l3.banks) {
    l3_ = std::make_unique<L3Banks>(p_.l3, p_.l2.slices, p_.l2.line_bytes, slice_bits_);
  }
  if (p_.l1p.device_buses) buses_ = std::make_unique<DeviceBuses>(p_.cores);
}

Crossbar::~Crossbar() = default;

TransactionType Crossbar::transactionOf(Request request) {
  switch (request) {
    case Request::kData: return TransactionType::kRead;
    case Request::kPrefetch: return TransactionType::kPrefetch;
    case Request::kFetch: return TransactionType::kFetch;
    case Request::kAtomic: return TransactionType::kAtomic;
  }
  return TransactionType::kRead;
}

Cycle Crossbar::memory(u64 line, Cycle p, bool write, bool timed) {
  const Cycle start = ddrTransfer(line, p, write, timed);
  if (l3_ && !write) l3_->ddrFetch(sliceOfLine(line));
  transaction(write ? TransactionType::kMemWrite : TransactionType::kMemRead, line << shift_,
              probe::kSliceAgent + sliceOfLine(line), Snoop::kNone);
  return start;
}

u32 Crossbar::victim(u32 sid, u64 line, Cycle at, bool timed) {
  Slice& s = slices_[sid];
  const u32 slot = s.cache.victim(line);
  if (s.cache.valid(slot)) {
    const u64 old = s.cache.tag(slot);
    bumpVersion(sid);
    probe::count(bus_, Event::kL2Evictions, sid, s.stats.evictions);
    if (s.cache.flags(slot) & Cache::kDirty) {
      probe::count(bus_, Event::kL2Writebacks, sid, s.stats.writebacks);
      memory(old, at, true, timed);
    }
    if (const u64 sharers = s.cache.meta(slot)) {
      // Inclusion: private copies of an evicted line go with it.
      probe::count(bus_, Event::kL2BackInvalidations, sid, s.stats.back_invalidations);
      invalidateSharers(old, sharers, kNoCore);
    }
  }
  return slot;
}

Cycle Crossbar::fill(u32 sid, u64 line, Cycle p, bool waits, bool timed) {
  u32 entry = 0;
  if (l3_) p = l3_->allocate(sid, p, waits, timed, &entry);
  const Cycle dstart = memory(line, p, false, timed);
  const Cycle ready = timed ? (waits ? dstart : p) + p_.ddr.latency : p;
  if (l3_) l3_->release(sid, entry, ready, timed);
  return ready;
}

void Crossbar::prefetchIntoEdram(u64 line, Cycle at, bool timed) {
  for (u64 next = line + 1; next <= line + p_.l3.prefetch_lines; ++next) {
    const u32 sid = sliceOfLine(next);
    Slice& s = slices_[sid];
    if (s.cache.find(next) != Cache::kNone) continue;
    bumpVersion(sid);
    l3_->prefetched(sid);
    const Cycle ready = fill(sid, next, at, true, timed);
    s.cache.install(victim(sid, next, at, timed), next, ready);
  }
}

Cycle Crossbar::read(u32 core, u64 line, Cycle p, Request request, bool timed, Level* level) {
  const u32 sid = sliceOfLine(line);
  Slice& s = slices_[sid];
  requester_ = core;
  const bool waits = request != Request::kFetch;
  if (timed && port_line_cycles_ != 0) p = corePort(core, p, request);
  if (l3_) p = l3_->lookup(sid, line, p, waits, timed);
  const Cycle start = readRequest(sid, core, p, request, slice_read_cycles_, timed);
  u32 slot = s.cache.find(line);
  transaction(transactionOf(request), line << shift_, thread_,
              slot != Cache::kNone ? Snoop::kL2 : Snoop::kMemory,
              slot != Cache::kNone ? probe::kSliceAgent + sid : probe::kNoSupplier);
  const bool hits = slot != Cache::kNone;
  Cycle ready;
  if (hits) {
    hit(sid, core, true);
    s.cache.touch(slot);
    ready = timed ? std::max(start + p_.l2.hit_latency, s.cache.ready(slot)) : p;
    *level = Level::kL2;
  } else {
    miss(sid, core, true);
    ready = fill(sid, line, start, waits, timed);
    slot = victim(sid, line, start, timed);
    s.cache.install(slot, line, ready);
    *level = Level::kDdr;
  }
  if (request != Request::kAtomic) s.cache.setMeta(slot, s.cache.meta(slot) | coreBit(core));
  if (l3_) {
    // The L2 prefetch unit's line requests come as bursts; the rest one line each.
    const u32 port = L3Banks::readPort(core);
    l3_->delivered(sid, port, line, hits, request == Request::kPrefetch);
    ready = l3_->returnPath(sid, port, ready, waits, timed);
    if (!hits && (request == Request::kData || request == Request::kPrefetch)) {
      prefetchIntoEdram(line, start, timed);
    }
  }
  return ready;
}

Cycle Crossbar::corePort(u32 core, Cycle p, Request request) {
  // The port is reserved when the request leaves the core, for as long as its data takes to
  // come back through it: this bounds the core's read bandwidth (the servers' FIFO rule of
  // docs/timing.md section 6), not the exact cycle the data crosses the port.
  Cycle& free = port_free_[core];
  const u32 hold = request == Request::kAtomic ? port_atomic_cycles_ : port_line_cycles_;
  CoreTrafficStats& traffic = traffic_[core];
  traffic.port_busy_cycles += hold;
  if (request == Request::kFetch) {  // see readRequest: a fetch miss takes the uncontended path
    free = std::max(free, p) + hold;
    return p;
  }
  const Cycle start = std::max(p, free);
  traffic.port_wait_cycles += start - p;
  free = start + hold;
  return start;
}

Cycle Crossbar::probeRead(u32 core, u64 line, Cycle p) const {
  (void)core;
  const Slice& s = slices_[sliceOfLine(line)];
  const u32 slot = s.cache.find(line);
  if (slot != Cache::kNone) return std::max(p + p_.l2.hit_latency, s.cache.ready(slot));
  return p + p_.ddr.latency;
}

Cycle Crossbar::own(u32 core, u64 line, Cycle p, bool timed) {
  Level level;
  const Cycle ready = read(core, line, p, Request::kAtomic, timed, &level);
  Slice& s = slices_[sliceOfLine(line)];
  const u32 slot = s.cache.find(line);
  // The atomic updates the line at the L2: it is dirty there and stale everywhere else.
  s.cache.setFlags(slot, s.cache.flags(slot) | Cache::kDirty);
  if (const u64 sharers = s.cache.meta(slot)) {
    invalidateSharers(line, sharers, kNoCore);
    s.cache.setMeta(slot, 0);
  }
  return ready;
}

void Crossbar::storeIssued(u32 core, u64 line) {
  // Coherence through the inclusive L2's sharer mask: the other cores' copies go.
  Slice& s = slices_[sliceOfLine(line)];
  const u32 slot = s.cache.find(line);
  if (slot == Cache::kNone) return;
  const u64 sharers = s.cache.meta(slot);
  const u64 mine = coreBit(core);
  if ((sharers & ~mine) != 0 || (p_.cores > 64 && sharers != 0)) {
    invalidateSharers(line, sharers, core);
    s.cache.setMeta(slot, sharers & mine);
  }
}

Cycle Crossbar::drainFree(u32 core, u64 line, Cycle earliest) const {
  (void)core;
  return std::max(earliest, slices_[sliceOfLine(line)].free);
}

Cycle Crossbar::drain(u32 core, u64 line, u32 bytes, Cycle start, bool timed) {
  const u32 sid = sliceOfLine(line);
  Slice& s = slices_[sid];
  requester_ = core;
  if (l3_) {
    start = l3_->deposit(sid, L3Banks::writePort(core), start, timed);
    start = l3_->lookup(sid, line, start, true, timed);
  }
  writeRequest(sid, core, bytes, start, p_.l2.slice_busy_cycles, timed);
  u32 slot = s.cache.find(line);
  transaction(TransactionType::kWrite, line << shift_, thread_,
              slot != Cache::kNone ? Snoop::kL2 : Snoop::kMemory,
              slot != Cache::kNone ? probe::kSliceAgent + sid : probe::kNoSupplier);
  if (slot != Cache::kNone) {
    hit(sid, core, false);
    s.cache.touch(slot);
  } else {
    // Write-allocate: the rest of the line comes from DDR.
    miss(sid, core, true);
    const Cycle ready = fill(sid, line, start, true, timed);
    slot = victim(sid, line, start, timed);
    s.cache.install(slot, line, ready);
  }
  s.cache.setFlags(slot, s.cache.flags(slot) | Cache::kDirty);
  return start;
}

void Crossbar::drainCombined(u32 core, u64 line, u32 bytes) {
  (void)core;
  const u32 sid = sliceOfLine(line);
  bumpVersion(sid);
  probe::count(bus_, Event::kL2Bytes, sid, slices_[sid].stats.bytes, bytes);
}

void Crossbar::invalidateSharers(u64 line, u64 sharers, u32 keep) {
  transaction(TransactionType::kInvalidate, line << shift_, probe::kSliceAgent + sliceOfLine(line),
              Snoop::kNone);
  while (sharers != 0) {
    const u32 bit = static_cast<u32>(std::countr_zero(sharers));
    sharers &= sharers - 1;
    for (u32 c = bit; c < p_.cores; c += 64) {
      if (c != keep) caches_.invalidateCore(c, line);
    }
  }
}

void Crossbar::deviceAccess(u64 addr, bool write) {
  transaction(write ? TransactionType::kIoWrite : TransactionType::kIoRead, addr, thread_,
              Snoop::kNone);
  if (buses_) buses_->access(thread_ / p_.threads_per_core, addr, write);
}

void Crossbar::deviceLines(u64 addr, u64 bytes, Cycle at, bool write, bool timed,
                           std::vector<DeviceLineTimes>* times) {
  if (bytes == 0) return;
  const u64 line_bytes = u64{1} << shift_;
  const bool burst = (addr >> shift_) != ((addr + bytes - 1) >> shift_);
  for (u64 line = addr >> shift_; line <= (addr + bytes - 1) >> shift_; ++line) {
    const u64 begin = std::max(addr, line << shift_);
    const u64 end = std::min(addr + bytes, (line + 1) << shift_);
    const u32 n = write ? static_cast<u32>(end - begin) : static_cast<u32>(line_bytes);
    const u32 sid = sliceOfLine(line);
    Slice& s = slices_[sid];
    bumpVersion(sid);
    Cycle start = at;
    if (l3_) {
      // The DMA's ports: R2 for its reads, W0 for its writes.
      if (write) start = l3_->deposit(sid, L3Banks::kDmaWritePort, start, timed);
      start = l3_->lookup(sid, line, start, true, timed);
    }
    if (timed) {
      const Cycle busy = write ? p_.l2.slice_busy_cycles : slice_read_cycles_;
      start = std::max(start, s.free);
      s.free = start + busy;
      probe::count(bus_, Event::kL2BusyCycles, sid, s.stats.busy_cycles, busy);
    }
    probe::count(bus_, Event::kL2Requests, sid, s.stats.requests);
    probe::count(bus_, Event::kL2Bytes, sid, s.stats.bytes, n);
    probe::count(bus_, write ? Event::kL2Writes : Event::kL2Reads, sid,
                 write ? s.stats.writes : s.stats.reads);
    u32 slot = s.cache.find(line);
    const bool hits = slot != Cache::kNone;
    Cycle data = start;  // (when a read's data is ready)
    if (hits) {
      hit(sid, 0, false);
      s.cache.touch(slot);
      if (timed) data = std::max(start + p_.l2.hit_latency, s.cache.ready(slot));
    } else {
      miss(sid, 0, false);
      Cycle ready = start;
      if (!(write && n == line_bytes)) {  // (a whole line written needs nothing from DDR)
        ready = fill(sid, line, start, true, timed);
      } else if (l3_) {  // (but its slot a miss-handler entry)
        u32 entry = 0;
        ready = l3_->allocate(sid, start, true, timed, &entry);
        l3_->release(sid, entry, ready, timed);
      }
      slot = victim(sid, line, start, timed);
      s.cache.install(slot, line, ready);
      data = ready;
    }
    if (l3_ && !write) {
      l3_->delivered(sid, L3Banks::kDmaReadPort, line, hits, burst);
      l3_->returnPath(sid, L3Banks::kDmaReadPort, data, true, timed);
    }
    if (times != nullptr) times->push_back({line << shift_, start, std::max(start, data)});
    if (write) {
      if (const u64 sharers = s.cache.meta(slot)) {
        invalidateSharers(line, sharers, kNoCore);
        s.cache.setMeta(slot, 0);
      }
      s.cache.setFlags(slot, s.cache.flags(slot) | Cache::kDirty);
    }
  }
}

void Crossbar::visitCoreTraffic(u32 core, stats::Visitor& v) const {
  const CoreTrafficStats& t = traffic_[core];
  v.counter("l2_reads", t.l2_reads, probe::describe(Event::kCoreL2Reads));
  v.counter("l2_writes", t.l2_writes, probe::describe(Event::kCoreL2Writes));
  v.counter("l2_hits", t.l2_hits, probe::describe(Event::kCoreL2Hits));
  v.counter("l2_misses", t.l2_misses, probe::describe(Event::kCoreL2Misses));
  v.counter("l2_atomics", t.l2_atomics, probe::describe(Event::kCoreL2Atomics));
  v.counter("ddr_reads", t.ddr_reads, probe::describe(Event::kCoreDdrReads));
  v.counter("ddr_writes", t.ddr_writes, probe::describe(Event::kCoreDdrWrites));
  v.counter("port_busy_cycles", t.port_busy_cycles,
            "Cycles the core's crossbar port was taken returning data");
  v.counter("port_wait_cycles", t.port_wait_cycles,
            "Cycles read requests waited for the core's crossbar port");
  if (buses_) buses_->visitCore(core, v);
}

void Crossbar::visitSharedStats(stats::Visitor& v) const {
  visitServers(v, stat::kL2Slices, "ddr_controllers");
  if (l3_) l3_->visitStats(v);
}

std::optional<u64> Crossbar::groundTruth(probe::Event e, u32 instance) const {
  if (l3_) {
    if (auto v = l3_->groundTruth(e, instance)) return v;
  }
  if (buses_) {
    if (auto v = buses_->groundTruth(e, instance)) return v;
  }
  return InterconnectBase::groundTruth(e, instance);
}

void Crossbar::registerTallies(probe::Bus& bus,
                               const std::function<const u64*(u32)>& core_version) const {
  InterconnectBase::registerTallies(bus, core_version);
  if (l3_) l3_->registerTallies(bus);
  if (buses_) buses_->registerTallies(bus, core_version);
}

}  // namespace hpm::mem
