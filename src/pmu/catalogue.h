// The native event catalogue: every event software can ask a node's units for, with where its
// counts come from. Each family builds its part (pmu/<family>/catalogue.cpp) from the probe
// bus's events (stats/probe.h) and the ISA's operations; `hpmsim events` and docs/events.md are
// generated from it.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "pmu/counter_unit.h"
#include "stats/probe.h"

namespace hpm::pmu {

// One event software can ask a unit for.
struct NativeEvent {
  std::string name;         // "PU0_L1D_MISSES", "PEVT_INST_ALL", ...
  std::string description;  // what it counts, where
  probe::Kind kind = probe::Kind::kPulse;
  // What one count covers: a hardware thread, a core (also a sum over a core's threads), an L2
  // slice, a memory controller, the node or its kernel.
  probe::Scope scope = probe::Scope::kNode;
  const UnitKind* unit = nullptr;
  u32 input = 0;  // the unit's event input (UPC-P: counter + select x N)
  // UPC-P: the counter that can count it and the select naming it; -1 where any counter of the
  // unit can.
  i32 counter = -1;
  i32 select = -1;
  // The core whose events it counts, when a node-wide unit counts per-core events (UPC-P's
  // PU<k>_...); -1 otherwise.
  i32 core = -1;
  // The hardware thread of its core whose events it counts, for a per-thread variant of an event
  // the core also sums; -1 otherwise.
  i32 thread = -1;
  // The generic event it is an instance of ("L1dMisses", or "op:addi"); summing every native
  // event of one generic name gives the node-wide count.
  std::string generic;
  // Where it is counted, per instance of its unit kind (a PUnit per core, else one): the unit
  // (index into the node's units) and input port, and the bus inputs feeding it.
  struct Instance {
    u32 unit = 0;
    u32 port = 0;
    std::vector<u32> feeds;
  };
  std::vector<Instance> instances;
};

// A family's part of a node: its units and its events (instances index into `units`).
struct Attachment {
  std::vector<std::unique_ptr<CounterUnit>> units;
  std::vector<NativeEvent> events;
};

// What a family is told of the node it attaches to.
struct NodeShape {
  u32 cores = 1;
  u32 threads_per_core = 1;
  const probe::Bus* bus = nullptr;  // its inputs (topology, numbering)
};

// ---- helpers the families' catalogues share ----

// The operations with an instruction-count event (every one but the illegal encoding).
std::vector<u32> countedOps();
// "op:fadd.d", the generic name of an operation's instruction count.
std::string opGeneric(u32 op);
// "fadd.d" -> "FADD_D".
std::string upperName(std::string_view s);
// The scope of an event fed as given: its bus event's, or a core's for a sum over a core's
// threads (operation counts are per hardware thread).
probe::Scope scopeOf(const std::string& generic, const std::vector<NativeEvent::Instance>& where);
// Events whose count in one cycle is not bounded by a small number (bytes moved, cycles waited,
// threads woken at once): a unit sized for one or two events per cycle per counter could lose
// carries on them, so catalogues wire them only to counters wide enough; their ground truth
// stays in the statistics.
bool unboundedRate(probe::Event e);

}  // namespace hpm::pmu
