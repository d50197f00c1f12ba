// `hpmsim upc explore`: the UPC-P design explorer (docs/upc.md, "Explorer"). It answers how wide
// the low-order registers of the hybrid counter unit must be for a given number of counters,
// maintenance rate and event rate, what the hybrid design stores against flat 64-bit flip-flop
// counters, and, with --simulate, what a given width loses on a synthetic workload. The answer is
// lib/upc_explore.h's, its printing lib/upc_explore_print.h's.
#include <fmt/core.h>

#include <memory>

#include "base/json_text.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/lib/finite_range.h"
#include "tools/hpmsim/lib/upc_explore.h"
#include "tools/hpmsim/lib/upc_explore_print.h"

namespace hpm::tools {
namespace {

// The question, and what the command line says of it in its own words.
struct ExploreOptions {
  ExploreParams params;
  std::string policy = "round-robin";
  bool json = false;
};

int runExplore(const ExploreOptions& o) {
  ExploreParams params = o.params;
  params.policy =
      o.policy == "largest-first" ? upc::Policy::kLargestFirst : upc::Policy::kRoundRobin;
  const ExploreResult result = exploreDesign(params);
  if (o.json) {
    fmt::print("{}\n", jsonText(exploreJson(result), 2));
  } else {
    fmt::print("{}", exploreText(result));
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
  explore->add_option("--counters", options->params.counters, "Counters N")
      ->default_val(256)
      ->check(CLI::Range(1u, 1u << 20));
  explore
      ->add_option("--service-cycles", options->params.service_cycles,
                   "Cycles S between two slots of the maintenance state machine")
      ->default_val(16)
      ->check(CLI::Range(1u, 1u << 20));
  explore
      ->add_option("--rate", options->params.rate,
                   "Most events per cycle one counter sees (R); also the simulated rate")
      ->default_val(1.0)
      ->check(finiteRange(1e-9, 4096.0));
  explore
      ->add_option("--total-rate", options->params.total_rate,
                   "Most events per cycle over all counters (T); 0 means N x R")
      ->default_val(0.0)
      ->check(finiteRange(0.0, 1e9));
  explore->add_option("--policy", options->policy, "Counter-management policy")
      ->default_val("round-robin")
      ->check(CLI::IsMember({"round-robin", "largest-first"}));
  explore
      ->add_option("--low-bits", options->params.low_bits,
                   "Low-order width L for the storage figures and --simulate (default: the "
                   "minimal safe width)")
      ->check(CLI::Range(1u, 63u));
  explore
      ->add_option("--parity-group", options->params.parity_group_bits,
                   "SRAM data bits per parity bit")
      ->default_val(13)
      ->check(CLI::Range(1u, 64u));
  explore
      ->add_option("--ff-sram-ratio", options->params.ff_per_sram_bit,
                   "Area of a flip-flop bit in SRAM bit cells (default: NanGate 45 nm DFF_X1 "
                   "4.522 um^2 / 45 nm 6T SRAM cell 0.346 um^2)")
      ->check(finiteRange(0.01, 1000.0));
  explore->add_flag("--json", options->json,
                    "Print one JSON object (key min_low_bits holds the minimal safe width)");
  explore->add_flag("--simulate", options->params.simulate,
                    "Run the unit (exploration mode) on a synthetic workload and report lost "
                    "carries and the worst carry-to-service latency");
  explore
      ->add_option("--pattern", options->params.pattern,
                   "Synthetic workload: uniform (every counter, probability R per cycle), "
                   "bursty (bursts of one event per cycle, busy a fraction R), hot (only "
                   "--hot-counters counters, probability R)")
      ->default_val("uniform")
      ->check(CLI::IsMember({"uniform", "bursty", "hot"}));
  explore->add_option("--cycles", options->params.cycles, "Simulated cycles")
      ->default_val(1'000'000)
      ->check(CLI::Range(u64{1}, u64{1} << 40));
  explore->add_option("--seed", options->params.seed, "Seed of the synthetic workload")
      ->default_val(1);
  explore->add_option("--burst", options->params.burst, "Mean burst length of --pattern bursty")
      ->default_val(64)
      ->check(CLI::Range(1u, 1u << 30));
  explore->add_option("--hot-counters", options->params.hot, "Counters that count in --pattern hot")
      ->default_val(1)
      ->check(CLI::Range(1u, 1u << 20));
  explore->add_option("--phase", options->params.phase, "Phase of the maintenance state machine")
      ->default_val(0);
  explore->callback(
      [options, &selected] { selected = [options] { return runExplore(*options); }; });
}

}  // namespace hpm::tools
