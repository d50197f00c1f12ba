// In which run modes an event counts, derived from what publishes it: every mode runs the
// kernel; the modes with a memory system (warm-up, timing, profile) the driver's instruction mix
// and the memory system's accesses, while the timing model's pipeline
// (timing::NodeTiming::publishes, less what its warm-up path publishes: a thread's cycles and
// instructions by class) and the time the memory system's accesses take
// (mem::MemorySystem::timedOnly) are modelled in the timing and profile modes only. The
// functional mode counts what its own statistics keep (Simulation::countsInFunctionalMode:
// instructions, by class and by operation, the instruction mix the operation decides, its
// cycles) and the kernel's events; no memory system, cache or pipeline event. `hpmsim events`
// shows each native event's modes (NativeEvent::run_modes), and the guest libraries refuse, in
// a mode, an event that does not count there (docs/papi.md "Run modes").
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
inline constexpr RunModes kMemoryModes =
    runModeBit(RunMode::kWarmup) | runModeBit(RunMode::kTiming) | runModeBit(RunMode::kProfile);
inline constexpr RunModes kModesWithUnits = kMemoryModes | runModeBit(RunMode::kFunctional);
inline constexpr RunModes kPipelineModes =
    runModeBit(RunMode::kTiming) | runModeBit(RunMode::kProfile);

// The modes in which probe event `e` is published (and so counts).
RunModes runModesOf(probe::Event e);
// A native event's: the modes every bus event feeding it is published in (none for an event that
// never counts, NativeEvent::never; an operation's input, instructions of one operation: every
// mode); an interconnect monitor's filter (the memory system's transactions): the modes with a
// memory system.
RunModes runModesOf(const pmu::NativeEvent& e, const probe::Bus& bus);
// "warmup timing profile" (the modes' names in order, space-separated), "" for none.
std::string runModesText(RunModes modes);

}  // namespace hpm
