// What `hpmsim sweep` found, apart from how it ran the points (sweep_run.h) and how it prints
// them (sweep_print.h): plain values, which the tests make up without a guest.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/types.h"
#include "tools/hpmsim/lib/sweep_plan.h"

namespace hpm::tools {

// A guest region's cycles in one point's run (node/node_stats.h's kRegions).
struct RegionCycles {
  u64 id = 0;
  std::string name;
  u64 cycles = 0;
};

// The figures of a point's run, from its statistics (hpmsim run --stats-json).
struct PointFigures {
  u64 cycles = 0;
  u64 instructions = 0;
  std::optional<std::string> guest_inputs;  // guestInputsDigest (none from a run of many nodes)
  std::vector<RegionCycles> regions;        // as the statistics list them
};

// One point: its values, how its run ended, and what it measured.
struct SweepPoint {
  std::vector<std::string> values;  // one per axis
  int status = -1;                  // the run's exit status (128 + N: killed by signal N); -1: none
  std::string error;                // why the point failed ("": it did not)
  std::optional<PointFigures> figures;  // none: no statistics, or none to trust (interrupted)

  // A failed point has an error, or no figures; a point whose program failed keeps the figures
  // its run wrote, beside its error.
  bool failed() const { return !error.empty() || !figures; }
};

// A sweep's results: its axes and its points in crossProduct's order; the first point is the
// one speedups are measured against.
struct SweepResult {
  std::vector<SweepAxis> axes;
  std::vector<SweepPoint> points;
};

}  // namespace hpm::tools
