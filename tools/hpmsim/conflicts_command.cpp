// `hpmsim conflicts`: seed 004's cache-conflict tool (section 4.1, Figures 4 and 5) on the
// interconnect monitor. It filters the sequence FIFO to writebacks (a dirty line leaving the
// cache whose misses the interconnect carries: bgq's L2, writing back to DDR), samples it every
// interval, and counts the writebacks it saw by cache block (the set a line competes for), by page
// and by address, naming each page's segment (the process's mapping when it was sampled). The
// hottest blocks say whether their writebacks are capacity misses (many pages, a few each) or
// conflicts (a few addresses contending for one set). Sampling is honest: the FIFO's lost records
// are counted, and the report says how much of the stream it saw.
#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "hart/memory.h"
#include "kernel/vma.h"
#include "node/machine.h"
#include "node/simulation.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/lib/imon_host.h"
#include "tools/hpmsim/lib/interconnect_tool.h"
#include "tools/hpmsim/lib/output.h"

namespace hpm::tools {
namespace {

struct ConflictsOptions {
  SessionOptions run;
  FifoSampling sampling{1000, 3, false, {}, 0, 0};
  std::string csv;
};

constexpr u64 kPageBytes = GuestMemory::kPageSize;

// The segment `addr` belongs to in the process's mappings now.
std::string segmentOf(const VmaMap& map, u64 addr) {
  const Vma* v = map.find(addr);
  if (v == nullptr) return "(unmapped)";
  if (v->name.empty()) return "[anonymous]";
  if (v->name.starts_with("[")) return v->name;
  const std::string file = std::filesystem::path(v->name).filename().string();
  return file + ((v->perm & GuestMemory::kExec) != 0 ? " (text)" : " (data)");
}

struct PageSeen {
  u64 writebacks = 0;
  u64 virtual_page = 0;
  std::string segment;
};
struct BlockSeen {
  u64 writebacks = 0;
  std::map<u64, PageSeen> pages;
  std::map<u64, u64> addresses;
};

// (Takes a copy: the sampling interval is resolved at the machine's clock.)
int run(ConflictsOptions opt) {
  const RunOptions ro = toolRunOptions(opt.run, "conflicts");
  MachineConfig machine = loadMachine(opt.run.machine, opt.run.overrides);
  resolveFifoSampling(opt.sampling, machine, "conflicts");
  RunFiles files;
  files.input(opt.run.command.empty() ? "" : opt.run.command[0], "the program");
  files.output(opt.csv, "--csv", !opt.csv.empty());
  files.output(opt.sampling.output, "-o", !opt.sampling.output.empty());
  files.check();
  Simulation sim(machine, ro);
  ImonHost unit(sim, "conflicts");

  // Counter 0 counts every writeback (the exact total), counter 1 the same and feeds FIFO 0: on
  // the crossbar an L2 slice's writeback to DDR, on Fireplane an external cache's WriteBack.
  const bool fireplane = machine.node.interconnect == probe::Interconnect::kFireplane;
  imon::Filter writebacks;
  writebacks.types = u64{1} << static_cast<u32>(fireplane ? probe::TransactionType::kWriteBack
                                                          : probe::TransactionType::kMemWrite);
  unit.program(0, writebacks, 0);
  unit.program(1, writebacks, 0);
  unit.enableFifo(0, 0);
  unit.run(1, 0);

  std::map<u32, BlockSeen> blocks;
  u64 taken = 0, lost = 0;
  auto sample = [&](Cycle now) {
    for (const probe::Transaction& t : unit.sampleFifo(0, now, lost)) {
      ++taken;
      BlockSeen& b = blocks[*sim.cacheBlockOf(t.address)];
      ++b.writebacks;
      ++b.addresses[t.address];
      PageSeen& p = b.pages[t.address / kPageBytes * kPageBytes];
      if (p.writebacks++ == 0) {
        const std::optional<u64> va = sim.virtualOf(t.address);
        p.virtual_page = va ? *va / kPageBytes * kPageBytes : 0;
        p.segment = va ? segmentOf(sim.kernel().memoryMap(), *va) : "(no page)";
      }
    }
  };
  sim.setIntervalHook(opt.sampling.interval, sample);
  runToolProgram(sim, opt.run);
  const Cycle end = sim.elapsedCycles();
  sample(end);
  const u64 total = unit.read(0, end);
  const Termination& term = sim.kernel().termination();

  const mem::L2Params& l2 = machine.timing.l2;
  const mem::FireplaneParams& ecache = machine.timing.fireplane;
  // Fireplane: a block is a set of the CPUs' (equal) external caches.
  const u32 sets = timingParamsFor(machine).memParams().l2SetsPerInstance();
  const std::string cache =
      fireplane ? fmt::format(
                      "each CPU's external cache, {} sets of {} ways, {}-byte lines; "
                      "physical addresses are frames on the boards",
                      sets, ecache.ecache_ways, ecache.line_bytes)
                : fmt::format(
                      "the L2 as the external cache, {} slices x {} sets of {} ways, "
                      "{}-byte lines; physical addresses are virtual ones on this node",
                      l2.slices, sets, l2.ways, l2.line_bytes);
  std::vector<std::pair<u32, const BlockSeen*>> hottest;
  for (const auto& [block, seen] : blocks) hottest.emplace_back(block, &seen);
  std::stable_sort(hottest.begin(), hottest.end(), [](const auto& a, const auto& b) {
    return a.second->writebacks > b.second->writebacks;
  });
  if (hottest.size() > opt.sampling.top) hottest.resize(opt.sampling.top);

  const std::string program = fmt::format("{}", fmt::join(opt.run.command, " "));
  std::string text = fmt::format(
      "\n Writebacks of '{}' (machine {}: {})\n"
      " FIFO sampled every {} cycles: {} of {} writebacks seen ({:.1f} %), {} lost between "
      "samples; {} blocks had one\n",
      program, machine.name, cache, withCommas(opt.sampling.interval), withCommas(taken),
      withCommas(total),
      total ? 100.0 * static_cast<double>(taken) / static_cast<double>(total) : 0.0,
      withCommas(lost), withCommas(blocks.size()));
  nlohmann::json out = {{"machine", machine.name},
                        {"cycles", end},
                        {"writebacks", total},
                        {"taken", taken},
                        {"lost", lost},
                        {"blocks", blocks.size()},
                        {"sets_per_slice", sets},
                        {"interval", opt.sampling.interval}};
  nlohmann::json hot = nlohmann::json::array();
  for (const auto& [block, seen] : hottest) {
    text += fmt::format("\n CacheBlock: {} (slice {}, set {})    Writebacks: {}\n", block,
                        block / sets, block % sets, withCommas(seen->writebacks));
    text += fmt::format(" Writebacks by Page ({} pages):\n", seen->pages.size());
    text += fmt::format("   {:<20} {:>8}  {:<20} {}\n", "Physical Page", "# WBs", "Virtual Page",
                        "Segment");
    nlohmann::json pages = nlohmann::json::array();
    for (const auto& [page, p] : seen->pages) {
      text += fmt::format("   {:<#20x} {:>8}  {:<#20x} {}\n", page, p.writebacks, p.virtual_page,
                          p.segment);
      pages.push_back({{"page", page},
                       {"virtual_page", p.virtual_page},
                       {"writebacks", p.writebacks},
                       {"segment", p.segment}});
    }
    text += fmt::format(" Writebacks by Address ({} addresses):\n", seen->addresses.size());
    text += fmt::format("   {:<20} {:>8}  {}\n", "Physical Address", "# WB", "Physical Page");
    nlohmann::json addresses = nlohmann::json::array();
    for (const auto& [address, n] : seen->addresses) {
      text +=
          fmt::format("   {:<#20x} {:>8}  {:#x}\n", address, n, address / kPageBytes * kPageBytes);
      addresses.push_back({{"address", address}, {"writebacks", n}});
    }
    hot.push_back({{"block", block},
                   {"slice", block / sets},
                   {"set", block % sets},
                   {"writebacks", seen->writebacks},
                   {"pages", pages},
                   {"addresses", addresses}});
  }
  text += "\n";
  out["hottest"] = hot;
  if (!opt.csv.empty()) {
    // Per block, for a scatter plot as the seed's Figure 4.
    std::string csv = "block,slice,set,writebacks\n";
    for (const auto& [block, seen] : blocks) {
      csv += fmt::format("{},{},{},{}\n", block, block / sets, block % sets, seen.writebacks);
    }
    writeTextFile(opt.csv, csv);
  }
  printReport(opt.sampling, out, text);
  return term.status;
}

}  // namespace

void addConflictsCommand(CLI::App& root, Action& selected) {
  auto opt = std::make_shared<ConflictsOptions>();
  CLI::App* cmd = root.add_subcommand(
      "conflicts",
      "Find the cache blocks with the most writebacks by sampling the interconnect monitor's "
      "FIFO (seed 004's cache-conflict tool)");
  addSessionOptions(*cmd, opt->run, kToolSession);
  addFifoSampling(*cmd, opt->sampling, "hottest blocks");
  cmd->add_option("--csv", opt->csv, "Write the writebacks seen per block as CSV");
  addSessionProgram(*cmd, opt->run, kToolSession);
  cmd->callback([opt, &selected] { selected = [opt] { return run(*opt); }; });
}

}  // namespace hpm::tools
