// How `hpmsim stat` measures: its options, and one run of the program with the machine's
// counter units programmed from the host (perf's events and groups, generic and native events,
// multiplexed when they do not fit), read at the end, at every -I interval and at the guest's
// region markers; on one node or many. What the names count is stat_events.h's; the
// multiplexing node/host_mux.h's; the results stat_result.h's.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/types.h"
#include "cluster/host_link.h"
#include "node/machine.h"
#include "node/run_modes.h"
#include "tools/hpmsim/lib/session.h"
#include "tools/hpmsim/lib/stat_result.h"

namespace hpm::tools {

// stat's options (tools/hpmsim/stat_command.cpp declares them).
struct StatOptions {
  SessionOptions session;  // --machine, --set, --mode, --root, the environment, the nodes, ...
  std::vector<std::string> events;
  std::vector<u32> cores;   // restrict generic events to these cores (empty: all)
  u64 interval = 0;         // --interval-cycles
  double interval_ms = 0;   // -I: simulated milliseconds
  std::string separator;    // -x: perf's CSV output with this separator
  bool no_big_num = false;  // --no-big-num: no thousands separators
  bool all_cpus = false;    // -a: system-wide: cycles count every hardware thread's clock
  int detailed = 0;         // -d, -dd, -ddd: perf's detailed events after the others
  u32 repeat = 1;           // -r
  bool json = false;
  bool per_region = false;
  bool no_aggr = false;        // -A: every counter of every unit instance (and L2 slice) apart
  bool per_core = false;       // --per-core: each request's count per core
  bool per_thread = false;     // --per-thread: counts of each guest thread's hardware threads
  double mux_interval_ms = 4;  // --mux-interval-ms: multiplexing's time slice (perf's default)
  std::string output;
  std::string report;  // --report: an HTML report of the results (report.h)
  std::string trace;   // --trace: their timelines as a Chrome trace
};

// stat counts in the modes that have the counter units, on one node or many.

// Where each -I interval goes as it ends (printed, or spooled for the JSON), with the run's
// requests: so that hpmsim's memory does not grow with the intervals.
using IntervalSink = std::function<void(const std::vector<Request>&, const IntervalRow&)>;

// One run of opt's program on `machine` in `mode` (`interval`: -I's cycles, 0 for none), on
// many nodes when `many_nodes` (over `hosts` when mpirun started several host processes), with
// the guest environment `envp`. Fails (ExitCode::kUsage) on an event the machine does not know
// or options the events do not allow. Many nodes over host processes: only host 0's result has
// the counts.
StatRun measureStat(const StatOptions& opt, const MachineConfig& machine, RunMode mode,
                    u64 interval, bool many_nodes, net::HostLink* hosts,
                    const std::vector<std::string>& envp, const IntervalSink& sink);

// -r N: opt.repeat runs of session `s`'s program (measureStat's, the guest environment `envp`),
// stopped after one that Ctrl-C ended, with what the report says of them (the command line, the
// digest of the guest's inputs, the machine, the mode, the shape). Simulated runs are
// deterministic: they differ only where the program itself varies (its inputs, its
// environment, its clock readings).
StatResult measureStatRuns(const StatOptions& opt, const Session& s, u64 interval,
                           net::HostLink* hosts, const std::vector<std::string>& envp,
                           const IntervalSink& sink);

}  // namespace hpm::tools
