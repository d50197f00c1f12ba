// `hpmsim locality`: seed 004's locality analysis (section 4.3) on a machine with boards (a
// Fireplane bus, docs/sunfire.md). The histogramming counters count the coherent transactions
// (RTS, RTSA, RTO, RTOU, WB) by requester board against home board: the address trits select the
// home board's memory (physical address bits 39:37), the source trits the requesting CPUs'
// board. When the unit has fewer counters than board pairs, the pairs rotate through the
// counters every interval (time multiplexing, as the seed does) and each pair's count is
// scaled by the share of the run it was watched; with enough counters every pair is counted
// exactly. The sequence FIFO, filtered to the same transactions and sampled every interval,
// attributes local and remote traffic to the process's address regions (physical addresses
// mapped back to virtual pages): the regions with the most remote traffic are where placement
// (first touch, interleaving) or the initialisation of the data matters.
#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "kernel/vma.h"
#include "mem/mem_params.h"
#include "node/machine.h"
#include "node/simulation.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/lib/imon_host.h"
#include "tools/hpmsim/lib/interconnect_tool.h"
#include "tools/hpmsim/lib/output.h"

namespace hpm::tools {
namespace {

using probe::TransactionType;

struct LocalityOptions {
  SessionOptions run;
  FifoSampling sampling{1000, 5, false, {}, 0, 0};
  u64 rotation = 10000;  // cycles per pair setting when the pairs rotate
};

constexpr u64 bit(TransactionType t) {
  return u64{1} << static_cast<u32>(t);
}
constexpr u64 kCoherent =
    bit(TransactionType::kReadToShare) | bit(TransactionType::kReadToShareAlways) |
    bit(TransactionType::kReadToOwn) | bit(TransactionType::kReadToOwnUpgrade) |
    bit(TransactionType::kWriteBack);

// One (requester board, home board) pair's counting.
struct Pair {
  u32 requester = 0, home = 0;
  u64 counted = 0;   // transactions counted while a counter watched the pair
  u64 observed = 0;  // cycles a counter watched it
};

// An address region (a mapping of the process) and the sampled traffic to it.
struct RegionSeen {
  std::string segment;
  u64 start = 0, end = 0;
  u64 local = 0, remote = 0;
  std::map<u32, u64> remote_from;  // requester board -> remote records
  std::map<u32, u64> homes;        // home board -> records
};

std::string segmentName(const Vma& v) {
  if (v.name.empty()) return "[anonymous]";
  if (v.name.starts_with("[")) return v.name;
  const std::string file = std::filesystem::path(v.name).filename().string();
  return file + ((v.perm & GuestMemory::kExec) != 0 ? " (text)" : " (data)");
}

// (Takes a copy: the sampling interval is resolved at the machine's clock.)
int run(LocalityOptions opt) {
  const RunOptions ro = toolRunOptions(opt.run, "locality");
  if (opt.rotation == 0) fail(ExitCode::kUsage, "locality: --rotate must be at least 1 cycle");
  MachineConfig machine = loadMachine(opt.run.machine, opt.run.overrides);
  resolveFifoSampling(opt.sampling, machine, "locality");
  const mem::FireplaneParams& bus = machine.timing.fireplane;
  if (machine.node.interconnect != probe::Interconnect::kFireplane) {
    fail(ExitCode::kUsage,
         "locality: machine {} has no boards (node.interconnect = crossbar): its memory is one "
         "node's; "
         "try --machine sunfire",
         machine.name);
  }
  const u32 cores = machine.node.cores;
  const u32 per_board = (cores + bus.boards - 1) / bus.boards;
  // Sources are hardware threads: a board's are per_board x threads_per_core consecutive ids.
  const u32 threads_per_board = per_board * machine.node.threads_per_core;
  if (!std::has_single_bit(threads_per_board)) {
    fail(ExitCode::kUsage,
         "locality: {} hardware threads per board: the source trits select a board only when "
         "that is a power of two",
         threads_per_board);
  }
  Simulation sim(machine, ro);
  ImonHost unit(sim, "locality");
  if (unit.counters() < 4) {
    fail(ExitCode::kUsage, "locality: needs two monitors (imon.monitors >= 2)");
  }

  // Monitor 0: counter 0 every coherent transaction (the exact total), counter 1 the same,
  // feeding the FIFO. Counters 2 on: board pairs.
  imon::Filter all;
  all.types = kCoherent;
  unit.program(0, all, 0);
  unit.program(1, all, 0);
  unit.enableFifo(0, 0);
  std::vector<Pair> pairs;
  for (u32 r = 0; r < bus.boards; ++r) {
    for (u32 h = 0; h < bus.boards; ++h) pairs.push_back({r, h});
  }
  const u32 pair_counters = std::min<u32>(unit.counters() - 2, static_cast<u32>(pairs.size()));
  const bool rotating = pair_counters < pairs.size();
  const u32 board_bits = static_cast<u32>(std::bit_width(bus.boards - 1u));
  const u32 cpu_bits = static_cast<u32>(std::countr_zero(threads_per_board));
  const auto pairFilter = [&](const Pair& p) {
    imon::Filter f = all;
    const u64 board_mask = ((u64{1} << std::max(board_bits, 1u)) - 1) << mem::kBoardShift;
    f.addr_match = u64{p.home} << mem::kBoardShift;
    f.addr_mask = board_mask | (((u64{1} << mem::kPhysicalAddressBits) - 1) &
                                ~((u64{1} << mem::kBoardShift) - 1) & ~board_mask);
    f.id_match = imon::Filter::idWord(p.requester << cpu_bits, 0);
    f.id_mask = imon::Filter::idWord(0xffffu & ~((1u << cpu_bits) - 1), 0);
    return f;
  };
  u64 round = 0;
  const auto pairOf = [&](u32 c) { return (round * pair_counters + c) % pairs.size(); };
  for (u32 c = 0; c < pair_counters; ++c) unit.program(2 + c, pairFilter(pairs[pairOf(c)]), 0);
  u64 run_bits = 0;
  for (u32 c = 0; c < 2 + pair_counters; ++c) run_bits |= u64{1} << (c / imon::kCountersPerMonitor);
  unit.run(run_bits, 0);

  std::map<u64, RegionSeen> regions;  // by start
  u64 taken = 0, lost = 0, unmapped = 0;
  Cycle last_rotation = 0;
  const auto sampleFifo = [&](Cycle now) {
    for (const probe::Transaction& t : unit.sampleFifo(0, now, lost)) {
      ++taken;
      const std::optional<u64> va = sim.virtualOf(t.address);
      const Vma* v = va ? sim.kernel().memoryMap().find(*va) : nullptr;
      if (v == nullptr) {
        ++unmapped;
        continue;
      }
      RegionSeen& region = regions[v->start];
      if (region.segment.empty()) {
        region.segment = segmentName(*v);
        region.start = v->start;
        region.end = v->end;
      }
      const u32 home = mem::FrameTable::homeBoard(t.address);
      const u32 requester = t.source / threads_per_board;
      ++region.homes[home];
      if (home == requester) {
        ++region.local;
      } else {
        ++region.remote;
        ++region.remote_from[requester];
      }
    }
  };
  const auto rotate = [&](Cycle now) {
    for (u32 c = 0; c < pair_counters; ++c) {
      Pair& p = pairs[pairOf(c)];
      p.counted += unit.read(2 + c, now);
      p.observed += now - last_rotation;
    }
    last_rotation = now;
    if (!rotating) {  // the same pairs go on: count from zero again
      for (u32 c = 0; c < pair_counters; ++c) unit.clear(2 + c, now);
      return;
    }
    ++round;
    for (u32 c = 0; c < pair_counters; ++c) unit.program(2 + c, pairFilter(pairs[pairOf(c)]), now);
  };
  // One hook at the finer of the two intervals: the FIFO every sampling interval, the pairs
  // every rotation.
  const u64 tick = std::min(opt.sampling.interval, opt.rotation);
  sim.setIntervalHook(tick, [&](Cycle now) {
    sampleFifo(now);
    if (now - last_rotation >= opt.rotation) rotate(now);
  });
  runToolProgram(sim, opt.run);
  const Cycle end = sim.elapsedCycles();
  sampleFifo(end);
  rotate(end);
  const u64 total = unit.read(0, end), matched = unit.read(1, end);

  const auto estimate = [&](const Pair& p) {
    return p.observed == 0 ? 0.0
                           : static_cast<double>(p.counted) * static_cast<double>(end) /
                                 static_cast<double>(p.observed);
  };
  double remote_estimate = 0, sum_estimate = 0;
  for (const Pair& p : pairs) {
    sum_estimate += estimate(p);
    if (p.requester != p.home) remote_estimate += estimate(p);
  }
  const std::string program = fmt::format("{}", fmt::join(opt.run.command, " "));
  std::string text = fmt::format(
      "\n Coherent transactions (RTS, RTSA, RTO, RTOU, WB) of '{}' by requester board and home "
      "board (machine {}: {} boards of {} CPUs, placement {})\n {}\n\n",
      program, machine.name, bus.boards, per_board, mem::placementName(bus.placement),
      rotating ? fmt::format("{} counters rotated over {} board pairs every {} cycles: estimates "
                             "scaled by the share of the run each pair was watched",
                             pair_counters, pairs.size(), withCommas(opt.rotation))
               : fmt::format("every board pair on a counter of its own: exact counts"));
  text += fmt::format(" {:>16}", "requester\\home");
  for (u32 h = 0; h < bus.boards; ++h) text += fmt::format(" {:>12}", fmt::format("board {}", h));
  text += "\n";
  nlohmann::json matrix = nlohmann::json::array();
  for (u32 r = 0; r < bus.boards; ++r) {
    text += fmt::format(" {:>16}", fmt::format("board {}", r));
    for (u32 h = 0; h < bus.boards; ++h) {
      const Pair& p = pairs[r * bus.boards + h];
      text += fmt::format(" {:>12}", withCommas(static_cast<u64>(estimate(p) + 0.5)));
      matrix.push_back({{"requester", r},
                        {"home", h},
                        {"counted", p.counted},
                        {"observed_cycles", p.observed},
                        {"estimated", estimate(p)}});
    }
    text += "\n";
  }
  const double remote_share = sum_estimate > 0 ? 100.0 * remote_estimate / sum_estimate : 0.0;
  text += fmt::format(
      "\n {} coherent transactions (counted exactly), {:.1f} % remote (off the requester's "
      "board)\n",
      withCommas(total), remote_share);

  std::vector<const RegionSeen*> hottest;
  for (const auto& [start, region] : regions) hottest.push_back(&region);
  std::stable_sort(hottest.begin(), hottest.end(),
                   [](const RegionSeen* a, const RegionSeen* b) { return a->remote > b->remote; });
  if (hottest.size() > opt.sampling.top) hottest.resize(opt.sampling.top);
  text += fmt::format(
      "\n FIFO sampled every {} cycles: {} of {} records seen ({:.1f} %), {} lost between "
      "samples, {} of no mapped page\n Regions with the most remote traffic:\n\n"
      "   {:<28} {:<31} {:>9} {:>9}  {}\n",
      withCommas(opt.sampling.interval), withCommas(taken), withCommas(matched),
      matched ? 100.0 * static_cast<double>(taken) / static_cast<double>(matched) : 0.0,
      withCommas(lost), withCommas(unmapped), "segment", "virtual range", "local", "remote",
      "remote from boards; home boards");
  nlohmann::json hot = nlohmann::json::array();
  for (const RegionSeen* region : hottest) {
    std::string from, homes;
    nlohmann::json from_json = nlohmann::json::object(), homes_json = nlohmann::json::object();
    for (const auto& [b, n] : region->remote_from) {
      from += fmt::format("{}{}:{}", from.empty() ? "" : " ", b, n);
      from_json[std::to_string(b)] = n;
    }
    for (const auto& [b, n] : region->homes) {
      homes += fmt::format("{}{}:{}", homes.empty() ? "" : " ", b, n);
      homes_json[std::to_string(b)] = n;
    }
    text += fmt::format("   {:<28} {:#014x}-{:#014x} {:>9} {:>9}  {}; {}\n", region->segment,
                        region->start, region->end, withCommas(region->local),
                        withCommas(region->remote), from.empty() ? "-" : from, homes);
    hot.push_back({{"segment", region->segment},
                   {"start", region->start},
                   {"end", region->end},
                   {"local", region->local},
                   {"remote", region->remote},
                   {"remote_from", from_json},
                   {"homes", homes_json}});
  }
  text += "\n";
  const nlohmann::json out = {{"machine", machine.name},
                              {"cycles", end},
                              {"boards", bus.boards},
                              {"cpus_per_board", per_board},
                              {"coherent", total},
                              {"exact", !rotating},
                              {"rotation_cycles", opt.rotation},
                              {"matrix", matrix},
                              {"remote_percent", remote_share},
                              {"sampled", taken},
                              {"lost", lost},
                              {"matched", matched},
                              {"unmapped", unmapped},
                              {"regions", hot}};
  printReport(opt.sampling, out, text);
  return sim.kernel().termination().status;
}

}  // namespace

void addLocalityCommand(CLI::App& root, Action& selected) {
  auto opt = std::make_shared<LocalityOptions>();
  opt->run.machine = "sunfire";
  CLI::App* cmd = root.add_subcommand(
      "locality",
      "Coherent traffic by requester board and home board, and the address regions with the "
      "most remote traffic (seed 004's locality analysis; machines with boards: sunfire)");
  addSessionOptions(*cmd, opt->run, kToolSession);
  addFifoSampling(*cmd, opt->sampling, "regions with the most remote traffic");
  cmd->add_option("--rotate", opt->rotation,
                  "Cycles each board pair keeps a counter when the pairs rotate (the unit has "
                  "fewer counters than pairs)")
      ->capture_default_str();
  addSessionProgram(*cmd, opt->run, kToolSession);
  cmd->callback([opt, &selected] { selected = [opt] { return run(*opt); }; });
}

}  // namespace hpm::tools
