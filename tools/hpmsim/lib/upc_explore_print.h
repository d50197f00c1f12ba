// `hpmsim upc explore`'s printers, each a function of the answer (upc_explore.h) alone.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "tools/hpmsim/lib/upc_explore.h"

namespace hpm::tools {

// The answer as one object (--json): min_low_bits holds the minimal safe width, `storage` the
// storage figures and, with --simulate, `simulation` the run's (docs/upc.md names every key).
nlohmann::json exploreJson(const ExploreResult& result);
// The answer as text: the question, each policy's minimal width and why, the storage of the
// hybrid design against flat counters and, with --simulate, what the run lost.
std::string exploreText(const ExploreResult& result);

}  // namespace hpm::tools
