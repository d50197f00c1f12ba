#include "mem/snoop_filter.h"

#include <bit>

namespace hpm::mem {

using probe::describe;
using probe::Event;

void SnoopPortStats::visit(stats::Visitor& v) const {
  v.counter("requests", requests, describe(Event::kSnoopRequests));
  v.counter("cache_rejected", cache_rejected, describe(Event::kSnoopCacheRejected));
  v.counter("register_rejected", register_rejected, describe(Event::kSnoopRegisterRejected));
  v.counter("both_rejected", both_rejected, describe(Event::kSnoopBothRejected));
  v.counter("rejected", rejected, describe(Event::kSnoopRejected));
  v.counter("active_hits", active_hits, describe(Event::kSnoopActiveHits));
  v.counter("history_hits", history_hits, describe(Event::kSnoopHistoryHits));
  v.counter("cache_updates", cache_updates, describe(Event::kSnoopCacheUpdates));
}

SnoopFilter::SnoopFilter(const SnoopParams& p, u32 core, u32 ports)
    : core_(core), block_shift_(static_cast<u32>(std::countr_zero(p.lines_per_entry))) {
  ports_.resize(ports);
  for (Port& port : ports_) port.entries.assign(p.cache_entries, Entry{});
  active_.assign(p.stream_registers, Register{});
  history_.assign(p.stream_registers, Register{});
}

bool SnoopFilter::anyCovers(const std::vector<Register>& set, u64 line) {
  for (const Register& r : set) {
    if (r.covers(line)) return true;
  }
  return false;
}

SnoopFilter::Entry* SnoopFilter::find(Port& p, u64 line) {
  const u64 block = line >> block_shift_;
  if (p.in_use[block & 63] == 0) return nullptr;
  for (Entry& e : p.entries) {
    if (e.bits != 0 && e.block == block) return &e;
  }
  return nullptr;
}

bool SnoopFilter::snoop(u32 port, u64 line) {
  Port& p = ports_[port];
  SnoopPortStats& s = p.stats;
  const u32 source = core_ * ports() + port;
  probe::count(bus_, Event::kSnoopRequests, source, s.requests);
  const u64 bit = u64{1} << (line & ((u64{1} << block_shift_) - 1));
  Entry* entry = find(p, line);
  const bool cached = entry != nullptr && (entry->bits & bit) != 0;
  const bool active = anyCovers(active_, line);
  const bool history = anyCovers(history_, line);
  const bool unregistered = !active && !history;
  if (cached) probe::count(bus_, Event::kSnoopCacheRejected, source, s.cache_rejected);
  if (active) probe::count(bus_, Event::kSnoopActiveHits, source, s.active_hits);
  if (history) probe::count(bus_, Event::kSnoopHistoryHits, source, s.history_hits);
  if (unregistered) probe::count(bus_, Event::kSnoopRegisterRejected, source, s.register_rejected);
  if (cached && unregistered)
    probe::count(bus_, Event::kSnoopBothRejected, source, s.both_rejected);
  if (cached || unregistered) probe::count(bus_, Event::kSnoopRejected, source, s.rejected);
  if (!cached) {
    // After this snoop the line is in none of the core's caches (it was not, or the snoop
    // removes it): the port may reject its next snoop until the core loads it again.
    if (entry != nullptr) {
      entry->bits |= bit;
      entry->age = ++clock_;
      probe::count(bus_, Event::kSnoopCacheUpdates, source, s.cache_updates);
    } else {
      Entry* victim = &p.entries.front();
      for (Entry& e : p.entries) {
        if (e.bits == 0) {
          victim = &e;
          break;
        }
        if (e.age < victim->age) victim = &e;
      }
      if (victim->bits != 0) --p.in_use[victim->block & 63];
      *victim = Entry{line >> block_shift_, bit, ++clock_};
      ++p.in_use[victim->block & 63];
    }
  }
  return !cached && !unregistered;
}

u64 SnoopFilter::filled(u64 line) {
  const u64 bit = u64{1} << (line & ((u64{1} << block_shift_) - 1));
  for (Port& p : ports_) {
    Entry* e = find(p, line);
    if (e == nullptr || (e->bits & bit) == 0) continue;
    e->bits &= ~bit;
    if (e->bits == 0) --p.in_use[e->block & 63];
  }
  if (!anyCovers(active_, line)) {
    // A free register takes the line alone; else the one that loses the fewest mask bits grows.
    Register* best = nullptr;
    int best_kept = -1;
    for (Register& r : active_) {
      if (!r.valid) {
        best = &r;
        break;
      }
      const int kept = std::popcount(r.mask & ~(r.base ^ line));
      if (kept > best_kept) {
        best_kept = kept;
        best = &r;
      }
    }
    if (!best->valid) {
      *best = Register{line, ~u64{0}, true};
    } else {
      best->mask &= ~(best->base ^ line);
    }
  }
  ++live_current_;
  return epoch_;
}

void SnoopFilter::removed(u64 stamp) {
  if (stamp == epoch_) {
    --live_current_;
  } else if (stamp + 1 == epoch_) {
    --live_previous_;
  } else {
    return;  // (0: a line filled while the filter was not told)
  }
  wrapIfDone();
}

void SnoopFilter::wrapIfDone() {
  if (live_previous_ != 0 || live_current_ == 0) return;
  history_ = active_;
  for (Register& r : active_) r = Register{};
  live_previous_ = live_current_;
  live_current_ = 0;
  ++epoch_;
  probe::count(bus_, Event::kSnoopWraps, core_, wraps_);
}

void SnoopFilter::visit(stats::Visitor& v) const {
  v.beginGroup("snoop_filter");
  v.counter("wraps", wraps_, describe(Event::kSnoopWraps));
  v.beginList("ports");
  for (const Port& p : ports_) v.group("", p.stats);
  v.endList();
  v.endGroup();
}

}  // namespace hpm::mem
