#include "tools/hpmsim/lib/c2c_analysis.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "stats/transaction_masks.h"
#include "tools/hpmsim/lib/output.h"

namespace hpm::tools {
namespace {

using probe::Snoop;
using probe::TransactionType;

// Fireplane's requests that take ownership of the line (a write's).
constexpr u64 kOwning = probe::typeBit(TransactionType::kReadToOwn) |
                        probe::typeBit(TransactionType::kReadToOwnUpgrade);

std::string agentName(u32 source, u32 threads_per_core) {
  if (source >= probe::kSliceAgent) return fmt::format("L2 slice {}", source - probe::kSliceAgent);
  return fmt::format("thread {} (core {})", source, source / threads_per_core);
}

}  // namespace

double percentOf(u64 part, u64 whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

bool sharedLine(const LineRecord& line) {
  std::set<u32> agents = line.readers;
  agents.insert(line.writers.begin(), line.writers.end());
  return agents.size() >= 2 && !line.writers.empty();
}

SharedLines busiestShared(const std::map<u64, LineRecord>& lines, u32 top) {
  SharedLines shared;
  for (const auto& [address, line] : lines) {
    if (sharedLine(line)) {
      shared.top.push_back({.address = address, .virtual_address = 0, .line = line});
    }
  }
  // Stable: lines with as many records stay in address order.
  std::stable_sort(shared.top.begin(), shared.top.end(), [](const auto& a, const auto& b) {
    return a.line.records() > b.line.records();
  });
  shared.count = shared.top.size();
  if (shared.top.size() > top) shared.top.resize(top);
  return shared;
}

void tallyCrossbar(CrossbarRecords& r, const probe::Transaction& t) {
  ++r.sampling.taken;
  LineRecord& line = r.sampling.lines[t.address];
  if (t.type == TransactionType::kInvalidate) {
    ++line.invalidations;
  } else if (t.type == TransactionType::kWrite) {
    ++line.writes;
    line.writers.insert(t.source);
    ++r.sources[t.source].writes;
  } else {
    ++line.reads;
    line.readers.insert(t.source);
    if (t.type == TransactionType::kAtomic) line.writers.insert(t.source);
    CrossbarSource& source = r.sources[t.source];
    if (t.snoop == Snoop::kL2) ++source.from_l2;
    if (t.snoop == Snoop::kMemory) ++source.from_memory;
  }
}

CrossbarReport c2cCrossbar(CrossbarRecords records, u32 top) {
  CrossbarReport report;
  report.records = std::move(records);
  const CrossbarRecords& r = report.records;
  report.from_l2_percent = percentOf(r.from_l2, r.reads);
  report.from_memory_percent = percentOf(r.from_memory, r.reads);
  report.seen_percent = percentOf(r.sampling.taken, r.sampling.matched);
  report.shared = busiestShared(r.sampling.lines, top);
  return report;
}

std::string c2cText(const CrossbarReport& report) {
  const CrossbarRecords& r = report.records;
  const C2cSampling& s = r.sampling;
  std::string text = fmt::format(
      "\n Who supplied the lines read by '{}' (machine {}; counted exactly)\n\n"
      "{:>20}      line reads\n{:>20}      supplied by the L2 ({:.1f} %)\n{:>20}      supplied by "
      "memory ({:.1f} %)\n{:>20}      supplied by another core's cache (none: the L1s write "
      "through and the L2 is shared)\n",
      s.program, s.machine, withCommas(r.reads), withCommas(r.from_l2), report.from_l2_percent,
      withCommas(r.from_memory), report.from_memory_percent, 0);
  text += fmt::format(
      "\n Sampled every {} cycles: {} of {} reads, writes and invalidations seen ({:.1f} %), {} "
      "lost between samples\n\n {:<24} {:>10} {:>10} {:>10}\n",
      withCommas(s.interval), withCommas(s.taken), withCommas(s.matched), report.seen_percent,
      withCommas(s.lost), "source", "from L2", "from mem", "writes");
  for (const auto& [source, seen] : r.sources) {
    text += fmt::format(" {:<24} {:>10} {:>10} {:>10}\n", agentName(source, r.threads_per_core),
                        withCommas(seen.from_l2), withCommas(seen.from_memory),
                        withCommas(seen.writes));
  }
  text += fmt::format("\n Lines shared by agents, one writing: {} seen; the busiest:\n\n",
                      report.shared.count);
  for (const SharedLine& l : report.shared.top) {
    text += fmt::format(" {:#x}: {} reads, {} writes, {} invalidations; readers {}; writers {}\n",
                        l.address, l.line.reads, l.line.writes, l.line.invalidations,
                        fmt::join(l.line.readers, ","), fmt::join(l.line.writers, ","));
  }
  return text + "\n";
}

nlohmann::json c2cJson(const CrossbarReport& report) {
  const CrossbarRecords& r = report.records;
  const C2cSampling& s = r.sampling;
  nlohmann::json out = {{"machine", s.machine},
                        {"cycles", s.cycles},
                        {"reads", r.reads},
                        {"from_l2", r.from_l2},
                        {"from_memory", r.from_memory},
                        {"sampled", s.taken},
                        {"lost", s.lost},
                        {"matched", s.matched},
                        {"shared_lines", report.shared.count}};
  nlohmann::json by_source = nlohmann::json::array();
  for (const auto& [source, seen] : r.sources) {
    by_source.push_back({{"source", source},
                         {"from_l2", seen.from_l2},
                         {"from_memory", seen.from_memory},
                         {"writes", seen.writes}});
  }
  out["sources"] = by_source;
  nlohmann::json hot = nlohmann::json::array();
  for (const SharedLine& l : report.shared.top) {
    hot.push_back({{"address", l.address},
                   {"reads", l.line.reads},
                   {"writes", l.line.writes},
                   {"invalidations", l.line.invalidations},
                   {"readers", l.line.readers},
                   {"writers", l.line.writers}});
  }
  out["shared"] = hot;
  return out;
}

void tallyFireplane(FireplaneRecords& r, const probe::Transaction& t) {
  ++r.sampling.taken;
  LineRecord& line = r.sampling.lines[t.address];
  FireplaneSource& source = r.sources[t.source];
  if ((probe::typeBit(t.type) & kOwning) != 0) {
    ++line.writes;
    line.writers.insert(t.source);
    ++source.owns;
  } else {
    ++line.reads;
    line.readers.insert(t.source);
  }
  if (t.type == TransactionType::kReadToOwnUpgrade) return;  // no data moved
  if (t.supplier != probe::kNoSupplier) {
    ++source.from_cache;
    ++source.suppliers[t.supplier];
    ++line.from_cache;
  } else {
    ++source.from_memory;
  }
}

FireplaneReport c2cFireplane(FireplaneRecords records, u32 top) {
  FireplaneReport report;
  report.records = std::move(records);
  const FireplaneRecords& r = report.records;
  report.from_memory_percent = percentOf(r.from_memory, r.requests);
  report.from_cache_percent = percentOf(r.from_cache, r.requests);
  report.seen_percent = percentOf(r.sampling.taken, r.sampling.matched);
  report.shared = busiestShared(r.sampling.lines, top);
  for (SharedLine& line : report.shared.top) {
    const auto va = r.virtual_addresses.find(line.address);
    line.virtual_address = va != r.virtual_addresses.end() ? va->second : 0;
  }
  return report;
}

namespace {

// "2:5 3:1": each supplying CPU and the lines it supplied.
std::string suppliersText(const std::map<u32, u64>& suppliers) {
  std::string who;
  for (const auto& [cpu, n] : suppliers)
    who += fmt::format("{}{}:{}", who.empty() ? "" : " ", cpu, n);
  return who;
}

}  // namespace

std::string c2cText(const FireplaneReport& report) {
  const FireplaneRecords& r = report.records;
  const C2cSampling& s = r.sampling;
  std::string text = fmt::format(
      "\n Who supplied the lines requested by '{}' (machine {}; counted exactly)\n\n"
      "{:>20}      line requests (RTS, RTSA, RTO)\n{:>20}      supplied by memory ({:.1f} %)\n"
      "{:>20}      supplied by another CPU's cache ({:.1f} %)\n",
      s.program, s.machine, withCommas(r.requests), withCommas(r.from_memory),
      report.from_memory_percent, withCommas(r.from_cache), report.from_cache_percent);
  text += fmt::format(
      "\n Sampled every {} cycles: {} of {} requests and upgrades seen ({:.1f} %), {} lost "
      "between samples\n\n {:<18} {:>10} {:>10} {:>10}  {}\n",
      withCommas(s.interval), withCommas(s.taken), withCommas(s.matched), report.seen_percent,
      withCommas(s.lost), "source", "from mem", "from cache", "owns", "suppliers (cpu:lines)");
  for (const auto& [source, seen] : r.sources) {
    text += fmt::format(" {:<18} {:>10} {:>10} {:>10}  {}\n",
                        fmt::format("cpu {} (board {})", source, source / r.cpus_per_board),
                        withCommas(seen.from_memory), withCommas(seen.from_cache),
                        withCommas(seen.owns), suppliersText(seen.suppliers));
  }
  text += fmt::format("\n Lines shared by CPUs, one writing: {} seen; the busiest:\n\n",
                      report.shared.count);
  for (const SharedLine& l : report.shared.top) {
    text += fmt::format(
        " {:#x} (virtual {:#x}): {} reads, {} ownership requests, {} from another cache; "
        "readers {}; writers {}\n",
        l.address, l.virtual_address, l.line.reads, l.line.writes, l.line.from_cache,
        fmt::join(l.line.readers, ","), fmt::join(l.line.writers, ","));
  }
  return text + "\n";
}

nlohmann::json c2cJson(const FireplaneReport& report) {
  const FireplaneRecords& r = report.records;
  const C2cSampling& s = r.sampling;
  nlohmann::json out = {{"machine", s.machine},
                        {"cycles", s.cycles},
                        {"requests", r.requests},
                        {"from_memory", r.from_memory},
                        {"from_cache", r.from_cache},
                        {"sampled", s.taken},
                        {"lost", s.lost},
                        {"matched", s.matched},
                        {"shared_lines", report.shared.count}};
  nlohmann::json by_source = nlohmann::json::array();
  for (const auto& [source, seen] : r.sources) {
    nlohmann::json suppliers = nlohmann::json::object();
    for (const auto& [cpu, n] : seen.suppliers) suppliers[std::to_string(cpu)] = n;
    by_source.push_back({{"source", source},
                         {"from_memory", seen.from_memory},
                         {"from_cache", seen.from_cache},
                         {"owns", seen.owns},
                         {"suppliers", suppliers}});
  }
  out["sources"] = by_source;
  nlohmann::json hot = nlohmann::json::array();
  for (const SharedLine& l : report.shared.top) {
    hot.push_back({{"address", l.address},
                   {"virtual", l.virtual_address},
                   {"reads", l.line.reads},
                   {"ownership_requests", l.line.writes},
                   {"from_cache", l.line.from_cache},
                   {"readers", l.line.readers},
                   {"writers", l.line.writers}});
  }
  out["shared"] = hot;
  return out;
}

}  // namespace hpm::tools
