// UPC-Q's units as counter units of the node (pmu/counter_unit.h): a PUnit per core and the
// node's L2, I/O and CNK units (units.h) behind the common interface, and their part of the
// native event catalogue (catalogue.cpp).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pmu/catalogue.h"
#include "pmu/counter_unit.h"
#include "pmu/upcq/units.h"

namespace hpm::upcq {

inline constexpr pmu::UnitKind kPUnitKind{"punit", "UPC-Q PUnit", true};
inline constexpr pmu::UnitKind kL2UnitKind{"l2", "UPC-Q L2 unit", false, "slice"};
inline constexpr pmu::UnitKind kIOUnitKind{"io", "UPC-Q I/O unit", false};
inline constexpr pmu::UnitKind kCNKUnitKind{"cnk", "UPC-Q CNK unit", false};
inline constexpr pmu::UnitKind kNWUnitKind{"nw", "UPC-Q network unit", false, "link"};

class Component final : public pmu::CounterUnit {
 public:
  // `counters`: how many counters host programming may take (the unit's counters per port);
  // `exploration`: the unit's parameters allow configurations that can lose counts.
  Component(const pmu::UnitKind& kind, std::unique_ptr<Unit> unit, u32 counters, bool exploration);

  Unit& unit() { return *unit_; }

  const pmu::UnitKind& kind() const override { return kind_; }
  u32 instance() const override { return unit_->instance(); }
  u64 windowBytes() const override { return unit_->map().window_bytes; }
  u64 read(u64 offset, Cycle now) override { return unit_->read(offset, now); }
  bool write(u64 offset, u64 value, Cycle now) override;
  bool running() const override { return running_; }
  u64 interestEpoch() const override { return unit_->interest(0).epoch; }
  Cycle now() const override { return unit_->now(); }
  void advanceTo(Cycle now) override { unit_->advanceTo(now); }

  u32 ports() const override { return ports_; }
  bool selects(u32 port, u32 event) const override { return unit_->interest(port).test(event); }
  void pulse(u32 port, u32 event, Cycle t, u64 count) override {
    unit_->pulseAt(port, event, t, count);
  }
  void level(u32 port, u32 event, Cycle t0, Cycle t1) override {
    unit_->levelAt(port, event, t0, t1);
  }

  bool plainCounting(u32 port, u32 event) const override;
  Cycle windowEnd(u32 port, u32 event, Cycle at) const override;
  std::vector<Windows> windows(u32 port, u32 event) const override;
  u64 bulkLimit(u32 port, u32 event) const override;
  void bulkWindows(u32 port, u32 event, const BulkWindows& w) override;

  void onInterrupt(InterruptSink sink) override;
  // The L2 and I/O units hold counting while the handler runs.
  bool holdsForHandler() const override { return unit_->shape_.hold; }
  void interruptDelivered(Cycle now) override { unit_->holdAt(now); }

  u32 counters() const override { return limit_; }
  // The L2 unit's sliced mode keeps each slice's counts apart; the NWUnit each link's always.
  bool hostCountsPerPort(u32 mode) const override {
    return unit_->shape_.has_mode ? mode != 0 : ports_ > 1;
  }
  // The lowest free counter, level high; the L2 unit in the mode of the first event added
  // (combined: counter j counts on every slice; sliced: counter 6 s + j on slice s, the same j
  // for every slice of one event).
  u32 hostAdd(u32 port, u32 event, u32 mode, std::string_view name) override;
  void hostStart(Cycle now) override;
  void hostStop(Cycle now) override;
  void hostClear() override;
  u64 counterOffset(u32 counter) const override { return unit_->map().counter(counter); }
  Cycle settleCycles() const override;

  void visitStats(stats::Visitor& v) const override { unit_->stats().visit(v); }

 private:
  // The CONFIG registers, read after every write that can change them (a MODE switch copies
  // configurations), or at cycle 0 before any input.
  void readConfigs();
  // f(i, configuration) for each local counter of `port` that selects `event`.
  template <typename F>
  void forEachLocal(u32 port, u32 event, F&& f) const {
    const u32 per_port = unit_->counterCount() / ports_;
    for (u32 j = 0; j < per_port; ++j) {
      const u32 i = port * per_port + j;
      const u64 config = configs_[i];
      if ((config & config_bits::kEventMask) == event) f(i, config);
    }
  }

  const pmu::UnitKind& kind_;
  std::unique_ptr<Unit> unit_;
  u32 ports_;
  u32 limit_;
  bool exploration_;
  bool running_ = false;
  std::vector<u64> configs_;
  u32 next_counter_ = 0;  // host programming: the next free counter (per port when sliced)
  // Host programming: the unit mode of the events added (the first decides), and in sliced
  // mode the local counter of the event added last (its slices come one after the other).
  std::optional<u32> host_mode_;
  std::string host_mode_event_;
  u32 host_event_ = ~u32{0};
  std::vector<std::pair<u32, u64>> host_configs_;  // (counter, CONFIG value) hostAdd planned
  bool host_started_ = false;
};

// UPC-Q's units and events on a node: a PUnit per core (each thread event as the sum over the
// core's threads and per thread, the core's events, one count per operation), the L2 unit (the
// slices' and memory controllers' events), and the I/O and CNK units (the kernel's).
pmu::Attachment attach(const Params& params, const pmu::NodeShape& node);

}  // namespace hpm::upcq
