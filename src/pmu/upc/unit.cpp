#include "pmu/upc/unit.h"

#include <algorithm>
#include <bit>

#include "base/bits.h"
#include "base/error.h"
#include "pmu/upc/bitset.h"

namespace hpm::upc {
namespace {

const Params& validated(const Params& p) {
  p.validate();
  return p;
}

}  // namespace

void Stats::visit(stats::Visitor& v) const {
  v.counter("events_counted", events_counted, "Increments applied to low-order registers");
  v.counter("carries", carries, "Carry-outs of low-order registers");
  v.counter("carries_serviced", carries_serviced,
            "Carries added to SRAM words by the round-robin state machine");
  v.counter("lost_carries", lost_carries, "Carry-outs while the carry latch was still set");
  v.counter("flushes", flushes, "Low-order registers flushed into SRAM (largest-first)");
  v.counter("max_flushed_value", max_flushed_value, stats::level(stats::Unit::kCount),
            "Largest low-order value flushed into SRAM (largest-first)");
  v.counter("max_service_latency", max_service_latency, stats::level(stats::Unit::kCycles),
            "Most cycles from a carry to the visit that took it into SRAM");
  v.counter("interrupts", interrupts, "Threshold interrupts raised");
  v.counter("parity_errors", parity_errors, "SRAM reads that failed the parity check");
  v.counter("parity_interrupts", parity_interrupts,
            "Parity errors raised as interrupts (START_STOP bit 1 set)");
  v.counter("access_errors", access_errors, "Register accesses that set the access-error register");
}

RegisterMap::RegisterMap(u32 counters) {
  config_base = u64{counters} * 8;
  start_stop = u64{counters} * 9;
  threshold = start_stop + 0x10;
  access_error = start_stop + 0x18;
  parity_status = start_stop + 0x20;
  interrupt_line = start_stop + 0x28;
  unit_info = start_stop + 0x30;
  status_words = (counters + 63) / 64;
  interrupt_status = start_stop + 0x40;
  armed_status = interrupt_status + u64{status_words} * 8;
  parity_errors = armed_status + u64{status_words} * 8;
  window_bytes = alignUp(parity_errors + u64{status_words} * 8, 4096);
}

Unit::Unit(const Params& params) : params_(validated(params)), map_(params.counters) {
  const u32 n = params_.counters;
  words_ = (n + 63) / 64;
  data_bits_ = params_.policy == Policy::kRoundRobin ? 64 - params_.low_bits : 64;
  parity_bits_ = (data_bits_ + params_.parity_group_bits - 1) / params_.parity_group_bits;
  low_mask_ = lowMask(params_.low_bits);
  data_mask_ = lowMask(data_bits_);
  round_cycles_ = u64{n} * params_.service_cycles;
  round_is_pow2_ = isPowerOfTwo(round_cycles_);
  counters_pow2_ = isPowerOfTwo(n);

  counters_.assign(n, Counter{});
  pending_.assign(params_.events, Pending{});
  event_counter_.resize(params_.events);
  for (u32 e = 0; e < params_.events; ++e) event_counter_[e] = e % n;
  config_.assign(n, 0);
  sram_data_.assign(n, 0);
  sram_parity_.assign(n, parityOf(0));
  parity_bad_.assign(n, 0);
  parity_reported_.assign(n, 0);
  carry_cycle_.assign(n, 0);
  lost_per_counter_.assign(n, 0);
  interest_.assign((params_.events + 63) / 64, 0);
  int_status_.assign(words_, 0);
  parity_mask_.assign(words_, 0);
  rebuildInterest();
  const u64 s = params_.service_cycles;
  lcf_next_slot_ = (s - params_.service_phase % s) % s;

  planes_.assign(u64{params_.low_bits} * words_, 0);
  carry_bits_.assign(words_, 0);
  armed_bits_.assign(words_, 0);
  prev_bits_.assign(words_, 0);
  bank_masks_.assign(u64{params_.banks()} * words_, 0);
  mode_masks_.assign(4 * u64{words_}, 0);
  all_mask_.assign(words_, 0);
  for (u32 c = 0; c < n; ++c) putBit(all_mask_, c, true);
  scratch_.assign(3 * u64{words_}, 0);
}

// ---------------------------------------------------------------------------------------------
// Time order

void Unit::checkInput(Cycle t) const {
  if (t < now_) {
    fail(ExitCode::kInternal,
         "UPC-P: an input for cycle {} arrived after a register access or advance at cycle {}; "
         "inputs must come in time order",
         t, now_);
  }
}

void Unit::beginAccess(Cycle now) {
  if (cycle_mode_) leaveCycleMode();
  if (now < now_ || now < horizon_) {
    fail(ExitCode::kInternal,
         "UPC-P: access at cycle {} after the unit reached cycle {} (inputs up to cycle {} are "
         "applied); accesses must come in time order, after the inputs of earlier cycles",
         now, now_, horizon_ == 0 ? 0 : horizon_ - 1);
  }
  now_ = now;
  if (params_.policy == Policy::kLargestFirst) largestFirstVisitsBefore(now);
}

Cycle Unit::nextVisit(u32 counter, Cycle t) const {
  const u64 target = u64{counter} * params_.service_cycles;
  const u64 position = round_is_pow2_ ? (t + params_.service_phase) & (round_cycles_ - 1)
                                      : (t + params_.service_phase) % round_cycles_;
  const u64 delta = target >= position ? target - position : target + round_cycles_ - position;
  return t + delta;
}

u64 Unit::eventsBeforeCarry(u32 event) const {
  const u32 c = event_counter_[event];
  const Counter& k = counters_[c];
  const Pending& p = pending_[event];
  const Cycle from = std::max(p.begin, k.frontier);
  const u64 pending = p.end > from ? p.end - from : 0;
  const u64 room = low_mask_ - k.low;
  return room > pending ? room - pending : 0;
}

// ---------------------------------------------------------------------------------------------
// Batched inputs

void Unit::pulse(u32 event, Cycle t, u64 count) {
  checkInput(t);
  if (count == 0 || !((interest_[event >> 6] >> (event & 63)) & 1)) return;
  if (cycle_mode_) leaveCycleMode();
  if (params_.policy == Policy::kLargestFirst) largestFirstVisitsBefore(t + 1);
  const u32 c = counters_pow2_ ? event & (params_.counters - 1) : event_counter_[event];
  Counter& k = counters_[c];
  const SignalMode mode = modeOf(c);
  if (k.frontier == t + 1 && k.pulse_cycle == t) {
    // Another pulse of a cycle already applied: only the level-high count grows.
    if (mode == SignalMode::kLevelHigh) countAt(k, c, t, count);
    return;
  }
  if (t < k.frontier) {
    fail(ExitCode::kInternal,
         "UPC-P: pulse of event {} at cycle {} after inputs of that event up to cycle {}", event, t,
         k.frontier - 1);
  }
  const Pending& pending = pending_[event];
  if (mode == SignalMode::kLevelHigh && pending.end <= k.frontier && running_) {
    // Fast path of the common case: a level-high counter with no level pending counts nothing
    // between its frontier and t, so only the visits (computed) and the increment remain.
    // With no carry pending and interrupts off the visits cannot do anything.
    if (k.carry || intEnabled(c)) {
      serviceThrough(k, c, t);
    } else {
      k.visit_frontier = t + 1;
    }
    stats_.events_counted += count;
    const u64 total = k.low + count;
    k.low = static_cast<u32>(total & low_mask_);
    if (total > low_mask_) carryOut(c, t, total >> params_.low_bits, k.carry, k.armed);
    k.high_until = t + 1;
    k.frontier = t + 1;
    k.pulse_cycle = t;
    horizon_ = std::max(horizon_, t + 1);
    return;
  }
  advance(c, t);
  serviceThrough(k, c, t);
  const bool level_too = pending.begin <= t && t < pending.end;
  if (mode == SignalMode::kLevelHigh) {
    countAt(k, c, t, count + (level_too ? 1 : 0));
  } else if (mode == SignalMode::kRisingEdge && k.high_until != t) {
    countAt(k, c, t, 1);
  }
  k.high_until = t + 1;
  k.frontier = t + 1;
  k.pulse_cycle = t;
  horizon_ = std::max(horizon_, t + 1);
}

void Unit::level(u32 event, Cycle t0, Cycle t1) {
  checkInput(t0);
  if (t1 <= t0) return;
  Pending& p = pending_[event];
  if ((interest_[event >> 6] >> (event & 63)) & 1) {
    if (cycle_mode_) leaveCycleMode();
    if (params_.policy == Policy::kLargestFirst) largestFirstVisitsBefore(t0);
    const u32 c = event_counter_[event];
    Counter& k = counters_[c];
    if (k.frontier == t0 + 1 && k.pulse_cycle == t0) {
      // A pulse of cycle t0 was applied already; the level adds its occurrence at t0 unless
      // an earlier level interval covered t0 (overlapping levels are a union).
      const bool covered = p.begin <= t0 && t0 < p.end;
      if (!covered && modeOf(c) == SignalMode::kLevelHigh) countAt(k, c, t0, 1);
    } else {
      if (t0 < k.frontier) {
        fail(ExitCode::kInternal,
             "UPC-P: level of event {} from cycle {} after inputs of that event up to cycle {}",
             event, t0, k.frontier - 1);
      }
      // A disjoint new interval replaces the pending one: count the old one to its end first.
      // Otherwise nothing is counted yet, so accesses before t0 remain possible.
      if (p.end > p.begin && p.end > k.frontier && t0 > p.end) advance(c, p.end);
    }
    horizon_ = std::max(horizon_, k.frontier);
  } else if (p.end > p.begin && t0 > p.end && p.end > now_) {
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
// Scalar engine

void Unit::advance(u32 c, Cycle until) {
  Counter& k = counters_[c];
  if (until <= k.frontier) return;
  const Cycle from = k.frontier;
  const Pending& p = pending_[eventOf(c)];
  Cycle a = until, b = until;
  if (p.end > p.begin && p.end > from && p.begin < until) {
    a = std::max(p.begin, from);
    b = std::min(p.end, until);
  }
  segment(k, c, from, a, false);
  segment(k, c, a, b, true);
  segment(k, c, b, until, false);
  serviceThrough(k, c, until - 1);
  k.frontier = until;
}

void Unit::segment(Counter& k, u32 c, Cycle x, Cycle y, bool high) {
  if (x >= y) return;
  const bool was_high = k.high_until == x;
  switch (modeOf(c)) {
    case SignalMode::kLevelHigh:
      if (high) countRun(k, c, x, y - x);
      break;
    case SignalMode::kLevelLow:
      if (!high) countRun(k, c, x, y - x);
      break;
    case SignalMode::kRisingEdge:
      if (high && !was_high) countRun(k, c, x, 1);
      break;
    case SignalMode::kFallingEdge:
      if (!high && was_high) countRun(k, c, x, 1);
      break;
  }
  if (high) k.high_until = y;
}

// One event in each cycle of [x, x + n). Carries happen at computed cycles; before each, the
// visits up to and including its cycle are applied, so every carry meets the state machine in
// the order the hardware would.
void Unit::countRun(Counter& k, u32 c, Cycle x, u64 n) {
  if (!running_ || n == 0) return;
  stats_.events_counted += n;
  for (;;) {
    const u64 room = low_mask_ - k.low;  // events that fit without a carry
    if (n <= room) {
      k.low += static_cast<u32>(n);
      return;
    }
    const Cycle carry_cycle = x + room;
    serviceThrough(k, c, carry_cycle);
    k.low = 0;
    carryOut(c, carry_cycle, 1, k.carry, k.armed);
    n -= room + 1;
    x = carry_cycle + 1;
    if (n == 0) return;
  }
}

// n events in cycle t.
void Unit::countAt(Counter& k, u32 c, Cycle t, u64 n) {
  if (!running_ || n == 0) return;
  stats_.events_counted += n;
  serviceThrough(k, c, t);
  const u64 total = k.low + n;
  k.low = static_cast<u32>(total & low_mask_);
  const u64 carries = total >> params_.low_bits;
  if (carries != 0) carryOut(c, t, carries, k.carry, k.armed);
}

bool Unit::needsVisit(const Counter& k, u32 c) const {
  if (k.carry) return true;
  if (!intEnabled(c) || k.armed) return false;
  return sram_data_[c] == (threshold_ >> params_.low_bits) ||
         (parity_bad_[c] && !parity_reported_[c]);
}

// Applies the visits of cycles [visit_frontier, t]. Between two changes of a counter's state
// only the first visit can do anything (it clears the latch, arms, reports parity), so only it
// is computed.
void Unit::serviceThrough(Counter& k, u32 c, Cycle t) {
  if (t < k.visit_frontier) return;
  if (params_.policy == Policy::kRoundRobin && needsVisit(k, c)) {
    const Cycle v = nextVisit(c, k.visit_frontier);
    if (v <= t) visitEntry(c, v, k.carry, k.armed);
  }
  k.visit_frontier = t + 1;
}

void Unit::syncAll(Cycle now) {
  for (u32 c = 0; c < params_.counters; ++c) advance(c, now);
}

void Unit::largestFirstVisitsBefore(Cycle t) {
  const u64 s = params_.service_cycles;
  while (lcf_next_slot_ < t) {
    const Cycle v = lcf_next_slot_;
    u32 best = 0;
    u64 best_value = 0;
    for (u32 c = 0; c < params_.counters; ++c) {
      advance(c, v);
      const Counter& k = counters_[c];
      const u64 value = (k.carry ? u64{1} << params_.low_bits : 0) + k.low;
      if (value > best_value) {
        best_value = value;
        best = c;
      }
    }
    if (best_value != 0) {
      Counter& k = counters_[best];
      if (k.carry)
        stats_.max_service_latency = std::max(stats_.max_service_latency, v - carry_cycle_[best]);
      k.low = 0;
      k.carry = false;
      flush(best, v, best_value);
    }
    lcf_next_slot_ = v + s;
  }
}

// ---------------------------------------------------------------------------------------------
// Hardware actions shared by both engines

void Unit::visitEntry(u32 c, Cycle v, bool& carry, bool& armed) {
  const bool compare = intEnabled(c) && !armed;
  if (!carry && !compare) return;  // nothing to do: the entry is not even read
  u64 word = sramRead(c, v);
  if (carry) {
    word = (word + 1) & data_mask_;
    sramWrite(c, word);
    carry = false;
    ++stats_.carries_serviced;
    stats_.max_service_latency = std::max(stats_.max_service_latency, v - carry_cycle_[c]);
  }
  if (compare && word == (threshold_ >> params_.low_bits)) armed = true;
}

void Unit::carryOut(u32 c, Cycle t, u64 carries, bool& carry, bool& armed) {
  stats_.carries += carries;
  const u64 lost = carry ? carries : carries - 1;
  if (!carry) {
    carry = true;
    carry_cycle_[c] = t;
  }
  if (lost != 0) {
    stats_.lost_carries += lost;
    lost_per_counter_[c] += lost;
  }
  if (armed) {
    armed = false;
    raise(c, t);
  }
}

void Unit::flush(u32 c, Cycle v, u64 value) {
  const u64 word = sramRead(c, v);
  sramWrite(c, word + value);
  ++stats_.flushes;
  stats_.max_flushed_value = std::max(stats_.max_flushed_value, value);
}

u64 Unit::sramRead(u32 c, Cycle t) {
  if (parity_bad_[c]) reportParity(c, t);
  return sram_data_[c];
}

void Unit::sramWrite(u32 c, u64 data) {
  sram_data_[c] = data & data_mask_;
  sram_parity_[c] = parityOf(sram_data_[c]);
  if (parity_bad_[c]) {
    parity_bad_[c] = 0;
    parity_reported_[c] = 0;
    std::erase(bad_entries_, c);
  }
}

// Even parity: parity bit i makes data bits [i x g, (i + 1) x g) plus itself even.
u64 Unit::parityOf(u64 data) const {
  const u32 g = params_.parity_group_bits;
  u64 parity = 0;
  for (u32 i = 0; i < parity_bits_; ++i) {
    const u32 lo = i * g;
    const u32 width = std::min(g, data_bits_ - lo);
    parity |= u64(std::popcount(bitField(data, lo, width)) & 1) << i;
  }
  return parity;
}

void Unit::reportParity(u32 c, Cycle t) {
  if (parity_reported_[c]) return;  // already recorded; the sticky state would not change
  parity_reported_[c] = 1;
  ++stats_.parity_errors;
  putBit(parity_mask_, c, true);
  parity_reports_.push_back({c, t, parity_interrupts_});
  if (!parity_valid_ || t < parity_first_cycle_ ||
      (t == parity_first_cycle_ && c < parity_first_counter_)) {
    parity_valid_ = true;
    parity_first_counter_ = c;
    parity_first_cycle_ = t;
  }
  // With parity interrupts enabled the unit interrupts, naming the counter; software tells it
  // from a threshold interrupt by PARITY_STATUS (its INTERRUPT_STATUS bit is not set).
  if (parity_interrupts_) {
    ++stats_.parity_interrupts;
    deliver({c, t});
  }
}

void Unit::raise(u32 c, Cycle t) {
  putBit(int_status_, c, true);
  ++stats_.interrupts;
  deliver({c, t});
}

void Unit::deliver(const Interrupt& irq) {
  if (on_interrupt_) {
    on_interrupt_(irq);
  } else {
    raised_.push_back(irq);
  }
}

void Unit::accessError(u64 bits, u64 offset) {
  if (access_error_ == 0) access_error_ = (offset & 0xFFFFFFFFu) << 32;
  access_error_ |= bits;
  ++stats_.access_errors;
}

std::vector<Interrupt> Unit::takeInterrupts() {
  std::vector<Interrupt> out;
  out.swap(raised_);
  std::sort(out.begin(), out.end(), [](const Interrupt& a, const Interrupt& b) {
    return a.cycle != b.cycle ? a.cycle < b.cycle : a.counter < b.counter;
  });
  return out;
}

bool Unit::interruptLine() const {
  return (parity_interrupts_ && parity_valid_) ||
         std::any_of(int_status_.begin(), int_status_.end(), [](u64 w) { return w != 0; });
}

// ---------------------------------------------------------------------------------------------
// Register window

u64 Unit::counterValue(u32 c, Cycle now) {
  advance(c, now);
  const Counter& k = counters_[c];
  const u64 word = sramRead(c, now);
  if (params_.policy == Policy::kRoundRobin) {
    return ((word + (k.carry ? 1 : 0)) << params_.low_bits) + k.low;
  }
  return word + (k.carry ? u64{1} << params_.low_bits : 0) + k.low;
}

u64 Unit::read(u64 offset, Cycle now) {
  beginAccess(now);
  if (offset % 8 != 0) {
    accessError(kMisaligned, offset);
    return 0;
  }
  const RegisterMap& m = map_;
  if (offset < m.config_base) return counterValue(static_cast<u32>(offset / 8), now);
  if (offset < m.start_stop) {
    const u32 group = static_cast<u32>((offset - m.config_base) / 8);
    u64 value = 0;
    for (u32 j = 0; j < 8; ++j) value |= u64{config_[group * 8 + j]} << (8 * j);
    return value;
  }
  if (offset == m.start_stop) return (running_ ? 1 : 0) | (parity_interrupts_ ? 2 : 0);
  if (offset == m.threshold) return threshold_;
  if (offset == m.access_error) return access_error_;
  if (offset == m.unit_info) {
    return u64{params_.counters} | u64{params_.low_bits} << 16 | u64{params_.banks()} << 24 |
           u64{params_.service_cycles} << 32 | u64{static_cast<u8>(params_.policy)} << 48;
  }
  const u64 words = m.status_words * 8;
  const bool status = offset == m.parity_status || offset == m.interrupt_line ||
                      (offset >= m.interrupt_status && offset < m.parity_errors + words);
  if (!status) {
    accessError(kUnmappedRead, offset);
    return 0;
  }
  syncAll(now);  // status bits of earlier cycles may still be pending in lazy counters
  if (offset == m.parity_status) {
    return parity_valid_ ? u64{1} << 63 | parity_first_counter_ : 0;
  }
  if (offset == m.interrupt_line) return interruptLine() ? 1 : 0;
  if (offset < m.armed_status) return int_status_[(offset - m.interrupt_status) / 8];
  if (offset < m.parity_errors) {
    const u32 w = static_cast<u32>((offset - m.armed_status) / 8);
    u64 value = 0;
    for (u32 b = 0; b < 64 && w * 64 + b < params_.counters; ++b) {
      value |= u64{counters_[w * 64 + b].armed} << b;
    }
    return value;
  }
  return parity_mask_[(offset - m.parity_errors) / 8];
}

void Unit::write(u64 offset, u64 value, Cycle now) {
  beginAccess(now);
  if (offset % 8 != 0) {
    accessError(kMisaligned, offset);
    return;
  }
  const RegisterMap& m = map_;
  if (offset < m.config_base) {
    const u32 c = static_cast<u32>(offset / 8);
    advance(c, now);
    Counter& k = counters_[c];
    if (params_.policy == Policy::kRoundRobin) {
      sramWrite(c, value >> params_.low_bits);
      k.low = static_cast<u32>(value & low_mask_);
    } else {
      sramWrite(c, value);
      k.low = 0;
    }
    k.carry = false;
    k.armed = false;
    return;
  }
  if (offset < m.start_stop) {
    writeConfig(static_cast<u32>((offset - m.config_base) / 8), value, now);
    return;
  }
  const u64 words = m.status_words * 8;
  if (offset == m.start_stop) {
    syncAll(now);
    running_ = value & 1;
    parity_interrupts_ = (value & 2) != 0;
    if (value & ~u64{3}) accessError(kReservedBits, offset);
  } else if (offset == m.threshold) {
    syncAll(now);
    if (value & low_mask_) accessError(kReservedBits, offset);
    threshold_ = value & ~low_mask_;
  } else if (offset == m.access_error) {
    if (value & 0xFFFFFFF0u) accessError(kReservedBits, offset);
    access_error_ &= ~(value & 0xF);
    if ((access_error_ & 0xF) == 0) access_error_ = 0;
  } else if (offset == m.parity_status) {
    syncAll(now);
    if (value & ~(u64{1} << 63)) accessError(kReservedBits, offset);
    if (value >> 63) {
      parity_valid_ = false;
      for (u32 c : bad_entries_) parity_reported_[c] = 0;  // a new failing read reports again
    }
  } else if (offset >= m.interrupt_status && offset < m.armed_status) {
    syncAll(now);
    const u32 w = static_cast<u32>((offset - m.interrupt_status) / 8);
    if (value & ~all_mask_[w]) accessError(kReservedBits, offset);
    int_status_[w] &= ~value;
  } else if (offset >= m.parity_errors && offset < m.parity_errors + words) {
    syncAll(now);
    const u32 w = static_cast<u32>((offset - m.parity_errors) / 8);
    if (value & ~all_mask_[w]) accessError(kReservedBits, offset);
    parity_mask_[w] &= ~value;
    for (u32 c : bad_entries_) {
      if (c / 64 == w && ((value >> (c % 64)) & 1)) parity_reported_[c] = 0;
    }
  } else {
    accessError(kUnmappedWrite, offset);  // unmapped, or read-only (line, info, armed)
  }
}

void Unit::writeConfig(u32 group, u64 value, Cycle now) {
  for (u32 j = 0; j < 8; ++j) {
    const u32 c = group * 8 + j;
    advance(c, now);
    u8 byte = static_cast<u8>(value >> (8 * j));
    if (byte & 0xE0) {
      accessError(kReservedBits, map_.config(group));
      byte &= 0x1F;
    }
    if ((byte & 3u) >= params_.banks()) {  // no such input bank: keep the old select
      accessError(kReservedBits, map_.config(group));
      byte = static_cast<u8>((byte & ~3u) | selectOf(c));
    }
    if (!(byte & 0x10)) counters_[c].armed = false;
    config_[c] = byte;
  }
  rebuildInterest();
}

void Unit::rebuildInterest() {
  std::vector<u64> next(interest_.size(), 0);
  for (u32 c = 0; c < params_.counters; ++c) {
    const u32 e = eventOf(c);
    next[e >> 6] |= u64{1} << (e & 63);
  }
  if (next != interest_) {
    interest_ = next;  // same size: the storage (and every Interest span) stays put
    ++interest_epoch_;
  }
}

void Unit::advanceTo(Cycle now) {
  beginAccess(now);
  syncAll(now);
}

CounterState Unit::inspect(u32 counter, Cycle now) {
  beginAccess(now);
  advance(counter, now);
  const Counter& k = counters_[counter];
  CounterState s;
  s.sram_word = sram_data_[counter];
  s.low = k.low;
  s.carry = k.carry;
  s.armed = k.armed;
  s.config = config_[counter];
  s.value = params_.policy == Policy::kRoundRobin
                ? ((s.sram_word + (k.carry ? 1 : 0)) << params_.low_bits) + k.low
                : s.sram_word + (k.carry ? u64{1} << params_.low_bits : 0) + k.low;
  return s;
}

void Unit::flipSramBit(u32 counter, u32 bit, Cycle now) {
  if (bit >= data_bits_ + parity_bits_) {
    fail(ExitCode::kInternal, "UPC-P: SRAM bit {} does not exist (entries have {} bits)", bit,
         data_bits_ + parity_bits_);
  }
  beginAccess(now);
  advance(counter, now);
  if (bit < data_bits_) {
    sram_data_[counter] ^= u64{1} << bit;
  } else {
    sram_parity_[counter] ^= u64{1} << (bit - data_bits_);
  }
  const bool bad = parityOf(sram_data_[counter]) != sram_parity_[counter];
  parity_bad_[counter] = bad;
  parity_reported_[counter] = 0;
  std::erase(bad_entries_, counter);
  if (bad) bad_entries_.push_back(counter);
}

// ---------------------------------------------------------------------------------------------

ThresholdPreload thresholdForCount(u64 n, u32 low_bits) {
  if (n == 0) fail(ExitCode::kConfig, "UPC-P: an interrupt after 0 events is not possible");
  const u64 q = (n >> low_bits) + ((n & lowMask(low_bits)) != 0 ? 1 : 0);  // ceil(n / 2^L)
  ThresholdPreload r;
  r.preload = (~n + 1) & lowMask(low_bits);  // q x 2^L - n, with high-order part 0
  r.threshold = (q - 1) << low_bits;
  r.arm_by_first_visit = q == 1;
  return r;
}

}  // namespace hpm::upc
