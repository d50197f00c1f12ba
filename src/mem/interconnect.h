// The interconnect below the private caches (docs/architecture.md "Adding an interconnect"): what
// the L1I, L1D and L1P of every core (memory_system.h) see of the levels below them. Each
// organisation is one implementation, chosen by the machine (node.interconnect, MemParams):
//   - Crossbar (crossbar.h): a crossbar to a shared L2 of address-hashed slices, inclusive of the
//     private caches and keeping their sharer masks, with DDR controllers (bgq, bgp, cva6);
//   - Fireplane (fireplane.h): each CPU's private write-back external cache, kept coherent by
//     snooping MOESI on one address bus, memory on boards (sunfire, seed 004).
// The memory system holds its interconnect through this interface only: virtual calls per L1
// miss, per store (its issue, its drain's port and its drain) and per atomic, none on an L1 hit
// (docs/PERFORMANCE.md "The interconnect interface": within the host's drift).
//
// Addresses are physical (the memory system translates them first: frames()); `line` arguments
// are line numbers of MemParams::lineBytes() lines.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "base/types.h"
#include "mem/frames.h"
#include "mem/mem_params.h"
#include "stats/probe.h"
#include "stats/stats.h"

namespace hpm::mem {

// Which level served a load (kL2: the crossbar's L2 or the core's E$; kPeer: another CPU's cache).
enum class Level : u8 { kL1, kL1p, kL2, kDdr, kPeer };

// What a core's private caches ask a line for.
enum class Request : u8 { kData, kPrefetch, kFetch, kAtomic };

// One line of a device's access (Interconnect::deviceLines), in the order of its lines: the
// line's first byte's address, the cycle the slice took it (after its waits for the L3's ports
// and the slice's port) and the cycle it was done (a read's data ready, a write's line complete
// in the slice). Untimed (warm-up): both the access's cycle.
struct DeviceLineTimes {
  u64 addr = 0;
  Cycle taken = 0;
  Cycle done = 0;
};

// The private caches above an interconnect, as it sees them: it removes their copies of a line
// (coherence, inclusion). The memory system implements it.
class PrivateCaches {
 public:
  // Removes `line`'s copies from core's L1I, L1D and L1P; whether there were any.
  virtual bool invalidateCore(u32 core, u64 line) = 0;

 protected:
  ~PrivateCaches() = default;
};

class Interconnect {
 public:
  virtual ~Interconnect() = default;

  // ---- Requests of a core's private caches ----
  // A line for an L1 miss (a load the L1P missed, a fetch, a prefetch) leaving the core at `p`:
  // the cycle its data is ready, and in `level` who served it. `timed` false (warm-up): the
  // same state changes and statistics, no waiting and no busy time.
  virtual Cycle read(u32 core, u64 line, Cycle p, Request request, bool timed, Level* level) = 0;
  // What read() would return for an instruction fetch; no side effect.
  virtual Cycle probeRead(u32 core, u64 line, Cycle p) const = 0;
  // An atomic leaving the core at `p`, performed below the L1s with the line owned: the cycle
  // its old value is ready. Every core's L1 copies of the line go, the issuing core's included.
  virtual Cycle own(u32 core, u64 line, Cycle p, bool timed) = 0;
  // A store was issued (written through to the L1D): the coherence it needs at issue.
  virtual void storeIssued(u32 core, u64 line) = 0;
  // The earliest cycle >= `earliest` a store-queue entry of `core` for `line` can drain. No
  // side effect.
  virtual Cycle drainFree(u32 core, u64 line, Cycle earliest) const = 0;
  // A store-queue entry of `bytes` drains at `start` (>= drainFree): the cycle the write is done.
  virtual Cycle drain(u32 core, u64 line, u32 bytes, Cycle start, bool timed) = 0;
  // `bytes` more were combined into an entry already drained (statistics only).
  virtual void drainCombined(u32 core, u64 line, u32 bytes) = 0;

  // ---- Devices ----
  // An uncached access of the requester thread to a device register at (virtual) `addr`.
  virtual void deviceAccess(u64 addr, bool write) = 0;
  // Which bus each device register's address is on, for an interconnect that routes device
  // accesses by bus (the crossbar with l1p.device_buses: mem/device_buses.h); else ignored.
  virtual void setDeviceRouter(std::function<probe::DeviceBus(u64 addr)> router) { (void)router; }
  // A device's reads or writes of `bytes` bytes of memory at `addr` (MemorySystem::deviceLines);
  // appends each line's times to `times` when it is not null (an interconnect with no device
  // lines appends none).
  virtual void deviceLines(u64 addr, u64 bytes, Cycle at, bool write, bool timed,
                           std::vector<DeviceLineTimes>* times) = 0;

  // ---- Structure ----
  // Where `addr`'s line competes with others for the ways of a set (the cache-conflict tool's
  // unit): an L2 slice's set on the crossbar, the set of every E$ on Fireplane.
  virtual u32 block(u64 addr) const = 0;
  // The memory controller of `addr`.
  virtual u32 controllerOf(u64 addr) const = 0;
  // The physical frames of guest pages, or null (memory mapped 1:1).
  virtual FrameTable* frames() { return nullptr; }

  // ---- Transactions and statistics ----
  virtual void setProbe(probe::Bus* bus) { bus_ = bus; }
  // The hardware thread whose instruction is being processed (the source of its transactions).
  void setRequesterThread(u32 thread) { thread_ = thread; }
  // Every transaction so far, by type and snoop result (the ground truth of a filtering counter).
  const probe::TransactionCounts& transactionCounts() const { return transactions_; }
  // Its statistics of `core` (inside the core's "traffic" group), and its shared ones.
  virtual void visitCoreTraffic(u32 core, stats::Visitor& v) const = 0;
  virtual void visitSharedStats(stats::Visitor& v) const = 0;
  // Its events' ground truth (probe::TruthRow), and their tallies on `bus` (kOwnCore events with
  // `core_version(core)`).
  virtual std::optional<u64> groundTruth(probe::Event e, u32 instance) const = 0;
  virtual void registerTallies(probe::Bus& bus,
                               const std::function<const u64*(u32)>& core_version) const = 0;

 protected:
  probe::Bus* bus_ = nullptr;
  u32 thread_ = 0;
  probe::TransactionCounts transactions_;
};

// The machine's interconnect (params.interconnect), removing copies from `caches`. `params` is
// validated.
std::unique_ptr<Interconnect> makeInterconnect(const MemParams& params, PrivateCaches& caches);

}  // namespace hpm::mem
