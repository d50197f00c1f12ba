// UPC-P throughput (docs/PERFORMANCE.md, "UPC-P"): counted events per second through the batched
// interface and simulated cycles per second through the per-cycle interface, 256 active counters.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "pmu/upc/unit.h"

namespace hpm::upc {
namespace {

constexpr u32 kCounters = 256;
constexpr Cycle kBlock = 1024;  // cycles per benchmark iteration

Unit startedUnit() {
  Unit unit(Params{});
  unit.write(unit.map().start_stop, 1, 0);
  return unit;
}

// Every counter, every cycle, one pulse of one event: one event per cycle per counter.
void BM_BatchedPulsesOnePerCycle(benchmark::State& state) {
  Unit unit = startedUnit();
  Cycle t = 0;
  for (auto _ : state) {
    for (Cycle end = t + kBlock; t < end; ++t) {
      for (u32 c = 0; c < kCounters; ++c) unit.pulse(c, t);
    }
  }
  unit.advanceTo(t);
  state.SetItemsProcessed(static_cast<i64>(unit.stats().events_counted));
  state.counters["calls_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * kBlock * kCounters), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_BatchedPulsesOnePerCycle);

// Multi-issue sources: each counter gets a pulse of 4 occurrences every 4th cycle (still one
// event per cycle on average, so the seed design loses nothing).
void BM_BatchedPulsesFourEveryFourthCycle(benchmark::State& state) {
  Unit unit = startedUnit();
  Cycle t = 0;
  for (auto _ : state) {
    for (Cycle end = t + kBlock; t < end; ++t) {
      for (u32 c = static_cast<u32>(t % 4); c < kCounters; c += 4) unit.pulse(c, t, 4);
    }
  }
  unit.advanceTo(t);
  state.SetItemsProcessed(static_cast<i64>(unit.stats().events_counted));
}
BENCHMARK(BM_BatchedPulsesFourEveryFourthCycle);

// Level intervals (stall-cycle style events): random lengths 1..64, gaps 1..8.
void BM_BatchedLevels(benchmark::State& state) {
  Unit unit = startedUnit();
  std::mt19937_64 rng(1);
  std::vector<u32> lengths(1 << 16);
  for (u32& l : lengths) l = 1 + static_cast<u32>(rng() % 64) + (static_cast<u32>(rng() % 8) << 8);
  std::vector<Cycle> next(kCounters, 0);
  std::size_t pick = 0;
  Cycle t = 0;
  for (auto _ : state) {
    for (Cycle end = t + kBlock; t < end; ++t) {
      for (u32 c = 0; c < kCounters; ++c) {
        if (next[c] != t) continue;
        const u32 draw = lengths[pick++ & 0xFFFF];
        const u32 len = draw & 0xFF, gap = 1 + (draw >> 8);
        unit.level(c, t, t + len);
        next[c] = t + len + gap;
      }
    }
  }
  unit.advanceTo(t + 100);
  state.SetItemsProcessed(static_cast<i64>(unit.stats().events_counted));
}
BENCHMARK(BM_BatchedLevels);

// Pulses on events no counter selects: the interest filter's cost.
void BM_BatchedPulsesUnselected(benchmark::State& state) {
  Unit unit = startedUnit();
  Cycle t = 0;
  for (auto _ : state) {
    for (Cycle end = t + kBlock; t < end; ++t) {
      for (u32 e = kCounters; e < 2 * kCounters; ++e) unit.pulse(e, t);
    }
  }
  state.counters["calls_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * kBlock * kCounters), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_BatchedPulsesUnselected);

// Per-cycle interface: a pool of random 1024-bit level vectors with the given density (percent);
// all counters level-high, or a mix of the four modes.
void BM_PerCycle(benchmark::State& state) {
  const u32 density = static_cast<u32>(state.range(0));
  const bool mixed_modes = state.range(1) != 0;
  Unit unit = startedUnit();
  if (mixed_modes) {
    for (u32 g = 0; g < kCounters / 8; ++g) {
      u64 value = 0;
      for (u32 j = 0; j < 8; ++j) value |= u64{(j % 4) << 2 | (j / 4)} << (8 * j);
      unit.write(unit.map().config(g), value, 0);
    }
  }
  std::mt19937_64 rng(2);
  constexpr u32 kPool = 4096;
  std::vector<u64> pool(kPool * 16);
  for (u64& w : pool) {
    w = 0;
    for (u32 b = 0; b < 64; ++b) w |= u64{rng() % 100 < density} << b;
  }
  Cycle t = 0;
  for (auto _ : state) {
    for (Cycle end = t + kBlock; t < end; ++t) {
      unit.cycle(t, std::span<const u64>(&pool[(t % kPool) * 16], 16));
    }
  }
  unit.advanceTo(t);
  state.SetItemsProcessed(static_cast<i64>(state.iterations() * kBlock));  // cycles
  state.counters["events_per_s"] = benchmark::Counter(
      static_cast<double>(unit.stats().events_counted), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PerCycle)->Args({100, 0})->Args({50, 0})->Args({50, 1})->Args({10, 1});

}  // namespace
}  // namespace hpm::upc

BENCHMARK_MAIN();
