#include "tools/hpmsim/lib/events_catalog.h"

#include <fmt/ranges.h>

#include <algorithm>

#include "base/error.h"
#include "node/families.h"

namespace hpm::tools {
namespace {

EventRow rowOf(const NativeEvent& e) {
  EventRow r;
  r.name = e.name;
  r.unit = std::string(e.unit->name);
  r.input = e.input;
  r.counter = e.counter;
  r.select = e.select;
  r.id = e.id;
  r.core = e.core;
  r.thread = e.thread;
  r.unit_mode = e.unit_mode;
  r.run_modes = e.run_modes;
  r.kind = e.kind;
  r.scope = e.scope;
  r.generic = e.generic;
  r.instances = e.instances.size();
  r.wired = std::any_of(e.instances.begin(), e.instances.end(),
                        [](const NativeEvent::Instance& i) { return !i.feeds.empty(); });
  r.description = e.description;
  r.never = e.never;
  return r;
}

std::vector<SimEvent> simEvents() {
  std::vector<SimEvent> out;
  for (std::size_t e = 0; e < probe::kEventCount; ++e) {
    const probe::EventInfo& info = probe::kEventInfo[e];
    out.push_back({std::string(info.name), std::string(probe::scopeName(info.scope)),
                   std::string(info.description)});
  }
  return out;
}

template <class Range, class Value>
bool contains(const Range& range, const Value& value) {
  return std::find(range.begin(), range.end(), value) != range.end();
}

}  // namespace

EventsCatalog eventsCatalog(const std::string& machine, const Monitor& monitor,
                            const std::string& unit) {
  EventsCatalog c;
  c.machine = machine;
  std::vector<std::string_view> kinds;
  for (const NativeEvent& e : monitor.catalogue()) {
    if (!contains(kinds, e.unit->name)) kinds.push_back(e.unit->name);
    if (unit.empty() || e.unit->name == unit) c.events.push_back(rowOf(e));
  }
  if (!unit.empty() && c.events.empty()) {
    fail(ExitCode::kUsage, "events: --unit {}: machine {} has units {}", unit, machine,
         fmt::join(kinds, ", "));
  }
  // A machine without a counter unit (sunfire) still has its companions (the interconnect
  // monitor): the catalogue is theirs.
  const UnitFamily* family = monitor.family();
  c.family = std::string(family ? family->name : kNoUnitFamily);
  c.family_title = family ? std::string(family->title) : "no counter unit";
  c.family_description = family ? std::string(family->description) : "companion units only";
  c.devices = monitor.devicePaths();
  c.fixed = std::all_of(monitor.catalogue().begin(), monitor.catalogue().end(),
                        [](const NativeEvent& e) { return e.counter >= 0; });
  c.sim_events = simEvents();
  return c;
}

EventsCatalog noUnitsCatalog(const std::string& machine) {
  EventsCatalog c;
  c.machine = machine;
  c.has_units = false;
  c.family = std::string(kNoUnitFamily);
  return c;
}

EventsSummary summarizeEvents(const std::vector<EventRow>& events) {
  EventsSummary s;
  for (const EventRow& e : events) {
    if (e.thread > 0) continue;
    auto unit = std::find_if(s.units.begin(), s.units.end(),
                             [&](const EventsSummary::Unit& u) { return u.name == e.unit; });
    if (unit == s.units.end()) unit = s.units.insert(s.units.end(), {e.unit});
    ++unit->events;
    ++s.events;
    if (e.never.empty()) {
      ++unit->counting;
      ++s.counting;
    } else if (e.never == kReservedInput) {
      ++unit->reserved;
      ++s.reserved;
    } else {
      ++unit->never;
      ++s.never;
      auto r = std::find_if(s.reasons.begin(), s.reasons.end(),
                            [&](const EventsSummary::Reason& x) { return x.text == e.never; });
      if (r == s.reasons.end()) r = s.reasons.insert(s.reasons.end(), {e.never});
      ++r->events;
    }
  }
  std::stable_sort(s.reasons.begin(), s.reasons.end(),
                   [](const auto& a, const auto& b) { return a.events > b.events; });
  return s;
}

GenericNames genericNames(const std::string& machine, const Monitor& monitor) {
  std::vector<std::string> names;
  for (const auto& [alias, list] : Monitor::perfAliases()) {
    if (!contains(names, alias)) names.push_back(alias);
  }
  const auto software = Monitor::perfSoftwareEvents();
  const auto unsupported = Monitor::perfUnsupportedEvents();
  for (const std::string_view n : software) names.emplace_back(n);
  for (const std::string_view n : unsupported) names.emplace_back(n);
  const std::size_t perf_names = names.size();
  for (const NativeEvent& e : monitor.catalogue()) {
    if (!e.generic.empty() && !contains(names, e.generic)) names.push_back(e.generic);
  }
  GenericNames out;
  out.machine = machine;
  for (std::size_t i = 0; i < names.size(); ++i) {
    GenericName g;
    g.name = names[i];
    g.kind = i < perf_names ? "perf" : "generic";
    if (contains(software, g.name)) {
      g.definition = g.name.ends_with("clock") ? "the kernel: the process's CPU time (msec)"
                                               : "the kernel: threads moved to another CPU";
    } else if (contains(unsupported, g.name)) {
      g.definition = "<not supported> (no model of it here)";
    } else {
      for (const Monitor::Term& t : monitor.expandTerms(g.name)) {
        if (contains(g.natives, t.event->name)) continue;
        g.natives.push_back(t.event->name);
        g.definition +=
            (g.definition.empty() ? (t.sign < 0 ? "-" : "") : (t.sign < 0 ? " - " : " + ")) +
            t.event->name;
      }
      if (g.natives.empty()) g.definition = "<not supported> (no event of this machine)";
    }
    out.names.push_back(std::move(g));
  }
  return out;
}

}  // namespace hpm::tools
