// `hpmsim run --upc-config FILE`: a UPC-P configuration read from a file (docs/counters.md,
// "Host programming").
#pragma once

#include <string>
#include <vector>

#include "base/types.h"
#include "node/monitor.h"

namespace hpm::tools {

// --upc-config FILE: a UPC-P configuration (docs/counters.md, "Host programming"). One item per
// line, '#' starts a comment: `select S` gives every counter c input S x N + c; a native event
// name gives its own counter that event (overriding a select line). Returns one event of
// `catalogue` (the unit's native events) per programmed counter of the `counters` there; two
// event names needing one counter, unknown names and bad selects are errors (hpm::Error,
// ExitCode::kUsage) naming the line; a file that cannot be read, is not a regular file or is
// larger than 1 MiB, ExitCode::kIo.
std::vector<const NativeEvent*> parseUpcConfig(const std::string& path,
                                               const std::vector<NativeEvent>& catalogue,
                                               u32 counters);

}  // namespace hpm::tools
