// UPC-P: the Blue Gene/P hybrid performance counter unit (seed 002 sections 4-7, design.md 4.1),
// cycle-exact, independent of the simulator. docs/upc.md is the reference; in short:
//
// Timing. Everything the unit does in cycle t happens in this order:
//   1. register accesses at t (read/write), and start/stop, take effect;
//   2. the maintenance state machine's visit slot at t, if t is one ((t + P) mod S == 0);
//   3. the events of cycle t are counted; a low-order register that wraps in cycle t sets its
//      carry latch in cycle t (serviced at the first visit of its entry after t), and an armed
//      counter that carries out in cycle t raises its interrupt in cycle t.
// So a read at cycle t returns every event of the cycles before t and none of cycle t.
//
// Input. Events come either per cycle (`cycle`: the levels of all E inputs in one cycle as a
// bitset) or batched (`pulse`: event e occurred k times in cycle t; `level`: event e high over
// [t0, t1)). Both give identical state. Time only moves forward: every call carries a cycle, and
//   - inputs must not be earlier than the last register access / advanceTo (now());
//   - inputs of one event must come in non-decreasing cycle order (several pulses in one cycle
//     add up; a level and a pulse in one cycle add up too);
//   - a register access at cycle t must come after every pulse of a cycle < t and before any
//     pulse of a cycle >= t. A level interval may extend past later accesses: the unit keeps it
//     pending and counts it under the configuration in force at each cycle.
// Violations are caller bugs and throw hpm::Error(kInternal).
//
// Cost. Between inputs the unit does nothing per cycle: under round-robin the visits a counter
// received between two times are computed (only the first visit after a change can do anything),
// batched inputs cost work only when some counter selects the event (interest()), and the
// per-cycle interface updates all counters bit-parallel (bit-sliced low-order registers).
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "base/types.h"
#include "pmu/upc/params.h"
#include "stats/stats.h"

namespace hpm::upc {

// A threshold interrupt: counter `counter` carried out while armed, in cycle `cycle`.
struct Interrupt {
  u32 counter = 0;
  Cycle cycle = 0;
  bool operator==(const Interrupt&) const = default;
};

// Architectural state of one counter, for tests and tools (Unit::inspect).
struct CounterState {
  u64 value = 0;       // the 64-bit value a register read returns
  u64 sram_word = 0;   // high-order word (round-robin) or 64-bit base (largest-first)
  u32 low = 0;         // low-order register
  bool carry = false;  // carry latch
  bool armed = false;  // threshold armed
  u8 config = 0;       // configuration byte
};

struct Stats {
  u64 events_counted = 0;       // increments applied to low-order registers
  u64 carries = 0;              // carry-outs of low-order registers
  u64 carries_serviced = 0;     // carries added to SRAM words (round-robin)
  u64 lost_carries = 0;         // carry-outs while the carry latch was still set
  u64 flushes = 0;              // low-order registers flushed into SRAM (largest-first)
  u64 max_flushed_value = 0;    // largest value flushed (largest-first)
  u64 max_service_latency = 0;  // most cycles from a carry to the visit that took it into SRAM
  u64 interrupts = 0;           // threshold interrupts raised
  u64 parity_errors = 0;        // SRAM reads that failed the parity check (once per report)
  u64 parity_interrupts = 0;    // of those, raised as interrupts (START_STOP bit 1)
  u64 access_errors = 0;        // register accesses that set the access-error register
  void visit(stats::Visitor& v) const;
};

// The interest filter: bit e is set when some counter currently selects event e. `epoch`
// changes whenever the filter does, so a source that caches it knows to look again. `words`
// stays valid (and current) for the lifetime of the unit it came from.
struct Interest {
  std::span<const u64> words;
  u64 epoch = 0;
  bool test(u32 event) const { return (words[event >> 6] >> (event & 63)) & 1; }
};

// Register offsets (bytes, 64-bit registers) of a unit with `counters` counters. For N = 256 they
// are the seed's Figure 5 (counters 0x000-0x7F8, configuration 0x800-0x8F8, start/stop 0x900,
// threshold 0x910) followed by this model's status registers (docs/upc.md, "Register map").
struct RegisterMap {
  explicit RegisterMap(u32 counters);
  u64 counter(u32 c) const { return u64{c} * 8; }
  u64 config(u32 group) const { return config_base + u64{group} * 8; }
  u64 config_base;       // 8 x N
  u64 start_stop;        // 9 x N
  u64 threshold;         // start_stop + 0x10
  u64 access_error;      // start_stop + 0x18
  u64 parity_status;     // start_stop + 0x20
  u64 interrupt_line;    // start_stop + 0x28
  u64 unit_info;         // start_stop + 0x30
  u64 interrupt_status;  // start_stop + 0x40: ceil(N/64) registers, write 1 to clear
  u64 armed_status;      // then ceil(N/64) read-only registers
  u64 parity_errors;     // then ceil(N/64) registers, write 1 to clear
  u64 window_bytes;      // rounded up to 4 KiB; everything else up to here is unmapped
  u32 status_words;      // ceil(N/64)
};

// Bits of the access-error register (sticky; write 1 to clear).
enum AccessError : u64 {
  kUnmappedRead = 1u << 0,   // read of an unmapped offset (returned 0)
  kUnmappedWrite = 1u << 1,  // write to an unmapped or read-only offset (ignored)
  kReservedBits = 1u << 2,   // write with reserved bits or a reserved encoding set (ignored)
  kMisaligned = 1u << 3,     // offset not a multiple of 8 (read 0 / write ignored)
};
// Bits [63:32] of the access-error register hold the low 32 bits of the offset of the first
// access that set it since it was last fully cleared.

class Unit {
 public:
  // Validates `params` (Params::validate) and resets: all counters, configurations, threshold
  // and status zero, counting stopped.
  explicit Unit(const Params& params);
  Unit(const Unit&) = default;
  Unit& operator=(const Unit&) = default;

  const Params& params() const { return params_; }
  const RegisterMap& map() const { return map_; }

  // ---- inputs ----
  // Event `event` occurred `count` times in cycle `t`.
  void pulse(u32 event, Cycle t, u64 count = 1);
  // Event `event` was high in every cycle of [t0, t1) (one occurrence per cycle).
  void level(u32 event, Cycle t0, Cycle t1);
  // The levels of all E event inputs in cycle t: bit e of `levels` (word e / 64, bit e % 64),
  // at least ceil(E / 64) words. Level intervals still pending from `level` end at the first
  // per-cycle input: the per-cycle levels are then the whole truth.
  void cycle(Cycle t, std::span<const u64> levels);

  // ---- register window (docs/upc.md) ----
  u64 read(u64 offset, Cycle now);
  void write(u64 offset, u64 value, Cycle now);

  // Brings every counter to cycle `now` (all interrupts of cycles before `now` are raised).
  void advanceTo(Cycle now);
  Cycle now() const { return now_; }

  // ---- interrupts ----
  // Called once per raised interrupt, when the unit discovers it (at the latest at the next
  // access or advanceTo reaching a later cycle); the cycle in it is exact.
  void onInterrupt(std::function<void(const Interrupt&)> callback) {
    on_interrupt_ = std::move(callback);
  }
  // Interrupts raised since the last take, sorted by cycle then counter (kept only while no
  // callback is set).
  std::vector<Interrupt> takeInterrupts();
  // The interrupt line: some interrupt-status bit is set, or a parity error is recorded while
  // parity interrupts are enabled (as of the last access or advanceTo).
  bool interruptLine() const;
  // Every parity error the unit recorded (PARITY_ERRORS bit set), in the order found: the
  // counter, the cycle of the failing SRAM read, and whether it interrupted. For the host's
  // fault-injection report.
  struct ParityReport {
    u32 counter = 0;
    Cycle cycle = 0;
    bool interrupted = false;
  };
  const std::vector<ParityReport>& parityReports() const { return parity_reports_; }

  // ---- helpers for software, tools and tests ----
  Interest interest() const { return Interest{interest_, interest_epoch_}; }
  // First cycle >= t at which the round-robin state machine visits entry c.
  Cycle nextVisit(u32 counter, Cycle t) const;
  // How many more events of `event` its counter takes before its low-order register carries
  // out, counting a level interval still pending (no access: the state is not advanced).
  u64 eventsBeforeCarry(u32 event) const;
  // The counter's architectural state at `now` (an access: same ordering rules as read).
  CounterState inspect(u32 counter, Cycle now);
  // Flips bit `bit` of counter c's SRAM entry at cycle `now`: bits [0, D) are data bits (D = 64 -
  // L under round-robin, 64 under largest-first), bits [D, D + parityBits()) the parity bits.
  void flipSramBit(u32 counter, u32 bit, Cycle now);
  u32 sramDataBits() const { return data_bits_; }
  u32 parityBits() const { return parity_bits_; }
  // Lost carries per counter (exploration mode reports them; a safe unit fed within its stated
  // rate never loses one).
  const std::vector<u64>& lostCarries() const { return lost_per_counter_; }
  // events_counted of per-cycle input is settled at the next access or advanceTo.
  const Stats& stats() const { return stats_; }

 private:
  struct Counter {
    Cycle frontier = 0;          // events and visits of cycles < frontier are applied
    Cycle visit_frontier = 0;    // visits of cycles < visit_frontier are applied
    Cycle high_until = kNever;   // the selected signal was high in cycle high_until - 1
    Cycle pulse_cycle = kNever;  // cycle of the last pulse applied (same-cycle pulses merge)
    u32 low = 0;
    bool carry = false;
    bool armed = false;
  };
  struct Pending {
    Cycle begin = 0, end = 0;  // a level interval [begin, end) not yet counted past frontier
  };
  static constexpr Cycle kNever = ~Cycle{0};

  // Configuration byte fields.
  u32 selectOf(u32 c) const { return config_[c] & 3; }
  SignalMode modeOf(u32 c) const { return static_cast<SignalMode>((config_[c] >> 2) & 3); }
  bool intEnabled(u32 c) const { return (config_[c] >> 4) & 1; }
  u32 eventOf(u32 c) const { return selectOf(c) * params_.counters + c; }

  // Time-order checks.
  void checkInput(Cycle t) const;
  void beginAccess(Cycle now);

  // Scalar (batched) engine.
  void advance(u32 c, Cycle until);
  void segment(Counter& k, u32 c, Cycle x, Cycle y, bool high);
  void countRun(Counter& k, u32 c, Cycle x, u64 n);
  void countAt(Counter& k, u32 c, Cycle t, u64 n);
  void serviceThrough(Counter& k, u32 c, Cycle t);
  bool needsVisit(const Counter& k, u32 c) const;
  void syncAll(Cycle now);
  void largestFirstVisitsBefore(Cycle t);

  // Shared hardware actions (both engines).
  void visitEntry(u32 c, Cycle v, bool& carry, bool& armed);
  void carryOut(u32 c, Cycle t, u64 carries, bool& carry, bool& armed);
  void flush(u32 c, Cycle v, u64 value);
  u64 sramRead(u32 c, Cycle t);
  void sramWrite(u32 c, u64 data);
  u64 parityOf(u64 data) const;
  void reportParity(u32 c, Cycle t);
  void raise(u32 c, Cycle t);
  void deliver(const Interrupt& irq);  // to the callback, or kept for takeInterrupts
  void accessError(u64 bits, u64 offset);

  // Per-cycle (bit-sliced) engine.
  void enterCycleMode(Cycle t);
  void leaveCycleMode();
  void step(Cycle t, std::span<const u64> levels);
  template <u32 kWords, u32 kBanks>
  void countCycle(Cycle t, std::span<const u64> levels);
  void handleCarryOuts(const u64* carry_out, Cycle t);
  void largestFirstFlushBits(Cycle v);
  u32 gatherLow(u32 c) const;

  void writeConfig(u32 group, u64 value, Cycle now);
  void rebuildInterest();
  u64 counterValue(u32 c, Cycle now);

  Params params_;
  RegisterMap map_;
  u32 words_;        // ceil(N / 64)
  u32 data_bits_;    // SRAM data bits per entry
  u32 parity_bits_;  // SRAM parity bits per entry
  u64 low_mask_;
  u64 data_mask_;
  u64 round_cycles_;  // N x S
  bool round_is_pow2_;
  bool counters_pow2_;  // event -> counter is a mask

  std::vector<Counter> counters_;
  std::vector<Pending> pending_;    // per event
  std::vector<u32> event_counter_;  // per event: the one counter that can select it
  std::vector<u8> config_;          // per counter
  std::vector<u64> sram_data_, sram_parity_;
  std::vector<u8> parity_bad_, parity_reported_;
  std::vector<u32> bad_entries_;    // entries whose parity check currently fails
  std::vector<Cycle> carry_cycle_;  // cycle the carry latch was last set
  std::vector<u64> lost_per_counter_;
  std::vector<u64> interest_;
  u64 interest_epoch_ = 0;
  std::vector<u64> int_status_, parity_mask_;

  bool running_ = false;
  bool parity_interrupts_ = false;  // START_STOP bit 1
  u64 threshold_ = 0;
  u64 access_error_ = 0;
  bool parity_valid_ = false;
  u32 parity_first_counter_ = 0;
  Cycle parity_first_cycle_ = 0;

  Cycle now_ = 0;            // time of the last access / advanceTo
  Cycle horizon_ = 0;        // every counter's applied inputs end before this cycle
  Cycle lcf_next_slot_ = 0;  // largest-first, scalar engine: next visit slot not yet done

  // Per-cycle engine state (valid while cycle_mode_).
  bool cycle_mode_ = false;
  Cycle cycle_next_ = 0;     // next cycle step() expects
  Cycle next_slot_ = 0;      // next visit slot
  u32 next_entry_ = 0;       // entry of next_slot_ (round-robin)
  std::vector<u64> planes_;  // low_bits planes x words_: bit c of plane j = bit j of low(c)
  std::vector<u64> carry_bits_, armed_bits_, prev_bits_;
  std::vector<u64> bank_masks_;  // banks x words_: counters selecting bank s
  std::vector<u64> mode_masks_;  // 4 x words_: counters in each SignalMode
  std::vector<u64> all_mask_;    // words_: bits of existing counters
  std::vector<u64> scratch_;     // 3 x words_
  u64 cycle_low_sum_ = 0;        // at entry: sum of low-order registers (events_counted)
  u64 cycle_carries_ = 0;        // at entry: stats_.carries
  u64 cycle_flushed_ = 0;        // largest-first values flushed since entry

  std::vector<Interrupt> raised_;
  std::vector<ParityReport> parity_reports_;
  std::function<void(const Interrupt&)> on_interrupt_;
  Stats stats_;
};

// The (threshold, preload) pair that makes a round-robin counter raise its interrupt in the cycle
// in which it counts its n-th event after the preload (n >= 1): write `preload` to the counter,
// `threshold` to the threshold register and set the counter's interrupt-enable bit.
// With q = ceil(n / 2^L): preload = q x 2^L - n (high-order part 0), threshold = (q - 1) x 2^L;
// for n = 4096 x a + b (0 < b < 4096) this is the seed's threshold 4096 x a and preload 4096 - b.
// Arming: when q >= 2 the counter arms at the visit that services its (q-1)-th carry, which a safe
// configuration guarantees comes before the q-th carry. When q == 1 (n <= 2^L) no carry precedes
// the interrupting one, so the first visit of the counter after the writes must come no later
// than the cycle of the n-th event (`arm_by_first_visit`); at <= 1 event per cycle that holds by
// itself when n >= N x S, otherwise start counting at Unit::nextVisit (docs/upc.md).
struct ThresholdPreload {
  u64 threshold = 0;
  u64 preload = 0;
  bool arm_by_first_visit = false;
};
ThresholdPreload thresholdForCount(u64 n, u32 low_bits);

}  // namespace hpm::upc
