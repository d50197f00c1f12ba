// Property tests. (1) Every unit against ideal 64-bit counters: COUNTER equals the ideal count as
// of the counter's last sweep visit, COUNTER_EXACT (and the CNKUnit) the ideal count now, and
// after the sweep latency every read equals the ideal count. (2) Every unit against RefModel, the
// per-cycle transcription of docs/upcq.md, under random inputs of both kinds, every signal mode,
// and random register traffic: configuration, preloads, thresholds, overflow and acknowledges,
// run/stop, global run, hold, reset and (L2) mode switches.
#include <gtest/gtest.h>

#include <random>

#include "pmu/upcq/units.h"
#include "tests/pmu/upcq/reference.h"

namespace hpm::upcq {
namespace {

using testing::drive;
using testing::Driver;
using testing::DriveResult;
using testing::IdealCounter;
using testing::Input;
using testing::Op;
using testing::randomSignal;
using testing::RefModel;
using testing::RefShape;

SignalMode randomMode(std::mt19937_64& rng) {
  return static_cast<SignalMode>(rng() % 4);
}

// ---------------------------------------------------------------------------------------------
// (1) Against ideal counters.

// Random signals on every event of every port; counters keep a fixed random configuration and
// count from cycle 0. Reads at random cycles check the lag rule, reads after the last input plus
// one sweep period check settling.
template <class U>
void checkAgainstIdeal(U& unit, const RefShape& s, std::function<void(const Input&)> feed, u64 seed,
                       Cycle cycles) {
  std::mt19937_64 rng(seed);
  const u32 n = s.ports * s.counters;
  const bool combined = s.has_mode && s.combined;
  const u32 counters = combined ? s.counters : n;  // central counters in use
  std::vector<u64> config(n);
  for (u32 i = 0; i < n; ++i) {
    config[i] = configValue(static_cast<u32>(rng() % s.events), randomMode(rng), false);
  }
  if (combined) {
    for (u32 i = s.counters; i < n; ++i) config[i] = config[i % s.counters];
  }
  for (u32 i = 0; i < counters; ++i) unit.write(unit.map().config(i), config[i], 0);
  unit.write(unit.map().run, kRunBit, 0);

  std::vector<Input> inputs;
  for (u32 p = 0; p < s.ports; ++p) {
    for (u32 e = 0; e < s.events; ++e) randomSignal(rng, p, e, cycles, inputs);
  }
  std::stable_sort(inputs.begin(), inputs.end(),
                   [](const Input& a, const Input& b) { return a.t0 < b.t0; });
  // Ideal history: value of local counter i after the events of cycles < t, for every t.
  std::vector<std::vector<u32>> sig(u64{s.ports} * s.events, std::vector<u32>(cycles, 0));
  for (const Input& in : inputs) {
    auto& v = sig[u64{in.port} * s.events + in.event];
    if (in.count != 0) {
      v[in.t0] += static_cast<u32>(in.count) << 1;
    } else {
      for (Cycle t = in.t0; t < std::min(in.t1, cycles); ++t) v[t] |= 1;
    }
  }
  std::vector<std::vector<u64>> history(n, std::vector<u64>(cycles + 1, 0));
  for (u32 i = 0; i < n; ++i) {
    IdealCounter k;
    k.mode = testing::modeOf(config[i]);
    const auto& v = sig[u64{i / s.counters} * s.events + (config[i] & 0xFFFF)];
    for (Cycle t = 0; t < cycles; ++t) {
      k.step((v[t] & 1) + (v[t] >> 1), true);
      history[i][t + 1] = k.value;
    }
  }
  auto feeders = [&](u32 j) {
    std::vector<u32> f;
    for (u32 p = 0; p < (combined ? s.ports : 1); ++p)
      f.push_back(combined ? p * s.counters + j : j);
    return f;
  };
  // Reads at random cycles (sorted), interleaved with the inputs in time order.
  std::vector<std::pair<Cycle, u32>> reads;
  for (int r = 0; r < 400; ++r)
    reads.push_back({1 + rng() % (cycles - 1), static_cast<u32>(rng() % counters)});
  std::sort(reads.begin(), reads.end());
  std::size_t in = 0;
  for (const auto& [t, j] : reads) {
    while (in < inputs.size() && inputs[in].t0 < t) feed(inputs[in++]);
    u64 lagging = 0, exact = 0;
    for (u32 f : feeders(j)) {
      const Cycle v = unit.lastVisitBefore(f, t);
      lagging += v == Unit::kNone ? (s.local_bits == 0 ? history[f][t] : 0) : history[f][v];
      exact += history[f][t];
    }
    if (s.local_bits == 0) lagging = exact;  // the CNKUnit has no sweep
    ASSERT_EQ(unit.read(unit.map().counter(j), t), lagging) << "counter " << j << " at " << t;
    if (s.exact_regs) {
      ASSERT_EQ(unit.read(unit.map().exact(j), t), exact) << "counter " << j << " at " << t;
    }
  }
  while (in < inputs.size()) feed(inputs[in++]);
  // Settled: counting stops at `cycles` (level-low counters would go on counting idle cycles);
  // one sweep period later every local value has been moved.
  unit.write(unit.map().run, 0, cycles);
  const Cycle settled = cycles + (s.local_bits == 0 ? 0 : s.sweep.period);
  for (u32 j = 0; j < counters; ++j) {
    u64 want = 0;
    for (u32 f : feeders(j)) want += history[f][cycles];
    EXPECT_EQ(unit.read(unit.map().counter(j), settled), want) << "counter " << j;
  }
}

TEST(UpcqIdeal, PUnitCounterIsTheIdealCountAtTheLastVisitAndExactIsTheIdealCountNow) {
  for (u64 seed = 1; seed <= 6; ++seed) {
    PUnitParams p;
    p.events = 16;
    p.cores = 4;
    p.sweep.period = seed % 2 ? 800 : 300;
    p.sweep.phase = static_cast<u32>(seed * 37 % p.sweep.period);
    p.sweep.slot_cycles = seed % 2 ? 1 : 3;
    PUnit unit(p, static_cast<u32>(seed % 4));
    checkAgainstIdeal(
        unit, testing::shapeOf(p, static_cast<u32>(seed % 4)),
        [&](const Input& in) {
          in.count ? unit.pulse(in.event, in.t0, in.count) : unit.level(in.event, in.t0, in.t1);
        },
        seed, 20000);
  }
}

TEST(UpcqIdeal, L2CombinedCounterIsTheSumOfTheSlicesIdealCountsAtTheirLastVisits) {
  for (u64 seed = 1; seed <= 4; ++seed) {
    L2UnitParams p;
    p.events = 4;
    p.sweep.phase = static_cast<u32>(seed * 101 % 800);
    L2Unit unit(p);
    checkAgainstIdeal(
        unit, testing::shapeOf(p),
        [&](const Input& in) {
          in.count ? unit.pulse(in.port, in.event, in.t0, in.count)
                   : unit.level(in.port, in.event, in.t0, in.t1);
        },
        seed, 8000);
  }
}

TEST(UpcqIdeal, L2SlicedCounterIsTheSliceIdealCountAtItsLastVisit) {
  for (u64 seed = 1; seed <= 3; ++seed) {
    L2UnitParams p;
    p.events = 4;
    p.sliced = true;
    p.sweep.period = 200;
    L2Unit unit(p);
    checkAgainstIdeal(
        unit, testing::shapeOf(p),
        [&](const Input& in) {
          in.count ? unit.pulse(in.port, in.event, in.t0, in.count)
                   : unit.level(in.port, in.event, in.t0, in.t1);
        },
        seed, 8000);
  }
}

TEST(UpcqIdeal, IOCounterIsTheIdealCountAtTheLastVisit) {
  for (u64 seed = 1; seed <= 4; ++seed) {
    IOUnitParams p;
    p.events = 8;
    p.counters = 12;
    IOUnit unit(p);
    checkAgainstIdeal(
        unit, testing::shapeOf(p),
        [&](const Input& in) {
          in.count ? unit.pulse(in.event, in.t0, in.count) : unit.level(in.event, in.t0, in.t1);
        },
        seed, 10000);
  }
}

TEST(UpcqIdeal, CNKCounterIsTheIdealCountAtEveryCycle) {
  for (u64 seed = 1; seed <= 4; ++seed) {
    CNKUnitParams p;
    p.events = 8;
    p.counters = 12;
    CNKUnit unit(p);
    checkAgainstIdeal(
        unit, testing::shapeOf(p),
        [&](const Input& in) {
          in.count ? unit.pulse(in.event, in.t0, in.count) : unit.level(in.event, in.t0, in.t1);
        },
        seed, 10000);
  }
}

// ---------------------------------------------------------------------------------------------
// (2) Against the per-cycle model, with register traffic.

struct Traffic {
  bool config_changes = true;
  bool overflow = true;
  bool run_changes = true;
  bool resets = true;
  bool mode_switches = false;  // L2
  bool global = false;         // PUnit, L2, IO
  bool deliver = false;        // L2, IO
};

std::vector<Op> randomOps(std::mt19937_64& rng, const RefShape& s, const RegisterMap& m,
                          Cycle cycles, const Traffic& tr) {
  std::vector<Op> ops;
  const u32 n = s.ports * s.counters;
  // Counters whose registers are valid in either L2 mode.
  const u32 writable = s.has_mode ? s.counters : n;
  auto config = [&]() {
    return configValue(static_cast<u32>(rng() % s.events), randomMode(rng),
                       tr.overflow && rng() % 2 == 0);
  };
  auto threshold = [&]() -> u64 {
    switch (rng() % 4) {
      case 0: return 0;
      case 1: return 1 + rng() % 50;
      default: return 1 + rng() % 800;
    }
  };
  const u32 initial = s.has_mode && s.combined ? s.counters : n;
  for (u32 i = 0; i < initial; ++i) {
    ops.push_back({Op::kWrite, 0, m.config(i), config()});
    if (tr.overflow) ops.push_back({Op::kWrite, 0, m.threshold(i), threshold()});
  }
  ops.push_back({Op::kWrite, 0, m.run, kRunBit});
  // Sparse accesses now and then: the unit then runs lazily over long stretches.
  const bool sparse = rng() % 3 == 0;
  const u32 reads = sparse ? 25 : 600, writes = sparse ? 15 : 120;
  for (u32 r = 0; r < reads; ++r) {
    const Cycle at = rng() % cycles;
    const u32 i = static_cast<u32>(rng() % n);
    switch (rng() % 8) {
      case 0:
        ops.push_back(
            {Op::kRead, at, m.overflowStatus(static_cast<u32>(rng() % m.status_words)), 0});
        break;
      case 1: ops.push_back({Op::kRead, at, m.interrupt_line, 0}); break;
      case 2: ops.push_back({Op::kRead, at, m.run, 0}); break;
      case 3:
        if (s.exact_regs) {
          ops.push_back({Op::kRead, at, rng() % 2 ? m.exact(i) : m.local(i), 0});
          break;
        }
        [[fallthrough]];
      default: ops.push_back({Op::kRead, at, m.counter(i), 0}); break;
    }
  }
  for (u32 w = 0; w < writes; ++w) {
    const Cycle at = rng() % cycles;
    const u32 i = static_cast<u32>(rng() % writable);
    switch (rng() % 13) {
      case 0:
        if (tr.config_changes) ops.push_back({Op::kWrite, at, m.config(i), config()});
        break;
      case 1: {
        const u64 value = rng() % 3 == 0 ? overflowPreload(1 + rng() % 100) : rng() % 2000;
        ops.push_back({Op::kWrite, at, m.counter(i), value});
        break;
      }
      case 2:
      case 8:
        if (tr.overflow) ops.push_back({Op::kWrite, at, m.threshold(i), threshold()});
        break;
      case 3:
        if (tr.run_changes) {
          u64 value = rng() % 4 == 0 ? 0 : kRunBit;
          if (s.hold && rng() % 4 == 0) value |= kHoldBit;
          ops.push_back({Op::kWrite, at, m.run, value});
        }
        break;
      case 4:
        if (tr.resets && rng() % 4 == 0) ops.push_back({Op::kWrite, at, m.reset, 1});
        break;
      case 5:
        if (tr.mode_switches && rng() % 3 == 0) ops.push_back({Op::kWrite, at, m.mode, rng() % 2});
        break;
      case 6:
        if (tr.global) ops.push_back({Op::kGlobalRun, at, 0, rng() % 4 != 0});
        break;
      case 7:
        if (tr.deliver) ops.push_back({Op::kDeliver, at, 0, 0});
        break;
      default: {  // acknowledge some or all raised overflows
        const u32 word = static_cast<u32>(rng() % m.status_words);
        const u32 bits = std::min<u32>(64, n - word * 64);
        const u64 valid = bits == 64 ? ~u64{0} : (u64{1} << bits) - 1;
        ops.push_back(
            {Op::kWrite, at, m.overflowStatus(word), (rng() % 2 ? ~u64{0} : rng()) & valid});
        break;
      }
    }
  }
  return ops;
}

std::vector<Input> randomInputs(std::mt19937_64& rng, const RefShape& s, Cycle cycles) {
  std::vector<Input> inputs;
  for (u32 p = 0; p < s.ports; ++p) {
    for (u32 e = 0; e < s.events; ++e)
      randomSignal(rng, p, e, cycles, inputs, rng() % 4 == 0 ? 40 : 3);
  }
  return inputs;
}

TEST(UpcqModel, PUnitMatchesThePerCycleModelUnderRandomTraffic) {
  DriveResult total;
  for (u64 seed = 1; seed <= 150; ++seed) {
    std::mt19937_64 rng(seed);
    PUnitParams p;
    p.cores = 3;
    p.counters = static_cast<u32>(2 + rng() % 7);
    p.events = static_cast<u32>(2 + rng() % 6);
    p.local_bits = static_cast<u32>(3 + rng() % 12);
    p.sweep.slot_cycles = static_cast<u32>(1 + rng() % 3);
    p.sweep.period = static_cast<u32>(p.cores * p.counters * p.sweep.slot_cycles + rng() % 200);
    p.sweep.phase = static_cast<u32>(rng() % p.sweep.period);
    p.overflow_latency = static_cast<u32>(rng() % 8);
    p.exploration = true;
    const u32 core = static_cast<u32>(rng() % p.cores);
    PUnit unit(p, core);
    const RefShape shape = testing::shapeOf(p, core);
    const Cycle cycles = 6000;
    std::vector<Input> inputs = randomInputs(rng, shape, cycles);
    Traffic tr;
    tr.global = true;
    RefModel model(shape, UnitKind::kPUnit, core, cycles, inputs);
    Driver d;
    d.input = [&](const Input& in) {
      in.count ? unit.pulse(in.event, in.t0, in.count) : unit.level(in.event, in.t0, in.t1);
    };
    d.global_run = [&](bool on, Cycle t) { unit.setGlobalRun(on, t); };
    const DriveResult r =
        drive(unit, model, d, inputs, randomOps(rng, shape, unit.map(), cycles, tr), cycles);
    total.reads += r.reads;
    total.interrupts += r.interrupts;
    if (::testing::Test::HasFailure()) FAIL() << "seed " << seed;
  }
  EXPECT_GT(total.reads, 40000u);
  EXPECT_GT(total.interrupts, 300u);
}

TEST(UpcqModel, L2MatchesThePerCycleModelInBothModesAndAcrossModeSwitches) {
  DriveResult total;
  for (u64 seed = 1; seed <= 120; ++seed) {
    std::mt19937_64 rng(seed);
    L2UnitParams p;
    p.slices = static_cast<u32>(1 + rng() % 5);
    p.counters = static_cast<u32>(1 + rng() % 4);
    p.events = static_cast<u32>(2 + rng() % 4);
    p.local_bits = static_cast<u32>(3 + rng() % 12);
    p.sweep.slot_cycles = static_cast<u32>(1 + rng() % 3);
    p.sweep.period = static_cast<u32>(p.slices * p.counters * p.sweep.slot_cycles + rng() % 100);
    p.sweep.phase = static_cast<u32>(rng() % p.sweep.period);
    p.overflow_latency = static_cast<u32>(rng() % 5);
    p.sliced = rng() % 2;
    p.exploration = true;
    L2Unit unit(p);
    const RefShape shape = testing::shapeOf(p);
    const Cycle cycles = 5000;
    std::vector<Input> inputs = randomInputs(rng, shape, cycles);
    Traffic tr;
    tr.global = true;
    tr.deliver = true;
    tr.mode_switches = true;
    RefModel model(shape, UnitKind::kL2Unit, 0, cycles, inputs);
    Driver d;
    d.input = [&](const Input& in) {
      in.count ? unit.pulse(in.port, in.event, in.t0, in.count)
               : unit.level(in.port, in.event, in.t0, in.t1);
    };
    d.global_run = [&](bool on, Cycle t) { unit.setGlobalRun(on, t); };
    d.deliver = [&](Cycle t) { unit.interruptDelivered(t); };
    const DriveResult r = drive(unit, model, d, inputs,
                                randomOps(rng, shape, unit.map(), cycles, tr), cycles, seed % 2);
    total.reads += r.reads;
    total.interrupts += r.interrupts;
    if (::testing::Test::HasFailure()) FAIL() << "seed " << seed;
  }
  EXPECT_GT(total.reads, 20000u);
  EXPECT_GT(total.interrupts, 200u);
}

TEST(UpcqModel, IOMatchesThePerCycleModelUnderRandomTraffic) {
  DriveResult total;
  for (u64 seed = 1; seed <= 100; ++seed) {
    std::mt19937_64 rng(seed);
    IOUnitParams p;
    p.counters = static_cast<u32>(1 + rng() % 8);
    p.events = static_cast<u32>(2 + rng() % 6);
    p.local_bits = static_cast<u32>(3 + rng() % 30);
    p.sweep.slot_cycles = static_cast<u32>(1 + rng() % 3);
    p.sweep.period = static_cast<u32>(p.counters * p.sweep.slot_cycles + rng() % 300);
    p.sweep.phase = static_cast<u32>(rng() % p.sweep.period);
    p.overflow_latency = static_cast<u32>(rng() % 5);
    p.exploration = true;
    IOUnit unit(p);
    const RefShape shape = testing::shapeOf(p);
    const Cycle cycles = 6000;
    std::vector<Input> inputs = randomInputs(rng, shape, cycles);
    Traffic tr;
    tr.global = true;
    tr.deliver = true;
    RefModel model(shape, UnitKind::kIOUnit, 0, cycles, inputs);
    Driver d;
    d.input = [&](const Input& in) {
      in.count ? unit.pulse(in.event, in.t0, in.count) : unit.level(in.event, in.t0, in.t1);
    };
    d.global_run = [&](bool on, Cycle t) { unit.setGlobalRun(on, t); };
    d.deliver = [&](Cycle t) { unit.interruptDelivered(t); };
    const DriveResult r =
        drive(unit, model, d, inputs, randomOps(rng, shape, unit.map(), cycles, tr), cycles);
    total.reads += r.reads;
    total.interrupts += r.interrupts;
    if (::testing::Test::HasFailure()) FAIL() << "seed " << seed;
  }
  EXPECT_GT(total.reads, 20000u);
  EXPECT_GT(total.interrupts, 120u);
}

TEST(UpcqModel, CNKMatchesThePerCycleModelUnderRandomTraffic) {
  DriveResult total;
  for (u64 seed = 1; seed <= 100; ++seed) {
    std::mt19937_64 rng(seed);
    CNKUnitParams p;
    p.counters = static_cast<u32>(1 + rng() % 8);
    p.events = static_cast<u32>(2 + rng() % 6);
    p.overflow_latency = static_cast<u32>(rng() % 5);
    CNKUnit unit(p);
    const RefShape shape = testing::shapeOf(p);
    const Cycle cycles = 6000;
    std::vector<Input> inputs = randomInputs(rng, shape, cycles);
    RefModel model(shape, UnitKind::kCNKUnit, 0, cycles, inputs);
    Driver d;
    d.input = [&](const Input& in) {
      in.count ? unit.pulse(in.event, in.t0, in.count) : unit.level(in.event, in.t0, in.t1);
    };
    const DriveResult r =
        drive(unit, model, d, inputs, randomOps(rng, shape, unit.map(), cycles, Traffic{}), cycles);
    total.reads += r.reads;
    total.interrupts += r.interrupts;
    if (::testing::Test::HasFailure()) FAIL() << "seed " << seed;
  }
  EXPECT_GT(total.reads, 20000u);
  EXPECT_GT(total.interrupts, 200u);
}

// Long level runs take the closed-form path when no threshold is watched; with a threshold
// watched they go visit by visit. Both must agree with the model over many sweep periods.
TEST(UpcqModel, LongLevelRunsAgreeWithTheModelWithAndWithoutWatchedThresholds) {
  DriveResult total;
  for (u64 seed = 1; seed <= 30; ++seed) {
    std::mt19937_64 rng(seed);
    PUnitParams p;
    p.cores = 1;
    p.counters = 4;
    p.events = 4;
    p.local_bits = static_cast<u32>(4 + rng() % 10);
    p.sweep.period = static_cast<u32>(8 + rng() % 40);
    p.exploration = true;
    PUnit unit(p, 0);
    const RefShape shape = testing::shapeOf(p, 0);
    const Cycle cycles = 30000;
    std::vector<Input> inputs;
    for (u32 e = 0; e < 4; ++e) {
      Cycle t = rng() % 100;
      while (t < cycles) {
        const Cycle len = 1 + rng() % 8000;
        inputs.push_back({0, e, t, std::min(t + len, cycles), 0});
        t += len + 1 + rng() % 500;
      }
    }
    Traffic tr;
    tr.config_changes = false;
    tr.resets = false;
    RefModel model(shape, UnitKind::kPUnit, 0, cycles, inputs);
    Driver d;
    d.input = [&](const Input& in) { unit.level(in.event, in.t0, in.t1); };
    const DriveResult r =
        drive(unit, model, d, inputs, randomOps(rng, shape, unit.map(), cycles, tr), cycles);
    total.interrupts += r.interrupts;
    if (::testing::Test::HasFailure()) FAIL() << "seed " << seed;
  }
  EXPECT_GT(total.interrupts, 25u);
}

}  // namespace
}  // namespace hpm::upcq
