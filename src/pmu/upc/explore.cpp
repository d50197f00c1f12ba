#include "pmu/upc/explore.h"

#include <vector>

#include "base/bits.h"

namespace hpm::upc {
namespace {

// xoshiro256** (Blackman and Vigna): fast, good enough to drive synthetic event streams.
class Rng {
 public:
  explicit Rng(u64 seed) {
    for (u64& s : s_) {
      seed += 0x9E3779B97F4A7C15ull;
      u64 z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      s = z ^ (z >> 31);
    }
  }
  u64 next() {
    const u64 result = rotl(s_[1] * 5, 7) * 9;
    const u64 t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

 private:
  static u64 rotl(u64 x, int k) { return (x << k) | (x >> (64 - k)); }
  u64 s_[4];
};

// Probability as a 16-bit threshold: an event happens when a 16-bit random draw is below it.
u32 threshold16(double p) {
  if (p >= 1) return 65536;
  if (p <= 0) return 0;
  return static_cast<u32>(p * 65536.0 + 0.5);
}

}  // namespace

const char* toString(Pattern pattern) {
  switch (pattern) {
    case Pattern::kUniform: return "uniform";
    case Pattern::kBursty: return "bursty";
    case Pattern::kHot: return "hot";
  }
  return "?";
}

StorageReport storage(u32 counters, u32 low_bits, u32 parity_group_bits, Policy policy,
                      double flip_flop_per_sram_bit) {
  StorageReport r;
  const u64 data = policy == Policy::kRoundRobin ? 64 - low_bits : 64;
  const u64 parity = (data + parity_group_bits - 1) / parity_group_bits;
  const u64 per_counter_ff = low_bits + 1 + (policy == Policy::kRoundRobin ? 1 : 0);
  r.flip_flop_bits = u64{counters} * per_counter_ff;
  r.sram_bits = u64{counters} * (data + parity);
  r.area = static_cast<double>(r.flip_flop_bits) +
           static_cast<double>(r.sram_bits) / flip_flop_per_sram_bit;
  r.flat_flip_flop_bits = u64{counters} * 64;
  r.flat_area = static_cast<double>(r.flat_flip_flop_bits);
  r.ratio = r.area / r.flat_area;
  return r;
}

SimulationReport simulate(Params params, const Workload& workload) {
  params.exploration = true;
  Unit unit(params);
  const u32 n = params.counters;
  const u32 words = (params.events + 63) / 64;
  unit.write(unit.map().start_stop, 1, 0);  // all counters: event c, level high

  Rng rng(workload.seed);
  std::vector<u64> levels(words, 0);
  std::vector<u64> ideal(n, 0);
  std::vector<u8> on(n, 0);
  const u32 p_event = threshold16(workload.rate);
  // Bursty: on -> off with probability 1/burst, off -> on with probability chosen so that the
  // long-run busy fraction is `rate`.
  const double burst = workload.burst < 1 ? 1.0 : static_cast<double>(workload.burst);
  const double rate = workload.rate;
  const u32 p_stop = threshold16(1.0 / burst);
  const u32 p_start = threshold16(rate >= 1 ? 1.0 : rate / ((1 - rate) * burst));
  const u32 active = workload.pattern == Pattern::kHot ? std::min(workload.hot, n) : n;

  SimulationReport report;
  for (Cycle t = 0; t < workload.cycles; ++t) {
    std::fill(levels.begin(), levels.end(), 0);
    u64 random = 0;
    for (u32 c = 0; c < active; ++c) {
      if (c % 4 == 0) random = rng.next();
      const u32 draw = static_cast<u32>(random & 0xFFFF);
      random >>= 16;
      bool high;
      if (workload.pattern == Pattern::kBursty) {
        on[c] = on[c] ? draw >= p_stop : draw < p_start;
        high = on[c];
      } else {
        high = draw < p_event;
      }
      if (high) {
        levels[c >> 6] |= u64{1} << (c & 63);
        ++ideal[c];
      }
    }
    unit.cycle(t, levels);
  }
  const Cycle end = workload.cycles;
  for (u32 c = 0; c < n; ++c) {
    const u64 value = unit.read(unit.map().counter(c), end);
    report.events += ideal[c];
    const u64 lost = unit.lostCarries()[c];
    if (lost != 0) ++report.counters_losing;
    if (value != ideal[c]) {
      ++report.deviating_counters;
      if (ideal[c] - value != lost << params.low_bits) report.deviations_explained = false;
    }
  }
  report.cycles = workload.cycles;
  report.stats = unit.stats();
  report.lost_carries = report.stats.lost_carries;
  report.max_service_latency = report.stats.max_service_latency;
  report.max_flushed_value = report.stats.max_flushed_value;
  return report;
}

}  // namespace hpm::upc
