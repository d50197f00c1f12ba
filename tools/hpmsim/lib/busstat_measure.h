// How `hpmsim busstat` measures: its options, what each counter of the interconnect monitor
// counts (the presets asked for, busstat's default four, or with --distribution the machine's
// transaction types in rotation), and one run of the program with the unit programmed from the
// host: its counters read and cleared at every interval (--distribution: their type filters
// rotated instead) and, with --fifo or --trace, its FIFOs sampled. What the records mean and how
// they are printed is busstat_analysis.h's.
#pragma once

#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "base/types.h"
#include "node/simulation.h"
#include "pmu/imon/events.h"
#include "stats/transaction.h"
#include "tools/hpmsim/lib/busstat_analysis.h"
#include "tools/hpmsim/lib/imon_host.h"
#include "tools/hpmsim/lib/session.h"

namespace hpm::tools {

// busstat's options (tools/hpmsim/busstat_command.cpp declares them).
struct BusstatOptions {
  SessionOptions run;
  std::vector<std::string> events;  // -e: comma-separated lists, as given
  double interval_ms = 0;           // -I: simulated milliseconds (0: not given)
  u64 interval_cycles = 0;          // --interval-cycles (0: not given)
  bool distribution = false;
  bool fifo = false;
  std::string trace;
  bool json = false;
  std::string csv;
  std::string output;  // -o: the report's file ("": standard error)
};

// --distribution's cycles per filter setting when neither -I nor --interval-cycles is given.
inline constexpr u64 kDefaultRotation = 100000;

// The cycles between two samples: `asked` (-I or --interval-cycles, 0 when neither is given),
// else kDefaultRotation with --distribution, else 0 (one sample, at the end).
u64 busstatInterval(u64 asked, bool distribution);

// Counter c's event, events[c]: `given` (-e's lists, split) or, without -e, busstat's default
// four for interconnect `ic` (every transaction, the coherent ones, the I/O ones, and the writes
// to memory: the crossbar's ic_mem_write, Fireplane's ic_write_back), as many of them as the
// unit's `counters`; none with --distribution, which sets the filters itself. Fails
// (ExitCode::kUsage) on -e with --distribution, and on more events than `counters` (naming
// `monitors`, imon.monitors).
std::vector<std::string> busstatEvents(const std::vector<std::string>& given, bool distribution,
                                       probe::Interconnect ic, u32 counters, u32 monitors);

// The preset `name` of interconnect `ic`; fails (kUsage) when it has none of that name.
const imon::Preset& presetNamed(const std::string& name, probe::Interconnect ic);

// --distribution's counters: one per transaction type of the machine's namespace (`types`), as
// many as the unit's `counters` allow. In round r, counter c watches the type (its index in the
// namespace) rotatedItem(r, c, counters, types): the stride is every counter of the unit.
u32 rotatedCounters(u32 counters, u32 types);

// Fails (kUsage) when the FIFO sampling that --fifo and --trace ask for cannot be done: with
// --distribution, or with fewer than two counters `used` (the FIFO records counter 1's
// matches).
void checkFifoSampling(bool distribution, u32 used);

// What a run hands on as it goes (either may be empty): the outputs that grow with the
// intervals are written as they end, and hpmsim's memory does not grow with them.
struct BusstatSinks {
  // Without --distribution: the counts of the interval that ended at `cycle`, counter c's at c.
  std::function<void(Cycle cycle, const std::vector<u64>& counts)> interval;
  // --fifo or --trace: each record taken from monitor `monitor`'s FIFO, oldest first.
  std::function<void(u32 monitor, const probe::Transaction& t)> record;
};

// One run's records (busstat_analysis.h), --distribution's or the counters', and the guest's
// exit status.
struct BusstatResult {
  std::variant<DistributionRecords, CountsRecords> records;
  int status = 0;
};

// One busstat run: made, the session's machine has its unit programmed (at cycle 0) and every
// check passed; run() then runs the program once.
class BusstatMeasure {
 public:
  // Fails (kUsage) when the machine has no interconnect monitor, on -I with --interval-cycles,
  // on the events (busstatEvents, presetNamed) and on FIFO sampling that cannot be done
  // (checkFifoSampling), in that order. `session` must outlive the measure.
  BusstatMeasure(const BusstatOptions& opt, const Session& session, const RunOptions& ro);

  // The reports' header (its cycles 0 until the run ends).
  const BusstatRun& header() const { return header_; }
  // Counter c's preset (none with --distribution).
  const std::vector<std::string>& events() const { return events_; }

  // Runs the program, sampling every interval and once more at its end (the last, partial
  // interval, or the only one).
  BusstatResult run(const BusstatSinks& sinks);

 private:
  void program(u32 counter, u32 type, Cycle at);  // --distribution: counter to type

  const Session& session_;
  bool distribution_ = false;
  bool sample_fifos_ = false;  // --fifo or --trace
  Simulation sim_;
  ImonHost unit_;
  u64 interval_ = 0;
  std::vector<std::string> events_;
  probe::TransactionNamespace ns_;  // the machine's: rotated type i is global type ns_.first + i
  u32 used_ = 0;                    // counters programmed
  u32 monitors_used_ = 0;           // their monitors
  BusstatRun header_;
};

}  // namespace hpm::tools
