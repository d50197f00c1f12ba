#include "tools/hpmsim/lib/progress.h"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "node/simulation.h"

namespace hpm::tools {

ProgressLine::ProgressLine(bool wanted)
    : enabled_(wanted && ::isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

ProgressLine::~ProgressLine() {
  erase();
  if (sim_ != nullptr) sim_->kernel().setBeforeConsoleWrite({});
}

double ProgressLine::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressLine::update(const std::function<std::string()>& text) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ < std::chrono::milliseconds(500)) return;
  last_ = now;
  fmt::print(stderr, "\r\033[K{}", text());
  std::fflush(stderr);
  visible_ = true;
}

void ProgressLine::erase() {
  if (!visible_) return;
  fmt::print(stderr, "\r\033[K");
  std::fflush(stderr);
  visible_ = false;
}

std::optional<double> secondsLeft(std::size_t total, std::size_t done, double done_at, double now) {
  if (done == 0) return std::nullopt;
  // The tasks left at the throughput up to the last finish (all jobs together); from then on,
  // counted down. (Dividing by the time now instead made the estimate grow while a task ran:
  // the throughput seemed to fall with every second no task finished.)
  const double at_last_finish =
      static_cast<double>(total - done) * done_at / static_cast<double>(done);
  return std::max(0.0, at_last_finish - (now - done_at));
}

std::function<void()> ProgressLine::follow(Simulation& sim) {
  if (!enabled_) return {};
  sim_ = &sim;
  sim.kernel().setBeforeConsoleWrite([this] { erase(); });
  return [this, &sim] {
    update([&] {
      const double seconds = elapsed();
      const u64 n = sim.retiredInstructions();
      return fmt::format("[hpmsim] {:>14} instructions, {:>14} cycles, {:4.0f} s, {:8.1f} MIPS", n,
                         sim.elapsedCycles(), seconds, seconds > 0 ? n / seconds / 1e6 : 0.0);
    });
  };
}

}  // namespace hpm::tools
