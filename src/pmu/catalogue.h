// The native event catalogue: every event software can ask a node's units for, with where its
// counts come from. Each family builds its part (pmu/<family>/catalogue.cpp) from the probe
// bus's events (stats/probe.h) and the ISA's operations; `hpmsim events` and docs/events.md are
// generated from it.
#pragma once

#include <array>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "isa/ops.h"
#include "pmu/counter_unit.h"
#include "stats/probe.h"

namespace hpm::pmu {

// One event software can ask a unit for.
struct NativeEvent {
  std::string name;         // "PU0_DCACHE_MISS", "PEVT_INST_ALL@t0", ...
  std::string description;  // what it counts, where
  // Why it never counts on this node (the model has no signal for it, or the input is
  // reserved); empty when it counts. The description says the same in its own words.
  std::string never;
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
  // The hardware thread of its core whose events it counts (a per-thread variant); -1 otherwise.
  i32 thread = -1;
  // Blue Gene/Q's BGPM event number, for BGPM's events; -1 otherwise.
  i32 id = -1;
  // The unit's mode the event is counted in (the L2 unit: 0 combined, 1 sliced).
  u32 unit_mode = 0;
  // The run modes it counts in: bit m for mode m (node/simulation.h RunMode), derived from what
  // publishes its bus events (node/run_modes.h); 0 for an event that never counts.
  u8 run_modes = 0;
  // A filtering unit's event (the interconnect monitor's): the transactions it counts, by type
  // (bit t) and snoop result (bit s); its ground truth is TransactionCounts::count(types,
  // snoops). Both 0 for the events of the probe bus.
  u32 transaction_types = 0;
  u32 transaction_snoops = 0;
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
  // Whether its cores translate addresses (timing's translation.enabled): without, address
  // translation's events never happen, and a family fills no spare input with them.
  bool translation = false;
};

// ---- helpers the families' catalogues share ----

// A short list of probe events (a catalogue event's sources, summed), in a constant table.
struct ProbeEvents {
  std::array<probe::Event, 12> events{};
  u8 count = 0;
  constexpr ProbeEvents(std::initializer_list<probe::Event> list) {
    for (probe::Event e : list) events[count++] = e;
  }
  std::span<const probe::Event> list() const { return {events.data(), count}; }
};

// The operations of an instruction group (isa/ops.h's table says each one's), in the table's
// order; none for OpGroup::kNone.
std::vector<u32> opsOfGroup(isa::OpGroup group);

// The operations with an instruction-count event (every one but the illegal encoding).
std::vector<u32> countedOps();
// "op:fadd.d", the generic name of an operation's instruction count.
std::string opGeneric(u32 op);
// "fadd.d" -> "FADD_D".
std::string upperName(std::string_view s);
// The scope of an event fed as given: its bus event's, or a core's for a sum over a core's
// threads (operation counts are per hardware thread).
probe::Scope scopeOf(const std::string& generic, const std::vector<NativeEvent::Instance>& where);

}  // namespace hpm::pmu
