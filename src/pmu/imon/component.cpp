#include "pmu/imon/component.h"

#include <memory>

#include "pmu/imon/events.h"
#include "pmu/imon/unit.h"

namespace hpm::imon {

pmu::Attachment attach(const Params& params, const pmu::NodeShape& node) {
  (void)node;
  pmu::Attachment a;
  a.units.push_back(std::make_unique<Unit>(params));
  const auto table = presets(params.interconnect);
  for (u32 i = 0; i < table.size(); ++i) {
    pmu::NativeEvent e;
    e.name = table[i].name;
    e.never = table[i].never;
    e.description = e.never.empty()
                        ? table[i].description
                        : table[i].description + " (never counts here: " + e.never + ")";
    e.kind = probe::Kind::kPulse;
    e.scope = probe::Scope::kNode;
    e.unit = &kUnitKind;
    e.input = i;
    e.transaction_types = table[i].types;
    e.transaction_snoops = table[i].snoops;
    e.generic = table[i].name;
    e.instances.push_back(pmu::NativeEvent::Instance{0, 0, {}});
    a.events.push_back(std::move(e));
  }
  return a;
}

}  // namespace hpm::imon
