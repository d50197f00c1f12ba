// The progress line of long runs: one line on stderr, rewritten in place at most twice a second,
// only when stderr is a terminal and --quiet was not given, and erased before the guest writes
// to its standard streams and at the end, so it never mixes into their output.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace hpm {
class Simulation;
}

namespace hpm::tools {

class ProgressLine {
 public:
  // Shown only if `wanted` (no --quiet) and stderr is a terminal.
  explicit ProgressLine(bool wanted);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  bool shown() const { return enabled_; }
  // Shows `text` ("[hpmsim] ..."), unless the last update was less than half a second ago.
  void update(const std::function<std::string()>& text);
  // Erases the line (before other output on the terminal, and at the end).
  void erase();
  // The simulation's progress: instructions, cycles, MIPS and host time, refreshed while it
  // runs, erased before each guest write to its standard streams. Returns the function to pass
  // to Simulation::run.
  std::function<void()> follow(Simulation& sim);
  // Seconds since the line was made.
  double elapsed() const;

 private:
  bool enabled_ = false;
  bool visible_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
  Simulation* sim_ = nullptr;
};

// The seconds left of `total` tasks (a sweep's points) when `done` have finished, the last of
// them `done_at` seconds after the start, and it is now `now` seconds after the start; none
// before the first has finished. At a finish it is the tasks left at the throughput so far
// (done over done_at); while the next task runs it counts down a second per second, never below
// 0: it never grows until a task finishes.
std::optional<double> secondsLeft(std::size_t total, std::size_t done, double done_at, double now);

}  // namespace hpm::tools
