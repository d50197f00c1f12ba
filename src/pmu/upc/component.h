// UPC-P as a counter unit of the node (pmu/counter_unit.h): the hybrid unit (unit.h) behind the
// common interface, and its part of the native event catalogue (catalogue.cpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "pmu/catalogue.h"
#include "pmu/counter_unit.h"
#include "pmu/upc/unit.h"

namespace hpm::upc {

// The one UPC-P of a Blue Gene/P node: /dev/hpm/upc.
inline constexpr pmu::UnitKind kUnitKind{"upc", "UPC-P", false};

class Component final : public pmu::CounterUnit {
 public:
  explicit Component(const Params& params);

  // The hybrid unit itself (tools and tests: parity faults, inspection).
  Unit& unit() { return unit_; }

  const pmu::UnitKind& kind() const override { return kUnitKind; }
  u64 windowBytes() const override { return unit_.map().window_bytes; }
  u64 read(u64 offset, Cycle now) override { return unit_.read(offset, now); }
  bool write(u64 offset, u64 value, Cycle now) override;
  bool running() const override { return running_; }
  u64 interestEpoch() const override { return unit_.interest().epoch; }
  Cycle now() const override { return unit_.now(); }
  void advanceTo(Cycle now) override { unit_.advanceTo(now); }

  bool selects(u32 /*port*/, u32 event) const override { return unit_.interest().test(event); }
  void pulse(u32 /*port*/, u32 event, Cycle t, u64 count) override { unit_.pulse(event, t, count); }
  void level(u32 /*port*/, u32 event, Cycle t0, Cycle t1) override { unit_.level(event, t0, t1); }

  // Largest-first wants its inputs in global time order.
  bool ordered() const override { return params_.policy != Policy::kRoundRobin; }
  bool plainCounting(u32 port, u32 event) const override;
  Cycle windowEnd(u32 /*port*/, u32 event, Cycle at) const override {
    return unit_.nextVisit(event % params_.counters, at + 1);
  }
  std::vector<Windows> windows(u32 port, u32 event) const override;
  u64 roomBeforeCarry(u32 /*port*/, u32 event) const override {
    return unit_.eventsBeforeCarry(event);
  }

  void onInterrupt(InterruptSink sink) override;

  u32 counters() const override { return params_.counters; }
  // Each input has exactly one counter (input mod N): two inputs of one counter conflict.
  u32 hostAdd(u32 port, u32 event, u32 mode, std::string_view name) override;
  void hostStart(Cycle now) override;
  void hostStop(Cycle now) override;
  void hostClear() override { host_.clear(); }
  u64 counterOffset(u32 counter) const override { return unit_.map().counter(counter); }
  Cycle settleCycles() const override { return u64{params_.counters} * params_.service_cycles; }

  void visitStats(stats::Visitor& v) const override { unit_.stats().visit(v); }

  u32 sramEntryBits() const override { return unit_.sramDataBits() + unit_.parityBits(); }
  void flipSramBit(u32 counter, u32 bit, Cycle now) override {
    unit_.flipSramBit(counter, bit, now);
  }
  std::vector<DetectedFault> detectedFaults() const override;

 private:
  Params params_;
  Unit unit_;
  bool running_ = false;
  // Each counter's configuration byte, as last written (mode and interrupt enable are never
  // reserved bits, so the written byte is the one in force).
  std::vector<u8> config_bytes_;
  struct HostInput {
    u32 event;
    std::string name;
  };
  std::map<u32, HostInput> host_;  // by counter
  bool host_started_ = false;
};

// UPC-P's units and events on a node: the catalogue wires each of the 1024 inputs to a distinct
// (event, instance) pair (docs/events.md).
pmu::Attachment attach(const Params& params, const pmu::NodeShape& node);

}  // namespace hpm::upc
