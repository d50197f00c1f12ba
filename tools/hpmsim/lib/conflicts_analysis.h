// `hpmsim conflicts`'s results apart from its run: the writebacks the sampled FIFO showed by
// cache block, page and address (records, counted by countWriteback), the hottest blocks (an
// analysis), and the report's text, JSON and per-block CSV (printers). Each is a function of
// plain values, tested on made-up records.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "base/types.h"

namespace hpm::tools {

// The cache whose writebacks the interconnect carries: bgq's L2 (sliced), or on Fireplane each
// CPU's external cache. A block is one set of one slice: block / sets is the slice.
struct CacheShape {
  bool fireplane = false;
  u32 slices = 1;
  u32 sets = 1;  // per slice (Fireplane: per external cache)
  u32 ways = 1;
  u32 line_bytes = 64;
};

struct PageRecord {
  u64 writebacks = 0;
  u64 virtual_page = 0;  // 0: no virtual page maps the frame
  std::string segment;   // the mapping it belonged to when first seen ("(no page)": none)
};
struct BlockRecord {
  u64 writebacks = 0;
  std::map<u64, PageRecord> pages;  // by physical page (GuestMemory::kPageSize)
  std::map<u64, u64> addresses;     // physical address -> writebacks
};

struct ConflictsRecords {
  std::string program;  // the command line, its words joined by spaces
  std::string machine;
  CacheShape cache;
  Cycle cycles = 0;
  u64 interval = 0;    // cycles between two samples of the FIFO
  u64 writebacks = 0;  // counted exactly
  u64 taken = 0;       // FIFO records read
  u64 lost = 0;        // records the FIFO dropped between samples
  std::map<u32, BlockRecord> blocks;
};

// Counts one writeback of `address` seen in `block`; returns its page's record, whose
// virtual_page and segment the caller fills in when it is new (writebacks == 1).
PageRecord& countWriteback(ConflictsRecords& r, u32 block, u64 address);

struct PageRow {
  u64 page = 0;
  PageRecord seen;
};
struct AddressRow {
  u64 address = 0;
  u64 writebacks = 0;
  u64 page = 0;
};
struct BlockRow {
  u32 block = 0, slice = 0, set = 0;
  u64 writebacks = 0;
  std::vector<PageRow> pages;         // by physical page
  std::vector<AddressRow> addresses;  // by physical address
};
struct ConflictsReport {
  std::string program, machine;
  CacheShape cache;
  Cycle cycles = 0;
  u64 interval = 0;
  u64 writebacks = 0, taken = 0, lost = 0;
  double seen_percent = 0;            // taken of writebacks (0 when there were none)
  std::size_t blocks = 0;             // blocks with a writeback seen
  std::vector<BlockRow> hottest;      // the `top` with the most (ties by block)
  std::vector<BlockRow> every_block;  // every block seen, by block, without pages or addresses
};
ConflictsReport conflictsReport(const ConflictsRecords& records, u32 top);

std::string conflictsText(const ConflictsReport& report);
nlohmann::json conflictsJson(const ConflictsReport& report);
// Per block (block,slice,set,writebacks), for a scatter plot as the seed's Figure 4.
std::string conflictsCsv(const ConflictsReport& report);

}  // namespace hpm::tools
