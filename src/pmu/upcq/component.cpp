#include "pmu/upcq/component.h"

#include <algorithm>

#include "base/error.h"

namespace hpm::upcq {

Component::Component(const pmu::UnitKind& kind, std::unique_ptr<Unit> unit, u32 counters,
                     bool exploration)
    : kind_(kind),
      unit_(std::move(unit)),
      ports_(unit_->shape_.ports),
      limit_(counters),
      exploration_(exploration) {
  readConfigs();
  // The reset run state (the CNKUnit counts from reset), read before any input.
  running_ = (unit_->read(unit_->map().run, 0) & kRunBit) != 0;
}

void Component::readConfigs() {
  const u32 n = unit_->counterCount();
  configs_.resize(n);
  for (u32 i = 0; i < n; ++i) configs_[i] = unit_->read(unit_->map().config(i), unit_->now());
}

bool Component::write(u64 offset, u64 value, Cycle now) {
  unit_->write(offset, value, now);
  const RegisterMap& map = unit_->map();
  if (offset == map.run) running_ = (value & 1) != 0;
  if ((offset >= map.config(0) && offset < map.config(0) + map.stride) || offset == map.mode) {
    readConfigs();
    return true;
  }
  return false;
}

bool Component::plainCounting(u32 port, u32 event) const {
  // Every local counter of the port that selects the event counts level high without overflow
  // (a fast overflow needs the exact cycle), in a unit that cannot wrap.
  if (exploration_) return false;
  bool level_high = true;
  forEachLocal(port, event, [&](u32, u64 config) {
    level_high = level_high && ((config >> config_bits::kModeShift) & 3) == 0 &&
                 (config & config_bits::kOverflowEnable) == 0;
  });
  return level_high;
}

Cycle Component::windowEnd(u32 port, u32 event, Cycle at) const {
  Cycle end = Unit::kNone;  // the CNKUnit: no visits
  forEachLocal(port, event, [&](u32 i, u64) { end = std::min(end, unit_->nextVisit(i, at + 1)); });
  return end;
}

std::vector<pmu::CounterUnit::Windows> Component::windows(u32 port, u32 event) const {
  std::vector<Windows> out;
  if (unit_->nextVisit(0, 0) == Unit::kNone) return out;  // no sweep
  forEachLocal(port, event, [&](u32 i, u64) {
    const Cycle first = unit_->nextVisit(i, 0);
    out.push_back({first, unit_->nextVisit(i, first + 1) - first});
  });
  return out;
}

u64 Component::bulkLimit(u32 port, u32 event) const {
  if (unit_->localBits() == 0) return 0;
  u32 locals = 0;
  forEachLocal(port, event, [&](u32, u64) { ++locals; });
  return locals == 1 ? u64{1} << unit_->localBits() : 0;
}

void Component::bulkWindows(u32 port, u32 event, const BulkWindows& w) {
  unit_->sweptWindows(
      port, event, Unit::SweptWindows{w.first_end, w.last_end, w.amount, w.windows, w.max_window});
}

void Component::onInterrupt(InterruptSink sink) {
  unit_->onInterrupt([sink = std::move(sink)](const Interrupt& i) { sink(i.counter, i.cycle); });
}

u32 Component::hostAdd(u32 port, u32 event, u32 mode, std::string_view name) {
  if (!host_mode_) {
    host_mode_ = mode;
    host_mode_event_ = name;
  } else if (*host_mode_ != mode) {
    fail(ExitCode::kUsage,
         "{} counts in one mode at a time: {} ({}) cannot be counted with {} ({}), as BGPM's "
         "combined and sliced groups; use two runs",
         path(), name, mode != 0 ? "sliced" : "combined", host_mode_event_,
         *host_mode_ != 0 ? "sliced" : "combined");
  }
  // Combined (or a unit of one port): counter j counts on every port. Sliced (the NWUnit always):
  // counter 6 s + j on slice (link) s, the event's j the same on every port.
  if (!hostCountsPerPort(mode)) {
    if (next_counter_ >= limit_) {
      fail(ExitCode::kUsage,
           "{} has {} counters: too many events for it ({} cannot be counted with the events "
           "before it); count at most {} of its events per run",
           path(), limit_, name, limit_);
    }
    const u32 c = next_counter_++;
    host_configs_.emplace_back(c, configValue(event, SignalMode::kLevelHigh, false));
    return c;
  }
  if (event != host_event_ || port == 0) {
    if (next_counter_ >= limit_) {
      fail(ExitCode::kUsage,
           "{} has {} counters per {}: too many events for it ({} cannot be counted with the "
           "events before it); count at most {} of its events per run",
           path(), limit_, kind_.port_name, name, limit_);
    }
    host_event_ = event;
    ++next_counter_;
  }
  const u32 c = port * limit_ + (next_counter_ - 1);
  host_configs_.emplace_back(c, configValue(event, SignalMode::kLevelHigh, false));
  return c;
}

void Component::hostStart(Cycle now) {
  if (next_counter_ == 0) return;
  // The L2 unit's MODE regroups its counters: set it before any configuration.
  if (unit_->shape_.has_mode) unit_->write(unit_->map().mode, *host_mode_ != 0 ? 1 : 0, now);
  for (const auto& [counter, config] : host_configs_) {
    unit_->write(unit_->map().config(counter), config, now);
  }
  unit_->write(unit_->map().run, kRunBit, now);
  running_ = true;
  host_started_ = true;
  readConfigs();
}

void Component::hostStop(Cycle now) {
  if (host_started_) {
    unit_->write(unit_->map().run, 0, now);
    running_ = false;
    host_started_ = false;
  }
  hostClear();
}

void Component::hostClear() {
  host_mode_.reset();
  host_mode_event_.clear();
  host_event_ = ~u32{0};
  next_counter_ = 0;
  host_configs_.clear();
}

Cycle Component::settleCycles() const {
  // Two sweeps: the last events' local values are moved by the next visit at the latest.
  return unit_->nextVisit(0, 0) == Unit::kNone ? 0 : 2 * u64{unit_->shape_.sweep.period};
}

}  // namespace hpm::upcq
