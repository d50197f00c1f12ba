// The crossbar and its shared L2 (interconnect.h; node.interconnect = "crossbar", sections [l2]
// and [ddr]; bgq, bgp, cva6; docs/timing.md "Memory"): a shared L2 of address-hashed slices,
// inclusive of the private caches and keeping each line's sharer mask, with DDR controllers
// behind it. Each core's crossbar port bounds its read bandwidth; each slice's port and each
// controller is a server (interconnect_base.h). A store's coherence happens at its issue (the
// other cores' L1 copies go), an atomic is performed at the L2, and an L2 eviction takes the
// private copies of its line with it.
//
// Requests are served in the order the model processes them (issue order), which is time order
// except for requests that wait behind queued stores; docs/timing.md lists that deviation.
//
// With l3.banks (bgp), the slices are Blue Gene/P's L3 banks (l3.h): each request also passes its
// bank's ports, directories, read-return path and miss handler.
#pragma once

#include <memory>

#include "mem/device_buses.h"
#include "mem/interconnect_base.h"
#include "mem/l3.h"

namespace hpm::mem {

class Crossbar final : public InterconnectBase {
 public:
  Crossbar(const MemParams& p, PrivateCaches& caches);
  ~Crossbar() override;

  Cycle read(u32 core, u64 line, Cycle p, Request request, bool timed, Level* level) override;
  Cycle probeRead(u32 core, u64 line, Cycle p) const override;
  Cycle own(u32 core, u64 line, Cycle p, bool timed) override;
  void storeIssued(u32 core, u64 line) override;
  Cycle drainFree(u32 core, u64 line, Cycle earliest) const override;
  Cycle drain(u32 core, u64 line, u32 bytes, Cycle start, bool timed) override;
  void drainCombined(u32 core, u64 line, u32 bytes) override;
  // With l1p.device_buses, also counted on its device's bus (device_buses.h).
  void deviceAccess(u64 addr, bool write) override;
  void setDeviceRouter(DeviceBuses::Router router) override {
    if (buses_) buses_->setRouter(std::move(router));
  }
  // Each L2 line the bytes touch is one request to its slice, a hit or a miss (a miss reads the
  // line from DDR unless a write covers it whole); a write leaves the line dirty and takes the
  // cores' L1 copies away, as another core's store would. No core is charged; `timed` false
  // leaves the slices' and DDR's clocks alone.
  void deviceLines(u64 addr, u64 bytes, Cycle at, bool write, bool timed,
                   std::vector<DeviceLineTimes>* times) override;
  u32 block(u64 addr) const override {
    const u64 line = addr >> shift_;
    return sliceOfLine(line) * p_.l2.setsPerSlice() +
           static_cast<u32>((line >> slice_bits_) & (p_.l2.setsPerSlice() - 1));
  }
  u32 controllerOf(u64 addr) const override { return controllerWithin(addr >> shift_); }
  void visitCoreTraffic(u32 core, stats::Visitor& v) const override;
  void visitSharedStats(stats::Visitor& v) const override;
  std::optional<u64> groundTruth(probe::Event e, u32 instance) const override;
  void registerTallies(probe::Bus& bus,
                       const std::function<const u64*(u32)>& core_version) const override;
  void setProbe(probe::Bus* bus) override {
    bus_ = bus;
    if (l3_) l3_->setProbe(bus);
    if (buses_) buses_->setProbe(bus);
  }
  // Blue Gene/P's L3 banks (l3.banks), or null.
  const L3Banks* l3() const { return l3_.get(); }
  // Blue Gene/P's device and network buses (l1p.device_buses), or null.
  const DeviceBuses* deviceBuses() const { return buses_.get(); }

  // The L2 slice of `addr`.
  u32 sliceOf(u64 addr) const { return sliceOfLine(addr >> shift_); }

 private:
  u32 sliceOfLine(u64 line) const { return foldHash(line, slice_bits_); }
  // The transaction a read of the L2 puts on the crossbar.
  static probe::TransactionType transactionOf(Request request);
  // The cycle >= `p` a read leaving core at `p` gets core's crossbar port (a fetch does not
  // wait: it only adds its transfer), which it then holds for its data's transfer.
  Cycle corePort(u32 core, Cycle p, Request request);
  // A DDR line transfer for the requester_ (interconnect_base.h), recorded as the slice's memory
  // transaction.
  Cycle memory(u64 line, Cycle p, bool write, bool timed);
  // Frees an L2 slot for `line`: writeback of a dirty victim, back-invalidation of copies.
  u32 victim(u32 sid, u64 line, Cycle at, bool timed);
  // A missing line's fill from DDR wanted at `p` (`waits` false: a fetch's): with L3 banks its
  // miss-handler entry first. The cycle the line is in the slice.
  Cycle fill(u32 sid, u64 line, Cycle p, bool waits, bool timed);
  // The L3 banks' prefetch into the eDRAM after a core's read of `line` missed at `at`.
  void prefetchIntoEdram(u64 line, Cycle at, bool timed);
  // Removes line's copies from the L1D and L1P of the cores in `sharers` (bit c % 64), except
  // `keep` (kNoCore: none kept).
  void invalidateSharers(u64 line, u64 sharers, u32 keep);
  static u64 coreBit(u32 core) { return u64{1} << (core & 63); }

  u32 slice_bits_ = 0;
  u32 slice_read_cycles_ = 1;           // a read's hold of its slice's port
  u32 port_line_cycles_ = 0;            // a line's hold of a core's crossbar port (0: no limit)
  u32 port_atomic_cycles_ = 0;          // an atomic result's
  std::vector<Cycle> port_free_;        // by core: its crossbar port's next free cycle
  std::unique_ptr<L3Banks> l3_;         // l3.banks only
  std::unique_ptr<DeviceBuses> buses_;  // l1p.device_buses only
};

}  // namespace hpm::mem
