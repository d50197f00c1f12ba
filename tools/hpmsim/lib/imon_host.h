// The interconnect monitor (/dev/hpm/imon, docs/interconnect.md) from the host during a run, as
// a tool on the machine would use it: programming filters, reading and clearing counters,
// sampling the sequence FIFOs. Shared by `hpmsim busstat` and `hpmsim conflicts`.
#pragma once

#include <string_view>
#include <vector>

#include "base/types.h"
#include "pmu/imon/unit.h"
#include "stats/transaction.h"

namespace hpm {
class Monitor;
class Simulation;
}  // namespace hpm

namespace hpm::tools {

class ImonHost {
 public:
  // The unit of `sim`'s node; fails (ExitCode::kUsage, naming `tool` and the machine) when the
  // machine has none.
  ImonHost(Simulation& sim, std::string_view tool);

  u32 counters() const { return counters_; }
  // Sets counter `counter`'s filter (its types a mask over every type, as Filter keeps them) and
  // zeroes it, at cycle `at`.
  void program(u32 counter, const imon::Filter& f, Cycle at);
  u64 read(u32 counter, Cycle at);
  void clear(u32 counter, Cycle at);
  // Bit m of `monitors` lets monitor m's counters count.
  void run(u64 monitors, Cycle at);
  void enableFifo(u32 monitor, Cycle at);
  // Takes the records monitor `monitor`'s FIFO holds, oldest first, and adds to `lost` those it
  // dropped since the last sample.
  std::vector<probe::Transaction> sampleFifo(u32 monitor, Cycle at, u64& lost);

 private:
  Monitor* monitor_ = nullptr;
  int device_ = -1;
  u32 counters_ = 0;
  probe::TransactionNamespace ns_;  // the machine's: the registers' type bits are its
};

}  // namespace hpm::tools
