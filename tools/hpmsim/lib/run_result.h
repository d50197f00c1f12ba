// `hpmsim run`'s results on one node, as plain values read from the simulation at the end, and
// their outputs: the statistics (--stats-json, --stats-text) and --summary's lines. (Many nodes:
// nodes_run.h.)
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "base/types.h"
#include "node/simulation.h"
#include "stats/stats.h"
#include "tools/hpmsim/lib/session.h"

namespace hpm::tools {

struct RunResult {
  std::string program;  // as the command line gave it
  std::string machine;  // the machine's name
  double clock_mhz = 0;
  std::string mode;  // the run mode's name
  u64 instructions = 0;
  u64 cycles = 0;  // elapsed: the latest thread's clock
  u64 simulated_ns = 0;
  double host_seconds = 0;
  int exit_status = 0;
  std::vector<RegionReport> regions;

  // Retired instructions per host second, in millions (0 for no host time).
  double mips() const {
    return host_seconds > 0 ? static_cast<double>(instructions) / host_seconds / 1e6 : 0.0;
  }
};

// The results of `sim`, which ran `s`'s program in `host_seconds`.
RunResult runResult(const Simulation& sim, const Session& s, double host_seconds);

// Visits the statistics of the run: its totals (run_stats.h), each guest thread's, then the
// simulation's.
void visitRunStats(stats::Visitor& v, const Simulation& sim, const RunResult& r);
// The statistics as --stats-json writes them: with the machine's configuration, the command line,
// the digest of the guest's inputs (arguments and environment) and each statistic's unit.
nlohmann::json runStatsJson(const Simulation& sim, const RunResult& r, Session& s);
// As --stats-text writes them.
std::string runStatsText(const Simulation& sim, const RunResult& r);

// --summary's lines: the totals, then one line per region.
std::string runSummaryText(const RunResult& r);

}  // namespace hpm::tools
