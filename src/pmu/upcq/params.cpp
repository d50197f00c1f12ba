#include "pmu/upcq/params.h"

#include <cmath>

#include "base/error.h"

namespace hpm::upcq {
namespace {

void validateSweep(const char* unit, const Sweep& s, u64 slots) {
  if (s.period < 1) fail(ExitCode::kConfig, "UPC-Q {}: sweep.period must be at least 1", unit);
  if (s.phase >= s.period) {
    fail(ExitCode::kConfig, "UPC-Q {}: sweep.phase = {} must be below sweep.period = {}", unit,
         s.phase, s.period);
  }
  if (s.slot_cycles < 1) {
    fail(ExitCode::kConfig, "UPC-Q {}: sweep.slot_cycles must be at least 1", unit);
  }
  // Every local counter needs its own slot inside one period, so that each is visited exactly
  // once per period.
  if ((slots - 1) * s.slot_cycles >= s.period) {
    fail(ExitCode::kConfig,
         "UPC-Q {}: the sweep serves {} local counters at one every {} cycles, which does not fit "
         "in a period of {} cycles; use sweep.period >= {} or fewer counters",
         unit, slots, s.slot_cycles, s.period, (slots - 1) * s.slot_cycles + 1);
  }
}

// The safety rule: between two visits (period cycles) a local counter must not wrap.
void validateWidth(const char* unit, u32 local_bits, const Sweep& s, double rate,
                   bool exploration) {
  if (local_bits < 1 || local_bits > 63) {
    fail(ExitCode::kConfig, "UPC-Q {}: local_bits = {} must be between 1 and 63", unit, local_bits);
  }
  if (!(rate > 0)) fail(ExitCode::kConfig, "UPC-Q {}: max_event_rate must be positive", unit);
  if (exploration) return;
  const u32 need = minLocalBits(s.period, rate);
  if (local_bits < need) {
    fail(ExitCode::kConfig,
         "UPC-Q {}: unsafe configuration: the sweep visits a local counter every {} cycles, in "
         "which it may see up to {} events at {} events per cycle, but a {}-bit local counter "
         "holds at most {} and would wrap, losing {} events. Use local_bits >= {} or "
         "sweep.period <= {} (or a lower max_event_rate), or set exploration = true to run "
         "anyway and count lost wraps",
         unit, s.period, maxEventsPerSweep(s.period, rate), rate, local_bits,
         (u64{1} << local_bits) - 1, u64{1} << local_bits, need, maxSafePeriod(local_bits, rate));
  }
}

void validateCounts(const char* unit, u32 counters, u32 max_counters, u32 events) {
  if (counters < 1 || counters > max_counters) {
    fail(ExitCode::kConfig, "UPC-Q {}: counters = {} must be between 1 and {}", unit, counters,
         max_counters);
  }
  if (events < 1 || events > 65536) {
    fail(ExitCode::kConfig, "UPC-Q {}: events = {} must be between 1 and 65536", unit, events);
  }
}

}  // namespace

const char* toString(SignalMode mode) {
  switch (mode) {
    case SignalMode::kLevelHigh: return "level-high";
    case SignalMode::kLevelLow: return "level-low";
    case SignalMode::kRisingEdge: return "rising-edge";
    case SignalMode::kFallingEdge: return "falling-edge";
  }
  return "?";
}

void Sweep::visit(config::Visitor& v) {
  v.param("period", period,
          "Cycles between two visits of one local counter by the central unit's sweep: the "
          "latency of the readable value (Blue Gene/Q: about 800)",
          config::Range{1, 1 << 24});
  v.param("phase", phase,
          "Phase of the sweep: local counter i is visited in the cycles v with (v + phase) mod "
          "period == (first slot + i) x slot_cycles; below period",
          config::Range{0, 1 << 24});
  v.param("slot_cycles", slot_cycles,
          "Cycles between the visits of two consecutive local counters within a sweep",
          config::Range{1, 1 << 16});
}

void PUnitParams::visit(config::Visitor& v) {
  v.param("cores", cores,
          "Cores whose local units share the sweep (Blue Gene/Q: 16 compute cores and the system "
          "core); core k's counters take sweep slots k x counters to k x counters + counters - 1",
          config::Range{1, 255});
  v.param("counters", counters, "Local counters per core (Blue Gene/Q: 24)", config::Range{1, 64});
  v.param("local_bits", local_bits, "Width of a local counter (Blue Gene/Q: 14)",
          config::Range{1, 63});
  v.param("events", events,
          "Event inputs of one core; a counter's 16-bit select names one of them (event number + "
          "1024 x thread select: 0 the core, t + 1 hardware thread t)",
          config::Range{1, 65536});
  v.section("sweep", sweep);
  v.param("overflow_latency", overflow_latency,
          "Fast overflow: cycles from the cycle of the event that makes a counter reach its "
          "threshold to the interrupt (the seed: O(4)); the counter counts through the interrupt "
          "cycle and is frozen after it",
          config::Range{0, 4095});
  v.param("max_event_rate", max_event_rate,
          "Stated maximum events per cycle of one counter, used by the safety rule (the quad FPU "
          "does 8 floating-point operations per cycle)",
          config::Range{1e-9, 1e9});
  v.param("exploration", exploration,
          "Accept a configuration whose local counters can wrap between two visits, and count "
          "every lost wrap instead of refusing it");
}

void PUnitParams::validate() const {
  validateCounts("PUnit", counters, 64, events);
  if (cores < 1 || cores > 255) {
    fail(ExitCode::kConfig, "UPC-Q PUnit: cores = {} must be between 1 and 255", cores);
  }
  validateSweep("PUnit", sweep, u64{cores} * counters);
  if (overflow_latency > 4095) {
    fail(ExitCode::kConfig, "UPC-Q PUnit: overflow_latency = {} must be at most 4095",
         overflow_latency);
  }
  validateWidth("PUnit", local_bits, sweep, max_event_rate, exploration);
}

void L2UnitParams::visit(config::Visitor& v) {
  v.param("slices", slices, "L2 slices, each with its own L2 UPC module (Blue Gene/Q: 16)",
          config::Range{1, 255});
  v.param("counters", counters, "Counters per slice (Blue Gene/Q: 6)", config::Range{1, 64});
  v.param("local_bits", local_bits, "Width of a slice's local counter", config::Range{1, 63});
  v.param("events", events, "Event inputs per slice", config::Range{1, 65536});
  v.section("sweep", sweep);
  v.param("overflow_latency", overflow_latency,
          "Slow overflow: cycles from the sweep visit that makes a central counter reach its "
          "threshold to the interrupt",
          config::Range{0, 4095});
  v.param("max_event_rate", max_event_rate,
          "Stated maximum events per cycle of one slice counter (safety rule)",
          config::Range{1e-9, 1e9});
  v.param("sliced", sliced,
          "Mode after reset: false = combined (each central counter sums one counter over all "
          "slices; the Blue Gene/Q default), true = sliced (one central counter per slice "
          "counter)");
  v.param("exploration", exploration,
          "Accept a configuration whose local counters can wrap between two visits, and count "
          "every lost wrap");
}

void L2UnitParams::validate() const {
  validateCounts("L2Unit", counters, 64, events);
  if (slices < 1 || slices > 255) {
    fail(ExitCode::kConfig, "UPC-Q L2Unit: slices = {} must be between 1 and 255", slices);
  }
  validateSweep("L2Unit", sweep, u64{slices} * counters);
  if (overflow_latency > 4095) {
    fail(ExitCode::kConfig, "UPC-Q L2Unit: overflow_latency must be at most 4095");
  }
  validateWidth("L2Unit", local_bits, sweep, max_event_rate, exploration);
}

void IOUnitParams::visit(config::Visitor& v) {
  v.param("counters", counters,
          "I/O counters (Blue Gene/Q: 43 over the Message, PCIe and DevBus modules)",
          config::Range{1, 64});
  v.param("local_bits", local_bits,
          "Width of an I/O local counter (32 by default: byte counts arrive one pulse per system "
          "call)",
          config::Range{1, 63});
  v.param("events", events, "I/O event inputs", config::Range{1, 65536});
  v.section("sweep", sweep);
  v.param("overflow_latency", overflow_latency,
          "Slow overflow: cycles from the detecting sweep visit to the interrupt",
          config::Range{0, 4095});
  v.param("max_event_rate", max_event_rate,
          "Stated maximum events per cycle of one I/O counter (safety rule; bytes for the byte "
          "counters)",
          config::Range{1e-9, 1e12});
  v.param("exploration", exploration,
          "Accept a configuration whose local counters can wrap between two visits, and count "
          "every lost wrap");
}

void IOUnitParams::validate() const {
  validateCounts("IOUnit", counters, 64, events);
  validateSweep("IOUnit", sweep, counters);
  if (overflow_latency > 4095) {
    fail(ExitCode::kConfig, "UPC-Q IOUnit: overflow_latency must be at most 4095");
  }
  validateWidth("IOUnit", local_bits, sweep, max_event_rate, exploration);
}

void NWUnitParams::visit(config::Visitor& v) {
  v.param("links", links, "Links with counters (Blue Gene/Q: 10 torus links and the I/O link)",
          config::Range{1, 64});
  v.param("counters", counters, "Counters per link (Blue Gene/Q: 6)", config::Range{1, 64});
  v.param("local_bits", local_bits, "Width of a link's local counter", config::Range{1, 63});
  v.param("events", events, "Event inputs per link", config::Range{1, 65536});
  v.section("sweep", sweep);
  v.param("overflow_latency", overflow_latency,
          "Slow overflow: cycles from the detecting sweep visit to the interrupt",
          config::Range{0, 4095});
  v.param("max_event_rate", max_event_rate,
          "Stated maximum events per cycle of one link counter (safety rule; chunks arrive a "
          "packet's worth at once)",
          config::Range{1e-9, 1e9});
  v.param("exploration", exploration,
          "Accept a configuration whose local counters can wrap between two visits, and count "
          "every lost wrap");
}

void NWUnitParams::validate() const {
  validateCounts("NWUnit", counters, 64, events);
  validateSweep("NWUnit", sweep, u64{links} * counters);
  if (overflow_latency > 4095) {
    fail(ExitCode::kConfig, "UPC-Q NWUnit: overflow_latency must be at most 4095");
  }
  validateWidth("NWUnit", local_bits, sweep, max_event_rate, exploration);
}

void CNKUnitParams::visit(config::Visitor& v) {
  v.param("counters", counters, "Software counters of the kernel unit", config::Range{1, 64});
  v.param("events", events,
          "Kernel event inputs (system calls by kind, signals, timer interrupts, first touches, "
          "futex waits, threads created)",
          config::Range{1, 65536});
  v.param("overflow_latency", overflow_latency,
          "Cycles from the count that reaches a threshold to the interrupt",
          config::Range{0, 4095});
}

void CNKUnitParams::validate() const {
  validateCounts("CNKUnit", counters, 64, events);
  if (overflow_latency > 4095) {
    fail(ExitCode::kConfig, "UPC-Q CNKUnit: overflow_latency must be at most 4095");
  }
}

void Params::visit(config::Visitor& v) {
  v.section("punit", punit);
  v.section("l2", l2);
  v.section("io", io);
  v.section("cnk", cnk);
  v.section("nw", nw);
}

void Params::validate() const {
  punit.validate();
  l2.validate();
  io.validate();
  cnk.validate();
  nw.validate();
}

u64 maxEventsPerSweep(u64 period, double rate) {
  // In any W consecutive cycles at most ceil(R x W) events (the 1e-9 absorbs binary rounding of
  // rates such as 0.1).
  const long double most = std::ceil(static_cast<long double>(rate) * period - 1e-9L);
  if (most >= 18446744073709551615.0L) return ~u64{0};
  return most <= 0 ? 0 : static_cast<u64>(most);
}

u32 minLocalBits(u64 period, double rate) {
  const u64 most = maxEventsPerSweep(period, rate);
  u32 bits = 1;
  while (bits < 64 && ((u64{1} << bits) - 1) < most) ++bits;
  return bits;
}

u64 maxSafePeriod(u32 local_bits, double rate) {
  // Largest W with ceil(R x W) <= 2^L - 1, i.e. R x W <= 2^L - 1.
  const long double cap = static_cast<long double>((u64{1} << local_bits) - 1);
  u64 w = static_cast<u64>(std::floor(cap / rate + 1e-9L));
  while (w > 0 && maxEventsPerSweep(w, rate) > (u64{1} << local_bits) - 1) --w;
  return w;
}

}  // namespace hpm::upcq
