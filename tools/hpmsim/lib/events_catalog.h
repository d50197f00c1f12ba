// What `hpmsim events` lists, apart from how it is printed (events_print.h): a machine's native
// events selected as the command's options ask, their summary, and the names stat takes besides
// them, as plain values, which the tests make up without a machine.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "node/monitor.h"
#include "node/run_modes.h"
#include "stats/probe.h"

namespace hpm::tools {

// One native event as the listings show it (pmu/catalogue.h NativeEvent says what each means);
// -1 stands for "not applicable" as there.
struct EventRow {
  std::string name;  // "PEVT_INST_ALL@t0"
  std::string unit;  // its unit kind's name: "punit"
  u32 input = 0;
  i32 counter = -1, select = -1, id = -1, core = -1, thread = -1;
  u32 unit_mode = 0;
  RunModes run_modes = 0;
  probe::Kind kind = probe::Kind::kPulse;
  probe::Scope scope = probe::Scope::kNode;
  std::string generic;
  std::size_t instances = 0;
  bool wired = false;  // a bus input feeds one of its instances (unwired: listed, never counts)
  std::string description;
  std::string never;  // why it never counts; empty when it counts
};

// One event of the ground truth's unit (/dev/hpm/sim, node/truth_unit.h).
struct SimEvent {
  std::string name, scope, description;
};

// A machine's events as `hpmsim events` selected them.
struct EventsCatalog {
  std::string machine;
  // Whether the machine has any unit: false for a node whose monitor is off altogether, of
  // which the printers say so (and the JSON printers give the same objects, empty, so that a
  // script need not tell the cases apart).
  bool has_units = true;
  // The machine's counter unit family (kNoUnitFamily, "no counter unit" and "companion units
  // only" for a machine that has only companions, such as sunfire's interconnect monitor).
  std::string family, family_title, family_description;
  std::vector<std::string> devices;  // the units' device paths
  // Every input of the unit has its own counter (UPC-P): the listings show counter and select.
  // A property of the whole catalogue, not of the selection.
  bool fixed = false;
  std::vector<EventRow> events;      // the selected events, in catalogue order
  std::vector<SimEvent> sim_events;  // the ground truth's, in register order
};

// The reserved inputs' reason (NativeEvent::never): they are counted apart from those that never
// count for want of a signal.
inline constexpr std::string_view kReservedInput = "reserved";

// `monitor`'s events on machine `machine`, those of unit kind `unit` only when it is not empty.
// A `unit` no event has is a usage error (hpm::Error, ExitCode::kUsage) naming the machine's
// unit kinds.
EventsCatalog eventsCatalog(const std::string& machine, const Monitor& monitor,
                            const std::string& unit);
// The catalogue of a machine without any unit (Simulation::monitor() is null).
EventsCatalog noUnitsCatalog(const std::string& machine);

// How many of the events count, per unit kind, and why the others never do: the catalogue's own
// reasons (NativeEvent::never), most frequent first, ties in catalogue order. Per-thread variants
// ("PEVT_...@t1", thread > 0) are not events of their own and are left out, as in the tables.
struct EventsSummary {
  struct Unit {
    std::string name;
    u32 events = 0, counting = 0, never = 0, reserved = 0;
  };
  struct Reason {
    std::string text;
    u32 events = 0;
  };
  std::vector<Unit> units;  // in the order of their first event
  std::vector<Reason> reasons;
  u32 events = 0, counting = 0, never = 0, reserved = 0;
};
EventsSummary summarizeEvents(const std::vector<EventRow>& events);

// `hpmsim events --generic`: a name stat takes besides the native ones, and what it counts.
struct GenericName {
  std::string name;
  std::string kind;                  // "perf" (perf's names) or "generic" (the catalogue's)
  std::string definition;            // "PEVT_A + PEVT_B - PEVT_C", or what counts it instead
  std::vector<std::string> natives;  // the native events its count adds up, each once
};
struct GenericNames {
  std::string machine;
  std::vector<GenericName> names;  // perf's, then the catalogue's generic events
};
GenericNames genericNames(const std::string& machine, const Monitor& monitor);

}  // namespace hpm::tools
