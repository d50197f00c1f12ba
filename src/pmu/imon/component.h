// The interconnect monitor as a family of counter units (pmu/counter_unit.h): one unit,
// /dev/hpm/imon, on the node's transaction stream, and its filter presets as native events.
#pragma once

#include "pmu/catalogue.h"
#include "pmu/imon/params.h"

namespace hpm::imon {

pmu::Attachment attach(const Params& params, const pmu::NodeShape& node);

}  // namespace hpm::imon
