// The oracles UPC-Q is held against:
//  - IdealCounter: an ideal 64-bit counter with the four signal modes, stepped one cycle at a time;
//  - RefModel: docs/upcq.md's timing rules transcribed literally, one cycle at a time (accesses,
//    then sweep visits, then events, then interrupts), with none of the unit's lazy machinery;
//  - Scenario / drive(): random inputs and register operations, fed to a unit and to the model.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <vector>

#include "pmu/upcq/units.h"

namespace hpm::upcq::testing {

struct IdealCounter {
  SignalMode mode = SignalMode::kLevelHigh;
  bool prev_high = false;
  u64 value = 0;
  // Cycle t: the selected signal carries n occurrences (n > 0 means high). Returns the increment
  // the mode gives (counted only if `counting`).
  u64 step(u64 n, bool counting) {
    const bool high = n > 0;
    u64 inc = 0;
    switch (mode) {
      case SignalMode::kLevelHigh: inc = n; break;
      case SignalMode::kLevelLow: inc = high ? 0 : 1; break;
      case SignalMode::kRisingEdge: inc = high && !prev_high ? 1 : 0; break;
      case SignalMode::kFallingEdge: inc = !high && prev_high ? 1 : 0; break;
    }
    prev_high = high;
    if (!counting) return 0;
    value += inc;
    return inc;
  }
};

inline SignalMode modeOf(u64 config) {
  return static_cast<SignalMode>((config >> config_bits::kModeShift) & 3);
}

// One input: a pulse (count occurrences in cycle t0) or a level (high over [t0, t1)).
struct Input {
  u32 port = 0, event = 0;
  Cycle t0 = 0, t1 = 0;
  u64 count = 0;  // 0 for a level
};

// One register operation (or driver call) at cycle `at`.
struct Op {
  enum Kind { kRead, kWrite, kGlobalRun, kDeliver } kind = kRead;
  Cycle at = 0;
  u64 offset = 0;
  u64 value = 0;
};

// The shape of the unit under test, as the model needs it.
struct RefShape {
  u32 ports = 1, counters = 1, events = 1;
  u32 local_bits = 0;  // 0 = direct
  Sweep sweep;
  u64 first_slot = 0;
  u32 latency = 0;
  bool fast = true, freeze = false, hold = false, exact_regs = false, has_mode = false;
  bool combined = false, run_at_reset = false;
};

inline RefShape shapeOf(const PUnitParams& p, u32 core) {
  RefShape s;
  s.counters = p.counters;
  s.events = p.events;
  s.local_bits = p.local_bits;
  s.sweep = p.sweep;
  s.first_slot = u64{core} * p.counters;
  s.latency = p.overflow_latency;
  s.freeze = true;
  s.exact_regs = true;
  return s;
}
inline RefShape shapeOf(const L2UnitParams& p) {
  RefShape s;
  s.ports = p.slices;
  s.counters = p.counters;
  s.events = p.events;
  s.local_bits = p.local_bits;
  s.sweep = p.sweep;
  s.latency = p.overflow_latency;
  s.fast = false;
  s.hold = true;
  s.has_mode = true;
  s.combined = !p.sliced;
  return s;
}
inline RefShape shapeOf(const IOUnitParams& p) {
  RefShape s;
  s.counters = p.counters;
  s.events = p.events;
  s.local_bits = p.local_bits;
  s.sweep = p.sweep;
  s.latency = p.overflow_latency;
  s.fast = false;
  s.hold = true;
  return s;
}
inline RefShape shapeOf(const CNKUnitParams& p) {
  RefShape s;
  s.counters = p.counters;
  s.events = p.events;
  s.latency = p.overflow_latency;
  s.run_at_reset = true;
  return s;
}

// The documented semantics, one cycle at a time.
class RefModel {
 public:
  static constexpr Cycle kNone = ~Cycle{0};

  RefModel(const RefShape& s, UnitKind kind, u32 instance, Cycle cycles,
           const std::vector<Input>& inputs)
      : s_(s), kind_(kind), instance_(instance), map_(s.ports * s.counters) {
    const u32 n = s.ports * s.counters;
    local_.assign(n, 0);
    central_.assign(n, 0);
    threshold_.assign(n, 0);
    config_.assign(n, 0);
    ideal_.assign(n, 0);
    lost_.assign(n, 0);
    prev_.assign(n, false);
    freeze_at_.assign(n, kNone);
    irq_at_.assign(n, kNone);
    status_.assign(n, false);
    running_ = s.run_at_reset;
    signal_.assign(u64{s.ports} * s.events, std::vector<u32>(cycles + 1, 0));
    for (const Input& in : inputs) {
      auto& sig = signal_[u64{in.port} * s.events + in.event];
      if (in.count != 0) {
        sig[in.t0] += static_cast<u32>(in.count) << 1;  // bit 0 keeps the level
      } else {
        for (Cycle t = in.t0; t < std::min<Cycle>(in.t1, cycles + 1); ++t) sig[t] |= 1;
      }
    }
  }

  u32 n() const { return s_.ports * s_.counters; }
  u32 centralOf(u32 i) const { return combined() ? i % s_.counters : i; }
  bool combined() const { return s_.has_mode && s_.combined; }
  bool active(u32 j) const { return !combined() || j < s_.counters; }
  std::vector<u32> feeders(u32 j) const {
    std::vector<u32> f;
    if (combined()) {
      for (u32 p = 0; p < s_.ports; ++p) f.push_back(p * s_.counters + j);
    } else {
      f.push_back(j);
    }
    return f;
  }
  bool watching(u32 j) const {
    return (config_[j] & config_bits::kOverflowEnable) && !status_[j] && irq_at_[j] == kNone;
  }
  bool counting() const { return running_ && global_ && !held_; }
  static bool reaches(u64 old, u64 inc, u64 threshold) {
    return inc != 0 && threshold - old - 1 < inc;
  }
  u64 occurrences(u32 i, Cycle t) const {
    const u32 e = static_cast<u32>(config_[i] & config_bits::kEventMask);
    const u32 v = signal_[u64{i / s_.counters} * s_.events + e][t];
    return (v & 1) + (v >> 1);
  }

  // Step 1 of cycle t: a register access.
  u64 read(u64 offset) const {
    const RegisterMap& m = map_;
    if (offset < m.control) {
      const u32 array = static_cast<u32>(offset / m.stride);
      const u32 i = static_cast<u32>((offset % m.stride) / 8);
      if (array == 1) return config_[i];
      if (!active(i)) return 0;
      switch (array) {
        case 0: return central_[i];
        case 2: return threshold_[i];
        case 3: return central_[i] + local_[i];
        default: return local_[i];
      }
    }
    if (offset == m.run) return (running_ ? 1 : 0) | (held_ ? 2 : 0);
    if (offset == m.mode) return combined() ? 0 : 1;
    if (offset == m.interrupt_line) return line() ? 1 : 0;
    if (offset >= m.overflow_status) {
      const u32 w = static_cast<u32>((offset - m.overflow_status) / 8);
      u64 bits = 0;
      for (u32 b = 0; b < 64 && w * 64 + b < n(); ++b) bits |= u64{status_[w * 64 + b]} << b;
      return bits;
    }
    ADD_FAILURE() << "model cannot read offset " << offset;
    return 0;
  }

  void write(u64 offset, u64 value) {
    const RegisterMap& m = map_;
    if (offset < m.control) {
      const u32 array = static_cast<u32>(offset / m.stride);
      const u32 i = static_cast<u32>((offset % m.stride) / 8);
      if (array == 1) {
        if (combined()) {
          for (u32 f : feeders(i)) config_[f] = value;
        } else {
          config_[i] = value;
        }
      } else if (array == 0) {
        central_[i] = value;
        for (u32 f : feeders(i)) local_[f] = 0;
      } else {
        threshold_[i] = value;
      }
      return;
    }
    if (offset == m.run) {
      running_ = value & 1;
      if (s_.hold) held_ = value & 2;
    } else if (offset == m.reset) {
      if (value & 1) clearCounts();
    } else if (offset == m.mode) {
      const bool comb = !(value & 1);
      if (comb != combined()) {
        s_.combined = comb;
        if (comb) {
          for (u32 i = s_.counters; i < n(); ++i) config_[i] = config_[i % s_.counters];
        }
        clearCounts();
      }
    } else if (offset >= m.overflow_status) {
      const u32 w = static_cast<u32>((offset - m.overflow_status) / 8);
      for (u32 b = 0; b < 64; ++b) {
        const u32 j = w * 64 + b;
        if (!((value >> b) & 1) || j >= n() || !status_[j]) continue;
        status_[j] = false;
        if (s_.freeze) {
          for (u32 f : feeders(j)) freeze_at_[f] = kNone;
        }
      }
      if (held_ && !line()) held_ = false;
    } else {
      ADD_FAILURE() << "model cannot write offset " << offset;
    }
  }
  void setGlobalRun(bool on) { global_ = on; }
  void deliver() { held_ = true; }

  // Steps 2 to 4 of cycle t.
  void step(Cycle t) {
    if (s_.local_bits != 0) {
      for (u32 i = 0; i < n(); ++i) {
        const u64 slot = ((s_.first_slot + i) * s_.sweep.slot_cycles) % s_.sweep.period;
        if ((t + s_.sweep.phase) % s_.sweep.period != slot) continue;
        const u32 j = centralOf(i);
        const u64 old = central_[j], amount = local_[i];
        central_[j] += amount;
        local_[i] = 0;
        if (!s_.fast && watching(j) && reaches(old, amount, threshold_[j])) {
          irq_at_[j] = t + s_.latency;
        }
      }
    }
    for (u32 i = 0; i < n(); ++i) {
      const u64 occ = occurrences(i, t);
      const bool high = occ > 0;
      u64 inc = 0;
      switch (modeOf(config_[i])) {
        case SignalMode::kLevelHigh: inc = occ; break;
        case SignalMode::kLevelLow: inc = high ? 0 : 1; break;
        case SignalMode::kRisingEdge: inc = high && !prev_[i] ? 1 : 0; break;
        case SignalMode::kFallingEdge: inc = !high && prev_[i] ? 1 : 0; break;
      }
      prev_[i] = high;
      if (!counting() || t >= freeze_at_[i] || inc == 0) continue;
      const u32 j = centralOf(i);
      if (s_.fast && watching(j) && reaches(central_[j] + local_[i], inc, threshold_[j])) {
        irq_at_[j] = t + s_.latency;
        if (s_.freeze) freeze_at_[i] = t + s_.latency + 1;
      }
      ideal_[i] += inc;
      if (s_.local_bits == 0) {
        central_[j] += inc;
      } else {
        const u128 total = u128{local_[i]} + inc;
        local_[i] = static_cast<u64>(total) & ((u64{1} << s_.local_bits) - 1);
        lost_[i] += static_cast<u64>(total >> s_.local_bits);
      }
    }
    for (u32 j = 0; j < n(); ++j) {
      if (irq_at_[j] != t) continue;
      irq_at_[j] = kNone;
      status_[j] = true;
      irqs_.push_back({kind_, instance_, j, t});
    }
  }

  bool line() const {
    return std::any_of(status_.begin(), status_.end(), [](bool b) { return b; });
  }
  const std::vector<Interrupt>& interrupts() const { return irqs_; }
  const std::vector<u64>& ideal() const { return ideal_; }
  const std::vector<u64>& lost() const { return lost_; }
  const RegisterMap& map() const { return map_; }

 private:
  void clearCounts() {
    std::fill(central_.begin(), central_.end(), 0);
    std::fill(local_.begin(), local_.end(), 0);
    std::fill(status_.begin(), status_.end(), false);
    std::fill(irq_at_.begin(), irq_at_.end(), kNone);
    std::fill(freeze_at_.begin(), freeze_at_.end(), kNone);
    held_ = false;
  }

  RefShape s_;
  UnitKind kind_;
  u32 instance_;
  RegisterMap map_;
  std::vector<u64> local_, central_, threshold_, config_, ideal_, lost_;
  std::vector<bool> prev_, status_;
  std::vector<Cycle> freeze_at_, irq_at_;
  std::vector<std::vector<u32>> signal_;  // per port x event, per cycle: pulses << 1 | level
  bool running_ = false, global_ = true, held_ = false;
  std::vector<Interrupt> irqs_;
};

// Feeds a unit: how to deliver inputs and driver calls to its class.
struct Driver {
  std::function<void(const Input&)> input;
  std::function<void(bool, Cycle)> global_run;  // may be empty
  std::function<void(Cycle)> deliver;           // may be empty
};

struct DriveResult {
  u64 reads = 0;       // reads compared
  u64 interrupts = 0;  // interrupts compared
};

// Runs `ops` and `inputs` over [0, cycles) on the unit and on the model: every read must agree,
// and so must the interrupts and the lost wraps. With `by_port`, the inputs between two accesses
// are delivered port by port (last port first), each port in time order: the contract only
// orders the inputs of one event, and a combined L2 counter must still order its slices' visits.
inline DriveResult drive(Unit& unit, RefModel& model, const Driver& driver,
                         std::vector<Input> inputs, std::vector<Op> ops, Cycle cycles,
                         bool by_port = false) {
  std::stable_sort(inputs.begin(), inputs.end(),
                   [](const Input& a, const Input& b) { return a.t0 < b.t0; });
  std::stable_sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) { return a.at < b.at; });
  std::size_t in = 0, op = 0;
  std::vector<Input> batch;
  auto flush = [&] {
    std::stable_sort(batch.begin(), batch.end(),
                     [](const Input& a, const Input& b) { return a.port > b.port; });
    for (const Input& x : batch) driver.input(x);
    batch.clear();
  };
  auto deliver = [&](const Input& x) {
    if (by_port) {
      batch.push_back(x);
    } else {
      driver.input(x);
    }
  };
  DriveResult result;
  for (Cycle t = 0; t < cycles; ++t) {
    // Inputs of earlier cycles first, then the accesses of cycle t, then the inputs of cycle t.
    while (in < inputs.size() && inputs[in].t0 < t) deliver(inputs[in++]);
    if (op < ops.size() && ops[op].at == t) flush();
    while (op < ops.size() && ops[op].at == t) {
      const Op& o = ops[op++];
      switch (o.kind) {
        case Op::kRead: {
          const u64 got = unit.read(o.offset, t);
          const u64 want = model.read(o.offset);
          EXPECT_EQ(got, want) << "read of offset 0x" << std::hex << o.offset << std::dec
                               << " at cycle " << t;
          ++result.reads;
          if (got != want) return result;
          break;
        }
        case Op::kWrite:
          unit.write(o.offset, o.value, t);
          model.write(o.offset, o.value);
          break;
        case Op::kGlobalRun:
          if (driver.global_run) {
            driver.global_run(o.value & 1, t);
            model.setGlobalRun(o.value & 1);
          }
          break;
        case Op::kDeliver:
          if (driver.deliver) {
            driver.deliver(t);
            model.deliver();
          }
          break;
      }
    }
    while (in < inputs.size() && inputs[in].t0 == t) deliver(inputs[in++]);
    model.step(t);
  }
  flush();
  unit.advanceTo(cycles);
  const std::vector<Interrupt> got = unit.takeInterrupts();
  std::vector<Interrupt> want = model.interrupts();
  std::stable_sort(want.begin(), want.end(), [](const Interrupt& a, const Interrupt& b) {
    return a.cycle != b.cycle ? a.cycle < b.cycle : a.counter < b.counter;
  });
  EXPECT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    EXPECT_EQ(got[i], want[i]) << "interrupt " << i << ": got counter " << got[i].counter << " at "
                               << got[i].cycle << ", want counter " << want[i].counter << " at "
                               << want[i].cycle;
  }
  result.interrupts = want.size();
  for (u32 i = 0; i < unit.counterCount(); ++i) {
    EXPECT_EQ(unit.lostWraps()[i], model.lost()[i]) << "lost wraps of local counter " << i;
  }
  return result;
}

// Random per-event signals over [0, cycles): level runs and pulses of 1..max_count.
inline void randomSignal(std::mt19937_64& rng, u32 port, u32 event, Cycle cycles,
                         std::vector<Input>& out, u64 max_count = 3) {
  const u32 kind = static_cast<u32>(rng() % 5);
  const u64 high_max = kind == 0 ? 3000 : kind == 1 ? 40 : 3;
  const u64 gap_max = kind == 0 ? 20 : kind == 1 ? 60 : 30;
  Cycle t = rng() % (gap_max + 1);
  while (t < cycles) {
    if (rng() % 3 == 0) {
      out.push_back({port, event, t, t + 1, 1 + rng() % max_count});
      t += 1 + rng() % gap_max;
      continue;
    }
    const u64 len = 1 + rng() % high_max;
    out.push_back({port, event, t, std::min(t + len, cycles), 0});
    // Overlapping or touching levels and pulses inside levels, now and then.
    if (rng() % 8 == 0) {
      const Cycle inner = t + rng() % len;
      if (inner < cycles) out.push_back({port, event, inner, inner + 1, 1 + rng() % max_count});
    }
    if (rng() % 8 == 0) {
      t += rng() % (len + 1);
    } else {
      t += len + 1 + rng() % gap_max;
    }
  }
}

}  // namespace hpm::upcq::testing
