#include "tools/hpmsim/lib/upc_explore.h"

#include <algorithm>

#include "base/error.h"

namespace hpm::tools {

ExploreResult exploreDesign(const ExploreParams& o) {
  ExploreResult r;
  r.counters = o.counters;
  r.service_cycles = o.service_cycles;
  r.rate = o.rate;
  r.total_rate = o.total_rate > 0 ? o.total_rate : o.rate * o.counters;
  r.policy = o.policy;
  // Round-robin's worst case is one counter taking the whole budget: min(R, T) per cycle.
  r.min_low_bits_round_robin =
      upc::minLowBitsRoundRobin(o.counters, o.service_cycles, std::min(o.rate, r.total_rate));
  r.min_low_bits_largest_first =
      upc::minLowBitsLargestFirst(o.counters, o.service_cycles, r.total_rate);
  r.largest_first_max_value = upc::largestFirstMaxValue(o.counters, o.service_cycles, r.total_rate);
  r.min_low_bits = o.policy == upc::Policy::kRoundRobin ? r.min_low_bits_round_robin
                                                        : r.min_low_bits_largest_first;
  r.low_bits = o.low_bits != 0 ? o.low_bits : r.min_low_bits;
  if (r.low_bits > 63) fail(ExitCode::kUsage, "--low-bits must be below 64");
  r.ff_per_sram_bit = o.ff_per_sram_bit;
  r.storage =
      upc::storage(o.counters, r.low_bits, o.parity_group_bits, o.policy, o.ff_per_sram_bit);
  if (!o.simulate) return r;
  upc::Params p;
  p.counters = o.counters;
  p.events = o.counters;
  p.service_cycles = o.service_cycles;
  p.service_phase = o.phase;
  p.low_bits = r.low_bits;
  p.parity_group_bits = o.parity_group_bits;
  p.max_event_rate = o.rate;
  p.max_total_rate = o.total_rate;
  p.policy = o.policy;
  if (r.low_bits > 32) fail(ExitCode::kUsage, "--simulate supports --low-bits up to 32");
  upc::Workload w;
  w.pattern = o.pattern == "bursty" ? upc::Pattern::kBursty
              : o.pattern == "hot"  ? upc::Pattern::kHot
                                    : upc::Pattern::kUniform;
  w.rate = o.rate;
  w.burst = o.burst;
  w.hot = o.hot;
  w.cycles = o.cycles;
  w.seed = o.seed;
  r.simulation = ExploreSimulation{o.pattern, upc::simulate(p, w)};
  return r;
}

}  // namespace hpm::tools
