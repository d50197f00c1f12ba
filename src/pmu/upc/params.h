// Parameters of UPC-P, the Blue Gene/P hybrid performance counter unit (seed 002, sections 4-6;
// docs/upc.md). Every structural number of the unit is here, with the seed's values as defaults.
#pragma once

#include <string>

#include "base/types.h"
#include "config/schema.h"

namespace hpm::upc {

// How a counter turns its selected input signal into increments (configuration bits [3:2]).
enum class SignalMode : u8 {
  kLevelHigh = 0,    // +n in every cycle in which the signal carries n >= 1 occurrences
  kLevelLow = 1,     // +1 in every cycle in which the signal is low
  kRisingEdge = 2,   // +1 in a cycle in which the signal is high and was low in the cycle before
  kFallingEdge = 3,  // +1 in a cycle in which the signal is low and was high in the cycle before
};

// What the maintenance state machine does in each of its visit slots.
enum class Policy : u8 {
  // The seed's design: slot j visits SRAM entry j mod N; a set carry latch is added to the
  // high-order word with one shared incrementer. Supports the threshold interrupts.
  kRoundRobin = 0,
  // Largest counter first (Shah et al., IEEE Micro 2002): each slot flushes the low-order
  // register (with its carry latch) holding the largest value into its SRAM word with a shared
  // adder; the SRAM word then holds a full 64-bit base. Threshold interrupts are not modelled
  // under this policy (docs/upc.md, "Policies").
  kLargestFirst = 1,
};

const char* toString(SignalMode mode);
const char* toString(Policy policy);

struct Params {
  u32 counters = 256;           // N
  u32 events = 1024;            // E = banks x N, banks = 1..4 (2-bit input select)
  u32 low_bits = 12;            // L; the SRAM word holds the other 64 - L bits
  u32 service_cycles = 16;      // S: cycles between two visit slots of the state machine
  u32 service_phase = 0;        // P: slot boundaries are the cycles t with (t + P) mod S == 0
  u32 parity_group_bits = 13;   // one even-parity bit per this many SRAM data bits
  double max_event_rate = 1.0;  // R: most events one counter sees per cycle (safety rule)
  double max_total_rate = 0.0;  // T: most events per cycle over all counters; 0 = N x R
  bool exploration = false;     // accept configurations that can lose carries, and count them
  Policy policy = Policy::kRoundRobin;

  void visit(config::Visitor& v);

  // Throws hpm::Error(kConfig) on an inconsistent set, and on a configuration that could lose a
  // carry at the stated maximum rate unless `exploration` is set. The message names the
  // smallest safe low_bits.
  void validate() const;

  u32 banks() const { return events / counters; }
  u32 highBits() const { return 64 - low_bits; }
};

// Smallest low-order width L for which a round-robin unit of `counters` counters, one visit every
// `service_cycles` cycles, cannot carry twice between two visits of the same counter when each
// counter sees at most `rate` events per cycle: 2^L >= ceil(rate x counters x service_cycles).
u32 minLowBitsRoundRobin(u64 counters, u64 service_cycles, double rate);

// Largest value a low-order register can reach under largest-counter-first when all counters
// together see at most `total_rate` events per cycle (Shah et al. 2002, Theorem on LCF-CMA:
// ln(bN) / ln(b / (b - 1)) with b = events per flush slot). Returns at least 1.
double largestFirstMaxValue(u64 counters, u64 service_cycles, double total_rate);

// Smallest L for which largest-counter-first never loses a carry: the register plus its carry
// latch hold values up to 2^(L+1) - 1, which must cover largestFirstMaxValue().
u32 minLowBitsLargestFirst(u64 counters, u64 service_cycles, double total_rate);

}  // namespace hpm::upc
