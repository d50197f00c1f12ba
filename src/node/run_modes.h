// In which run modes an event counts, derived from what publishes it: every mode with units runs
// the kernel, the driver's instruction mix and the memory system's accesses, while the timing
// model's pipeline (timing::NodeTiming::publishes, less what its warm-up path publishes: a
// thread's cycles and instructions by class) and the time the memory system's accesses take
// (mem::MemorySystem::timedOnly) are modelled in the timing and profile modes only. The
// functional mode has no counter unit at all
// (Simulation::monitor), so nothing counts there. `hpmsim events` shows each native event's
// modes (NativeEvent::run_modes), and the guest libraries refuse, in a mode, an event that does
// not count there (docs/papi.md "Run modes").
#pragma once

#include <string>

#include "base/types.h"
#include "node/simulation.h"
#include "pmu/catalogue.h"
#include "stats/probe.h"

namespace hpm {

// A set of run modes: bit RunMode.
using RunModes = u8;
constexpr RunModes runModeBit(RunMode m) {
  return static_cast<RunModes>(1u << static_cast<u32>(m));
}
inline constexpr RunModes kModesWithUnits =
    runModeBit(RunMode::kWarmup) | runModeBit(RunMode::kTiming) | runModeBit(RunMode::kProfile);
inline constexpr RunModes kPipelineModes =
    runModeBit(RunMode::kTiming) | runModeBit(RunMode::kProfile);

// The modes in which probe event `e` is published (and so counts), and those of the operation
// counts (the driver's: every mode with units).
RunModes runModesOf(probe::Event e);
// A native event's: the modes every bus event feeding it is published in (none for an event that
// never counts, NativeEvent::never); an interconnect monitor's filter (the memory system's
// transactions): every mode with units.
RunModes runModesOf(const pmu::NativeEvent& e, const probe::Bus& bus);
// "warmup timing profile" (the modes' names in order, space-separated), "" for none.
std::string runModesText(RunModes modes);

}  // namespace hpm
