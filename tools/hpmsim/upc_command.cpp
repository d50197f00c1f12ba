// `hpmsim upc explore`: the UPC-P design explorer (docs/upc.md, "Explorer"). It answers how wide
// the low-order registers of the hybrid counter unit must be for a given number of counters,
// maintenance rate and event rate, what the hybrid design stores against flat 64-bit flip-flop
// counters, and, with --simulate, what a given width loses on a synthetic workload.
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <memory>

#include "base/error.h"
#include "base/json_text.h"
#include "pmu/upc/explore.h"
#include "pmu/upc/params.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/lib/finite_range.h"

namespace hpm::tools {
namespace {

struct ExploreOptions {
  u32 counters = 256;
  u32 service_cycles = 16;
  double rate = 1.0;
  double total_rate = 0.0;
  std::string policy = "round-robin";
  u32 low_bits = 0;  // 0: the minimal safe width
  u32 parity_group_bits = 13;
  double ff_per_sram_bit = upc::kFlipFlopPerSramBit;
  bool json = false;
  bool simulate = false;
  std::string pattern = "uniform";
  u64 cycles = 1'000'000;
  u64 seed = 1;
  u32 burst = 64;
  u32 hot = 1;
  u32 phase = 0;
};

nlohmann::json storageJson(const upc::StorageReport& s) {
  return {{"flip_flop_bits", s.flip_flop_bits},      {"sram_bits", s.sram_bits},
          {"area_flip_flop_bits", s.area},           {"flat_flip_flop_bits", s.flat_flip_flop_bits},
          {"flat_area_flip_flop_bits", s.flat_area}, {"area_ratio", s.ratio}};
}

int runExplore(const ExploreOptions& o) {
  const upc::Policy policy =
      o.policy == "largest-first" ? upc::Policy::kLargestFirst : upc::Policy::kRoundRobin;
  const double total = o.total_rate > 0 ? o.total_rate : o.rate * o.counters;
  // Round-robin's worst case is one counter taking the whole budget: min(R, T) per cycle.
  const u32 rr_bits_total =
      upc::minLowBitsRoundRobin(o.counters, o.service_cycles, std::min(o.rate, total));
  const u32 lcf_bits = upc::minLowBitsLargestFirst(o.counters, o.service_cycles, total);
  const double lcf_max = upc::largestFirstMaxValue(o.counters, o.service_cycles, total);
  const u32 min_bits = policy == upc::Policy::kRoundRobin ? rr_bits_total : lcf_bits;
  const u32 low_bits = o.low_bits != 0 ? o.low_bits : min_bits;
  if (low_bits > 63) fail(ExitCode::kUsage, "--low-bits must be below 64");
  const double window = static_cast<double>(o.counters) * o.service_cycles;
  const upc::StorageReport store =
      upc::storage(o.counters, low_bits, o.parity_group_bits, policy, o.ff_per_sram_bit);

  nlohmann::json out = {{"counters", o.counters},
                        {"service_cycles", o.service_cycles},
                        {"rate", o.rate},
                        {"total_rate", total},
                        {"policy", upc::toString(policy)},
                        {"min_low_bits", min_bits},
                        {"min_low_bits_round_robin", rr_bits_total},
                        {"min_low_bits_largest_first", lcf_bits},
                        {"largest_first_max_value", lcf_max},
                        {"low_bits", low_bits},
                        {"flip_flop_per_sram_bit", o.ff_per_sram_bit},
                        {"storage", storageJson(store)}};

  upc::SimulationReport sim;
  if (o.simulate) {
    upc::Params p;
    p.counters = o.counters;
    p.events = o.counters;
    p.service_cycles = o.service_cycles;
    p.service_phase = o.phase;
    p.low_bits = low_bits;
    p.parity_group_bits = o.parity_group_bits;
    p.max_event_rate = o.rate;
    p.max_total_rate = o.total_rate;
    p.policy = policy;
    if (low_bits > 32) fail(ExitCode::kUsage, "--simulate supports --low-bits up to 32");
    upc::Workload w;
    w.pattern = o.pattern == "bursty" ? upc::Pattern::kBursty
                : o.pattern == "hot"  ? upc::Pattern::kHot
                                      : upc::Pattern::kUniform;
    w.rate = o.rate;
    w.burst = o.burst;
    w.hot = o.hot;
    w.cycles = o.cycles;
    w.seed = o.seed;
    sim = upc::simulate(p, w);
    out["simulation"] = {{"pattern", o.pattern},
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

  if (o.json) {
    fmt::print("{}\n", jsonText(out, 2));
    return 0;
  }
  fmt::print("UPC-P design explorer: N = {} counters, one maintenance slot every S = {} cycles\n",
             o.counters, o.service_cycles);
  fmt::print("  event rate: R = {} per cycle per counter, T = {} per cycle over all counters\n",
             o.rate, total);
  fmt::print(
      "  round-robin:   {} bits  (a counter is visited every N x S = {} cycles and sees at "
      "most ceil(min(R, T) x {}) events in between; 2^L must cover them)\n",
      rr_bits_total, window, window);
  fmt::print(
      "  largest-first: {} bits  (a register can reach {:.0f} with b = {} events per slot, "
      "Shah et al., IEEE Micro 2002; the register and its carry latch hold 2^(L+1) - 1)\n",
      lcf_bits, std::floor(lcf_max), std::ceil(total * o.service_cycles - 1e-9));
  fmt::print("minimal safe low-order width ({}): {} bits\n", upc::toString(policy), min_bits);
  fmt::print(
      "storage at L = {} ({}), area in flip-flop bits, 1 flip-flop bit = {:.2f} SRAM bits:\n",
      low_bits, upc::toString(policy), o.ff_per_sram_bit);
  fmt::print("  hybrid: {} flip-flop bits + {} SRAM bits (data and parity) = {:.0f}\n",
             store.flip_flop_bits, store.sram_bits, store.area);
  fmt::print("  flat:   {} flip-flop bits (N x 64) = {:.0f}\n", store.flat_flip_flop_bits,
             store.flat_area);
  fmt::print("  hybrid / flat = {:.3f}\n", store.ratio);
  if (o.simulate) {
    fmt::print("simulation: {} pattern, {} cycles, L = {}, {}\n", o.pattern, sim.cycles, low_bits,
               upc::toString(policy));
    fmt::print("  events {}, carries {}, lost carries {} (in {} counters)\n", sim.events,
               sim.stats.carries, sim.lost_carries, sim.counters_losing);
    fmt::print("  worst carry-to-service latency {} cycles\n", sim.max_service_latency);
    if (policy == upc::Policy::kLargestFirst) {
      fmt::print("  largest value flushed {}\n", sim.max_flushed_value);
    }
    fmt::print("  counters whose final value differs from the ideal count: {}{}\n",
               sim.deviating_counters,
               sim.deviating_counters == 0 ? ""
               : sim.deviations_explained  ? " (each by exactly its lost carries x 2^L)"
                                           : " (NOT explained by lost carries)");
  }
  return 0;
}

}  // namespace

void addUpcCommand(CLI::App& root, Action& selected) {
  CLI::App* upc = root.add_subcommand("upc", "UPC-P, the Blue Gene/P hybrid counter unit");
  upc->require_subcommand(1);
  auto options = std::make_shared<ExploreOptions>();
  CLI::App* explore = upc->add_subcommand(
      "explore",
      "Design explorer: minimal safe low-order width, storage against flat flip-flop counters, "
      "and (--simulate) lost carries and carry-to-service latency on a synthetic workload");
  explore->add_option("--counters", options->counters, "Counters N")
      ->default_val(256)
      ->check(CLI::Range(1u, 1u << 20));
  explore
      ->add_option("--service-cycles", options->service_cycles,
                   "Cycles S between two slots of the maintenance state machine")
      ->default_val(16)
      ->check(CLI::Range(1u, 1u << 20));
  explore
      ->add_option("--rate", options->rate,
                   "Most events per cycle one counter sees (R); also the simulated rate")
      ->default_val(1.0)
      ->check(finiteRange(1e-9, 4096.0));
  explore
      ->add_option("--total-rate", options->total_rate,
                   "Most events per cycle over all counters (T); 0 means N x R")
      ->default_val(0.0)
      ->check(finiteRange(0.0, 1e9));
  explore->add_option("--policy", options->policy, "Counter-management policy")
      ->default_val("round-robin")
      ->check(CLI::IsMember({"round-robin", "largest-first"}));
  explore
      ->add_option("--low-bits", options->low_bits,
                   "Low-order width L for the storage figures and --simulate (default: the "
                   "minimal safe width)")
      ->check(CLI::Range(1u, 63u));
  explore->add_option("--parity-group", options->parity_group_bits, "SRAM data bits per parity bit")
      ->default_val(13)
      ->check(CLI::Range(1u, 64u));
  explore
      ->add_option("--ff-sram-ratio", options->ff_per_sram_bit,
                   "Area of a flip-flop bit in SRAM bit cells (default: NanGate 45 nm DFF_X1 "
                   "4.522 um^2 / 45 nm 6T SRAM cell 0.346 um^2)")
      ->check(finiteRange(0.01, 1000.0));
  explore->add_flag("--json", options->json,
                    "Print one JSON object (key min_low_bits holds the minimal safe width)");
  explore->add_flag("--simulate", options->simulate,
                    "Run the unit (exploration mode) on a synthetic workload and report lost "
                    "carries and the worst carry-to-service latency");
  explore
      ->add_option("--pattern", options->pattern,
                   "Synthetic workload: uniform (every counter, probability R per cycle), "
                   "bursty (bursts of one event per cycle, busy a fraction R), hot (only "
                   "--hot-counters counters, probability R)")
      ->default_val("uniform")
      ->check(CLI::IsMember({"uniform", "bursty", "hot"}));
  explore->add_option("--cycles", options->cycles, "Simulated cycles")
      ->default_val(1'000'000)
      ->check(CLI::Range(u64{1}, u64{1} << 40));
  explore->add_option("--seed", options->seed, "Seed of the synthetic workload")->default_val(1);
  explore->add_option("--burst", options->burst, "Mean burst length of --pattern bursty")
      ->default_val(64)
      ->check(CLI::Range(1u, 1u << 30));
  explore->add_option("--hot-counters", options->hot, "Counters that count in --pattern hot")
      ->default_val(1)
      ->check(CLI::Range(1u, 1u << 20));
  explore->add_option("--phase", options->phase, "Phase of the maintenance state machine")
      ->default_val(0);
  explore->callback(
      [options, &selected] { selected = [options] { return runExplore(*options); }; });
}

}  // namespace hpm::tools
