#include "tools/hpmsim/lib/host_memory.h"

#include <fmt/core.h>
#include <sys/resource.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "base/error.h"
#include "cluster/cluster.h"

namespace hpm::tools {
namespace {

constexpr u64 kMiB = u64{1} << 20;

// The first number in a file, or nothing ("max" in a cgroup file, a missing file).
std::optional<u64> firstNumber(const char* path) {
  std::ifstream in(path);
  u64 v = 0;
  if (in >> v) return v;
  return std::nullopt;
}

}  // namespace

u64 hostPeakRssKib() {
  rusage usage{};
  return ::getrusage(RUSAGE_SELF, &usage) == 0 ? static_cast<u64>(usage.ru_maxrss) : 0;
}

u64 hostRssBytes() {
  std::ifstream in("/proc/self/statm");
  u64 size = 0, resident = 0;
  in >> size >> resident;
  return resident * static_cast<u64>(::sysconf(_SC_PAGESIZE));
}

u64 hostAvailableBytes() {
  u64 available = 0;
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);) {
    std::istringstream fields(line);
    std::string key;
    u64 kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") available = kib << 10;
  }
  // (A container's own limit, cgroup v2, when it is lower.)
  const auto limit = firstNumber("/sys/fs/cgroup/memory.max");
  const auto used = firstNumber("/sys/fs/cgroup/memory.current");
  if (limit && used) {
    const u64 room = *limit > *used ? *limit - *used : 0;
    available = available == 0 ? room : std::min(available, room);
  }
  return available;
}

HostMemoryBudget::HostMemoryBudget(u64 mib) : start_rss_(hostRssBytes()) {
  if (mib != 0) {
    bytes_ = mib * kMiB;
    return;
  }
  const u64 available = hostAvailableBytes();
  bytes_ = available == 0 ? ~u64{0} : start_rss_ + available;
}

std::optional<std::string> HostMemoryBudget::over(bool now) {
  const auto t = std::chrono::steady_clock::now();
  if (!now && t < next_read_) return std::nullopt;
  next_read_ = t + std::chrono::milliseconds(10);
  const u64 rss = hostRssBytes();
  if (rss <= bytes_) return std::nullopt;
  std::string reason = fmt::format(
      "hpmsim holds {} MiB of host memory, past its budget of {} MiB (--host-memory MIB sets "
      "it; by default the memory the host had available when hpmsim started)",
      rss / kMiB, bytes_ / kMiB);
  if (describe_) reason += ": " + describe_();
  return reason;
}

void HostMemoryBudget::checkNodes(u32 built, u32 total) {
  if (built == 0 || built >= total) return;
  const u64 rss = hostRssBytes();
  const u64 each = rss > start_rss_ ? (rss - start_rss_ + built - 1) / built : 0;
  const u64 need = rss + each * (total - built);
  if (need <= bytes_) return;
  fail(ExitCode::kHost,
       "{} nodes need about {} MiB of host memory ({} MiB each, as the first {} took), more "
       "than hpmsim's budget of {} MiB (--host-memory MIB sets it; by default the memory the "
       "host had available when hpmsim started): run fewer nodes, or spread them over several "
       "host processes with mpirun",
       total, need / kMiB, (each + kMiB - 1) / kMiB, built, bytes_ / kMiB);
}

void addHostMemoryOption(CLI::App& cmd, u64& mib) {
  cmd.add_option("--host-memory", mib,
                 "MiB of host memory hpmsim may hold (default: what the host has available when "
                 "it starts); past it the run stops, its results written, status 71")
      ->check(CLI::Range(u64{1}, u64{1} << 40));
}

std::string guestMemoryText(const Kernel& kernel) {
  return fmt::format("the guest has touched {} MiB of pages since it started",
                     (kernel.memory().firstTouches() * GuestMemory::kPageSize) >> 20);
}

// What this host's nodes' guests hold, and the node that holds the most.
std::string guestsMemoryText(const net::Cluster& cluster) {
  u64 total = 0, most = 0;
  u32 most_node = 0;
  const net::NodeBlock local = cluster.localNodes();
  for (u32 n = local.first; n < local.last; ++n) {
    const u64 pages = cluster.node(n).kernel().memory().firstTouches();
    total += pages;
    if (pages > most) {
      most = pages;
      most_node = n;
    }
  }
  return fmt::format(
      "{} nodes here; their guests have touched {} MiB of pages since they started (node {} "
      "the most: {} MiB), the rest is the nodes' models and the network's",
      local.last - local.first, (total * GuestMemory::kPageSize) >> 20, most_node,
      (most * GuestMemory::kPageSize) >> 20);
}

}  // namespace hpm::tools
