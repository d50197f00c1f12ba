// The counter-unit interface (design.md 4.5): what every family of counting hardware (UPC-P, the
// UPC-Q units, later the interconnect monitor and the network unit) offers the node's monitor,
// as PAPI's component vector does for its components. The monitor (node/monitor.h) routes the
// probe bus's events to units through this interface only and never asks which family it holds.
//
// A family attaches to a node as an Attachment: its units (one per device: /dev/hpm/<kind>[k])
// and its part of the native event catalogue (pmu/catalogue.h), whose instances name the unit
// and input port that count them. docs/architecture.md ("Adding a unit family") says how.
//
// Contract of every unit, whatever its family:
//   - Time only moves forward. Inputs of one (port, event) come in non-decreasing cycle order,
//     none earlier than the last register access or advanceTo (now()); a register access at
//     cycle t comes after every input of a cycle before t.
//   - A read at cycle t returns what the hardware's register holds then; a write takes effect
//     at t. Host programming is a sequence of register writes at cycle 0.
//   - Interrupts are reported through the sink once each, with their exact cycle, when the unit
//     discovers them (at an access or advanceTo reaching a later cycle).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "stats/stats.h"
#include "stats/transaction.h"

namespace hpm::pmu {

// A kind of unit: data its family declares once. Tools name units, devices and statistics by it.
struct UnitKind {
  std::string_view name;   // device /dev/hpm/<name>, followed by the core for per-core units
  std::string_view title;  // "UPC-Q PUnit"
  bool per_core = false;   // one instance per core
  std::string_view port_name = "port";  // what its input ports are ("slice": the L2 unit's)
};

class CounterUnit {
 public:
  // A counter's window ends repeat every `period` cycles from `first`: the maintenance visits
  // of a UPC-P counter, the sweep visits of a UPC-Q local counter.
  struct Windows {
    Cycle first = 0, period = 0;
  };
  // Consecutive windows of one counter applied at once (UPC-Q: upcq::Unit::sweptWindows): the
  // first ends at `first_end`, the last at `last_end`, `amount` events in all, at most
  // `max_window` in one.
  struct BulkWindows {
    Cycle first_end = 0, last_end = 0;
    u64 amount = 0, windows = 0, max_window = 0;
  };
  using InterruptSink = std::function<void(u32 counter, Cycle cycle)>;
  static constexpr Cycle kNever = ~Cycle{0};

  virtual ~CounterUnit() = default;

  virtual const UnitKind& kind() const = 0;
  // The core of a per-core unit, else 0.
  virtual u32 instance() const { return 0; }
  // "/dev/hpm/punit3": the device the guest opens, and (without "/dev/hpm/") its statistics.
  std::string path() const;
  std::string statsName() const;

  // ---- the register window ----
  virtual u64 windowBytes() const = 0;
  virtual u64 read(u64 offset, Cycle now) = 0;
  // Returns whether the write may have changed how inputs are counted (a configuration or mode
  // register, whatever its value): the monitor then looks at the unit's counters again.
  virtual bool write(u64 offset, u64 value, Cycle now) = 0;
  // A store narrower than a register: the low `size` bytes (1, 2 or 4) of `value` at byte
  // `offset`, inside one 64-bit register (kernel/device.h). It must not run a read's side
  // effects. By default it is ignored: UPC-P's, UPC-Q's and the truth unit's registers are
  // 64 bits wide and take whole stores only (assumed: Blue Gene's documents describe only
  // doubleword accesses; a merge would write back an OVERFLOW_STATUS bit it read, which
  // acknowledges that counter). Returns as write().
  virtual bool writeNarrow(u64 offset, unsigned size, u64 value, Cycle now) {
    (void)offset, (void)size, (void)value, (void)now;
    return false;
  }
  // Whether the unit counts, as the last write to its run register left it (no access).
  virtual bool running() const = 0;
  // Changes whenever the set of selected inputs does.
  virtual u64 interestEpoch() const = 0;
  virtual Cycle now() const = 0;
  virtual void advanceTo(Cycle now) = 0;

  // ---- inputs: `ports` input ports (an L2 unit's slices) of event inputs ----
  virtual u32 ports() const { return 1; }
  // Some counter selects (port, event): other inputs are ignored, and need not be delivered.
  virtual bool selects(u32 port, u32 event) const = 0;
  virtual void pulse(u32 port, u32 event, Cycle t, u64 count) = 0;
  virtual void level(u32 port, u32 event, Cycle t0, Cycle t1) = 0;

  // ---- interconnect transactions (stats/transaction.h): a filtering unit's input ----
  // Whether the unit wants the interconnect's transactions now; may change only at a register
  // write that returns true or changes interestEpoch(). Transactions come in cycle order.
  virtual bool wantsTransactions() const { return false; }
  virtual void transaction(const probe::Transaction& t) { (void)t; }

  // ---- windows: when the monitor may apply many events as one ----
  // Inputs of different events must reach the unit in global time order (no batching at all).
  virtual bool ordered() const { return false; }
  // Every counter selecting (port, event) counts level high without interrupt or overflow, in a
  // configuration that cannot lose counts: the events between two of its window ends may then be
  // applied as one pulse at the last one's cycle, leaving the unit as they would one by one.
  virtual bool plainCounting(u32 port, u32 event) const = 0;
  // The first window end after `at` of a counter selecting (port, event) (kNever: none).
  virtual Cycle windowEnd(u32 port, u32 event, Cycle at) const = 0;
  // The periodic window ends of every counter selecting (port, event) (empty: not periodic).
  virtual std::vector<Windows> windows(u32 port, u32 event) const = 0;
  // How many more events the counter of (port, event) takes before a carry whose cycle is
  // observable (UPC-P's low-order register); ~0 where none is.
  virtual u64 roomBeforeCarry(u32 port, u32 event) const {
    (void)port, (void)event;
    return ~u64{0};
  }
  // Whether windows of (port, event) may be applied in bulk (bulkWindows), and then the count a
  // window must stay below; 0: they may not.
  virtual u64 bulkLimit(u32 port, u32 event) const {
    (void)port, (void)event;
    return 0;
  }
  virtual void bulkWindows(u32 port, u32 event, const BulkWindows& w);

  // ---- interrupts ----
  virtual void onInterrupt(InterruptSink sink) = 0;
  // Whether the unit holds counting from the delivery of its interrupt to its handler until
  // the acknowledge (UPC-Q's slow L2 and I/O units); then interruptDelivered says when.
  virtual bool holdsForHandler() const { return false; }
  virtual void interruptDelivered(Cycle now) { (void)now; }

  // ---- host programming: at cycle 0 before the run, and at each switch of host multiplexing ----
  // Counters host programming may take (UPC-Q: per port; a combined L2 counter counts on all).
  virtual u32 counters() const = 0;
  // Whether the unit, counting in unit mode `mode` (NativeEvent::unit_mode), keeps an event's
  // counts of each input port apart (the L2 unit's sliced mode: a counter per slice); then
  // hostAdd is called once per port, else once for all.
  virtual bool hostCountsPerPort(u32 mode) const {
    (void)mode;
    return false;
  }
  // Takes a counter for (port, event) in unit mode `mode`, which `name` names in messages;
  // throws Error(kUsage) naming the conflict when the unit cannot count it with the events
  // added before (too many, another mode, another input of the one counter it can use). Only a
  // plan: nothing is written until hostStart.
  virtual u32 hostAdd(u32 port, u32 event, u32 mode, std::string_view name) = 0;
  // Writes what hostAdd took and starts counting (if anything was added), at cycle `now`.
  virtual void hostStart(Cycle now) = 0;
  // Stops what host programming started, at cycle `now` (the counters keep their values), and
  // forgets the plan, so that other events may be added and started (host multiplexing). A unit
  // host programming did not start is left alone.
  virtual void hostStop(Cycle now) = 0;
  // Forgets what hostAdd took, with no access (a plan that was only tried).
  virtual void hostClear() = 0;
  virtual u64 counterOffset(u32 counter) const = 0;
  // Cycles after the last event after which every read has all of it (carries serviced, local
  // values swept).
  virtual Cycle settleCycles() const = 0;

  virtual void visitStats(stats::Visitor& v) const = 0;

  // ---- fault injection (hpmsim run --sram-fault) ----
  // The bits of one counter's SRAM entry a fault may flip; 0: the unit keeps no SRAM.
  virtual u32 sramEntryBits() const { return 0; }
  // Flips bit `bit` (< sramEntryBits()) of counter `counter`'s SRAM entry at cycle `now`, an
  // access of the unit.
  virtual void flipSramBit(u32 counter, u32 bit, Cycle now);
  // The faults the unit detected so far, in the order found.
  struct DetectedFault {
    u32 counter = 0;
    Cycle cycle = 0;
    bool interrupted = false;  // the unit raised its interrupt for it
  };
  virtual std::vector<DetectedFault> detectedFaults() const { return {}; }
};

}  // namespace hpm::pmu
