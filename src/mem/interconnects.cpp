// The interconnects a machine can have (node.interconnect): one line each
// (docs/architecture.md "Adding an interconnect").
#include "mem/crossbar.h"
#include "mem/fireplane.h"

namespace hpm::mem {

std::unique_ptr<Interconnect> makeInterconnect(const MemParams& params, PrivateCaches& caches) {
  switch (params.interconnect) {
    case probe::Interconnect::kCrossbar: return std::make_unique<Crossbar>(params, caches);
    case probe::Interconnect::kFireplane: return std::make_unique<Fireplane>(params, caches);
  }
  return nullptr;
}

}  // namespace hpm::mem
