// UPC-P's per-cycle engine (unit.h, Unit::cycle): the unit fed one cycle at a time with every
// event's level, its low-order registers bit-sliced. The scalar engine and the register window
// are in unit.cpp.
#include <algorithm>
#include <bit>

#include "base/bits.h"
#include "base/error.h"
#include "pmu/upc/bitset.h"
#include "pmu/upc/unit.h"

namespace hpm::upc {

// ---------------------------------------------------------------------------------------------
// Per-cycle engine: low-order registers bit-sliced (plane j holds bit j of every counter), so a
// cycle costs a few word operations per plane the carries reach, whatever the activity.

u32 Unit::gatherLow(u32 c) const {
  u32 low = 0;
  for (u32 j = 0; j < params_.low_bits; ++j) {
    low |= static_cast<u32>((planes_[u64{j} * words_ + (c >> 6)] >> (c & 63)) & 1) << j;
  }
  return low;
}

void Unit::enterCycleMode(Cycle t) {
  if (params_.policy == Policy::kLargestFirst) largestFirstVisitsBefore(t);
  syncAll(t);
  std::fill(pending_.begin(), pending_.end(), Pending{});  // per-cycle levels are the truth now
  std::fill(planes_.begin(), planes_.end(), 0);
  std::fill(carry_bits_.begin(), carry_bits_.end(), 0);
  std::fill(armed_bits_.begin(), armed_bits_.end(), 0);
  std::fill(prev_bits_.begin(), prev_bits_.end(), 0);
  std::fill(bank_masks_.begin(), bank_masks_.end(), 0);
  std::fill(mode_masks_.begin(), mode_masks_.end(), 0);
  for (u32 c = 0; c < params_.counters; ++c) {
    const Counter& k = counters_[c];
    for (u32 j = 0; j < params_.low_bits; ++j) {
      if ((k.low >> j) & 1) planes_[u64{j} * words_ + (c >> 6)] |= u64{1} << (c & 63);
    }
    putBit(carry_bits_, c, k.carry);
    putBit(armed_bits_, c, k.armed);
    putBit(prev_bits_, c, k.high_until == t);
    bank_masks_[u64{selectOf(c)} * words_ + (c >> 6)] |= u64{1} << (c & 63);
    mode_masks_[u64{static_cast<u8>(modeOf(c))} * words_ + (c >> 6)] |= u64{1} << (c & 63);
  }
  const u64 s = params_.service_cycles;
  next_slot_ = t + (s - (t + params_.service_phase) % s) % s;
  next_entry_ = static_cast<u32>(((next_slot_ + params_.service_phase) / s) % params_.counters);
  cycle_next_ = t;
  cycle_mode_ = true;
  cycle_low_sum_ = 0;
  for (const Counter& k : counters_) cycle_low_sum_ += k.low;
  cycle_carries_ = stats_.carries;
  cycle_flushed_ = 0;
}

void Unit::leaveCycleMode() {
  const Cycle t = cycle_next_;
  for (u32 c = 0; c < params_.counters; ++c) {
    Counter& k = counters_[c];
    k.low = gatherLow(c);
    k.carry = testBit(carry_bits_, c);
    k.armed = testBit(armed_bits_, c);
    k.high_until = testBit(prev_bits_, c) ? t : kNever;
    k.frontier = t;
    k.visit_frontier = t;
    k.pulse_cycle = kNever;
  }
  lcf_next_slot_ = next_slot_;
  cycle_mode_ = false;
  // Every increment either stayed in a low-order register, carried out, or was flushed.
  u64 low_sum = 0;
  for (const Counter& k : counters_) low_sum += k.low;
  stats_.events_counted += low_sum - cycle_low_sum_ + cycle_flushed_ +
                           ((stats_.carries - cycle_carries_) << params_.low_bits);
  horizon_ = std::max(horizon_, t);
}

void Unit::cycle(Cycle t, std::span<const u64> levels) {
  if (levels.size() < (params_.events + 63) / 64) {
    fail(ExitCode::kInternal, "UPC-P: per-cycle input has {} words, the unit has {} events",
         levels.size(), params_.events);
  }
  checkInput(t);
  if (!cycle_mode_ || t != cycle_next_) {
    if (cycle_mode_) leaveCycleMode();
    if (t < horizon_) {
      fail(ExitCode::kInternal, "UPC-P: per-cycle input for cycle {} after inputs up to cycle {}",
           t, horizon_ - 1);
    }
    enterCycleMode(t);
  }
  step(t, levels);
  cycle_next_ = t + 1;
  horizon_ = t + 1;
}

void Unit::step(Cycle t, std::span<const u64> levels) {
  if (t == next_slot_) {
    if (params_.policy == Policy::kRoundRobin) {
      const u32 c = next_entry_;
      bool carry = testBit(carry_bits_, c), armed = testBit(armed_bits_, c);
      visitEntry(c, t, carry, armed);
      putBit(carry_bits_, c, carry);
      putBit(armed_bits_, c, armed);
      next_entry_ = c + 1 == params_.counters ? 0 : c + 1;
    } else {
      largestFirstFlushBits(t);
    }
    next_slot_ += params_.service_cycles;
  }
  // The seed's shape (256 counters, four banks) gets a version with constant loop bounds, which
  // the compiler unrolls and vectorises; other shapes take the general one.
  if (words_ == 4 && params_.banks() == 4) {
    countCycle<4, 4>(t, levels);
  } else {
    countCycle<0, 0>(t, levels);
  }
}

template <u32 kWords, u32 kBanks>
void Unit::countCycle(Cycle t, std::span<const u64> levels) {
  const u32 w_count = kWords != 0 ? kWords : words_;
  const u32 banks = kBanks != 0 ? kBanks : params_.banks();
  const bool aligned = params_.counters % 64 == 0;
  // With a constant shape the increments live in a local array, which the compiler keeps in
  // registers: through the member scratch array every plane's stores might alias them, and the
  // ripple below would reload them from memory at every step.
  u64 local_count[kWords != 0 ? kWords : 1];
  u64* count = kWords != 0 ? local_count : scratch_.data();
  const u64* high = &mode_masks_[0];
  const u64* low = &mode_masks_[u64{w_count}];
  const u64* rise = &mode_masks_[2 * u64{w_count}];
  const u64* fall = &mode_masks_[3 * u64{w_count}];
  u64 any = 0;
  for (u32 w = 0; w < w_count; ++w) {
    u64 sig = 0;
    for (u32 s = 0; s < banks; ++s) {
      u64 word;
      if (kWords != 0 || aligned) {
        word = levels[u64{s} * w_count + w];
      } else {  // bank s starts at bit s x N: shift the words into place
        const u64 bit = u64{s} * params_.counters + u64{w} * 64;
        const u64 i = bit / 64, shift = bit % 64;
        word = levels[i] >> shift;
        if (shift != 0 && i + 1 < levels.size()) word |= levels[i + 1] << (64 - shift);
      }
      sig |= word & bank_masks_[u64{s} * w_count + w];
    }
    const u64 prev = prev_bits_[w];
    count[w] =
        (sig & high[w]) | (~sig & low[w]) | (sig & ~prev & rise[w]) | (~sig & prev & fall[w]);
    prev_bits_[w] = sig;
    any |= count[w];
  }
  if (!running_ || any == 0) return;
  // events_counted is settled when the unit leaves per-cycle mode (no popcount per cycle).
  // Ripple-carry increment of the bit-sliced registers by `count`.
  u64* plane = planes_.data();
  for (u32 j = 0; j < params_.low_bits; ++j, plane += w_count) {
    any = 0;
    for (u32 w = 0; w < w_count; ++w) {
      const u64 p = plane[w];
      plane[w] = p ^ count[w];
      count[w] &= p;
      any |= count[w];
    }
    if (any == 0) return;
  }
  handleCarryOuts(count, t);
}

void Unit::handleCarryOuts(const u64* carry_out, Cycle t) {
  for (u32 w = 0; w < words_; ++w) {
    for (u64 bits = carry_out[w]; bits != 0; bits &= bits - 1) {
      const u32 c = w * 64 + static_cast<u32>(std::countr_zero(bits));
      bool carry = testBit(carry_bits_, c), armed = testBit(armed_bits_, c);
      carryOut(c, t, 1, carry, armed);
      putBit(carry_bits_, c, carry);
      putBit(armed_bits_, c, armed);
    }
  }
}

// Largest-first slot on the bit-sliced registers: narrow the candidate set plane by plane from
// the carry latch (worth 2^L) down to bit 0; the lowest-numbered survivor is the largest.
void Unit::largestFirstFlushBits(Cycle v) {
  const u32 w_count = words_;
  u64* cand = scratch_.data() + w_count;
  std::copy(all_mask_.begin(), all_mask_.end(), cand);
  auto narrow = [&](const u64* bits) {
    u64 any = 0;
    for (u32 w = 0; w < w_count; ++w) any |= cand[w] & bits[w];
    if (any == 0) return;
    for (u32 w = 0; w < w_count; ++w) cand[w] &= bits[w];
  };
  narrow(carry_bits_.data());
  for (u32 j = params_.low_bits; j-- > 0;) narrow(&planes_[u64{j} * w_count]);
  u32 c = 0;
  for (u32 w = 0; w < w_count; ++w) {
    if (cand[w] != 0) {
      c = w * 64 + static_cast<u32>(std::countr_zero(cand[w]));
      break;
    }
  }
  const bool carry = testBit(carry_bits_, c);
  const u32 low = gatherLow(c);
  const u64 value = (carry ? u64{1} << params_.low_bits : 0) + low;
  if (value == 0) return;
  if (carry) stats_.max_service_latency = std::max(stats_.max_service_latency, v - carry_cycle_[c]);
  putBit(carry_bits_, c, false);
  cycle_flushed_ += low;  // the carry's 2^L events are counted with the carries
  for (u32 j = 0; j < params_.low_bits; ++j) {
    planes_[u64{j} * w_count + (c >> 6)] &= ~(u64{1} << (c & 63));
  }
  flush(c, v, value);
}

}  // namespace hpm::upc
