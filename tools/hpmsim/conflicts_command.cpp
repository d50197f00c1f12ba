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
#include <csignal>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "hart/memory.h"
#include "kernel/vma.h"
#include "node/machine.h"
#include "node/simulation.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/guest_env.h"
#include "tools/hpmsim/imon_host.h"
#include "tools/hpmsim/interrupt.h"
#include "tools/hpmsim/output.h"
#include "tools/hpmsim/program_path.h"

namespace hpm::tools {
namespace {

struct ConflictsOptions {
  std::string machine = "bgq";
  std::string mode = "timing";
  std::vector<std::string> overrides;
  u64 interval = 1000;
  u32 top = 3;
  bool json = false;
  std::string csv;
  std::string root = ".";
  GuestEnvOptions env;
  std::vector<std::string> command;
};

constexpr u64 kPageBytes = GuestMemory::kPageSize;

std::string withCommas(u64 v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3)
    s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

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
  std::string segment;
};
struct BlockSeen {
  u64 writebacks = 0;
  std::map<u64, PageSeen> pages;
  std::map<u64, u64> addresses;
};

int run(const ConflictsOptions& opt) {
  if (opt.command.empty()) fail(ExitCode::kUsage, "conflicts: no program given (-- PROGRAM)");
  const auto mode = parseRunMode(opt.mode);
  if (!mode || *mode == RunMode::kFunctional || *mode == RunMode::kProfile) {
    fail(ExitCode::kUsage, "conflicts: --mode must be timing or warmup");
  }
  if (opt.interval == 0) fail(ExitCode::kUsage, "conflicts: --interval must be at least 1");
  MachineConfig machine = loadMachine(opt.machine, opt.overrides);
  if (!opt.csv.empty()) requireWritable(opt.csv);
  RunOptions ro;
  ro.mode = *mode;
  ro.root = opt.root;
  std::signal(SIGPIPE, SIG_IGN);
  Simulation sim(machine, ro);
  ImonHost unit(sim, "conflicts");

  // Counter 0 counts every writeback (the exact total), counter 1 the same and feeds FIFO 0.
  imon::Filter writebacks;
  writebacks.types = u64{1} << static_cast<u32>(probe::TransactionType::kMemWrite);
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
      if (p.writebacks++ == 0) p.segment = segmentOf(sim.kernel().memoryMap(), t.address);
    }
  };
  sim.setIntervalHook(opt.interval, sample);
  sim.exec(resolveProgram(opt.command[0]), opt.command, guestEnvironment(opt.env));
  sim.kernel().setInterruptSource(pendingInterrupt);
  sim.run();
  const Cycle end = sim.elapsedCycles();
  sample(end);
  const u64 total = unit.read(0, end);
  const Termination& term = sim.kernel().termination();
  std::fflush(stdout);

  const mem::L2Params& l2 = machine.timing.l2;
  const u32 sets = l2.setsPerSlice();
  std::vector<std::pair<u32, const BlockSeen*>> hottest;
  for (const auto& [block, seen] : blocks) hottest.emplace_back(block, &seen);
  std::stable_sort(hottest.begin(), hottest.end(), [](const auto& a, const auto& b) {
    return a.second->writebacks > b.second->writebacks;
  });
  if (hottest.size() > opt.top) hottest.resize(opt.top);

  const std::string program = fmt::format("{}", fmt::join(opt.command, " "));
  std::string text = fmt::format(
      "\n Writebacks of '{}' (machine {}: the L2 as the external cache, {} slices x {} sets of {} "
      "ways, {}-byte lines; physical addresses are virtual ones on this node)\n"
      " FIFO sampled every {} cycles: {} of {} writebacks seen ({:.1f} %), {} lost between "
      "samples; {} blocks had one\n",
      program, machine.name, l2.slices, sets, l2.ways, l2.line_bytes, withCommas(opt.interval),
      withCommas(taken), withCommas(total),
      total ? 100.0 * static_cast<double>(taken) / static_cast<double>(total) : 0.0,
      withCommas(lost), withCommas(blocks.size()));
  nlohmann::json out = {{"machine", machine.name},
                        {"cycles", end},
                        {"writebacks", total},
                        {"taken", taken},
                        {"lost", lost},
                        {"blocks", blocks.size()},
                        {"sets_per_slice", sets},
                        {"interval", opt.interval}};
  nlohmann::json hot = nlohmann::json::array();
  for (const auto& [block, seen] : hottest) {
    text += fmt::format("\n CacheBlock: {} (slice {}, set {})    Writebacks: {}\n", block,
                        block / sets, block % sets, withCommas(seen->writebacks));
    text += fmt::format(" Writebacks by Page ({} pages):\n", seen->pages.size());
    text += fmt::format("   {:<20} {:>8}  {:<20} {}\n", "Physical Page", "# WBs", "Virtual Page",
                        "Segment");
    nlohmann::json pages = nlohmann::json::array();
    for (const auto& [page, p] : seen->pages) {
      text += fmt::format("   {:<#20x} {:>8}  {:<#20x} {}\n", page, p.writebacks, page, p.segment);
      pages.push_back({{"page", page}, {"writebacks", p.writebacks}, {"segment", p.segment}});
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
  if (opt.json) {
    fmt::print(stderr, "{}\n", out.dump(2));
  } else {
    fmt::print(stderr, "{}", text);
  }
  return term.status;
}

}  // namespace

void addConflictsCommand(CLI::App& root, Action& selected) {
  auto opt = std::make_shared<ConflictsOptions>();
  CLI::App* cmd = root.add_subcommand(
      "conflicts",
      "Find the cache blocks with the most writebacks by sampling the interconnect monitor's "
      "FIFO (seed 004's cache-conflict tool)");
  cmd->add_option("--machine", opt->machine, "Machine preset or TOML file")->capture_default_str();
  cmd->add_option("--mode", opt->mode, "Run mode: timing or warmup")->capture_default_str();
  cmd->add_option("--set", opt->overrides, "Override a configuration parameter (KEY=VALUE)")
      ->allow_extra_args(false);
  cmd->add_option("-I,--interval", opt->interval, "Sample the FIFO every N cycles")
      ->capture_default_str();
  cmd->add_option("--top", opt->top, "Report this many of the hottest blocks")
      ->capture_default_str();
  cmd->add_option("--csv", opt->csv, "Write the writebacks seen per block as CSV");
  cmd->add_flag("--json", opt->json, "Print a JSON object instead of the report");
  cmd->add_option("--root", opt->root, "Directory the guest sees as /");
  addGuestEnvOptions(*cmd, opt->env);
  cmd->add_option("command", opt->command, "PROGRAM [ARGS...], after --")->required();
  cmd->positionals_at_end();
  cmd->callback([opt, &selected] { selected = [opt] { return run(*opt); }; });
}

}  // namespace hpm::tools
