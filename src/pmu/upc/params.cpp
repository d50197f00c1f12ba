#include "pmu/upc/params.h"

#include <bit>
#include <cmath>

#include "base/error.h"

namespace hpm::upc {

const char* toString(SignalMode mode) {
  switch (mode) {
    case SignalMode::kLevelHigh: return "level-high";
    case SignalMode::kLevelLow: return "level-low";
    case SignalMode::kRisingEdge: return "rising-edge";
    case SignalMode::kFallingEdge: return "falling-edge";
  }
  return "?";
}

const char* toString(Policy policy) {
  return policy == Policy::kRoundRobin ? "round-robin" : "largest-first";
}

void Params::visit(config::Visitor& v) {
  v.param("counters", counters,
          "Counters N (seed: 256). A multiple of 8: eight counters share one configuration "
          "register",
          config::Range{8, 4096});
  v.param("events", events,
          "Event inputs E (seed: 1024). E / N banks of N events, 1 to 4: counter c's 2-bit "
          "input select s chooses event s x N + c",
          config::Range{8, 16384});
  v.param("low_bits", low_bits,
          "Width L of each counter's low-order register (seed: 12); the SRAM word holds the "
          "other 64 - L bits",
          config::Range{1, 32});
  v.param("service_cycles", service_cycles,
          "Cycles S between two visit slots of the maintenance state machine (seed: 16)",
          config::Range{1, 65536});
  v.param("service_phase", service_phase,
          "Phase P of the state machine: slots begin at the cycles t with (t + P) mod S == 0 and "
          "round-robin slot t visits entry ((t + P) / S) mod N; must be below N x S",
          config::Range{0, 4294967295.0});
  v.param("parity_group_bits", parity_group_bits,
          "SRAM data bits covered by one even-parity bit (default 13: four parity bits for the "
          "52-bit word)",
          config::Range{1, 64});
  v.param("max_event_rate", max_event_rate,
          "Stated maximum events per cycle of one counter, used by the safety rule",
          config::Range{1e-9, 4096});
  v.param("max_total_rate", max_total_rate,
          "Stated maximum events per cycle over all counters (largest-first safety rule); 0 "
          "means N x max_event_rate",
          config::Range{0, 1e9});
  v.param("exploration", exploration,
          "Accept a configuration that can lose carries at the stated rate, and count every "
          "lost carry instead of refusing it");
  v.param("policy", policy, "Counter-management policy of the maintenance state machine",
          {{"round-robin", Policy::kRoundRobin}, {"largest-first", Policy::kLargestFirst}});
}

void Params::validate() const {
  if (counters < 8 || counters > 4096 || counters % 8 != 0) {
    fail(ExitCode::kConfig, "UPC-P: counters = {} must be a multiple of 8 between 8 and 4096",
         counters);
  }
  if (events % counters != 0 || events / counters < 1 || events / counters > 4) {
    fail(ExitCode::kConfig,
         "UPC-P: events = {} must be 1 to 4 times counters = {} (the input select has 2 bits)",
         events, counters);
  }
  if (low_bits < 1 || low_bits > 32) {
    fail(ExitCode::kConfig, "UPC-P: low_bits = {} must be between 1 and 32", low_bits);
  }
  if (service_cycles < 1) fail(ExitCode::kConfig, "UPC-P: service_cycles must be at least 1");
  if (u64{service_phase} >= u64{counters} * service_cycles) {
    fail(ExitCode::kConfig,
         "UPC-P: service_phase = {} must be below counters x service_cycles = {}", service_phase,
         u64{counters} * service_cycles);
  }
  if (parity_group_bits < 1 || parity_group_bits > 64) {
    fail(ExitCode::kConfig, "UPC-P: parity_group_bits = {} must be between 1 and 64",
         parity_group_bits);
  }
  if (!(max_event_rate > 0)) fail(ExitCode::kConfig, "UPC-P: max_event_rate must be positive");
  if (max_total_rate < 0) fail(ExitCode::kConfig, "UPC-P: max_total_rate must not be negative");
  if (exploration) return;
  if (policy == Policy::kRoundRobin) {
    const u32 need = minLowBitsRoundRobin(counters, service_cycles, max_event_rate);
    if (low_bits < need) {
      const double window = static_cast<double>(counters) * service_cycles;
      fail(ExitCode::kConfig,
           "UPC-P: unsafe configuration: a counter is visited every {} x {} = {} cycles and may "
           "see up to {} events in that time at {} events per cycle, but a {}-bit low-order "
           "register carries every {} events, so it could carry twice before the state machine "
           "services the first carry and lose it. Use low_bits >= {} (or fewer counters, fewer "
           "service cycles, a lower max_event_rate), or set exploration = true to run anyway and "
           "count lost carries",
           counters, service_cycles, window, std::ceil(max_event_rate * window - 1e-9),
           max_event_rate, low_bits, u64{1} << low_bits, need);
    }
  } else {
    const double total = max_total_rate > 0 ? max_total_rate : max_event_rate * counters;
    const u32 need = minLowBitsLargestFirst(counters, service_cycles, total);
    if (low_bits < need) {
      fail(ExitCode::kConfig,
           "UPC-P: unsafe configuration: under largest-counter-first with {} counters, one flush "
           "every {} cycles and {} events per cycle in total, a low-order register can reach {} "
           "(Shah et al. 2002), more than a {}-bit register and its carry latch hold. Use "
           "low_bits >= {}, or set exploration = true to run anyway and count lost carries",
           counters, service_cycles, total,
           std::floor(largestFirstMaxValue(counters, service_cycles, total)), low_bits, need);
    }
  }
}

u32 minLowBitsRoundRobin(u64 counters, u64 service_cycles, double rate) {
  // The most events a counter can see in the counters x service_cycles cycles between two
  // visits; a second carry needs 2^L + 1 of them (docs/upc.md, "Safety").
  const long double window = static_cast<long double>(counters) * service_cycles;
  const long double most = std::ceil(static_cast<long double>(rate) * window - 1e-9L);
  u32 bits = 0;
  while (bits < 64 && static_cast<long double>(u64{1} << bits) < most) ++bits;
  return bits;
}

double largestFirstMaxValue(u64 counters, u64 service_cycles, double total_rate) {
  const double b = std::ceil(total_rate * static_cast<double>(service_cycles) - 1e-9);
  if (b <= 1) return 1;
  return std::log(b * static_cast<double>(counters)) / std::log(b / (b - 1));
}

u32 minLowBitsLargestFirst(u64 counters, u64 service_cycles, double total_rate) {
  const double most = std::floor(largestFirstMaxValue(counters, service_cycles, total_rate));
  u32 bits = 1;
  while (bits < 63 && static_cast<double>((u64{1} << (bits + 1)) - 1) < most) ++bits;
  return bits;
}

}  // namespace hpm::upc
