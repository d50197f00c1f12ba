// The interconnect monitor's events: filter presets that host programming (hpmsim stat) and the
// catalogue offer by name. Each is a filter over transaction types and snoop results; its ground
// truth is TransactionCounts::count(types, snoops). Guest software programs any filter itself.
#pragma once

#include <span>
#include <string>

#include "base/types.h"
#include "stats/transaction.h"

namespace hpm::imon {

struct Preset {
  std::string name;
  std::string description;
  u32 types = 0;           // bit t: transaction type t, of any namespace (0: never counts here)
  u32 snoops = 0;          // bit s: snoop result s
  std::string never = {};  // why it never counts on this node ("": it can)
};

// The presets of a monitor on interconnect `ic`.
std::span<const Preset> presets(probe::Interconnect ic);

}  // namespace hpm::imon
