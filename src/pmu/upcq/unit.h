// UPC-Q: the Blue Gene/Q universal performance counting units (seed 001, design.md 4.2),
// cycle-exact, independent of the simulator. docs/upcq.md is the reference; in short:
//
// Structure. A unit has P input ports (L2 slices; 1 otherwise) of E event inputs each, and M local
// counters per port. Local counter i (= port x M + j) selects one event of its port with a signal
// mode. Swept units (PUnit, L2Unit, IOUnit) keep an L-bit local register per local counter and a
// 64-bit central accumulator per counter; the central unit's sweep visits local counter i once
// every `period` cycles (Sweep in params.h) and moves the whole local value into the central
// accumulator. The CNKUnit is direct: its counters are the 64-bit values themselves.
//
// Timing. Everything the unit does in cycle t happens in this order:
//   1. register accesses at t (read/write), setGlobalRun and interruptDelivered take effect;
//   2. the sweep visits of cycle t: each visited local value is added to its central counter and
//      the local register cleared; a slow-overflow counter whose central value reaches its
//      threshold in this addition detects its overflow in cycle t;
//   3. the events of cycle t are counted (if counting is on and the counter is not frozen); a
//      fast-overflow counter whose exact count (central + local) reaches its threshold in cycle t
//      detects its overflow in cycle t;
//   4. an overflow detected in cycle t - D (D = overflow_latency) raises its interrupt in cycle t:
//      its OVERFLOW_STATUS bit is set (visible to accesses from t + 1), and the unit records
//      Interrupt{..., cycle = t}. A PUnit counter counts the events of cycles <= t and none after
//      until its status bit is acknowledged.
// So a read at cycle t returns: COUNTER = the events of the cycles before the counter's latest
// visit before t (lastVisitBefore); COUNTER_EXACT (PUnit) and CNKUnit counters = the events of
// the cycles before t.
//
// Input. Batched only: `pulse` (event e occurred k times in cycle t) and `level` (event e high in
// every cycle of [t0, t1)). Time only moves forward: every call carries a cycle, and
//   - inputs must not be earlier than the last register access / advanceTo (now());
//   - inputs of one event (of one port) must come in non-decreasing cycle order (pulses of one
//     cycle add up; a level and a pulse in one cycle add up too);
//   - a register access at cycle t must come after every input of a cycle < t and before any
//     pulse of a cycle >= t. A level interval may extend past later accesses: the unit keeps it
//     pending and counts it under the configuration in force at each cycle.
// Violations are caller bugs and throw hpm::Error(kInternal).
//
// Cost. Between inputs the unit does nothing per cycle: each local counter keeps its own time
// frontier and the sweep visits it received are computed (only the first visit after a change of
// its local value can move anything), a level run costs O(1) whatever its length (whole sweep
// windows are closed form, up to the window holding a watched threshold's crossing; only combined
// L2 counters watching a threshold, and exploration configurations that wrap, step visit by
// visit), and inputs on events no counter selects return after one bit test (interest()).
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "base/types.h"
#include "pmu/upcq/params.h"
#include "stats/stats.h"

namespace hpm::upcq {

enum class UnitKind : u8 { kPUnit = 0, kL2Unit = 1, kIOUnit = 2, kCNKUnit = 3, kNWUnit = 4 };
const char* toString(UnitKind kind);

// An overflow interrupt: counter `counter` of unit `unit` (for a PUnit, `instance` is its core)
// raised its interrupt in cycle `cycle`. For an L2Unit, `counter` is the central counter index:
// j in combined mode, slice x counters + j in sliced mode.
struct Interrupt {
  UnitKind unit = UnitKind::kPUnit;
  u32 instance = 0;
  u32 counter = 0;
  Cycle cycle = 0;
  bool operator==(const Interrupt&) const = default;
};

// Architectural state of one counter, for tools and tests (Unit::inspect).
struct CounterState {
  u64 central = 0;            // what COUNTER returns
  u64 local = 0;              // sum of the local registers feeding it (0 for the CNKUnit)
  u64 exact = 0;              // central + local: every counted event of the cycles before now
  u64 threshold = 0;          // THRESHOLD
  u64 config = 0;             // CONFIG (of the first local counter feeding it)
  bool status = false;        // OVERFLOW_STATUS bit
  bool frozen = false;        // PUnit: frozen by a raised overflow, until acknowledged
  Cycle pending = ~Cycle{0};  // cycle of a detected interrupt not yet raised, or ~0
};

struct Stats {
  u64 events_counted = 0;  // increments applied (including those later lost to wraps)
  u64 transfers = 0;       // sweep visits that moved a nonzero local value
  u64 max_transfer = 0;    // largest local value moved by one visit
  u64 lost_wraps = 0;      // local wraps, each losing 2^L events (beyond the stated rate)
  u64 interrupts = 0;      // overflow interrupts raised
  u64 access_errors = 0;   // register accesses that set the access-error register
  void visit(stats::Visitor& v) const;
};

// The interest filter of one input port: bit e is set when some counter of the port currently
// selects event e. `epoch` changes whenever any port's filter does, so a source that caches it
// knows to look again. `words` stays valid (and current) for the lifetime of the unit.
struct Interest {
  std::span<const u64> words;
  u64 epoch = 0;
  bool test(u32 event) const { return (words[event >> 6] >> (event & 63)) & 1; }
};

// Register offsets (bytes, 64-bit registers) of a unit with `counters` counter indices
// (docs/upcq.md, "Register map"). Five arrays of one register per counter index, each starting on
// a multiple of `stride` = 8 x counters rounded up to 256 bytes, then the control block.
struct RegisterMap {
  explicit RegisterMap(u32 counters);
  u64 counter(u32 i) const { return u64{i} * 8; }
  u64 config(u32 i) const { return stride + u64{i} * 8; }
  u64 threshold(u32 i) const { return 2 * stride + u64{i} * 8; }
  u64 exact(u32 i) const { return 3 * stride + u64{i} * 8; }  // PUnit only
  u64 local(u32 i) const { return 4 * stride + u64{i} * 8; }  // PUnit only
  u64 overflowStatus(u32 w) const { return overflow_status + u64{w} * 8; }
  u32 counters;
  u64 stride;
  u64 control;          // 5 x stride
  u64 run;              // control + 0x00
  u64 reset;            // control + 0x08
  u64 access_error;     // control + 0x10
  u64 unit_info;        // control + 0x18
  u64 sweep_info;       // control + 0x20
  u64 mode;             // control + 0x28 (L2Unit only)
  u64 global_run;       // control + 0x30
  u64 interrupt_line;   // control + 0x38
  u64 overflow_status;  // control + 0x40: ceil(counters / 64) registers
  u32 status_words;
  u64 window_bytes;  // rounded up to 4 KiB; everything else up to here is unmapped
};

// CONFIG register fields.
namespace config_bits {
constexpr u64 kEventMask = 0xFFFF;  // [15:0] event select (below the unit's events)
constexpr u32 kModeShift = 16;      // [17:16] signal mode
constexpr u64 kOverflowEnable = u64{1} << 18;
constexpr u64 kDefined = kEventMask | u64{3} << kModeShift | kOverflowEnable;
}  // namespace config_bits

// A CONFIG value.
constexpr u64 configValue(u32 event, SignalMode mode, bool overflow_enable) {
  return u64{event} | u64{static_cast<u8>(mode)} << config_bits::kModeShift |
         (overflow_enable ? config_bits::kOverflowEnable : 0);
}

// RUN register bits.
constexpr u64 kRunBit = 1;   // counting enabled
constexpr u64 kHoldBit = 2;  // L2Unit, IOUnit: counting held for the overflow handler

// Bits of the access-error register (sticky; write 1 to clear), as UPC-P.
enum AccessError : u64 {
  kUnmappedRead = 1u << 0,   // read of an unmapped offset (returned 0)
  kUnmappedWrite = 1u << 1,  // write to an unmapped, read-only or inactive offset (ignored)
  kReservedBits = 1u << 2,   // write with reserved bits or a reserved encoding set
  kMisaligned = 1u << 3,     // offset not a multiple of 8 (read 0 / write ignored)
};
// Bits [63:32] of the access-error register hold the low 32 bits of the offset of the first
// access that set it since it was last fully cleared.

// The preload that makes a counter with threshold 0 (the reset value: overflow at the 64-bit
// wrap) interrupt on its n-th counted event: 2^64 - n. This is the seed's PAPI-to-BGPM threshold
// conversion ("subtracted from the maximum counter value, in addition to adding 1"). Equivalently
// preload 0 and THRESHOLD n. n >= 1.
u64 overflowPreload(u64 n);

// The machinery all four units share: inputs, lazy counting, the sweep, overflow detection, the
// register window and interrupts. The unit classes (punit.h, l2unit.h, iounit.h, cnkunit.h) give
// it its shape and their own input signatures.
class Unit {
 public:
  static constexpr Cycle kNone = ~Cycle{0};

  // (The unit classes add their parameters: a unit is owned, and deleted, through Unit.)
  virtual ~Unit() = default;

  UnitKind kind() const { return shape_.kind; }
  u32 instance() const { return shape_.instance; }
  const RegisterMap& map() const { return map_; }

  // ---- register window (docs/upcq.md) ----
  u64 read(u64 offset, Cycle now);
  void write(u64 offset, u64 value, Cycle now);

  // Brings every counter to cycle `now`: all interrupts of cycles before `now` are raised.
  void advanceTo(Cycle now);
  Cycle now() const { return now_; }

  // ---- interrupts ----
  // Called once per raised interrupt, when the unit discovers it: at advanceTo, at every write,
  // and at reads of OVERFLOW_STATUS or INTERRUPT_LINE and inspect, each of which brings the whole
  // unit to its cycle (a COUNTER read brings only its counter). The cycle in it is exact.
  void onInterrupt(std::function<void(const Interrupt&)> callback) {
    on_interrupt_ = std::move(callback);
  }
  // Interrupts raised since the last take, sorted by cycle then counter.
  std::vector<Interrupt> takeInterrupts();
  // Some OVERFLOW_STATUS bit is set (as of the last access or advanceTo).
  bool interruptLine() const;
  // The earliest cycle of an interrupt already detected but not yet raised, or kNone. A driver
  // that advances the unit to (that cycle + 1) gets it reported. A fast overflow is detected when
  // the pulse that reaches the threshold arrives; overflows that a pending level interval will
  // cause, and slow overflows (detected at a sweep visit, which is computed when the counter is
  // next brought forward), are found by advanceTo: a driver that calls advanceTo at least once
  // per sweep period learns each within one period of its (exact) cycle.
  Cycle pendingInterruptCycle() const;

  // ---- whole windows in bulk ----
  // Counts of consecutive sweep windows of the one counter that selects (port, event), level
  // high: `windows` windows, the first ending at the visit `first_visit` and the last at
  // `last_visit`, `amount` events in all and at most `max_window` in one (less than 2^L, so no
  // window wraps). Exactly what a pulse of each window's count in the cycle before the visit
  // that ends it does, followed by those visits: the monitor's counting from statistics applies
  // runs of windows this way instead of one pulse per window. The counter's threshold must not
  // be watched and nothing but the pulse before first_visit's window may be pending on it.
  struct SweptWindows {
    Cycle first_visit = 0, last_visit = 0;
    u64 amount = 0, windows = 0, max_window = 0;
  };
  void sweptWindows(u32 port, u32 event, const SweptWindows& w);

  // ---- helpers for software, tools and tests ----
  Interest interest(u32 port = 0) const;
  // First cycle >= t at which the sweep visits local counter i (kNone for the CNKUnit).
  Cycle nextVisit(u32 local, Cycle t) const;
  // Latest visit cycle < t of local counter i, or kNone if there was none.
  Cycle lastVisitBefore(u32 local, Cycle t) const;
  // Counter `counter`'s state at `now` (an access: same ordering rules as read).
  CounterState inspect(u32 counter, Cycle now);
  // Lost wraps per local counter (exploration mode; a safe unit fed within its stated rate never
  // loses one).
  const std::vector<u64>& lostWraps() const { return lost_per_local_; }
  const Stats& stats() const { return stats_; }

  // Bits of a local counter (0: direct, no sweep).
  u32 localBits() const { return shape_.local_bits; }

  // Counter indices (register array length): ports x counters per port.
  u32 counterCount() const { return shape_.ports * shape_.counters; }

 protected:
  // The node's component (component.h) reaches every unit kind's inputs by port.
  friend class Component;

  // The unit's shape, set by each unit class.
  struct Shape {
    UnitKind kind = UnitKind::kPUnit;
    u32 instance = 0;
    u32 ports = 1;
    u32 counters = 1;    // local counters per port
    u32 events = 1;      // event inputs per port
    u32 local_bits = 0;  // 0: direct (no local register, no sweep)
    Sweep sweep;
    u64 first_slot = 0;  // sweep slot of local counter 0
    u32 overflow_latency = 0;
    bool fast = true;         // overflow on the exact count (else at the sweep visit)
    bool freeze = false;      // fast overflow freezes the counter until acknowledged
    bool hold = false;        // RUN.hold exists (held from delivery until acknowledged)
    bool global = false;      // obeys the global run
    bool exact_regs = false;  // COUNTER_EXACT and LOCAL arrays
    bool has_mode = false;    // MODE register (combined / sliced)
    bool sliced = true;       // mode after reset (only meaningful with has_mode)
    bool run_at_reset = false;
  };

  explicit Unit(const Shape& shape);
  Unit(const Unit&) = default;
  Unit& operator=(const Unit&) = default;

  void pulseAt(u32 port, u32 event, Cycle t, u64 count);
  void levelAt(u32 port, u32 event, Cycle t0, Cycle t1);
  void setGlobalRunAt(bool on, Cycle now);
  void holdAt(Cycle now);
  bool combined() const { return combined_; }

 private:
  struct Local {
    Cycle frontier = 0;         // events and visits of cycles < frontier are applied
    Cycle visit_frontier = 0;   // visits of cycles < visit_frontier are applied
    Cycle high_until = kNone;   // the selected signal was high in cycle high_until - 1
    Cycle pulse_cycle = kNone;  // cycle of the last pulse applied (same-cycle pulses merge)
    Cycle freeze_at = kNone;    // fast overflow: counts nothing in cycles >= freeze_at
    u64 value = 0;              // the local register (always 0 when direct)
    u64 config = 0;             // CONFIG
  };
  struct Central {
    u64 value = 0;
    u64 threshold = 0;
    u64 resolved = 0;      // combined slow overflow: value before the logged transfers
    Cycle irq_at = kNone;  // detected overflow: its interrupt cycle
    bool status = false;   // OVERFLOW_STATUS
  };
  struct Transfer {
    Cycle visit;
    u32 local;
    u64 amount;
  };
  struct Pending {
    Cycle begin = 0, end = 0;  // a level interval [begin, end) not yet counted past frontiers
  };

  bool direct() const { return shape_.local_bits == 0; }
  u32 eventOf(u32 i) const { return static_cast<u32>(locals_[i].config & config_bits::kEventMask); }
  SignalMode modeOf(u32 i) const {
    return static_cast<SignalMode>((locals_[i].config >> config_bits::kModeShift) & 3);
  }
  u32 portOf(u32 i) const { return i / shape_.counters; }
  u32 centralOf(u32 i) const { return combined_ ? i % shape_.counters : i; }
  bool active(u32 j) const { return !combined_ || j < shape_.counters; }
  u32 feederCount() const { return combined_ ? shape_.ports : 1; }
  u32 feeder(u32 j, u32 k) const { return combined_ ? k * shape_.counters + j : j; }
  bool overflowEnabled(u32 j) const { return locals_[j].config & config_bits::kOverflowEnable; }
  // A threshold is being watched: crossings are detected now.
  bool watching(u32 j) const {
    return overflowEnabled(j) && !centrals_[j].status && centrals_[j].irq_at == kNone;
  }
  bool logging() const { return !shape_.fast && combined_ && shape_.ports > 1; }

  // Time order.
  void checkInput(Cycle t) const;
  void beginAccess(Cycle now);

  // Lazy counting of one local counter.
  void advance(u32 i, Cycle until);
  void segment(u32 i, Cycle x, Cycle y, bool high);
  void countRun(u32 i, Cycle x, u64 n);
  void countAt(u32 i, Cycle t, u64 n);
  void addEvents(u32 i, u64 n);
  void visitsThrough(u32 i, Cycle t);
  void transfer(u32 i, Cycle v);
  void detect(u32 j, u32 i, Cycle t);

  void syncAll(Cycle now);
  void resolve(u32 j, Cycle before);
  void raiseDue(Cycle now);
  void raise(u32 j, Cycle t);
  void accessError(u64 bits, u64 offset);
  void clearCounts();

  void writeConfig(u32 i, u64 value);
  void rebuildSelectors();
  u64 unitInfo() const;

  Shape shape_;
  RegisterMap map_;
  u64 local_mask_ = 0;
  u64 words_per_port_ = 0;

  std::vector<Local> locals_;
  std::vector<Central> centrals_;
  std::vector<std::vector<Transfer>> log_;   // per central (combined slow overflow)
  std::vector<Pending> pending_;             // per port x event
  std::vector<std::vector<u32>> selectors_;  // per port x event: local counters selecting it
  std::vector<u64> interest_;                // per port: words_per_port_ words
  u64 interest_epoch_ = 0;
  std::vector<u64> lost_per_local_;

  bool combined_ = false;
  bool running_ = false;
  bool global_ = true;
  bool held_ = false;
  bool counting_ = false;  // running_ && global_ && !held_
  u64 access_error_ = 0;

  Cycle now_ = 0;      // time of the last access / advanceTo
  Cycle horizon_ = 0;  // every applied input is of a cycle before this

  std::vector<Interrupt> raised_;
  std::function<void(const Interrupt&)> on_interrupt_;
  Stats stats_;
};

}  // namespace hpm::upcq
