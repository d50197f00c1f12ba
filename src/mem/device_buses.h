// Blue Gene/P's device and network buses (l1p.device_buses; docs/timing.md "Device buses"): a
// core's L2 (the model's L1P) sends its cacheable requests to the L3 and each uncached access to
// a device's registers to the bus that device sits on, by its address: the device bus (the UPC,
// the interrupt controller, the lockbox, the SRAM) or the network bus (the DMA, the torus' and
// the collective network's FIFOs). Each core's reads and writes of each bus are counted here:
// the statistics behind UPC-P's PU<k>_L2_DEVBUS_READ_REQUESTS, _NETBUS_READ_REQUESTS,
// _DEVBUS_WRITES and _NETWORK_WRITES.
//
// Only counts: a device access's timing is the core's (core.device_latency; docs/timing.md
// "Device registers"), whichever bus it takes.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "base/types.h"
#include "stats/probe.h"
#include "stats/stats.h"

namespace hpm::mem {

// One core's accesses of each bus (by probe::DeviceBus).
struct DeviceBusStats {
  std::array<u64, probe::kDeviceBuses> reads{};
  std::array<u64, probe::kDeviceBuses> writes{};
};

class DeviceBuses {
 public:
  // The bus of the device whose registers are at a (virtual) address: the node knows which
  // device each device page belongs to and that device's bus (node/simulation.cpp).
  using Router = std::function<probe::DeviceBus(u64 addr)>;

  explicit DeviceBuses(u32 cores) : stats_(cores) {}

  void setRouter(Router router) { router_ = std::move(router); }
  void setProbe(probe::Bus* bus) { bus_ = bus; }

  // Core `core`'s uncached access of the device register at `addr`: a read (a load or an
  // atomic's) or a write (a store), counted on the device's bus. Without a router (a memory
  // system alone, in unit tests) every device is on the device bus.
  void access(u32 core, u64 addr, bool write);

  const DeviceBusStats& stats(u32 core) const { return stats_[core]; }
  // Core `core`'s counts, inside its "traffic" group.
  void visitCore(u32 core, stats::Visitor& v) const;

  // The events' ground truth (probe::TruthRow), and their tallies on `bus`, whose versions are
  // the instance's core's (`core_version`): only that core's instructions change them.
  std::optional<u64> groundTruth(probe::Event e, u32 instance) const;
  void registerTallies(probe::Bus& bus, const std::function<const u64*(u32)>& core_version) const;

 private:
  static std::span<const probe::TruthRow<DeviceBuses>> truthTable();

  Router router_;
  probe::Bus* bus_ = nullptr;
  std::vector<DeviceBusStats> stats_;  // by core
};

}  // namespace hpm::mem
