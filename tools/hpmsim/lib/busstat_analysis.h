// `hpmsim busstat`'s results apart from its run: what the run collects from the interconnect
// monitor (records), the transaction-type distribution estimated from them (an analysis), and
// the text, CSV and JSON of both modes (printers). Each is a function of plain values, so the
// unit tests check them on made-up records without a guest.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "base/types.h"
#include "stats/transaction.h"

namespace hpm::tools {

// What every busstat report names: the program, the machine and its clock.
struct BusstatRun {
  std::string program;  // the command line, its words joined by spaces
  std::string machine;
  double clock_mhz = 0;
  u64 clock_hz = 0;  // MachineConfig::clockHz(): clock_mhz rounded to hertz
  Cycle cycles = 0;  // the run's end
};

// ---- --distribution --------------------------------------------------------------------------

// One transaction type of the machine's namespace as the rotation watched it.
struct TypeRecord {
  std::string mnemonic;  // "RD"
  std::string name;      // "read"
  u64 sampled = 0;       // transactions counted while a counter watched the type
  u64 observed = 0;      // cycles a counter watched it
  u64 exact = 0;         // the simulator's count over the whole run (ground truth)
};

struct DistributionRecords {
  BusstatRun run;
  u32 counters = 0;  // counters rotated over the types
  u64 rotation = 0;  // cycles per filter setting
  std::vector<TypeRecord> types;
};

struct DistributionRow {
  TypeRecord type;
  double observed_percent = 0;  // of the run's cycles the type was watched (0 in a 0-cycle run)
  double estimate = 0;          // sampled scaled to the whole run (0 if never watched)
  double share_percent = 0;     // of all types' estimates (0 when nothing was estimated)
  // (estimate - exact) / exact in percent; none when exact is 0 (the printer then says "0.0 %"
  // if nothing was estimated either, else "-").
  std::optional<double> error_percent;
};

struct Distribution {
  BusstatRun run;
  u32 counters = 0;
  u64 rotation = 0;
  std::vector<DistributionRow> rows;  // the namespace's order
  double total_estimate = 0;
  u64 total_exact = 0;
};

// Each type's estimate is what it was sampled times the run's cycles over the cycles it was
// watched (the seed's time multiplexing), its share that of the sum of the estimates.
Distribution busstatDistribution(const DistributionRecords& records);

std::string distributionText(const Distribution& d);
std::string distributionCsv(const Distribution& d);
nlohmann::json distributionJson(const Distribution& d);

// ---- the counters' intervals (without --distribution) ---------------------------------------

// The report's header (busstat's layout: per monitor, its two counters' events and counts).
std::string intervalHeaderText(const BusstatRun& run);
// The CSV's header: "cycle" and the events.
std::string intervalHeaderCsv(const std::vector<std::string>& events);
// One interval that ended at `cycle`: a line per monitor, counter c's event `events[c]` and
// count `counts[c]`.
std::string intervalText(Cycle cycle, const std::vector<std::string>& events,
                         const std::vector<u64>& counts);
std::string intervalCsv(Cycle cycle, const std::vector<u64>& counts);
nlohmann::json intervalJson(Cycle cycle, const std::vector<std::string>& events,
                            const std::vector<u64>& counts);

// The monitors' FIFOs as --fifo sampled them.
struct FifoRecords {
  u64 taken = 0;  // records read out
  u64 lost = 0;   // records the FIFOs dropped between two samples
};

// --trace's CSV: its header, and one FIFO record `t` taken from monitor `monitor`'s FIFO (the
// address in hex, the type's mnemonic, the snoop result's name).
std::string traceHeaderCsv();
std::string traceRecordCsv(u32 monitor, const probe::Transaction& t);

struct CountsRecords {
  BusstatRun run;
  std::vector<std::string> events;  // counter c's preset
  std::vector<u64> totals;          // counter c's sum over the intervals
  std::vector<u64> exact;           // the simulator's count of what counter c's filter matches
  std::optional<FifoRecords> fifo;  // --fifo or --trace
};

// The FIFO records' share of what the FIFOs' counters (counter 1 of each monitor) matched.
struct FifoSeen {
  FifoRecords fifo;
  u64 matched = 0;
  double seen_percent = 0;  // 0 when nothing matched
};
FifoSeen fifoSeen(const CountsRecords& records);

std::string countsText(const CountsRecords& records);
// The JSON object without its intervals (busstat adds them as they were spooled).
nlohmann::json countsJson(const CountsRecords& records);

// Both modes' last line: the simulated time.
std::string simulatedTimeText(const BusstatRun& run);

}  // namespace hpm::tools
