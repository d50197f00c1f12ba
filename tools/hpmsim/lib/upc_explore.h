// `hpmsim upc explore`, the UPC-P design explorer (docs/upc.md, "Explorer"): what it is asked and
// what it answers, as plain values, apart from how the answer is printed (upc_explore_print.h).
#pragma once

#include <optional>
#include <string>

#include "base/types.h"
#include "pmu/upc/explore.h"
#include "pmu/upc/params.h"

namespace hpm::tools {

// The question: a unit of `counters` counters serviced one every `service_cycles` cycles, events
// at most `rate` per cycle per counter and `total_rate` over all (0: counters x rate).
struct ExploreParams {
  u32 counters = 256;
  u32 service_cycles = 16;
  double rate = 1.0;
  double total_rate = 0.0;
  upc::Policy policy = upc::Policy::kRoundRobin;
  u32 low_bits = 0;  // 0: the minimal safe width
  u32 parity_group_bits = 13;
  double ff_per_sram_bit = upc::kFlipFlopPerSramBit;
  // simulate: run the unit on a synthetic workload of `pattern` ("uniform", "bursty", "hot").
  bool simulate = false;
  std::string pattern = "uniform";
  u64 cycles = 1'000'000;
  u64 seed = 1;
  u32 burst = 64;
  u32 hot = 1;
  u32 phase = 0;  // the maintenance state machine's
};

// The synthetic workload's run (ExploreParams::simulate).
struct ExploreSimulation {
  std::string pattern;
  upc::SimulationReport report;
};

// The answer.
struct ExploreResult {
  u32 counters = 0;
  u32 service_cycles = 0;
  double rate = 0;
  double total_rate = 0;  // T as used: the one asked, or counters x rate
  upc::Policy policy = upc::Policy::kRoundRobin;
  u32 min_low_bits = 0;  // the minimal safe width under `policy`: one of the two below
  u32 min_low_bits_round_robin = 0;
  u32 min_low_bits_largest_first = 0;
  double largest_first_max_value = 0;  // the largest value a register reaches, largest-first
  u32 low_bits = 0;                    // the width the storage and the simulation are for
  double ff_per_sram_bit = 0;
  upc::StorageReport storage;
  std::optional<ExploreSimulation> simulation;
};

// Answers `params`: the minimal widths from the closed forms (pmu/upc/params.h), the storage at
// the width asked or the policy's minimal one, and, when asked, the simulation. A width above 63,
// or above 32 with `simulate`, is a usage error (hpm::Error, ExitCode::kUsage).
ExploreResult exploreDesign(const ExploreParams& params);

}  // namespace hpm::tools
