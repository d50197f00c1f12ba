#include "pmu/upcq/units.h"

#include "base/error.h"

namespace hpm::upcq {
Unit::Shape PUnit::shapeFor(const PUnitParams& p, u32 core) {
  p.validate();
  if (core >= p.cores) {
    fail(ExitCode::kConfig, "UPC-Q PUnit: core {} does not exist (cores = {})", core, p.cores);
  }
  Unit::Shape s;
  s.kind = UnitKind::kPUnit;
  s.instance = core;
  s.counters = p.counters;
  s.events = p.events;
  s.local_bits = p.local_bits;
  s.sweep = p.sweep;
  s.first_slot = u64{core} * p.counters;
  s.overflow_latency = p.overflow_latency;
  s.fast = true;
  s.freeze = true;
  s.global = true;
  s.exact_regs = true;
  return s;
}

Unit::Shape L2Unit::shapeFor(const L2UnitParams& p) {
  p.validate();
  Unit::Shape s;
  s.kind = UnitKind::kL2Unit;
  s.ports = p.slices;
  s.counters = p.counters;
  s.events = p.events;
  s.local_bits = p.local_bits;
  s.sweep = p.sweep;
  s.overflow_latency = p.overflow_latency;
  s.fast = false;
  s.hold = true;
  s.global = true;
  s.has_mode = true;
  s.sliced = p.sliced;
  return s;
}

Unit::Shape IOUnit::shapeFor(const IOUnitParams& p) {
  p.validate();
  Unit::Shape s;
  s.kind = UnitKind::kIOUnit;
  s.counters = p.counters;
  s.events = p.events;
  s.local_bits = p.local_bits;
  s.sweep = p.sweep;
  s.overflow_latency = p.overflow_latency;
  s.fast = false;
  s.hold = true;
  s.global = true;
  return s;
}

Unit::Shape NWUnit::shapeFor(const NWUnitParams& p) {
  p.validate();
  Unit::Shape s;
  s.kind = UnitKind::kNWUnit;
  s.ports = p.links;
  s.counters = p.counters;
  s.events = p.events;
  s.local_bits = p.local_bits;
  s.sweep = p.sweep;
  s.overflow_latency = p.overflow_latency;
  s.fast = false;
  s.hold = true;
  s.global = true;
  return s;  // (no MODE register: always one counter per link counter, as the L2's sliced mode)
}

Unit::Shape CNKUnit::shapeFor(const CNKUnitParams& p) {
  p.validate();
  Unit::Shape s;
  s.kind = UnitKind::kCNKUnit;
  s.counters = p.counters;
  s.events = p.events;
  s.local_bits = 0;  // direct
  s.overflow_latency = p.overflow_latency;
  s.fast = true;
  s.run_at_reset = true;
  return s;
}

PUnit::PUnit(const PUnitParams& params, u32 core) : Unit(shapeFor(params, core)), params_(params) {}
L2Unit::L2Unit(const L2UnitParams& params) : Unit(shapeFor(params)), params_(params) {}
IOUnit::IOUnit(const IOUnitParams& params) : Unit(shapeFor(params)), params_(params) {}
CNKUnit::CNKUnit(const CNKUnitParams& params) : Unit(shapeFor(params)), params_(params) {}
NWUnit::NWUnit(const NWUnitParams& params) : Unit(shapeFor(params)), params_(params) {}

}  // namespace hpm::upcq
