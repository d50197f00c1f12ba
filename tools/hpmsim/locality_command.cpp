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
#include <utility>

#include "base/error.h"
#include "kernel/vma.h"
#include "mem/mem_params.h"
#include "node/machine.h"
#include "node/simulation.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/lib/imon_host.h"
#include "tools/hpmsim/lib/interconnect_tool.h"
#include "tools/hpmsim/lib/locality_analysis.h"
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

// (Takes a copy: the sampling interval is resolved at the machine's clock.)
int run(LocalityOptions opt) {
  Session session = openSession(opt.run, "locality", kToolSession);
  const RunOptions ro = toolRunOptions(session);
  if (opt.rotation == 0) fail(ExitCode::kUsage, "locality: --rotate must be at least 1 cycle");
  MachineConfig& machine = session.machine;
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

  // The records (locality_analysis.h), and the run's figures that need no sample.
  LocalityRecords records;
  records.program = fmt::format("{}", fmt::join(opt.run.command, " "));
  records.machine = machine.name;
  records.placement = std::string(mem::placementName(bus.placement));
  records.boards = bus.boards;
  records.cpus_per_board = per_board;
  records.rotation = opt.rotation;
  records.interval = opt.sampling.interval;

  // Monitor 0: counter 0 every coherent transaction (the exact total), counter 1 the same,
  // feeding the FIFO. Counters 2 on: board pairs.
  imon::Filter all;
  all.types = kCoherent;
  unit.program(0, all, 0);
  unit.program(1, all, 0);
  unit.enableFifo(0, 0);
  std::vector<PairRecord>& pairs = records.pairs;
  for (u32 r = 0; r < bus.boards; ++r) {
    for (u32 h = 0; h < bus.boards; ++h) {
      pairs.push_back({.requester = r, .home = h, .counted = 0, .observed = 0});
    }
  }
  const u32 pair_counters = std::min<u32>(unit.counters() - 2, static_cast<u32>(pairs.size()));
  records.pair_counters = pair_counters;
  const bool rotating = pair_counters < pairs.size();
  const u32 board_bits = static_cast<u32>(std::bit_width(bus.boards - 1u));
  const u32 cpu_bits = static_cast<u32>(std::countr_zero(threads_per_board));
  const auto pairFilter = [&](const PairRecord& p) {
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

  Cycle last_rotation = 0;
  const auto sampleFifo = [&](Cycle now) {
    for (const probe::Transaction& t : unit.sampleFifo(0, now, records.lost)) {
      ++records.taken;
      const std::optional<u64> va = sim.virtualOf(t.address);
      const Vma* v = va ? sim.kernel().memoryMap().find(*va) : nullptr;
      if (v == nullptr) {
        ++records.unmapped;
        continue;
      }
      RegionRecord& region = records.regions[v->start];
      if (region.segment.empty()) {
        region.segment = segmentName(*v);
        region.start = v->start;
        region.end = v->end;
      }
      countTraffic(region, mem::FrameTable::homeBoard(t.address), t.source / threads_per_board);
    }
  };
  const auto rotate = [&](Cycle now) {
    for (u32 c = 0; c < pair_counters; ++c) {
      PairRecord& p = pairs[pairOf(c)];
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
  runSessionProgram(sim, session);
  const Cycle end = sim.elapsedCycles();
  sampleFifo(end);
  rotate(end);
  records.cycles = end;
  records.coherent = unit.read(0, end);
  records.matched = unit.read(1, end);

  const LocalityReport report = localityReport(std::move(records), opt.sampling.top);
  printReport(opt.sampling, localityJson(report), localityText(report));
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
  cmd->callback([opt, &selected] {
    placeOutputs(opt->run, {&opt->sampling.output});
    selected = [opt] { return run(*opt); };
  });
}

}  // namespace hpm::tools
