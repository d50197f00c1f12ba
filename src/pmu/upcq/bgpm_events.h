// Blue Gene/Q's BGPM events (seed 001; the numbers, names and short labels of IBM's BGPM event
// list) and how hpmsim's node produces each: the probe events (or operations) whose counts it
// sums, or nothing, with why. catalogue.cpp builds the UPC-Q units' catalogue from this table
// (and adds hpmsim's own events after BGPM's); docs/events.md lists the result.
#pragma once

#include <span>
#include <string_view>

#include "base/types.h"
#include "isa/ops.h"
#include "pmu/catalogue.h"
#include "stats/probe.h"

namespace hpm::upcq {

enum class BgpmUnit : u8 { kPUnit, kL2, kIO, kCNK, kNW };
// BGPM's scope of an event: one hardware thread's, a core's (its "core" and "core-shared"
// events), or a node-wide unit's.
enum class BgpmScope : u8 { kThread, kCore, kNode };

struct BgpmEvent {
  u16 id;                 // BGPM's event number
  std::string_view name;  // "PEVT_INST_ALL"
  BgpmUnit unit;
  BgpmScope scope;
  std::string_view label;    // BGPM's short description
  pmu::ProbeEvents sources;  // summed; none (with `ops` kNone): the event never counts here
  isa::OpGroup ops;          // or: the group of operations it counts (isa/ops.h)
  std::string_view note;     // what it counts on hpmsim's node, or why it never counts
};

// Every BGPM event of the PUnit, L2, I/O, network and CNK units, by number.
std::span<const BgpmEvent> bgpmEvents();

// BGPM's first event number of each unit: a unit's event input is the number minus it (the
// L2 unit's sliced events, 294 on, count the same inputs as the combined ones in sliced mode).
inline constexpr u16 kBgpmFirstL2 = 278, kBgpmFirstSlicedL2 = 294, kBgpmFirstIO = 310,
                     kBgpmFirstNW = 354, kBgpmFirstCNK = 385;
// How many event inputs BGPM's events take on each node-wide unit (hpmsim's own follow).
inline constexpr u32 kBgpmL2Inputs = 16, kBgpmIOInputs = 44, kBgpmNWInputs = 31,
                     kBgpmCNKInputs = 30;

}  // namespace hpm::upcq
