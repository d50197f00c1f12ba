// Parameters of the node's monitoring (which counter unit it has); node/monitor.h attaches it.
#pragma once

#include "base/types.h"
#include "config/schema.h"

namespace hpm {

enum class MonitorUnit : u8 {
  kNone,  // no counter unit
  kUpcP,  // the Blue Gene/P hybrid unit (pmu/upc)
  kUpcQ,  // the Blue Gene/Q units (pmu/upcq)
};

struct MonitorParams {
  MonitorUnit unit = MonitorUnit::kUpcQ;
  // Cycles between two checks for counter interrupts that are not found at an access (overflows
  // that pending level intervals cause, slow overflows at a sweep): the delivery latency bound.
  u64 poll_cycles = 64;

  void visit(config::Visitor& v) {
    v.param(
        "unit", unit, "The node's counter unit: upc (Blue Gene/P), upcq (Blue Gene/Q), none",
        {{"none", MonitorUnit::kNone}, {"upc", MonitorUnit::kUpcP}, {"upcq", MonitorUnit::kUpcQ}});
    v.param("poll_cycles", poll_cycles, "Cycles between checks for counter interrupts",
            config::Range{1, 1e9});
  }
};

}  // namespace hpm
