// The four UPC-Q units of seed 001 (docs/upcq.md): their shapes and input signatures on top of the
// shared machinery of unit.h (timing, register window, interrupts).
#pragma once

#include "pmu/upcq/params.h"
#include "pmu/upcq/unit.h"

namespace hpm::upcq {

// One core's local UPC module (`counters` local counters of `local_bits` bits, each selecting one
// of the core's `events` inputs) and its counters in the central unit. Fast overflow: the
// interrupt `overflow_latency` cycles after the event that makes the exact count reach the
// threshold; the counter counts through the interrupt cycle and is then frozen until its
// OVERFLOW_STATUS bit is acknowledged. COUNTER lags by the sweep; COUNTER_EXACT does not.
// Counting needs RUN.run and the global run (setGlobalRun; on after reset).
class PUnit : public Unit {
 public:
  // Validates `params` (PUnitParams::validate); `core` < params.cores places the core's counters
  // in the sweep. Reset: counters, thresholds and status zero, configuration 0, RUN = 0.
  PUnit(const PUnitParams& params, u32 core);

  // Event `event` of this core occurred `count` times in cycle `t`.
  void pulse(u32 event, Cycle t, u64 count = 1) { pulseAt(0, event, t, count); }
  // Event `event` of this core was high in every cycle of [t0, t1).
  void level(u32 event, Cycle t0, Cycle t1) { levelAt(0, event, t0, t1); }
  // The central unit's global run, from cycle `now` on (an access).
  void setGlobalRun(bool on, Cycle now) { setGlobalRunAt(on, now); }

  const PUnitParams& params() const { return params_; }

 private:
  static Shape shapeFor(const PUnitParams& params, u32 core);
  PUnitParams params_;
};

// The L2 UPC modules of all slices and their central counters. Combined mode (the default): 6
// central counters, counter j the node-wide sum of counter j of every slice, all slices counting
// what CONFIG[j] selects. Sliced mode: slices x 6 central counters, index slice x 6 + j. Slow
// overflow: detected at the sweep visit that makes a central value reach its threshold; counting
// continues; interruptDelivered() holds the unit's counting until the status is acknowledged.
class L2Unit : public Unit {
 public:
  explicit L2Unit(const L2UnitParams& params);

  void pulse(u32 slice, u32 event, Cycle t, u64 count = 1) { pulseAt(slice, event, t, count); }
  void level(u32 slice, u32 event, Cycle t0, Cycle t1) { levelAt(slice, event, t0, t1); }
  void setGlobalRun(bool on, Cycle now) { setGlobalRunAt(on, now); }
  // The overflow signal reached its handler at `now`: counting is held (RUN.hold) from cycle
  // `now` until the acknowledge that clears the last OVERFLOW_STATUS bit (an access).
  void interruptDelivered(Cycle now) { holdAt(now); }
  bool sliced() const { return !combined(); }

  const L2UnitParams& params() const { return params_; }

 private:
  static Shape shapeFor(const L2UnitParams& params);
  L2UnitParams params_;
};

// I/O counters (our kernel's file and console I/O; later the message/DMA device). Slow overflow
// as the L2Unit.
class IOUnit : public Unit {
 public:
  explicit IOUnit(const IOUnitParams& params);

  void pulse(u32 event, Cycle t, u64 count = 1) { pulseAt(0, event, t, count); }
  void level(u32 event, Cycle t0, Cycle t1) { levelAt(0, event, t0, t1); }
  void setGlobalRun(bool on, Cycle now) { setGlobalRunAt(on, now); }
  void interruptDelivered(Cycle now) { holdAt(now); }

  const IOUnitParams& params() const { return params_; }

 private:
  static Shape shapeFor(const IOUnitParams& params);
  IOUnitParams params_;
};

// The network's counters: `counters` per link, each link a port (counter l x counters + j
// counts link l). Slow overflow as the L2Unit.
class NWUnit : public Unit {
 public:
  explicit NWUnit(const NWUnitParams& params);

  void pulse(u32 link, u32 event, Cycle t, u64 count = 1) { pulseAt(link, event, t, count); }
  void setGlobalRun(bool on, Cycle now) { setGlobalRunAt(on, now); }
  void interruptDelivered(Cycle now) { holdAt(now); }

  const NWUnitParams& params() const { return params_; }

 private:
  static Shape shapeFor(const NWUnitParams& params);
  NWUnitParams params_;
};

// Software counters our kernel keeps. Exact at every cycle (no sweep); an overflow interrupt is
// raised `overflow_latency` cycles after the count that reaches the threshold, and counting goes
// on. RUN = 1 after reset (the kernel counts from boot); not subject to the global run.
class CNKUnit : public Unit {
 public:
  explicit CNKUnit(const CNKUnitParams& params);

  void pulse(u32 event, Cycle t, u64 count = 1) { pulseAt(0, event, t, count); }
  void level(u32 event, Cycle t0, Cycle t1) { levelAt(0, event, t0, t1); }

  const CNKUnitParams& params() const { return params_; }

 private:
  static Shape shapeFor(const CNKUnitParams& params);
  CNKUnitParams params_;
};

}  // namespace hpm::upcq
