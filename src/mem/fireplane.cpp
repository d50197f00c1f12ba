// The Fireplane organization of the memory system (memory_system.h; seed 004; docs/sunfire.md):
// each core's external cache (E$) is private, physically indexed and write-back, and the caches
// keep coherent by snooping MOESI transactions on one address bus.
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
// remote_latency when the home board is not the requester's) after the home memory controller
// starts the transfer, and its last data_cycles hold the requester board's data port (a later
// transfer through a busy port arrives when the port is free again; writebacks take the
// evicting board's port too). A hit in the E$ takes l2.hit_latency after its port is free.
#include <algorithm>

#include "mem/memory_system.h"

namespace hpm::mem {

using probe::Snoop;
using probe::TransactionType;

MemorySystem::SnoopOutcome MemorySystem::snoopOthers(u32 core, u64 l2line, bool own) {
  SnoopOutcome out;
  for (u32 c = 0; c < p_.cores; ++c) {
    if (c == core) continue;
    Cache& e = slices_[c].cache;
    const u32 slot = e.find(l2line);
    if (slot == Cache::kNone) continue;
    const u8 f = e.flags(slot);
    const bool dirty = (f & Cache::kDirty) != 0;
    if (dirty) {
      out.snoop = (f & Cache::kShared) != 0 ? Snoop::kOwned : Snoop::kModified;
      out.supplier = c;  // one CPU at most holds a line M or O (its hardware thread: one each)
    }
    if (own) {
      e.invalidate(slot);
      ++slice_versions_[c];
      ++bus_stats_.snoop_invalidations;
      invalidateCore(c, l2line);
    } else {
      e.setFlags(slot, static_cast<u8>(f | Cache::kShared));  // M -> O, E -> S
      out.others = true;
    }
  }
  if (!own && out.snoop == Snoop::kMemory && out.others) out.snoop = Snoop::kShared;
  return out;
}

Cycle MemorySystem::busSlot(Cycle p, bool timed, bool waits) {
  if (!timed) return p;
  const Cycle start = waits ? std::max(p, bus_free_) : p;
  bus_free_ = std::max(bus_free_, start) + p_.bus.address_cycles;
  bus_stats_.busy_cycles += p_.bus.address_cycles;
  return start;
}

Cycle MemorySystem::memoryLatency(u32 core, u64 l2line) const {
  return p_.ddr.latency + (remote(core, l2line) ? p_.bus.remote_latency : 0);
}

Cycle MemorySystem::dataPort(u32 board, Cycle arrival, bool timed, bool waits) {
  const u32 dc = p_.bus.data_cycles;
  if (!timed || dc == 0) return arrival;
  Cycle& free = data_free_[board];
  const Cycle earliest = arrival > dc ? arrival - dc : 0;  // the transfer's start, uncontended
  const Cycle start = waits ? std::max(earliest, free) : earliest;
  free = std::max(free, start) + dc;
  bus_stats_.data_busy_cycles += dc;
  return start + dc;
}

Cycle MemorySystem::busData(u32 core, u64 l2line, Cycle bstart, Snoop snoop, bool timed,
                            bool waits) {
  const u32 board = board_of_[core];
  if (snoop == Snoop::kOwned || snoop == Snoop::kModified) {
    ++bus_stats_.cache_to_cache;
    return dataPort(board, bstart + p_.bus.cache_to_cache_latency, timed, waits);
  }
  ++(remote(core, l2line) ? bus_stats_.memory_remote : bus_stats_.memory_local);
  requester_ = core;
  const Cycle dstart = ddrTransfer(l2line, bstart, false, timed);
  return dataPort(board, (waits ? dstart : bstart) + memoryLatency(core, l2line), timed, waits);
}

u32 MemorySystem::ecacheVictim(u32 core, u64 l2line, Cycle at, bool timed) {
  Slice& s = slices_[core];
  const u32 slot = s.cache.victim(l2line);
  if (!s.cache.valid(slot)) return slot;
  const u64 old = s.cache.tag(slot);
  ++s.stats.evictions;
  HPM_PROBE(bus_, kL2Evictions, core, 1);
  if ((s.cache.flags(slot) & Cache::kDirty) != 0) {
    ++s.stats.writebacks;
    HPM_PROBE(bus_, kL2Writebacks, core, 1);
    ++(remote(core, old) ? bus_stats_.writebacks_remote : bus_stats_.writebacks_local);
    const Cycle bstart = busSlot(at, timed, true);
    transaction(TransactionType::kWriteBack, old << l2_shift_, thread_, Snoop::kNone);
    requester_ = core;
    ddrTransfer(old, bstart, true, timed);
    // The line leaves through the board's data port: it delays the fills behind it, not the
    // eviction (the E$ holds it in a writeback buffer).
    dataPort(board_of_[core], bstart + p_.bus.data_cycles, timed, true);
  }
  if (invalidateCore(core, old)) {
    ++s.stats.back_invalidations;
    HPM_PROBE(bus_, kL2BackInvalidations, core, 1);
  }
  return slot;
}

Cycle MemorySystem::snoopRead(u32 core, u64 l2line, Cycle p, Source src, bool timed, Level* level) {
  Slice& s = slices_[core];
  // As on the crossbar, a fetch miss takes its latency uncontended (it was requested before the
  // issue that commits it) and only adds its occupancy.
  const bool waits = src != Source::kFetch;
  const Cycle start = readRequest(core, core, p, src, timed);
  CoreTrafficStats& traffic = traffic_stats_[core];
  u32 slot = s.cache.find(l2line);
  if (slot != Cache::kNone) {
    ++s.stats.hits;
    HPM_PROBE(bus_, kL2Hits, core, 1);
    ++traffic.l2_hits;
    HPM_PROBE(bus_, kCoreL2Hits, core, 1);
    s.cache.touch(slot);
    *level = Level::kL2;
    return timed ? std::max(start + p_.l2.hit_latency, s.cache.ready(slot)) : p;
  }
  ++s.stats.misses;
  HPM_PROBE(bus_, kL2Misses, core, 1);
  ++traffic.l2_misses;
  HPM_PROBE(bus_, kCoreL2Misses, core, 1);
  const SnoopOutcome o = snoopOthers(core, l2line, false);
  const Cycle bstart = busSlot(start, timed, waits);
  const bool fetch = src == Source::kFetch;
  transaction(fetch ? TransactionType::kReadToShareAlways : TransactionType::kReadToShare,
              l2line << l2_shift_, thread_, o.snoop, o.supplier);
  const Cycle data = busData(core, l2line, bstart, o.snoop, timed, waits);
  const Cycle ready = timed ? data : p;
  *level = (o.snoop == Snoop::kOwned || o.snoop == Snoop::kModified) ? Level::kPeer : Level::kDdr;
  slot = ecacheVictim(core, l2line, start, timed);
  s.cache.install(slot, l2line, ready);
  if (o.others || fetch) s.cache.setFlags(slot, Cache::kShared);
  return ready;
}

Cycle MemorySystem::snoopOwn(u32 core, u64 l2line, u32 bytes, Cycle p, Source src, bool timed) {
  Slice& s = slices_[core];
  const bool atomic = src == Source::kAtomic;
  CoreTrafficStats& traffic = traffic_stats_[core];
  Cycle start = p;
  if (atomic) {
    start = readRequest(core, core, p, src, timed);  // an atomic is a read at the E$
  } else {
    writeRequest(core, core, bytes, p, timed);
  }
  // An atomic's old value is read at the E$; a store is done once the line is owned.
  const Cycle use = atomic ? p_.l2.hit_latency : 0;
  u32 slot = s.cache.find(l2line);
  Cycle done;
  if (slot != Cache::kNone) {
    ++s.stats.hits;
    HPM_PROBE(bus_, kL2Hits, core, 1);
    if (atomic) {
      ++traffic.l2_hits;
      HPM_PROBE(bus_, kCoreL2Hits, core, 1);
    }
    s.cache.touch(slot);
    done = timed ? std::max(start + use, s.cache.ready(slot)) : p;
    if ((s.cache.flags(slot) & Cache::kShared) != 0) {
      // S or O: other copies may exist; the upgrade invalidates them (no data moves).
      snoopOthers(core, l2line, true);
      const Cycle bstart = busSlot(start, timed, true);
      transaction(TransactionType::kReadToOwnUpgrade, l2line << l2_shift_, thread_, Snoop::kNone);
      if (timed) done = std::max(done, bstart + p_.bus.address_cycles + use);
    }
  } else {
    ++s.stats.misses;
    HPM_PROBE(bus_, kL2Misses, core, 1);
    ++traffic.l2_misses;
    HPM_PROBE(bus_, kCoreL2Misses, core, 1);
    const SnoopOutcome o = snoopOthers(core, l2line, true);
    const Cycle bstart = busSlot(start, timed, true);
    transaction(TransactionType::kReadToOwn, l2line << l2_shift_, thread_, o.snoop, o.supplier);
    const Cycle ready = busData(core, l2line, bstart, o.snoop, timed, true);
    done = timed ? ready : p;
    slot = ecacheVictim(core, l2line, start, timed);
    s.cache.install(slot, l2line, done);
  }
  s.cache.setFlags(slot, Cache::kDirty);  // M
  // An atomic updates the line in the E$: the core's own L1 copies are stale (as on the
  // crossbar, where it is performed at the L2).
  if (atomic) invalidateCore(core, l2line);
  return done;
}

Cycle MemorySystem::snoopProbe(u32 core, u64 l2line, Cycle p) const {
  const Cache& e = slices_[core].cache;
  const u32 slot = e.find(l2line);
  if (slot != Cache::kNone) return std::max(p + p_.l2.hit_latency, e.ready(slot));
  for (u32 c = 0; c < p_.cores; ++c) {
    if (c == core) continue;
    const Cache& o = slices_[c].cache;
    const u32 other = o.find(l2line);
    if (other != Cache::kNone && (o.flags(other) & Cache::kDirty) != 0) {
      return p + p_.bus.cache_to_cache_latency;
    }
  }
  return p + memoryLatency(core, l2line);
}

}  // namespace hpm::mem
