#include "node/monitor.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "base/error.h"
#include "node/monitor_impl.h"
#include "node/run_modes.h"

namespace hpm {

void Monitor::Impl::route() {
  std::vector<std::vector<Target>> by_input(bus.inputs());
  reference.assign(bus.inputs(), 0);
  level_input.assign(bus.inputs(), 0);
  level_end.assign(bus.inputs(), 0);
  std::map<std::tuple<u32, u32, u32>, u32> ids;
  for (const NativeEvent& e : catalogue) {
    for (const NativeEvent::Instance& inst : e.instances) {
      for (u32 f : inst.feeds) level_input[f] |= e.kind == probe::Kind::kLevel ? 1 : 0;
      const auto key = std::make_tuple(inst.unit, inst.port, e.input);
      auto [it, fresh] = ids.emplace(key, static_cast<u32>(ids.size()));
      const Target target{inst.unit, inst.port, e.input, it->second};
      if (fresh) target_of.push_back(target);
      // (Events that name the same unit input, as the L2 unit's combined and sliced ones, route
      // each feed to it once.)
      for (u32 f : inst.feeds) {
        if (std::none_of(by_input[f].begin(), by_input[f].end(),
                         [&](const Target& t) { return t.id == target.id; })) {
          by_input[f].push_back(target);
        }
      }
    }
  }
  route_begin.assign(1, 0);
  for (const std::vector<Target>& list : by_input) {
    targets.insert(targets.end(), list.begin(), list.end());
    route_begin.push_back(static_cast<u32>(targets.size()));
  }
  target_feeds.assign(ids.size(), {});
  for (u32 f = 0; f < bus.inputs(); ++f) {
    for (u32 r = route_begin[f]; r < route_begin[f + 1]; ++r)
      target_feeds[targets[r].id].push_back(f);
  }
  tally_of.assign(ids.size(), kNoTally);
  input_tallied.assign(bus.inputs(), 0);
  input_base.assign(bus.inputs(), 0);
  lag_from.assign(bus.topology().threads, kNever);
  thread_schedules.assign(bus.topology().threads, Schedule{});
  thread_tallies.assign(bus.topology().threads, {});
  last_start.assign(ids.size(), 0);
  level_until.assign(ids.size(), 0);
  given.assign(ids.size(), 0);
  batches.assign(ids.size(), Batch{});
  batchable.assign(ids.size(), 0);
  // The bus may keep the batches of an input that is the only feed of its only target (a
  // target fed by several inputs needs its inputs in time order across them).
  feeders.assign(ids.size(), 0);
  for (const Target& t : targets) ++feeders[t.id];
  group_sum.assign(ids.size(), 0);
  group_last.assign(ids.size(), 0);
  group_of.assign(bus.inputs(), kNoGroup);
  bus_pulse_batch.assign(bus.inputs(), 0);
  bus_pulse_target.assign(bus.inputs(), 0);
  bus_level_batch.assign(bus.inputs(), 0);
  bus_level_target.assign(route_begin.begin(), route_begin.end() - 1);
  bus_count_level.assign(bus.inputs(), 0);
  bus_open.assign(bus.inputs(), 0);
  for (u32 f = 0; f < bus.inputs(); ++f) {
    bus_level_batch[f] = route_begin[f + 1] == route_begin[f] + 1 && levelBatchable(route_begin[f]);
  }
}

bool Monitor::Impl::levelBatchable(u32 route) const {
  const Target& t = targets[route];
  return !unitOf(t).ordered() && feeders[t.id] == 1;
}

void Monitor::Impl::refreshBatching(Cycle now) {
  for (const Target& t : target_of) batchable[t.id] = batchableTarget(t);
  rebuildTallies(now);
  // Targets counted from statistics take no published events.
  interested.resize(target_of.size());
  for (const Target& t : target_of)
    interested[t.id] = interestedIn(t) && tally_of[t.id] == kNoTally;
  // The bus keeps the pulse batches of an input with one interested target (a unit ignores the
  // pulses of events no counter selects), which no other input feeds, or whose every feed has
  // it as its only interested target: those feeds' batches then share one window (Monitor::
  // pulse) and are applied together, as one pulse at the last one's cycle.
  std::vector<u32> interested_targets(bus.inputs(), 0);
  for (u32 f = 0; f < bus.inputs(); ++f) {
    for (u32 r = route_begin[f]; r < route_begin[f + 1]; ++r) {
      if (!interested[targets[r].id]) continue;
      ++interested_targets[f];
      bus_pulse_target[f] = r;
    }
  }
  // The groups: connected sets of pulse inputs and interested targets (through the routes).
  groups.clear();
  group_of.assign(bus.inputs(), kNoGroup);
  std::vector<std::vector<u32>> feeds_of(target_of.size());  // interested targets' inputs
  for (u32 f = 0; f < bus.inputs(); ++f) {
    for (u32 r = route_begin[f]; r < route_begin[f + 1]; ++r) {
      if (interested[targets[r].id]) feeds_of[targets[r].id].push_back(f);
    }
  }
  std::vector<u8> seen(bus.inputs(), 0), seen_target(target_of.size(), 0);
  for (u32 f0 = 0; f0 < bus.inputs(); ++f0) {
    if (seen[f0] || interested_targets[f0] == 0) continue;
    Group g;
    bool ok = true;
    std::vector<u32> todo = {f0};
    seen[f0] = 1;
    while (!todo.empty()) {
      const u32 f = todo.back();
      todo.pop_back();
      g.inputs.push_back(f);
      ok = ok && !level_input[f] && !traces.contains(f);
      for (u32 r = route_begin[f]; r < route_begin[f + 1]; ++r) {
        const u32 id = targets[r].id;
        if (!interested[id]) continue;
        g.targets.push_back(r);
        ok = ok && batchable[id] && !unitOf(targets[r]).ordered();
        if (seen_target[id]) continue;
        seen_target[id] = 1;
        for (u32 h : feeds_of[id]) {
          if (seen[h]) continue;
          seen[h] = 1;
          todo.push_back(h);
        }
      }
    }
    if (!ok || (g.inputs.size() == 1 && g.targets.size() == 1)) continue;
    for (u32 f : g.inputs) group_of[f] = static_cast<u32>(groups.size());
    groups.push_back(std::move(g));
  }
  for (u32 f = 0; f < bus.inputs(); ++f) {
    const u32 count = interested_targets[f];
    const Target& t = targets[bus_pulse_target[f]];
    // (A traced input's pulses keep their cycles.)
    bus_pulse_batch[f] =
        group_of[f] != kNoGroup || (count == 1 && !unitOf(t).ordered() && feeders[t.id] == 1 &&
                                    batchable[t.id] && !traces.contains(f));
    // A level input of several targets: the bus keeps its batches when one of them is
    // interested (the rest ignore its intervals) and could have them (its only feed). (Called
    // with no batch open: every access takes the bus's batches first.)
    if (route_begin[f + 1] > route_begin[f] + 1) {
      bus_level_batch[f] = count == 1 && levelBatchable(bus_pulse_target[f]);
      bus_level_target[f] = bus_pulse_target[f];
      // (A count batch takes only intervals after those the target has had.)
      level_end[f] = std::max(level_end[f], level_until[targets[bus_level_target[f]].id]);
    }
    // A level-high counter's level interval is one occurrence per cycle: those of the cycles
    // of a window (no visit of the counter in between) may be applied as one pulse, as the
    // pulses of an input are (a traced input's intervals stay intervals).
    const Target& only = targets[bus_level_target[f]];
    bus_count_level[f] = level_input[f] && bus_level_batch[f] && batchable[only.id] &&
                         interested[only.id] && !traces.contains(f);
  }
}

void Monitor::Impl::takeGroup(u32 gi) {
  Group& g = groups[gi];
  g.until = 0;
  bool any = false;
  for (u32 f : g.inputs) {
    const probe::Bus::PulseBatch p = bus.takePulseBatch(f);
    if (p.count == 0) continue;
    any = true;
    reference[f] += p.count;
    for (u32 r = route_begin[f]; r < route_begin[f + 1]; ++r) {
      const u32 id = targets[r].id;
      if (!interested[id]) continue;
      group_sum[id] += p.count;
      group_last[id] = std::max(group_last[id], p.last);
    }
  }
  if (!any) return;
  // Each target's pulses of the window as one, at the last one's cycle (as Monitor::pulse's own
  // batches apply them).
  for (u32 r : g.targets) {
    const Target& target = targets[r];
    const u32 id = target.id;
    if (group_sum[id] == 0) continue;
    const Cycle at = std::max({group_last[id], last_start[id], unitNow(target.slot)});
    last_start[id] = at;
    slots[target.slot].horizon = std::max(slots[target.slot].horizon, at + 1);
    deliverPulse(target, at, group_sum[id]);
    group_sum[id] = 0;
    group_last[id] = 0;
  }
}

void Monitor::Impl::takeBusBatches(u32 input) {
  if (group_of[input] != kNoGroup) takeGroup(group_of[input]);  // (with the group's others)
  const probe::Bus::PulseBatch p = bus.takePulseBatch(input);
  if (p.count != 0 && level_input[input]) {
    // A count batch (Monitor::level): its intervals but the last run of abutting ones are
    // applied as one pulse, that run as an interval, so that the unit is left as the intervals
    // one by one leave it (the last run pending, its start the horizon; the unit merges
    // abutting intervals). Opened unshifted, with no access since.
    const Target& target = targets[bus_level_target[input]];
    reference[input] += p.count;
    const u64 tail = p.last + 1 - p.tail;
    if (p.count > tail) deliverPulse(target, p.before_tail, p.count - tail);
    last_start[target.id] = p.tail;
    slots[target.slot].horizon = std::max(slots[target.slot].horizon, p.tail + 1);
    level_end[input] = std::max(level_end[input], p.last + 1);
    deliverLevel(target, p.tail, p.last + 1);
  } else if (p.count != 0) {
    const Target& target = targets[bus_pulse_target[input]];
    reference[input] += p.count;
    tracePulse(input, p.last, p.count);
    const Cycle at = std::max({p.last, last_start[target.id], unitNow(target.slot)});
    last_start[target.id] = at;
    slots[target.slot].horizon = std::max(slots[target.slot].horizon, at + 1);
    deliverPulse(target, at, p.count);
  }
  const probe::Bus::LevelBatch l = bus.takeLevelBatch(input);
  if (l.open) {
    const Target& target = targets[bus_level_target[input]];
    // Opened unshifted (Monitor::level): its start is past the unit's last access.
    reference[input] += l.total;
    level_end[input] = std::max(level_end[input], l.end);
    traceLevel(input, l.start, l.end);
    deliverLevel(target, l.start, l.end);
  }
}

void Monitor::Impl::deliverPulse(const Target& target, Cycle at, u64 count) {
  ++unit_pulses;
  given[target.id] = std::max(given[target.id], at);
  unitOf(target).pulse(target.port, target.event, at, count);
}

void Monitor::Impl::deliverLevel(const Target& target, Cycle t0, Cycle t1) {
  // An interval that overlaps one given before (only an interval moved later by an access, as
  // Monitor::level and tallyLevel move a late one, can) would count its overlap once: the unit
  // takes overlapping intervals of an input as one signal. A counter that counts plainly takes
  // the overlap's cycles as pulses instead, in the windows they fall in, so that every cycle
  // counts once (docs/counters.md, "Level events read during a run").
  Cycle& until = level_until[target.id];
  if (t0 < until && unitOf(target).plainCounting(target.port, target.event)) {
    const Cycle mid = std::min(t1, until);
    for (Cycle a = t0; a < mid;) {
      const Cycle b = std::min(mid, windowEnd(target, a));
      // At the piece's first cycle, in its window, never before what the unit has of the input
      // already (an access may have counted the earlier interval past it). (Not after
      // last_start: that is where the latest interval to arrive starts, which is far past this
      // one when this is a batch of abutting intervals applied at once.)
      const Cycle at = std::max({a, given[target.id], unitNow(target.slot)});
      last_start[target.id] = std::max(last_start[target.id], at);
      Cycle& horizon = slots[target.slot].horizon;
      horizon = std::max(horizon, at + 1);
      deliverPulse(target, at, b - a);
      a = b;
    }
    // The rest, after the overlap, with its length (moved later as well if the pulses were).
    const Cycle rest = t1 - mid;
    t0 = std::max({mid, given[target.id], unitNow(target.slot)});
    t1 = t0 + rest;
  }
  if (t1 <= t0) return;
  until = std::max(until, t1);
  given[target.id] = std::max(given[target.id], t0);
  ++unit_levels;
  unitOf(target).level(target.port, target.event, t0, t1);
}

void Monitor::Impl::flushBatch(u32 id) {
  Batch& b = batches[id];
  if (b.count != 0) {
    deliverPulse(target_of[id], b.last, b.count);
    b.count = 0;
  }
  if (b.level_end > b.level_start) {
    deliverLevel(target_of[id], b.level_start, b.level_end);
    b.level_start = b.level_end = 0;
  }
  b.dirty = false;
}

// ---- Counting from statistics ----------------------------------------------------------------

void Monitor::Impl::refreshInterest() {
  // A unit that is not counting wants nothing (after reset every counter selects input 0 of its
  // bank, but counting is stopped): events reach a unit only while it runs.
  for (Slot& s : slots) s.interest_epoch = s.unit->interestEpoch();
  transaction_slots.clear();
  for (u32 s = 0; s < slots.size(); ++s) {
    if (slots[s].unit->wantsTransactions()) transaction_slots.push_back(s);
  }
  bus.setTransactionsWanted(recording || !transaction_slots.empty());
  for (u32 f = 0; f + 1 < route_begin.size(); ++f) {
    bool wanted = false;
    bool tallied = false;
    for (u32 r = route_begin[f]; r < route_begin[f + 1]; ++r) {
      const Target& t = targets[r];
      if (!slots[t.slot].running) continue;
      if (tally_of[t.id] != kNoTally) {
        tallied = true;
        continue;
      }
      wanted = wanted || interestedIn(t);
    }
    bus.setWanted(f, wanted);
    bus.setTallyActive(f, tallied);
    // The reference of an input counted from statistics only is the statistic's growth.
    const bool reference_tallied = tallied && !wanted;
    if (reference_tallied != (input_tallied[f] != 0)) {
      const u64 value =
          bus.tallyKind(f) == probe::Bus::TallyKind::kTerms
              ? bus.tallyValue(f)
              : bus.levelSource()->levelBefore(bus.eventOf(f).first, bus.eventOf(f).second, kNever);
      if (reference_tallied) {
        input_base[f] = value;
      } else {
        reference[f] += value - input_base[f];
      }
      input_tallied[f] = reference_tallied ? 1 : 0;
    }
  }
}

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------

Monitor::Monitor(const MachineConfig& machine, probe::Bus& bus, Kernel& kernel,
                 bool count_from_statistics, const std::vector<UnitFamily>& families)
    : impl_(std::make_unique<Impl>(machine, bus, kernel, tally_due_, dormant_, tallying_)) {
  Impl& m = *impl_;
  dormant_.assign(bus.topology().threads, 0);
  m.count_from_statistics =
      count_from_statistics && machine.monitor.counting == Counting::kStatistics;
  m.poll_cycles = machine.monitor.poll_cycles;
  if (!machine.monitor.none()) {
    auto it = std::find_if(families.begin(), families.end(), [&](const UnitFamily& f) {
      return f.beside == nullptr && f.name == machine.monitor.unit;
    });
    if (it == families.end()) {
      fail(ExitCode::kConfig, "monitor.unit: no unit family '{}'", machine.monitor.unit);
    }
    m.attach(*it);
    m.attachTruth();
  }
  // Companions (the interconnect monitor) go beside the unit, or alone (sunfire has no unit).
  for (const UnitFamily& f : families) {
    if (f.beside != nullptr && f.beside(machine)) m.attach(f);
  }
  for (NativeEvent& e : m.catalogue) e.run_modes = runModesOf(e, bus);
  m.route();
  // Interrupts are collected as the units raise them and delivered by poll().
  for (u32 s = 0; s < m.slots.size(); ++s) {
    m.slots[s].unit->onInterrupt([&m, s](u32 counter, Cycle cycle) {
      m.pending.push_back({s, counter, cycle});
    });
    m.slots[s].running = m.slots[s].unit->running();
  }
  m.refreshBatching(0);
  bus.setSink(this);
  m.refreshInterest();
  kernel.addDeviceProvider(this);
}

Monitor::~Monitor() = default;

const UnitFamily* Monitor::family() const {
  return impl_->family ? &*impl_->family : nullptr;
}

const std::vector<std::unique_ptr<pmu::CounterUnit>>& Monitor::units() const {
  return impl_->units;
}

void Monitor::pulse(u32 input, Cycle t, u64 count) {
  Impl& m = *impl_;
  ++m.pulses;
  if (m.bus_pulse_batch[input]) {
    // The bus's batch of this input ended (a visit of the counter came) or none was open: apply
    // it, and let the bus add up the pulses until the counter's next visit.
    const Impl::Target& target = m.targets[m.bus_pulse_target[input]];
    if (m.group_of[input] != Impl::kNoGroup) {
      // The group's batches share the window of its first pulse (the first visit after it of
      // any of the group's counters). This input has none open: open one in the window, or,
      // past it, apply the window's batches and open the next window.
      Impl::Group& g = m.groups[m.group_of[input]];
      if (t >= g.until) m.takeGroup(m.group_of[input]);
      if (g.until == 0) {
        g.until = ~Cycle{0};
        for (u32 r : g.targets) {
          const Impl::Target& u = m.targets[r];
          const Cycle at = std::max({t, m.last_start[u.id], m.unitNow(u.slot)});
          g.until = std::min(g.until, m.windowEnd(u, at));
        }
      }
      m.bus.openPulseBatch(input, count, g.until);
      m.noteOpen(input);
      return;
    }
    m.takeBusBatches(input);
    const Cycle at = std::max({t, m.last_start[target.id], m.unitNow(target.slot)});
    m.bus.openPulseBatch(input, count, m.windowEnd(target, at));
    m.noteOpen(input);
    return;
  }
  m.reference[input] += count;
  m.tracePulse(input, t, count);
  for (u32 r = m.route_begin[input]; r < m.route_begin[input + 1]; ++r) {
    const Impl::Target& target = m.targets[r];
    if (!m.interested[target.id]) continue;  // the unit would ignore it
    // Keep each unit input in time order (see level()); pulses come in cycle order already.
    const Cycle at = std::max({t, m.last_start[target.id], m.unitNow(target.slot)});
    m.last_start[target.id] = at;
    Cycle& horizon = m.slots[target.slot].horizon;
    horizon = std::max(horizon, at + 1);
    if (!m.batchable[target.id]) {
      m.deliverPulse(target, at, count);
      continue;
    }
    Impl::Batch& b = m.batches[target.id];
    if (b.count != 0 && at >= b.until) m.flushBatch(target.id);  // a visit in between
    if (b.count == 0) b.until = m.windowEnd(target, at);
    b.count += count;
    b.last = at;
    if (!b.dirty) {
      b.dirty = true;
      m.dirty.push_back(target.id);
    }
  }
}

void Monitor::transaction(const probe::Transaction& t) {
  Impl& m = *impl_;
  if (m.recording) m.recorded.push_back(t);
  for (u32 s : m.transaction_slots) m.slots[s].unit->transaction(t);
}

void Monitor::recordTransactions() {
  impl_->recording = true;
  impl_->refreshInterest();
}

const std::vector<probe::Transaction>& Monitor::recordedTransactions() const {
  return impl_->recorded;
}

void Monitor::level(u32 input, Cycle t0, Cycle t1) {
  Impl& m = *impl_;
  ++m.levels;
  if (m.bus_level_batch[input]) {
    const Impl::Target& target = m.targets[m.bus_level_target[input]];
    const probe::Bus::PulseBatch& open = m.bus.pulseBatch(input);
    if (m.level_input[input] && open.count != 0 && t0 == open.last + 1) {
      // It abuts the last run of the count batch but ends past its window: the run goes on as
      // a level batch (the unit would merge them into one pending interval), the cycles before
      // it are applied.
      const probe::Bus::PulseBatch p = m.bus.takePulseBatch(input);
      const u64 run = p.last + 1 - p.tail;
      m.reference[input] += p.count - run;
      if (p.count > run) m.deliverPulse(target, p.before_tail, p.count - run);
      m.last_start[target.id] = p.tail;
      Cycle& horizon = m.slots[target.slot].horizon;
      horizon = std::max(horizon, p.tail + 1);
      m.bus.openLevelBatch(input, p.tail, t1);
      return;
    }
    // An interval that does not extend the bus's open one: apply that, and let the bus merge
    // the intervals that follow this one (applied at once when it had to be shifted, below).
    m.takeBusBatches(input);
    if (t0 >= m.last_start[target.id] && t0 >= m.unitNow(target.slot)) {
      m.last_start[target.id] = t0;
      Cycle& horizon = m.slots[target.slot].horizon;
      horizon = std::max(horizon, t0 + 1);
      // A level-high counter without interrupt counts the cycles of intervals that end inside
      // the window of the first one's first cycle (no visit of the counter after it) as it
      // counts pulses batched in a window: the bus adds them up (probe::Bus::openCountBatch).
      // On UPC-P only as many as its low-order register takes without a carry: a carry's
      // cycle is observable (the unit's max_service_latency).
      if (m.bus_count_level[input] && t0 >= m.level_end[input]) {
        const Cycle until = m.windowEnd(target, t0);
        const u64 room = m.unitOf(target).roomBeforeCarry(target.port, target.event);
        if (t1 <= until && t1 - t0 <= room) {
          m.bus.openCountBatch(input, t0, t1, until, room);
          m.noteOpen(input);
          return;
        }
      }
      m.bus.openLevelBatch(input, t0, t1);
      m.noteOpen(input);
      return;
    }
  }
  m.reference[input] += t1 - t0;
  m.traceLevel(input, t0, t1);
  for (u32 r = m.route_begin[input]; r < m.route_begin[input + 1]; ++r) {
    const Impl::Target& target = m.targets[r];
    // A counter counted from statistics takes none of its input's events (another target of
    // the input may: MISC_ELAPSED_TIME and PU0_CYCLES share one).
    if (m.tally_of[target.id] != Impl::kNoTally) continue;
    // An interval is known when its instruction issues, which can be after another hardware
    // thread read the unit at a cycle inside it; it then starts at that read instead (same
    // length), so totals stay exact and the unit sees its inputs in time order.
    const Cycle start = std::max({t0, m.last_start[target.id], m.unitNow(target.slot)});
    if (start != t0) ++m.shifted_inputs;
    const Cycle end = start + (t1 - t0);
    m.last_start[target.id] = start;
    // The unit applies at most the interval's first cycle now (the rest stays pending).
    Cycle& horizon = m.slots[target.slot].horizon;
    horizon = std::max(horizon, start + 1);
    if (m.unitOf(target).ordered()) {
      m.deliverLevel(target, start, end);
      continue;
    }
    if (m.bus_level_batch[input]) {  // shifted: the bus keeps no batch of it
      m.level_end[input] = std::max(m.level_end[input], end);
      m.deliverLevel(target, start, end);
      continue;
    }
    // Abutting intervals are one signal (an overlapping one goes to the unit apart: see
    // deliverLevel).
    Impl::Batch& b = m.batches[target.id];
    if (b.level_end > b.level_start && start == b.level_end) {
      b.level_end = std::max(b.level_end, end);
      continue;
    }
    if (b.level_end > b.level_start) m.deliverLevel(target, b.level_start, b.level_end);
    b.level_start = start;
    b.level_end = end;
    if (!b.dirty) {
      b.dirty = true;
      m.dirty.push_back(target.id);
    }
  }
}

int Monitor::findDevice(std::string_view path) const {
  for (u32 s = 0; s < impl_->slots.size(); ++s) {
    if (impl_->slots[s].unit->path() == path) return static_cast<int>(s);
  }
  return -1;
}

std::vector<std::string> Monitor::devicePaths() const {
  std::vector<std::string> out;
  for (const auto& s : impl_->slots) out.push_back(s.unit->path());
  return out;
}

u64 Monitor::windowBytes(int device) const {
  return impl_->slots[device].unit->windowBytes();
}

u64 Monitor::readRegister(int device, u64 offset) {
  // (An access is made by an instruction issued at the bus's cycle.)
  return accessRead(device, offset, impl_->bus.now(), previous_issue_ >= impl_->bus.now());
}

void Monitor::writeRegister(int device, u64 offset, u64 value) {
  accessWrite(device, offset, value, impl_->bus.now(), previous_issue_ >= impl_->bus.now());
}

void Monitor::writeNarrow(int device, u64 offset, unsigned size, u64 value) {
  accessWrite(device, offset, value, impl_->bus.now(), previous_issue_ >= impl_->bus.now(), size);
}

u64 Monitor::accessRead(int device, u64 offset, Cycle at, bool events_of_at) {
  Impl& m = *impl_;
  m.flushAll(at, events_of_at);
  const Cycle now = m.accessAt(static_cast<u32>(device), at);
  return m.slots[device].unit->read(offset, now);
}

void Monitor::accessWrite(int device, u64 offset, u64 value, Cycle at, bool events_of_at,
                          unsigned size) {
  Impl& m = *impl_;
  m.flushAll(at, events_of_at);
  const Cycle now = m.accessAt(static_cast<u32>(device), at);
  Impl::Slot& slot = m.slots[device];
  const bool configured = size == 8 ? slot.unit->write(offset, value, now)
                                    : slot.unit->writeNarrow(offset, size, value, now);
  // A start/stop or a configuration write may change which events the unit wants (a unit that
  // does not count wants none).
  const bool started_or_stopped = m.syncRunning(static_cast<u32>(device), now);
  if (configured) m.refreshBatching(now);
  if (configured || started_or_stopped || slot.interest_epoch != slot.unit->interestEpoch()) {
    m.refreshInterest();
  }
}

void Monitor::setInterruptTarget(int device, int tid, int signo) {
  Impl& m = *impl_;
  m.slots[device].tid = tid;
  m.slots[device].signo = signo;
  m.polling =
      std::any_of(m.slots.begin(), m.slots.end(), [](const Impl::Slot& s) { return s.signo != 0; });
  poll_due_ = m.pollDue();
}

void Monitor::scheduleSramFault(const SramFault& fault) {
  Impl& m = *impl_;
  if (fault.device >= m.slots.size()) {
    fail(ExitCode::kUsage, "SRAM fault: no counter unit {} (the node has {})", fault.device,
         m.slots.size());
  }
  const pmu::CounterUnit& unit = *m.slots[fault.device].unit;
  if (unit.sramEntryBits() == 0) {
    fail(ExitCode::kUsage, "SRAM fault: {} keeps its counts in no SRAM", unit.path());
  }
  if (fault.counter >= unit.counters()) {
    fail(ExitCode::kUsage, "SRAM fault: {} has counters 0-{}, not {}", unit.path(),
         unit.counters() - 1, fault.counter);
  }
  if (fault.bit >= unit.sramEntryBits()) {
    fail(ExitCode::kUsage, "SRAM fault: {}'s SRAM entries have bits 0-{}, not {}", unit.path(),
         unit.sramEntryBits() - 1, fault.bit);
  }
  SramFault f = fault;
  f.applied = ~Cycle{0};
  const auto at = std::upper_bound(m.faults.begin(), m.faults.end(), f.at,
                                   [](Cycle t, const SramFault& x) { return t < x.at; });
  m.faults.insert(at, f);
  m.next_fault = std::min(m.next_fault, f.at);
  poll_due_ = m.pollDue();
}

const std::vector<Monitor::SramFault>& Monitor::sramFaults() const {
  return impl_->faults;
}

void Monitor::Impl::applyFaults(Cycle now) {
  next_fault = ~Cycle{0};
  for (SramFault& f : faults) {
    if (f.applied != ~Cycle{0}) continue;
    if (f.at > now) {
      next_fault = std::min(next_fault, f.at);
      continue;
    }
    f.applied = accessAt(f.device, f.at);
    slots[f.device].unit->flipSramBit(f.counter, f.bit, f.applied);
  }
}

bool Monitor::poll(Cycle now) {
  Impl& m = *impl_;
  if (now >= m.next_fault) {
    m.flushAll(now, latest_issue_ >= now);
    m.applyFaults(now);
  }
  if (!m.polling || now < m.next_poll) {
    poll_due_ = m.pollDue();
    return false;
  }
  m.next_poll = now + m.poll_cycles;
  poll_due_ = m.pollDue();
  m.flushAll(now, latest_issue_ >= now);
  for (u32 s = 0; s < m.slots.size(); ++s) {
    if (m.slots[s].signo == 0) continue;
    m.slots[s].unit->advanceTo(m.accessAt(s, now));
  }
  if (m.pending.empty()) return false;
  std::vector<Impl::PendingInterrupt> pending;
  pending.swap(m.pending);
  bool sent = false;
  for (const Impl::PendingInterrupt& p : pending) {
    const Impl::Slot& slot = m.slots[p.slot];
    if (slot.signo == 0) continue;
    sent = true;
    ++m.interrupts_delivered;
    m.kernel.counterInterrupt(slot.tid, slot.signo, static_cast<i32>(p.slot),
                              static_cast<i32>(p.counter), p.cycle);
  }
  return sent;
}

void Monitor::interruptDelivered(int device, Cycle at) {
  // The L2 and I/O units stop counting while the handler runs, from when it starts: not when
  // poll() sent the signal, since the thread may first finish what it was doing (a system call
  // it stopped on, whose events count), or have the signal blocked.
  Impl& m = *impl_;
  if (device < 0 || static_cast<std::size_t>(device) >= m.slots.size()) return;
  const Impl::Slot& slot = m.slots[static_cast<u32>(device)];
  if (!slot.unit->holdsForHandler()) return;
  m.flushAll(at, latest_issue_ >= at);
  slot.unit->interruptDelivered(m.accessAt(static_cast<u32>(device), at));
}

u64 Monitor::reference(u32 input) const {
  const Impl& m = *impl_;
  u64 tallied = 0;
  if (m.input_tallied[input]) {
    const u64 value =
        m.bus.tallyKind(input) == probe::Bus::TallyKind::kTerms
            ? m.bus.tallyValue(input)
            : m.bus.levelSource()->levelBefore(m.bus.eventOf(input).first,
                                               m.bus.eventOf(input).second, Impl::kNever);
    tallied = value - m.input_base[input];
  }
  return m.reference[input] + m.bus.pendingPulses(input) + m.bus.pendingLevelCycles(input) +
         tallied;
}

void Monitor::traceInput(u32 input) {
  if (input >= impl_->reference.size()) fail(ExitCode::kInternal, "no bus input {}", input);
  impl_->traces.try_emplace(input);
  impl_->refreshBatching(latest_issue_);
  impl_->refreshInterest();
}

const Monitor::InputTrace& Monitor::trace(u32 input) {
  impl_->flushAll(latest_issue_, true);  // the bus's open batches hold part of it
  return impl_->traces.at(input);
}

void Monitor::visitStats(stats::Visitor& v) const {
  // Pending batches are the monitor's bookkeeping, not state of the units: apply them so that
  // the units' statistics are complete.
  impl_->flushAll(latest_issue_, true);
  const Impl& m = *impl_;
  v.text("unit", m.family ? m.family->name : kNoUnitFamily, "The node's counter unit family");
  v.counter("native_events", m.catalogue.size(), stats::level(stats::Unit::kCount),
            "Events the unit can count");
  v.counter("interrupts_delivered", m.interrupts_delivered, "Counter interrupts sent to threads");
  v.counter("shifted_inputs", m.shifted_inputs,
            "Level intervals started later than they began (a read fell inside them)");
  v.counter("sink_pulses", m.pulses,
            "Pulses the probe bus passed to the monitor (not those it added up in a batch)");
  v.counter("sink_levels", m.levels,
            "Level intervals the probe bus passed to the monitor (not those it merged)");
  v.counter("unit_pulses", m.unit_pulses,
            "Pulses applied to the units (several bus pulses of one input between two visits of "
            "its UPC-P counter are applied as one)");
  v.counter("unit_levels", m.unit_levels,
            "Level intervals applied to the units (abutting intervals of one input as one)");
  v.counter("tallied_counters", m.tallies.size(), stats::level(stats::Unit::kCount),
            "Counters counting from the models' statistics (at the last configuration)");
  v.counter("tally_schedule_entries", m.schedule.entries.size(), stats::level(stats::Unit::kCount),
            "Window ends per round the schedule walks now (sleeping cores' left out)");
  v.counter("tally_schedule_all", m.all_entries.size(), stats::level(stats::Unit::kCount),
            "Window ends per round of every counter");
  v.counter("tally_windows", m.tally_windows,
            "Counts taken from statistics and applied to the units (a window's, or up to an "
            "access)");
  for (const auto& unit : m.units) {
    v.beginGroup(unit->statsName());
    unit->visitStats(v);
    v.endGroup();
  }
}

}  // namespace hpm
