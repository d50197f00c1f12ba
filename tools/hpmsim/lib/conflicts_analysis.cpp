#include "tools/hpmsim/lib/conflicts_analysis.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>

#include "hart/memory.h"
#include "tools/hpmsim/lib/output.h"

namespace hpm::tools {
namespace {

constexpr u64 kPageBytes = GuestMemory::kPageSize;

BlockRow rowOf(u32 block, const BlockRecord& seen, const CacheShape& cache) {
  BlockRow row;
  row.block = block;
  row.slice = block / cache.sets;
  row.set = block % cache.sets;
  row.writebacks = seen.writebacks;
  return row;
}

}  // namespace

PageRecord& countWriteback(ConflictsRecords& r, u32 block, u64 address) {
  ++r.taken;
  BlockRecord& b = r.blocks[block];
  ++b.writebacks;
  ++b.addresses[address];
  PageRecord& p = b.pages[address / kPageBytes * kPageBytes];
  ++p.writebacks;
  return p;
}

ConflictsReport conflictsReport(const ConflictsRecords& records, u32 top) {
  ConflictsReport report;
  report.program = records.program;
  report.machine = records.machine;
  report.cache = records.cache;
  report.cycles = records.cycles;
  report.interval = records.interval;
  report.writebacks = records.writebacks;
  report.taken = records.taken;
  report.lost = records.lost;
  report.seen_percent = records.writebacks ? 100.0 * static_cast<double>(records.taken) /
                                                 static_cast<double>(records.writebacks)
                                           : 0.0;
  report.blocks = records.blocks.size();
  std::vector<std::pair<u32, const BlockRecord*>> hottest;
  for (const auto& [block, seen] : records.blocks) {
    hottest.emplace_back(block, &seen);
    report.every_block.push_back(rowOf(block, seen, records.cache));
  }
  // Stable: blocks with as many writebacks stay in block order.
  std::stable_sort(hottest.begin(), hottest.end(), [](const auto& a, const auto& b) {
    return a.second->writebacks > b.second->writebacks;
  });
  if (hottest.size() > top) hottest.resize(top);
  for (const auto& [block, seen] : hottest) {
    BlockRow row = rowOf(block, *seen, records.cache);
    for (const auto& [page, p] : seen->pages) row.pages.push_back({.page = page, .seen = p});
    for (const auto& [address, n] : seen->addresses) {
      row.addresses.push_back(
          {.address = address, .writebacks = n, .page = address / kPageBytes * kPageBytes});
    }
    report.hottest.push_back(std::move(row));
  }
  return report;
}

std::string conflictsText(const ConflictsReport& report) {
  const CacheShape& c = report.cache;
  const std::string cache =
      c.fireplane ? fmt::format(
                        "each CPU's external cache, {} sets of {} ways, {}-byte lines; "
                        "physical addresses are frames on the boards",
                        c.sets, c.ways, c.line_bytes)
                  : fmt::format(
                        "the L2 as the external cache, {} slices x {} sets of {} ways, "
                        "{}-byte lines; physical addresses are virtual ones on this node",
                        c.slices, c.sets, c.ways, c.line_bytes);
  std::string text = fmt::format(
      "\n Writebacks of '{}' (machine {}: {})\n"
      " FIFO sampled every {} cycles: {} of {} writebacks seen ({:.1f} %), {} lost between "
      "samples; {} blocks had one\n",
      report.program, report.machine, cache, withCommas(report.interval), withCommas(report.taken),
      withCommas(report.writebacks), report.seen_percent, withCommas(report.lost),
      withCommas(report.blocks));
  for (const BlockRow& b : report.hottest) {
    text += fmt::format("\n CacheBlock: {} (slice {}, set {})    Writebacks: {}\n", b.block,
                        b.slice, b.set, withCommas(b.writebacks));
    text += fmt::format(" Writebacks by Page ({} pages):\n", b.pages.size());
    text += fmt::format("   {:<20} {:>8}  {:<20} {}\n", "Physical Page", "# WBs", "Virtual Page",
                        "Segment");
    for (const PageRow& p : b.pages) {
      text += fmt::format("   {:<#20x} {:>8}  {:<#20x} {}\n", p.page, p.seen.writebacks,
                          p.seen.virtual_page, p.seen.segment);
    }
    text += fmt::format(" Writebacks by Address ({} addresses):\n", b.addresses.size());
    text += fmt::format("   {:<20} {:>8}  {}\n", "Physical Address", "# WB", "Physical Page");
    for (const AddressRow& a : b.addresses) {
      text += fmt::format("   {:<#20x} {:>8}  {:#x}\n", a.address, a.writebacks, a.page);
    }
  }
  return text + "\n";
}

nlohmann::json conflictsJson(const ConflictsReport& report) {
  nlohmann::json hot = nlohmann::json::array();
  for (const BlockRow& b : report.hottest) {
    nlohmann::json pages = nlohmann::json::array();
    for (const PageRow& p : b.pages) {
      pages.push_back({{"page", p.page},
                       {"virtual_page", p.seen.virtual_page},
                       {"writebacks", p.seen.writebacks},
                       {"segment", p.seen.segment}});
    }
    nlohmann::json addresses = nlohmann::json::array();
    for (const AddressRow& a : b.addresses) {
      addresses.push_back({{"address", a.address}, {"writebacks", a.writebacks}});
    }
    hot.push_back({{"block", b.block},
                   {"slice", b.slice},
                   {"set", b.set},
                   {"writebacks", b.writebacks},
                   {"pages", pages},
                   {"addresses", addresses}});
  }
  return {{"machine", report.machine},
          {"cycles", report.cycles},
          {"writebacks", report.writebacks},
          {"taken", report.taken},
          {"lost", report.lost},
          {"blocks", report.blocks},
          {"sets_per_slice", report.cache.sets},
          {"interval", report.interval},
          {"hottest", hot}};
}

std::string conflictsCsv(const ConflictsReport& report) {
  std::string csv = "block,slice,set,writebacks\n";
  for (const BlockRow& b : report.every_block) {
    csv += fmt::format("{},{},{},{}\n", b.block, b.slice, b.set, b.writebacks);
  }
  return csv;
}

}  // namespace hpm::tools
