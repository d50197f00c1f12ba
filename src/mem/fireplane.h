// The Fireplane bus (interconnect.h; node.interconnect = "fireplane", section [fireplane];
// sunfire, seed 004, docs/sunfire.md): each CPU's external cache (E$) is private, physically
// indexed and write-back, and the caches keep coherent by snooping MOESI transactions on one
// address bus; memory sits on the CPU/memory boards, and guest pages get physical frames there
// (frames.h). Its statistics are its own: "ecaches" (one per CPU), "memory_controllers" (per
// board), each core's "ecache_*" and "memory_*" traffic, and the bus's.
#pragma once

#include <memory>
#include <vector>

#include "mem/interconnect_base.h"

namespace hpm::mem {

// The address bus's occupancy and where the lines its reads and ownership requests asked for
// came from.
struct BusStats {
  u64 busy_cycles = 0;          // cycles the address bus was taken
  u64 data_busy_cycles = 0;     // cycles the boards' data ports were taken, over every board
  u64 cache_to_cache = 0;       // lines another cache supplied
  u64 memory_local = 0;         // lines memory on the requester's board supplied
  u64 memory_remote = 0;        // lines memory on another board supplied
  u64 writebacks_local = 0;     // writebacks to memory on the evicting CPU's board
  u64 writebacks_remote = 0;    // writebacks to another board's memory
  u64 snoop_invalidations = 0;  // external-cache lines other CPUs' ownership requests removed
  void visit(stats::Visitor& v) const;
};

class Fireplane final : public InterconnectBase {
 public:
  Fireplane(const MemParams& p, PrivateCaches& caches);

  Cycle read(u32 core, u64 line, Cycle p, Request request, bool timed, Level* level) override;
  Cycle probeRead(u32 core, u64 line, Cycle p) const override;
  Cycle own(u32 core, u64 line, Cycle p, bool timed) override {
    return ownLine(core, line, 8, p, Request::kAtomic, timed);
  }
  // (The drain's ownership request keeps the caches coherent.)
  void storeIssued(u32 core, u64 line) override {
    (void)core;
    (void)line;
  }
  // The store drains into the core's own E$ (any address).
  Cycle drainFree(u32 core, u64 line, Cycle earliest) const override {
    (void)line;
    return std::max(earliest, slices_[core].free);
  }
  Cycle drain(u32 core, u64 line, u32 bytes, Cycle start, bool timed) override {
    return ownLine(core, line, bytes, start, Request::kData, timed);
  }
  void drainCombined(u32 core, u64 line, u32 bytes) override;
  void deviceAccess(u64 addr, bool write) override;
  // (The bus has no device that reads or writes memory: nothing.)
  void deviceLines(u64 addr, u64 bytes, Cycle at, bool write, bool timed,
                   std::vector<DeviceLineTimes>* times) override;
  // `addr` is physical; the block is the set of every E$.
  u32 block(u64 addr) const override {
    return static_cast<u32>((addr >> shift_) & (slices_[0].cache.sets() - 1));
  }
  // One of the controllers of the line's home board.
  u32 controllerOf(u64 addr) const override {
    return FrameTable::homeBoard(addr) * p_.ddr.controllers + controllerWithin(addr >> shift_);
  }
  FrameTable* frames() override { return frames_.get(); }
  void visitCoreTraffic(u32 core, stats::Visitor& v) const override;
  void visitSharedStats(stats::Visitor& v) const override;

  const BusStats& busStats() const { return bus_stats_; }

 private:
  // What the other external caches' snoop of a request for `line` found and did.
  struct SnoopOutcome {
    probe::Snoop snoop = probe::Snoop::kMemory;
    bool others = false;                // another cache keeps a copy (after a ReadToShare)
    u32 supplier = probe::kNoSupplier;  // the CPU whose M or O copy supplied the line
  };
  // Snoops every external cache but core's: a ReadToShare (own false) turns M into O and E into
  // S; an ownership request (own true) invalidates every copy (their L1 copies with them).
  SnoopOutcome snoopOthers(u32 core, u64 line, bool own);
  // Takes the address bus for one transaction from `p` (waiting when `waits`): its start.
  Cycle busSlot(Cycle p, bool timed, bool waits);
  // The data of a line for core's bus transaction that started at `bstart`: another cache's
  // (snoop Owned/Modified) or its home board's memory. `waits`: the memory controller queues it.
  Cycle busData(u32 core, u64 line, Cycle bstart, probe::Snoop snoop, bool timed, bool waits);
  // Frees a slot of core's external cache for `line`: the victim's writeback (a WB
  // transaction) when it is M or O, and its L1 copies (inclusion).
  u32 victim(u32 core, u64 line, Cycle at, bool timed);
  // A store drain (kData) or atomic (kAtomic): the line in M in core's external cache.
  // Returns when the write is done (a store) or the old value is ready (an atomic).
  Cycle ownLine(u32 core, u64 line, u32 bytes, Cycle p, Request request, bool timed);
  Cycle memoryLatency(u32 core, u64 line) const;
  // Whether line's home board is not core's.
  bool remote(u32 core, u64 line) const {
    return FrameTable::homeBoard(line << shift_) != board_of_[core];
  }
  // A line transfer through `board`'s data port that would arrive at `arrival` (waiting for the
  // port when `waits`): when it arrives.
  Cycle dataPort(u32 board, Cycle arrival, bool timed, bool waits);

  const FireplaneParams& f_;
  std::unique_ptr<FrameTable> frames_;  // guest pages' physical frames
  Cycle bus_free_ = 0;                  // the address bus's next free cycle
  std::vector<Cycle> data_free_;        // by board: its data port's next free cycle
  std::vector<u32> board_of_;           // by core: its board (FireplaneParams::boardOf, once)
  BusStats bus_stats_;
};

}  // namespace hpm::mem
