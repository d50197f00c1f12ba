#include "node/run_modes.h"

#include "core/node_timing.h"
#include "mem/memory_system.h"

namespace hpm {

RunModes runModesOf(probe::Event e) {
  // The functional mode counts what its statistics keep and the kernel's events.
  const RunModes functional =
      Simulation::countsInFunctionalMode(e) ? runModeBit(RunMode::kFunctional) : RunModes{0};
  // The timing model's pipeline, and the time the memory system's timed accesses take, run in
  // the timing modes only; every other publisher (the kernel, the driver's mix, the memory
  // system's accesses, the network) in every mode that has a memory system.
  if (timing::NodeTiming::publishes(e) && !timing::NodeTiming::publishesInWarmup(e) &&
      !probe::driverMixEvent(e)) {
    return kPipelineModes | functional;
  }
  if (mem::MemorySystem::timedOnly(e)) return kPipelineModes | functional;
  return kMemoryModes | functional;
}

RunModes runModesOf(const pmu::NativeEvent& e, const probe::Bus& bus) {
  if (!e.never.empty()) return 0;
  if (e.transaction_types != 0) return kMemoryModes;
  RunModes modes = kModesWithUnits;
  bool fed = false;
  for (const pmu::NativeEvent::Instance& i : e.instances) {
    for (u32 input : i.feeds) {
      fed = true;
      const auto [event, source] = bus.eventOf(input);
      (void)source;
      // (An operation's input: instructions of one operation, which every mode counts.)
      if (event != probe::Event::kCount) modes &= runModesOf(event);
    }
  }
  return fed ? modes : RunModes{0};
}

std::string runModesText(RunModes modes) {
  std::string text;
  for (RunMode m : {RunMode::kFunctional, RunMode::kWarmup, RunMode::kTiming, RunMode::kProfile}) {
    if ((modes & runModeBit(m)) == 0) continue;
    if (!text.empty()) text += ' ';
    text += runModeName(m);
  }
  return text;
}

}  // namespace hpm
