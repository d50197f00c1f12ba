// The ground truth as a device (/dev/hpm/sim): the simulator's own statistics, readable by the
// guest with a load, as no real machine offers them. PAPI's `sim` component reads it
// (docs/papi.md), so a program can hold any counter against the truth.
//
// Registers (64-bit): 0 holds S, the largest scope's instances (the node's hardware threads, or
// its L2 slices if more); 1 the number E of probe events (probe::kEventInfo's order); 2 + e how
// event e is kept: 0 not readable here (its values read 0: no statistic, or one kept only while
// a counter counts from it, as the driver's operation counts), 1 a statistic the models keep
// whatever is counted (probe::Bus::tallyValue), 2 a level kept per thread (the level source).
// Register 2 + E + e x S + s is event e's count for source s (its hardware thread, core, L2
// slice, ... as the event's scope numbers them). A read at cycle t
// has every event of the reading thread's cycles before t; other sources' statistics are as far
// as the simulation has come (another thread may be ahead of the reader in time). The window is
// read-only: writes are ignored. The unit counts nothing itself: it is the monitor's companion
// to whatever family the machine has.
#pragma once

#include "pmu/counter_unit.h"
#include "stats/probe.h"

namespace hpm {

inline constexpr pmu::UnitKind kTruthUnitKind{"sim", "simulator statistics (ground truth)", false};

class TruthUnit final : public pmu::CounterUnit {
 public:
  explicit TruthUnit(const probe::Bus& bus);

  const pmu::UnitKind& kind() const override { return kTruthUnitKind; }
  u64 windowBytes() const override;
  u64 read(u64 offset, Cycle now) override;
  bool write(u64, u64, Cycle now) override {
    now_ = now;
    return false;
  }
  bool running() const override { return false; }
  u64 interestEpoch() const override { return 0; }
  Cycle now() const override { return now_; }
  void advanceTo(Cycle now) override { now_ = now; }

  bool selects(u32, u32) const override { return false; }
  void pulse(u32, u32, Cycle, u64) override {}
  void level(u32, u32, Cycle, Cycle) override {}
  bool plainCounting(u32, u32) const override { return false; }
  Cycle windowEnd(u32, u32, Cycle) const override { return kNever; }
  std::vector<Windows> windows(u32, u32) const override { return {}; }

  void onInterrupt(InterruptSink) override {}
  u32 counters() const override { return 0; }
  u32 hostAdd(u32 port, u32 event, u32 mode, std::string_view name) override;
  void hostStart(Cycle) override {}
  void hostStop(Cycle) override {}
  void hostClear() override {}
  u64 counterOffset(u32) const override { return 0; }
  Cycle settleCycles() const override { return 0; }
  void visitStats(stats::Visitor&) const override {}

 private:
  static u64 valuesBase();
  const probe::Bus& bus_;
  u32 stride_;  // registers per event: the most instances any scope has
  Cycle now_ = 0;
};

}  // namespace hpm
