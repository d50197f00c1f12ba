// Counting from statistics (docs/architecture.md, "Counting from statistics"): counters that
// count plainly take their counts from the models' statistics at their window ends.
#include <algorithm>
#include <numeric>

#include "node/monitor_impl.h"

namespace hpm {

using probe::Event;

bool Monitor::Impl::tallyable(const Target& t) const {
  if (!count_from_statistics || !batchable[t.id] || !interestedIn(t)) return false;
  if (visitsOf(t).empty()) return false;  // no periodic windows
  const std::vector<u32>& feeds = target_feeds[t.id];
  if (feeds.empty()) return false;
  for (u32 f : feeds) {
    const probe::Bus::TallyKind kind = bus.tallyKind(f);
    if (kind == probe::Bus::TallyKind::kNone || traces.contains(f)) return false;
    // A level signal is one feed: the thread's own.
    if (kind == probe::Bus::TallyKind::kLevel && (feeds.size() != 1 || !bus.levelSource())) {
      return false;
    }
  }
  return true;
}

void Monitor::Impl::rebuildTallies(Cycle now) {
  if (!count_from_statistics) return;
  for (Tally& k : tallies) applySwept(k);
  // Window ends: the visits of the counters counting each target, over the least common
  // multiple of their periods (one round of every unit's visits).
  std::vector<u8> wanted(target_of.size(), 0);
  Cycle period = 1;
  for (const Target& t : target_of) {
    if (!tallyable(t)) continue;
    wanted[t.id] = 1;
    for (const pmu::CounterUnit::Windows& v : visitsOf(t)) period = std::lcm(period, v.period);
  }
  // (Periods that do not fit one schedule of a reasonable size count from events.)
  constexpr Cycle kMaxPeriod = Cycle{1} << 24;
  if (period > kMaxPeriod) std::fill(wanted.begin(), wanted.end(), 0);

  const probe::LevelSource* src = bus.levelSource();
  std::vector<Tally> next;
  std::vector<probe::TallyTerm> next_terms;
  std::vector<u32> next_of(target_of.size(), kNoTally);
  std::vector<u32> fresh;  // the new ones
  for (const Target& t : target_of) {
    const u32 old = tally_of[t.id];
    if (!wanted[t.id]) {
      // A level tally that ends while its counter counts on from published events: the part
      // of the thread's last lump after `now` was published before and is not again.
      if (old != kNoTally && tallies[old].level != Event::kCount && tallies[old].running &&
          interestedIn(t)) {
        Tally& k = tallies[old];
        const auto [x, y] = src->levelInLastLump(k.level, k.thread);
        if (y > std::max(x, now)) tallyLevel(k, std::max(x, now), y);
      }
      continue;
    }
    Tally k = old != kNoTally ? tallies[old] : Tally{};
    k.id = t.id;
    k.terms_begin = static_cast<u32>(next_terms.size());
    k.version = bus.tallyVersion(target_feeds[t.id].front());
    k.version_core = bus.tallyVersionCore(target_feeds[t.id].front());
    for (u32 f : target_feeds[t.id]) {
      if (bus.tallyVersion(f) != k.version) k.version = nullptr;
      if (bus.tallyKind(f) == probe::Bus::TallyKind::kLevel) {
        const auto [event, thread] = bus.eventOf(f);
        k.level = event;
        k.thread = thread;
      } else {
        for (const probe::TallyTerm& term : bus.tally(f)) next_terms.push_back(term);
      }
    }
    k.terms_end = static_cast<u32>(next_terms.size());
    // (The next window goes to the unit as a pulse: the selections may have changed.)
    k.chained = false;
    k.local_limit = unitOf(t).bulkLimit(t.port, t.event);
    k.sweepable = k.local_limit != 0;
    // New ones, and ones whose unit started (the host programs before setRunning would say),
    // start counting now.
    if (old == kNoTally || (slots[t.slot].running && !k.running)) {
      fresh.push_back(static_cast<u32>(next.size()));
    }
    k.running = slots[t.slot].running;
    next_of[t.id] = static_cast<u32>(next.size());
    next.push_back(k);
  }
  tallies = std::move(next);
  tally_terms = std::move(next_terms);
  tally_of = std::move(next_of);
  for (u32 ti : fresh) rebase(tallies[ti], now);

  tally_period = period;
  buildSchedule(now);
  for (Tally& k : tallies) {
    if (k.gap) markGap(k);
  }
}

void Monitor::Impl::buildSchedule(Cycle now) {
  // Every running tally's window ends over one common period, and each thread's level
  // tallies' (its catch-up after lagging); runs of entries sharing a core's version.
  all_entries.clear();
  tallying = std::any_of(tallies.begin(), tallies.end(), [](const Tally& k) { return k.running; });
  for (Schedule& ts : thread_schedules) ts = Schedule{};
  for (auto& list : thread_tallies) list.clear();
  for (u32 ti = 0; ti < tallies.size(); ++ti) {
    const Tally& k = tallies[ti];
    if (!k.running) continue;
    const bool level = k.level != Event::kCount;
    if (level) thread_tallies[k.thread].push_back(ti);
    for (const pmu::CounterUnit::Windows& v : visitsOf(target_of[k.id])) {
      for (Cycle c = v.first % v.period; c < tally_period; c += v.period) {
        all_entries.push_back(Entry{static_cast<u32>(c), ti});
        if (level) thread_schedules[k.thread].entries.push_back(Entry{static_cast<u32>(c), ti});
      }
    }
  }
  std::sort(all_entries.begin(), all_entries.end());
  runs.clear();
  for (Entry& e : all_entries) {
    const Tally& k = tallies[e.tally];
    if (runs.empty() || k.version == nullptr || runs.back().version != k.version) {
      runs.push_back(Run{});
      runs.back().version = k.version;
      runs.back().core = k.version_core;
    }
    Run& r = runs.back();
    if (k.level != Event::kCount &&
        std::find(r.threads.begin(), r.threads.end(), k.thread) == r.threads.end()) {
      r.threads.push_back(k.thread);
    }
    e.run = static_cast<u32>(runs.size() - 1);
  }
  std::fill(dormant.begin(), dormant.end(), 0);
  tallied_through = std::max(tallied_through, now);
  for (u32 h = 0; h < thread_schedules.size(); ++h) {
    Schedule& ts = thread_schedules[h];
    ts.period = tally_period;
    std::sort(ts.entries.begin(), ts.entries.end());
    lag_from[h] = kNever;
  }
  activate();
}

void Monitor::Impl::activate() {
  // The schedule walks the entries of the runs that are awake, from after tallied_through.
  schedule.entries.clear();
  schedule.period = tally_period;
  for (Run& r : runs) r.first = r.last = kNoRun;
  for (const Entry& e : all_entries) {
    Run& r = runs[e.run];
    if (r.dormant) continue;
    const u32 at = static_cast<u32>(schedule.entries.size());
    if (r.first == kNoRun) r.first = at;
    r.last = at;
    // (A run whose version any core may change never sleeps, and a tally's own version check
    // costs less than the run's walk: its entries are passed plainly.)
    const bool plain = r.version == nullptr || r.core == probe::Bus::kAnyCore;
    const Tally& k = tallies[e.tally];
    schedule.entries.push_back(
        Entry{e.offset, e.tally, plain ? kPlainRun : e.run,
              k.terms_end > k.terms_begin ? tally_terms[k.terms_begin].value : nullptr});
  }
  open_run = kNoRun;
  schedule.seekAfter(tallied_through);
  tally_due = schedule.due();
}

void Monitor::Impl::wake(u32 thread) {
  const u32 core = thread / machine.node.threads_per_core;
  for (Run& r : runs) {
    if (r.core == core) r.dormant = false;
  }
  for (u32 t = 0; t < machine.node.threads_per_core; ++t) {
    dormant[core * machine.node.threads_per_core + t] = 0;
  }
  activate();
}

void Monitor::Impl::setRunning(u32 slot, bool running, Cycle now) {
  bool changed = false;
  for (Tally& k : tallies) {
    if (target_of[k.id].slot != slot || k.running == running) continue;
    k.running = running;
    changed = true;
    if (running) rebase(k, now);
  }
  if (changed) buildSchedule(now);
}

void Monitor::Impl::applySwept(Tally& k) {
  const Target& target = target_of[k.id];
  if (k.swept.windows != 0) {
    unitOf(target).bulkWindows(target.port, target.event, k.swept);
    last_start[k.id] = k.swept.last_end - 1;
    slots[target.slot].horizon = std::max(slots[target.slot].horizon, k.swept.last_end);
    tally_windows += k.swept.windows;
    k.swept = {};
  }
  if (k.held != 0) {
    const u64 held = k.held;
    k.held = 0;
    tallyPulse(k, k.held_visit - 1, held);
  }
}

void Monitor::Impl::tallyPulse(Tally& k, Cycle at, u64 count) {
  // Applied in time order, and never before an access already made (as Monitor::pulse does).
  k.chained = false;
  const Target& target = target_of[k.id];
  at = std::max({at, last_start[k.id], unitNow(target.slot)});
  last_start[k.id] = at;
  slots[target.slot].horizon = std::max(slots[target.slot].horizon, at + 1);
  ++tally_windows;
  deliverPulse(target, at, count);
}

void Monitor::Impl::tallyLevel(Tally& k, Cycle t0, Cycle t1) {
  applySwept(k);
  k.chained = false;
  // As Monitor::level: a start before an access already made moves to it, with the same length.
  const Target& target = target_of[k.id];
  const Cycle start = std::max({t0, last_start[k.id], unitNow(target.slot)});
  if (start != t0) ++shifted_inputs;
  last_start[k.id] = start;
  slots[target.slot].horizon = std::max(slots[target.slot].horizon, start + 1);
  deliverLevel(target, start, start + (t1 - t0));
  k.level_until = std::max(k.level_until, start + (t1 - t0));
}

inline void Monitor::Impl::scheduleEntry(u32 ti, Cycle v) {
  Tally& k = tallies[ti];
  if (!k.running) return;
  if (k.level == Event::kCount) {
    tallyWindow(k, v);
    return;
  }
  // The thread's last lump began before v (its instructions so far issued before v): once its
  // clock has passed v, the cycles before v are known.
  const u32 h = k.thread;
  if (lag_from[h] != kNever) return;  // its windows wait for its clock
  if (bus.levelSource()->levelClock(h) >= v) {
    tallyWindow(k, v);
  } else {
    lag_from[h] = v;
  }
}

// (Inlined into Monitor::advanceTallies, which the driver calls every few instructions.)
[[gnu::always_inline]] inline void Monitor::Impl::advanceTallies(Cycle now) {
  Schedule& s = schedule;
  if (s.due() <= now && now - s.due() >= s.period) {
    // No instruction issued for more than a round of windows (every thread waited): after one
    // round every window is empty, but for the level events of a thread whose clock is ahead.
    const Cycle round_end = s.due() + s.period;
    while (s.due() < round_end) {
      scheduleEntry(s.tally(), s.due());
      s.step();
    }
    const probe::LevelSource* src = bus.levelSource();
    for (u32 h = 0; h < thread_schedules.size(); ++h) {
      Schedule& ts = thread_schedules[h];
      if (ts.entries.empty() || lag_from[h] != kNever) continue;
      const Cycle clock = src->levelClock(h);
      ts.seekAfter(round_end - 1);
      for (; ts.due() <= now; ts.step()) {
        if (ts.due() > clock) {
          lag_from[h] = ts.due();
          break;
        }
        tallyWindow(tallies[ts.tally()], ts.due());
      }
    }
    s.seekAfter(now);
    open_run = kNoRun;
  }
  // (Entries of runs passed plainly, most of them, without passEntry's frame.)
  for (Cycle due = s.due(); due <= now; due = s.due()) {
    if (s.entries[s.cursor].run == kPlainRun) {
      scheduleEntry(s.tally(), due);
      s.step();
    } else {
      passEntry();
    }
  }
  tallied_through = std::max(tallied_through, now);
  tally_due = s.due();
  // (The next call usually passes one or two entries.)
  for (u32 n = 0, i = s.cursor; n < 2 && n < s.entries.size(); ++n) {
    __builtin_prefetch(&tallies[s.entries[i].tally]);
    if (s.entries[i].hint != nullptr) __builtin_prefetch(s.entries[i].hint);
    if (++i == s.entries.size()) i = 0;
  }
  if (sleep_pending) {
    // Runs that fell asleep leave the schedule; their cores' threads wake them.
    sleep_pending = false;
    for (const Run& r : runs) {
      if (!r.dormant) continue;
      for (u32 t = 0; t < machine.node.threads_per_core; ++t) {
        dormant[r.core * machine.node.threads_per_core + t] = 1;
      }
    }
    activate();
  }
}

void Monitor::Impl::passEntry() {
  Schedule& s = schedule;
  const u32 i = s.cursor;
  const u32 ri = s.entries[i].run;
  Run& r = runs[ri];
  if (r.version != nullptr) {
    if (i == r.first) {
      open_run = ri;
      r.candidate = *r.version;
      r.skipping = r.candidate == r.seen && lagging(r);
    }
    if (r.skipping && open_run == ri && *r.version == r.seen) {
      if (i == r.last) {
        // A whole round without change since the last pass read it: asleep. (Runs whose
        // version any core may change, which no core's quiet could wake, are passed plainly.)
        open_run = kNoRun;
        r.dormant = true;
        sleep_pending = true;
      }
      s.step();
      return;
    }
    r.skipping = false;
  }
  scheduleEntry(s.tally(), s.due());
  if (r.version != nullptr && i == r.last) {
    if (open_run == ri && *r.version == r.candidate) r.seen = r.candidate;
    open_run = kNoRun;
  }
  s.step();
}

void Monitor::Impl::resolveLag(u32 h) {
  const probe::LevelSource* src = bus.levelSource();
  const Cycle from = lag_from[h];
  const Cycle clock = src->levelClock(h);
  if (from == kNever || clock < from) return;
  // The windows that ended while the clock lagged, up to where the schedule is (later ones are
  // the schedule's own). The thread's last lump holds all of them: it began before `from`.
  const Cycle end = std::min(clock, tallied_through);
  Schedule& ts = thread_schedules[h];
  bool gap = false;
  for (u32 ti : thread_tallies[h]) gap = gap || (tallies[ti].gap && tallies[ti].running);
  if (gap || end < from || end - from >= ts.period) {
    // A lump after an access the thread lagged behind, or longer than a round of windows (an
    // idle stretch): its intervals as they are (the units count long intervals in closed form).
    for (u32 ti : thread_tallies[h]) {
      if (tallies[ti].running) levelLump(tallies[ti]);
    }
    ts.seekAfter(clock);
  } else {
    for (ts.seekAfter(from - 1); ts.due() <= end; ts.step())
      tallyWindow(tallies[ts.tally()], ts.due());
  }
  lag_from[h] = ts.due() <= tallied_through ? ts.due() : kNever;
}

void Monitor::Impl::levelLump(Tally& k) {
  applySwept(k);
  const probe::LevelSource* src = bus.levelSource();
  const Cycle start = src->lastLumpStart(k.thread);
  const u64 before = tallyValue(k, start);
  if (before > k.last) tallyPulse(k, start == 0 ? 0 : start - 1, before - k.last);
  // (What was applied of the lump already: its first cycles of the event.)
  const u64 applied = k.last > before ? k.last - before : 0;
  const auto [x, y] = src->levelInLastLump(k.level, k.thread);
  if (y > x + applied) tallyLevel(k, x + applied, y);
  k.last = std::max(k.last, tallyValue(k, kNever));
  k.since = std::max(k.since, src->levelClock(k.thread));
  k.gap = false;
}

void Monitor::Impl::flushTallies(Cycle now, bool events_of_now) {
  if (tallies.empty()) return;
  if (now >= tally_due) advanceTallies(now);
  tallied_through = std::max(tallied_through, now);
  const probe::LevelSource* src = bus.levelSource();
  for (Tally& k : tallies) applySwept(k);
  // (`now` may be later than the instructions issued so far, when a poll comes from a thread
  // parked at its next issue cycle: what they count later is applied after it, as published
  // events are.)
  for (Tally& k : tallies) {
    if (!k.running) continue;
    if (k.level == Event::kCount) {
      // Every event so far: those of cycle `now` as well if some instruction of it issued (the
      // access then takes place after them, at the end of `now`, as with published events).
      const u64 value = pulseValue(k);
      if (value != k.last) tallyPulse(k, events_of_now || now == 0 ? now : now - 1, value - k.last);
      k.last = value;
      k.since = std::max(k.since, now);
      continue;
    }
    // The cycles before `now`, or before the clock of a thread that lags (the rest counts in
    // its next window, as an interval published late starts at the access).
    // (A thread whose clock ran ahead of `now` by its last instruction's cycles may have begun
    // a lump after `now` since: the cycles up to that lump's start are the nearest known.)
    const Cycle upto =
        std::max(std::min(now, src->levelClock(k.thread)), src->lastLumpStart(k.thread));
    const u64 value = tallyValue(k, upto);
    if (value > k.last) {
      tallyPulse(k, upto - 1, value - k.last);
      k.last = value;
    }
    k.since = std::max(k.since, now);
  }
  for (u32 h = 0; h < lag_from.size(); ++h) {
    if (lag_from[h] > now) continue;
    Schedule& ts = thread_schedules[h];
    ts.seekAfter(now);
    lag_from[h] = kNever;
  }
  for (Tally& k : tallies) {
    if (k.running && k.level != Event::kCount && src->levelClock(k.thread) < now) markGap(k);
  }
}

void Monitor::advanceTallies(Cycle now) {
  impl_->advanceTallies(now);
}

void Monitor::wake(u32 thread) {
  impl_->wake(thread);
}

const Cycle* Monitor::levelDue() const {
  return impl_->lag_from.data();
}

void Monitor::levelsReached(u32 thread) {
  impl_->resolveLag(thread);
}

}  // namespace hpm
