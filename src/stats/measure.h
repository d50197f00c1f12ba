// What a statistic's number is: its kind (how it behaves) and its unit (what it counts), given
// where the model declares the statistic (stats.h) and written with it into the statistics JSON
// ("units", docs/commands/hpmsim-run.md), so that the report and scripts read typed values, not
// bare numbers.
//
// A statistic that other code reads (the report's, sweep's) is declared once as a Stat constant
// beside the model that writes it (core/timing_stats.h, mem/mem_stats.h, node/node_stats.h,
// tools/hpmsim/lib/run_stats.h): the model's visit() writes it and the reader looks it up through
// the same constant, so renaming it is a compile error, not a silently empty chart.
#pragma once

#include <string_view>

#include "base/types.h"

namespace hpm::stats {

// How a statistic's value behaves, which says what may be done with it.
enum class Kind : u8 {
  kTotal,  // grows over the run: what happened since it began (summing elements is meaningful)
  kLevel,  // a value at one moment or an extreme: a clock reading, a size, the most at once
  kLabel,  // a number that names something, not a quantity: a thread id, a node, an exit status
  kText,   // a text
};

// What a statistic's number counts.
enum class Unit : u8 {
  kNone,          // labels and texts
  kCount,         // things: events (accesses, packets, calls), or items (nodes, counters)
  kCycles,        // simulated clock cycles (summed over threads or requests where they overlap)
  kInstructions,  // instructions
  kBytes,
  kKib,      // 1,024 bytes
  kSeconds,  // host seconds
  kMips,     // millions of instructions per host second
};

// The names the statistics JSON writes ("units": {path: {"kind": ..., "unit": ...}}).
constexpr std::string_view kindName(Kind k) {
  switch (k) {
    case Kind::kTotal: return "total";
    case Kind::kLevel: return "level";
    case Kind::kLabel: return "label";
    case Kind::kText: return "text";
  }
  return "?";
}
constexpr std::string_view unitName(Unit u) {
  switch (u) {
    case Unit::kNone: return "";
    case Unit::kCount: return "count";
    case Unit::kCycles: return "cycles";
    case Unit::kInstructions: return "instructions";
    case Unit::kBytes: return "bytes";
    case Unit::kKib: return "KiB";
    case Unit::kSeconds: return "seconds";
    case Unit::kMips: return "MIPS";
  }
  return "?";
}

struct Measure {
  Kind kind;
  Unit unit;
  friend constexpr bool operator==(Measure, Measure) = default;
};
constexpr Measure total(Unit u) {
  return Measure{.kind = Kind::kTotal, .unit = u};
}
constexpr Measure level(Unit u) {
  return Measure{.kind = Kind::kLevel, .unit = u};
}
inline constexpr Measure kLabel{.kind = Kind::kLabel, .unit = Unit::kNone};
inline constexpr Measure kText{.kind = Kind::kText, .unit = Unit::kNone};

// The unit of a total declared without one (Visitor::counter(name, value, doc)): cycles,
// instructions or bytes when one of the words of its name (split at '_') is that word, a count
// otherwise. The rule is exact for every statistic the models declare so (each was read against
// its doc); those it would get wrong (a count of cycles without the word, a level, a label)
// declare their measure.
constexpr Unit unitByName(std::string_view name) {
  while (true) {
    const std::size_t end = name.find('_');
    const std::string_view word = name.substr(0, end);
    if (word == "cycles") return Unit::kCycles;
    if (word == "instructions") return Unit::kInstructions;
    if (word == "bytes") return Unit::kBytes;
    if (end == std::string_view::npos) return Unit::kCount;
    name.remove_prefix(end + 1);
  }
}

// A statistic declared once: its name in the JSON, its measure and its documentation.
struct Stat {
  std::string_view name;
  Measure measure;
  std::string_view doc;
};

}  // namespace hpm::stats
