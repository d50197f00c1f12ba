#include "node/host_mux.h"

#include <algorithm>
#include <utility>

namespace hpm {

Multiplexer::Multiplexer(Simulation& sim, std::vector<std::vector<const NativeEvent*>> sets,
                         Cycle slice)
    : sim_(sim),
      monitor_(*sim.monitor()),
      sets_(std::move(sets)),
      slice_(slice),
      settle_(monitor_.hostSettleCycles()) {
  monitor_.countFromEvents();
  monitor_.programHost(sets_[0]);
  layout_ = monitor_.hostLayout();
  start_values_ = monitor_.sampleHost(0);
  counting_ = true;
  started_ = 0;
  sim_.setTimedHook(slice_, [this](Cycle now) { return onTime(now); });
}

void Multiplexer::accumulate(const std::vector<u64>& values) {
  for (std::size_t i = 0; i < layout_.size(); ++i) {
    const ProgrammedCounter& c = layout_[i];
    ProgrammedCounter& sum = sums_[{c.event, c.device, c.port}];
    if (sum.event.empty()) sum = c;
    sum.value += values[i] - start_values_[i];
  }
}

Cycle Multiplexer::onTime(Cycle now) {
  if (counting_) {
    // The slice ends: stop, and come back once the readings have settled.
    sim_.idleWaitingHardwareThreads(now);
    monitor_.stopHost(now);
    slices_.push_back({current_, started_, now});
    counting_ = false;
    return now + settle_;
  }
  accumulate(monitor_.sampleHost(now));
  // (Waiting threads again: their next level interval then starts at the restart, not in the
  // settling time before it, where it would be moved.)
  sim_.idleWaitingHardwareThreads(now);
  current_ = (current_ + 1) % sets_.size();
  monitor_.reprogramHost(sets_[current_], now);
  layout_ = monitor_.hostLayout();
  start_values_ = monitor_.sampleHost(now);
  counting_ = true;
  started_ = now;
  ++switches_;
  // Slices end on multiples of the slice, as a timer's ticks.
  return (now / slice_ + 1) * slice_;
}

void Multiplexer::finish(Cycle end) {
  // readHost reads once the units have settled, the counting set's last events included.
  std::vector<u64> values;
  for (const ProgrammedCounter& c : monitor_.readHost(end)) values.push_back(c.value);
  accumulate(values);
  if (counting_) slices_.push_back({current_, started_, end});
  counting_ = false;
}

std::vector<ProgrammedCounter> Multiplexer::counters() const {
  std::vector<ProgrammedCounter> out;
  for (const auto& set : sets_) {
    for (const NativeEvent* e : set) {
      for (const auto& [key, c] : sums_) {
        if (std::get<0>(key) == e->name) out.push_back(c);
      }
    }
  }
  return out;
}

Cycle Multiplexer::running(const std::string& name) const {
  for (std::size_t s = 0; s < sets_.size(); ++s) {
    for (const NativeEvent* e : sets_[s]) {
      if (e->name != name) continue;
      Cycle cycles = 0;
      for (const Slice& slice : slices_) cycles += slice.set == s ? slice.to - slice.from : 0;
      return cycles;
    }
  }
  return 0;
}

u64 Multiplexer::turns(const std::string& name) const {
  for (std::size_t s = 0; s < sets_.size(); ++s) {
    for (const NativeEvent* e : sets_[s]) {
      if (e->name != name) continue;
      return static_cast<u64>(std::count_if(slices_.begin(), slices_.end(),
                                            [s](const Slice& slice) { return slice.set == s; }));
    }
  }
  return 0;
}

}  // namespace hpm
