// Host multiplexing (`hpmsim stat`): when the events asked for need more counters than the units
// have, they are split into sets that each fit, and the sets take turns on the units in time
// slices of simulated time, as Linux's perf rotates its event groups on a timer.
//
// A switch at slice end T stops the units (Monitor::stopHost), waits until their readings have
// settled (Monitor::hostSettleCycles: UPC-Q's sweep, UPC-P's carry service; nothing counts
// meanwhile), reads the stopped set's counters, and starts the next set. So a set's count over
// its slices is exactly what its events did while it counted, and nothing of one set reaches
// another's counters. Each event's estimate is then perf's: its count scaled by the run's time
// over the time its set counted ("enabled" over "running").
//
// Level events (cycles, stall cycles) reach the units when a hardware thread's clock passes them
// (probe::LevelSource): at a stop and at a restart, the hardware threads that wait are first
// brought to it as idle (Simulation::idleWaitingHardwareThreads). What stays late: each running
// thread's instruction in flight at a stop, and a hardware thread's cycles before its first
// instruction, which the model counts from cycle 0 once a thread runs there, published at that
// instruction in one interval; they reach the units when published, moved to start at the
// unit's last access, and count as far as the set counting then does. Pulse events are exact per
// slice (tests/node/host_mux_test.cpp; docs/PERFORMANCE.md, "Address space, code cache and
// multiplexing", measures both effects). The units count from the published events, the reference
// path (Monitor::countFromEvents): counting from statistics does not survive the switches yet.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "base/types.h"
#include "node/monitor.h"
#include "node/simulation.h"

namespace hpm {

class Multiplexer {
 public:
  // `sets`: the native events of each set, each fitting the units together (Monitor::hostFits);
  // `slice`: cycles between switches, more than twice the units' settling time. Programs the
  // first set from cycle 0 and takes the simulation's timed hook (Simulation::setTimedHook): call
  // before the run.
  Multiplexer(Simulation& sim, std::vector<std::vector<const NativeEvent*>> sets, Cycle slice);
  Multiplexer(const Multiplexer&) = delete;
  Multiplexer& operator=(const Multiplexer&) = delete;

  // After the run, which ended at `end`: reads the counting set's last slice.
  void finish(Cycle end);

  // Every counter that counted in some slice, its value summed over its slices (unscaled).
  std::vector<ProgrammedCounter> counters() const;
  // Cycles the set counting native event `name` counted (0: it never did).
  Cycle running(const std::string& name) const;
  // The slices (turns) of the set counting native event `name` (0: it never had one).
  u64 turns(const std::string& name) const;
  std::size_t sets() const { return sets_.size(); }
  u64 switches() const { return switches_; }
  Cycle settleCycles() const { return settle_; }
  // Every slice: its set and the cycles [from, to) it counted.
  struct Slice {
    std::size_t set;
    Cycle from, to;
  };
  const std::vector<Slice>& slices() const { return slices_; }

 private:
  // The timed hook: a switch's stop or its read and restart at `now`; returns when it wants to
  // be called next.
  Cycle onTime(Cycle now);
  // Adds the current set's counts since its start, read now (values in hostLayout's order).
  void accumulate(const std::vector<u64>& values);

  Simulation& sim_;
  Monitor& monitor_;
  std::vector<std::vector<const NativeEvent*>> sets_;
  Cycle slice_;
  Cycle settle_;
  std::size_t current_ = 0;
  bool counting_ = false;  // the current set counts (else it stopped and is settling)
  Cycle started_ = 0;      // when the current set started counting
  std::vector<ProgrammedCounter> layout_;  // the current set's counters
  std::vector<u64> start_values_;          // their readings when it started
  // Sums by counter identity (event, device, port).
  std::map<std::tuple<std::string, std::string, i32>, ProgrammedCounter> sums_;
  u64 switches_ = 0;
  std::vector<Slice> slices_;
};

}  // namespace hpm
