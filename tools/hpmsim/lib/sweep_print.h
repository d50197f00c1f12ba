// `hpmsim sweep`'s printers: the table and the JSON list, each a function of the results
// (sweep_result.h) alone. `hpmsim report` and scripts (bench/whatif.py) read them: their format
// is docs/commands/hpmsim-sweep.md's.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <map>
#include <string>

#include "base/types.h"
#include "tools/hpmsim/lib/sweep_result.h"

namespace hpm::tools {

// The regions of every point, by id: the columns of the table. A region's name is the one the
// last point that has it gives.
std::map<u64, std::string> sweepRegions(const SweepResult& result);

// The point's speedup against the first: the first point's cycles over its own (0 when the
// first point has no figures). Only for a point with figures.
double sweepSpeedup(const SweepResult& result, const PointFigures& figures);

// The table, a line each (the last ends with a newline too): a header of the axes' keys,
// "cycles", the regions' names and "speedup", then a row per point with its values, its cycles,
// its cycles in each region ("-" where it has none) and its speedup to 3 decimals; a failed
// point's row gives its values, then "failed (status S): " and its error's first 200 bytes.
std::string sweepText(const SweepResult& result);

// The points as a JSON list, one object each: `config` (each axis' key and the point's value),
// `status`, `error` when it failed, and with its figures `cycles`, `instructions`,
// `guest_inputs` (if its run recorded it), `regions` (name: cycles) and `speedup`.
nlohmann::json sweepJson(const SweepResult& result);

// The points that failed (SweepPoint::failed): the sweep exits non-zero if there are any.
std::size_t sweepFailures(const SweepResult& result);

}  // namespace hpm::tools
