// What hpmsim costs its host in memory, and the budget it keeps (docs/kernel.md, "Host memory"):
// a run stops with a message naming what used the memory, its results written, status 71, before
// the host's OOM killer would end it without any.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "base/types.h"
#include "kernel/kernel.h"

namespace CLI {
class App;
}
namespace hpm::net {
class Cluster;
}

namespace hpm::tools {

// hpmsim's peak resident memory so far, in KiB (Linux reports getrusage's ru_maxrss in KiB):
// what the host gave the run, the guests' memory and the models' together.
u64 hostPeakRssKib();
// hpmsim's resident memory now, in bytes (/proc/self/statm).
u64 hostRssBytes();
// What the host can still give hpmsim now: /proc/meminfo's MemAvailable, or less when the
// cgroup hpmsim runs in has a lower limit (memory.max less memory.current); 0 if unknown.
u64 hostAvailableBytes();

class HostMemoryBudget {
 public:
  // `mib`: the budget, MiB of resident memory hpmsim may hold (0: what it holds at start plus
  // what the host can still give it then: hostAvailableBytes).
  explicit HostMemoryBudget(u64 mib);
  u64 bytes() const { return bytes_; }
  // What the guests hold, for the reason a run stops ("the guest has touched 812 MiB of pages").
  void describeGuests(std::function<std::string()> describe) { describe_ = std::move(describe); }

  // Nothing while hpmsim's resident memory is within the budget, else the reason (it names the
  // budget, what hpmsim holds and the guests' part). Reads /proc at most every 10 ms of host
  // time unless `now` (the guest has just touched much new memory).
  std::optional<std::string> over(bool now = false);
  // Before a many-node run starts, after each node is built: refuses (Error, ExitCode::kHost)
  // when `total` nodes would pass the budget at the cost the `built` first ones took each.
  void checkNodes(u32 built, u32 total);
  // The kernels' limit source (Kernel::setLimitSource): this budget, read at once when a guest
  // has grown.
  Kernel::LimitSource limit() {
    return [this](bool grown) { return over(grown); };
  }

 private:
  u64 bytes_;
  u64 start_rss_;
  std::function<std::string()> describe_;
  std::chrono::steady_clock::time_point next_read_{};
};

// The option --host-memory MIB of the commands that simulate.
void addHostMemoryOption(CLI::App& cmd, u64& mib);
// What a guest holds ("the guest has touched 812 MiB of pages since it started").
std::string guestMemoryText(const Kernel& kernel);
// What this host's nodes' guests hold, and the node that holds the most.
std::string guestsMemoryText(const net::Cluster& cluster);

}  // namespace hpm::tools
