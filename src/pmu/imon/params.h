// Parameters of the interconnect monitor (seed 004, Sun Fire Link's performance instrumentation;
// design.md 4.3; docs/interconnect.md): how many monitors the node has, each with two filtering
// histogramming counters and a transaction sequence FIFO.
#pragma once

#include "base/types.h"
#include "config/schema.h"
#include "stats/transaction.h"

namespace hpm::imon {

struct Params {
  // Monitors ("ASICs") combined in the node's unit: each has two counters, each with its own
  // filter, and a FIFO fed by its counter 1's filter.
  u32 monitors = 2;
  // Width of a histogramming counter: it wraps modulo 2^counter_bits (no interrupt: software
  // samples the counters, as busstat does).
  u32 counter_bits = 32;
  // Entries of a transaction sequence FIFO (the seed's 8).
  u32 fifo_entries = 8;
  // The interconnect it watches, whose namespace its type masks cover: the machine's
  // (node.interconnect), set when the unit is attached, not a key of the [imon] section.
  probe::Interconnect interconnect = probe::Interconnect::kCrossbar;

  void visit(config::Visitor& v) {
    v.param("monitors", monitors, "Interconnect monitors in the node's unit (two counters each)",
            config::Range{1, 16});
    v.param("counter_bits", counter_bits, "Width of a histogramming counter in bits (it wraps)",
            config::Range{1, 64});
    v.param("fifo_entries", fifo_entries, "Entries of a monitor's transaction sequence FIFO",
            config::Range{1, 255});
  }
};

}  // namespace hpm::imon
