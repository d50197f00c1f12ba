#include "kernel/timer_table.h"

namespace hpm {

std::size_t TimerTable::freeId() const {
  std::size_t id = 0;
  while (id < posix_.size() && (posix_[id].in_use || posix_[id].signal_queued)) ++id;
  return id;
}

void TimerTable::install(std::size_t id, PosixTimer timer) {
  if (id == posix_.size()) {
    posix_.push_back(timer);
  } else {
    timer.timer.generation = posix_[id].timer.generation;
    posix_[id] = timer;
  }
}

void TimerTable::remove(std::size_t id) {
  const bool queued = posix_[id].signal_queued;
  const u64 generation = posix_[id].timer.generation + 1;
  posix_[id] = PosixTimer{};
  posix_[id].signal_queued = queued;
  posix_[id].timer.generation = generation;
}

void TimerTable::noteArmed() {
  cpu_armed_ = itimers_[1].armed || itimers_[2].armed;
  for (const PosixTimer& pt : posix_) {
    cpu_armed_ = cpu_armed_ || (pt.in_use && pt.timer.armed && pt.cpu_time);
  }
}

}  // namespace hpm
