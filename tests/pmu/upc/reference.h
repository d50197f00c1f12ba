// An ideal 64-bit counter with UPC-P's mode semantics, stepped one cycle at a time: the oracle the
// hybrid unit is held against.
#pragma once

#include <vector>

#include "pmu/upc/unit.h"

namespace hpm::upc::testing {

struct IdealCounter {
  SignalMode mode = SignalMode::kLevelHigh;
  bool prev_high = false;
  u64 value = 0;
  // Cycle t: the selected signal carries n occurrences (n > 0 means high); `running` is the
  // start/stop state in force in cycle t. Returns the increment.
  u64 step(u64 n, bool running) {
    const bool high = n > 0;
    u64 inc = 0;
    switch (mode) {
      case SignalMode::kLevelHigh: inc = n; break;
      case SignalMode::kLevelLow: inc = high ? 0 : 1; break;
      case SignalMode::kRisingEdge: inc = high && !prev_high ? 1 : 0; break;
      case SignalMode::kFallingEdge: inc = !high && prev_high ? 1 : 0; break;
    }
    prev_high = high;
    if (!running) return 0;
    value += inc;
    return inc;
  }
};

// Small helpers for register programming.
inline u64 configByte(u32 select, SignalMode mode, bool interrupt) {
  return u64{select} | u64{static_cast<u8>(mode)} << 2 | u64{interrupt} << 4;
}

// Writes counter c's configuration byte, keeping the other seven counters of its group.
inline void configure(Unit& unit, u32 c, u32 select, SignalMode mode, bool interrupt, Cycle now) {
  const u64 offset = unit.map().config(c / 8);
  u64 value = unit.read(offset, now);
  const u32 shift = 8 * (c % 8);
  value = (value & ~(u64{0xFF} << shift)) | configByte(select, mode, interrupt) << shift;
  unit.write(offset, value, now);
}

}  // namespace hpm::upc::testing
