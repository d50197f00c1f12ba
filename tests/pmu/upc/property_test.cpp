// Property tests: random configurations and random event streams, every register read held
// against ideal 64-bit counters with the same mode semantics, per-cycle and batched interfaces
// held against each other, interrupts held against the cycle of the n-th event.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "pmu/upc/unit.h"
#include "tests/pmu/upc/reference.h"

namespace hpm::upc {
namespace {

using testing::IdealCounter;

struct Run {
  Cycle begin, end;  // event high over [begin, end)
};

// One scenario: per-event high runs, and register operations at chosen cycles.
struct Op {
  enum Kind { kRead, kPreload, kConfig, kStartStop } kind;
  Cycle at;
  u32 counter;
  u64 value;
};

struct Scenario {
  Params params;
  Cycle cycles = 0;
  std::vector<std::vector<Run>> runs;  // per event
  std::vector<Op> ops;                 // sorted by cycle
  std::vector<u8> initial_config;      // per counter
  std::vector<u64> interrupt_after;    // per counter: n, or 0 for no interrupt
  u64 shared_q = 2;                    // interrupt counters: n in ((q-1) x 4096, q x 4096]
};

// Appends runs to `out` over [0, cycles): high lengths in [1, high_max], gaps in [1, gap_max].
void makeRuns(std::mt19937_64& rng, Cycle cycles, u64 high_max, u64 gap_max,
              std::vector<Run>& out) {
  Cycle t = rng() % (gap_max + 1);
  while (t < cycles) {
    const u64 len = 1 + rng() % high_max;
    out.push_back({t, std::min(t + len, cycles)});
    t += len + 1 + rng() % gap_max;
  }
}

Scenario randomScenario(u64 seed, Cycle cycles, u32 reads, bool all_events_busy) {
  std::mt19937_64 rng(seed);
  Scenario s;
  s.shared_q = 2 + rng() % (cycles / 2 / 4096);
  s.params.service_phase = static_cast<u32>(rng() % 4096);
  s.cycles = cycles;
  const u32 n = s.params.counters, e_count = s.params.events;
  s.runs.resize(e_count);
  s.initial_config.resize(n);
  s.interrupt_after.assign(n, 0);
  for (u32 c = 0; c < n; ++c) {
    const u32 select = static_cast<u32>(rng() % 4);
    const u32 mode_draw = static_cast<u32>(rng() % 10);
    const SignalMode mode = mode_draw < 6   ? SignalMode::kLevelHigh
                            : mode_draw < 7 ? SignalMode::kLevelLow
                            : mode_draw < 9 ? SignalMode::kRisingEdge
                                            : SignalMode::kFallingEdge;
    const bool irq = rng() % 8 == 0;
    s.initial_config[c] = static_cast<u8>(testing::configByte(select, mode, irq));
    // One threshold register serves all counters: every interrupt counter shares q and gets
    // n in ((q - 1) x 2^L, q x 2^L] through its own preload.
    if (irq) s.interrupt_after[c] = s.shared_q * 4096 - rng() % 4096;
  }
  for (u32 e = 0; e < e_count; ++e) {
    const u32 c = e % n;
    const bool selected = e / n == (s.initial_config[c] & 3u);
    const u32 kind = static_cast<u32>(rng() % 10);
    if (!selected && !all_events_busy) {
      makeRuns(rng, cycles, 50000, 50000, s.runs[e]);  // rare and long: cheap
    } else if (kind < 6) {
      makeRuns(rng, cycles, 60000, 2, s.runs[e]);  // about one event per cycle
    } else if (kind < 8) {
      makeRuns(rng, cycles, 20, 30, s.runs[e]);  // bursty
    } else {
      makeRuns(rng, cycles, 1, 60, s.runs[e]);  // isolated pulses
    }
  }
  for (u32 i = 0; i < reads; ++i) {
    s.ops.push_back({Op::kRead, 1 + rng() % cycles, static_cast<u32>(rng() % n), 0});
  }
  for (int i = 0; i < 6; ++i) {
    s.ops.push_back({Op::kStartStop, rng() % cycles, 0, static_cast<u64>(i % 2)});
  }
  for (int i = 0; i < 40; ++i) {
    const u32 c = static_cast<u32>(rng() % n);
    if (s.interrupt_after[c] != 0) continue;  // keep the interrupt counters undisturbed
    if (i % 2 == 0) {
      s.ops.push_back({Op::kPreload, rng() % cycles, c, rng() >> (rng() % 64)});
    } else {
      s.ops.push_back({Op::kConfig, rng() % cycles, c, rng() % 16});  // select, mode; no irq
    }
  }
  std::stable_sort(s.ops.begin(), s.ops.end(),
                   [](const Op& a, const Op& b) { return a.at < b.at; });
  return s;
}

// The ideal side: one IdealCounter per counter, stepped cycle by cycle.
class Oracle {
 public:
  explicit Oracle(const Scenario& s)
      : s_(s), counters_(s.params.counters), cursor_(s.params.events, 0) {
    config_ = s.initial_config;
    for (u32 c = 0; c < counters_.size(); ++c) {
      counters_[c].mode = static_cast<SignalMode>((config_[c] >> 2) & 3);
      if (s.interrupt_after[c] != 0) {
        const ThresholdPreload r = thresholdForCount(s.interrupt_after[c], s.params.low_bits);
        counters_[c].value = r.preload;
      }
    }
  }
  u64 signal(u32 e, Cycle t) {
    const auto& runs = s_.runs[e];
    u64& i = cursor_[e];
    while (i < runs.size() && runs[i].end <= t) ++i;
    return i < runs.size() && runs[i].begin <= t ? 1 : 0;
  }
  // Steps every counter through [from, to).
  void stepTo(Cycle from, Cycle to) {
    const u32 n = s_.params.counters;
    for (u32 c = 0; c < n; ++c) {
      const u32 e = (config_[c] & 3u) * n + c;
      IdealCounter& k = counters_[c];
      for (Cycle t = from; t < to; ++t) k.step(signal(e, t), running_);
    }
  }
  std::vector<IdealCounter>& counters() { return counters_; }
  std::vector<u8>& config() { return config_; }
  bool running_ = false;

 private:
  const Scenario& s_;
  std::vector<IdealCounter> counters_;
  std::vector<u64> cursor_;
  std::vector<u8> config_;
};

// Expected interrupts: the cycle in which counter c counts its n-th event after the preload.
// Computed by a per-cycle pass of its own over the interrupt counters (undisturbed by ops other
// than start/stop).
std::vector<Interrupt> expectedInterrupts(const Scenario& s) {
  std::vector<Interrupt> out;
  const u32 n = s.params.counters;
  for (u32 c = 0; c < n; ++c) {
    if (s.interrupt_after[c] == 0) continue;
    IdealCounter k;
    k.mode = static_cast<SignalMode>((s.initial_config[c] >> 2) & 3);
    const auto& runs = s.runs[(s.initial_config[c] & 3u) * n + c];
    std::size_t i = 0, op = 0;
    bool running = false;
    for (Cycle t = 0; t < s.cycles; ++t) {
      while (op < s.ops.size() && s.ops[op].at <= t) {
        if (s.ops[op].kind == Op::kStartStop) running = s.ops[op].value & 1;
        ++op;
      }
      while (i < runs.size() && runs[i].end <= t) ++i;
      k.step(i < runs.size() && runs[i].begin <= t ? 1 : 0, running);
      if (k.value == s.interrupt_after[c]) {
        out.push_back({c, t});
        break;
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const Interrupt& a, const Interrupt& b) {
    return a.cycle != b.cycle ? a.cycle < b.cycle : a.counter < b.counter;
  });
  return out;
}

void programInitial(Unit& unit, const Scenario& s) {
  for (u32 g = 0; g < s.params.counters / 8; ++g) {
    u64 value = 0;
    for (u32 j = 0; j < 8; ++j) value |= u64{s.initial_config[g * 8 + j]} << (8 * j);
    unit.write(unit.map().config(g), value, 0);
  }
  for (u32 c = 0; c < s.params.counters; ++c) {
    if (s.interrupt_after[c] == 0) continue;
    const ThresholdPreload r = thresholdForCount(s.interrupt_after[c], s.params.low_bits);
    unit.write(unit.map().counter(c), r.preload, 0);
    unit.write(unit.map().threshold, r.threshold, 0);  // the same for every interrupt counter
  }
}

// Applies op to the unit (at op.at) and to the oracle; returns the value read, if a read.
u64 applyOp(Unit& unit, Oracle& oracle, const Op& op, bool& checked) {
  const u32 c = op.counter;
  checked = false;
  switch (op.kind) {
    case Op::kRead: checked = true; return unit.read(unit.map().counter(c), op.at);
    case Op::kPreload:
      unit.write(unit.map().counter(c), op.value, op.at);
      oracle.counters()[c].value = op.value;
      break;
    case Op::kConfig: {
      testing::configure(unit, c, static_cast<u32>(op.value & 3),
                         static_cast<SignalMode>((op.value >> 2) & 3), false, op.at);
      oracle.config()[c] = static_cast<u8>(op.value & 15);
      oracle.counters()[c].mode = static_cast<SignalMode>((op.value >> 2) & 3);
      break;
    }
    case Op::kStartStop:
      unit.write(unit.map().start_stop, op.value, op.at);
      oracle.running_ = op.value & 1;
      break;
  }
  return 0;
}

// Feeds the scenario through the batched interface, in time order; `pulse_runs_up_to` makes
// runs of at most that length go in as one pulse per cycle instead of a level.
struct BatchedResult {
  u64 reads_checked = 0;
  std::vector<Interrupt> interrupts;
  Stats stats;
};
BatchedResult runBatched(const Scenario& s, u64 pulse_runs_up_to, bool check_oracle,
                         std::vector<u64>* read_values) {
  Unit unit(s.params);
  programInitial(unit, s);
  Oracle oracle(s);
  struct Input {
    Cycle at;
    u32 event;
    Cycle end;
  };
  std::vector<Input> inputs;
  for (u32 e = 0; e < s.params.events; ++e) {
    for (const Run& r : s.runs[e]) inputs.push_back({r.begin, e, r.end});
  }
  std::sort(inputs.begin(), inputs.end(),
            [](const Input& a, const Input& b) { return a.at < b.at; });
  BatchedResult result;
  std::size_t next = 0;
  Cycle oracle_time = 0;
  auto feedBefore = [&](Cycle limit) {
    // Inputs are submitted at their first cycle; level runs may extend past later accesses.
    for (; next < inputs.size() && inputs[next].at < limit; ++next) {
      const Input& in = inputs[next];
      if (in.end - in.at <= pulse_runs_up_to && in.end <= limit) {
        for (Cycle t = in.at; t < in.end; ++t) unit.pulse(in.event, t);
      } else {  // a level may extend past the next access
        unit.level(in.event, in.at, in.end);
      }
    }
  };
  for (const Op& op : s.ops) {
    feedBefore(op.at);
    if (check_oracle) {
      oracle.stepTo(oracle_time, op.at);
      oracle_time = op.at;
    }
    bool is_read = false;
    const u64 value = applyOp(unit, oracle, op, is_read);
    if (is_read) {
      if (read_values) read_values->push_back(value);
      if (check_oracle) {
        EXPECT_EQ(value, oracle.counters()[op.counter].value)
            << "counter " << op.counter << " at cycle " << op.at;
        ++result.reads_checked;
      }
    }
  }
  feedBefore(s.cycles);
  unit.advanceTo(s.cycles);
  result.interrupts = unit.takeInterrupts();
  result.stats = unit.stats();
  return result;
}

struct CycleResult {
  std::vector<u64> reads;
  std::vector<Interrupt> interrupts;
  Stats stats;
};
CycleResult runPerCycle(const Scenario& s) {
  Unit unit(s.params);
  programInitial(unit, s);
  Oracle oracle(s);
  const u32 words = (s.params.events + 63) / 64;
  std::vector<u64> levels(words);
  std::vector<std::size_t> cursor(s.params.events, 0);
  CycleResult result;
  std::size_t op = 0;
  for (Cycle t = 0; t < s.cycles; ++t) {
    while (op < s.ops.size() && s.ops[op].at == t) {
      bool is_read = false;
      const u64 value = applyOp(unit, oracle, s.ops[op], is_read);
      if (is_read) result.reads.push_back(value);
      ++op;
    }
    std::fill(levels.begin(), levels.end(), 0);
    for (u32 e = 0; e < s.params.events; ++e) {
      const auto& runs = s.runs[e];
      std::size_t& i = cursor[e];
      while (i < runs.size() && runs[i].end <= t) ++i;
      if (i < runs.size() && runs[i].begin <= t) levels[e / 64] |= u64{1} << (e % 64);
    }
    unit.cycle(t, levels);
  }
  while (op < s.ops.size()) {
    bool is_read = false;
    const u64 value = applyOp(unit, oracle, s.ops[op], is_read);
    if (is_read) result.reads.push_back(value);
    ++op;
  }
  unit.advanceTo(s.cycles);
  result.interrupts = unit.takeInterrupts();
  result.stats = unit.stats();
  return result;
}

TEST(UpcProperty, ReadsEqualIdealCountersWithAll256CountersUnderRandomLoadsForAMillionCycles) {
  const Scenario s = randomScenario(2024, 1'000'000, 3000, false);
  const BatchedResult r = runBatched(s, 3, true, nullptr);
  EXPECT_GT(r.reads_checked, 2900u);
  EXPECT_EQ(r.stats.lost_carries, 0u);
  EXPECT_EQ(r.interrupts, expectedInterrupts(s));
  EXPECT_GT(r.stats.carries, 5'000u);
  EXPECT_LE(r.stats.max_service_latency, 4096u);
}

// The tight case of the safety rule at the seed's exactly-safe width (N = 256, S = 16, L = 12:
// 2^L = N x S): every counter counts a level that is high in every cycle of [0, cycles), from
// cycle 0 on, with no stop. A handful of counters (not counter 0) are programmed with
// thresholdForCount(n) for n sharing one q >= 2, so their n-th event, and interrupt, is cycle n
// - 1. Reads: random counters at random cycles, plus reads around carry cycles, visits and the
// interrupt cycles, and every counter at the end.
Scenario saturatedScenario(u64 seed, u32 phase, Cycle cycles) {
  std::mt19937_64 rng(seed);
  Scenario s;
  s.params.service_phase = phase;
  s.cycles = cycles;
  const u32 n = s.params.counters;
  s.runs.resize(s.params.events);
  s.initial_config.assign(n, static_cast<u8>(testing::configByte(0, SignalMode::kLevelHigh, 0)));
  s.interrupt_after.assign(n, 0);
  for (u32 c = 0; c < n; ++c) s.runs[c].push_back({0, cycles});  // event c = counter c, select 0
  s.shared_q = 2 + rng() % (cycles / 4096 - 2);                  // the q-th carry is in range
  for (int i = 0; i < 8; ++i) {
    const u32 c = 1 + static_cast<u32>(rng() % (n - 1));
    s.initial_config[c] = static_cast<u8>(testing::configByte(0, SignalMode::kLevelHigh, true));
    s.interrupt_after[c] = s.shared_q * 4096 - rng() % 4096;
  }
  s.ops.push_back({Op::kStartStop, 0, 0, 1});
  auto read = [&](Cycle at, u32 c) {
    if (at >= 1 && at <= cycles) s.ops.push_back({Op::kRead, at, c, 0});
  };
  for (int i = 0; i < 4000; ++i) read(1 + rng() % cycles, static_cast<u32>(rng() % n));
  Unit probe(s.params);
  for (int i = 0; i < 300; ++i) {
    const u32 c = static_cast<u32>(rng() % n);
    const Cycle carry = (1 + rng() % (cycles / 4096 - 1)) * 4096 - 1;  // carry cycle of c if 0
    const Cycle visit = probe.nextVisit(c, carry - 4096);
    for (Cycle d = 0; d < 3; ++d) read(carry + d, c), read(visit + d, c);
  }
  for (u32 c = 0; c < n; ++c) {
    if (s.interrupt_after[c] == 0) continue;
    for (Cycle d = 0; d < 3; ++d) read(s.interrupt_after[c] - 1 + d, c);
  }
  for (u32 c = 0; c < n; ++c) read(cycles, c);
  std::stable_sort(s.ops.begin(), s.ops.end(),
                   [](const Op& a, const Op& b) { return a.at < b.at; });
  return s;
}

TEST(
    UpcProperty,
    All256CountersAtOneEventPerCycleForAMillionCyclesAtTheExactlySafeWidthReadIdealCountsLoseNoCarryAndInterruptAtTheNthEvent) {
  const Cycle cycles = 1'000'000;
  // Phase 0 is the seed's; at phase 1 counter 0 is visited at 4095 + 4096 j, the very cycles of
  // its carries: each carry waits a whole round and is serviced just before the next one.
  for (u32 phase : {0u, 1u}) {
    const Scenario s = saturatedScenario(100 + phase, phase, cycles);
    std::vector<Interrupt> expected;
    u64 carries = 0;
    for (u32 c = 0; c < s.params.counters; ++c) {
      u64 preload = 0;
      if (s.interrupt_after[c] != 0) {
        expected.push_back({c, s.interrupt_after[c] - 1});  // n-th event: cycle n - 1
        preload = thresholdForCount(s.interrupt_after[c], s.params.low_bits).preload;
      }
      carries += (preload + cycles) / 4096;
    }
    std::sort(expected.begin(), expected.end(), [](const Interrupt& a, const Interrupt& b) {
      return a.cycle != b.cycle ? a.cycle < b.cycle : a.counter < b.counter;
    });
    ASSERT_GE(expected.size(), 4u);
    ASSERT_EQ(expectedInterrupts(s), expected);
    const BatchedResult r = runBatched(s, 0, true, nullptr);  // each event: one level call
    EXPECT_GT(r.reads_checked, 5000u) << "phase " << phase;
    EXPECT_EQ(r.interrupts, expected) << "phase " << phase;
    EXPECT_EQ(r.stats.interrupts, expected.size()) << "phase " << phase;
    EXPECT_EQ(r.stats.lost_carries, 0u) << "phase " << phase;
    EXPECT_EQ(r.stats.events_counted, 256u * cycles) << "phase " << phase;
    EXPECT_EQ(r.stats.carries, carries) << "phase " << phase;
    EXPECT_LE(r.stats.max_service_latency, 4096u) << "phase " << phase;
    if (phase == 1) {
      EXPECT_EQ(r.stats.max_service_latency, 4096u);
    }
  }
}

TEST(UpcProperty, PerCycleAndBatchedInterfacesAgreeWithEachOtherAndTheIdealCounters) {
  for (u64 seed : {1u, 2u, 3u}) {
    const Scenario s = randomScenario(seed, 40'000, 400, true);
    std::vector<u64> batched_reads;
    const BatchedResult b = runBatched(s, seed == 1 ? 0 : 4, true, &batched_reads);
    const CycleResult c = runPerCycle(s);
    EXPECT_EQ(c.reads, batched_reads) << "seed " << seed;
    EXPECT_EQ(c.interrupts, b.interrupts) << "seed " << seed;
    EXPECT_EQ(b.interrupts, expectedInterrupts(s)) << "seed " << seed;
    EXPECT_EQ(c.stats.events_counted, b.stats.events_counted) << "seed " << seed;
    EXPECT_EQ(c.stats.carries, b.stats.carries) << "seed " << seed;
    EXPECT_EQ(c.stats.carries_serviced, b.stats.carries_serviced) << "seed " << seed;
    EXPECT_EQ(c.stats.max_service_latency, b.stats.max_service_latency) << "seed " << seed;
    EXPECT_EQ(c.stats.lost_carries, 0u);
  }
}

TEST(UpcProperty, ExplorationModeLosesTheSameCarriesThroughBothInterfaces) {
  // L = 9 with counters at one event per cycle: carries are lost; the per-cycle and the batched
  // interfaces lose the same carries and read the same values.
  Scenario s = randomScenario(77, 30'000, 300, true);
  s.params.low_bits = 9;
  s.params.exploration = true;
  std::fill(s.interrupt_after.begin(), s.interrupt_after.end(), 0);
  for (u8& byte : s.initial_config) byte &= 0x0F;
  std::vector<u64> batched_reads;
  const BatchedResult b = runBatched(s, 2, false, &batched_reads);
  const CycleResult c = runPerCycle(s);
  EXPECT_GT(b.stats.lost_carries, 100u);
  EXPECT_EQ(c.stats.lost_carries, b.stats.lost_carries);
  EXPECT_EQ(c.reads, batched_reads);
}

TEST(UpcProperty, MultiOccurrencePulsesCountLikeIdealCounters) {
  std::mt19937_64 rng(5);
  Params p;
  p.service_phase = 1234;
  Unit unit(p);
  unit.write(unit.map().start_stop, 1, 0);
  std::vector<u64> ideal(256, 0);
  std::vector<Cycle> next(256, 0);
  for (Cycle t = 0; t < 200'000; ++t) {
    for (u32 c = static_cast<u32>(t % 4); c < 256; c += 4) {  // each counter every 4th cycle
      if (rng() % 2) continue;
      const u64 k = 1 + rng() % 4;
      unit.pulse(c, t, k);
      ideal[c] += k;
    }
    if (t % 9973 == 0) {
      const u32 c = static_cast<u32>(rng() % 256);
      ASSERT_EQ(unit.read(unit.map().counter(c), t + 1), ideal[c]) << "counter " << c;
    }
  }
  for (u32 c = 0; c < 256; ++c) EXPECT_EQ(unit.read(unit.map().counter(c), 200'000), ideal[c]);
  EXPECT_EQ(unit.stats().lost_carries, 0u);
}

}  // namespace
}  // namespace hpm::upc

namespace hpm::upc {
namespace {

// Shapes whose banks do not start on 64-bit words (N = 8, 72), every mode, and gaps between
// per-cycle inputs (cycles without input are all-low): per-cycle and pulse-driven units agree
// with each other and with ideal counters.
TEST(UpcProperty, PerCycleAndBatchedAgreeForUnalignedShapesAndGaps) {
  for (u32 n : {8u, 72u}) {
    std::mt19937_64 rng(n);
    Params p;
    p.counters = n;
    p.events = 4 * n;
    p.service_cycles = 4;
    p.low_bits = n == 8 ? 4 : 6;  // below N x S: carries are lost, and must agree too
    p.exploration = true;
    p.service_phase = static_cast<u32>(rng() % (n * 4));
    Unit per_cycle(p), batched(p);
    std::vector<testing::IdealCounter> ideal(n);
    std::vector<u8> config(n);
    for (u32 g = 0; g < n / 8; ++g) {
      u64 value = 0;
      for (u32 j = 0; j < 8; ++j) {
        config[g * 8 + j] = static_cast<u8>(rng() % 16);
        value |= u64{config[g * 8 + j]} << (8 * j);
        ideal[g * 8 + j].mode = static_cast<SignalMode>((config[g * 8 + j] >> 2) & 3);
      }
      per_cycle.write(per_cycle.map().config(g), value, 0);
      batched.write(batched.map().config(g), value, 0);
    }
    per_cycle.write(per_cycle.map().start_stop, 1, 0);
    batched.write(batched.map().start_stop, 1, 0);
    const u32 words = (p.events + 63) / 64;
    std::vector<u64> levels(words);
    std::vector<u8> state(p.events, 0);
    for (Cycle t = 0; t < 20'000; ++t) {
      const bool gap = t % 1000 >= 990;  // no per-cycle input: every signal low
      std::fill(levels.begin(), levels.end(), 0);
      for (u32 e = 0; e < p.events; ++e) {
        if (rng() % 4 == 0) state[e] ^= 1;
        const bool high = state[e] && !gap;
        if (high) {
          levels[e / 64] |= u64{1} << (e % 64);
          batched.pulse(e, t);
        }
      }
      if (!gap) per_cycle.cycle(t, levels);
      for (u32 c = 0; c < n; ++c) {
        const u32 e = (config[c] & 3u) * n + c;
        ideal[c].step((levels[e / 64] >> (e % 64)) & 1, true);
      }
      if (t % 487 == 0) {
        const u32 c = static_cast<u32>(rng() % n);
        const u64 a = per_cycle.read(per_cycle.map().counter(c), t + 1);
        ASSERT_EQ(a, batched.read(batched.map().counter(c), t + 1)) << "n " << n << " t " << t;
        const u64 lost = batched.lostCarries()[c];
        EXPECT_EQ(a + (lost << p.low_bits), ideal[c].value) << "n " << n << " counter " << c;
      }
    }
    per_cycle.advanceTo(20'000);
    batched.advanceTo(20'000);
    EXPECT_EQ(per_cycle.lostCarries(), batched.lostCarries());
    EXPECT_EQ(per_cycle.stats().events_counted, batched.stats().events_counted);
    EXPECT_GT(batched.stats().lost_carries, 0u);
  }
}

}  // namespace
}  // namespace hpm::upc
