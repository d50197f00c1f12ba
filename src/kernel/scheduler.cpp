#include "kernel/scheduler.h"

namespace hpm {

Scheduler::Scheduler(u32 hardware_threads, u32 threads_per_core) {
  slots_.resize(hardware_threads);
  for (u32 i = 0; i < slots_.size(); ++i) slots_[i].core = i / threads_per_core;
  ready_.reset(hardware_threads);
}

u32 Scheduler::pickHardwareThread(std::span<const std::unique_ptr<Thread>> threads,
                                  const std::vector<u8>& affinity) const {
  // The allowed hardware thread with the fewest live guest threads, lowest index first: threads
  // fill a core's hardware threads before the next core, as CNK places them.
  std::vector<u32> load(slots_.size(), 0);
  for (const auto& t : threads) {
    if (!t->exited) ++load[t->slot];
  }
  u32 best = 0;
  bool found = false;
  for (u32 i = 0; i < load.size(); ++i) {
    if (allows(affinity, i) && (!found || load[i] < load[best])) {
      best = i;
      found = true;
    }
  }
  return best;
}

}  // namespace hpm
