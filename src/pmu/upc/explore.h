// Design exploration for UPC-P: storage of the hybrid design against flat flip-flop counters, and
// synthetic workloads that run a unit in exploration mode to count lost carries and measure the
// carry-to-service latency (the `hpmsim upc explore` command; docs/upc.md, "Explorer").
#pragma once

#include <string>

#include "base/types.h"
#include "pmu/upc/params.h"
#include "pmu/upc/unit.h"

namespace hpm::upc {

// Area of one flip-flop bit in units of one SRAM bit cell. Default: NanGate 45 nm Open Cell
// Library DFF_X1 (4.522 um^2) over the 45 nm 6T SRAM cell of Mistry et al., IEDM 2007
// (0.346 um^2): 13.07. Cell areas only; SRAM periphery (decoders, sense amplifiers) is not
// counted, which favours the SRAM side (docs/upc.md, "Area model").
inline constexpr double kFlipFlopPerSramBit = 4.522 / 0.346;

struct StorageReport {
  u64 flip_flop_bits = 0;       // low-order registers, carry latches, armed bits
  u64 sram_bits = 0;            // SRAM data and parity bits
  double area = 0;              // in flip-flop-bit units
  u64 flat_flip_flop_bits = 0;  // N x 64 flip-flop counters
  double flat_area = 0;
  double ratio = 0;  // area / flat_area
};

// Counter-state storage only: configuration bytes, multiplexers, the incrementer (adder for
// largest-first) and the comparator are the same or small next to it and are left out.
StorageReport storage(u32 counters, u32 low_bits, u32 parity_group_bits, Policy policy,
                      double flip_flop_per_sram_bit = kFlipFlopPerSramBit);

enum class Pattern : u8 {
  kUniform,  // every counter independently has an event each cycle with probability `rate`
  kBursty,   // every counter alternates bursts of one event per cycle (mean length `burst`) and
             // idle gaps, busy a `rate` fraction of the time
  kHot,      // only counters [0, hot) count, each with probability `rate` per cycle
};
const char* toString(Pattern pattern);

struct Workload {
  Pattern pattern = Pattern::kUniform;
  double rate = 1.0;
  u32 burst = 64;
  u32 hot = 1;
  u64 cycles = 1'000'000;
  u64 seed = 1;
};

struct SimulationReport {
  u64 cycles = 0;
  u64 events = 0;  // events the ideal counters saw
  u64 lost_carries = 0;
  u64 max_service_latency = 0;
  u64 max_flushed_value = 0;
  u64 counters_losing = 0;           // counters with at least one lost carry
  u64 deviating_counters = 0;        // counters whose final value differs from the ideal count
  bool deviations_explained = true;  // every deviation equals (lost carries) x 2^L
  Stats stats;
};

// Runs a unit with `params` (exploration forced on) on `workload` through the per-cycle
// interface, every counter selecting bank 0 in level-high mode, counting from cycle 0.
SimulationReport simulate(Params params, const Workload& workload);

}  // namespace hpm::upc
