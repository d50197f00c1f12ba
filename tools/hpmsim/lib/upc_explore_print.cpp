#include "tools/hpmsim/lib/upc_explore_print.h"

#include <fmt/core.h>

#include <cmath>

namespace hpm::tools {
namespace {

nlohmann::json storageJson(const upc::StorageReport& s) {
  return {{"flip_flop_bits", s.flip_flop_bits},      {"sram_bits", s.sram_bits},
          {"area_flip_flop_bits", s.area},           {"flat_flip_flop_bits", s.flat_flip_flop_bits},
          {"flat_area_flip_flop_bits", s.flat_area}, {"area_ratio", s.ratio}};
}

std::string simulationText(const ExploreResult& r, const ExploreSimulation& s) {
  const upc::SimulationReport& sim = s.report;
  std::string out = fmt::format("simulation: {} pattern, {} cycles, L = {}, {}\n", s.pattern,
                                sim.cycles, r.low_bits, upc::toString(r.policy));
  out += fmt::format("  events {}, carries {}, lost carries {} (in {} counters)\n", sim.events,
                     sim.stats.carries, sim.lost_carries, sim.counters_losing);
  out += fmt::format("  worst carry-to-service latency {} cycles\n", sim.max_service_latency);
  if (r.policy == upc::Policy::kLargestFirst) {
    out += fmt::format("  largest value flushed {}\n", sim.max_flushed_value);
  }
  out += fmt::format("  counters whose final value differs from the ideal count: {}{}\n",
                     sim.deviating_counters,
                     sim.deviating_counters == 0 ? ""
                     : sim.deviations_explained  ? " (each by exactly its lost carries x 2^L)"
                                                 : " (NOT explained by lost carries)");
  return out;
}

}  // namespace

nlohmann::json exploreJson(const ExploreResult& r) {
  nlohmann::json out = {{"counters", r.counters},
                        {"service_cycles", r.service_cycles},
                        {"rate", r.rate},
                        {"total_rate", r.total_rate},
                        {"policy", upc::toString(r.policy)},
                        {"min_low_bits", r.min_low_bits},
                        {"min_low_bits_round_robin", r.min_low_bits_round_robin},
                        {"min_low_bits_largest_first", r.min_low_bits_largest_first},
                        {"largest_first_max_value", r.largest_first_max_value},
                        {"low_bits", r.low_bits},
                        {"flip_flop_per_sram_bit", r.ff_per_sram_bit},
                        {"storage", storageJson(r.storage)}};
  if (r.simulation) {
    const upc::SimulationReport& sim = r.simulation->report;
    out["simulation"] = {{"pattern", r.simulation->pattern},
                         {"cycles", sim.cycles},
                         {"events", sim.events},
                         {"carries", sim.stats.carries},
                         {"lost_carries", sim.lost_carries},
                         {"counters_losing", sim.counters_losing},
                         {"worst_service_latency", sim.max_service_latency},
                         {"max_flushed_value", sim.max_flushed_value},
                         {"deviating_counters", sim.deviating_counters},
                         {"deviations_explained", sim.deviations_explained}};
  }
  return out;
}

std::string exploreText(const ExploreResult& r) {
  const double window = static_cast<double>(r.counters) * r.service_cycles;
  const upc::StorageReport& store = r.storage;
  std::string out = fmt::format(
      "UPC-P design explorer: N = {} counters, one maintenance slot every S = {} cycles\n",
      r.counters, r.service_cycles);
  out += fmt::format(
      "  event rate: R = {} per cycle per counter, T = {} per cycle over all counters\n", r.rate,
      r.total_rate);
  out += fmt::format(
      "  round-robin:   {} bits  (a counter is visited every N x S = {} cycles and sees at "
      "most ceil(min(R, T) x {}) events in between; 2^L must cover them)\n",
      r.min_low_bits_round_robin, window, window);
  out += fmt::format(
      "  largest-first: {} bits  (a register can reach {:.0f} with b = {} events per slot, "
      "Shah et al., IEEE Micro 2002; the register and its carry latch hold 2^(L+1) - 1)\n",
      r.min_low_bits_largest_first, std::floor(r.largest_first_max_value),
      std::ceil(r.total_rate * r.service_cycles - 1e-9));
  out += fmt::format("minimal safe low-order width ({}): {} bits\n", upc::toString(r.policy),
                     r.min_low_bits);
  out += fmt::format(
      "storage at L = {} ({}), area in flip-flop bits, 1 flip-flop bit = {:.2f} SRAM bits:\n",
      r.low_bits, upc::toString(r.policy), r.ff_per_sram_bit);
  out += fmt::format("  hybrid: {} flip-flop bits + {} SRAM bits (data and parity) = {:.0f}\n",
                     store.flip_flop_bits, store.sram_bits, store.area);
  out += fmt::format("  flat:   {} flip-flop bits (N x 64) = {:.0f}\n", store.flat_flip_flop_bits,
                     store.flat_area);
  out += fmt::format("  hybrid / flat = {:.3f}\n", store.ratio);
  if (r.simulation) out += simulationText(r, *r.simulation);
  return out;
}

}  // namespace hpm::tools
