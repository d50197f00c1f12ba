// The driver's own events (instruction mix, context switches): what the bus wants of it, their
// ground truth, and the operation counts it keeps while a monitor counts from statistics; the
// functional mode's events and statistics.
#include <algorithm>

#include "node/simulation_impl.h"

namespace hpm {

using driver::forEachMixEvent;
using driver::kOpMix;

void Simulation::Impl::noteInterest() {
  if (!bus || bus->epoch() == bus_epoch) return;
  bus_epoch = bus->epoch();
  using probe::Event;
  // With none of their events wanted the timing model and the memory system do not even look
  // at the bus (the CNK unit counts kernel events from boot: those alone must cost the models
  // nothing).
  bool model_wanted = bus->wantsTransactions();
  for (std::size_t ev = 0; ev < probe::kEventCount && !model_wanted; ++ev) {
    const probe::Scope scope = probe::kEventInfo[ev].scope;
    if (probe::nodeWide(scope)) continue;
    for (u32 s = 0; s < bus->topology().instances(scope) && !model_wanted; ++s) {
      model_wanted = bus->wants(static_cast<Event>(ev), s);
    }
  }
  if (model) model->setProbe(model_wanted ? bus.get() : nullptr);
  if (!model) {
    // The functional mode: per hardware thread, whether any of its events is wanted, and
    // which (publishFunctional).
    const u32 threads = bus->topology().threads;
    functional_wants.resize(threads);
    for (u32 h = 0; h < threads; ++h) {
      bool published = false;
      for (const probe::TruthRow<Impl>& row : functionalTable()) {
        published = published || bus->wants(row.event, h);
      }
      for (u32 op = 0; op < bus->opcodes(); ++op) published = published || bus->wantsOp(op, h);
      harts[h].view = DriverView{};
      harts[h].view.mix = published ? kPublishMix : 0;
      if (monitor && monitor->tallying()) {
        harts[h].view.tallying = monitor.get();
        harts[h].view.dormant = &monitor->dormantFlag(h);
      }
      noteFunctionalWants(h);
    }
    return;
  }
  // (Counting from statistics changes the epoch when it starts or stops.)
  level_due = monitor && monitor->tallying() ? monitor->levelDue() : nullptr;
  // The instruction-mix events the operation alone decides, and those that depend on the
  // instruction's data (its address, its result: never counted from statistics).
  static constexpr Event kMixEvents[] = {
      Event::kInstCompressed, Event::kFpOps,           Event::kFpSingle, Event::kFpDouble,
      Event::kLoads1,         Event::kLoads2,          Event::kLoads4,   Event::kLoads8,
      Event::kStores1,        Event::kStores2,         Event::kStores4,  Event::kStores8,
      Event::kLoadReserved,   Event::kAtomicMemoryOps, Event::kEcalls,   Event::kCsrAccesses,
      Event::kFences,         Event::kFpOpsSingle};
  static constexpr Event kDataMixEvents[] = {Event::kMisalignedAccesses, Event::kStoreCondSuccess,
                                             Event::kStoreCondFail};
  const u32 threads = bus->topology().threads;
  for (u32 h = 0; h < threads; ++h) {
    bool published = false;
    bool data = false;
    bool tallied = false;
    for (Event e : kMixEvents) {
      published = published || bus->wants(e, h);
      // (Compressed instructions and FP operations have the timing model's statistics.)
      if (e != Event::kInstCompressed && e != Event::kFpOps) {
        tallied = tallied || bus->tallyActive(bus->input(e, h));
      }
    }
    for (Event e : kDataMixEvents) data = data || bus->wants(e, h);
    for (u32 op = 0; op < bus->opcodes(); ++op) {
      published = published || bus->wantsOp(op, h);
      tallied = tallied || bus->tallyActive(bus->inputOp(op, h));
    }
    DriverView& v = harts[h].view;
    v = DriverView{};
    v.mix =
        static_cast<u8>((published ? kPublishMix : 0) |
                        (!published && data ? kPublishDataEvents : 0) | (tallied ? kCountOps : 0));
    v.op_counts = tallied ? &op_counts[std::size_t{h} * isa::kOpCount] : nullptr;
    if (level_due != nullptr) {
      v.tallying = monitor.get();
      v.dormant = &monitor->dormantFlag(h);
      v.level_due = level_due + h;
    }
  }
}

// The driver's events and their statistics (probe::TruthRow): the instruction-mix events that
// depend on the operation alone, from the operation counts (kept only while a monitor counts
// from them: no ground truth), the hardware threads' context switches, and transactional
// memory's (the L2's speculation, whose model the driver owns).
namespace {
const u64 kNoSpeculation = 0;  // the TM events' statistic where the node has no speculation
}  // namespace

std::span<const probe::TruthRow<Simulation::Impl>> Simulation::Impl::truthTable() {
  using probe::Event;
  using Row = probe::TruthRow<Impl>;
  static constexpr Event kByOperation[] = {
      Event::kFpSingle, Event::kFpDouble,    Event::kLoads1,       Event::kLoads2,
      Event::kLoads4,   Event::kLoads8,      Event::kStores1,      Event::kStores2,
      Event::kStores4,  Event::kStores8,     Event::kLoadReserved, Event::kAtomicMemoryOps,
      Event::kEcalls,   Event::kCsrAccesses, Event::kFences,       Event::kFpOpsSingle};
  static const std::vector<Row> kRows = [] {
    std::vector<Row> rows = {
        {Event::kContextSwitches,
         [](const Impl& sim, u32, probe::TruthTerms& t) { t.push_back({&sim.context_switches}); },
         probe::Changes::kAnytime, probe::Tally::kNone},
        // Transactional memory (node/speculation.h): another core's access may roll a thread's
        // transaction back, so they are read at every window end; none without the model.
        {Event::kTmBegun,
         [](const Impl& sim, u32 h, probe::TruthTerms& t) {
           t.push_back({sim.speculation ? &sim.speculation->stats(h).begun : &kNoSpeculation});
         },
         probe::Changes::kAnytime},
        {Event::kTmCommitted,
         [](const Impl& sim, u32 h, probe::TruthTerms& t) {
           t.push_back({sim.speculation ? &sim.speculation->stats(h).committed : &kNoSpeculation});
         },
         probe::Changes::kAnytime},
        {Event::kTmRolledBack,
         [](const Impl& sim, u32 h, probe::TruthTerms& t) {
           t.push_back(
               {sim.speculation ? &sim.speculation->stats(h).rolled_back : &kNoSpeculation});
         },
         probe::Changes::kAnytime},
        {Event::kTmConflicts,
         [](const Impl& sim, u32 h, probe::TruthTerms& t) {
           t.push_back({sim.speculation ? &sim.speculation->stats(h).conflicts : &kNoSpeculation});
         },
         probe::Changes::kAnytime},
        {Event::kTmLinesCleaned,
         [](const Impl& sim, u32 s, probe::TruthTerms& t) {
           t.push_back({sim.speculation ? &sim.speculation->linesCleaned(s) : &kNoSpeculation});
         },
         probe::Changes::kAnytime},
    };
    [&rows]<std::size_t... I>(std::index_sequence<I...>) {
      (rows.push_back(
           Row{kByOperation[I],
               [](const Impl& sim, u32 h, probe::TruthTerms& t) {
                 for (u32 op = 0; op < isa::kOpCount; ++op) {
                   forEachMixEvent(kOpMix[op], [&](Event e, u64 weight) {
                     if (e == kByOperation[I]) {
                       t.push_back({&sim.op_counts[std::size_t{h} * isa::kOpCount + op], weight});
                     }
                   });
                 }
               },
               probe::Changes::kOwnCore, probe::Tally::kTerms, false}),
       ...);
    }
    (std::make_index_sequence<std::size(kByOperation)>{});
    return rows;
  }();
  return kRows;
}

// ---- the functional mode ----

namespace {

using probe::Event;

// The functional mode's events that the operation counts make: an instruction of operation `op`
// is functionalWeight(e, op) events e (0: none). Cycles and ThreadRunning are levels (one cycle
// per instruction; Cycles adds the idle cycles), the others pulses.
constexpr Event kFunctionalByOperation[] = {
    Event::kInstructions, Event::kCycles,          Event::kThreadRunning, Event::kInstIntAlu,
    Event::kInstIntMul,   Event::kInstIntDiv,      Event::kInstBranch,    Event::kInstJump,
    Event::kInstLoad,     Event::kInstStore,       Event::kInstAtomic,    Event::kInstFpLoad,
    Event::kInstFpStore,  Event::kInstFpAdd,       Event::kInstFpMul,     Event::kInstFpFma,
    Event::kInstFpDiv,    Event::kInstFpSqrt,      Event::kInstFpMisc,    Event::kInstFpCvt,
    Event::kInstSystem,   Event::kFpOps,           Event::kFpSingle,      Event::kFpDouble,
    Event::kLoads1,       Event::kLoads2,          Event::kLoads4,        Event::kLoads8,
    Event::kStores1,      Event::kStores2,         Event::kStores4,       Event::kStores8,
    Event::kLoadReserved, Event::kAtomicMemoryOps, Event::kEcalls,        Event::kCsrAccesses,
    Event::kFences,       Event::kFpOpsSingle};
static_assert(static_cast<u32>(Event::kInstSystem) - static_cast<u32>(Event::kInstIntAlu) + 1 ==
              static_cast<u32>(isa::InstClass::kCount));

u64 functionalWeight(Event e, u32 op) {
  if (e == Event::kInstructions || e == Event::kCycles || e == Event::kThreadRunning) return 1;
  const auto first_class = static_cast<u32>(Event::kInstIntAlu);
  const auto v = static_cast<u32>(e);
  if (v >= first_class && v <= static_cast<u32>(Event::kInstSystem)) {
    return static_cast<u32>(isa::opInfo(static_cast<isa::Op>(op)).cls) == v - first_class ? 1 : 0;
  }
  u64 weight = 0;
  forEachMixEvent(kOpMix[op], [&](Event m, u64 n) {
    if (m == e) weight += n;
  });
  return weight;
}

bool functionalLevel(Event e) {
  return probe::info(e).kind == probe::Kind::kLevel;
}

// Per operation, the pulses one instruction of it publishes: (event, count), from the weights.
using OpPulses = std::vector<std::pair<Event, u64>>;
const std::array<OpPulses, isa::kOpCount>& functionalPulses() {
  static const std::array<OpPulses, isa::kOpCount> kPulses = [] {
    std::array<OpPulses, isa::kOpCount> table;
    for (u32 op = 0; op < isa::kOpCount; ++op) {
      for (Event e : kFunctionalByOperation) {
        const u64 n = functionalWeight(e, op);
        if (n != 0 && !functionalLevel(e)) table[op].emplace_back(e, n);
      }
    }
    return table;
  }();
  return kPulses;
}

}  // namespace

std::span<const probe::TruthRow<Simulation::Impl>> Simulation::Impl::functionalTable() {
  using Row = probe::TruthRow<Impl>;
  // (Read at every window end: no version says when they change.)
  static const std::vector<Row> kRows = [] {
    std::vector<Row> rows = {
        {Event::kInstCompressed,
         [](const Impl& sim, u32 h, probe::TruthTerms& t) { t.push_back({&sim.compressed[h]}); },
         probe::Changes::kAnytime},
        // (The idle cycles are known only when the wait is over (functionalIdle), after the
        // windows that ended in it: counted from statistics those windows would miss them
        // (measured: the exactness test's idle and cycle counters short by half), so these
        // are counted from the published intervals, which the monitor places as any late one.)
        {Event::kStallIdle,
         [](const Impl& sim, u32 h, probe::TruthTerms& t) { t.push_back({&sim.idle_cycles[h]}); },
         probe::Changes::kAnytime, probe::Tally::kNone},
        {Event::kMisalignedAccesses,
         [](const Impl& sim, u32 h, probe::TruthTerms& t) { t.push_back({&sim.misaligned[h]}); },
         probe::Changes::kAnytime},
        {Event::kStoreCondFail,
         [](const Impl& sim, u32 h, probe::TruthTerms& t) { t.push_back({&sim.sc_failed[h]}); },
         probe::Changes::kAnytime},
        // (The store-conditionals less those that failed.)
        {Event::kStoreCondSuccess,
         [](const Impl& sim, u32 h, probe::TruthTerms& t) {
           for (u32 op = 0; op < isa::kOpCount; ++op) {
             if (kOpMix[op].sc) t.push_back({&sim.op_counts[std::size_t{h} * isa::kOpCount + op]});
           }
           t.push_back({&sim.sc_failed[h], ~u64{0}});
         },
         probe::Changes::kAnytime},
    };
    [&rows]<std::size_t... I>(std::index_sequence<I...>) {
      (rows.push_back(Row{
           kFunctionalByOperation[I],
           [](const Impl& sim, u32 h, probe::TruthTerms& t) {
             constexpr Event e = kFunctionalByOperation[I];
             // (Every operation's, weight 1: the thread's retired instructions, one
             // statistic for the windows to read.)
             if (e == Event::kInstructions || e == Event::kCycles || e == Event::kThreadRunning) {
               t.push_back({&sim.retired[h]});
               if (e == Event::kCycles) t.push_back({&sim.idle_cycles[h]});
               return;
             }
             for (u32 op = 0; op < isa::kOpCount; ++op) {
               if (const u64 w = functionalWeight(e, op); w != 0) {
                 t.push_back({&sim.op_counts[std::size_t{h} * isa::kOpCount + op], w});
               }
             }
           },
           probe::Changes::kAnytime,
           kFunctionalByOperation[I] == Event::kCycles ? probe::Tally::kNone
                                                       : probe::Tally::kTerms}),
       ...);
    }
    (std::make_index_sequence<std::size(kFunctionalByOperation)>{});
    return rows;
  }();
  return kRows;
}

bool Simulation::countsInFunctionalMode(probe::Event e) {
  const auto counts = [e](const auto& rows) {
    return std::any_of(rows.begin(), rows.end(), [e](const auto& row) { return row.event == e; });
  };
  return counts(Impl::functionalTable()) || counts(Kernel::truthTable());
}

void Simulation::Impl::registerFunctionalTallies() {
  const u32 threads = bus->topology().threads;
  op_counts.assign(std::size_t{threads} * isa::kOpCount, 0);
  compressed.assign(threads, 0);
  misaligned.assign(threads, 0);
  sc_failed.assign(threads, 0);
  idle_cycles.assign(threads, 0);
  retired.assign(threads, 0);
  for (u32 h = 0; h < threads; ++h) {
    for (u32 op = 0; op < isa::kOpCount; ++op) {
      bus->addTally(bus->inputOp(op, h), &op_counts[std::size_t{h} * isa::kOpCount + op]);
      bus->setTallyTruth(bus->inputOp(op, h), true);
    }
  }
  probe::registerTallies(
      *bus, functionalTable(), *this, [](u32) -> const u64* { return nullptr; },
      [](u32) -> const u64* { return nullptr; });
}

void Simulation::Impl::noteFunctionalWants(u32 hw) {
  const probe::Bus& b = *bus;
  FunctionalWants& w = functional_wants[hw];
  w.first.assign(isa::kOpCount + 1, 0);
  w.pulses.clear();
  for (u32 op = 0; op < isa::kOpCount; ++op) {
    w.first[op] = static_cast<u32>(w.pulses.size());
    for (const auto& [e, n] : functionalPulses()[op]) {
      if (b.wants(e, hw)) w.pulses.emplace_back(e, n);
    }
    if (b.wantsOp(op, hw)) w.pulses.emplace_back(Event::kCount, 1);
  }
  w.first[isa::kOpCount] = static_cast<u32>(w.pulses.size());
  w.compressed = b.wants(Event::kInstCompressed, hw);
  w.misaligned = b.wants(Event::kMisalignedAccesses, hw);
  w.sc_success = b.wants(Event::kStoreCondSuccess, hw);
  w.sc_fail = b.wants(Event::kStoreCondFail, hw);
  w.cycles = b.wants(Event::kCycles, hw);
  w.running = b.wants(Event::kThreadRunning, hw);
  w.data = w.compressed || w.misaligned || w.sc_success || w.sc_fail;
}

void Simulation::Impl::publishFunctional(u32 hw, const isa::DecodedInst& d, bool misaligned_access,
                                         bool sc_failure) {
  // (In the order of the events' publication before functional_wants: pulses of one cycle
  // commute, but the order is kept all the same.)
  probe::Bus& b = *bus;
  const FunctionalWants& w = functional_wants[hw];
  const auto op = static_cast<u32>(d.op);
  const auto* p = w.pulses.data();
  const u32 end = w.first[op + 1];
  u32 i = w.first[op];
  for (; i < end && p[i].first != Event::kCount; ++i) b.pulse(p[i].first, hw, p[i].second);
  if (d.length == 2 && w.compressed) b.pulse(Event::kInstCompressed, hw, 1);
  if (misaligned_access && w.misaligned) b.pulse(Event::kMisalignedAccesses, hw, 1);
  if (kOpMix[op].sc && (sc_failure ? w.sc_fail : w.sc_success)) {
    b.pulse(sc_failure ? Event::kStoreCondFail : Event::kStoreCondSuccess, hw, 1);
  }
  if (i < end) b.pulseOp(op, hw, 1);  // (the operation's own input comes last)
}

void Simulation::Impl::functionalIdle(u32 hw, Cycle from, Cycle to) {
  idle_cycles[hw] += to - from;
  probe::Bus* b = bus.get();
  HPM_PROBE_LEVEL(b, kCycles, hw, from, to);
  HPM_PROBE_LEVEL(b, kStallIdle, hw, from, to);
}

void Simulation::Impl::registerOpTallies() {
  const u32 threads = bus->topology().threads;
  op_counts.assign(std::size_t{threads} * isa::kOpCount, 0);
  for (u32 h = 0; h < threads; ++h) {
    for (u32 op = 0; op < isa::kOpCount; ++op) {
      // (retire() counts before the timing model steps the core's version: a read between the
      // two sees the new count, and the version step makes the next read look again.)
      const u32 core = h / machine.node.threads_per_core;
      bus->addTally(bus->inputOp(op, h), &op_counts[std::size_t{h} * isa::kOpCount + op]);
      bus->setTallyVersion(bus->inputOp(op, h), model->coreVersion(core), core);
    }
  }
  probe::registerTallies(
      *bus, truthTable(), *this, [this](u32 core) { return model->coreVersion(core); },
      [](u32) -> const u64* { return nullptr; });
}

}  // namespace hpm
