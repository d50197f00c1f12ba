// UPC-P's part of the catalogue (docs/events.md): every one of the 1024 inputs wired to a
// distinct (event, instance) pair, named PU<core>_..., L3_BANK<s>_..., DDR<k>_..., CNK_....
#include <fmt/format.h>

#include <algorithm>

#include "isa/ops.h"
#include "pmu/upc/component.h"

namespace hpm::upc {

using probe::Event;
using probe::Kind;
using probe::Scope;

pmu::Attachment attach(const Params& p, const pmu::NodeShape& node) {
  const probe::Bus& bus = *node.bus;
  pmu::Attachment out;
  out.units.push_back(std::make_unique<Component>(p));
  const u32 n = p.counters;
  const u32 half = n / 2;
  const u32 halves = 2 * p.banks();
  const u32 tpc = node.threads_per_core;
  const u32 cores = std::min(node.cores, halves / 2);
  std::vector<i64> owner(p.events, -1);  // catalogue index per input, -1 free

  struct Candidate {
    std::string name, description, generic;
    Kind kind;
    std::vector<u32> feeds;
    i32 core;
  };
  auto place = [&](const Candidate& c, u32 input) {
    pmu::NativeEvent e;
    e.name = c.name;
    e.description = c.description;
    e.kind = c.kind;
    e.unit = &kUnitKind;
    e.input = input;
    e.counter = static_cast<i32>(input % n);
    e.select = static_cast<i32>(input / n);
    e.core = c.core;
    e.generic = c.generic;
    e.instances = {{0, 0, c.feeds}};
    e.scope = pmu::scopeOf(e.generic, e.instances);
    owner[input] = static_cast<i64>(out.events.size());
    out.events.push_back(std::move(e));
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
    const i32 core = static_cast<i32>(k);
    for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
      const probe::EventInfo& info = probe::kEventInfo[ev];
      const Event e = static_cast<Event>(ev);
      if (pmu::unboundedRate(e)) continue;
      if (info.scope == Scope::kThread) {
        std::vector<u32> feeds;
        for (u32 t = 0; t < tpc; ++t) feeds.push_back(bus.input(e, k * tpc + t));
        list.push_back({fmt::format("PU{}_{}", k, probe::upperName(e)),
                        fmt::format("Core {}: {}", k, info.description), std::string(info.name),
                        info.kind, feeds, core});
      } else if (info.scope == Scope::kCore) {
        list.push_back({fmt::format("PU{}_{}", k, probe::upperName(e)),
                        fmt::format("Core {}: {}", k, info.description),
                        std::string(info.name),
                        info.kind,
                        {bus.input(e, k)},
                        core});
      }
    }
    for (u32 op : pmu::countedOps()) {
      std::vector<u32> feeds;
      for (u32 t = 0; t < tpc; ++t) feeds.push_back(bus.inputOp(op, k * tpc + t));
      const std::string_view mn = isa::opInfo(static_cast<isa::Op>(op)).mnemonic;
      list.push_back({fmt::format("PU{}_OP_{}", k, pmu::upperName(mn)),
                      fmt::format("Core {}: {} instructions retired", k, mn), pmu::opGeneric(op),
                      Kind::kPulse, feeds, core});
    }
    const std::size_t fits = std::min(list.size(), free_by_core[k].size());
    for (std::size_t i = 0; i < fits; ++i) place(list[i], free_by_core[k][i]);
  }
  // Node-wide events take the inputs that are left, in order.
  std::vector<Candidate> shared;
  for (u32 s = 0; s < bus.topology().slices; ++s) {
    for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
      const probe::EventInfo& info = probe::kEventInfo[ev];
      if (info.scope != Scope::kL2Slice || pmu::unboundedRate(static_cast<Event>(ev))) continue;
      const std::string u = probe::upperName(static_cast<Event>(ev));
      shared.push_back({fmt::format("L3_BANK{}_{}", s, u.substr(3)),
                        fmt::format("L3 bank {}: {}", s, info.description),
                        std::string(info.name),
                        info.kind,
                        {bus.input(static_cast<Event>(ev), s)},
                        -1});
    }
  }
  for (u32 c = 0; c < bus.topology().controllers; ++c) {
    for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
      const probe::EventInfo& info = probe::kEventInfo[ev];
      if (info.scope != Scope::kController || pmu::unboundedRate(static_cast<Event>(ev))) continue;
      const std::string u = probe::upperName(static_cast<Event>(ev));
      shared.push_back({fmt::format("DDR{}_{}", c, u.substr(4)),
                        fmt::format("DDR controller {}: {}", c, info.description),
                        std::string(info.name),
                        info.kind,
                        {bus.input(static_cast<Event>(ev), c)},
                        -1});
    }
  }
  for (std::size_t ev = 0; ev < probe::kEventCount; ++ev) {
    const Event e = static_cast<Event>(ev);
    if (!probe::nodeWide(probe::kEventInfo[ev].scope) || pmu::unboundedRate(e)) continue;
    shared.push_back({"CNK_" + probe::upperName(e),
                      std::string(probe::info(e).description),
                      std::string(probe::info(e).name),
                      probe::info(e).kind,
                      {bus.input(e, 0)},
                      -1});
  }
  std::size_t next = 0;
  for (u32 input = 0; input < p.events && next < shared.size(); ++input) {
    if (owner[input] < 0) place(shared[next++], input);
  }
  return out;
}

}  // namespace hpm::upc
