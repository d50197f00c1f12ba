// UPC-Q's part of the catalogue (docs/events.md): Blue Gene/Q's BGPM events, by their names and
// numbers (bgpm_events.cpp), wired to what hpmsim's node has for them, then hpmsim's own events
// (the probe events no BGPM event stands for, and one instruction count per operation), numbered
// from 512.
//
// A PUnit input is an event number and a thread select: input = event + 1024 x select, select 0
// the core (its own event, or a thread event summed over the core's threads: pulses only, since
// level signals of several threads cannot share one wire) and select t + 1 hardware thread t.
// A thread-select variant is named `<EVENT>@t<t>` (BGPM counts a thread event for the thread of
// the event set; here a counter's select says which).
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "base/error.h"
#include "isa/ops.h"
#include "pmu/upcq/bgpm_events.h"
#include "pmu/upcq/component.h"

namespace hpm::upcq {

using probe::Event;
using probe::Kind;
using probe::Scope;

namespace {

constexpr u32 kSelectStride = 1024;  // PUnit input = event + 1024 x thread select
constexpr u32 kFirstOwnEvent = 512;  // hpmsim's own PUnit events, after BGPM's

// One source of a catalogue event: a probe event, or an operation's instruction count.
struct Source {
  Event event = Event::kCount;  // kCount: the operation `op`
  u32 op = 0;
  Scope scope() const { return event == Event::kCount ? Scope::kThread : probe::info(event).scope; }
  Kind kind() const { return event == Event::kCount ? Kind::kPulse : probe::info(event).kind; }
  u32 input(const probe::Bus& bus, u32 source) const {
    return event == Event::kCount ? bus.inputOp(op, source) : bus.input(event, source);
  }
};

std::vector<Source> sourcesOf(const BgpmEvent& b) {
  std::vector<Source> out;
  for (Event e : b.sources.list()) out.push_back({e, 0});
  for (u32 op : pmu::opsOfGroup(b.ops)) out.push_back({Event::kCount, op});
  return out;
}

std::string describe(const BgpmEvent& b, bool counts) {
  return counts ? fmt::format("{}: {}", b.label, b.note)
                : fmt::format("{} (never counts here: {})", b.label, b.note);
}

class Builder {
 public:
  Builder(const Params& p, const pmu::NodeShape& node, pmu::Attachment& out)
      : p_(p), bus_(*node.bus), cores_(node.cores), tpc_(node.threads_per_core), out_(out) {}

  // A PUnit event of number `number` fed by `sources` (one kind, all thread or all core scope);
  // none: it never counts. `scope`: BGPM's (thread or core) for a thread event, whether it has
  // thread selects; an event that never counts has that scope.
  void punit(u32 number, const std::string& name, const std::string& description,
             const std::vector<Source>& sources, Scope none_scope, i32 id,
             const std::string& generic) {
    const bool thread = !sources.empty() && sources.front().scope() == Scope::kThread;
    const Kind kind = std::any_of(sources.begin(), sources.end(),
                                  [](const Source& s) { return s.kind() == Kind::kLevel; })
                          ? Kind::kLevel
                          : Kind::kPulse;
    for (const Source& s : sources) {
      if ((s.scope() == Scope::kThread) != thread || (!thread && s.scope() != Scope::kCore)) {
        fail(ExitCode::kInternal, "{}: its sources mix scopes", name);
      }
    }
    auto add = [&](std::string n, u32 input, i32 t, Scope scope,
                   const std::function<std::vector<u32>(u32 core)>& feeds) {
      if (input >= p_.punit.events) {
        fail(ExitCode::kConfig,
             "upcq.punit.events ({}) is too small for the catalogue's PUnit input {} ({})",
             p_.punit.events, input, n);
      }
      pmu::NativeEvent e;
      e.name = std::move(n);
      e.description = description;
      e.kind = kind;
      e.scope = scope;
      e.unit = &kPUnitKind;
      e.input = input;
      e.thread = t;
      e.id = id;
      e.generic = generic;
      for (u32 k = 0; k < cores_; ++k) e.instances.push_back({k, 0, feeds(k)});
      out_.events.push_back(std::move(e));
    };
    if (sources.empty()) {
      add(name, number, -1, none_scope, [](u32) { return std::vector<u32>{}; });
      return;
    }
    if (!thread) {
      add(name, number, -1, Scope::kCore, [&](u32 k) {
        std::vector<u32> f;
        for (const Source& s : sources) f.push_back(s.input(bus_, k));
        return f;
      });
      return;
    }
    // (A thread event that BGPM counts for the whole core, "..._CORE", has no thread selects.)
    const bool core_only = none_scope == Scope::kCore;
    if (kind == Kind::kPulse) {
      add(name, number, -1, Scope::kCore, [&](u32 k) {
        std::vector<u32> f;
        for (u32 t = 0; t < tpc_; ++t) {
          for (const Source& s : sources) f.push_back(s.input(bus_, k * tpc_ + t));
        }
        return f;
      });
    }
    for (u32 t = 0; t < tpc_ && !(core_only && kind == Kind::kPulse); ++t) {
      add(fmt::format("{}@t{}", name, t), number + kSelectStride * (t + 1), static_cast<i32>(t),
          Scope::kThread, [&](u32 k) {
            std::vector<u32> f;
            for (const Source& s : sources) f.push_back(s.input(bus_, k * tpc_ + t));
            return f;
          });
    }
  }

  // An event of a node-wide unit (the L2 unit: one instance per slice port).
  void node(const pmu::UnitKind& kind, u32 unit, u32 input, u32 inputs, const std::string& name,
            const std::string& description, const std::vector<Event>& sources, i32 id,
            const std::string& generic, u32 unit_mode = 0) {
    if (input >= inputs) {
      fail(ExitCode::kConfig, "the {} has {} event inputs: too few for {} (input {})", kind.title,
           inputs, name, input);
    }
    pmu::NativeEvent e;
    e.name = name;
    e.description = description;
    e.kind = sources.empty() ? Kind::kPulse : probe::info(sources.front()).kind;
    e.unit = &kind;
    e.input = input;
    e.id = id;
    e.generic = generic;
    e.unit_mode = unit_mode;
    e.scope = sources.empty() ? Scope::kNode : probe::info(sources.front()).scope;
    if (&kind == &kNWUnitKind) {
      // One instance per link port: the link's events.
      for (u32 l = 0; l < std::min(bus_.topology().links, p_.nw.links); ++l) {
        std::vector<u32> feeds;
        for (Event ev : sources) feeds.push_back(bus_.input(ev, l));
        e.instances.push_back({unit, l, feeds});
      }
    } else if (&kind == &kL2UnitKind) {
      // One instance per slice port: slice events of that slice; a memory controller's events
      // on the port of the slice with its number (combined mode sums them node-wide).
      for (u32 s = 0; s < std::min(bus_.topology().slices, p_.l2.slices); ++s) {
        std::vector<u32> feeds;
        for (Event ev : sources) {
          const u32 instances = bus_.topology().instances(probe::info(ev).scope);
          if (s < instances) feeds.push_back(bus_.input(ev, s));
        }
        e.instances.push_back({unit, s, feeds});
      }
    } else {
      std::vector<u32> feeds;
      for (Event ev : sources) feeds.push_back(bus_.input(ev, 0));
      e.instances = {{unit, 0, feeds}};
    }
    out_.events.push_back(std::move(e));
  }

 private:
  const Params& p_;
  const probe::Bus& bus_;
  u32 cores_, tpc_;
  pmu::Attachment& out_;
};

}  // namespace

pmu::Attachment attach(const Params& p, const pmu::NodeShape& node) {
  const u32 cores = node.cores;
  if (cores > p.punit.cores) {
    fail(ExitCode::kConfig, "upcq.punit.cores ({}) must cover the node's {} cores", p.punit.cores,
         cores);
  }
  pmu::Attachment out;
  for (u32 k = 0; k < cores; ++k) {
    out.units.push_back(std::make_unique<Component>(kPUnitKind, std::make_unique<PUnit>(p.punit, k),
                                                    p.punit.counters, p.punit.exploration));
  }
  const u32 l2_unit = static_cast<u32>(out.units.size());
  out.units.push_back(std::make_unique<Component>(kL2UnitKind, std::make_unique<L2Unit>(p.l2),
                                                  p.l2.counters, p.l2.exploration));
  const u32 io_unit = static_cast<u32>(out.units.size());
  out.units.push_back(std::make_unique<Component>(kIOUnitKind, std::make_unique<IOUnit>(p.io),
                                                  p.io.counters, p.io.exploration));
  const u32 cnk_unit = static_cast<u32>(out.units.size());
  out.units.push_back(std::make_unique<Component>(kCNKUnitKind, std::make_unique<CNKUnit>(p.cnk),
                                                  p.cnk.counters, false));
  const u32 nw_unit = static_cast<u32>(out.units.size());
  out.units.push_back(std::make_unique<Component>(kNWUnitKind, std::make_unique<NWUnit>(p.nw),
                                                  p.nw.counters, p.nw.exploration));
  Builder build(p, node, out);

  // BGPM's events. An event with one probe event as its only source is that probe event's
  // instance (its generic name): the first of them if several are, but for the cycles and the
  // instructions, which BGPM's best-known events stand for.
  std::map<Event, u16> instance_of;
  for (u16 preferred : {u16{211} /* PEVT_CYCLES */, u16{277} /* PEVT_INST_ALL */}) {
    instance_of[bgpmEvents()[preferred - 1].sources.list().front()] = preferred;
  }
  for (const BgpmEvent& b : bgpmEvents()) {
    if (b.sources.count == 1 && b.ops == isa::OpGroup::kNone)
      instance_of.emplace(b.sources.list().front(), b.id);
  }
  std::set<Event> represented;
  for (const auto& [e, id] : instance_of) represented.insert(e);
  for (const BgpmEvent& b : bgpmEvents()) {
    const std::vector<Source> sources = sourcesOf(b);
    std::string generic;
    if (sources.size() == 1 && sources.front().event != Event::kCount &&
        instance_of.at(sources.front().event) == b.id) {
      generic = std::string(probe::info(sources.front().event).name);
    }
    const std::string description = describe(b, !sources.empty());
    const std::string name(b.name);
    const std::size_t first = out.events.size();
    std::vector<Event> events(b.sources.list().begin(), b.sources.list().end());
    switch (b.unit) {
      case BgpmUnit::kPUnit:
        build.punit(b.id, name, description, sources,
                    b.scope == BgpmScope::kThread ? Scope::kThread : Scope::kCore, b.id, generic);
        break;
      case BgpmUnit::kL2: {
        const bool sliced = b.id >= kBgpmFirstSlicedL2;
        const u32 input = b.id - (sliced ? kBgpmFirstSlicedL2 : kBgpmFirstL2);
        // (The sliced events count the combined ones' signals per slice: not another generic.)
        build.node(kL2UnitKind, l2_unit, input, p.l2.events, name, description, events, b.id,
                   sliced ? "" : generic, sliced ? 1 : 0);
        break;
      }
      case BgpmUnit::kIO:
        build.node(kIOUnitKind, io_unit, b.id - kBgpmFirstIO, p.io.events, name, description,
                   events, b.id, generic);
        break;
      case BgpmUnit::kCNK:
        build.node(kCNKUnitKind, cnk_unit, b.id - kBgpmFirstCNK, p.cnk.events, name, description,
                   events, b.id, generic);
        break;
      case BgpmUnit::kNW:
        build.node(kNWUnitKind, nw_unit, b.id - kBgpmFirstNW, p.nw.events, name, description,
                   events, b.id, generic);
        break;
    }
    if (sources.empty()) {
      for (std::size_t i = first; i < out.events.size(); ++i) out.events[i].never = b.note;
    }
  }

  // hpmsim's own events: every probe event no BGPM event stands for alone, named as the probe
  // event, on the unit that counts its kind (thread and core events on the PUnits, slice and
  // controller events on the L2 unit, the kernel's I/O on the I/O unit, the rest of the
  // kernel's on the CNK unit), after BGPM's inputs.
  u32 punit_next = kFirstOwnEvent;
  u32 l2_next = kBgpmL2Inputs;
  u32 io_next = kBgpmIOInputs;
  u32 cnk_next = kBgpmCNKInputs;
  u32 nw_next = kBgpmNWInputs;
  for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
    const Event e = static_cast<Event>(ev);
    const probe::EventInfo& info = probe::kEventInfo[ev];
    // (Events with no small bound per cycle only where counters take any count: the I/O and
    // CNK units. Not the signals of Blue Gene/P's L2 prefetch unit events, which BGPM does not
    // have: /dev/hpm/sim reads them; nor the one-bit chunk and DMA signals, which only UPC-P
    // takes, nor the link protocol's, which BG/Q's model does not have.)
    if (represented.contains(e) || probe::prefetchUnitSignal(e) || probe::chunkLeftSignal(e) ||
        probe::dmaPortSignal(e) || probe::linkProtocolSignal(e) ||
        (info.rate == probe::Rate::kAny && !probe::nodeWide(info.scope))) {
      continue;
    }
    const std::string upper = probe::upperName(e);
    const std::string generic(info.name);
    const std::string description(info.description);
    switch (info.scope) {
      case Scope::kThread:
      case Scope::kCore:
        build.punit(punit_next++, "PEVT_" + upper, description, {{e, 0}}, info.scope, -1, generic);
        break;
      case Scope::kL2Slice:
      case Scope::kController:
        build.node(kL2UnitKind, l2_unit, l2_next++, p.l2.events, "PEVT_" + upper, description, {e},
                   -1, generic);
        break;
      case Scope::kNode:
        build.node(kIOUnitKind, io_unit, io_next++, p.io.events, "PEVT_" + upper, description, {e},
                   -1, generic);
        break;
      case Scope::kKernel:
        build.node(kCNKUnitKind, cnk_unit, cnk_next++, p.cnk.events, "PEVT_CNK_" + upper,
                   description, {e}, -1, generic);
        break;
      case Scope::kLink:
        build.node(kNWUnitKind, nw_unit, nw_next++, p.nw.events, "PEVT_" + upper, description, {e},
                   -1, generic);
        break;
      case Scope::kSnoopFilter:
      case Scope::kSnoopPort:
        break;  // Blue Gene/Q has no snoop filters (its L2 keeps coherence): no unit counts them
      case Scope::kL3Bank:
      case Scope::kL3ReadPort:
      case Scope::kL3WritePort:
      case Scope::kL3Directory: break;  // nor Blue Gene/P's L3 (its L2 slices have one port each)
      case Scope::kDeviceBus: break;    // nor Blue Gene/P's device buses (bgq routes none)
      case Scope::kColPort:
      case Scope::kColClass: break;  // nor its collective network (bgq's collectives: the torus)
    }
  }
  for (u32 op : pmu::countedOps()) {
    const std::string_view mn = isa::opInfo(static_cast<isa::Op>(op)).mnemonic;
    build.punit(punit_next++, "PEVT_OP_" + pmu::upperName(mn),
                fmt::format("{} instructions retired", mn), {{Event::kCount, op}}, Scope::kThread,
                -1, pmu::opGeneric(op));
  }
  return out;
}

}  // namespace hpm::upcq
