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

// A counter as the run ends: the input its configuration selects then, and its count.
struct UpcCounterRow {
  u32 counter = 0;
  u32 select = 0;     // the configuration register's select field
  std::string event;  // the native event that counter and select count
  u64 value = 0;
  bool reprogrammed = false;  // the guest changed the select --upc-config gave
};

// The rows of the counters `upc` was programmed with from the host (its UPC-P unit with
// `counters` counters), read at cycle `now`.
std::vector<UpcCounterRow> upcCounterRows(Monitor& upc, u32 counters, Cycle now);
// The table run prints on stderr: a header naming the configuration file `path` and `cycles`,
// then a line per counter (marked when the guest reprogrammed it).
std::string upcCountersText(const std::string& path, Cycle cycles,
                            const std::vector<UpcCounterRow>& rows);

}  // namespace hpm::tools
