// UPC-Q's part of the catalogue (docs/events.md): the PUnits' events (PEVT_..., per thread
// PEVT_..._T<t>), the L2 unit's, and the I/O and CNK units' (the kernel's).
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "base/error.h"
#include "isa/ops.h"
#include "pmu/upcq/component.h"

namespace hpm::upcq {

using probe::Event;
using probe::Kind;
using probe::Scope;

namespace {

bool isIoEvent(Event e) {
  return e >= Event::kIoReads && e <= Event::kIoOpens;
}

}  // namespace

pmu::Attachment attach(const Params& p, const pmu::NodeShape& node) {
  const probe::Bus& bus = *node.bus;
  const u32 cores = node.cores;
  const u32 tpc = node.threads_per_core;
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
  auto add = [&](pmu::NativeEvent e) {
    e.scope = pmu::scopeOf(e.generic, e.instances);
    out.events.push_back(std::move(e));
  };

  // PUnit inputs (the same numbering on every core): each thread event as the sum over the
  // core's threads (pulses only: level signals of several threads would merge into one wire)
  // and per thread, then the core's events, then one instruction count per operation.
  u32 input = 0;
  auto punitEvent = [&](std::string name, std::string description, std::string generic, Kind kind,
                        i32 thread, const std::function<std::vector<u32>(u32 core)>& feeds) {
    if (input >= p.punit.events) return;
    pmu::NativeEvent e;
    e.name = std::move(name);
    e.description = std::move(description);
    e.kind = kind;
    e.unit = &kPUnitKind;
    e.input = input++;
    e.thread = thread;
    e.generic = std::move(generic);
    for (u32 k = 0; k < cores; ++k) e.instances.push_back({k, 0, feeds(k)});
    add(std::move(e));
  };
  for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
    const probe::EventInfo& info = probe::kEventInfo[ev];
    const Event e = static_cast<Event>(ev);
    const std::string u = probe::upperName(e);
    if (pmu::unboundedRate(e)) continue;
    if (info.scope == Scope::kThread) {
      if (info.kind == Kind::kPulse) {
        punitEvent("PEVT_" + u, fmt::format("{} (all threads of the core)", info.description),
                   std::string(info.name), info.kind, -1, [&, e](u32 k) {
                     std::vector<u32> f;
                     for (u32 t = 0; t < tpc; ++t) f.push_back(bus.input(e, k * tpc + t));
                     return f;
                   });
      }
      for (u32 t = 0; t < tpc; ++t) {
        punitEvent(fmt::format("PEVT_{}_T{}", u, t),
                   fmt::format("{} (hardware thread {} of the core)", info.description, t),
                   std::string(info.name), info.kind, static_cast<i32>(t),
                   [&, e, t](u32 k) { return std::vector<u32>{bus.input(e, k * tpc + t)}; });
      }
    } else if (info.scope == Scope::kCore) {
      punitEvent("PEVT_" + u, std::string(info.description), std::string(info.name), info.kind, -1,
                 [&, e](u32 k) { return std::vector<u32>{bus.input(e, k)}; });
    }
  }
  for (u32 op : pmu::countedOps()) {
    const std::string_view mn = isa::opInfo(static_cast<isa::Op>(op)).mnemonic;
    punitEvent("PEVT_OP_" + pmu::upperName(mn), fmt::format("{} instructions retired", mn),
               pmu::opGeneric(op), Kind::kPulse, -1, [&, op](u32 k) {
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
    pmu::NativeEvent ne;
    ne.name = "PEVT_" + probe::upperName(e);
    ne.description = std::string(probe::info(e).description);
    ne.kind = probe::info(e).kind;
    ne.unit = &kL2UnitKind;
    ne.input = event_input;
    ne.generic = std::string(probe::info(e).name);
    for (u32 s = 0; s < std::min(slices, p.l2.slices); ++s) {
      std::vector<u32> feeds;
      if (!controller || s < bus.topology().controllers) feeds.push_back(bus.input(e, s));
      ne.instances.push_back({l2_unit, s, feeds});
    }
    add(std::move(ne));
  };
  u32 l2_input = 0;
  u32 ddr_input = 16;
  for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
    const Event e = static_cast<Event>(ev);
    if (pmu::unboundedRate(e)) continue;
    if (probe::kEventInfo[ev].scope == Scope::kL2Slice) l2Event(e, l2_input++, false);
    if (probe::kEventInfo[ev].scope == Scope::kController) l2Event(e, ddr_input++, true);
  }
  // IOUnit and CNKUnit: the node's events. The CNK unit's counters are exact 64-bit kernel
  // counters; the I/O unit's are 32 bits wide: both take any count per cycle.
  u32 io_input = 0;
  u32 cnk_input = 0;
  for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
    const Event e = static_cast<Event>(ev);
    if (!probe::nodeWide(probe::kEventInfo[ev].scope)) continue;
    pmu::NativeEvent ne;
    ne.kind = probe::kEventInfo[ev].kind;
    ne.description = std::string(probe::kEventInfo[ev].description);
    ne.generic = std::string(probe::kEventInfo[ev].name);
    if (isIoEvent(e)) {
      ne.unit = &kIOUnitKind;
      ne.input = io_input++;
      ne.name = "PEVT_" + probe::upperName(e);
      ne.instances = {{io_unit, 0, {bus.input(e, 0)}}};
    } else {
      ne.unit = &kCNKUnitKind;
      ne.input = cnk_input++;
      ne.name = "PEVT_CNK_" + probe::upperName(e);
      ne.instances = {{cnk_unit, 0, {bus.input(e, 0)}}};
    }
    add(std::move(ne));
  }
  return out;
}

}  // namespace hpm::upcq
