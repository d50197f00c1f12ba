// `hpmsim c2c`'s results apart from its run: what the sampled FIFO records and the counters
// showed (records, tallied by tally*()), who supplied whose lines and the busiest shared lines
// (an analysis), and the report's text and JSON (printers), on the crossbar (bgq) and on
// Fireplane (sunfire). Each is a function of plain values, tested on made-up records.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/types.h"
#include "stats/transaction.h"

namespace hpm::tools {

// What the samples showed of one line.
struct LineRecord {
  std::set<u32> readers, writers;  // source agents
  u64 reads = 0, writes = 0, invalidations = 0;
  u64 from_cache = 0;  // Fireplane: records whose line another CPU's cache supplied
  u64 records() const { return reads + writes + invalidations; }
};

// What both interconnects' reports count besides their sources.
struct C2cSampling {
  std::string program;  // the command line, its words joined by spaces
  std::string machine;
  Cycle cycles = 0;
  u64 interval = 0;                 // cycles between two samples of the FIFO
  u64 taken = 0;                    // FIFO records read
  u64 lost = 0;                     // records the FIFO dropped between samples
  u64 matched = 0;                  // what the FIFO's counter matched (counted exactly)
  std::map<u64, LineRecord> lines;  // by physical line address
};

// Whether several agents touched `line`, one of them writing (true or false sharing).
bool sharedLine(const LineRecord& line);

// A line several agents touched, one of them writing.
struct SharedLine {
  u64 address = 0;
  u64 virtual_address = 0;  // Fireplane: from the records' virtual_addresses (0: none)
  LineRecord line;
};
struct SharedLines {
  std::size_t count = 0;        // all the shared lines seen
  std::vector<SharedLine> top;  // the busiest (most records; ties by address)
};
// The lines touched by two agents or more, one of them writing, the busiest `top` of them.
SharedLines busiestShared(const std::map<u64, LineRecord>& lines, u32 top);

// `part` in percent of `whole` (0 when whole is 0).
double percentOf(u64 part, u64 whole);

// ---- the crossbar (bgq): reads supplied by the L2 or memory ----------------------------------

struct CrossbarSource {
  u64 from_l2 = 0, from_memory = 0;  // reads by the snoop result
  u64 writes = 0;
};
struct CrossbarRecords {
  C2cSampling sampling;
  u32 threads_per_core = 1;
  u64 reads = 0, from_l2 = 0, from_memory = 0;  // counted exactly
  std::map<u32, CrossbarSource> sources;        // by source agent
};
// Adds one FIFO record (a read, fetch, prefetch, atomic, write or invalidation) to `r`.
void tallyCrossbar(CrossbarRecords& r, const probe::Transaction& t);

struct CrossbarReport {
  CrossbarRecords records;
  double from_l2_percent = 0, from_memory_percent = 0, seen_percent = 0;
  SharedLines shared;
};
// (Takes the records whole: they become the report's.)
CrossbarReport c2cCrossbar(CrossbarRecords records, u32 top);
std::string c2cText(const CrossbarReport& report);
nlohmann::json c2cJson(const CrossbarReport& report);

// ---- Fireplane (sunfire): line requests supplied by memory or another CPU's cache -------------

struct FireplaneSource {
  u64 from_memory = 0, from_cache = 0, owns = 0;
  std::map<u32, u64> suppliers;  // supplying CPU -> lines
};
struct FireplaneRecords {
  C2cSampling sampling;
  u32 cpus_per_board = 1;
  u64 requests = 0, from_memory = 0, from_cache = 0;  // counted exactly
  std::map<u32, FireplaneSource> sources;             // by requesting CPU
  // The shared lines' (sharedLine) virtual addresses in the process's mappings at the run's
  // end, by physical line address: a line no page maps has none.
  std::map<u64, u64> virtual_addresses;
};
// Adds one FIFO record (a line request or an upgrade) to `r`.
void tallyFireplane(FireplaneRecords& r, const probe::Transaction& t);

struct FireplaneReport {
  FireplaneRecords records;
  double from_memory_percent = 0, from_cache_percent = 0, seen_percent = 0;
  SharedLines shared;  // each with its virtual address
};
FireplaneReport c2cFireplane(FireplaneRecords records, u32 top);
std::string c2cText(const FireplaneReport& report);
nlohmann::json c2cJson(const FireplaneReport& report);

}  // namespace hpm::tools
