// What hpmsim costs its host in memory (docs/kernel.md, "Memory").
#pragma once

#include "base/types.h"

namespace hpm::tools {

// hpmsim's peak resident memory so far, in KiB (Linux reports getrusage's ru_maxrss in KiB):
// what the host gave the run, the guests' memory and the models' together.
u64 hostPeakRssKib();

}  // namespace hpm::tools
