#include "node/monitor.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>

#include "base/error.h"
#include "isa/ops.h"
#include "kernel/kernel.h"
#include "node/machine.h"
#include "pmu/upc/unit.h"
#include "pmu/upcq/units.h"

namespace hpm {
namespace {

using probe::Event;
using probe::Kind;
using probe::Scope;

std::string upper(std::string_view s) {
  std::string out;
  for (char c : s)
    out += c == '.' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string lower(std::string_view s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The operations with an instruction-count event (every one but the illegal encoding).
std::vector<u32> countedOps() {
  std::vector<u32> ops;
  for (u32 op = 0; op < isa::kOpCount; ++op) {
    if (static_cast<isa::Op>(op) != isa::Op::kIllegal) ops.push_back(op);
  }
  return ops;
}

// "L1dMisses" -> "L1D_MISSES", "op:fadd.d" -> "OP_FADD_D".
std::string genericUpper(const std::string& generic) {
  if (generic.starts_with("op:")) return "OP_" + upper(generic.substr(3));
  for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
    if (probe::kEventInfo[ev].name == generic) return probe::upperName(static_cast<Event>(ev));
  }
  return generic;
}

std::string opGeneric(u32 op) {
  return "op:" + std::string(isa::opInfo(static_cast<isa::Op>(op)).mnemonic);
}

// Events whose count in one cycle is not bounded by a small number (bytes moved, cycles waited,
// threads woken at once): a counter unit sized for one or two events per cycle per counter could
// lose carries on them, so they are wired only to counters wide enough (the I/O unit's 32-bit
// registers); their ground truth stays in the statistics.
bool unboundedRate(Event e) {
  switch (e) {
    case Event::kL2Bytes:
    case Event::kL2BusyCycles:
    case Event::kDdrBytes:
    case Event::kDdrBusyCycles:
    case Event::kFetchPortWaits:
    case Event::kIoBytesRead:
    case Event::kIoBytesWritten:
    case Event::kIoConsoleBytes:
    case Event::kFutexWakes:
    case Event::kTimerExpirations: return true;
    default: return false;
  }
}

bool isIoEvent(Event e) {
  return e >= Event::kIoReads && e <= Event::kIoOpens;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

struct Monitor::Impl {
  // A unit input fed by a bus input.
  struct Target {
    u32 slot;   // index into `slots`
    u32 port;   // L2Unit: the slice; else 0
    u32 event;  // the unit's event input
    u32 id;     // dense id of (slot, port, event), for the per-input time order
  };
  // One unit instance, one guest device.
  struct Slot {
    std::string path;
    upcq::Unit* q = nullptr;  // UPC-Q units
    i32 tid = 0;              // interrupt target
    i32 signo = 0;
    bool slow = false;     // L2Unit, IOUnit: interruptDelivered after delivery
    u32 next_counter = 0;  // host programming: next free counter
    // Whether the unit counts (START_STOP / RUN bit 0), tracked at every write: reading the
    // register would be an access, which must not precede the inputs already applied.
    bool running = false;
    u64 interest_epoch = ~u64{0};  // the unit's interest epoch at the last refresh
    // Every input applied to the unit is of a cycle before this one. Another hardware thread's
    // event of cycle t may be applied before a register access of cycle t (both threads issue
    // in t); the access then takes place at the end of t: that event counts as before it.
    Cycle horizon = 0;
    std::vector<u64> configs = {};  // UPC-Q: the CONFIG registers, read after every write to them
  };
  struct PendingInterrupt {
    u32 slot;
    u32 counter;
    Cycle cycle;
  };
  // Inputs of one unit input not yet applied to the unit (docs/PERFORMANCE.md, "Monitoring").
  // Pulses: `count` occurrences in cycles [first, last], applied as one pulse at `last`; only
  // for a UPC-P counter that counts level high without interrupt, and only while no visit of its
  // counter falls in (first, last]: the unit then ends in the same state (carry latch, lost
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

  void buildUpcP();
  void buildUpcQ();
  void addEvent(NativeEvent e) {
    e.scope = scopeOf(e);
    index[e.name] = catalogue.size();
    catalogue.push_back(std::move(e));
  }
  // The scope of a catalogue entry: its bus event's, or a core's for a sum over a core's
  // threads; operation counts ("Op:addi") are per hardware thread.
  static probe::Scope scopeOf(const NativeEvent& e) {
    probe::Scope scope = probe::Scope::kThread;
    for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
      if (probe::kEventInfo[ev].name == e.generic) scope = probe::kEventInfo[ev].scope;
    }
    const bool summed = std::any_of(e.feeds.begin(), e.feeds.end(),
                                    [](const std::vector<u32>& f) { return f.size() > 1; });
    return scope == probe::Scope::kThread && summed ? probe::Scope::kCore : scope;
  }
  void route();
  void refreshInterest();
  void refreshBatching(Cycle now);
  void readQConfigs(u32 slot);
  bool batchableTarget(const Target& t) const;
  // UPC-Q: f(i, configuration) for each local counter of the target's port that selects its
  // event.
  template <typename F>
  void forEachLocal(const Target& t, F&& f) const {
    const Slot& slot = slots[t.slot];
    const u32 per_port = slot.q->counterCount() / ports(t.slot);
    for (u32 j = 0; j < per_port; ++j) {
      const u32 i = t.port * per_port + j;
      const u64 config = slot.configs[i];
      if ((config & upcq::config_bits::kEventMask) == t.event) f(i, config);
    }
  }
  // The end of the window of pulses that may be applied as one (the first visit after `at` of
  // a counter counting the target's event; ~0 if there is none).
  Cycle windowEnd(const Target& t, Cycle at) const;
  u32 ports(u32 slot) const { return slots[slot].q == l2.get() ? machine.upcq.l2.slices : 1; }
  // Whether some counter of the target's unit selects its event (else the unit ignores it);
  // cached in `interested` by refreshBatching, after every write that can change it.
  bool interestedIn(const Target& t) const {
    return upcp ? upcp->interest().test(t.event) : slots[t.slot].q->interest(t.port).test(t.event);
  }
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
  Cycle unitNow(u32 slot) const { return upcp ? upcp->now() : slots[slot].q->now(); }
  // The earliest cycle >= t at which the unit of `slot` may be accessed (docs: Slot::horizon).
  Cycle accessAt(u32 slot, Cycle t) const {
    return std::max({t, unitNow(slot), slots[slot].horizon});
  }
  Cycle accessTime(u32 slot) const { return accessAt(slot, bus.now()); }
  u64 runOffset(u32 slot) const { return upcp ? upcp->map().start_stop : slots[slot].q->map().run; }
  u64 interestEpoch(u32 slot) const {
    return upcp ? upcp->interest().epoch : slots[slot].q->interest(0).epoch;
  }

  const MachineConfig& machine;
  probe::Bus& bus;
  Kernel& kernel;
  MonitorUnit type = MonitorUnit::kNone;
  u64 poll_cycles = 64;
  Cycle next_poll = 0;
  bool polling = false;

  std::unique_ptr<upc::Unit> upcp;
  std::vector<std::unique_ptr<upcq::PUnit>> punits;
  std::unique_ptr<upcq::L2Unit> l2;
  std::unique_ptr<upcq::IOUnit> io;
  std::unique_ptr<upcq::CNKUnit> cnk;
  std::vector<Slot> slots;

  std::vector<NativeEvent> catalogue;
  std::map<std::string, std::size_t> index;
  // Bus input f feeds targets[route_begin[f] .. route_begin[f + 1]).
  std::vector<u32> route_begin;
  std::vector<Target> targets;
  std::vector<Target> target_of;  // by Target::id
  std::vector<Cycle> last_start;  // by Target::id
  std::vector<Batch> batches;     // by Target::id
  std::vector<u8> batchable;      // by Target::id: pulses may be batched
  std::vector<u32> dirty;         // ids with something pending
  std::vector<u8> config_bytes;   // UPC-P: each counter's configuration byte, as written
  // Bus inputs whose batches the bus itself keeps (probe::Bus::openPulseBatch): the only input
  // of a single target, pulses batchable / levels.
  std::vector<u8> bus_pulse_batch, bus_level_batch, bus_open;  // by bus input
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
  std::vector<PendingInterrupt> pending;

  struct HostCounter {
    const NativeEvent* event;
    u32 slot;
    u32 counter;
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
    Event level = Event::kCount;  // a level tally's event (kCount: a pulse tally)
    bool running = false;         // its unit counts
    // A level tally whose thread's clock lagged behind an access (a flush, or counting began):
    // the cycles from its clock on were not attributed then, and its next lump reaches the unit
    // as an interval (an interval published late starts at the access, as Monitor::level has
    // it), not as a window's count that could exceed what the counter takes in a window.
    bool gap = false;
    // UPC-Q windows in bulk (upcq::Unit::sweptWindows): when one local counter of a unit with a
    // sweep selects the target's event (`sweepable`, with `local_limit` 2^L: a window's count
    // must stay below it), the windows that follow one applied as a pulse (`chained`: the
    // unit's last input from this tally) wait in `swept` until the next access to a unit, the
    // latest of them in `held` (applied as a pulse then, so the unit's state is what the pulses
    // would leave). A window costs the unit nothing until then.
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
    Cycle level_until = 0;           // the end of the last level interval given to the unit
    upcq::Unit::SweptWindows swept;  // windows 0: none
    u32 id = 0;                      // Target::id
    u32 thread = 0;                  // a level tally: its feed's hardware thread
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
  struct Visits {
    Cycle first, period;
  };
  std::vector<Visits> visitsOf(const Target& t) const;
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
  void rebuildTallies(Cycle now);
  void setRunning(u32 slot, bool running, Cycle now);
  // (Inlined into the schedule's walk: a window end costs a few loads when nothing changed.)
  [[gnu::always_inline]] u64 tallyValue(const Tally& k, Cycle t) const {
    if (k.level != Event::kCount) return bus.levelSource()->levelBefore(k.level, k.thread, t);
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
    if (k.level == Event::kCount) {
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
        if (k.swept.windows == 0) k.swept.first_visit = k.held_visit;
        k.swept.last_visit = k.held_visit;
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
    const u64 value = k.level == Event::kCount ? pulseValue(k) : tallyValue(k, v);
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

void Monitor::Impl::buildUpcP() {
  const upc::Params& p = machine.upc;
  upcp = std::make_unique<upc::Unit>(p);
  slots.push_back(Slot{"/dev/hpm/upc"});
  const u32 n = p.counters;
  const u32 half = n / 2;
  const u32 halves = 2 * p.banks();
  const u32 tpc = machine.node.threads_per_core;
  const u32 cores = std::min(machine.node.cores, halves / 2);
  std::vector<i64> owner(p.events, -1);  // catalogue index per input, -1 free

  struct Candidate {
    std::string name, description, generic;
    Kind kind;
    std::vector<u32> feeds;
  };
  auto place = [&](const Candidate& c, u32 input) {
    NativeEvent e;
    e.name = c.name;
    e.description = c.description;
    e.kind = c.kind;
    e.unit = "upc";
    e.input = input;
    e.counter = static_cast<i32>(input % n);
    e.select = static_cast<i32>(input / n);
    e.generic = c.generic;
    e.feeds = {c.feeds};
    owner[input] = static_cast<i64>(catalogue.size());
    addEvent(std::move(e));
  };
  // Core k's events fill its half A (bank k / 2, side k % 2) and then its half B (the same
  // position in the banks after the cores'), as Blue Gene/P's counter modes pair cores 0 and 1,
  // and 2 and 3: with select 0 the 256 counters count cores 0 and 1 (the seed's Table 1).
  std::vector<std::vector<u32>> free_by_core(cores);
  for (u32 k = 0; k < cores; ++k) {
    for (u32 h : {k, cores + k}) {
      if (h >= halves) continue;
      const u32 base = (h / 2) * n + (h % 2) * half;
      for (u32 i = 0; i < half; ++i) free_by_core[k].push_back(base + i);
    }
  }
  for (u32 k = 0; k < cores; ++k) {
    std::vector<Candidate> list;
    for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
      const probe::EventInfo& info = probe::kEventInfo[ev];
      const Event e = static_cast<Event>(ev);
      if (unboundedRate(e)) continue;
      if (info.scope == Scope::kThread) {
        std::vector<u32> feeds;
        for (u32 t = 0; t < tpc; ++t) feeds.push_back(bus.input(e, k * tpc + t));
        list.push_back({fmt::format("PU{}_{}", k, probe::upperName(e)),
                        fmt::format("Core {}: {}", k, info.description), std::string(info.name),
                        info.kind, feeds});
      } else if (info.scope == Scope::kCore) {
        list.push_back({fmt::format("PU{}_{}", k, probe::upperName(e)),
                        fmt::format("Core {}: {}", k, info.description),
                        std::string(info.name),
                        info.kind,
                        {bus.input(e, k)}});
      }
    }
    for (u32 op : countedOps()) {
      std::vector<u32> feeds;
      for (u32 t = 0; t < tpc; ++t) feeds.push_back(bus.inputOp(op, k * tpc + t));
      const std::string_view mn = isa::opInfo(static_cast<isa::Op>(op)).mnemonic;
      list.push_back({fmt::format("PU{}_OP_{}", k, upper(mn)),
                      fmt::format("Core {}: {} instructions retired", k, mn), opGeneric(op),
                      Kind::kPulse, feeds});
    }
    const std::size_t fits = std::min(list.size(), free_by_core[k].size());
    for (std::size_t i = 0; i < fits; ++i) place(list[i], free_by_core[k][i]);
  }
  // Node-wide events take the inputs that are left, in order.
  std::vector<Candidate> shared;
  for (u32 s = 0; s < bus.topology().slices; ++s) {
    for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
      const probe::EventInfo& info = probe::kEventInfo[ev];
      if (info.scope != Scope::kL2Slice || unboundedRate(static_cast<Event>(ev))) continue;
      const std::string u = probe::upperName(static_cast<Event>(ev));
      shared.push_back({fmt::format("L3_BANK{}_{}", s, u.substr(3)),
                        fmt::format("L3 bank {}: {}", s, info.description),
                        std::string(info.name),
                        info.kind,
                        {bus.input(static_cast<Event>(ev), s)}});
    }
  }
  for (u32 c = 0; c < bus.topology().controllers; ++c) {
    for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
      const probe::EventInfo& info = probe::kEventInfo[ev];
      if (info.scope != Scope::kController || unboundedRate(static_cast<Event>(ev))) continue;
      const std::string u = probe::upperName(static_cast<Event>(ev));
      shared.push_back({fmt::format("DDR{}_{}", c, u.substr(4)),
                        fmt::format("DDR controller {}: {}", c, info.description),
                        std::string(info.name),
                        info.kind,
                        {bus.input(static_cast<Event>(ev), c)}});
    }
  }
  for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
    const Event e = static_cast<Event>(ev);
    if (!probe::nodeWide(probe::kEventInfo[ev].scope) || unboundedRate(e)) continue;
    shared.push_back({"CNK_" + probe::upperName(e),
                      std::string(probe::info(e).description),
                      std::string(probe::info(e).name),
                      probe::info(e).kind,
                      {bus.input(e, 0)}});
  }
  std::size_t next = 0;
  for (u32 input = 0; input < p.events && next < shared.size(); ++input) {
    if (owner[input] < 0) place(shared[next++], input);
  }
}

void Monitor::Impl::buildUpcQ() {
  const upcq::Params& p = machine.upcq;
  const u32 cores = machine.node.cores;
  const u32 tpc = machine.node.threads_per_core;
  if (cores > p.punit.cores) {
    fail(ExitCode::kConfig, "upcq.punit.cores ({}) must cover the node's {} cores", p.punit.cores,
         cores);
  }
  for (u32 k = 0; k < cores; ++k) {
    punits.push_back(std::make_unique<upcq::PUnit>(p.punit, k));
    slots.push_back(Slot{fmt::format("/dev/hpm/punit{}", k), punits.back().get()});
  }
  l2 = std::make_unique<upcq::L2Unit>(p.l2);
  slots.push_back(Slot{"/dev/hpm/l2", l2.get(), 0, 0, true});
  io = std::make_unique<upcq::IOUnit>(p.io);
  slots.push_back(Slot{"/dev/hpm/io", io.get(), 0, 0, true});
  cnk = std::make_unique<upcq::CNKUnit>(p.cnk);
  slots.push_back(Slot{"/dev/hpm/cnk", cnk.get()});

  // PUnit inputs (the same numbering on every core): each thread event as the sum over the
  // core's threads (pulses only: level signals of several threads would merge into one wire)
  // and per thread, then the core's events, then one instruction count per operation.
  u32 input = 0;
  auto punitEvent = [&](std::string name, std::string description, std::string generic, Kind kind,
                        const std::function<std::vector<u32>(u32 core)>& feeds) {
    if (input >= p.punit.events) return;
    NativeEvent e;
    e.name = std::move(name);
    e.description = std::move(description);
    e.kind = kind;
    e.unit = "punit";
    e.input = input++;
    e.generic = std::move(generic);
    for (u32 k = 0; k < cores; ++k) e.feeds.push_back(feeds(k));
    addEvent(std::move(e));
  };
  for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
    const probe::EventInfo& info = probe::kEventInfo[ev];
    const Event e = static_cast<Event>(ev);
    const std::string u = probe::upperName(e);
    if (unboundedRate(e)) continue;
    if (info.scope == Scope::kThread) {
      if (info.kind == Kind::kPulse) {
        punitEvent("PEVT_" + u, fmt::format("{} (all threads of the core)", info.description),
                   std::string(info.name), info.kind, [&, e](u32 k) {
                     std::vector<u32> f;
                     for (u32 t = 0; t < tpc; ++t) f.push_back(bus.input(e, k * tpc + t));
                     return f;
                   });
      }
      for (u32 t = 0; t < tpc; ++t) {
        punitEvent(fmt::format("PEVT_{}_T{}", u, t),
                   fmt::format("{} (hardware thread {} of the core)", info.description, t),
                   std::string(info.name), info.kind,
                   [&, e, t](u32 k) { return std::vector<u32>{bus.input(e, k * tpc + t)}; });
      }
    } else if (info.scope == Scope::kCore) {
      punitEvent("PEVT_" + u, std::string(info.description), std::string(info.name), info.kind,
                 [&, e](u32 k) { return std::vector<u32>{bus.input(e, k)}; });
    }
  }
  for (u32 op : countedOps()) {
    const std::string_view mn = isa::opInfo(static_cast<isa::Op>(op)).mnemonic;
    punitEvent("PEVT_OP_" + upper(mn), fmt::format("{} instructions retired", mn), opGeneric(op),
               Kind::kPulse, [&, op](u32 k) {
                 std::vector<u32> f;
                 for (u32 t = 0; t < tpc; ++t) f.push_back(bus.inputOp(op, k * tpc + t));
                 return f;
               });
  }
  // L2Unit: the slice events; the memory controllers' events on the ports of the slices with
  // the same numbers (combined mode sums them node-wide).
  const u32 slices = bus.topology().slices;
  auto l2Event = [&](Event e, u32 event_input, bool controller) {
    if (event_input >= p.l2.events) return;
    NativeEvent ne;
    ne.name = "PEVT_" + probe::upperName(e);
    ne.description = std::string(probe::info(e).description);
    ne.kind = probe::info(e).kind;
    ne.unit = "l2";
    ne.input = event_input;
    ne.generic = std::string(probe::info(e).name);
    for (u32 s = 0; s < std::min(slices, p.l2.slices); ++s) {
      if (controller) {
        ne.feeds.push_back(s < bus.topology().controllers ? std::vector<u32>{bus.input(e, s)}
                                                          : std::vector<u32>{});
      } else {
        ne.feeds.push_back({bus.input(e, s)});
      }
    }
    addEvent(std::move(ne));
  };
  u32 l2_input = 0;
  u32 ddr_input = 16;
  for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
    const Event e = static_cast<Event>(ev);
    if (unboundedRate(e)) continue;
    if (probe::kEventInfo[ev].scope == Scope::kL2Slice) l2Event(e, l2_input++, false);
    if (probe::kEventInfo[ev].scope == Scope::kController) l2Event(e, ddr_input++, true);
  }
  // IOUnit and CNKUnit: the node's events.
  u32 io_input = 0;
  u32 cnk_input = 0;
  for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
    const Event e = static_cast<Event>(ev);
    if (!probe::nodeWide(probe::kEventInfo[ev].scope)) continue;
    // The CNK unit's counters are exact 64-bit kernel counters; the I/O unit's are 32 bits
    // wide: both take any count per cycle.
    NativeEvent ne;
    ne.kind = probe::kEventInfo[ev].kind;
    ne.description = std::string(probe::kEventInfo[ev].description);
    ne.generic = std::string(probe::kEventInfo[ev].name);
    ne.feeds = {{bus.input(e, 0)}};
    if (isIoEvent(e)) {
      ne.unit = "io";
      ne.input = io_input++;
      ne.name = "PEVT_" + probe::upperName(e);
    } else {
      ne.unit = "cnk";
      ne.input = cnk_input++;
      ne.name = "PEVT_CNK_" + probe::upperName(e);
    }
    addEvent(std::move(ne));
  }
}

void Monitor::Impl::route() {
  std::vector<std::vector<Target>> by_input(bus.inputs());
  reference.assign(bus.inputs(), 0);
  level_input.assign(bus.inputs(), 0);
  level_end.assign(bus.inputs(), 0);
  std::map<std::tuple<u32, u32, u32>, u32> ids;
  const u32 cores = static_cast<u32>(punits.size());
  for (const NativeEvent& e : catalogue) {
    for (std::size_t inst = 0; inst < e.feeds.size(); ++inst) {
      for (u32 f : e.feeds[inst]) level_input[f] |= e.kind == probe::Kind::kLevel ? 1 : 0;
      u32 slot = 0, port = 0;
      if (e.unit == "punit") {
        slot = static_cast<u32>(inst);
      } else if (e.unit == "l2") {
        slot = cores;
        port = static_cast<u32>(inst);
      } else if (e.unit == "io") {
        slot = cores + 1;
      } else if (e.unit == "cnk") {
        slot = cores + 2;
      }
      const auto key = std::make_tuple(slot, port, e.input);
      auto [it, fresh] = ids.emplace(key, static_cast<u32>(ids.size()));
      const Target target{slot, port, e.input, it->second};
      if (fresh) target_of.push_back(target);
      for (u32 f : e.feeds[inst]) by_input[f].push_back(target);
    }
  }
  route_begin.assign(1, 0);
  for (const std::vector<Target>& list : by_input) {
    targets.insert(targets.end(), list.begin(), list.end());
    route_begin.push_back(static_cast<u32>(targets.size()));
  }
  target_feeds.assign(ids.size(), {});
  for (u32 f = 0; f < bus.inputs(); ++f) {
    for (u32 r = route_begin[f]; r < route_begin[f + 1]; ++r)
      target_feeds[targets[r].id].push_back(f);
  }
  tally_of.assign(ids.size(), kNoTally);
  input_tallied.assign(bus.inputs(), 0);
  input_base.assign(bus.inputs(), 0);
  lag_from.assign(bus.topology().threads, kNever);
  thread_schedules.assign(bus.topology().threads, Schedule{});
  thread_tallies.assign(bus.topology().threads, {});
  last_start.assign(ids.size(), 0);
  batches.assign(ids.size(), Batch{});
  batchable.assign(ids.size(), 0);
  if (upcp) config_bytes.assign(machine.upc.counters, 0);
  // The bus may keep the batches of an input that is the only feed of its only target (a
  // target fed by several inputs needs its inputs in time order across them).
  feeders.assign(ids.size(), 0);
  for (const Target& t : targets) ++feeders[t.id];
  group_sum.assign(ids.size(), 0);
  group_last.assign(ids.size(), 0);
  group_of.assign(bus.inputs(), kNoGroup);
  bus_pulse_batch.assign(bus.inputs(), 0);
  bus_pulse_target.assign(bus.inputs(), 0);
  bus_level_batch.assign(bus.inputs(), 0);
  bus_count_level.assign(bus.inputs(), 0);
  bus_open.assign(bus.inputs(), 0);
  const bool ordered = upcp && machine.upc.policy != upc::Policy::kRoundRobin;
  for (u32 f = 0; f < bus.inputs(); ++f) {
    bus_level_batch[f] = !ordered && route_begin[f + 1] == route_begin[f] + 1 &&
                         feeders[targets[route_begin[f]].id] == 1;
  }
}

void Monitor::Impl::readQConfigs(u32 s) {
  // Read at the unit's last access: right after a write, or at cycle 0 before any input.
  Slot& slot = slots[s];
  const u32 n = slot.q->counterCount();
  slot.configs.resize(n);
  for (u32 i = 0; i < n; ++i)
    slot.configs[i] = slot.q->read(slot.q->map().config(i), slot.q->now());
}

bool Monitor::Impl::batchableTarget(const Target& t) const {
  if (upcp) {
    // Under round-robin only (largest-first wants its inputs in global time order): a counter
    // whose byte says level high and no interrupt.
    if (machine.upc.policy != upc::Policy::kRoundRobin) return false;
    const u8 byte = config_bytes[t.event % machine.upc.counters];
    return ((byte >> 2) & 3) == 0 && (byte & 0x10) == 0;
  }
  // UPC-Q: every local counter of the port that selects the event counts level high without
  // overflow (a fast overflow needs the exact cycle), in a unit that cannot wrap.
  const Slot& slot = slots[t.slot];
  const bool exploration = slot.q == l2.get()    ? machine.upcq.l2.exploration
                           : slot.q == io.get()  ? machine.upcq.io.exploration
                           : slot.q == cnk.get() ? false
                                                 : machine.upcq.punit.exploration;
  if (exploration) return false;
  bool level_high = true;
  forEachLocal(t, [&](u32, u64 config) {
    level_high = level_high && ((config >> upcq::config_bits::kModeShift) & 3) == 0 &&
                 (config & upcq::config_bits::kOverflowEnable) == 0;
  });
  return level_high;
}

Cycle Monitor::Impl::windowEnd(const Target& t, Cycle at) const {
  if (upcp) return upcp->nextVisit(t.event % machine.upc.counters, at + 1);
  Cycle end = upcq::Unit::kNone;  // the CNKUnit: no visits
  forEachLocal(t, [&](u32 i, u64) { end = std::min(end, slots[t.slot].q->nextVisit(i, at + 1)); });
  return end;
}

void Monitor::Impl::refreshBatching(Cycle now) {
  for (const Target& t : target_of) batchable[t.id] = batchableTarget(t);
  rebuildTallies(now);
  // Targets counted from statistics take no published events.
  interested.resize(target_of.size());
  for (const Target& t : target_of)
    interested[t.id] = interestedIn(t) && tally_of[t.id] == kNoTally;
  // The bus keeps the pulse batches of an input with one interested target (a unit ignores the
  // pulses of events no counter selects), which no other input feeds, or whose every feed has
  // it as its only interested target: those feeds' batches then share one window (Monitor::
  // pulse) and are applied together, as one pulse at the last one's cycle.
  const bool ordered = upcp && machine.upc.policy != upc::Policy::kRoundRobin;
  std::vector<u32> interested_targets(bus.inputs(), 0);
  for (u32 f = 0; f < bus.inputs(); ++f) {
    for (u32 r = route_begin[f]; r < route_begin[f + 1]; ++r) {
      if (!interested[targets[r].id]) continue;
      ++interested_targets[f];
      bus_pulse_target[f] = r;
    }
  }
  // The groups: connected sets of pulse inputs and interested targets (through the routes).
  groups.clear();
  group_of.assign(bus.inputs(), kNoGroup);
  std::vector<std::vector<u32>> feeds_of(target_of.size());  // interested targets' inputs
  for (u32 f = 0; f < bus.inputs(); ++f) {
    for (u32 r = route_begin[f]; r < route_begin[f + 1]; ++r) {
      if (interested[targets[r].id]) feeds_of[targets[r].id].push_back(f);
    }
  }
  std::vector<u8> seen(bus.inputs(), 0), seen_target(target_of.size(), 0);
  for (u32 f0 = 0; f0 < bus.inputs(); ++f0) {
    if (ordered || seen[f0] || interested_targets[f0] == 0) continue;
    Group g;
    bool ok = true;
    std::vector<u32> todo = {f0};
    seen[f0] = 1;
    while (!todo.empty()) {
      const u32 f = todo.back();
      todo.pop_back();
      g.inputs.push_back(f);
      ok = ok && !level_input[f] && !traces.contains(f);
      for (u32 r = route_begin[f]; r < route_begin[f + 1]; ++r) {
        const u32 id = targets[r].id;
        if (!interested[id]) continue;
        g.targets.push_back(r);
        ok = ok && batchable[id];
        if (seen_target[id]) continue;
        seen_target[id] = 1;
        for (u32 h : feeds_of[id]) {
          if (seen[h]) continue;
          seen[h] = 1;
          todo.push_back(h);
        }
      }
    }
    if (!ok || (g.inputs.size() == 1 && g.targets.size() == 1)) continue;
    for (u32 f : g.inputs) group_of[f] = static_cast<u32>(groups.size());
    groups.push_back(std::move(g));
  }
  for (u32 f = 0; f < bus.inputs(); ++f) {
    const u32 count = interested_targets[f];
    const Target& t = targets[bus_pulse_target[f]];
    // (A traced input's pulses keep their cycles.)
    bus_pulse_batch[f] = group_of[f] != kNoGroup || (!ordered && count == 1 && feeders[t.id] == 1 &&
                                                     batchable[t.id] && !traces.contains(f));
    // A level-high counter's level interval is one occurrence per cycle: those of the cycles
    // of a window (no visit of the counter in between) may be applied as one pulse, as the
    // pulses of an input are (a traced input's intervals stay intervals).
    const Target& only = targets[route_begin[f]];
    bus_count_level[f] = level_input[f] && bus_level_batch[f] && batchable[only.id] &&
                         interested[only.id] && !traces.contains(f);
  }
}

void Monitor::Impl::takeGroup(u32 gi) {
  Group& g = groups[gi];
  g.until = 0;
  bool any = false;
  for (u32 f : g.inputs) {
    const probe::Bus::PulseBatch p = bus.takePulseBatch(f);
    if (p.count == 0) continue;
    any = true;
    reference[f] += p.count;
    for (u32 r = route_begin[f]; r < route_begin[f + 1]; ++r) {
      const u32 id = targets[r].id;
      if (!interested[id]) continue;
      group_sum[id] += p.count;
      group_last[id] = std::max(group_last[id], p.last);
    }
  }
  if (!any) return;
  // Each target's pulses of the window as one, at the last one's cycle (as Monitor::pulse's own
  // batches apply them).
  for (u32 r : g.targets) {
    const Target& target = targets[r];
    const u32 id = target.id;
    if (group_sum[id] == 0) continue;
    const Cycle at = std::max({group_last[id], last_start[id], unitNow(target.slot)});
    last_start[id] = at;
    slots[target.slot].horizon = std::max(slots[target.slot].horizon, at + 1);
    deliverPulse(target, at, group_sum[id]);
    group_sum[id] = 0;
    group_last[id] = 0;
  }
}

void Monitor::Impl::takeBusBatches(u32 input) {
  if (group_of[input] != kNoGroup) takeGroup(group_of[input]);  // (with the group's others)
  const probe::Bus::PulseBatch p = bus.takePulseBatch(input);
  if (p.count != 0 && level_input[input]) {
    // A count batch (Monitor::level): its intervals but the last run of abutting ones are
    // applied as one pulse, that run as an interval, so that the unit is left as the intervals
    // one by one leave it (the last run pending, its start the horizon; the unit merges
    // abutting intervals). Opened unshifted, with no access since.
    const Target& target = targets[route_begin[input]];
    reference[input] += p.count;
    const u64 tail = p.last + 1 - p.tail;
    if (p.count > tail) deliverPulse(target, p.before_tail, p.count - tail);
    last_start[target.id] = p.tail;
    slots[target.slot].horizon = std::max(slots[target.slot].horizon, p.tail + 1);
    level_end[input] = std::max(level_end[input], p.last + 1);
    deliverLevel(target, p.tail, p.last + 1);
  } else if (p.count != 0) {
    const Target& target = targets[bus_pulse_target[input]];
    reference[input] += p.count;
    tracePulse(input, p.last, p.count);
    const Cycle at = std::max({p.last, last_start[target.id], unitNow(target.slot)});
    last_start[target.id] = at;
    slots[target.slot].horizon = std::max(slots[target.slot].horizon, at + 1);
    deliverPulse(target, at, p.count);
  }
  const probe::Bus::LevelBatch l = bus.takeLevelBatch(input);
  if (l.open) {
    const Target& target = targets[route_begin[input]];  // a level batch's input has one
    // Opened unshifted (Monitor::level): its start is past the unit's last access.
    reference[input] += l.total;
    level_end[input] = std::max(level_end[input], l.end);
    traceLevel(input, l.start, l.end);
    deliverLevel(target, l.start, l.end);
  }
}

void Monitor::Impl::deliverPulse(const Target& target, Cycle at, u64 count) {
  ++unit_pulses;
  if (upcp) {
    upcp->pulse(target.event, at, count);
  } else if (target.slot < punits.size()) {
    punits[target.slot]->pulse(target.event, at, count);
  } else if (slots[target.slot].q == l2.get()) {
    l2->pulse(target.port, target.event, at, count);
  } else if (slots[target.slot].q == io.get()) {
    io->pulse(target.event, at, count);
  } else {
    cnk->pulse(target.event, at, count);
  }
}

void Monitor::Impl::deliverLevel(const Target& target, Cycle t0, Cycle t1) {
  ++unit_levels;
  if (upcp) {
    upcp->level(target.event, t0, t1);
  } else if (target.slot < punits.size()) {
    punits[target.slot]->level(target.event, t0, t1);
  } else if (slots[target.slot].q == l2.get()) {
    l2->level(target.port, target.event, t0, t1);
  } else if (slots[target.slot].q == io.get()) {
    io->level(target.event, t0, t1);
  } else {
    cnk->level(target.event, t0, t1);
  }
}

void Monitor::Impl::flushBatch(u32 id) {
  Batch& b = batches[id];
  if (b.count != 0) {
    deliverPulse(target_of[id], b.last, b.count);
    b.count = 0;
  }
  if (b.level_end > b.level_start) {
    deliverLevel(target_of[id], b.level_start, b.level_end);
    b.level_start = b.level_end = 0;
  }
  b.dirty = false;
}

// ---- Counting from statistics ----------------------------------------------------------------

bool Monitor::Impl::tallyable(const Target& t) const {
  if (!count_from_statistics || !batchable[t.id] || !interestedIn(t)) return false;
  if (!upcp && slots[t.slot].q->nextVisit(0, 0) == upcq::Unit::kNone) return false;  // no sweep
  const std::vector<u32>& feeds = target_feeds[t.id];
  if (feeds.empty()) return false;
  for (u32 f : feeds) {
    const probe::Bus::TallyKind kind = bus.tallyKind(f);
    if (kind == probe::Bus::TallyKind::kNone || traces.contains(f)) return false;
    // A level signal is one feed: the thread's own.
    if (kind == probe::Bus::TallyKind::kLevel && (feeds.size() != 1 || !bus.levelSource())) {
      return false;
    }
  }
  return true;
}

std::vector<Monitor::Impl::Visits> Monitor::Impl::visitsOf(const Target& t) const {
  std::vector<Visits> out;
  auto add = [&](Cycle first, Cycle next) { out.push_back({first, next - first}); };
  if (upcp) {
    const u32 c = t.event % machine.upc.counters;
    const Cycle first = upcp->nextVisit(c, 0);
    add(first, upcp->nextVisit(c, first + 1));
    return out;
  }
  const upcq::Unit& unit = *slots[t.slot].q;
  forEachLocal(t, [&](u32 i, u64) {
    const Cycle first = unit.nextVisit(i, 0);
    add(first, unit.nextVisit(i, first + 1));
  });
  return out;
}

void Monitor::Impl::rebuildTallies(Cycle now) {
  if (!count_from_statistics) return;
  for (Tally& k : tallies) applySwept(k);
  // Window ends: the visits of the counters counting each target, over the least common
  // multiple of their periods (one round of every unit's visits).
  std::vector<u8> wanted(target_of.size(), 0);
  Cycle period = 1;
  for (const Target& t : target_of) {
    if (!tallyable(t)) continue;
    wanted[t.id] = 1;
    for (const Visits& v : visitsOf(t)) period = std::lcm(period, v.period);
  }
  // (Periods that do not fit one schedule of a reasonable size count from events.)
  constexpr Cycle kMaxPeriod = Cycle{1} << 24;
  if (period > kMaxPeriod) std::fill(wanted.begin(), wanted.end(), 0);

  const probe::LevelSource* src = bus.levelSource();
  std::vector<Tally> next;
  std::vector<probe::TallyTerm> next_terms;
  std::vector<u32> next_of(target_of.size(), kNoTally);
  std::vector<u32> fresh;  // the new ones
  for (const Target& t : target_of) {
    const u32 old = tally_of[t.id];
    if (!wanted[t.id]) {
      // A level tally that ends while its counter counts on from published events: the part
      // of the thread's last lump after `now` was published before and is not again.
      if (old != kNoTally && tallies[old].level != Event::kCount && tallies[old].running &&
          interestedIn(t)) {
        Tally& k = tallies[old];
        const auto [x, y] = src->levelInLastLump(k.level, k.thread);
        if (y > std::max(x, now)) tallyLevel(k, std::max(x, now), y);
      }
      continue;
    }
    Tally k = old != kNoTally ? tallies[old] : Tally{};
    k.id = t.id;
    k.terms_begin = static_cast<u32>(next_terms.size());
    k.version = bus.tallyVersion(target_feeds[t.id].front());
    k.version_core = bus.tallyVersionCore(target_feeds[t.id].front());
    for (u32 f : target_feeds[t.id]) {
      if (bus.tallyVersion(f) != k.version) k.version = nullptr;
      if (bus.tallyKind(f) == probe::Bus::TallyKind::kLevel) {
        const auto [event, thread] = bus.eventOf(f);
        k.level = event;
        k.thread = thread;
      } else {
        for (const probe::TallyTerm& term : bus.tally(f)) next_terms.push_back(term);
      }
    }
    k.terms_end = static_cast<u32>(next_terms.size());
    // (The next window goes to the unit as a pulse: the selections may have changed.)
    k.chained = false;
    k.sweepable = false;
    if (!upcp && slots[t.slot].q->localBits() != 0) {
      u32 locals = 0;
      forEachLocal(t, [&](u32, u64) { ++locals; });
      k.sweepable = locals == 1;
      k.local_limit = u64{1} << slots[t.slot].q->localBits();
    }
    // New ones, and ones whose unit started (the host programs before setRunning would say),
    // start counting now.
    if (old == kNoTally || (slots[t.slot].running && !k.running)) {
      fresh.push_back(static_cast<u32>(next.size()));
    }
    k.running = slots[t.slot].running;
    next_of[t.id] = static_cast<u32>(next.size());
    next.push_back(k);
  }
  tallies = std::move(next);
  tally_terms = std::move(next_terms);
  tally_of = std::move(next_of);
  for (u32 ti : fresh) rebase(tallies[ti], now);

  tally_period = period;
  buildSchedule(now);
  for (Tally& k : tallies) {
    if (k.gap) markGap(k);
  }
}

void Monitor::Impl::buildSchedule(Cycle now) {
  // Every running tally's window ends over one common period, and each thread's level
  // tallies' (its catch-up after lagging); runs of entries sharing a core's version.
  all_entries.clear();
  tallying = std::any_of(tallies.begin(), tallies.end(), [](const Tally& k) { return k.running; });
  for (Schedule& ts : thread_schedules) ts = Schedule{};
  for (auto& list : thread_tallies) list.clear();
  for (u32 ti = 0; ti < tallies.size(); ++ti) {
    const Tally& k = tallies[ti];
    if (!k.running) continue;
    const bool level = k.level != Event::kCount;
    if (level) thread_tallies[k.thread].push_back(ti);
    for (const Visits& v : visitsOf(target_of[k.id])) {
      for (Cycle c = v.first % v.period; c < tally_period; c += v.period) {
        all_entries.push_back(Entry{static_cast<u32>(c), ti});
        if (level) thread_schedules[k.thread].entries.push_back(Entry{static_cast<u32>(c), ti});
      }
    }
  }
  std::sort(all_entries.begin(), all_entries.end());
  runs.clear();
  for (Entry& e : all_entries) {
    const Tally& k = tallies[e.tally];
    if (runs.empty() || k.version == nullptr || runs.back().version != k.version) {
      runs.push_back(Run{});
      runs.back().version = k.version;
      runs.back().core = k.version_core;
    }
    Run& r = runs.back();
    if (k.level != Event::kCount &&
        std::find(r.threads.begin(), r.threads.end(), k.thread) == r.threads.end()) {
      r.threads.push_back(k.thread);
    }
    e.run = static_cast<u32>(runs.size() - 1);
  }
  std::fill(dormant.begin(), dormant.end(), 0);
  tallied_through = std::max(tallied_through, now);
  for (u32 h = 0; h < thread_schedules.size(); ++h) {
    Schedule& ts = thread_schedules[h];
    ts.period = tally_period;
    std::sort(ts.entries.begin(), ts.entries.end());
    lag_from[h] = kNever;
  }
  activate();
}

void Monitor::Impl::activate() {
  // The schedule walks the entries of the runs that are awake, from after tallied_through.
  schedule.entries.clear();
  schedule.period = tally_period;
  for (Run& r : runs) r.first = r.last = kNoRun;
  for (const Entry& e : all_entries) {
    Run& r = runs[e.run];
    if (r.dormant) continue;
    const u32 at = static_cast<u32>(schedule.entries.size());
    if (r.first == kNoRun) r.first = at;
    r.last = at;
    // (A run whose version any core may change never sleeps, and a tally's own version check
    // costs less than the run's walk: its entries are passed plainly.)
    const bool plain = r.version == nullptr || r.core == probe::Bus::kAnyCore;
    const Tally& k = tallies[e.tally];
    schedule.entries.push_back(
        Entry{e.offset, e.tally, plain ? kPlainRun : e.run,
              k.terms_end > k.terms_begin ? tally_terms[k.terms_begin].value : nullptr});
  }
  open_run = kNoRun;
  schedule.seekAfter(tallied_through);
  tally_due = schedule.due();
}

void Monitor::Impl::wake(u32 thread) {
  const u32 core = thread / machine.node.threads_per_core;
  for (Run& r : runs) {
    if (r.core == core) r.dormant = false;
  }
  for (u32 t = 0; t < machine.node.threads_per_core; ++t) {
    dormant[core * machine.node.threads_per_core + t] = 0;
  }
  activate();
}

void Monitor::Impl::setRunning(u32 slot, bool running, Cycle now) {
  bool changed = false;
  for (Tally& k : tallies) {
    if (target_of[k.id].slot != slot || k.running == running) continue;
    k.running = running;
    changed = true;
    if (running) rebase(k, now);
  }
  if (changed) buildSchedule(now);
}

void Monitor::Impl::applySwept(Tally& k) {
  const Target& target = target_of[k.id];
  if (k.swept.windows != 0) {
    const u32 port = ports(target.slot) > 1 ? target.port : 0;
    slots[target.slot].q->sweptWindows(port, target.event, k.swept);
    last_start[k.id] = k.swept.last_visit - 1;
    slots[target.slot].horizon = std::max(slots[target.slot].horizon, k.swept.last_visit);
    tally_windows += k.swept.windows;
    k.swept = {};
  }
  if (k.held != 0) {
    const u64 held = k.held;
    k.held = 0;
    tallyPulse(k, k.held_visit - 1, held);
  }
}

void Monitor::Impl::tallyPulse(Tally& k, Cycle at, u64 count) {
  // Applied in time order, and never before an access already made (as Monitor::pulse does).
  k.chained = false;
  const Target& target = target_of[k.id];
  at = std::max({at, last_start[k.id], unitNow(target.slot)});
  last_start[k.id] = at;
  slots[target.slot].horizon = std::max(slots[target.slot].horizon, at + 1);
  ++tally_windows;
  deliverPulse(target, at, count);
}

void Monitor::Impl::tallyLevel(Tally& k, Cycle t0, Cycle t1) {
  applySwept(k);
  k.chained = false;
  // As Monitor::level: a start before an access already made moves to it, with the same length.
  const Target& target = target_of[k.id];
  const Cycle start = std::max({t0, last_start[k.id], unitNow(target.slot)});
  if (start != t0) ++shifted_inputs;
  last_start[k.id] = start;
  slots[target.slot].horizon = std::max(slots[target.slot].horizon, start + 1);
  deliverLevel(target, start, start + (t1 - t0));
  k.level_until = std::max(k.level_until, start + (t1 - t0));
}

inline void Monitor::Impl::scheduleEntry(u32 ti, Cycle v) {
  Tally& k = tallies[ti];
  if (!k.running) return;
  if (k.level == Event::kCount) {
    tallyWindow(k, v);
    return;
  }
  // The thread's last lump began before v (its instructions so far issued before v): once its
  // clock has passed v, the cycles before v are known.
  const u32 h = k.thread;
  if (lag_from[h] != kNever) return;  // its windows wait for its clock
  if (bus.levelSource()->levelClock(h) >= v) {
    tallyWindow(k, v);
  } else {
    lag_from[h] = v;
  }
}

// (Inlined into Monitor::advanceTallies, which the driver calls every few instructions.)
[[gnu::always_inline]] inline void Monitor::Impl::advanceTallies(Cycle now) {
  Schedule& s = schedule;
  if (s.due() <= now && now - s.due() >= s.period) {
    // No instruction issued for more than a round of windows (every thread waited): after one
    // round every window is empty, but for the level events of a thread whose clock is ahead.
    const Cycle round_end = s.due() + s.period;
    while (s.due() < round_end) {
      scheduleEntry(s.tally(), s.due());
      s.step();
    }
    const probe::LevelSource* src = bus.levelSource();
    for (u32 h = 0; h < thread_schedules.size(); ++h) {
      Schedule& ts = thread_schedules[h];
      if (ts.entries.empty() || lag_from[h] != kNever) continue;
      const Cycle clock = src->levelClock(h);
      ts.seekAfter(round_end - 1);
      for (; ts.due() <= now; ts.step()) {
        if (ts.due() > clock) {
          lag_from[h] = ts.due();
          break;
        }
        tallyWindow(tallies[ts.tally()], ts.due());
      }
    }
    s.seekAfter(now);
    open_run = kNoRun;
  }
  // (Entries of runs passed plainly, most of them, without passEntry's frame.)
  for (Cycle due = s.due(); due <= now; due = s.due()) {
    if (s.entries[s.cursor].run == kPlainRun) {
      scheduleEntry(s.tally(), due);
      s.step();
    } else {
      passEntry();
    }
  }
  tallied_through = std::max(tallied_through, now);
  tally_due = s.due();
  // (The next call usually passes one or two entries.)
  for (u32 n = 0, i = s.cursor; n < 2 && n < s.entries.size(); ++n) {
    __builtin_prefetch(&tallies[s.entries[i].tally]);
    if (s.entries[i].hint != nullptr) __builtin_prefetch(s.entries[i].hint);
    if (++i == s.entries.size()) i = 0;
  }
  if (sleep_pending) {
    // Runs that fell asleep leave the schedule; their cores' threads wake them.
    sleep_pending = false;
    for (const Run& r : runs) {
      if (!r.dormant) continue;
      for (u32 t = 0; t < machine.node.threads_per_core; ++t) {
        dormant[r.core * machine.node.threads_per_core + t] = 1;
      }
    }
    activate();
  }
}

void Monitor::Impl::passEntry() {
  Schedule& s = schedule;
  const u32 i = s.cursor;
  const u32 ri = s.entries[i].run;
  Run& r = runs[ri];
  if (r.version != nullptr) {
    if (i == r.first) {
      open_run = ri;
      r.candidate = *r.version;
      r.skipping = r.candidate == r.seen && lagging(r);
    }
    if (r.skipping && open_run == ri && *r.version == r.seen) {
      if (i == r.last) {
        // A whole round without change since the last pass read it: asleep. (Runs whose
        // version any core may change, which no core's quiet could wake, are passed plainly.)
        open_run = kNoRun;
        r.dormant = true;
        sleep_pending = true;
      }
      s.step();
      return;
    }
    r.skipping = false;
  }
  scheduleEntry(s.tally(), s.due());
  if (r.version != nullptr && i == r.last) {
    if (open_run == ri && *r.version == r.candidate) r.seen = r.candidate;
    open_run = kNoRun;
  }
  s.step();
}

void Monitor::Impl::resolveLag(u32 h) {
  const probe::LevelSource* src = bus.levelSource();
  const Cycle from = lag_from[h];
  const Cycle clock = src->levelClock(h);
  if (from == kNever || clock < from) return;
  // The windows that ended while the clock lagged, up to where the schedule is (later ones are
  // the schedule's own). The thread's last lump holds all of them: it began before `from`.
  const Cycle end = std::min(clock, tallied_through);
  Schedule& ts = thread_schedules[h];
  bool gap = false;
  for (u32 ti : thread_tallies[h]) gap = gap || (tallies[ti].gap && tallies[ti].running);
  if (gap || end < from || end - from >= ts.period) {
    // A lump after an access the thread lagged behind, or longer than a round of windows (an
    // idle stretch): its intervals as they are (the units count long intervals in closed form).
    for (u32 ti : thread_tallies[h]) {
      if (tallies[ti].running) levelLump(tallies[ti]);
    }
    ts.seekAfter(clock);
  } else {
    for (ts.seekAfter(from - 1); ts.due() <= end; ts.step())
      tallyWindow(tallies[ts.tally()], ts.due());
  }
  lag_from[h] = ts.due() <= tallied_through ? ts.due() : kNever;
}

void Monitor::Impl::levelLump(Tally& k) {
  applySwept(k);
  const probe::LevelSource* src = bus.levelSource();
  const Cycle start = src->lastLumpStart(k.thread);
  const u64 before = tallyValue(k, start);
  if (before > k.last) tallyPulse(k, start == 0 ? 0 : start - 1, before - k.last);
  // (What was applied of the lump already: its first cycles of the event.)
  const u64 applied = k.last > before ? k.last - before : 0;
  const auto [x, y] = src->levelInLastLump(k.level, k.thread);
  if (y > x + applied) tallyLevel(k, x + applied, y);
  k.last = std::max(k.last, tallyValue(k, kNever));
  k.since = std::max(k.since, src->levelClock(k.thread));
  k.gap = false;
}

void Monitor::Impl::flushTallies(Cycle now, bool events_of_now) {
  if (tallies.empty()) return;
  if (now >= tally_due) advanceTallies(now);
  tallied_through = std::max(tallied_through, now);
  const probe::LevelSource* src = bus.levelSource();
  for (Tally& k : tallies) applySwept(k);
  // (`now` may be later than the instructions issued so far, when a poll comes from a thread
  // parked at its next issue cycle: what they count later is applied after it, as published
  // events are.)
  for (Tally& k : tallies) {
    if (!k.running) continue;
    if (k.level == Event::kCount) {
      // Every event so far: those of cycle `now` as well if some instruction of it issued (the
      // access then takes place after them, at the end of `now`, as with published events).
      const u64 value = pulseValue(k);
      if (value != k.last) tallyPulse(k, events_of_now || now == 0 ? now : now - 1, value - k.last);
      k.last = value;
      k.since = std::max(k.since, now);
      continue;
    }
    // The cycles before `now`, or before the clock of a thread that lags (the rest counts in
    // its next window, as an interval published late starts at the access).
    // (A thread whose clock ran ahead of `now` by its last instruction's cycles may have begun
    // a lump after `now` since: the cycles up to that lump's start are the nearest known.)
    const Cycle upto =
        std::max(std::min(now, src->levelClock(k.thread)), src->lastLumpStart(k.thread));
    const u64 value = tallyValue(k, upto);
    if (value > k.last) {
      tallyPulse(k, upto - 1, value - k.last);
      k.last = value;
    }
    k.since = std::max(k.since, now);
  }
  for (u32 h = 0; h < lag_from.size(); ++h) {
    if (lag_from[h] > now) continue;
    Schedule& ts = thread_schedules[h];
    ts.seekAfter(now);
    lag_from[h] = kNever;
  }
  for (Tally& k : tallies) {
    if (k.running && k.level != Event::kCount && src->levelClock(k.thread) < now) markGap(k);
  }
}

void Monitor::Impl::refreshInterest() {
  // A unit that is not counting wants nothing (after reset every counter selects input 0 of its
  // bank, but counting is stopped): events reach a unit only while it runs.
  for (Slot& s : slots) s.interest_epoch = interestEpoch(static_cast<u32>(&s - slots.data()));
  for (u32 f = 0; f + 1 < route_begin.size(); ++f) {
    bool wanted = false;
    bool tallied = false;
    for (u32 r = route_begin[f]; r < route_begin[f + 1]; ++r) {
      const Target& t = targets[r];
      if (!slots[t.slot].running) continue;
      if (tally_of[t.id] != kNoTally) {
        tallied = true;
        continue;
      }
      if (upcp) {
        wanted = wanted || upcp->interest().test(t.event);
      } else {
        wanted = wanted || slots[t.slot].q->interest(t.port).test(t.event);
      }
    }
    bus.setWanted(f, wanted);
    bus.setTallyActive(f, tallied);
    // The reference of an input counted from statistics only is the statistic's growth.
    const bool reference_tallied = tallied && !wanted;
    if (reference_tallied != (input_tallied[f] != 0)) {
      const u64 value =
          bus.tallyKind(f) == probe::Bus::TallyKind::kTerms
              ? bus.tallyValue(f)
              : bus.levelSource()->levelBefore(bus.eventOf(f).first, bus.eventOf(f).second, kNever);
      if (reference_tallied) {
        input_base[f] = value;
      } else {
        reference[f] += value - input_base[f];
      }
      input_tallied[f] = reference_tallied ? 1 : 0;
    }
  }
}

// ---------------------------------------------------------------------------------------------

Monitor::Monitor(const MachineConfig& machine, probe::Bus& bus, Kernel& kernel,
                 bool count_from_statistics)
    : impl_(std::make_unique<Impl>(machine, bus, kernel, tally_due_, dormant_, tallying_)) {
  Impl& m = *impl_;
  dormant_.assign(bus.topology().threads, 0);
  m.type = machine.monitor.unit;
  m.count_from_statistics =
      count_from_statistics && machine.monitor.counting == Counting::kStatistics;
  m.poll_cycles = machine.monitor.poll_cycles;
  if (m.type == MonitorUnit::kUpcP) m.buildUpcP();
  if (m.type == MonitorUnit::kUpcQ) m.buildUpcQ();
  m.route();
  for (u32 s = 0; s < m.slots.size(); ++s) {
    if (m.slots[s].q != nullptr) m.readQConfigs(s);
  }
  // Interrupts are collected as the units raise them and delivered by poll().
  if (m.upcp) {
    m.upcp->onInterrupt([&m](const upc::Interrupt& i) {
      m.pending.push_back({0, i.counter, i.cycle});
    });
  }
  for (u32 s = 0; s < m.slots.size(); ++s) {
    if (m.slots[s].q == nullptr) continue;
    m.slots[s].q->onInterrupt([&m, s](const upcq::Interrupt& i) {
      m.pending.push_back({s, i.counter, i.cycle});
    });
  }
  // The reset run state (the CNKUnit counts from reset), read before any input.
  for (u32 s = 0; s < m.slots.size(); ++s) {
    m.slots[s].running = m.upcp ? (m.upcp->read(m.runOffset(s), 0) & 1) != 0
                                : (m.slots[s].q->read(m.runOffset(s), 0) & upcq::kRunBit) != 0;
  }
  m.refreshBatching(0);
  bus.setSink(this);
  m.refreshInterest();
  kernel.setDeviceProvider(this);
}

Monitor::~Monitor() = default;

MonitorUnit Monitor::unit() const {
  return impl_->type;
}
const std::vector<NativeEvent>& Monitor::catalogue() const {
  return impl_->catalogue;
}

const NativeEvent* Monitor::find(const std::string& name) const {
  auto it = impl_->index.find(name);
  return it == impl_->index.end() ? nullptr : &impl_->catalogue[it->second];
}

const std::vector<std::pair<std::string, std::vector<std::string>>>& Monitor::perfAliases() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> kAliases = {
      {"instructions", {"Instructions"}},
      {"cycles", {"Cycles"}},
      {"branches", {"InstBranch"}},
      {"branch-instructions", {"InstBranch"}},
      {"branch-misses", {"BranchMispredicts"}},
      {"cache-references", {"L1dAccesses"}},
      {"cache-misses", {"L1dMisses"}},
      {"L1-dcache-loads", {"InstLoad", "InstFpLoad"}},
      {"L1-dcache-load-misses", {"L1dLoadMisses"}},
      {"L1-dcache-stores", {"InstStore", "InstFpStore"}},
      {"L1-dcache-store-misses", {"L1dStoreMisses"}},
      {"L1-icache-loads", {"L1iAccesses"}},
      {"L1-icache-load-misses", {"L1iMisses"}},
      {"LLC-loads", {"CoreL2Reads"}},
      {"LLC-load-misses", {"CoreL2Misses"}},
      {"LLC-stores", {"CoreL2Writes"}},
      {"stalled-cycles-frontend", {"StallIbufferEmpty", "StallIcacheMiss", "StallMispredict"}},
      {"stalled-cycles-backend",
       {"StallDependency", "StallPipeBusy", "StallLmqFull", "StallSqFull"}},
      {"context-switches", {"ContextSwitches"}},
      {"cs", {"ContextSwitches"}},
      {"page-faults", {"PageFirstTouches"}},
      {"faults", {"PageFirstTouches"}},
      {"syscalls", {"Syscalls"}},
  };
  return kAliases;
}

std::vector<const NativeEvent*> Monitor::expand(const std::string& name) const {
  std::vector<std::string> generics = {name};
  for (const auto& [alias, list] : perfAliases()) {
    if (alias == name) generics = list;
  }
  std::vector<const NativeEvent*> out;
  for (const std::string& g : generics) {
    for (const NativeEvent& e : impl_->catalogue) {
      if (lower(e.generic) != lower(g) && genericUpper(e.generic) != g) continue;
      // The node-wide total: on UPC-Q thread events the core sums where they exist.
      if (e.unit == "punit" && e.name.find("_T") != std::string::npos && e.kind == Kind::kPulse) {
        continue;
      }
      out.push_back(&e);
    }
  }
  return out;
}

void Monitor::programHost(const std::vector<const NativeEvent*>& events) {
  Impl& m = *impl_;
  if (m.type == MonitorUnit::kNone) fail(ExitCode::kUsage, "this machine has no counter unit");
  if (m.upcp) {
    const u32 n = m.machine.upc.counters;
    std::map<u32, const NativeEvent*> used;
    for (const NativeEvent* e : events) {
      const u32 c = static_cast<u32>(e->counter);
      auto [it, fresh] = used.emplace(c, e);
      if (!fresh && it->second != e) {
        fail(ExitCode::kUsage,
             "UPC-P cannot count {} and {} together: both are inputs of counter {} (selects {} "
             "and {}), and each input has exactly one counter. No assignment counts both in one "
             "run: use two runs, or count one of them",
             it->second->name, e->name, c, it->second->select, e->select);
      }
    }
    std::vector<u64> config((n + 7) / 8, 0);
    for (const auto& [c, e] : used) {
      config[c / 8] |= u64{static_cast<u32>(e->select)} << (8 * (c % 8));
      m.config_bytes[c] = static_cast<u8>(e->select);
      m.host.push_back({e, 0, c});
    }
    const upc::RegisterMap& map = m.upcp->map();
    for (u32 g = 0; g < config.size(); ++g) m.upcp->write(map.config(g), config[g], 0);
    m.upcp->write(map.start_stop, 1, 0);
    m.slots[0].running = true;
    m.refreshBatching(0);
  } else {
    const u32 cores = static_cast<u32>(m.punits.size());
    for (const NativeEvent* e : events) {
      std::vector<u32> slots;
      if (e->unit == "punit") {
        for (u32 k = 0; k < cores; ++k) {
          if (!e->feeds[k].empty()) slots.push_back(k);
        }
      } else {
        slots.push_back(e->unit == "l2" ? cores : e->unit == "io" ? cores + 1 : cores + 2);
      }
      for (u32 s : slots) {
        Impl::Slot& slot = m.slots[s];
        const u32 limit = s < cores        ? m.machine.upcq.punit.counters
                          : s == cores     ? m.machine.upcq.l2.counters
                          : s == cores + 1 ? m.machine.upcq.io.counters
                                           : m.machine.upcq.cnk.counters;
        if (slot.next_counter >= limit) {
          std::string fits;
          fail(ExitCode::kUsage,
               "{} has {} counters: too many events for it ({} cannot be counted with the events "
               "before it); count at most {} of its events per run",
               slot.path, limit, e->name, limit);
        }
        const u32 c = slot.next_counter++;
        slot.q->write(slot.q->map().config(c),
                      upcq::configValue(e->input, upcq::SignalMode::kLevelHigh, false), 0);
        m.host.push_back({e, s, c});
      }
    }
    for (u32 s = 0; s < m.slots.size(); ++s) {
      if (m.slots[s].next_counter != 0) {
        m.slots[s].q->write(m.slots[s].q->map().run, upcq::kRunBit, 0);
        m.slots[s].running = true;
      }
      m.readQConfigs(s);
    }
    m.refreshBatching(0);
  }
  m.refreshInterest();
}

std::vector<ProgrammedCounter> Monitor::readHost(Cycle end) {
  Impl& m = *impl_;
  m.flushAll(end, latest_issue_ >= end);
  std::vector<ProgrammedCounter> out;
  // Read once the unit has settled: every carry serviced, every local value swept.
  Cycle settle = end + 1;
  if (m.upcp) {
    settle += u64{m.machine.upc.counters} * m.machine.upc.service_cycles;
  } else {
    settle += 2 * u64{std::max({m.machine.upcq.punit.sweep.period, m.machine.upcq.l2.sweep.period,
                                m.machine.upcq.io.sweep.period})};
  }
  for (const Impl::HostCounter& h : m.host) {
    ProgrammedCounter p;
    p.event = h.event->name;
    p.device = m.slots[h.slot].path;
    p.counter = h.counter;
    const Cycle at = m.accessAt(h.slot, settle);
    p.value = m.upcp ? m.upcp->read(m.upcp->map().counter(h.counter), at)
                     : m.slots[h.slot].q->read(m.slots[h.slot].q->map().counter(h.counter), at);
    out.push_back(p);
  }
  return out;
}

std::vector<u64> Monitor::sampleHost(Cycle now) {
  Impl& m = *impl_;
  m.flushAll(now, latest_issue_ >= now);
  std::vector<u64> out;
  for (const Impl::HostCounter& h : m.host) {
    const Cycle at = m.accessAt(h.slot, now);
    out.push_back(m.upcp
                      ? m.upcp->read(m.upcp->map().counter(h.counter), at)
                      : m.slots[h.slot].q->read(m.slots[h.slot].q->map().counter(h.counter), at));
  }
  return out;
}

void Monitor::pulse(u32 input, Cycle t, u64 count) {
  Impl& m = *impl_;
  ++m.pulses;
  if (m.bus_pulse_batch[input]) {
    // The bus's batch of this input ended (a visit of the counter came) or none was open: apply
    // it, and let the bus add up the pulses until the counter's next visit.
    const Impl::Target& target = m.targets[m.bus_pulse_target[input]];
    if (m.group_of[input] != Impl::kNoGroup) {
      // The group's batches share the window of its first pulse (the first visit after it of
      // any of the group's counters). This input has none open: open one in the window, or,
      // past it, apply the window's batches and open the next window.
      Impl::Group& g = m.groups[m.group_of[input]];
      if (t >= g.until) m.takeGroup(m.group_of[input]);
      if (g.until == 0) {
        g.until = ~Cycle{0};
        for (u32 r : g.targets) {
          const Impl::Target& u = m.targets[r];
          const Cycle at = std::max({t, m.last_start[u.id], m.unitNow(u.slot)});
          g.until = std::min(g.until, m.windowEnd(u, at));
        }
      }
      m.bus.openPulseBatch(input, count, g.until);
      m.noteOpen(input);
      return;
    }
    m.takeBusBatches(input);
    const Cycle at = std::max({t, m.last_start[target.id], m.unitNow(target.slot)});
    m.bus.openPulseBatch(input, count, m.windowEnd(target, at));
    m.noteOpen(input);
    return;
  }
  m.reference[input] += count;
  m.tracePulse(input, t, count);
  for (u32 r = m.route_begin[input]; r < m.route_begin[input + 1]; ++r) {
    const Impl::Target& target = m.targets[r];
    if (!m.interested[target.id]) continue;  // the unit would ignore it
    // Keep each unit input in time order (see level()); pulses come in cycle order already.
    const Cycle at = std::max({t, m.last_start[target.id], m.unitNow(target.slot)});
    m.last_start[target.id] = at;
    Cycle& horizon = m.slots[target.slot].horizon;
    horizon = std::max(horizon, at + 1);
    if (!m.batchable[target.id]) {
      m.deliverPulse(target, at, count);
      continue;
    }
    Impl::Batch& b = m.batches[target.id];
    if (b.count != 0 && at >= b.until) m.flushBatch(target.id);  // a visit in between
    if (b.count == 0) b.until = m.windowEnd(target, at);
    b.count += count;
    b.last = at;
    if (!b.dirty) {
      b.dirty = true;
      m.dirty.push_back(target.id);
    }
  }
}

void Monitor::level(u32 input, Cycle t0, Cycle t1) {
  Impl& m = *impl_;
  ++m.levels;
  if (m.bus_level_batch[input]) {
    const Impl::Target& target = m.targets[m.route_begin[input]];
    const probe::Bus::PulseBatch& open = m.bus.pulseBatch(input);
    if (m.level_input[input] && open.count != 0 && t0 == open.last + 1) {
      // It abuts the last run of the count batch but ends past its window: the run goes on as
      // a level batch (the unit would merge them into one pending interval), the cycles before
      // it are applied.
      const probe::Bus::PulseBatch p = m.bus.takePulseBatch(input);
      const u64 run = p.last + 1 - p.tail;
      m.reference[input] += p.count - run;
      if (p.count > run) m.deliverPulse(target, p.before_tail, p.count - run);
      m.last_start[target.id] = p.tail;
      Cycle& horizon = m.slots[target.slot].horizon;
      horizon = std::max(horizon, p.tail + 1);
      m.bus.openLevelBatch(input, p.tail, t1);
      return;
    }
    // An interval that does not extend the bus's open one: apply that, and let the bus merge
    // the intervals that follow this one (applied at once when it had to be shifted, below).
    m.takeBusBatches(input);
    if (t0 >= m.last_start[target.id] && t0 >= m.unitNow(target.slot)) {
      m.last_start[target.id] = t0;
      Cycle& horizon = m.slots[target.slot].horizon;
      horizon = std::max(horizon, t0 + 1);
      // A level-high counter without interrupt counts the cycles of intervals that end inside
      // the window of the first one's first cycle (no visit of the counter after it) as it
      // counts pulses batched in a window: the bus adds them up (probe::Bus::openCountBatch).
      // On UPC-P only as many as its low-order register takes without a carry: a carry's
      // cycle is observable (the unit's max_service_latency).
      if (m.bus_count_level[input] && t0 >= m.level_end[input]) {
        const Cycle until = m.windowEnd(target, t0);
        const u64 room = m.upcp ? m.upcp->eventsBeforeCarry(target.event) : ~u64{0};
        if (t1 <= until && t1 - t0 <= room) {
          m.bus.openCountBatch(input, t0, t1, until, room);
          m.noteOpen(input);
          return;
        }
      }
      m.bus.openLevelBatch(input, t0, t1);
      m.noteOpen(input);
      return;
    }
  }
  m.reference[input] += t1 - t0;
  m.traceLevel(input, t0, t1);
  for (u32 r = m.route_begin[input]; r < m.route_begin[input + 1]; ++r) {
    const Impl::Target& target = m.targets[r];
    // An interval is known when its instruction issues, which can be after another hardware
    // thread read the unit at a cycle inside it; it then starts at that read instead (same
    // length), so totals stay exact and the unit sees its inputs in time order.
    const Cycle start = std::max({t0, m.last_start[target.id], m.unitNow(target.slot)});
    if (start != t0) ++m.shifted_inputs;
    const Cycle end = start + (t1 - t0);
    m.last_start[target.id] = start;
    // The unit applies at most the interval's first cycle now (the rest stays pending).
    Cycle& horizon = m.slots[target.slot].horizon;
    horizon = std::max(horizon, start + 1);
    if (m.machine.upc.policy != upc::Policy::kRoundRobin && m.upcp) {
      m.deliverLevel(target, start, end);
      continue;
    }
    if (m.bus_level_batch[input]) {  // shifted: the bus keeps no batch of it
      m.level_end[input] = std::max(m.level_end[input], end);
      m.deliverLevel(target, start, end);
      continue;
    }
    // Abutting or overlapping intervals are one signal (the units take the union as well).
    Impl::Batch& b = m.batches[target.id];
    if (b.level_end > b.level_start && start <= b.level_end) {
      b.level_end = std::max(b.level_end, end);
      continue;
    }
    if (b.level_end > b.level_start) m.deliverLevel(target, b.level_start, b.level_end);
    b.level_start = start;
    b.level_end = end;
    if (!b.dirty) {
      b.dirty = true;
      m.dirty.push_back(target.id);
    }
  }
}

int Monitor::findDevice(std::string_view path) const {
  for (u32 s = 0; s < impl_->slots.size(); ++s) {
    if (impl_->slots[s].path == path) return static_cast<int>(s);
  }
  return -1;
}

std::vector<std::string> Monitor::devicePaths() const {
  std::vector<std::string> out;
  for (const auto& s : impl_->slots) out.push_back(s.path);
  return out;
}

u64 Monitor::windowBytes(int device) const {
  const Impl& m = *impl_;
  return m.upcp ? m.upcp->map().window_bytes : m.slots[device].q->map().window_bytes;
}

u64 Monitor::readRegister(int device, u64 offset) {
  Impl& m = *impl_;
  // (An access is made by an instruction issued at the bus's cycle.)
  m.flushAll(m.bus.now(), previous_issue_ >= m.bus.now());
  const Cycle now = m.accessTime(static_cast<u32>(device));
  return m.upcp ? m.upcp->read(offset, now) : m.slots[device].q->read(offset, now);
}

void Monitor::writeRegister(int device, u64 offset, u64 value) {
  Impl& m = *impl_;
  m.flushAll(m.bus.now(), previous_issue_ >= m.bus.now());
  const Cycle now = m.accessTime(static_cast<u32>(device));
  Impl::Slot& slot = m.slots[device];
  if (m.upcp) {
    m.upcp->write(offset, value, now);
  } else {
    slot.q->write(offset, value, now);
  }
  // A start/stop or a configuration write may change which events the unit wants (a unit that
  // does not count wants none).
  const bool was_running = slot.running;
  if (offset == m.runOffset(static_cast<u32>(device))) slot.running = (value & 1) != 0;
  if (slot.running != was_running) m.setRunning(static_cast<u32>(device), slot.running, now);
  bool refreshed = false;
  if (m.upcp && offset >= m.upcp->map().config_base && offset < m.upcp->map().start_stop &&
      offset % 8 == 0) {
    // The configuration bytes as written (mode and interrupt enable are never reserved bits).
    const u32 group = static_cast<u32>((offset - m.upcp->map().config_base) / 8);
    for (u32 j = 0; j < 8; ++j) m.config_bytes[8 * group + j] = static_cast<u8>(value >> (8 * j));
    m.refreshBatching(now);
    refreshed = true;
  }
  if (slot.q != nullptr && ((offset >= slot.q->map().config(0) &&
                             offset < slot.q->map().config(0) + slot.q->map().stride) ||
                            offset == slot.q->map().mode)) {
    m.readQConfigs(static_cast<u32>(device));  // (a MODE switch copies configurations)
    m.refreshBatching(now);
    refreshed = true;
  }
  if (refreshed || slot.running != was_running || slot.interest_epoch != m.interestEpoch(device)) {
    m.refreshInterest();
  }
}

void Monitor::setInterruptTarget(int device, int tid, int signo) {
  Impl& m = *impl_;
  m.slots[device].tid = tid;
  m.slots[device].signo = signo;
  m.polling =
      std::any_of(m.slots.begin(), m.slots.end(), [](const Impl::Slot& s) { return s.signo != 0; });
  poll_due_ = m.polling ? m.next_poll : ~Cycle{0};
}

bool Monitor::poll(Cycle now) {
  Impl& m = *impl_;
  if (!m.polling || now < m.next_poll) return false;
  m.next_poll = now + m.poll_cycles;
  poll_due_ = m.next_poll;
  m.flushAll(now, latest_issue_ >= now);
  for (u32 s = 0; s < m.slots.size(); ++s) {
    if (m.slots[s].signo == 0) continue;
    const Cycle at = m.accessAt(s, now);
    if (m.upcp) {
      m.upcp->advanceTo(at);
    } else {
      m.slots[s].q->advanceTo(at);
    }
  }
  if (m.pending.empty()) return false;
  std::vector<Impl::PendingInterrupt> pending;
  pending.swap(m.pending);
  bool sent = false;
  for (const Impl::PendingInterrupt& p : pending) {
    const Impl::Slot& slot = m.slots[p.slot];
    if (slot.signo == 0) continue;
    sent = true;
    ++m.interrupts_delivered;
    m.kernel.counterInterrupt(slot.tid, slot.signo, static_cast<i32>(p.slot),
                              static_cast<i32>(p.counter), p.cycle);
  }
  return sent;
}

void Monitor::interruptDelivered(int device, Cycle at) {
  // The L2 and I/O units stop counting while the handler runs, from when it starts: not when
  // poll() sent the signal, since the thread may first finish what it was doing (a system call
  // it stopped on, whose events count), or have the signal blocked.
  Impl& m = *impl_;
  if (device < 0 || static_cast<std::size_t>(device) >= m.slots.size()) return;
  const Impl::Slot& slot = m.slots[static_cast<u32>(device)];
  if (!slot.slow) return;
  m.flushAll(at, latest_issue_ >= at);
  const Cycle when = m.accessAt(static_cast<u32>(device), at);
  if (slot.q == m.l2.get()) m.l2->interruptDelivered(when);
  if (slot.q == m.io.get()) m.io->interruptDelivered(when);
}

u64 Monitor::reference(u32 input) const {
  const Impl& m = *impl_;
  u64 tallied = 0;
  if (m.input_tallied[input]) {
    const u64 value =
        m.bus.tallyKind(input) == probe::Bus::TallyKind::kTerms
            ? m.bus.tallyValue(input)
            : m.bus.levelSource()->levelBefore(m.bus.eventOf(input).first,
                                               m.bus.eventOf(input).second, Impl::kNever);
    tallied = value - m.input_base[input];
  }
  return m.reference[input] + m.bus.pendingPulses(input) + m.bus.pendingLevelCycles(input) +
         tallied;
}

void Monitor::advanceTallies(Cycle now) {
  impl_->advanceTallies(now);
}

void Monitor::wake(u32 thread) {
  impl_->wake(thread);
}

const Cycle* Monitor::levelDue() const {
  return impl_->lag_from.data();
}

void Monitor::levelsReached(u32 thread) {
  impl_->resolveLag(thread);
}

void Monitor::traceInput(u32 input) {
  if (input >= impl_->reference.size()) fail(ExitCode::kInternal, "no bus input {}", input);
  impl_->traces.try_emplace(input);
  impl_->refreshBatching(latest_issue_);
  impl_->refreshInterest();
}

const Monitor::InputTrace& Monitor::trace(u32 input) {
  impl_->flushAll(latest_issue_, true);  // the bus's open batches hold part of it
  return impl_->traces.at(input);
}

void Monitor::visitStats(stats::Visitor& v) const {
  // Pending batches are the monitor's bookkeeping, not state of the units: apply them so that
  // the units' statistics are complete.
  impl_->flushAll(latest_issue_, true);
  const Impl& m = *impl_;
  v.text("unit",
         m.type == MonitorUnit::kUpcP   ? "upc"
         : m.type == MonitorUnit::kUpcQ ? "upcq"
                                        : "none",
         "The node's counter unit");
  v.counter("native_events", m.catalogue.size(), "Events the unit can count");
  v.counter("interrupts_delivered", m.interrupts_delivered, "Counter interrupts sent to threads");
  v.counter("shifted_inputs", m.shifted_inputs,
            "Level intervals started later than they began (a read fell inside them)");
  v.counter("sink_pulses", m.pulses,
            "Pulses the probe bus passed to the monitor (not those it added up in a batch)");
  v.counter("sink_levels", m.levels,
            "Level intervals the probe bus passed to the monitor (not those it merged)");
  v.counter("unit_pulses", m.unit_pulses,
            "Pulses applied to the units (several bus pulses of one input between two visits of "
            "its UPC-P counter are applied as one)");
  v.counter("unit_levels", m.unit_levels,
            "Level intervals applied to the units (abutting intervals of one input as one)");
  v.counter("tallied_counters", m.tallies.size(),
            "Counters counting from the models' statistics (at the last configuration)");
  v.counter("tally_schedule_entries", m.schedule.entries.size(),
            "Window ends per round the schedule walks now (sleeping cores' left out)");
  v.counter("tally_schedule_all", m.all_entries.size(), "Window ends per round of every counter");
  v.counter("tally_windows", m.tally_windows,
            "Counts taken from statistics and applied to the units (a window's, or up to an "
            "access)");
  if (m.upcp) v.group("upc", m.upcp->stats());
  for (const auto& s : m.slots) {
    if (s.q != nullptr) v.group(s.path.substr(9), s.q->stats());
  }
}

}  // namespace hpm
