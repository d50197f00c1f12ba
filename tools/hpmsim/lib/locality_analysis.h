// `hpmsim locality`'s results apart from its run: the board pairs' counts and the traffic the
// sampled FIFO showed by address region (records), the requester-by-home matrix estimated from
// them, the remote share and the regions with the most remote traffic (an analysis), and the
// report's text and JSON (printers). Each is a function of plain values, tested on made-up
// records.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "base/types.h"

namespace hpm::tools {

// One (requester board, home board) pair's counting.
struct PairRecord {
  u32 requester = 0, home = 0;
  u64 counted = 0;   // transactions counted while a counter watched the pair
  u64 observed = 0;  // cycles a counter watched it
};

// An address region (a mapping of the process) and the sampled traffic to it.
struct RegionRecord {
  std::string segment;
  u64 start = 0, end = 0;
  u64 local = 0, remote = 0;
  std::map<u32, u64> remote_from;  // requester board -> remote records
  std::map<u32, u64> homes;        // home board -> records
};
// Counts one FIFO record of `region` from board `requester` to memory on board `home`.
void countTraffic(RegionRecord& region, u32 home, u32 requester);

struct LocalityRecords {
  std::string program;  // the command line, its words joined by spaces
  std::string machine;
  std::string placement;  // the machine's page placement ("first_touch", ...)
  u32 boards = 1, cpus_per_board = 1;
  u32 pair_counters = 0;  // counters given to the pairs: fewer than the pairs rotate
  u64 rotation = 0;       // cycles per pair setting when they rotate
  u64 interval = 0;       // cycles between two samples of the FIFO
  Cycle cycles = 0;
  u64 coherent = 0;                     // coherent transactions, counted exactly
  u64 matched = 0;                      // what the FIFO's counter matched
  u64 taken = 0, lost = 0;              // FIFO records read, dropped between samples
  u64 unmapped = 0;                     // records of no mapped page
  std::vector<PairRecord> pairs;        // requester-major: pairs[r * boards + h]
  std::map<u64, RegionRecord> regions;  // by start
};

struct PairRow {
  PairRecord pair;
  double estimate = 0;  // counted scaled to the whole run (0 if never watched)
};
struct LocalityReport {
  LocalityRecords records;
  bool exact = false;  // every pair had a counter of its own all along
  std::vector<PairRow> matrix;
  double remote_percent = 0;          // off-board pairs' estimates of all estimates
  double seen_percent = 0;            // taken of matched (0 when nothing matched)
  std::vector<RegionRecord> hottest;  // the `top` with the most remote records (ties by start)
};
// (Takes the records whole: they become the report's.)
LocalityReport localityReport(LocalityRecords records, u32 top);

std::string localityText(const LocalityReport& report);
nlohmann::json localityJson(const LocalityReport& report);

}  // namespace hpm::tools
