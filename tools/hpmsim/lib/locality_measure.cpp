#include "tools/hpmsim/lib/locality_measure.h"

#include <algorithm>
#include <bit>
#include <optional>
#include <string>

#include "base/error.h"
#include "kernel/vma.h"
#include "mem/frames.h"
#include "mem/mem_params.h"
#include "node/simulation.h"
#include "tools/hpmsim/lib/imon_host.h"
#include "tools/hpmsim/lib/interconnect_tool.h"

namespace hpm::tools {

using probe::TransactionType;

u64 coherentTypes() {
  return typeBit(TransactionType::kReadToShare) | typeBit(TransactionType::kReadToShareAlways) |
         typeBit(TransactionType::kReadToOwn) | typeBit(TransactionType::kReadToOwnUpgrade) |
         typeBit(TransactionType::kWriteBack);
}

Boards localityBoards(const MachineConfig& machine) {
  if (machine.node.interconnect != probe::Interconnect::kFireplane) {
    fail(ExitCode::kUsage,
         "locality: machine {} has no boards (node.interconnect = crossbar): its memory is one "
         "node's; "
         "try --machine sunfire",
         machine.name);
  }
  Boards b;
  b.boards = machine.timing.fireplane.boards;
  b.cpus_per_board = (machine.node.cores + b.boards - 1) / b.boards;
  b.threads_per_board = b.cpus_per_board * machine.node.threads_per_core;
  if (!std::has_single_bit(b.threads_per_board)) {
    fail(ExitCode::kUsage,
         "locality: {} hardware threads per board: the source trits select a board only when "
         "that is a power of two",
         b.threads_per_board);
  }
  return b;
}

std::vector<PairRecord> boardPairs(u32 boards) {
  std::vector<PairRecord> pairs;
  for (u32 r = 0; r < boards; ++r) {
    for (u32 h = 0; h < boards; ++h) {
      pairs.push_back({.requester = r, .home = h, .counted = 0, .observed = 0});
    }
  }
  return pairs;
}

u32 pairCounters(u32 counters, u32 pairs) {
  return std::min<u32>(counters - 2, pairs);
}

imon::Filter pairFilter(const PairRecord& pair, const Boards& boards) {
  const u32 board_bits = static_cast<u32>(std::bit_width(boards.boards - 1u));
  const u32 cpu_bits = static_cast<u32>(std::countr_zero(boards.threads_per_board));
  imon::Filter f = typeFilter(coherentTypes());
  // The home board's bits, and every address bit above the board's offset but those: below
  // kBoardShift is the offset in the board's memory, which any address may have.
  const u64 board_mask = ((u64{1} << std::max(board_bits, 1u)) - 1) << mem::kBoardShift;
  f.addr_match = u64{pair.home} << mem::kBoardShift;
  f.addr_mask = board_mask | (((u64{1} << mem::kPhysicalAddressBits) - 1) &
                              ~((u64{1} << mem::kBoardShift) - 1) & ~board_mask);
  f.id_match = imon::Filter::idWord(pair.requester << cpu_bits, 0);
  f.id_mask = imon::Filter::idWord(0xffffu & ~((1u << cpu_bits) - 1), 0);
  return f;
}

LocalityRun measureLocality(const Session& session, const RunOptions& ro, u64 interval,
                            u64 rotation) {
  const MachineConfig& machine = session.machine;
  const Boards boards = localityBoards(machine);
  Simulation sim(machine, ro);
  ImonHost unit(sim, "locality");
  if (unit.counters() < 4) {
    fail(ExitCode::kUsage, "locality: needs two monitors (imon.monitors >= 2)");
  }

  // The records, and the run's figures that need no sample.
  LocalityRecords records;
  records.program = commandLine(session);
  records.machine = machine.name;
  records.placement = std::string(mem::placementName(machine.timing.fireplane.placement));
  records.boards = boards.boards;
  records.cpus_per_board = boards.cpus_per_board;
  records.rotation = rotation;
  records.interval = interval;

  // Monitor 0: counter 0 every coherent transaction (the exact total), counter 1 the same,
  // feeding the FIFO. Counters 2 on: board pairs.
  const imon::Filter all = typeFilter(coherentTypes());
  unit.program(0, all, 0);
  unit.program(1, all, 0);
  unit.enableFifo(0, 0);
  std::vector<PairRecord>& pairs = records.pairs;
  pairs = boardPairs(boards.boards);
  const u32 pair_count = static_cast<u32>(pairs.size());
  const u32 pair_counters = pairCounters(unit.counters(), pair_count);
  records.pair_counters = pair_counters;
  const bool rotating = pair_counters < pair_count;
  u64 round = 0;
  const auto pairOf = [&](u32 c) -> PairRecord& {
    return pairs[rotatedItem(round, c, pair_counters, pair_count)];
  };
  for (u32 c = 0; c < pair_counters; ++c) unit.program(2 + c, pairFilter(pairOf(c), boards), 0);
  unit.run(monitorsOf(2 + pair_counters), 0);

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
      countTraffic(region, mem::FrameTable::homeBoard(t.address),
                   t.source / boards.threads_per_board);
    }
  };
  const auto rotate = [&](Cycle now) {
    for (u32 c = 0; c < pair_counters; ++c) {
      PairRecord& p = pairOf(c);
      p.counted += unit.read(2 + c, now);
      p.observed += now - last_rotation;
    }
    last_rotation = now;
    if (!rotating) {  // the same pairs go on: count from zero again
      for (u32 c = 0; c < pair_counters; ++c) unit.clear(2 + c, now);
      return;
    }
    ++round;
    for (u32 c = 0; c < pair_counters; ++c) {
      unit.program(2 + c, pairFilter(pairOf(c), boards), now);
    }
  };
  // One hook at the finer of the two intervals: the FIFO every sampling interval, the pairs
  // every rotation.
  sim.setIntervalHook(std::min(interval, rotation), [&](Cycle now) {
    sampleFifo(now);
    if (now - last_rotation >= rotation) rotate(now);
  });
  runSessionProgram(sim, session);
  const Cycle end = sim.elapsedCycles();
  sampleFifo(end);
  rotate(end);
  records.cycles = end;
  records.coherent = unit.read(0, end);
  records.matched = unit.read(1, end);
  return {.records = std::move(records), .status = sim.kernel().termination().status};
}

}  // namespace hpm::tools
