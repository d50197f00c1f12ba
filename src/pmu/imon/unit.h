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
// Registers: 64-bit, at the offsets and with the fields of namespace reg below (the one
// declaration: guest/include/hpm/imon.h is held to it by tests/pmu/imon at compile time;
// docs/interconnect.md has the table).
//
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

// Register offsets (bytes) and fields.
namespace reg {
// INFO (read-only): the unit's shape (the kInfo... fields).
inline constexpr u64 kInfo = 0x000;
// RUN: bit m lets monitor m's counters count.
inline constexpr u64 kRun = 0x008;
// Monitor m's registers are at kMonitorBase + m kMonitorStride; its counter c's at that
// + c kCounterStride.
inline constexpr u64 kMonitorBase = 0x100;
inline constexpr u64 kMonitorStride = 0x100;
inline constexpr u64 kCounterStride = 0x40;
// A counter's: its filter (TYPES; ADDR_MATCH and ADDR_MASK; ID_MATCH and ID_MASK, whose fields
// are kIdSource and kIdId; SNOOPS, reset: all results) and its COUNT (writable).
inline constexpr u64 kTypes = 0x00;
inline constexpr u64 kAddrMatch = 0x08;
inline constexpr u64 kAddrMask = 0x10;
inline constexpr u64 kIdMatch = 0x18;
inline constexpr u64 kIdMask = 0x20;
inline constexpr u64 kSnoops = 0x28;
inline constexpr u64 kCount = 0x30;
// A monitor's FIFO:
//   FIFO_ENABLE: bit 0 records counter 1's matches, running or not;
//   FIFO_STATUS (read-only, the kStatus... fields): the records lost saturate; a read clears the
//     overrun flag and the lost count, so that software sampling the FIFO learns of every lost
//     record exactly once;
//   FIFO_POP: a read takes the oldest entry (the kPop... fields; supplier kNoSupplier: memory
//     or none); its address and cycle go to LATCH_ADDRESS and LATCH_CYCLE (read-only).
inline constexpr u64 kFifoEnable = 0x80;
inline constexpr u64 kFifoStatus = 0x88;
inline constexpr u64 kFifoPop = 0x90;
inline constexpr u64 kLatchAddress = 0x98;
inline constexpr u64 kLatchCycle = 0xa0;

// A field of a register: `bits` bits from bit `shift`.
struct Field {
  u32 shift, bits;
  constexpr u64 mask() const { return (u64{1} << bits) - 1; }
  constexpr u64 get(u64 word) const { return word >> shift & mask(); }
  // (`value` must fit: the unit's values do by construction.)
  constexpr u64 put(u64 value) const { return value << shift; }
};
// INFO's fields.
inline constexpr Field kInfoMonitors{0, 8}, kInfoCounters{8, 8}, kInfoFifoEntries{16, 8},
    kInfoCounterBits{24, 8}, kInfoTypes{32, 8}, kInfoSnoops{40, 8}, kInfoIdBits{48, 8},
    kInfoInterconnect{56, 8};
// ID_MATCH's and ID_MASK's: the source agent and the transaction id.
inline constexpr Field kIdSource{0, 16}, kIdId{32, probe::kTransactionIdBits};
// FIFO_STATUS's: entries held, the overrun flag, records lost since the last read.
inline constexpr Field kStatusHeld{0, 8}, kStatusOverrun{8, 1}, kStatusLost{32, 32};
// FIFO_POP's: the type's bit in TYPES, snoop result, source, id, supplier, and whether there
// was an entry.
inline constexpr Field kPopType{0, 8}, kPopSnoop{8, 8}, kPopSource{16, 16},
    kPopId{32, probe::kTransactionIdBits}, kPopSupplier{48, 15}, kPopValid{63, 1};
}  // namespace reg

inline constexpr u32 kCountersPerMonitor = 2;
inline constexpr u32 kFifoCounter = 1;  // the counter whose filter feeds the FIFO

struct Filter {
  u64 types = 0;  // bit t: global type t (TYPES reads and writes it through the namespace)
  u64 addr_match = 0, addr_mask = 0;
  u64 id_match = 0, id_mask = 0;  // fields reg::kIdSource and reg::kIdId
  u64 snoops = (u64{1} << probe::kSnoopResults) - 1;

  // The ID_MATCH / ID_MASK layout of a transaction's source and id, and its bits.
  static constexpr u64 kIdBits =
      reg::kIdSource.put(reg::kIdSource.mask()) | reg::kIdId.put(reg::kIdId.mask());
  static u64 idWord(u32 source, u32 id) {
    return reg::kIdId.put(id) | reg::kIdSource.put(source & reg::kIdSource.mask());
  }
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
