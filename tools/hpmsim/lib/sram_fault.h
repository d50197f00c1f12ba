// hpmsim run --sram-fault: faults injected into a counter unit's SRAM (docs/counters.md, "Fault
// injection"), and the report of what the unit made of them.
#pragma once

#include <string>
#include <vector>

#include "base/types.h"

namespace hpm {
class Monitor;
}

namespace hpm::tools {

// Schedules each "counter=C,cycle=T[,bit=B][,unit=PATH]" on `monitor` (bit 0 by default: the
// entry's lowest data bit; the unit by default the node's first with SRAM). Fails
// (ExitCode::kUsage) naming a malformed or unknown part, or a node whose units keep no SRAM.
void scheduleSramFaults(const std::vector<std::string>& specs, Monitor* monitor,
                        const std::string& machine);

// One line per fault on stderr: when it was flipped, and when and how the unit detected it.
void reportSramFaults(const Monitor& monitor, Cycle end);

}  // namespace hpm::tools
