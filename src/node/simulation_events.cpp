// The driver's own events (instruction mix, context switches): what the bus wants of it, their
// ground truth, and the operation counts it keeps while a monitor counts from statistics.
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
  model->setProbe(model_wanted ? bus.get() : nullptr);
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
