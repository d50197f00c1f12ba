#include "node/truth_unit.h"

#include <algorithm>

#include "base/error.h"

namespace hpm {

TruthUnit::TruthUnit(const probe::Bus& bus)
    : bus_(bus),
      stride_(std::max({bus.topology().threads, bus.topology().cores, bus.topology().slices,
                        bus.topology().controllers})) {}

// Registers 0 and 1: S and the number of events; 2 + e: how event e is kept; then the values.
u64 TruthUnit::valuesBase() {
  return 2 + probe::kEventCount;
}

u64 TruthUnit::windowBytes() const {
  const u64 registers = valuesBase() + u64{probe::kEventCount} * stride_;
  return (registers * 8 + 4095) / 4096 * 4096;
}

u64 TruthUnit::read(u64 offset, Cycle now) {
  now_ = std::max(now_, now);
  if (offset % 8 != 0) return 0;
  const u64 index = offset / 8;
  if (index == 0) return stride_;
  if (index == 1) return probe::kEventCount;
  if (index < valuesBase()) {  // the directory: how each event is kept
    const u64 e = index - 2;
    const auto event = static_cast<probe::Event>(e);
    if (bus_.topology().instances(probe::kEventInfo[e].scope) == 0) return 0;
    const u32 input = bus_.input(event, 0);
    switch (bus_.tallyKind(input)) {
      case probe::Bus::TallyKind::kTerms: return bus_.tallyTruth(input) ? 1 : 0;
      case probe::Bus::TallyKind::kLevel: return bus_.levelSource() != nullptr ? 2 : 0;
      default: return 0;
    }
  }
  const u64 e = (index - valuesBase()) / stride_;
  const u32 source = static_cast<u32>((index - valuesBase()) % stride_);
  if (e >= probe::kEventCount) return 0;
  const auto event = static_cast<probe::Event>(e);
  if (source >= bus_.topology().instances(probe::kEventInfo[e].scope)) return 0;
  const u32 input = bus_.input(event, source);
  switch (bus_.tallyKind(input)) {
    case probe::Bus::TallyKind::kTerms: return bus_.tallyTruth(input) ? bus_.tallyValue(input) : 0;
    case probe::Bus::TallyKind::kLevel: {
      const probe::LevelSource* levels = bus_.levelSource();
      if (levels == nullptr) return 0;
      // Exact for any cycle from the thread's last lump on: the reader's own (its lump ends at
      // this access); a thread behind the reader is taken at its own progress.
      return levels->levelBefore(event, source, std::max(now, levels->lastLumpStart(source)));
    }
    default: return 0;
  }
}

u32 TruthUnit::hostAdd(u32, u32, u32, std::string_view name) {
  fail(ExitCode::kUsage, "{}: the simulator's statistics are read, not counted", name);
}

}  // namespace hpm
