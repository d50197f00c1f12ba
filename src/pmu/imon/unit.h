// The interconnect monitor (seed 004 section 2; docs/interconnect.md): one unit of `monitors`
// monitors on the node's interconnect transaction stream (stats/transaction.h). Each monitor has
// two histogramming counters, each behind its own transaction filter, and an 8-entry transaction
// sequence FIFO that records the transactions counter 1's filter matches.
//
// A filter matches a transaction when all of its terms do:
//   - TYPES, a unary mask over the transaction types of the unit's interconnect (bit i: the i-th
//     type of its namespace, stats/transaction.h: the crossbar's 10 or Fireplane's 19);
//   - the address, source and transaction id against MATCH under MASK, 1/0/X "trits": a MASK bit
//     of 1 tests the transaction's bit against MATCH's, 0 makes it X (don't care). So the seed's
//     4-trit "110X" is MATCH 0b1100, MASK 0b1110;
//   - SNOOPS, a unary mask over the snoop results (bit s: result s).
//
// Registers (64-bit, byte offsets; docs/interconnect.md has the table):
//   0x000 INFO (read-only): [7:0] monitors, [15:8] counters per monitor (2), [23:16] FIFO
//         entries, [31:24] counter bits, [39:32] transaction types (of its namespace),
//         [47:40] snoop results, [55:48] transaction id bits, [63:56] the interconnect
//         (0 crossbar, 1 Fireplane)
//   0x008 RUN: bit m lets monitor m's counters count
//   monitor m at B = 0x100 + 0x100 m; its counter c at B + 0x40 c:
//     +0x00 TYPES  +0x08 ADDR_MATCH  +0x10 ADDR_MASK
//     +0x18 ID_MATCH  +0x20 ID_MASK ([15:0] the source agent, [40:32] the transaction id)
//     +0x28 SNOOPS (reset: all results)  +0x30 COUNT (writable)
//   its FIFO at B + 0x80:
//     +0x80 FIFO_ENABLE (bit 0: record counter 1's matches, running or not)
//     +0x88 FIFO_STATUS (read-only: [7:0] entries held, bit 8 overrun, [63:32] records lost
//           since the last read, saturating; a read clears the overrun flag and the lost count,
//           so that software sampling the FIFO learns of every lost record exactly once)
//     +0x90 FIFO_POP (a read takes the oldest entry: bit 63 set if there was one, [7:0] type
//           (its bit in TYPES), [62:48] the supplier agent (0x7fff: memory or none),
//           [15:8] snoop, [31:16] source, [40:32] id; its address and cycle go to the latches)
//     +0x98 LATCH_ADDRESS  +0xa0 LATCH_CYCLE (read-only)
// A full FIFO keeps the latest transactions: a new one pushes the oldest out, sets the overrun
// flag and counts one record lost. Writes to read-only and reserved offsets are ignored; reserved
// bits and offsets read 0.
#pragma once

#include <vector>

#include "pmu/counter_unit.h"
#include "pmu/imon/params.h"
#include "stats/transaction.h"

namespace hpm::imon {

inline constexpr pmu::UnitKind kUnitKind{"imon", "interconnect monitor", false};

// Register offsets (bytes).
namespace reg {
inline constexpr u64 kInfo = 0x000;
inline constexpr u64 kRun = 0x008;
inline constexpr u64 kMonitorBase = 0x100;
inline constexpr u64 kMonitorStride = 0x100;
inline constexpr u64 kCounterStride = 0x40;
inline constexpr u64 kTypes = 0x00;
inline constexpr u64 kAddrMatch = 0x08;
inline constexpr u64 kAddrMask = 0x10;
inline constexpr u64 kIdMatch = 0x18;
inline constexpr u64 kIdMask = 0x20;
inline constexpr u64 kSnoops = 0x28;
inline constexpr u64 kCount = 0x30;
inline constexpr u64 kFifoEnable = 0x80;
inline constexpr u64 kFifoStatus = 0x88;
inline constexpr u64 kFifoPop = 0x90;
inline constexpr u64 kLatchAddress = 0x98;
inline constexpr u64 kLatchCycle = 0xa0;
}  // namespace reg

inline constexpr u32 kCountersPerMonitor = 2;
inline constexpr u32 kFifoCounter = 1;  // the counter whose filter feeds the FIFO

struct Filter {
  u64 types = 0;  // bit t: global type t (TYPES reads and writes it through the namespace)
  u64 addr_match = 0, addr_mask = 0;
  u64 id_match = 0, id_mask = 0;  // [15:0] source, [40:32] transaction id
  u64 snoops = (u64{1} << probe::kSnoopResults) - 1;

  // The ID_MATCH / ID_MASK layout of a transaction's source and id, and its bits.
  static constexpr u64 kIdBits = 0xffff | ((u64{1} << probe::kTransactionIdBits) - 1) << 32;
  static u64 idWord(u32 source, u32 id) { return (u64{id} << 32) | (source & 0xffff); }
  bool matches(const probe::Transaction& t) const {
    return (types >> static_cast<u32>(t.type) & 1) != 0 &&
           (snoops >> static_cast<u32>(t.snoop) & 1) != 0 &&
           ((t.address ^ addr_match) & addr_mask) == 0 &&
           ((idWord(t.source, t.id) ^ id_match) & id_mask) == 0;
  }
  // Whether some transaction could match (else the counter need not see any).
  bool live() const { return types != 0 && snoops != 0; }
};

// A unit-level statistic set.
struct Stats {
  u64 transactions = 0;  // transactions delivered to the unit (while it wanted them)
  u64 matched = 0;       // counter increments, over every counter
  u64 fifo_records = 0;  // transactions recorded in a FIFO
  u64 fifo_lost = 0;     // records pushed out of a full FIFO
  u64 fifo_pops = 0;     // entries software took
  void visit(stats::Visitor& v) const;
};

class Unit final : public pmu::CounterUnit {
 public:
  // Validates `params` (throws Error(kConfig)).
  explicit Unit(const Params& params);

  const pmu::UnitKind& kind() const override { return kUnitKind; }
  u64 windowBytes() const override;
  u64 read(u64 offset, Cycle now) override;
  bool write(u64 offset, u64 value, Cycle now) override;
  // A narrow store merges into a configuration register's or a counter's value; to FIFO_POP
  // and FIFO_STATUS (read for their side effects), the read-only registers and the reserved
  // ones it does nothing.
  bool writeNarrow(u64 offset, unsigned size, u64 value, Cycle now) override;
  bool running() const override { return run_ != 0; }
  u64 interestEpoch() const override { return epoch_; }
  Cycle now() const override { return now_; }
  void advanceTo(Cycle now) override { now_ = std::max(now_, now); }

  // No probe-bus inputs: the unit counts transactions.
  bool selects(u32, u32) const override { return false; }
  void pulse(u32, u32, Cycle, u64) override {}
  void level(u32, u32, Cycle, Cycle) override {}
  bool plainCounting(u32, u32) const override { return false; }
  Cycle windowEnd(u32, u32, Cycle) const override { return kNever; }
  std::vector<Windows> windows(u32, u32) const override { return {}; }

  bool wantsTransactions() const override { return wants_; }
  void transaction(const probe::Transaction& t) override;

  void onInterrupt(InterruptSink) override {}  // the counters wrap; nothing interrupts

  u32 counters() const override { return static_cast<u32>(counters_.size()); }
  // `event` is the filter preset (catalogue.cpp's table); the lowest free counter takes it.
  u32 hostAdd(u32 port, u32 event, u32 mode, std::string_view name) override;
  void hostStart(Cycle now) override;
  void hostStop(Cycle now) override;
  void hostClear() override {
    host_.clear();
    host_next_ = 0;
  }
  u64 counterOffset(u32 counter) const override;
  Cycle settleCycles() const override { return 0; }

  void visitStats(stats::Visitor& v) const override { stats_.visit(v); }

  // ---- direct access (host tools and tests) ----
  const Filter& filter(u32 counter) const { return counters_[counter].filter; }

 private:
  struct Counter {
    Filter filter;
    u64 value = 0;
  };
  // A ring of fifo_entries records (allocated once: recording costs no allocation). The overrun
  // flag is `lost != 0`: both are cleared by the same status read.
  struct Fifo {
    bool enabled = false;
    std::vector<probe::Transaction> ring;
    u32 head = 0;  // the oldest entry
    u32 held = 0;
    u64 lost = 0;
    probe::Transaction latch;
  };
  void refresh();  // wants_ after a write
  u64 readMonitor(u32 m, u64 off);
  bool writeMonitor(u32 m, u64 off, u64 value);

  Params p_;
  probe::TransactionNamespace ns_;
  u64 value_mask_;
  std::vector<Counter> counters_;  // monitor m's counter c at m * 2 + c
  std::vector<Fifo> fifos_;
  u64 run_ = 0;
  bool wants_ = false;
  u64 epoch_ = 0;
  Cycle now_ = 0;
  Stats stats_;
  u32 host_next_ = 0;
  std::vector<std::pair<u32, u32>> host_;  // (counter, preset) host programming took
  bool host_started_ = false;
};

}  // namespace hpm::imon
