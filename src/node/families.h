// The unit families a node can have: the value of `monitor.unit` and how each attaches. Adding
// a family is its folder under src/pmu (units behind pmu::CounterUnit, and an attach function
// building its units and catalogue) and one line in unitFamilies() (docs/architecture.md,
// "Adding a unit family").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "pmu/catalogue.h"

namespace hpm {

struct MachineConfig;

struct UnitFamily {
  using Attach = pmu::Attachment (*)(const MachineConfig& machine, const pmu::NodeShape& node);
  using Beside = bool (*)(const MachineConfig& machine);
  UnitFamily(std::string_view name_, std::string_view title_, std::string_view description_,
             Attach attach_, u32 stat_default_cores_ = 0, std::string_view node_wide_hint_ = {})
      : name(name_),
        title(title_),
        description(description_),
        attach(attach_),
        stat_default_cores(stat_default_cores_),
        node_wide_hint(node_wide_hint_) {}
  // A companion family: attached beside the machine's family (monitor.unit) when `beside_` says
  // the machine has it, never instead of it.
  static UnitFamily companion(std::string_view name_, std::string_view title_,
                              std::string_view description_, Attach attach_, Beside beside_) {
    UnitFamily f(name_, title_, description_, attach_);
    f.beside = beside_;
    return f;
  }

  std::string_view name;         // monitor.unit's value: "upcq"
  std::string_view title;        // "UPC-Q"
  std::string_view description;  // "the Blue Gene/Q units"
  Attach attach;                 // its units and catalogue on a node
  // hpmsim stat: where one run cannot count an event of every core, the cores counted when none
  // are named (0: every core), and what to say when a node-wide request does not fit.
  u32 stat_default_cores = 0;
  std::string_view node_wide_hint;
  Beside beside = nullptr;  // non-null: a companion family
};

// monitor.unit's value for a node without counter units.
inline constexpr std::string_view kNoUnitFamily = "none";

// The families built into hpmsim.
const std::vector<UnitFamily>& unitFamilies();
// monitor.unit's values: "none", then every built-in family's name but the companions'.
std::vector<std::string> unitFamilyChoices();
// Whether `machine` has any counter unit among `families`: its monitor.unit or a companion.
bool monitoringWanted(const MachineConfig& machine, const std::vector<UnitFamily>& families);

}  // namespace hpm
