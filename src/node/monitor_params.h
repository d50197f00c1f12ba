// Parameters of the node's monitoring (which counter unit family it has); node/monitor.h
// attaches it.
#pragma once

#include <string>

#include "base/types.h"
#include "config/schema.h"
#include "node/families.h"

namespace hpm {

// How events reach a counter that counts level high without interrupt or overflow.
enum class Counting : u8 {
  kStatistics,  // from the models' statistics at the end of each of its windows (fast)
  kEvents,      // every event published by the models and delivered (the reference path)
};

struct MonitorParams {
  // The unit family (node/families.h), or "none".
  std::string unit = "upcq";
  // Whether the node has the interconnect monitor (pmu/imon, /dev/hpm/imon) beside its unit.
  bool interconnect = true;
  Counting counting = Counting::kStatistics;
  // Cycles between two checks for counter interrupts that are not found at an access (overflows
  // that pending level intervals cause, slow overflows at a sweep): the delivery latency bound.
  u64 poll_cycles = 64;

  bool none() const { return unit == kNoUnitFamily; }

  void visit(config::Visitor& v) {
    v.param("unit", unit, "The node's counter unit: upc (Blue Gene/P), upcq (Blue Gene/Q), none",
            unitFamilyChoices());
    v.param("interconnect", interconnect,
            "Whether the node has the interconnect monitor (/dev/hpm/imon: transaction filters, "
            "histogramming counters and sequence FIFOs on the crossbar; docs/interconnect.md)");
    v.param("counting", counting,
            "How level-high counters without interrupt or overflow count in the timing modes: "
            "statistics (from the models' statistics at each window's end) or events (every "
            "event delivered); the counts are the same, but for readings during a run of a level "
            "event of a thread that is stalled or waiting then, which may differ by the cycles "
            "of that stall (docs/counters.md, \"Level events read during a run\"; totals at the "
            "end are the same and exact)",
            {{"statistics", Counting::kStatistics}, {"events", Counting::kEvents}});
    v.param("poll_cycles", poll_cycles, "Cycles between checks for counter interrupts",
            config::Range{1, 1e9});
  }
};

}  // namespace hpm
