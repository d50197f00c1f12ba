// The catalogue and host programming (hpmsim stat, --upc-config).
#include <algorithm>
#include <cctype>

#include "base/error.h"
#include "node/monitor_impl.h"
#include "node/truth_unit.h"

namespace hpm {
namespace {

using probe::Kind;

std::string lower(std::string_view s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "L1dMisses" -> "L1D_MISSES", "op:fadd.d" -> "OP_FADD_D".
std::string genericUpper(const std::string& generic) {
  if (generic.starts_with("op:")) return "OP_" + pmu::upperName(generic.substr(3));
  for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
    if (probe::kEventInfo[ev].name == generic) {
      return probe::upperName(static_cast<probe::Event>(ev));
    }
  }
  return generic;
}

}  // namespace

void Monitor::Impl::attach(const UnitFamily& f) {
  if (f.beside == nullptr) family = f;
  pmu::Attachment a =
      f.attach(machine, pmu::NodeShape{machine.node.cores, machine.node.threads_per_core, &bus,
                                       machine.timing.translation.enabled});
  const u32 first = static_cast<u32>(units.size());
  for (auto& unit : a.units) {
    slots.push_back(Slot{unit.get()});
    units.push_back(std::move(unit));
  }
  for (NativeEvent& e : a.events) {
    for (NativeEvent::Instance& i : e.instances) i.unit += first;
    index[e.name] = catalogue.size();
    catalogue.push_back(std::move(e));
  }
}

void Monitor::Impl::attachTruth() {
  units.push_back(std::make_unique<TruthUnit>(bus));
  slots.push_back(Slot{units.back().get()});
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
      // perf's cycles of a process: the cycles its threads ran, each hardware thread's while it
      // had a thread to run (ThreadRunning, or its clock less its idle cycles), never the idle
      // hardware threads' clocks (docs/counters.md, "What cycles count"; stat -a counts those:
      // kNodeWideCycles).
      {"cycles", {"ThreadRunning"}},
      {"cycles", {"Cycles", "-StallIdle"}},
      // perf's alias of cycles, and its reference cycles: the nodes' clocks run at one
      // frequency, never scaled, so a reference cycle is a cycle.
      {"cpu-cycles", {"ThreadRunning"}},
      {"cpu-cycles", {"Cycles", "-StallIdle"}},
      {"ref-cycles", {"ThreadRunning"}},
      {"ref-cycles", {"Cycles", "-StallIdle"}},
      {"branches", {"InstBranch"}},
      {"branch-instructions", {"InstBranch"}},
      {"branch-misses", {"BranchMispredicts"}},
      // perf's cache-* are the last level's: the L2's requests and misses by core (bgq), else
      // the shared last level's own (bgp's L3, node-wide: UPC-P has no per-core input for it).
      // (bgp's L3 banks, in UPC-P's mode 0 with cores 0 and 1: every request looks up one
      // directory; the cores' read ports, RD0 and RD1, deliver their reads and count their
      // misses; the DMA's port is not among them.)
      {"cache-references", {"CoreL2Reads", "CoreL2Writes"}},
      {"cache-references", {"L3DirLookups"}},
      {"cache-references", {"L2Requests"}},
      {"cache-misses", {"CoreL2Misses"}},
      {"cache-misses", {"L3Dir0Misses", "L3Dir1Misses"}},
      {"cache-misses", {"L2Misses"}},
      {"L1-dcache-loads", {"InstLoad", "InstFpLoad"}},
      {"L1-dcache-load-misses", {"L1dLoadMisses"}},
      {"L1-dcache-stores", {"InstStore", "InstFpStore"}},
      {"L1-dcache-store-misses", {"L1dStoreMisses"}},
      {"L1-icache-loads", {"L1iAccesses"}},
      {"L1-icache-load-misses", {"L1iMisses"}},
      {"LLC-loads", {"CoreL2Reads"}},
      {"LLC-loads", {"L3SingleLines", "L3Bursts"}},
      {"LLC-loads", {"L2Reads"}},
      // Loads only: the core's L2 read requests that missed (its reads less their hits; reads
      // are demand loads, fetches, prefetches and atomics), else the last level's read misses.
      {"LLC-load-misses", {"CoreL2Reads", "-CoreL2Hits"}},
      {"LLC-load-misses", {"L3Dir0Misses", "L3Dir1Misses"}},
      {"LLC-load-misses", {"L2Misses"}},
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

std::span<const std::string_view> Monitor::perfSoftwareEvents() {
  static constexpr std::string_view kNames[] = {"task-clock", "cpu-clock", "cpu-migrations",
                                                "migrations"};
  return kNames;
}

std::span<const std::string_view> Monitor::perfUnsupportedEvents() {
  static constexpr std::string_view kNames[] = {"dTLB-loads",
                                                "dTLB-load-misses",
                                                "dTLB-stores",
                                                "dTLB-store-misses",
                                                "dTLB-prefetches",
                                                "dTLB-prefetch-misses",
                                                "iTLB-loads",
                                                "iTLB-load-misses",
                                                "node-loads",
                                                "node-load-misses",
                                                "node-stores",
                                                "node-store-misses",
                                                "node-prefetches",
                                                "node-prefetch-misses",
                                                "LLC-prefetches",
                                                "LLC-prefetch-misses",
                                                "LLC-store-misses",
                                                "L1-dcache-prefetches",
                                                "L1-dcache-prefetch-misses",
                                                "bus-cycles",
                                                "major-faults",
                                                "alignment-faults",
                                                "emulation-faults"};
  return kNames;
}

std::vector<Monitor::Term> Monitor::expandTerms(const std::string& name) const {
  // A perf name may have several definitions, in order of preference: the first whose generic
  // events all exist on this machine is taken (the last one even in part). A generic written
  // "-Name" is subtracted.
  std::vector<std::vector<std::string>> choices;
  for (const auto& [alias, list] : perfAliases()) {
    if (alias == name) choices.push_back(list);
  }
  if (choices.empty()) choices.push_back({name});
  std::vector<Term> out;
  for (std::size_t c = 0; c < choices.size(); ++c) {
    out.clear();
    bool complete = true;
    for (const std::string& term : choices[c]) {
      const int sign = term.starts_with('-') ? -1 : 1;
      const std::string g = sign < 0 ? term.substr(1) : term;
      bool found = false;
      for (const NativeEvent& e : impl_->catalogue) {
        if (lower(e.generic) != lower(g) && genericUpper(e.generic) != g) continue;
        // The node-wide total: a thread's pulse events are summed by the core's own event.
        if (e.thread >= 0 && e.kind == Kind::kPulse) continue;
        out.push_back({&e, sign});
        found = true;
      }
      complete = complete && found;
    }
    if (complete && !out.empty()) break;
  }
  // A native event counted per hardware thread only (a level event: "PEVT_CYCLES" stands for
  // "PEVT_CYCLES@t0" ... of every core).
  if (out.empty()) {
    const std::string prefix = name + "@t";
    for (const NativeEvent& e : impl_->catalogue) {
      if (e.thread >= 0 && e.name.starts_with(prefix)) out.push_back({&e, 1});
    }
  }
  return out;
}

std::vector<const NativeEvent*> Monitor::expand(const std::string& name) const {
  std::vector<const NativeEvent*> out;
  for (const Term& t : expandTerms(name)) out.push_back(t.event);
  return out;
}

void Monitor::Impl::planHost(const std::vector<const NativeEvent*>& events) {
  // Each event on every unit counting one of its instances (a PUnit per core; the L2 unit once
  // for all its slices, or once per slice when it keeps them apart), in the order asked.
  for (const NativeEvent* e : events) {
    std::vector<u32> done;
    for (const NativeEvent::Instance& i : e->instances) {
      pmu::CounterUnit& unit = *slots[i.unit].unit;
      const bool per_port = unit.hostCountsPerPort(e->unit_mode);
      if (!per_port && std::find(done.begin(), done.end(), i.unit) != done.end()) continue;
      done.push_back(i.unit);
      const u32 counter = unit.hostAdd(i.port, e->input, e->unit_mode, e->name);
      host.push_back({e, i.unit, counter, per_port ? static_cast<i32>(i.port) : -1});
    }
  }
}

void Monitor::Impl::startHost(Cycle at, bool events_of_at) {
  flushAll(at, events_of_at);
  for (u32 s = 0; s < slots.size(); ++s) {
    const Cycle now = accessAt(s, at);
    slots[s].unit->hostStart(now);
    syncRunning(s, now);
  }
  refreshBatching(at);
  refreshInterest();
}

void Monitor::programHost(const std::vector<const NativeEvent*>& events) {
  Impl& m = *impl_;
  if (m.units.empty()) fail(ExitCode::kUsage, "this machine has no counter unit");
  m.planHost(events);
  m.startHost(0, false);
  in_use_ = true;
}

std::optional<std::string> Monitor::hostFits(const std::vector<const NativeEvent*>& events) {
  Impl& m = *impl_;
  if (m.units.empty()) return "this machine has no counter unit";
  std::optional<std::string> why;
  try {
    m.planHost(events);
  } catch (const Error& e) {
    why = e.what();
  }
  for (Impl::Slot& slot : m.slots) slot.unit->hostClear();
  m.host.clear();
  return why;
}

void Monitor::stopHost(Cycle at) {
  Impl& m = *impl_;
  m.flushAll(at, latest_issue_ >= at);
  for (u32 s = 0; s < m.slots.size(); ++s) {
    const Cycle now = m.accessAt(s, at);
    m.slots[s].unit->hostStop(now);
    m.syncRunning(s, now);
  }
  m.refreshBatching(at);
  m.refreshInterest();
}

void Monitor::reprogramHost(const std::vector<const NativeEvent*>& events, Cycle at) {
  Impl& m = *impl_;
  m.host.clear();
  m.planHost(events);
  m.startHost(at, latest_issue_ >= at);
  in_use_ = true;
}

void Monitor::countFromEvents() {
  impl_->count_from_statistics = false;
}

Cycle Monitor::hostSettleCycles() const {
  Cycle longest = 0;
  for (const Impl::Slot& slot : impl_->slots) {
    longest = std::max(longest, slot.unit->settleCycles());
  }
  return longest;
}

std::vector<ProgrammedCounter> Monitor::hostLayout() const {
  const Impl& m = *impl_;
  std::vector<ProgrammedCounter> out;
  for (const Impl::HostCounter& h : m.host) {
    const pmu::CounterUnit& unit = *m.slots[h.slot].unit;
    ProgrammedCounter p;
    p.event = h.event->name;
    p.device = unit.path();
    p.core = unit.kind().per_core ? static_cast<i32>(unit.instance()) : -1;
    p.counter = h.counter;
    p.port = h.port;
    p.port_name = unit.kind().port_name;
    out.push_back(p);
  }
  return out;
}

std::vector<ProgrammedCounter> Monitor::readHost(Cycle end) {
  Impl& m = *impl_;
  m.flushAll(end, latest_issue_ >= end);
  // Read once the units have settled: every carry serviced, every local value swept.
  // (Also after the end of every level interval given to a unit: one moved later by an access
  // may end after the run.)
  Cycle settle = end + 1;
  for (Cycle until : m.level_until) settle = std::max(settle, until);
  settle += hostSettleCycles();
  std::vector<ProgrammedCounter> out = hostLayout();
  for (std::size_t i = 0; i < out.size(); ++i) {
    const Impl::HostCounter& h = m.host[i];
    pmu::CounterUnit& unit = *m.slots[h.slot].unit;
    out[i].value = unit.read(unit.counterOffset(h.counter), m.accessAt(h.slot, settle));
  }
  return out;
}

std::vector<u64> Monitor::sampleHost(Cycle now) {
  Impl& m = *impl_;
  m.flushAll(now, latest_issue_ >= now);
  std::vector<u64> out;
  for (const Impl::HostCounter& h : m.host) {
    pmu::CounterUnit& unit = *m.slots[h.slot].unit;
    out.push_back(unit.read(unit.counterOffset(h.counter), m.accessAt(h.slot, now)));
  }
  return out;
}

}  // namespace hpm
