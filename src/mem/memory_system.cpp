#include "mem/memory_system.h"

#include <algorithm>
#include <bit>
#include <utility>

namespace hpm::mem {

void CacheStats::visit(stats::Visitor& v) const {
  v.counter("accesses", accesses, "Accesses (loads, stores, fetches)");
  v.counter("hits", hits, "Accesses that found their line");
  v.counter("misses", misses, "Accesses that did not");
  v.counter("writes", writes, "Store accesses (write-through, no allocation on a miss)");
  v.counter("evictions", evictions, "Valid lines replaced by fills");
  v.counter("writebacks", writebacks, "Dirty lines written back (the L1s are write-through)");
  v.counter("prefetches", prefetches, "Lines requested by the stream prefetcher");
  v.counter("prefetch_hits", prefetch_hits, "First demand hits on prefetched lines");
  v.counter("invalidations", invalidations, "Lines removed by coherence");
}

void CoreTrafficStats::visit(stats::Visitor& v) const {
  v.counter("l1d_load_misses", l1d_load_misses, "Loads that missed the L1D");
  v.counter("l1d_store_misses", l1d_store_misses, "Stores that missed the L1D");
  v.counter("l2_reads", l2_reads, "L2 read requests: load misses, fetches, prefetches, atomics");
  v.counter("l2_writes", l2_writes, "L2 write requests (store-queue drains)");
  v.counter("l2_hits", l2_hits, "L2 read requests that hit");
  v.counter("l2_misses", l2_misses, "L2 read and write requests that missed");
  v.counter("l2_atomics", l2_atomics, "Atomic operations performed at the L2");
  v.counter("ddr_reads", ddr_reads, "DDR line reads caused by this core's requests");
  v.counter("ddr_writes", ddr_writes, "DDR writebacks caused by this core's requests");
  v.counter("port_busy_cycles", port_busy_cycles,
            "Cycles the core's crossbar port was taken returning data");
  v.counter("port_wait_cycles", port_wait_cycles,
            "Cycles read requests waited for the core's crossbar port");
}

void SliceStats::visit(stats::Visitor& v) const {
  v.counter("requests", requests, "Requests served by this slice");
  v.counter("reads", reads, "Read requests: load misses, fetches, prefetches, atomics");
  v.counter("writes", writes, "Store-queue entries drained into this slice");
  v.counter("bytes", bytes, "Bytes moved through the slice port");
  v.counter("busy_cycles", busy_cycles, "Cycles the slice port was taken");
  v.counter("hits", hits, "Requests that found their line");
  v.counter("misses", misses, "Requests that allocated their line (a DDR read)");
  v.counter("evictions", evictions, "Valid lines replaced");
  v.counter("writebacks", writebacks, "Dirty lines written back to DDR");
  v.counter("back_invalidations", back_invalidations,
            "Private L1I/L1D/L1P lines removed because this slice evicted their line");
}

void BusStats::visit(stats::Visitor& v) const {
  v.counter("busy_cycles", busy_cycles, "Cycles the address bus was taken");
  v.counter("data_busy_cycles", data_busy_cycles,
            "Cycles the boards' data ports were taken (a line's fill or writeback each)");
  v.counter("cache_to_cache", cache_to_cache, "Lines another CPU's external cache supplied");
  v.counter("memory_local", memory_local, "Lines memory on the requester's board supplied");
  v.counter("memory_remote", memory_remote, "Lines memory on another board supplied");
  v.counter("writebacks_local", writebacks_local, "Writebacks to the evicting CPU's board");
  v.counter("writebacks_remote", writebacks_remote, "Writebacks to another board's memory");
  v.counter("snoop_invalidations", snoop_invalidations,
            "External-cache lines removed by other CPUs' ownership requests");
}

void DdrStats::visit(stats::Visitor& v) const {
  v.counter("requests", requests, "Line transfers");
  v.counter("reads", reads, "Line reads (L2 fills)");
  v.counter("writes", writes, "Line writes (L2 writebacks)");
  v.counter("bytes", bytes, "Bytes transferred");
  v.counter("busy_cycles", busy_cycles, "Cycles the controller was transferring");
}

MemorySystem::MemorySystem(const MemParams& params) : p_(params) {
  p_.validate();
  l1i_shift_ = std::countr_zero(p_.l1i.line_bytes);
  l1d_shift_ = std::countr_zero(p_.l1d.line_bytes);
  l2_shift_ = std::countr_zero(p_.l2.line_bytes);
  slice_bits_ = std::countr_zero(p_.l2.slices);
  l1d_per_l2_shift_ = l2_shift_ - l1d_shift_;
  l1i_per_l2_shift_ = l2_shift_ - l1i_shift_;
  ddr_line_cycles_ = p_.ddr.busyCycles(p_.l2.line_bytes);
  const auto transfer = [](u32 bytes, u32 per_cycle) {
    return per_cycle == 0 ? 0 : (bytes + per_cycle - 1) / per_cycle;
  };
  slice_read_cycles_ =
      std::max(p_.l2.slice_busy_cycles, transfer(p_.l2.line_bytes, p_.l2.slice_bytes_per_cycle));
  port_line_cycles_ = transfer(p_.l2.line_bytes, p_.l2.core_port_bytes_per_cycle);
  port_atomic_cycles_ = transfer(8, p_.l2.core_port_bytes_per_cycle);
  const u32 n = p_.cores;
  l1i_.reserve(n);
  l1d_.reserve(n);
  l1p_.reserve(n);
  for (u32 c = 0; c < n; ++c) {
    l1i_.emplace_back(p_.l1i.sets(), p_.l1i.ways, 0, p_.l1i.replacement, 0x1000 + c);
    l1d_.emplace_back(p_.l1d.sets(), p_.l1d.ways, 0, p_.l1d.replacement, 0x2000 + c);
    l1p_.emplace_back(1, p_.l1p.entries, 0, Replacement::kLru, 0x3000 + c);
  }
  streams_.assign(std::size_t{n} * p_.l1p.streams, Stream{});
  l1i_stats_.assign(n, {});
  l1d_stats_.assign(n, {});
  l1p_stats_.assign(n, {});
  traffic_stats_.assign(n, {});
  port_free_.assign(n, 0);
  snoop_ = p_.bus.snooping();
  transactions_.interconnect = p_.bus.kind;
  // On Fireplane each core's external cache is a "slice" of its own, indexed by its whole
  // physical line address; the memory controllers are ddr.controllers per board.
  const u32 slices = snoop_ ? n : p_.l2.slices;
  const u32 sets = p_.l2SetsPerInstance();
  slices_.resize(slices);
  slice_versions_.assign(slices, 0);
  for (u32 s = 0; s < slices; ++s) {
    slices_[s].cache =
        Cache(sets, p_.l2.ways, snoop_ ? 0 : slice_bits_, p_.l2.replacement, 0x4000 + s);
  }
  ddr_.resize(snoop_ ? std::size_t{p_.bus.boards} * p_.ddr.controllers : p_.ddr.controllers);
  epoch_.assign(n, 0);
  if (snoop_) {
    frames_ = std::make_unique<FrameTable>(p_.bus, n);
    data_free_.assign(p_.bus.boards, 0);
    for (u32 c = 0; c < n; ++c) board_of_.push_back(p_.bus.boardOf(c, n));
  }
}

namespace {

// XOR of the bytes of x, then of its `bits`-wide fields: every address bit moves the result.
u32 foldHash(u64 x, u32 bits) {
  x ^= x >> 32;
  x ^= x >> 16;
  x ^= x >> 8;
  x &= 0xff;
  if (bits == 0) return 0;
  u64 h = 0;
  for (u32 i = 0; i < 8; i += bits) h ^= x >> i;
  return static_cast<u32>(h & ((u64{1} << bits) - 1));
}

}  // namespace

// The transaction a read of the L2 puts on the crossbar.
probe::TransactionType MemorySystem::transactionOf(Source src) {
  switch (src) {
    case Source::kData: return probe::TransactionType::kRead;
    case Source::kPrefetch: return probe::TransactionType::kPrefetch;
    case Source::kFetch: return probe::TransactionType::kFetch;
    case Source::kAtomic: return probe::TransactionType::kAtomic;
  }
  return probe::TransactionType::kRead;
}

u32 MemorySystem::sliceOfLine(u64 l2line) const {
  return foldHash(l2line, slice_bits_);
}

u32 MemorySystem::controllerOf(u64 addr) const {
  const u64 line = addr >> l2_shift_;
  const u32 within =
      p_.ddr.controllers == 1 ? 0 : foldHash(line ^ (line >> 3), 8) % p_.ddr.controllers;
  // Fireplane: the controllers of the line's home board.
  return snoop_ ? FrameTable::homeBoard(addr) * p_.ddr.controllers + within : within;
}

// ---- DDR and L2 ----

Cycle MemorySystem::ddrTransfer(u64 l2line, Cycle p, bool write, bool timed) {
  Controller& c = ddr_[controllerOf(l2line << l2_shift_)];
  Cycle start = p;
  if (timed) {
    start = std::max(p, c.free);
    c.free = start + ddr_line_cycles_;
    c.stats.busy_cycles += ddr_line_cycles_;
    HPM_PROBE(bus_, kDdrBusyCycles, controllerOf(l2line << l2_shift_), ddr_line_cycles_);
  }
  ++c.stats.requests;
  ++(write ? c.stats.writes : c.stats.reads);
  ++(write ? traffic_stats_[requester_].ddr_writes : traffic_stats_[requester_].ddr_reads);
  c.stats.bytes += p_.l2.line_bytes;
  if (!snoop_) {  // on Fireplane memory answers the bus transaction that asked
    transaction(write ? probe::TransactionType::kMemWrite : probe::TransactionType::kMemRead,
                l2line << l2_shift_, probe::kSliceAgent + sliceOfLine(l2line), probe::Snoop::kNone);
  }
  if (bus_ != nullptr) [[unlikely]] {
    const u32 ctl = controllerOf(l2line << l2_shift_);
    HPM_PROBE(bus_, kDdrRequests, ctl, 1);
    if (write) {
      HPM_PROBE(bus_, kDdrWrites, ctl, 1);
      HPM_PROBE(bus_, kCoreDdrWrites, requester_, 1);
    } else {
      HPM_PROBE(bus_, kDdrReads, ctl, 1);
      HPM_PROBE(bus_, kCoreDdrReads, requester_, 1);
    }
    HPM_PROBE(bus_, kDdrBytes, ctl, p_.l2.line_bytes);
  }
  return start;
}

u32 MemorySystem::l2Victim(Slice& s, u64 l2line, Cycle at, bool timed) {
  const u32 slot = s.cache.victim(l2line);
  if (s.cache.valid(slot)) {
    const u64 old = s.cache.tag(slot);
    const u32 sid = static_cast<u32>(&s - slices_.data());
    ++slice_versions_[sid];
    ++s.stats.evictions;
    HPM_PROBE(bus_, kL2Evictions, sid, 1);
    if (s.cache.flags(slot) & Cache::kDirty) {
      ++s.stats.writebacks;
      HPM_PROBE(bus_, kL2Writebacks, sid, 1);
      ddrTransfer(old, at, true, timed);
    }
    if (const u64 sharers = s.cache.meta(slot)) {
      // Inclusion: private copies of an evicted line go with it.
      ++s.stats.back_invalidations;
      HPM_PROBE(bus_, kL2BackInvalidations, sid, 1);
      invalidateSharers(old, sharers, kNoCore);
    }
  }
  return slot;
}

Cycle MemorySystem::l2Read(u32 core, u64 l2line, Cycle p, Source src, bool timed, Level* level) {
  if (snoop_) return snoopRead(core, l2line, p, src, timed, level);
  const u32 sid = sliceOfLine(l2line);
  Slice& s = slices_[sid];
  requester_ = core;
  const bool waits = src != Source::kFetch;
  if (timed && port_line_cycles_ != 0) p = corePort(core, p, src);
  const Cycle start = readRequest(sid, core, p, src, timed);
  CoreTrafficStats& traffic = traffic_stats_[core];
  u32 slot = s.cache.find(l2line);
  transaction(transactionOf(src), l2line << l2_shift_, thread_,
              slot != Cache::kNone ? probe::Snoop::kL2 : probe::Snoop::kMemory,
              slot != Cache::kNone ? probe::kSliceAgent + sid : probe::kNoSupplier);
  Cycle ready;
  if (slot != Cache::kNone) {
    ++s.stats.hits;
    HPM_PROBE(bus_, kL2Hits, sid, 1);
    ++traffic.l2_hits;
    HPM_PROBE(bus_, kCoreL2Hits, core, 1);
    s.cache.touch(slot);
    ready = timed ? std::max(start + p_.l2.hit_latency, s.cache.ready(slot)) : p;
    *level = Level::kL2;
  } else {
    ++s.stats.misses;
    HPM_PROBE(bus_, kL2Misses, sid, 1);
    ++traffic.l2_misses;
    HPM_PROBE(bus_, kCoreL2Misses, core, 1);
    const Cycle dstart = ddrTransfer(l2line, start, false, timed);
    ready = timed ? (waits ? dstart : start) + p_.ddr.latency : p;
    slot = l2Victim(s, l2line, start, timed);
    s.cache.install(slot, l2line, ready);
    *level = Level::kDdr;
  }
  if (src == Source::kData || src == Source::kPrefetch || src == Source::kFetch) {
    s.cache.setMeta(slot, s.cache.meta(slot) | coreBit(core));
  }
  return ready;
}

Cycle MemorySystem::corePort(u32 core, Cycle p, Source src) {
  // The port is reserved when the request leaves the core, for as long as its data takes to
  // come back through it: this bounds the core's read bandwidth (the servers' FIFO rule of
  // docs/timing.md section 6), not the exact cycle the data crosses the port.
  Cycle& free = port_free_[core];
  const u32 hold = src == Source::kAtomic ? port_atomic_cycles_ : port_line_cycles_;
  CoreTrafficStats& traffic = traffic_stats_[core];
  traffic.port_busy_cycles += hold;
  if (src == Source::kFetch) {  // see readRequest: a fetch miss takes the uncontended path
    free = std::max(free, p) + hold;
    return p;
  }
  const Cycle start = std::max(p, free);
  traffic.port_wait_cycles += start - p;
  free = start + hold;
  return start;
}

Cycle MemorySystem::readRequest(u32 sid, u32 core, Cycle p, Source src, bool timed) {
  Slice& s = slices_[sid];
  ++slice_versions_[sid];
  // A fetch miss was requested at its fetch cycle, before the issue that commits it; requests
  // processed in between must not push it back (it could starve), so it takes the uncontended
  // latency and only adds its busy time to the slice and the controller.
  const bool waits = src != Source::kFetch;
  Cycle start = p;
  if (timed) {
    start = waits ? std::max(p, s.free) : p;
    s.free = std::max(s.free, start) + slice_read_cycles_;
    s.stats.busy_cycles += slice_read_cycles_;
    HPM_PROBE(bus_, kL2BusyCycles, sid, slice_read_cycles_);
  }
  ++s.stats.requests;
  ++s.stats.reads;
  s.stats.bytes += p_.l2.line_bytes;
  HPM_PROBE(bus_, kL2Requests, sid, 1);
  HPM_PROBE(bus_, kL2Reads, sid, 1);
  HPM_PROBE(bus_, kL2Bytes, sid, p_.l2.line_bytes);
  CoreTrafficStats& traffic = traffic_stats_[core];
  ++traffic.l2_reads;
  HPM_PROBE(bus_, kCoreL2Reads, core, 1);
  if (src == Source::kAtomic) {
    ++traffic.l2_atomics;
    HPM_PROBE(bus_, kCoreL2Atomics, core, 1);
  }
  return start;
}

void MemorySystem::writeRequest(u32 sid, u32 core, u32 bytes, Cycle start, bool timed) {
  Slice& s = slices_[sid];
  ++slice_versions_[sid];
  if (timed) {
    s.free = std::max(s.free, start) + p_.l2.slice_busy_cycles;
    s.stats.busy_cycles += p_.l2.slice_busy_cycles;
    HPM_PROBE(bus_, kL2BusyCycles, sid, p_.l2.slice_busy_cycles);
  }
  ++s.stats.requests;
  ++s.stats.writes;
  s.stats.bytes += bytes;
  HPM_PROBE(bus_, kL2Requests, sid, 1);
  HPM_PROBE(bus_, kL2Writes, sid, 1);
  HPM_PROBE(bus_, kL2Bytes, sid, bytes);
  ++traffic_stats_[core].l2_writes;
  HPM_PROBE(bus_, kCoreL2Writes, core, 1);
}

Cycle MemorySystem::fetchL2Probe(u32 core, u64 l2line, Cycle p) const {
  if (snoop_) return snoopProbe(core, l2line, p);
  const Slice& s = slices_[sliceOfLine(l2line)];
  const u32 slot = s.cache.find(l2line);
  if (slot != Cache::kNone) return std::max(p + p_.l2.hit_latency, s.cache.ready(slot));
  return p + p_.ddr.latency;
}

Cycle MemorySystem::sliceFree(u32 core, u64 addr, Cycle earliest) const {
  // On Fireplane the store drains into the core's own external cache (any address).
  return std::max(earliest, slices_[snoop_ ? core : sliceOfLine(addr >> l2_shift_)].free);
}

Cycle MemorySystem::l2WriteImpl(u32 core, u64 addr, u32 bytes, Cycle start, bool timed) {
  const u64 l2line = addr >> l2_shift_;
  if (snoop_) return snoopOwn(core, l2line, bytes, start, Source::kData, timed);
  const u32 sid = sliceOfLine(l2line);
  Slice& s = slices_[sid];
  requester_ = core;
  writeRequest(sid, core, bytes, start, timed);
  CoreTrafficStats& traffic = traffic_stats_[core];
  u32 slot = s.cache.find(l2line);
  transaction(probe::TransactionType::kWrite, l2line << l2_shift_, thread_,
              slot != Cache::kNone ? probe::Snoop::kL2 : probe::Snoop::kMemory,
              slot != Cache::kNone ? probe::kSliceAgent + sid : probe::kNoSupplier);
  if (slot != Cache::kNone) {
    ++s.stats.hits;
    HPM_PROBE(bus_, kL2Hits, sid, 1);
    s.cache.touch(slot);
  } else {
    // Write-allocate: the rest of the line comes from DDR.
    ++s.stats.misses;
    HPM_PROBE(bus_, kL2Misses, sid, 1);
    ++traffic.l2_misses;
    HPM_PROBE(bus_, kCoreL2Misses, core, 1);
    const Cycle dstart = ddrTransfer(l2line, start, false, timed);
    const Cycle ready = timed ? dstart + p_.ddr.latency : start;
    slot = l2Victim(s, l2line, start, timed);
    s.cache.install(slot, l2line, ready);
  }
  s.cache.setFlags(slot, s.cache.flags(slot) | Cache::kDirty);
  return start;
}

Cycle MemorySystem::l2Write(u32 core, u64 addr, u32 bytes, Cycle start) {
  return l2WriteImpl(core, physical(addr, core), bytes, start, true);
}

void MemorySystem::l2WriteCombined(u32 core, u64 addr, u32 bytes) {
  const u32 sid = snoop_ ? core : sliceOfLine(physical(addr, core) >> l2_shift_);
  ++slice_versions_[sid];
  slices_[sid].stats.bytes += bytes;
  HPM_PROBE(bus_, kL2Bytes, sid, bytes);
}

// ---- Coherence ----

bool MemorySystem::invalidateCore(u32 core, u64 l2line) {
  ++epoch_[core];
  bool found = false;
  const u32 p = l1p_[core].find(l2line);
  if (p != Cache::kNone) {
    found = true;
    l1p_[core].invalidate(p);
    ++l1p_stats_[core].invalidations;
    HPM_PROBE(bus_, kL1pInvalidations, core, 1);
  }
  const u64 first_i = l2line << l1i_per_l2_shift_;
  for (u64 k = 0; k < (u64{1} << l1i_per_l2_shift_); ++k) {
    const u32 i = l1i_[core].find(first_i + k);
    if (i != Cache::kNone) {
      found = true;
      l1i_[core].invalidate(i);
      ++l1i_stats_[core].invalidations;
      HPM_PROBE(bus_, kL1iInvalidations, core, 1);
    }
  }
  const u64 first = l2line << l1d_per_l2_shift_;
  for (u64 k = 0; k < (u64{1} << l1d_per_l2_shift_); ++k) {
    const u32 d = l1d_[core].find(first + k);
    if (d != Cache::kNone) {
      found = true;
      l1d_[core].invalidate(d);
      ++l1d_stats_[core].invalidations;
      HPM_PROBE(bus_, kL1dInvalidations, core, 1);
    }
  }
  return found;
}

void MemorySystem::invalidateSharers(u64 l2line, u64 sharers, u32 keep) {
  transaction(probe::TransactionType::kInvalidate, l2line << l2_shift_,
              probe::kSliceAgent + sliceOfLine(l2line), probe::Snoop::kNone);
  while (sharers != 0) {
    const u32 bit = static_cast<u32>(std::countr_zero(sharers));
    sharers &= sharers - 1;
    for (u32 c = bit; c < p_.cores; c += 64) {
      if (c != keep) invalidateCore(c, l2line);
    }
  }
}

// ---- Transactions ----

void MemorySystem::transaction(probe::TransactionType type, u64 address, u32 source,
                               probe::Snoop snoop, u32 supplier) {
  transactions_.add(type, snoop);
  const u32 agent =
      source >= probe::kSliceAgent ? source - probe::kSliceAgent : p_.l2.slices + source;
  if (agent >= next_id_.size()) next_id_.resize(agent + 1, 0);
  const u32 id = next_id_[agent]++ & ((1u << probe::kTransactionIdBits) - 1);
  if (bus_ != nullptr && bus_->wantsTransactions()) [[unlikely]] {
    bus_->transaction(probe::Transaction{bus_->now(), address, source, id, supplier, type, snoop});
  }
}

void MemorySystem::deviceAccess(u64 addr, bool write) {
  // Device space is not translated: the address is the register's (the guest's mapping).
  using T = probe::TransactionType;
  const T type = snoop_ ? (write ? T::kWriteIO : T::kReadIO) : (write ? T::kIoWrite : T::kIoRead);
  transaction(type, addr, thread_, probe::Snoop::kNone);
}

void MemorySystem::deviceLines(u64 addr, u64 bytes, Cycle at, bool write, bool timed) {
  if (bytes == 0 || snoop_) return;
  const u64 line_bytes = u64{1} << l2_shift_;
  for (u64 line = addr >> l2_shift_; line <= (addr + bytes - 1) >> l2_shift_; ++line) {
    const u64 begin = std::max(addr, line << l2_shift_);
    const u64 end = std::min(addr + bytes, (line + 1) << l2_shift_);
    const u32 n = write ? static_cast<u32>(end - begin) : static_cast<u32>(line_bytes);
    const u32 sid = sliceOfLine(line);
    Slice& s = slices_[sid];
    ++slice_versions_[sid];
    Cycle start = at;
    if (timed) {
      const Cycle busy = write ? p_.l2.slice_busy_cycles : slice_read_cycles_;
      start = std::max(at, s.free);
      s.free = start + busy;
      s.stats.busy_cycles += busy;
      HPM_PROBE(bus_, kL2BusyCycles, sid, busy);
    }
    ++s.stats.requests;
    s.stats.bytes += n;
    HPM_PROBE(bus_, kL2Requests, sid, 1);
    HPM_PROBE(bus_, kL2Bytes, sid, n);
    if (write) {
      ++s.stats.writes;
      HPM_PROBE(bus_, kL2Writes, sid, 1);
    } else {
      ++s.stats.reads;
      HPM_PROBE(bus_, kL2Reads, sid, 1);
    }
    u32 slot = s.cache.find(line);
    if (slot != Cache::kNone) {
      ++s.stats.hits;
      HPM_PROBE(bus_, kL2Hits, sid, 1);
      s.cache.touch(slot);
    } else {
      ++s.stats.misses;
      HPM_PROBE(bus_, kL2Misses, sid, 1);
      Cycle ready = start;
      if (!(write && n == line_bytes)) {  // (a whole line written needs nothing from DDR)
        const Cycle dstart = ddrTransfer(line, start, false, timed);
        if (timed) ready = dstart + p_.ddr.latency;
      }
      slot = l2Victim(s, line, start, timed);
      s.cache.install(slot, line, ready);
    }
    if (write) {
      if (const u64 sharers = s.cache.meta(slot)) {
        invalidateSharers(line, sharers, kNoCore);
        s.cache.setMeta(slot, 0);
      }
      s.cache.setFlags(slot, s.cache.flags(slot) | Cache::kDirty);
    }
  }
}

// ---- L1P prefetcher ----

void MemorySystem::prefetchLine(u32 core, u64 l2line, Cycle at, bool timed) {
  Cache& b = l1p_[core];
  if (b.find(l2line) != Cache::kNone) return;
  ++l1p_stats_[core].prefetches;
  HPM_PROBE(bus_, kL1pPrefetches, core, 1);
  Level level;
  const Cycle ready = l2Read(core, l2line, at, Source::kPrefetch, timed, &level);
  const u32 slot = b.victim(l2line);
  if (b.valid(slot)) {
    ++l1p_stats_[core].evictions;
    HPM_PROBE(bus_, kL1pEvictions, core, 1);
  }
  b.install(slot, l2line, ready);
  b.setFlags(slot, Cache::kPrefetched);
}

void MemorySystem::streamOnMiss(u32 core, u64 l2line, Cycle at, bool timed) {
  Stream* table = &streams_[std::size_t{core} * p_.l1p.streams];
  Stream* oldest = table;
  for (u32 i = 0; i < p_.l1p.streams; ++i) {
    Stream& s = table[i];
    if (s.age != 0 && s.next == l2line) {
      // Confirmed: the miss continues the stream; run prefetch_depth lines ahead.
      const u64 last = l2line + p_.l1p.prefetch_depth;
      for (u64 x = std::max(s.ahead, l2line) + 1; x <= last; ++x) prefetchLine(core, x, at, timed);
      s.next = l2line + 1;
      s.ahead = std::max(s.ahead, last);
      s.age = ++stream_clock_;
      return;
    }
    if (s.age < oldest->age) oldest = &s;
  }
  *oldest = Stream{l2line + 1, l2line, ++stream_clock_};
}

void MemorySystem::streamOnPrefetchHit(u32 core, u64 l2line, Cycle at, bool timed) {
  Stream* table = &streams_[std::size_t{core} * p_.l1p.streams];
  for (u32 i = 0; i < p_.l1p.streams; ++i) {
    Stream& s = table[i];
    if (s.age != 0 && s.next == l2line) {
      const u64 last = l2line + p_.l1p.prefetch_depth;
      for (u64 x = std::max(s.ahead, l2line) + 1; x <= last; ++x) prefetchLine(core, x, at, timed);
      s.next = l2line + 1;
      s.ahead = std::max(s.ahead, last);
      s.age = ++stream_clock_;
      return;
    }
  }
}

// ---- Accesses ----

Cycle MemorySystem::fetchImpl(u32 core, u64 addr, Cycle at, bool timed) {
  Cache& c = l1i_[core];
  CacheStats& st = l1i_stats_[core];
  const u64 line = addr >> l1i_shift_;
  ++st.accesses;
  HPM_PROBE(bus_, kL1iAccesses, core, 1);
  u32 slot = c.find(line);
  if (slot != Cache::kNone) {
    ++st.hits;
    HPM_PROBE(bus_, kL1iHits, core, 1);
    c.touch(slot);
    return timed ? std::max(at + p_.l1i.hit_latency, c.ready(slot)) : at;
  }
  ++st.misses;
  HPM_PROBE(bus_, kL1iMisses, core, 1);
  Level level;
  const Cycle data = l2Read(core, addr >> l2_shift_, at, Source::kFetch, timed, &level);
  const Cycle ready = timed ? data + p_.l1i.hit_latency : at;
  slot = c.victim(line);
  if (c.valid(slot)) {
    ++st.evictions;
    HPM_PROBE(bus_, kL1iEvictions, core, 1);
  }
  c.install(slot, line, ready);
  return ready;
}

Cycle MemorySystem::fetchProbe(u32 core, u64 addr, Cycle at) const {
  if (frames_ != nullptr) {
    const auto pa = frames_->peek(addr);
    if (!pa) return at + p_.ddr.latency + p_.l1i.hit_latency;  // a page not yet placed
    addr = *pa;
  }
  const Cache& c = l1i_[core];
  const u32 slot = c.find(addr >> l1i_shift_);
  if (slot != Cache::kNone) return std::max(at + p_.l1i.hit_latency, c.ready(slot));
  return fetchL2Probe(core, addr >> l2_shift_, at) + p_.l1i.hit_latency;
}

Cycle MemorySystem::fetch(u32 core, u64 addr, Cycle at) {
  return fetchImpl(core, physical(addr, core), at, true);
}

LoadResult MemorySystem::loadImpl(u32 core, u64 addr, Cycle at, Cycle xbar_free, bool timed) {
  Cache& d = l1d_[core];
  CacheStats& dst = l1d_stats_[core];
  const u64 line = addr >> l1d_shift_;
  ++dst.accesses;
  HPM_PROBE(bus_, kL1dAccesses, core, 1);
  u32 slot = d.find(line);
  if (slot != Cache::kNone) {
    ++dst.hits;
    HPM_PROBE(bus_, kL1dHits, core, 1);
    d.touch(slot);
    return {timed ? std::max(at + p_.l1d.hit_latency, d.ready(slot)) : at, Level::kL1, false};
  }
  ++dst.misses;
  HPM_PROBE(bus_, kL1dMisses, core, 1);
  ++traffic_stats_[core].l1d_load_misses;
  HPM_PROBE(bus_, kL1dLoadMisses, core, 1);
  LoadResult r;
  r.l1_miss = true;
  const u64 l2line = addr >> l2_shift_;
  Cache& b = l1p_[core];
  CacheStats& bst = l1p_stats_[core];
  ++bst.accesses;
  HPM_PROBE(bus_, kL1pAccesses, core, 1);
  const u32 pslot = b.find(l2line);
  if (pslot != Cache::kNone) {
    ++bst.hits;
    HPM_PROBE(bus_, kL1pHits, core, 1);
    b.touch(pslot);
    r.ready = timed ? std::max(at + p_.l1p.hit_latency, b.ready(pslot)) : at;
    r.level = Level::kL1p;
    if (b.flags(pslot) & Cache::kPrefetched) {
      ++bst.prefetch_hits;
      HPM_PROBE(bus_, kL1pPrefetchHits, core, 1);
      b.setFlags(pslot, 0);
      if (p_.l1p.prefetch) streamOnPrefetchHit(core, l2line, at, timed);
    }
  } else {
    ++bst.misses;
    HPM_PROBE(bus_, kL1pMisses, core, 1);
    r.ready = l2Read(core, l2line, std::max(at, xbar_free), Source::kData, timed, &r.level);
    if (!timed) r.ready = at;
    const u32 v = b.victim(l2line);
    if (b.valid(v)) {
      ++bst.evictions;
      HPM_PROBE(bus_, kL1pEvictions, core, 1);
    }
    b.install(v, l2line, r.ready);
    if (p_.l1p.prefetch) streamOnMiss(core, l2line, at, timed);
  }
  slot = d.victim(line);
  if (d.valid(slot)) {
    ++dst.evictions;
    HPM_PROBE(bus_, kL1dEvictions, core, 1);
  }
  d.install(slot, line, r.ready);
  return r;
}

LoadResult MemorySystem::load(u32 core, u64 addr, Cycle at, Cycle xbar_free) {
  return loadImpl(core, physical(addr, core), at, xbar_free, true);
}

void MemorySystem::storeImpl(u32 core, u64 addr) {
  Cache& d = l1d_[core];
  CacheStats& dst = l1d_stats_[core];
  ++dst.accesses;
  ++dst.writes;
  HPM_PROBE(bus_, kL1dAccesses, core, 1);
  HPM_PROBE(bus_, kL1dWrites, core, 1);
  const u32 slot = d.find(addr >> l1d_shift_);
  if (slot != Cache::kNone) {
    ++dst.hits;
    HPM_PROBE(bus_, kL1dHits, core, 1);
    d.touch(slot);
  } else {
    ++dst.misses;
    HPM_PROBE(bus_, kL1dMisses, core, 1);
    ++traffic_stats_[core].l1d_store_misses;
    HPM_PROBE(bus_, kL1dStoreMisses, core, 1);
  }
  if (snoop_) return;  // the drain's ownership request keeps the caches coherent
  // Coherence through the inclusive L2's sharer mask: the other cores' copies go.
  const u64 l2line = addr >> l2_shift_;
  Slice& s = slices_[sliceOfLine(l2line)];
  const u32 l2slot = s.cache.find(l2line);
  if (l2slot == Cache::kNone) return;
  const u64 sharers = s.cache.meta(l2slot);
  const u64 mine = coreBit(core);
  if ((sharers & ~mine) != 0 || (p_.cores > 64 && sharers != 0)) {
    invalidateSharers(l2line, sharers, core);
    s.cache.setMeta(l2slot, sharers & mine);
  }
}

void MemorySystem::storeIssue(u32 core, u64 addr, Cycle at) {
  (void)at;
  storeImpl(core, physical(addr, core));
}

Cycle MemorySystem::atomicImpl(u32 core, u64 addr, Cycle at, Cycle xbar_free, bool timed) {
  const u64 l2line = addr >> l2_shift_;
  if (snoop_) {
    const Cycle ready = snoopOwn(core, l2line, 8, std::max(at, xbar_free), Source::kAtomic, timed);
    return timed ? ready : at;
  }
  Level level;
  const Cycle ready = l2Read(core, l2line, std::max(at, xbar_free), Source::kAtomic, timed, &level);
  Slice& s = slices_[sliceOfLine(l2line)];
  const u32 slot = s.cache.find(l2line);
  // The atomic updates the line at the L2: it is dirty there and stale everywhere else.
  s.cache.setFlags(slot, s.cache.flags(slot) | Cache::kDirty);
  if (const u64 sharers = s.cache.meta(slot)) {
    invalidateSharers(l2line, sharers, kNoCore);
    s.cache.setMeta(slot, 0);
  }
  return timed ? ready : at;
}

Cycle MemorySystem::atomic(u32 core, u64 addr, Cycle at, Cycle xbar_free) {
  return atomicImpl(core, physical(addr, core), at, xbar_free, true);
}

void MemorySystem::warmFetch(u32 core, u64 addr, Cycle now) {
  fetchImpl(core, physical(addr, core), now, false);
}
void MemorySystem::warmLoad(u32 core, u64 addr, Cycle now) {
  loadImpl(core, physical(addr, core), now, now, false);
}
void MemorySystem::warmStore(u32 core, u64 addr, Cycle now) {
  addr = physical(addr, core);
  storeImpl(core, addr);
  l2WriteImpl(core, addr, 8, now, false);
}
void MemorySystem::warmAtomic(u32 core, u64 addr, Cycle now) {
  atomicImpl(core, physical(addr, core), now, now, false);
}

// ---- Statistics ----

// One row: `stat` (an expression of the model `m` and the instance `i`) is the event's count.
#define HPM_TRUTH(event, stat, changes)                                                     \
  probe::TruthRow<MemorySystem> {                                                           \
    probe::Event::event,                                                                    \
        [](const MemorySystem& m, u32 i, probe::TruthTerms& t) { t.push_back({&(stat)}); }, \
        probe::Changes::changes                                                             \
  }

std::span<const probe::TruthRow<MemorySystem>> MemorySystem::truthTable() {
  // Invalidations come from other cores' accesses, the L2 slices from every core's and DDR's
  // statistics from everything below them: only the others are the core's own activity.
  static const probe::TruthRow<MemorySystem> kRows[] = {
      HPM_TRUTH(kL1iAccesses, m.l1i_stats_[i].accesses, kOwnCore),
      HPM_TRUTH(kL1iHits, m.l1i_stats_[i].hits, kOwnCore),
      HPM_TRUTH(kL1iMisses, m.l1i_stats_[i].misses, kOwnCore),
      HPM_TRUTH(kL1iEvictions, m.l1i_stats_[i].evictions, kOwnCore),
      HPM_TRUTH(kL1iInvalidations, m.l1i_stats_[i].invalidations, kAnytime),
      HPM_TRUTH(kL1dAccesses, m.l1d_stats_[i].accesses, kOwnCore),
      HPM_TRUTH(kL1dHits, m.l1d_stats_[i].hits, kOwnCore),
      HPM_TRUTH(kL1dMisses, m.l1d_stats_[i].misses, kOwnCore),
      HPM_TRUTH(kL1dLoadMisses, m.traffic_stats_[i].l1d_load_misses, kOwnCore),
      HPM_TRUTH(kL1dStoreMisses, m.traffic_stats_[i].l1d_store_misses, kOwnCore),
      HPM_TRUTH(kL1dWrites, m.l1d_stats_[i].writes, kOwnCore),
      HPM_TRUTH(kL1dEvictions, m.l1d_stats_[i].evictions, kOwnCore),
      HPM_TRUTH(kL1dInvalidations, m.l1d_stats_[i].invalidations, kAnytime),
      HPM_TRUTH(kL1pAccesses, m.l1p_stats_[i].accesses, kOwnCore),
      HPM_TRUTH(kL1pHits, m.l1p_stats_[i].hits, kOwnCore),
      HPM_TRUTH(kL1pMisses, m.l1p_stats_[i].misses, kOwnCore),
      HPM_TRUTH(kL1pPrefetches, m.l1p_stats_[i].prefetches, kOwnCore),
      HPM_TRUTH(kL1pPrefetchHits, m.l1p_stats_[i].prefetch_hits, kOwnCore),
      HPM_TRUTH(kL1pEvictions, m.l1p_stats_[i].evictions, kOwnCore),
      HPM_TRUTH(kL1pInvalidations, m.l1p_stats_[i].invalidations, kAnytime),
      HPM_TRUTH(kCoreL2Reads, m.traffic_stats_[i].l2_reads, kOwnCore),
      HPM_TRUTH(kCoreL2Writes, m.traffic_stats_[i].l2_writes, kOwnCore),
      HPM_TRUTH(kCoreL2Hits, m.traffic_stats_[i].l2_hits, kOwnCore),
      HPM_TRUTH(kCoreL2Misses, m.traffic_stats_[i].l2_misses, kOwnCore),
      HPM_TRUTH(kCoreL2Atomics, m.traffic_stats_[i].l2_atomics, kOwnCore),
      HPM_TRUTH(kCoreDdrReads, m.traffic_stats_[i].ddr_reads, kOwnCore),
      HPM_TRUTH(kCoreDdrWrites, m.traffic_stats_[i].ddr_writes, kOwnCore),
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

void MemorySystem::registerTallies(probe::Bus& bus,
                                   const std::function<const u64*(u32)>& core_version) const {
  probe::registerTallies(bus, truthTable(), *this, core_version,
                         [this](u32 slice) { return &slice_versions_[slice]; });
}

void MemorySystem::visitCoreStats(u32 core, stats::Visitor& v) const {
  v.group("l1i", l1i_stats_[core]);
  v.group("l1d", l1d_stats_[core]);
  v.group("l1p", l1p_stats_[core]);
  v.group("traffic", traffic_stats_[core]);
}

void MemorySystem::visitSharedStats(stats::Visitor& v) const {
  v.beginList("l2_slices");
  for (const Slice& s : slices_) v.group("", s.stats);
  v.endList();
  v.beginList("ddr_controllers");
  for (const Controller& c : ddr_) v.group("", c.stats);
  v.endList();
  v.group("interconnect", transactions_);
  if (snoop_) v.group("bus", bus_stats_);
}

}  // namespace hpm::mem
