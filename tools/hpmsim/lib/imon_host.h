// The interconnect monitor (/dev/hpm/imon, docs/interconnect.md) from the host during a run, as
// a tool on the machine would use it: programming filters, reading and clearing counters,
// sampling the sequence FIFOs; and the filters and RUN bits its tools (busstat, c2c, conflicts,
// locality) program it with.
#pragma once

#include <string_view>
#include <vector>

#include "base/types.h"
#include "pmu/imon/unit.h"
#include "stats/transaction.h"
#include "stats/transaction_masks.h"

namespace hpm {
class Monitor;
class Simulation;
}  // namespace hpm

namespace hpm::tools {

// The masks the tools' filters are made of (stats/transaction_masks.h).
using probe::kAllSnoops;
using probe::snoopBit;
using probe::typeBit;

// A filter of the transactions whose type is in `types` (typeBit) and whose snoop result is in
// `snoops` (bit s: snoop result s), at any address and from any source.
imon::Filter typeFilter(u64 types, u64 snoops = kAllSnoops);

// The RUN register's bits that let counters 0 to `counters` - 1 count: one per monitor they
// belong to (kCountersPerMonitor counters each).
u64 monitorsOf(u32 counters);

// Time multiplexing (busstat --distribution's types, locality's board pairs): the item counter
// `counter` of `counters` watches in round `round` when they rotate over `items` items, round r
// giving counter c item (r x counters + c) mod items: each round goes on where the last left
// off, so over `items` rounds every item is watched as often.
u32 rotatedItem(u64 round, u32 counter, u32 counters, u32 items);

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
