// The Fireplane bus (fireplane.h; seed 004; docs/sunfire.md).
//
// States live in a line's flags (cache.h): M dirty, O dirty|shared, E clean, S shared.
//   - A read that misses the E$ puts a ReadToShare (an instruction fetch a ReadToShareAlways) on
//     the bus. A cache holding the line M or O supplies it (M becomes O); E becomes S. The
//     requester installs the line S when another cache keeps a copy (or for a fetch), else E.
//   - A store drain or atomic needs the line M: M and E are written in place (E becomes M
//     silently); S and O send a ReadToOwnUpgrade (no data) and a miss a ReadToOwn (data from an
//     M/O cache or memory). Every other copy is invalidated, with its L1 copies.
//   - An E$ eviction of an M or O line sends a WriteBack to the line's home memory; the evicted
//     line's L1 copies go with it (inclusion).
// Timing: a transaction holds the address bus address_cycles from the first free cycle; its data
// comes cache_to_cache_latency after that start from a cache, or ddr.latency (plus
// fireplane.remote_latency when the home board is not the requester's) after the home memory
// controller starts the transfer, and its last data_cycles hold the requester board's data port (a
// later transfer through a busy port arrives when the port is free again; writebacks take the
// evicting board's port too). A hit in the E$ takes ecache_hit_latency after its port is free.
#include "mem/fireplane.h"

#include <algorithm>

#include "mem/mem_stats.h"

namespace hpm::mem {

using probe::Event;
using probe::Snoop;
using probe::TransactionType;

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

// Each CPU's external cache is a "slice" of the base, indexed by its whole physical line address.
Fireplane::Fireplane(const MemParams& p, PrivateCaches& caches)
    : InterconnectBase(p, caches, p.cores, p.fireplane.ecacheSets(), p.fireplane.ecache_ways,
                       p.fireplane.ecache_replacement, 0),
      f_(p_.fireplane) {
  transactions_.interconnect = probe::Interconnect::kFireplane;
  frames_ = std::make_unique<FrameTable>(f_, p_.cores);
  data_free_.assign(f_.boards, 0);
  for (u32 c = 0; c < p_.cores; ++c) board_of_.push_back(f_.boardOf(c, p_.cores));
}

Fireplane::SnoopOutcome Fireplane::snoopOthers(u32 core, u64 line, bool own) {
  SnoopOutcome out;
  for (u32 c = 0; c < p_.cores; ++c) {
    if (c == core) continue;
    Cache& e = slices_[c].cache;
    const u32 slot = e.find(line);
    if (slot == Cache::kNone) continue;
    const u8 f = e.flags(slot);
    const bool dirty = (f & Cache::kDirty) != 0;
    if (dirty) {
      out.snoop = (f & Cache::kShared) != 0 ? Snoop::kOwned : Snoop::kModified;
      out.supplier = c;  // one CPU at most holds a line M or O (its hardware thread: one each)
    }
    if (own) {
      e.invalidate(slot);
      bumpVersion(c);
      ++bus_stats_.snoop_invalidations;
      caches_.invalidateCore(c, line);
    } else {
      e.setFlags(slot, static_cast<u8>(f | Cache::kShared));  // M -> O, E -> S
      out.others = true;
    }
  }
  if (!own && out.snoop == Snoop::kMemory && out.others) out.snoop = Snoop::kShared;
  return out;
}

Cycle Fireplane::busSlot(Cycle p, bool timed, bool waits) {
  if (!timed) return p;
  const Cycle start = waits ? std::max(p, bus_free_) : p;
  bus_free_ = std::max(bus_free_, start) + f_.address_cycles;
  bus_stats_.busy_cycles += f_.address_cycles;
  return start;
}

Cycle Fireplane::memoryLatency(u32 core, u64 line) const {
  return p_.ddr.latency + (remote(core, line) ? f_.remote_latency : 0);
}

Cycle Fireplane::dataPort(u32 board, Cycle arrival, bool timed, bool waits) {
  const u32 dc = f_.data_cycles;
  if (!timed || dc == 0) return arrival;
  Cycle& free = data_free_[board];
  const Cycle earliest = arrival > dc ? arrival - dc : 0;  // the transfer's start, uncontended
  const Cycle start = waits ? std::max(earliest, free) : earliest;
  free = std::max(free, start) + dc;
  bus_stats_.data_busy_cycles += dc;
  return start + dc;
}

Cycle Fireplane::busData(u32 core, u64 line, Cycle bstart, Snoop snoop, bool timed, bool waits) {
  const u32 board = board_of_[core];
  if (snoop == Snoop::kOwned || snoop == Snoop::kModified) {
    ++bus_stats_.cache_to_cache;
    return dataPort(board, bstart + f_.cache_to_cache_latency, timed, waits);
  }
  ++(remote(core, line) ? bus_stats_.memory_remote : bus_stats_.memory_local);
  requester_ = core;
  // (Memory answers the bus transaction that asked: no transaction of its own.)
  const Cycle dstart = ddrTransfer(line, bstart, false, timed);
  return dataPort(board, (waits ? dstart : bstart) + memoryLatency(core, line), timed, waits);
}

u32 Fireplane::victim(u32 core, u64 line, Cycle at, bool timed) {
  Slice& s = slices_[core];
  const u32 slot = s.cache.victim(line);
  if (!s.cache.valid(slot)) return slot;
  const u64 old = s.cache.tag(slot);
  probe::count(bus_, Event::kL2Evictions, core, s.stats.evictions);
  if ((s.cache.flags(slot) & Cache::kDirty) != 0) {
    probe::count(bus_, Event::kL2Writebacks, core, s.stats.writebacks);
    ++(remote(core, old) ? bus_stats_.writebacks_remote : bus_stats_.writebacks_local);
    const Cycle bstart = busSlot(at, timed, true);
    transaction(TransactionType::kWriteBack, old << shift_, thread_, Snoop::kNone);
    requester_ = core;
    ddrTransfer(old, bstart, true, timed);
    // The line leaves through the board's data port: it delays the fills behind it, not the
    // eviction (the E$ holds it in a writeback buffer).
    dataPort(board_of_[core], bstart + f_.data_cycles, timed, true);
  }
  if (caches_.invalidateCore(core, old)) {
    probe::count(bus_, Event::kL2BackInvalidations, core, s.stats.back_invalidations);
  }
  return slot;
}

Cycle Fireplane::read(u32 core, u64 line, Cycle p, Request request, bool timed, Level* level) {
  Slice& s = slices_[core];
  // As on the crossbar, a fetch miss takes its latency uncontended (it was requested before the
  // issue that commits it) and only adds its occupancy.
  const bool waits = request != Request::kFetch;
  const Cycle start = readRequest(core, core, p, request, f_.ecache_busy_cycles, timed);
  u32 slot = s.cache.find(line);
  if (slot != Cache::kNone) {
    hit(core, core, true);
    s.cache.touch(slot);
    *level = Level::kL2;
    return timed ? std::max(start + f_.ecache_hit_latency, s.cache.ready(slot)) : p;
  }
  miss(core, core, true);
  const SnoopOutcome o = snoopOthers(core, line, false);
  const Cycle bstart = busSlot(start, timed, waits);
  const bool fetch = request == Request::kFetch;
  transaction(fetch ? TransactionType::kReadToShareAlways : TransactionType::kReadToShare,
              line << shift_, thread_, o.snoop, o.supplier);
  const Cycle data = busData(core, line, bstart, o.snoop, timed, waits);
  const Cycle ready = timed ? data : p;
  *level = (o.snoop == Snoop::kOwned || o.snoop == Snoop::kModified) ? Level::kPeer : Level::kDdr;
  slot = victim(core, line, start, timed);
  s.cache.install(slot, line, ready);
  if (o.others || fetch) s.cache.setFlags(slot, Cache::kShared);
  return ready;
}

Cycle Fireplane::ownLine(u32 core, u64 line, u32 bytes, Cycle p, Request request, bool timed) {
  Slice& s = slices_[core];
  const bool atomic = request == Request::kAtomic;
  Cycle start = p;
  if (atomic) {
    // An atomic is a read at the E$.
    start = readRequest(core, core, p, request, f_.ecache_busy_cycles, timed);
  } else {
    writeRequest(core, core, bytes, p, f_.ecache_busy_cycles, timed);
  }
  // An atomic's old value is read at the E$; a store is done once the line is owned.
  const Cycle use = atomic ? f_.ecache_hit_latency : 0;
  u32 slot = s.cache.find(line);
  Cycle done;
  if (slot != Cache::kNone) {
    hit(core, core, atomic);
    s.cache.touch(slot);
    done = timed ? std::max(start + use, s.cache.ready(slot)) : p;
    if ((s.cache.flags(slot) & Cache::kShared) != 0) {
      // S or O: other copies may exist; the upgrade invalidates them (no data moves).
      snoopOthers(core, line, true);
      const Cycle bstart = busSlot(start, timed, true);
      transaction(TransactionType::kReadToOwnUpgrade, line << shift_, thread_, Snoop::kNone);
      if (timed) done = std::max(done, bstart + f_.address_cycles + use);
    }
  } else {
    miss(core, core, true);
    const SnoopOutcome o = snoopOthers(core, line, true);
    const Cycle bstart = busSlot(start, timed, true);
    transaction(TransactionType::kReadToOwn, line << shift_, thread_, o.snoop, o.supplier);
    const Cycle ready = busData(core, line, bstart, o.snoop, timed, true);
    done = timed ? ready : p;
    slot = victim(core, line, start, timed);
    s.cache.install(slot, line, done);
  }
  s.cache.setFlags(slot, Cache::kDirty);  // M
  // An atomic updates the line in the E$: the core's own L1 copies are stale (as on the
  // crossbar, where it is performed at the L2).
  if (atomic) caches_.invalidateCore(core, line);
  return done;
}

Cycle Fireplane::probeRead(u32 core, u64 line, Cycle p) const {
  const Cache& e = slices_[core].cache;
  const u32 slot = e.find(line);
  if (slot != Cache::kNone) return std::max(p + f_.ecache_hit_latency, e.ready(slot));
  for (u32 c = 0; c < p_.cores; ++c) {
    if (c == core) continue;
    const Cache& o = slices_[c].cache;
    const u32 other = o.find(line);
    if (other != Cache::kNone && (o.flags(other) & Cache::kDirty) != 0) {
      return p + f_.cache_to_cache_latency;
    }
  }
  return p + memoryLatency(core, line);
}

void Fireplane::drainCombined(u32 core, u64 line, u32 bytes) {
  (void)line;
  bumpVersion(core);
  probe::count(bus_, Event::kL2Bytes, core, slices_[core].stats.bytes, bytes);
}

void Fireplane::deviceAccess(u64 addr, bool write) {
  // Device space is not translated: the address is the register's (the guest's mapping).
  transaction(write ? TransactionType::kWriteIO : TransactionType::kReadIO, addr, thread_,
              Snoop::kNone);
}

void Fireplane::deviceLines(u64 addr, u64 bytes, Cycle at, bool write, bool timed,
                            std::vector<DeviceLineTimes>* times) {
  (void)addr;
  (void)bytes;
  (void)at;
  (void)write;
  (void)timed;
  (void)times;
}

void Fireplane::visitCoreTraffic(u32 core, stats::Visitor& v) const {
  const CoreTrafficStats& t = traffic_[core];
  v.counter("ecache_reads", t.l2_reads, probe::describe(Event::kCoreL2Reads));
  v.counter("ecache_writes", t.l2_writes, probe::describe(Event::kCoreL2Writes));
  v.counter("ecache_hits", t.l2_hits, probe::describe(Event::kCoreL2Hits));
  v.counter("ecache_misses", t.l2_misses, probe::describe(Event::kCoreL2Misses));
  v.counter("ecache_atomics", t.l2_atomics, probe::describe(Event::kCoreL2Atomics));
  v.counter("memory_reads", t.ddr_reads, probe::describe(Event::kCoreDdrReads));
  v.counter("memory_writes", t.ddr_writes, probe::describe(Event::kCoreDdrWrites));
}

void Fireplane::visitSharedStats(stats::Visitor& v) const {
  visitServers(v, stat::kEcaches, "memory_controllers");
  v.group("bus", bus_stats_);
}

}  // namespace hpm::mem
