// The monitor's internals (node/monitor.h), shared by its files: monitor.cpp (routing and the
// devices), monitor_tally.cpp (counting from statistics) and monitor_host.cpp (the catalogue and
// host programming). Nothing here knows which unit family it holds (pmu/counter_unit.h).
#pragma once

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernel/kernel.h"
#include "node/machine.h"
#include "node/monitor.h"
#include "pmu/counter_unit.h"

namespace hpm {

struct Monitor::Impl {
  // A unit input fed by a bus input.
  struct Target {
    u32 slot;   // index into `slots`
    u32 port;   // the unit's input port (an L2 unit's slice); else 0
    u32 event;  // the unit's event input
    u32 id;     // dense id of (slot, port, event), for the per-input time order
  };
  // One unit instance, one guest device.
  struct Slot {
    pmu::CounterUnit* unit = nullptr;
    i32 tid = 0;  // interrupt target
    i32 signo = 0;
    // Whether the unit counts (START_STOP / RUN bit 0), tracked at every write: reading the
    // register would be an access, which must not precede the inputs already applied.
    bool running = false;
    u64 interest_epoch = ~u64{0};  // the unit's interest epoch at the last refresh
    // Every input applied to the unit is of a cycle before this one. Another hardware thread's
    // event of cycle t may be applied before a register access of cycle t (both threads issue
    // in t); the access then takes place at the end of t: that event counts as before it.
    Cycle horizon = 0;
  };
  struct PendingInterrupt {
    u32 slot;
    u32 counter;
    Cycle cycle;
  };
  // Inputs of one unit input not yet applied to the unit (docs/PERFORMANCE.md, "Monitoring").
  // Pulses: `count` occurrences in cycles [first, last], applied as one pulse at `last`; only
  // for counters that count plainly (pmu::CounterUnit::plainCounting), and only while no window
  // end of them falls in (first, last]: the unit then ends in the same state (carry latch, lost
  // carries, values) as with the pulses one by one. Levels: the union [start, end) of abutting
  // or overlapping intervals, the same signal. Everything pending is applied before any access
  // to the unit (register reads and writes, polls, host reads).
  struct Batch {
    u64 count = 0;
    Cycle last = 0;
    Cycle until = 0;  // the first visit of the counter after the first pulse
    Cycle level_start = 0, level_end = 0;
    bool dirty = false;  // listed in `dirty`
  };

  Impl(const MachineConfig& m, probe::Bus& b, Kernel& k, Cycle& due, std::vector<u8>& sleeping,
       bool& any)
      : machine(m), bus(b), kernel(k), tally_due(due), dormant(sleeping), tallying(any) {}

  // Attaches the family's units and events.
  void attach(const UnitFamily& f);
  // The ground-truth device (/dev/hpm/sim, node/truth_unit.h), beside the family's units.
  void attachTruth();
  void route();
  // Host programming: plans the events on the units (hostAdd, recorded in `host`; throws
  // Error naming a conflict), then writes and starts the plan at `at` (flushing first).
  void planHost(const std::vector<const NativeEvent*>& events);
  void startHost(Cycle at, bool events_of_at);
  void refreshInterest();
  void refreshBatching(Cycle now);
  pmu::CounterUnit& unitOf(const Target& t) const { return *slots[t.slot].unit; }
  bool batchableTarget(const Target& t) const { return unitOf(t).plainCounting(t.port, t.event); }
  // The end of the window of pulses that may be applied as one (the first window end after
  // `at` of a counter counting the target's event; ~0 if there is none).
  Cycle windowEnd(const Target& t, Cycle at) const {
    return unitOf(t).windowEnd(t.port, t.event, at);
  }
  // Whether some counter of the target's unit selects its event (else the unit ignores it);
  // cached in `interested` by refreshBatching, after every write that can change it.
  bool interestedIn(const Target& t) const { return unitOf(t).selects(t.port, t.event); }
  void tracePulse(u32 input, Cycle t, u64 count) {
    if (!traces.empty() && traces.contains(input)) traces[input].pulses.emplace_back(t, count);
  }
  void traceLevel(u32 input, Cycle t0, Cycle t1) {
    if (!traces.empty() && traces.contains(input)) traces[input].levels.emplace_back(t0, t1);
  }
  void deliverPulse(const Target& target, Cycle at, u64 count);
  void deliverLevel(const Target& target, Cycle t0, Cycle t1);
  void flushBatch(u32 id);
  // Applies the bus's pulse batches of a group's inputs: to each target, one pulse.
  void takeGroup(u32 group);
  void takeBusBatches(u32 input);
  void noteOpen(u32 input) {
    if (!bus_open[input]) {
      bus_open[input] = 1;
      open_inputs.push_back(input);
    }
  }
  // Applies every pending input: before any access to any unit at cycle `now` (counts from
  // statistics up to it; of cycle `now` too when `events_of_now`: some instruction of that
  // cycle has issued).
  void flushAll(Cycle now, bool events_of_now) {
    flushTallies(now, events_of_now);
    for (u32 input : open_inputs) {
      takeBusBatches(input);
      bus_open[input] = 0;
    }
    open_inputs.clear();
    for (u32 id : dirty) flushBatch(id);
    dirty.clear();
  }
  Cycle unitNow(u32 slot) const { return slots[slot].unit->now(); }
  // The earliest cycle >= t at which the unit of `slot` may be accessed (docs: Slot::horizon).
  Cycle accessAt(u32 slot, Cycle t) const {
    return std::max({t, unitNow(slot), slots[slot].horizon});
  }

  const MachineConfig& machine;
  probe::Bus& bus;
  Kernel& kernel;
  std::optional<UnitFamily> family;  // none: no counter unit
  u64 poll_cycles = 64;
  Cycle next_poll = 0;
  bool polling = false;
  std::vector<SramFault> faults;  // scheduled (scheduleSramFault), in order of `at`
  Cycle next_fault = ~Cycle{0};   // the earliest `at` not applied yet
  // The cycle from which poll() has work: the next poll while a thread takes interrupts, or the
  // next fault.
  Cycle pollDue() const { return std::min(polling ? next_poll : ~Cycle{0}, next_fault); }
  void applyFaults(Cycle now);

  std::vector<std::unique_ptr<pmu::CounterUnit>> units;
  std::vector<Slot> slots;  // by unit

  std::vector<NativeEvent> catalogue;
  std::map<std::string, std::size_t> index;
  // Bus input f feeds targets[route_begin[f] .. route_begin[f + 1]).
  std::vector<u32> route_begin;
  std::vector<Target> targets;
  std::vector<Target> target_of;   // by Target::id
  std::vector<Cycle> last_start;   // by Target::id
  std::vector<Cycle> level_until;  // by Target::id: the end of the latest interval given to it
  // By Target::id: the cycle of the latest input given to the unit (a pulse's, an interval's
  // first). last_start can be later: it is where the latest input to arrive starts, which may
  // wait in a batch.
  std::vector<Cycle> given;
  std::vector<Batch> batches;  // by Target::id
  std::vector<u8> batchable;   // by Target::id: pulses may be batched
  std::vector<u32> dirty;      // ids with something pending
  // Bus inputs whose batches the bus itself keeps (probe::Bus::openPulseBatch): the only input
  // of a single target, pulses batchable / levels. A level input may feed several targets of
  // which one is interested (PEVT_CYCLES of a thread feeds its PUnit's counter and the core's
  // sum): the bus keeps its batch for that one (bus_level_target), as the others would ignore
  // its intervals.
  std::vector<u8> bus_pulse_batch, bus_level_batch, bus_open;  // by bus input
  std::vector<u32> bus_level_target;  // by bus input: index into `targets` of its level target
  // Level inputs (of a bus_level_batch input's target, batchable) whose intervals the bus may
  // count as pulses, one per cycle (probe::Bus::openCountBatch).
  std::vector<u8> bus_count_level;  // by bus input
  std::vector<u8> level_input;      // by bus input: an input of a level event
  // By bus input (of bus_level_batch): the end of its intervals applied or pending so far (a
  // count batch takes only intervals after it: overlapping intervals are one signal).
  std::vector<Cycle> level_end;
  std::vector<u32> bus_pulse_target;  // by bus input: index into `targets` of its batch's target
  std::vector<u32> feeders;           // by Target::id: bus inputs feeding it
  // Inputs whose pulses reach several interested targets, or a target with several feeds (a
  // sum over a core's threads, often counted with its threads' own events): a group is a
  // connected set of such inputs and their interested targets, all batchable. Their bus
  // batches share one window, the first visit of any of the group's counters after the first
  // pulse, and are applied together (Monitor::pulse).
  struct Group {
    std::vector<u32> inputs;
    std::vector<u32> targets;  // indices into `targets`: (input, target) routes
    Cycle until = 0;           // 0: no batch open
  };
  static constexpr u32 kNoGroup = ~u32{0};
  std::vector<Group> groups;
  std::vector<u32> group_of;         // by bus input: its group, or kNoGroup
  std::vector<u64> group_sum;        // by Target::id (scratch of takeGroup)
  std::vector<Cycle> group_last;     // by Target::id (scratch of takeGroup)
  std::vector<u8> interested;        // by Target::id: interestedIn(target)
  std::vector<u32> open_inputs;      // bus inputs with a batch open in the bus
  std::vector<u64> reference;        // by bus input
  std::map<u32, InputTrace> traces;  // the traced inputs (traceInput)
  // The units that want interconnect transactions now (refreshInterest), and the test hook's
  // record of every transaction (recordTransactions).
  std::vector<u32> transaction_slots;
  bool recording = false;
  std::vector<probe::Transaction> recorded;
  std::vector<PendingInterrupt> pending;

  struct HostCounter {
    const NativeEvent* event;
    u32 slot;
    u32 counter;
    i32 port;  // the input port it counts alone (a sliced L2 counter's slice), or -1: all
  };
  std::vector<HostCounter> host;

  // ---- Counting from statistics (docs/architecture.md) ----
  // A counter counting level high without interrupt or overflow (a batchable target) in a unit
  // whose counters have periodic windows (UPC-P's maintenance visits, UPC-Q's sweep), every feed
  // of which has statistics on the bus (probe::Bus::tally): its count in a window is what those
  // statistics grew by, read at the window's end and applied as one pulse at the window's last
  // cycle, which leaves the unit as the events one by one would (the same carry or local value
  // at the visit). Its feeds are not published for it. Pulse feeds are read when the first
  // instruction at or after the window's end issues (Monitor::issuing): every event of the
  // cycles before has happened then, none of a later one. A hardware thread's level events are
  // known once its clock has passed the window's end (probe::LevelSource): read then as well,
  // or when its clock gets there (lag_from, Monitor::levelsReached).
  static constexpr u32 kNoTally = ~u32{0};
  static constexpr Cycle kNever = ~Cycle{0};
  // (The fields a window end reads come first: one cache line of the common case.)
  struct alignas(64) Tally {
    probe::Event level = probe::Event::kCount;  // a level tally's event (kCount: a pulse tally)
    bool running = false;                       // its unit counts
    // A level tally whose thread's clock lagged behind an access (a flush, or counting began):
    // the cycles from its clock on were not attributed then, and its next lump reaches the unit
    // as an interval (an interval published late starts at the access, as Monitor::level has
    // it), not as a window's count that could exceed what the counter takes in a window.
    bool gap = false;
    // Windows in bulk (pmu::CounterUnit::bulkWindows; UPC-Q's sweep): when the target's unit
    // takes them (`sweepable`, with `local_limit`: a window's count must stay below it), the
    // windows that follow one applied as a pulse (`chained`: the unit's last input from this tally)
    // wait in `swept` until the next access to a unit, the latest of them in `held` (applied as a
    // pulse then, so the unit's state is what the pulses would leave). A window costs the unit
    // nothing until then.
    bool sweepable = false;
    bool chained = false;
    u32 terms_begin = 0, terms_end = 0;  // a pulse tally: its feeds' terms in tally_terms
    u64 last = 0;                        // the count applied so far
    Cycle since = 0;                     // everything before this cycle is applied
    // A pulse tally's feeds' version (probe::Bus::tallyVersion), when they share one, and its
    // value when `last` was read: while it stays, so do the statistics.
    const u64* version = nullptr;
    u64 seen = 0;
    u64 local_limit = 0;
    u64 held = 0;  // 0: none
    Cycle held_visit = 0;
    Cycle level_until = 0;                // the end of the last level interval given to the unit
    pmu::CounterUnit::BulkWindows swept;  // windows 0: none
    u32 id = 0;                           // Target::id
    u32 thread = 0;                       // a level tally: its feed's hardware thread
    u32 version_core = 0;
  };
  // A window end of a schedule: its cycle modulo the period, its tally and (the node's
  // schedule) its run or kPlainRun, and the statistic its window end reads first (prefetched
  // with its tally once the previous window end is passed: the walk would otherwise wait for
  // both, their lines having left the cache in the instructions between two window ends).
  struct Entry {
    u32 offset = 0;
    u32 tally = 0;
    u32 run = kNoRun;
    const void* hint = nullptr;
    bool operator<(const Entry& o) const {
      return offset != o.offset ? offset < o.offset : tally < o.tally;
    }
  };
  // Window ends repeating every `period` cycles (at most 2^32), walked in time order.
  struct Schedule {
    std::vector<Entry> entries;  // sorted
    Cycle period = 1;
    Cycle base = 0;  // a multiple of period: the current entry ends its window at base + offset
    u32 cursor = 0;
    Cycle next = kNever;  // base + the current entry's offset (kNever: no entries)
    // (Valid once seekAfter placed the cursor in the entries as they are.)
    Cycle due() const { return next; }
    u32 tally() const { return entries[cursor].tally; }
    void step() {
      if (++cursor == entries.size()) {
        cursor = 0;
        base += period;
      }
      next = base + entries[cursor].offset;
    }
    // Makes the first window end after cycle t the current entry.
    void seekAfter(Cycle t) {
      if (entries.empty()) {
        next = kNever;
        return;
      }
      base = (t + 1) / period * period;
      const Cycle offset = t + 1 - base;
      cursor = static_cast<u32>(
          std::lower_bound(entries.begin(), entries.end(), Entry{static_cast<u32>(offset), 0}) -
          entries.begin());
      if (cursor == entries.size()) {
        cursor = 0;
        base += period;
      }
      next = base + entries[cursor].offset;
    }
  };
  // Consecutive entries of the schedule whose tallies share a version (a core's counters,
  // which UPC-Q's sweep visits one after the other): while the version stays what it was when
  // the whole run was last read, and the threads of its level tallies lag (their windows wait
  // anyway), passing the run reads nothing. An idle core's counters cost a compare each.
  // A run whose version did not change over a whole round, with its level tallies' threads
  // lagging, sleeps: its entries leave the schedule until an instruction of its core issues or
  // one of its hardware threads waited (Monitor::issuing, Monitor::waking), which the version's
  // every change comes with.
  struct Run {
    u32 first = 0, last = 0;  // indices in the schedule's entries (kNoRun: asleep)
    const u64* version = nullptr;
    u32 core = 0;        // whose activity its version follows
    u64 seen = ~u64{0};  // the version when every entry was last read in one pass
    u64 candidate = 0;   // the version at the first entry of this pass
    bool skipping = false;
    bool dormant = false;
    std::vector<u32> threads;  // of its level tallies
  };
  std::vector<pmu::CounterUnit::Windows> visitsOf(const Target& t) const {
    return unitOf(t).windows(t.port, t.event);
  }
  void buildSchedule(Cycle now);
  void activate();
  void wake(u32 thread);
  static constexpr u32 kNoRun = ~u32{0};
  static constexpr u32 kPlainRun = kNoRun - 1;  // Entry::run: passed without its run's walk
  bool lagging(const Run& r) const {
    return std::all_of(r.threads.begin(), r.threads.end(),
                       [&](u32 h) { return lag_from[h] != kNever; });
  }
  // Takes the schedule's current entry, one of a run walked as a run (not kPlainRun: the walk
  // in advanceTallies takes those itself), and steps past it.
  void passEntry();
  bool tallyable(const Target& t) const;
  // Whether the bus may keep the level batches of the input whose route to a target is `route`.
  bool levelBatchable(u32 route) const;
  void rebuildTallies(Cycle now);
  void setRunning(u32 slot, bool running, Cycle now);
  // After an access of `slot`'s unit at `now` that may have started or stopped it: its running
  // state taken from the unit (setRunning if it changed); returns whether it changed.
  bool syncRunning(u32 slot, Cycle now) {
    Slot& s = slots[slot];
    if (s.unit->running() == s.running) return false;
    s.running = !s.running;
    setRunning(slot, s.running, now);
    return true;
  }
  // (Inlined into the schedule's walk: a window end costs a few loads when nothing changed.)
  [[gnu::always_inline]] u64 tallyValue(const Tally& k, Cycle t) const {
    if (k.level != probe::Event::kCount)
      return bus.levelSource()->levelBefore(k.level, k.thread, t);
    u64 sum = 0;
    for (u32 i = k.terms_begin; i < k.terms_end; ++i) {
      sum += tally_terms[i].weight * *tally_terms[i].value;
    }
    return sum;
  }
  // A pulse tally's count now, or `last` when its version says nothing changed since.
  [[gnu::always_inline]] u64 pulseValue(Tally& k) const {
    if (k.version != nullptr) {
      if (*k.version == k.seen) return k.last;
      k.seen = *k.version;
    }
    return tallyValue(k, 0);
  }
  // The count so far of a tally that starts (or restarts) counting at `now`: for a level tally
  // the thread's whole last lump, which was published (or not) before.
  void rebase(Tally& k, Cycle now) {
    if (k.level == probe::Event::kCount) {
      if (k.version != nullptr) k.seen = *k.version;
      k.last = tallyValue(k, kNever);
      k.since = now;
    } else {
      k.last = tallyValue(k, kNever);
      const Cycle clock = bus.levelSource()->levelClock(k.thread);
      k.since = std::max(now, clock);
      if (clock < now) markGap(k);
    }
  }
  // Tally k's thread lags behind an access: its next lump goes to the unit as an interval.
  void markGap(Tally& k) {
    k.gap = true;
    lag_from[k.thread] = std::min(lag_from[k.thread], bus.levelSource()->levelClock(k.thread) + 1);
  }
  // The rest of tally k's thread's last lump as an interval (after the part before it).
  void levelLump(Tally& k);
  void tallyPulse(Tally& k, Cycle at, u64 count);
  void tallyLevel(Tally& k, Cycle t0, Cycle t1);
  // Window v of tally k counted `count` events (> 0).
  void windowPulse(Tally& k, Cycle v, u64 count) {
    if (k.chained && count < k.local_limit) {
      if (k.held != 0) {
        if (k.swept.windows == 0) k.swept.first_end = k.held_visit;
        k.swept.last_end = k.held_visit;
        k.swept.amount += k.held;
        k.swept.max_window = std::max(k.swept.max_window, k.held);
        ++k.swept.windows;
      }
      k.held_visit = v;
      k.held = count;
      return;
    }
    applySwept(k);
    const Target& target = target_of[k.id];
    const bool on_time = v - 1 >= std::max(last_start[k.id], unitNow(target.slot));
    tallyPulse(k, v - 1, count);
    // (A level interval given to the unit that runs past v, moved later by an access, would
    // count in the next window as well: no chain starts before its end.)
    k.chained = k.sweepable && on_time && k.level_until <= v;
  }
  // Gives the unit tally k's waiting windows.
  void applySwept(Tally& k);
  // The window of tally k ended at v: its count there is applied.
  [[gnu::always_inline]] void tallyWindow(Tally& k, Cycle v) {
    if (!k.running || v <= k.since) return;
    if (k.gap) {
      levelLump(k);
      return;
    }
    const u64 value = k.level == probe::Event::kCount ? pulseValue(k) : tallyValue(k, v);
    k.since = v;
    if (value == k.last) return;
    windowPulse(k, v, value - k.last);
    k.last = value;
  }
  [[gnu::always_inline]] inline void scheduleEntry(u32 tally, Cycle v);
  void advanceTallies(Cycle now);
  void resolveLag(u32 thread);
  void flushTallies(Cycle now, bool events_of_now);

  // (What the walk reads first at every window end, in two lines of the host's cache.)
  alignas(64) Schedule schedule;  // every tally's window ends
  std::vector<Tally> tallies;
  std::vector<probe::TallyTerm> tally_terms;
  Cycle tallied_through = 0;  // the schedule's window ends up to this cycle are taken
  bool sleep_pending = false;
  u32 open_run = kNoRun;  // the run whose first entry this pass of the schedule took
  std::vector<Run> runs;

  Cycle& tally_due;  // Monitor::tally_due_: schedule.due()
  bool count_from_statistics = false;
  std::vector<u32> tally_of;                   // by Target::id: its tally, or kNoTally
  std::vector<std::vector<u32>> target_feeds;  // by Target::id: the bus inputs feeding it
  std::vector<Entry> all_entries;  // every running tally's window ends, sorted, with their runs
  Cycle tally_period = 1;
  std::vector<u8>& dormant;  // Monitor::dormant_: by hardware thread, its core's runs sleep
  bool& tallying;            // Monitor::tallying_: some tally runs
  std::vector<Schedule> thread_schedules;        // by hardware thread: its level tallies' ends
  std::vector<std::vector<u32>> thread_tallies;  // by hardware thread: its level tallies
  // By hardware thread (Monitor::levelDue): the first window end of a level tally of its that
  // its clock had not reached when the schedule passed it (kNever: none): that window and the
  // later ones of its tallies wait for its clock.
  std::vector<Cycle> lag_from;
  // By bus input: counted from statistics and not published (its reference grows with the
  // statistic), and the statistic when that began.
  std::vector<u8> input_tallied;
  std::vector<u64> input_base;
  u64 tally_windows = 0;

  u64 interrupts_delivered = 0;
  u64 shifted_inputs = 0;
  u64 pulses = 0, levels = 0;            // calls from the bus (not what the bus batched itself)
  u64 unit_pulses = 0, unit_levels = 0;  // inputs applied to the units
};

}  // namespace hpm
