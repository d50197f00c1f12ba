// What `hpmsim stat` measured, apart from how it is printed (stat_print.h) and how it was
// measured (stat_measure.h): plain values, which the tests make up without a guest.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/types.h"
#include "node/monitor.h"
#include "node/simulation.h"
#include "tools/hpmsim/lib/stat_events.h"

namespace hpm::tools {

// A derived ratio perf stat prints beside an event ("#  1.23 insn per cycle").
struct Metric {
  double value = 0;
  std::string unit;
  bool percent = false;
};

// One interval's reading: its end and the cumulative count of each request by then.
struct IntervalRow {
  Cycle cycle = 0;
  double seconds = 0;
  std::map<std::string, u64> cumulative;
};

// One run's results.
struct StatRun {
  std::vector<Request> requests;
  std::vector<u32> cores;  // the cores counted (empty: all)
  std::string unit_name, unit_title;
  std::map<std::string, u64> counts;                   // by request (not the unsupported ones)
  std::map<u32, std::map<std::string, u64>> per_core;  // by core, by request (per-core units)
  std::vector<std::map<std::string, u64>> per_node;    // many nodes: by node, by request
  std::vector<ThreadGroup> per_thread;                 // --per-thread (stat_events.h)
  std::vector<ProgrammedCounter> counters;
  std::vector<IntervalRow> intervals;  // -I: those the report draws (KeptIntervals), in order
  std::map<u32, std::map<std::string, u64>> regions;  // by region id, by request
  std::map<u32, std::string> region_names;
  std::vector<RegionSpan> region_spans;  // each thread's stays in regions (--per-region)
  Cycle end = 0;
  double seconds = 0;
  double host_seconds = 0;
  u64 instructions = 0;
  int status = 0;
  // Multiplexing (more events than counters): the sets that took turns, the switches, and each
  // multiplexed request's share of the run its set counted (absent: 100 %, counted throughout);
  // a request whose set never counted has no count.
  std::size_t mux_sets = 1;
  u64 mux_switches = 0;
  std::map<std::string, double> pcnt_running;
  std::map<std::string, u64> mux_turns;  // each multiplexed request's set's slices
};

// A multiplexed estimate scales what its set counted in its slices to the whole run: from fewer
// slices than this it has sampled too few stretches of the run to be trusted (a program's phases
// last longer than a slice), and the printers mark it with its slices.
inline constexpr u64 kTrustedMuxTurns = 10;

// A stat command's results: its runs (-r N) and what the printers say of the run.
struct StatResult {
  std::vector<std::string> command;  // the program and its arguments, as given
  std::string guest_inputs;          // guestInputsDigest of the arguments and environment
  std::string machine;               // the machine's name
  double clock_mhz = 0;
  std::string mode;           // the run mode's name
  std::string network_shape;  // many nodes: the torus' shape ("2x2x1x1x1")
  double mux_interval_ms = 0;
  bool system_wide = false;   // -a: cycles count every hardware thread's clock, idle included
  std::vector<StatRun> runs;  // at least one; the last is the one the per-run tables show

  const StatRun& last() const { return runs.back(); }
};

// What perf stat prints of one request over the runs: the mean count, the relative standard
// deviation of the mean (percent of the mean) and the share of the run its set counted.
struct EventSummary {
  enum class State : u8 {
    kCounted,
    kNotCounted,    // multiplexed, and its set never had a turn (perf's "<not counted>")
    kNotSupported,  // no model on this machine or in this mode (perf's "<not supported>")
  };
  State state = State::kCounted;
  double mean = 0;
  double spread = 0;          // percent; 0 for one run
  double pcnt_running = 100;  // perf's (xx.xx%): 100 unless multiplexed
  bool multiplexed = false;   // whether the request took turns (perf prints its column then)
  u64 turns = 0;              // multiplexed: the slices its set counted
  bool clock = false;         // task-clock or cpu-clock: counted in ns, shown in msec
};

// Each request's summary over the runs, by name.
std::map<std::string, EventSummary> summarize(const StatResult& result);

// perf's estimate of a multiplexed count: the count its set read while it ran, scaled by the
// time the events were enabled (the run) over the time they ran (their set's turns), rounded
// to the nearest; 0 when they never ran.
u64 multiplexEstimate(u64 counted, Cycle enabled, Cycle running);

}  // namespace hpm::tools
