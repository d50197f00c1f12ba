// The node's performance-monitoring hardware, attached: the units of the machine's unit family
// (node/families.h: UPC-P on bgp, the UPC-Q units on bgq), wired to the probe bus, reachable by
// the guest through mapped register windows (kernel/device.h) and by the host (hpmsim stat,
// --upc-config).
//
// The monitor routes and keeps books; it holds its units through pmu::CounterUnit only and never
// asks which family it holds. Each family builds its part of the native event catalogue
// (pmu/catalogue.h): every native event is an (event, instance) of the bus feeding one unit
// input, with the name, counter and input select by which software asks for it. docs/events.md
// is generated from the catalogue (hpmsim events --markdown).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/types.h"
#include "config/schema.h"
#include "kernel/device.h"
#include "node/families.h"
#include "node/monitor_params.h"
#include "pmu/catalogue.h"
#include "stats/probe.h"
#include "stats/stats.h"

namespace hpm {

struct MachineConfig;
class Kernel;

using pmu::NativeEvent;

// A counter as the host programmed it, and its value.
struct ProgrammedCounter {
  std::string event;   // native event name
  std::string device;  // "/dev/hpm/upc", "/dev/hpm/punit3", ...
  i32 core = -1;       // the core of a per-core unit (a PUnit), else -1
  i32 port = -1;       // the input port it counts alone (a sliced L2 counter's slice), else -1
  std::string_view port_name;  // what the unit's ports are ("slice")
  u32 counter = 0;             // counter index in that unit
  u64 value = 0;
};

class Monitor : public probe::Sink, public DeviceProvider {
 public:
  // Attaches the units and catalogue of the family `machine.monitor.unit` names (one of
  // `families`; Error(kConfig) if none does) to `bus` and `kernel`. With
  // `count_from_statistics` (the timing driver's promise: instructions issue in non-decreasing
  // cycle order across the node, and it calls issuing() and levelsReached() as they say), a
  // level-high counter without interrupt or overflow whose events have statistics (the bus's
  // tallies) takes its counts from them at the end of each of its windows, unless
  // monitor.counting says "events" (docs/architecture.md, "Counting from statistics").
  Monitor(const MachineConfig& machine, probe::Bus& bus, Kernel& kernel,
          bool count_from_statistics = false,
          const std::vector<UnitFamily>& families = unitFamilies());
  ~Monitor() override;
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;

  // The attached family (null: the machine has no counter unit), and its units, one per device.
  const UnitFamily* family() const;
  const std::vector<std::unique_ptr<pmu::CounterUnit>>& units() const;
  const std::vector<NativeEvent>& catalogue() const;
  const NativeEvent* find(const std::string& name) const;
  // Native events whose counts add up to the generic event `name` (a catalogue generic name,
  // its upper-case form, or a perf name such as "instructions"), or to the native event `name`
  // counted per hardware thread only (its `name@t<t>` variants): empty if unknown.
  std::vector<const NativeEvent*> expand(const std::string& name) const;
  // The same with each native event's sign in the sum (a perf name's definition may subtract).
  struct Term {
    const NativeEvent* event = nullptr;
    int sign = 1;
  };
  std::vector<Term> expandTerms(const std::string& name) const;
  // The perf-style names stat accepts, with the generic events each sums ("-Name": subtracts);
  // a name listed twice has alternatives, the first whose generics all exist on the machine
  // taken.
  static const std::vector<std::pair<std::string, std::vector<std::string>>>& perfAliases();
  // perf's software events, which stat takes from the kernel after a run (as Linux's are the
  // kernel's): task-clock, cpu-clock, cpu-migrations, migrations.
  static std::span<const std::string_view> perfSoftwareEvents();
  // perf's event names with no model here (no TLB, no NUMA node counters, no bus clock): stat
  // prints "<not supported>" for them, as perf does for what a machine cannot count.
  static std::span<const std::string_view> perfUnsupportedEvents();

  // ---- host programming (before the run, and host multiplexing's switches during it) ----
  // Programs counters for the given native events from cycle 0. Throws Error naming the
  // conflict (two events needing one counter) and, when there is one, an assignment that works.
  void programHost(const std::vector<const NativeEvent*>& events);
  // Whether programHost(events) would succeed: nothing, or the conflict it would name. Changes
  // nothing (call it before programming).
  std::optional<std::string> hostFits(const std::vector<const NativeEvent*>& events);
  // Host multiplexing (hpmsim stat): stops every unit host programming started, at `at` (the
  // counters keep their values, which sampleHost and readHost still read, until reprogramHost);
  // reprogramHost starts counting `events` at `at`, which must fit (hostFits). A unit's
  // readings settle hostSettleCycles() after it stopped (UPC-Q's sweep, UPC-P's carries): a
  // switch reads the stopped set then, and only then starts the next.
  void stopHost(Cycle at);
  void reprogramHost(const std::vector<const NativeEvent*>& events, Cycle at);
  Cycle hostSettleCycles() const;
  // Counts every input from the published events, as monitor.counting = "events" does: called
  // before programming. Host multiplexing does, since counting from statistics does not survive
  // its switches (found: windows applied in bulk after a restart meet a local count they did
  // not expect, an internal error in UPC-Q's sweptWindows on amg 24 2 with 4 threads).
  void countFromEvents();
  // Every counter the host programmed, with its value (the unit settled after the run: the
  // maintenance or sweep latency elapsed).
  std::vector<ProgrammedCounter> readHost(Cycle end);
  // The same counters' identities (values 0), without any access: in sampleHost's order.
  std::vector<ProgrammedCounter> hostLayout() const;
  // The values of the host-programmed counters as they read at `now` (an interval sample).
  std::vector<u64> sampleHost(Cycle now);

  // ---- probe::Sink ----
  void pulse(u32 input, Cycle t, u64 count) override;
  void level(u32 input, Cycle t0, Cycle t1) override;
  // To every unit that wants the interconnect's transactions (pmu::CounterUnit).
  void transaction(const probe::Transaction& t) override;

  // ---- DeviceProvider ----
  int findDevice(std::string_view path) const override;
  u64 windowBytes(int device) const override;
  // Every counter unit is on the device bus, as Blue Gene/P's UPC (U-Boot's Blue Gene/P map,
  // kittyhawk/uboot include/configs/bgp.h: "Devbus", upper address 0x7, with the interrupt
  // controller, the lockbox and the SRAM).
  probe::DeviceBus bus(int) const override { return probe::DeviceBus::kDevice; }
  u64 readRegister(int device, u64 offset) override;
  void writeRegister(int device, u64 offset, u64 value) override;
  // (The unit's own rule: pmu::CounterUnit::writeNarrow.)
  void writeNarrow(int device, u64 offset, unsigned size, u64 value) override;
  void setInterruptTarget(int device, int tid, int signo) override;
  void interruptDelivered(int device, Cycle at) override;
  void windowMapped(int) override { in_use_ = true; }
  // Whether a unit is in use: the process mapped a window of one (a guest library programs or
  // reads it), or the host programmed counters. Once in use, in use for the rest of the run:
  // the functional mode counts instructions from then on (node/simulation.cpp).
  bool inUse() const { return in_use_; }
  std::vector<std::string> devicePaths() const;
  // A register access of the host during the run at cycle `at`, between instructions (a tool
  // sampling or reprogramming a unit, as busstat does): after every event before `at`, and those
  // of `at` if an instruction of that cycle has issued (as sampleHost).
  u64 hostRead(int device, u64 offset, Cycle at) {
    return accessRead(device, offset, at, latest_issue_ >= at);
  }
  void hostWrite(int device, u64 offset, u64 value, Cycle at) {
    in_use_ = true;
    accessWrite(device, offset, value, at, latest_issue_ >= at);
  }

  // Delivers the interrupts raised up to `now` to their threads, at most once per
  // monitor.poll_cycles (earlier calls return at once); cheap when no thread takes interrupts.
  // Returns whether it sent any.
  bool poll(Cycle now);
  // The cycle from which the next poll() does anything (~0 while no thread takes interrupts):
  // a driver calls poll() before the first instruction at or after it, so interrupts reach their
  // thread within poll_cycles of being raised.
  Cycle pollDue() const { return poll_due_; }

  // ---- fault injection (hpmsim run --sram-fault) ----
  // Flips bit `bit` of counter `counter`'s SRAM entry in unit `device` at the first instruction
  // issue at or after cycle `at` (then an access of the unit: the cycle it takes effect is
  // `applied`). Fails (ExitCode::kUsage) naming the problem when the unit keeps no SRAM or the
  // counter or bit does not exist. What the unit detected is in its detectedFaults().
  struct SramFault {
    u32 device = 0;
    u32 counter = 0;
    u32 bit = 0;
    Cycle at = 0;
    Cycle applied = ~Cycle{0};  // ~0: not yet (the run ended before `at`)
  };
  void scheduleSramFault(const SramFault& fault);
  const std::vector<SramFault>& sramFaults() const;

  // ---- counting from statistics: the timing driver's calls ----
  // An instruction of hardware thread `thread`, whose dormantFlag is `dormant`, issues at `at`
  // while the monitor is tallying(): the windows that ended by then take their counts before its
  // events happen. (tallying() changes only with the bus's epoch, which the driver watches: it
  // need not ask before every instruction.)
  void issuing(Cycle at, const u8& dormant) {
    previous_issue_ = latest_issue_;
    latest_issue_ = at;
    if (dormant != 0) [[unlikely]]
      wake(static_cast<u32>(&dormant - dormant_.data()));
    if (at >= tally_due_) [[unlikely]]
      advanceTallies(at);
  }
  // Hardware thread `thread`'s flag for issuing(); valid for the monitor's lifetime.
  const u8& dormantFlag(u32 thread) const { return dormant_[thread]; }
  // Hardware thread `thread`'s clock moved while it waited (idle time).
  void waking(u32 thread) {
    if (dormant_[thread] != 0) [[unlikely]]
      wake(thread);
  }
  // No instruction will issue before `t` (the driver is about to move a waiting hardware
  // thread's clock there): the windows that ended by then may take their counts.
  void settle(Cycle t) {
    if (t >= tally_due_) [[unlikely]]
      advanceTallies(t);
  }
  // By hardware thread: once its clock (the timing model's) is at or past this cycle, the driver
  // calls levelsReached(thread), which counts the thread's level events of windows that ended
  // while it lagged behind. Valid for the monitor's lifetime.
  const Cycle* levelDue() const;
  // Whether any counter counts from statistics now (else issuing() and levelDue() do nothing).
  bool tallying() const { return tallying_; }
  void levelsReached(u32 thread);

  // Exact totals of what the bus delivered for each input (the ideal reference counters).
  u64 reference(u32 input) const;
  // When an input was high, as the bus delivered it: the reference for counters in the level-low
  // and edge modes, which count low cycles and transitions rather than occurrences. A test hook:
  // traceInput(input), before the run, starts recording the input's pulses (cycle, count) and
  // level intervals [t0, t1) (abutting or overlapping intervals may arrive merged: the union is
  // kept); trace(input) returns them, everything delivered so far included.
  struct InputTrace {
    std::vector<std::pair<Cycle, u64>> pulses;
    std::vector<std::pair<Cycle, Cycle>> levels;
  };
  void traceInput(u32 input);
  // A test hook: from now on every interconnect transaction is recorded (and published, whatever
  // the units want); recordedTransactions() returns them in the order delivered.
  void recordTransactions();
  const std::vector<probe::Transaction>& recordedTransactions() const;
  const InputTrace& trace(u32 input);
  void visitStats(stats::Visitor& v) const;

  struct Impl;

 private:
  void advanceTallies(Cycle now);
  // A register access at `at`, after the events of `at` too when `events_of_at`.
  u64 accessRead(int device, u64 offset, Cycle at, bool events_of_at);
  // (A store of `size` bytes: fewer than 8 go to the unit's writeNarrow.)
  void accessWrite(int device, u64 offset, u64 value, Cycle at, bool events_of_at,
                   unsigned size = 8);
  void wake(u32 thread);

  std::unique_ptr<Impl> impl_;
  Cycle poll_due_ = ~Cycle{0};
  // The next end of a window counted from statistics (~0: none), and the issue cycles of the
  // last two instructions.
  Cycle tally_due_ = ~Cycle{0};
  Cycle latest_issue_ = 0;
  Cycle previous_issue_ = 0;
  // By hardware thread: its core's counters counting from statistics sleep (nothing of the core
  // changed over a whole pass of their windows): its next instruction wakes them.
  std::vector<u8> dormant_;
  bool tallying_ = false;
  bool in_use_ = false;
};

}  // namespace hpm
