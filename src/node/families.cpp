#include "node/families.h"

#include <algorithm>

#include "node/machine.h"
#include "pmu/imon/component.h"
#include "pmu/upc/component.h"
#include "pmu/upcq/component.h"

namespace hpm {

const std::vector<UnitFamily>& unitFamilies() {
  static const std::vector<UnitFamily> kFamilies = {
      {"upc", "UPC-P", "the Blue Gene/P hybrid counter unit",
       [](const MachineConfig& m, const pmu::NodeShape& n) { return upc::attach(m.upc, n); }, 2,
       "On UPC-P one counter serves the same event of cores 0 and 2 (and of 1 and 3), so "
       "node-wide counts need two runs. An assignment that works: --cores 0,1 (then --cores "
       "2,3)"},
      {"upcq", "UPC-Q", "the Blue Gene/Q units",
       [](const MachineConfig& m, const pmu::NodeShape& n) { return upcq::attach(m.upcq, n); }},
      UnitFamily::companion(
          "imon", "interconnect monitor",
          "transaction filters, histogramming counters and sequence FIFOs on the interconnect",
          [](const MachineConfig& m, const pmu::NodeShape& n) {
            imon::Params p = m.imon;
            p.interconnect = m.node.interconnect;  // the namespace its filters cover
            return imon::attach(p, n);
          },
          [](const MachineConfig& m) { return m.monitor.interconnect; }),
  };
  return kFamilies;
}

bool monitoringWanted(const MachineConfig& machine, const std::vector<UnitFamily>& families) {
  if (!machine.monitor.none()) return true;
  return std::any_of(families.begin(), families.end(),
                     [&](const UnitFamily& f) { return f.beside != nullptr && f.beside(machine); });
}

std::vector<std::string> unitFamilyChoices() {
  std::vector<std::string> out = {std::string(kNoUnitFamily)};
  for (const UnitFamily& f : unitFamilies()) {
    if (f.beside == nullptr) out.emplace_back(f.name);
  }
  return out;
}

}  // namespace hpm
