#include "pmu/upcq/unit.h"

#include <algorithm>

#include "base/bits.h"
#include "base/error.h"

namespace hpm::upcq {
namespace {

// The count moves from `old` by `inc` (modulo 2^64) and reaches `threshold` on the way: some
// k in [1, inc] has old + k == threshold. A counter that already equals its threshold does not
// reach it again until it wraps around.
bool reaches(u64 old, u64 inc, u64 threshold) {
  return inc != 0 && threshold - old - 1 < inc;
}

}  // namespace

const char* toString(UnitKind kind) {
  switch (kind) {
    case UnitKind::kPUnit: return "PUnit";
    case UnitKind::kL2Unit: return "L2Unit";
    case UnitKind::kIOUnit: return "IOUnit";
    case UnitKind::kCNKUnit: return "CNKUnit";
    case UnitKind::kNWUnit: return "NWUnit";
  }
  return "?";
}

void Stats::visit(stats::Visitor& v) const {
  v.counter("events_counted", events_counted, "Increments applied to counters");
  v.counter("transfers", transfers, "Sweep visits that moved a nonzero local value");
  v.counter("max_transfer", max_transfer, stats::level(stats::Unit::kCount),
            "Largest local value moved by one sweep visit");
  v.counter("lost_wraps", lost_wraps, "Local-counter wraps, each losing 2^local_bits events");
  v.counter("interrupts", interrupts, "Overflow interrupts raised");
  v.counter("access_errors", access_errors, "Register accesses that set the access-error register");
}

RegisterMap::RegisterMap(u32 n) : counters(n) {
  stride = alignUp(u64{n} * 8, 0x100);
  control = 5 * stride;
  run = control;
  reset = control + 0x08;
  access_error = control + 0x10;
  unit_info = control + 0x18;
  sweep_info = control + 0x20;
  mode = control + 0x28;
  global_run = control + 0x30;
  interrupt_line = control + 0x38;
  overflow_status = control + 0x40;
  status_words = (n + 63) / 64;
  window_bytes = alignUp(overflow_status + u64{status_words} * 8, 4096);
}

u64 overflowPreload(u64 n) {
  if (n == 0) fail(ExitCode::kConfig, "UPC-Q: an overflow after 0 events is not possible");
  return ~n + 1;
}

Unit::Unit(const Shape& shape) : shape_(shape), map_(shape.ports * shape.counters) {
  const u32 n = counterCount();
  local_mask_ = direct() ? 0 : lowMask(shape_.local_bits);
  words_per_port_ = (shape_.events + 63) / 64;
  locals_.assign(n, Local{});
  centrals_.assign(n, Central{});
  log_.assign(n, {});
  pending_.assign(u64{shape_.ports} * shape_.events, Pending{});
  selectors_.assign(u64{shape_.ports} * shape_.events, {});
  interest_.assign(u64{shape_.ports} * words_per_port_, 0);
  lost_per_local_.assign(n, 0);
  combined_ = shape_.has_mode && !shape_.sliced;
  running_ = shape_.run_at_reset;
  counting_ = running_;
  rebuildSelectors();
}

// ---------------------------------------------------------------------------------------------
// Time order

void Unit::checkInput(Cycle t) const {
  if (t < now_) {
    fail(ExitCode::kInternal,
         "UPC-Q {}: an input for cycle {} arrived after a register access or advance at cycle {}; "
         "inputs must come in time order",
         toString(shape_.kind), t, now_);
  }
}

void Unit::beginAccess(Cycle now) {
  if (now < now_ || now < horizon_) {
    fail(ExitCode::kInternal,
         "UPC-Q {}: access at cycle {} after the unit reached cycle {} (inputs up to cycle {} are "
         "applied); accesses must come in time order, after the inputs of earlier cycles",
         toString(shape_.kind), now, now_, horizon_ == 0 ? 0 : horizon_ - 1);
  }
  now_ = now;
}

Cycle Unit::nextVisit(u32 i, Cycle t) const {
  if (direct()) return kNone;
  const Sweep& s = shape_.sweep;
  const u64 target = ((shape_.first_slot + i) * s.slot_cycles) % s.period;
  const u64 position = (t + s.phase) % s.period;
  return t + (target >= position ? target - position : target + s.period - position);
}

Cycle Unit::lastVisitBefore(u32 i, Cycle t) const {
  if (direct()) return kNone;
  const Cycle next = nextVisit(i, t);
  return next >= shape_.sweep.period ? next - shape_.sweep.period : kNone;
}

// ---------------------------------------------------------------------------------------------
// Inputs

void Unit::pulseAt(u32 port, u32 event, Cycle t, u64 count) {
  checkInput(t);
  if (port >= shape_.ports || event >= shape_.events) {
    fail(ExitCode::kInternal, "UPC-Q {}: pulse on port {} event {}; the unit has {} x {}",
         toString(shape_.kind), port, event, shape_.ports, shape_.events);
  }
  if (count == 0) return;
  const u64 pe = u64{port} * shape_.events + event;
  if (!((interest_[port * words_per_port_ + (event >> 6)] >> (event & 63)) & 1)) return;
  const Pending& pending = pending_[pe];
  for (u32 i : selectors_[pe]) {
    Local& k = locals_[i];
    const SignalMode mode = modeOf(i);
    if (k.frontier == t + 1 && k.pulse_cycle == t) {
      // Another pulse of a cycle already applied: only the level-high count grows.
      if (mode == SignalMode::kLevelHigh) countAt(i, t, count);
      continue;
    }
    if (t < k.frontier) {
      fail(ExitCode::kInternal,
           "UPC-Q {}: pulse of port {} event {} at cycle {} after inputs of that event up to "
           "cycle {}",
           toString(shape_.kind), port, event, t, k.frontier - 1);
    }
    advance(i, t);
    const bool level_too = pending.begin <= t && t < pending.end;
    if (mode == SignalMode::kLevelHigh) {
      countAt(i, t, count + (level_too ? 1 : 0));
    } else if (mode == SignalMode::kRisingEdge && k.high_until != t) {
      countAt(i, t, 1);
    }
    k.high_until = t + 1;
    k.frontier = t + 1;
    k.pulse_cycle = t;
  }
  horizon_ = std::max(horizon_, t + 1);
}

void Unit::sweptWindows(u32 port, u32 event, const SweptWindows& w) {
  checkInput(w.first_visit - 1);
  const u64 pe = u64{port} * shape_.events + event;
  if (port >= shape_.ports || event >= shape_.events || direct() || selectors_[pe].size() != 1 ||
      w.windows == 0 || w.last_visit < w.first_visit || (w.max_window >> shape_.local_bits) != 0) {
    fail(ExitCode::kInternal, "UPC-Q {}: swept windows of port {} event {} not applicable",
         toString(shape_.kind), port, event);
  }
  const u32 i = selectors_[pe].front();
  Local& k = locals_[i];
  const u32 j = centralOf(i);
  if (modeOf(i) != SignalMode::kLevelHigh || watching(j) || k.freeze_at != kNone ||
      nextVisit(i, w.first_visit) != w.first_visit || w.first_visit == 0 ||
      w.first_visit - 1 < k.frontier) {
    fail(ExitCode::kInternal, "UPC-Q {}: swept windows of counter {} not applicable",
         toString(shape_.kind), i);
  }
  // What the first window's pulse does before counting: the events and visits before it (its
  // predecessor's count moves at its visit).
  advance(i, w.first_visit - 1);
  if (k.value != 0) {
    fail(ExitCode::kInternal,
         "UPC-Q {}: swept windows of counter {} after events pending in "
         "the first window",
         toString(shape_.kind), i);
  }
  if (counting_) {
    centrals_[j].value += w.amount;
    stats_.events_counted += w.amount;
    stats_.transfers += w.windows;
    stats_.max_transfer = std::max(stats_.max_transfer, w.max_window);
  }
  k.frontier = w.last_visit;
  k.pulse_cycle = w.last_visit - 1;
  k.high_until = w.last_visit;
  k.visit_frontier = w.last_visit + 1;
  horizon_ = std::max(horizon_, w.last_visit);
}

void Unit::levelAt(u32 port, u32 event, Cycle t0, Cycle t1) {
  checkInput(t0);
  if (port >= shape_.ports || event >= shape_.events) {
    fail(ExitCode::kInternal, "UPC-Q {}: level on port {} event {}; the unit has {} x {}",
         toString(shape_.kind), port, event, shape_.ports, shape_.events);
  }
  if (t1 <= t0) return;
  const u64 pe = u64{port} * shape_.events + event;
  Pending& p = pending_[pe];
  for (u32 i : selectors_[pe]) {
    Local& k = locals_[i];
    if (k.frontier == t0 + 1 && k.pulse_cycle == t0) {
      // A pulse of cycle t0 was applied already; the level adds its occurrence at t0 unless an
      // earlier level interval covered t0 (overlapping levels are a union).
      const bool covered = p.begin <= t0 && t0 < p.end;
      if (!covered && modeOf(i) == SignalMode::kLevelHigh) countAt(i, t0, 1);
    } else {
      if (t0 < k.frontier) {
        fail(ExitCode::kInternal,
             "UPC-Q {}: level of port {} event {} from cycle {} after inputs of that event up to "
             "cycle {}",
             toString(shape_.kind), port, event, t0, k.frontier - 1);
      }
      // A disjoint new interval replaces the pending one: count the old one to its end first.
      // Otherwise nothing is counted yet, so accesses before t0 remain possible.
      if (p.end > p.begin && p.end > k.frontier && t0 > p.end) advance(i, p.end);
    }
    horizon_ = std::max(horizon_, k.frontier);
  }
  if (selectors_[pe].empty() && p.end > p.begin && t0 > p.end && p.end > now_) {
    // The replaced interval could still matter to a select written before its end.
    horizon_ = std::max(horizon_, p.end);
  }
  if (p.begin <= t0 && t0 <= p.end && p.end > p.begin) {
    p.end = std::max(p.end, t1);
  } else {
    p = Pending{t0, t1};
  }
}

// ---------------------------------------------------------------------------------------------
// Lazy counting

// Applies the events and visits of cycles [frontier, until) from the pending level interval of
// the selected event (pulses are applied when they arrive).
void Unit::advance(u32 i, Cycle until) {
  Local& k = locals_[i];
  if (until <= k.frontier) {
    // The events are applied already (a pulse that counted nothing moves the frontier without
    // visits); the visits may not be. The local value has not changed since visit_frontier
    // (every increment applies the visits up to its cycle first), so this is exact.
    if (until != 0) visitsThrough(i, until - 1);
    return;
  }
  const Cycle from = k.frontier;
  const Pending& p = pending_[u64{portOf(i)} * shape_.events + eventOf(i)];
  Cycle a = until, b = until;
  if (p.end > p.begin && p.end > from && p.begin < until) {
    a = std::max(p.begin, from);
    b = std::min(p.end, until);
  }
  segment(i, from, a, false);
  segment(i, a, b, true);
  segment(i, b, until, false);
  visitsThrough(i, until - 1);
  k.frontier = until;
}

void Unit::segment(u32 i, Cycle x, Cycle y, bool high) {
  if (x >= y) return;
  Local& k = locals_[i];
  const bool was_high = k.high_until == x;
  switch (modeOf(i)) {
    case SignalMode::kLevelHigh:
      if (high) countRun(i, x, y - x);
      break;
    case SignalMode::kLevelLow:
      if (!high) countRun(i, x, y - x);
      break;
    case SignalMode::kRisingEdge:
      if (high && !was_high) countRun(i, x, 1);
      break;
    case SignalMode::kFallingEdge:
      if (!high && was_high) countRun(i, x, 1);
      break;
  }
  if (high) k.high_until = y;
}

// One event in each cycle of [x, x + n), cut at the sweep visits (each visit must see exactly the
// events of the cycles before it), at a threshold crossing and at the freeze that follows it.
void Unit::countRun(u32 i, Cycle x, u64 n) {
  if (!counting_) return;
  Local& k = locals_[i];
  const u32 j = centralOf(i);
  Central& c = centrals_[j];
  const u64 period = shape_.sweep.period;
  while (n > 0) {
    if (x >= k.freeze_at) return;
    visitsThrough(i, x);
    if (!direct() && k.value == 0 && n >= 2 * period && k.freeze_at == kNone &&
        nextVisit(i, x) == x) {
      // x is a visit cycle: the whole windows of the run are closed form. q windows of
      // `period` events, each moved by the visit that ends it (the last of them at
      // x + q x period); the remaining >= 1 window goes through the loop. A watched threshold
      // allows only the windows before the one holding its crossing: with no wraps the count
      // (exact and central alike) is value + k x period at the k-th window's end, so the
      // crossing lies in window floor(d / period), d = threshold - value - 1.
      u64 q = n / period - 1;
      const u64 kept = period & local_mask_, wraps = period >> shape_.local_bits;
      if (watching(j))
        q = logging() || wraps != 0 ? 0 : std::min(q, (c.threshold - c.value - 1) / period);
      if (q != 0) {
        c.value += q * kept;
        stats_.events_counted += q * period;
        if (kept != 0) stats_.transfers += q;
        stats_.max_transfer = std::max(stats_.max_transfer, kept);
        if (wraps != 0) {
          stats_.lost_wraps += q * wraps;
          lost_per_local_[i] += q * wraps;
        }
        x += q * period;
        n -= q * period;
        k.visit_frontier = x + 1;
        continue;
      }
    }
    Cycle end = x + n;
    if (!direct()) end = std::min(end, nextVisit(i, x + 1));
    end = std::min(end, k.freeze_at);
    u64 m = end - x;
    if (shape_.fast && watching(j)) {
      // The comparator sees the count each event gives before a wrap loses 2^L (exploration
      // mode), so the count is linear in the chunk only up to the wrapping event.
      if (!direct()) m = std::min<u64>(m, local_mask_ - k.value + 1);
      const u64 d = c.threshold - (c.value + k.value) - 1;  // events before the one reaching it
      if (d < m) {
        detect(j, i, x + d);
        m = std::min<u64>(m, k.freeze_at - x);
      }
    }
    stats_.events_counted += m;
    addEvents(i, m);
    x += m;
    n -= m;
  }
}

// n events in cycle t.
void Unit::countAt(u32 i, Cycle t, u64 n) {
  if (!counting_ || n == 0) return;
  Local& k = locals_[i];
  if (t >= k.freeze_at) return;
  visitsThrough(i, t);
  const u32 j = centralOf(i);
  if (shape_.fast && watching(j) &&
      reaches(centrals_[j].value + k.value, n, centrals_[j].threshold))
    detect(j, i, t);
  stats_.events_counted += n;
  addEvents(i, n);
}

void Unit::addEvents(u32 i, u64 n) {
  if (direct()) {
    centrals_[centralOf(i)].value += n;
    return;
  }
  Local& k = locals_[i];
  const u128 total = u128{k.value} + n;
  k.value = static_cast<u64>(total) & local_mask_;
  const u64 wraps = static_cast<u64>(total >> shape_.local_bits);
  if (wraps != 0) {
    stats_.lost_wraps += wraps;
    lost_per_local_[i] += wraps;
  }
}

// Applies the visits of cycles [visit_frontier, t]. Between two changes of the local value only
// the first visit can move anything (it clears the register), so only it is computed.
void Unit::visitsThrough(u32 i, Cycle t) {
  Local& k = locals_[i];
  if (t < k.visit_frontier) return;
  if (k.value != 0) {
    const Cycle v = nextVisit(i, k.visit_frontier);
    if (v <= t) transfer(i, v);
  }
  k.visit_frontier = t + 1;
}

void Unit::transfer(u32 i, Cycle v) {
  Local& k = locals_[i];
  const u64 amount = k.value;
  k.value = 0;
  ++stats_.transfers;
  stats_.max_transfer = std::max(stats_.max_transfer, amount);
  const u32 j = centralOf(i);
  Central& c = centrals_[j];
  const u64 old = c.value;
  c.value += amount;
  if (shape_.fast || !watching(j)) return;
  if (logging()) {
    // The slices feeding a combined counter advance independently; the order of their visits
    // is settled when all of them have reached a common cycle (resolve).
    log_[j].push_back({v, i, amount});
    if (log_[j].size() >= 65536) {
      Cycle before = kNone;
      for (u32 f = 0; f < feederCount(); ++f) {
        before = std::min(before, locals_[feeder(j, f)].visit_frontier);
      }
      resolve(j, before);
    }
  } else if (reaches(old, amount, c.threshold)) {
    detect(j, i, v);
  }
}

void Unit::detect(u32 j, u32 i, Cycle t) {
  const Cycle at = t + shape_.overflow_latency;
  centrals_[j].irq_at = at;
  if (shape_.freeze) locals_[i].freeze_at = at + 1;
}

// Orders the logged visits of cycles < `before` (all feeders have applied theirs) and detects
// the first that makes the central value reach the threshold.
void Unit::resolve(u32 j, Cycle before) {
  std::vector<Transfer>& log = log_[j];
  if (log.empty()) return;
  Central& c = centrals_[j];
  auto final_end = std::partition(log.begin(), log.end(),
                                  [before](const Transfer& x) { return x.visit < before; });
  std::sort(log.begin(), final_end, [](const Transfer& a, const Transfer& b) {
    return a.visit != b.visit ? a.visit < b.visit : a.local < b.local;
  });
  for (auto it = log.begin(); it != final_end; ++it) {
    if (watching(j) && reaches(c.resolved, it->amount, c.threshold))
      detect(j, it->local, it->visit);
    c.resolved += it->amount;
  }
  log.erase(log.begin(), final_end);
  if (!watching(j)) log.clear();
}

void Unit::syncAll(Cycle now) {
  for (u32 i = 0; i < counterCount(); ++i) advance(i, now);
  for (u32 j = 0; j < counterCount(); ++j) {
    resolve(j, kNone);
    centrals_[j].resolved = centrals_[j].value;
  }
  raiseDue(now);
}

void Unit::raiseDue(Cycle now) {
  for (u32 j = 0; j < counterCount(); ++j) {
    if (centrals_[j].irq_at < now) raise(j, centrals_[j].irq_at);
  }
}

void Unit::raise(u32 j, Cycle t) {
  Central& c = centrals_[j];
  c.irq_at = kNone;
  c.status = true;
  ++stats_.interrupts;
  const Interrupt irq{shape_.kind, shape_.instance, j, t};
  raised_.push_back(irq);
  if (on_interrupt_) on_interrupt_(irq);
}

void Unit::accessError(u64 bits, u64 offset) {
  if (access_error_ == 0) access_error_ = (offset & 0xFFFFFFFFu) << 32;
  access_error_ |= bits;
  ++stats_.access_errors;
}

void Unit::clearCounts() {
  for (Central& c : centrals_) {
    c.value = 0;
    c.resolved = 0;
    c.status = false;
    c.irq_at = kNone;
  }
  for (auto& log : log_) log.clear();
  for (Local& k : locals_) {
    k.value = 0;
    k.freeze_at = kNone;
  }
  held_ = false;
  counting_ = running_ && global_;
}

// ---------------------------------------------------------------------------------------------
// Interrupts and control

std::vector<Interrupt> Unit::takeInterrupts() {
  std::vector<Interrupt> out;
  out.swap(raised_);
  std::sort(out.begin(), out.end(), [](const Interrupt& a, const Interrupt& b) {
    return a.cycle != b.cycle ? a.cycle < b.cycle : a.counter < b.counter;
  });
  return out;
}

bool Unit::interruptLine() const {
  return std::any_of(centrals_.begin(), centrals_.end(), [](const Central& c) { return c.status; });
}

Cycle Unit::pendingInterruptCycle() const {
  Cycle best = kNone;
  for (const Central& c : centrals_) best = std::min(best, c.irq_at);
  return best;
}

Interest Unit::interest(u32 port) const {
  if (port >= shape_.ports) {
    fail(ExitCode::kInternal, "UPC-Q {}: no port {}", toString(shape_.kind), port);
  }
  return Interest{std::span<const u64>(interest_).subspan(port * words_per_port_, words_per_port_),
                  interest_epoch_};
}

void Unit::setGlobalRunAt(bool on, Cycle now) {
  beginAccess(now);
  syncAll(now);
  global_ = on;
  counting_ = running_ && global_ && !held_;
}

void Unit::holdAt(Cycle now) {
  beginAccess(now);
  syncAll(now);
  held_ = true;
  counting_ = false;
}

void Unit::advanceTo(Cycle now) {
  beginAccess(now);
  syncAll(now);
}

CounterState Unit::inspect(u32 counter, Cycle now) {
  if (counter >= counterCount()) {
    fail(ExitCode::kInternal, "UPC-Q {}: no counter {}", toString(shape_.kind), counter);
  }
  beginAccess(now);
  syncAll(now);
  CounterState s;
  s.config = locals_[counter].config;
  if (!active(counter)) return s;
  const Central& c = centrals_[counter];
  s.central = c.value;
  for (u32 f = 0; f < feederCount(); ++f) s.local += locals_[feeder(counter, f)].value;
  s.exact = s.central + s.local;
  s.threshold = c.threshold;
  s.status = c.status;
  s.frozen = locals_[counter].freeze_at <= now;
  s.pending = c.irq_at;
  return s;
}

// ---------------------------------------------------------------------------------------------
// Register window

u64 Unit::unitInfo() const {
  return u64{static_cast<u8>(shape_.kind)} | u64{shape_.instance & 0xFF} << 8 |
         u64{shape_.counters} << 16 | u64{shape_.ports & 0xFF} << 24 |
         u64{shape_.local_bits} << 32 | u64{combined_ ? 1u : 0u} << 40 |
         u64{shape_.events - 1} << 48;
}

u64 Unit::read(u64 offset, Cycle now) {
  beginAccess(now);
  if (offset % 8 != 0) {
    accessError(kMisaligned, offset);
    return 0;
  }
  const RegisterMap& m = map_;
  const u32 n = counterCount();
  if (offset < m.control) {
    const u32 array = static_cast<u32>(offset / m.stride);
    const u64 index64 = (offset % m.stride) / 8;
    const bool exists = index64 < n && (array < 3 || shape_.exact_regs);
    if (!exists) {
      accessError(kUnmappedRead, offset);
      return 0;
    }
    const u32 i = static_cast<u32>(index64);
    if (array == 1) return locals_[i].config;
    if (!active(i)) return 0;  // a combined L2 unit's slice counters beyond the first slice
    if (array == 2) return centrals_[i].threshold;
    for (u32 f = 0; f < feederCount(); ++f) advance(feeder(i, f), now);
    if (array == 0) return centrals_[i].value;
    if (array == 3) return centrals_[i].value + locals_[i].value;
    return locals_[i].value;
  }
  if (offset == m.run) return (running_ ? kRunBit : 0) | (held_ ? kHoldBit : 0);
  if (offset == m.reset) return 0;
  if (offset == m.access_error) return access_error_;
  if (offset == m.unit_info) return unitInfo();
  if (offset == m.sweep_info) {
    return direct() ? u64{shape_.overflow_latency} << 32
                    : u64{shape_.sweep.period} | u64{shape_.overflow_latency} << 32 |
                          u64{shape_.sweep.slot_cycles & 0xFFFF} << 48;
  }
  if (offset == m.mode && shape_.has_mode) return combined_ ? 0 : 1;
  if (offset == m.global_run && shape_.global) return global_ ? 1 : 0;
  const bool status =
      offset >= m.overflow_status && offset < m.overflow_status + m.status_words * 8;
  if (offset != m.interrupt_line && !status) {
    accessError(kUnmappedRead, offset);
    return 0;
  }
  syncAll(now);  // overflows of earlier cycles may still be undiscovered in lazy counters
  if (offset == m.interrupt_line) return interruptLine() ? 1 : 0;
  const u32 w = static_cast<u32>((offset - m.overflow_status) / 8);
  u64 bits = 0;
  for (u32 b = 0; b < 64 && w * 64 + b < n; ++b) {
    bits |= u64{centrals_[w * 64 + b].status} << b;
  }
  return bits;
}

void Unit::write(u64 offset, u64 value, Cycle now) {
  beginAccess(now);
  if (offset % 8 != 0) {
    accessError(kMisaligned, offset);
    return;
  }
  const RegisterMap& m = map_;
  const u32 n = counterCount();
  // Every write brings the whole unit to `now` first, so that a change takes effect exactly for
  // the events of cycle `now` and later (writes are rare; reads of counters stay cheap).
  syncAll(now);
  if (offset < m.control) {
    const u32 array = static_cast<u32>(offset / m.stride);
    const u64 index64 = (offset % m.stride) / 8;
    if (index64 >= n || array > 2) {  // COUNTER_EXACT and LOCAL are read-only
      accessError(kUnmappedWrite, offset);
      return;
    }
    const u32 i = static_cast<u32>(index64);
    if (array == 1) {
      writeConfig(i, value);
      return;
    }
    if (!active(i)) {
      accessError(kUnmappedWrite, offset);
      return;
    }
    Central& c = centrals_[i];
    if (array == 0) {  // preload: the central value; the local registers feeding it are cleared
      c.value = value;
      c.resolved = value;
      for (u32 f = 0; f < feederCount(); ++f) locals_[feeder(i, f)].value = 0;
    } else {
      c.threshold = value;
    }
    return;
  }
  if (offset == m.run) {
    const u64 defined = kRunBit | (shape_.hold ? kHoldBit : 0);
    if (value & ~defined) accessError(kReservedBits, offset);
    running_ = value & kRunBit;
    if (shape_.hold) held_ = value & kHoldBit;
    counting_ = running_ && global_ && !held_;
  } else if (offset == m.reset) {
    if (value & ~u64{1}) accessError(kReservedBits, offset);
    if (value & 1) clearCounts();
  } else if (offset == m.access_error) {
    if (value & ~u64{0xF}) accessError(kReservedBits, offset);
    access_error_ &= ~(value & 0xF);
    if ((access_error_ & 0xF) == 0) access_error_ = 0;
  } else if (offset == m.mode && shape_.has_mode) {
    if (value & ~u64{1}) accessError(kReservedBits, offset);
    const bool combined = !(value & 1);
    if (combined != combined_) {
      // Switching modes regroups the central counters: the counts start over. Entering combined
      // mode gives every slice the first slice's configurations (one configuration per counter).
      combined_ = combined;
      if (combined_) {
        for (u32 i = shape_.counters; i < n; ++i) {
          locals_[i].config = locals_[i % shape_.counters].config;
        }
        rebuildSelectors();
      }
      clearCounts();
    }
  } else if (offset >= m.overflow_status && offset < m.overflow_status + m.status_words * 8) {
    const u32 w = static_cast<u32>((offset - m.overflow_status) / 8);
    for (u32 b = 0; b < 64; ++b) {
      if (!((value >> b) & 1)) continue;
      const u32 j = w * 64 + b;
      if (j >= n || !active(j)) {
        accessError(kReservedBits, offset);
        continue;
      }
      Central& c = centrals_[j];
      if (!c.status) continue;
      c.status = false;
      if (shape_.freeze) {
        for (u32 f = 0; f < feederCount(); ++f) locals_[feeder(j, f)].freeze_at = kNone;
      }
    }
    // The acknowledge ends the handler: a unit held for it counts again once nothing is left.
    if (held_ && !interruptLine()) {
      held_ = false;
      counting_ = running_ && global_;
    }
  } else {
    accessError(kUnmappedWrite, offset);  // unmapped, or read-only (info, global run, line)
  }
}

void Unit::writeConfig(u32 i, u64 value) {
  const u64 offset = map_.config(i);
  if (combined_ && i >= shape_.counters) {  // one configuration per counter in combined mode
    accessError(kUnmappedWrite, offset);
    return;
  }
  if (value & ~config_bits::kDefined) accessError(kReservedBits, offset);
  u64 config = value & config_bits::kDefined;
  if ((config & config_bits::kEventMask) >= shape_.events) {  // no such event: keep the select
    accessError(kReservedBits, offset);
    config = (config & ~config_bits::kEventMask) | (locals_[i].config & config_bits::kEventMask);
  }
  if (combined_) {
    for (u32 p = 0; p < shape_.ports; ++p) locals_[p * shape_.counters + i].config = config;
  } else {
    locals_[i].config = config;
  }
  rebuildSelectors();
}

void Unit::rebuildSelectors() {
  for (auto& s : selectors_) s.clear();
  std::vector<u64> next(interest_.size(), 0);
  for (u32 i = 0; i < counterCount(); ++i) {
    const u32 p = portOf(i), e = eventOf(i);
    selectors_[u64{p} * shape_.events + e].push_back(i);
    next[p * words_per_port_ + (e >> 6)] |= u64{1} << (e & 63);
  }
  if (next != interest_) {
    interest_ = next;  // same size: the storage (and every Interest span) stays put
    ++interest_epoch_;
  }
}

}  // namespace hpm::upcq
