#include "tools/hpmsim/lib/events_print.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "node/simulation.h"

namespace hpm::tools {
namespace {

std::string_view kindName(probe::Kind k) {
  return k == probe::Kind::kLevel ? "level" : "pulse";
}

// For the reference table: "warmup timing profile", or "never".
std::string modesCell(RunModes modes) {
  return modes == 0 ? std::string("never") : runModesText(modes);
}

std::string noUnitsText(const EventsCatalog& c) {
  return fmt::format("machine {} has no counter unit (monitor.unit = none)\n", c.machine);
}

// The per-thread variants of an event ("PEVT_INST_ALL@t2") are shown once, as thread 0's.
bool shown(const EventRow& e) {
  return e.thread <= 0;
}
std::string nameOf(const EventRow& e) {
  return e.thread == 0 ? fmt::format("{}@t<t>", e.name.substr(0, e.name.find('@'))) : e.name;
}
std::string inputOf(const EventRow& e) {
  return e.thread == 0 ? fmt::format("{} + 1024 t", e.input) : fmt::format("{}", e.input);
}
std::string idOf(const EventRow& e) {
  return e.id >= 0 ? fmt::format("{}", e.id) : "";
}
std::size_t shownCount(const EventsCatalog& c) {
  return static_cast<std::size_t>(std::count_if(c.events.begin(), c.events.end(), shown));
}

}  // namespace

std::string modeLetters(RunModes modes) {
  std::string out = "fwtp";
  for (u32 m = 0; m < out.size(); ++m) {
    if ((modes & (1u << m)) == 0) out[m] = '-';
  }
  return out;
}

std::string eventsText(const EventsCatalog& c) {
  if (!c.has_units) return noUnitsText(c);
  std::string out = fmt::format("Native events of machine {} ({}), devices {}\n", c.machine,
                                c.family_title, fmt::join(c.devices, ", "));
  out +=
      "Modes: the run modes it counts in (f functional, w warmup, t timing, p profile; - not "
      "there)\n";
  out += fmt::format("{:-<100}\n", "");
  for (const EventRow& e : c.events) {
    if (c.fixed) {
      out += fmt::format("{:<34} counter {:>3} select {} input {:>4} {:<5} {:<17} {}  {}\n", e.name,
                         e.counter, e.select, e.input, kindName(e.kind), probe::scopeName(e.scope),
                         modeLetters(e.run_modes), e.description);
    } else if (shown(e)) {
      out += fmt::format("{:<40} {:<5} {:>3} input {:>10} {:<5} {:<17} {}  {}\n", nameOf(e), e.unit,
                         idOf(e), inputOf(e), kindName(e.kind), probe::scopeName(e.scope),
                         modeLetters(e.run_modes), e.description);
    }
  }
  out += fmt::format("{:-<100}\nTotal events reported: {}\n", "", shownCount(c));
  return out;
}

std::string eventsMarkdown(const EventsCatalog& c) {
  if (!c.has_units) return noUnitsText(c);
  std::string out = fmt::format("## {}: {}, {} ({} native events)\n\n", c.machine, c.family_title,
                                c.family_description, shownCount(c));
  out += fmt::format("Devices: {}\n\n", fmt::join(c.devices, ", "));
  out += summaryTable(summarizeEvents(c.events), true);
  if (c.fixed) {
    out +=
        "| input | counter | select | event | kind | scope | modes | counts |\n"
        "|---|---|---|---|---|---|---|---|\n";
    for (const EventRow& e : c.events) {
      out += fmt::format("| {} | {} | {} | `{}` | {} | {} | {} | {} |\n", e.input, e.counter,
                         e.select, e.name, kindName(e.kind), probe::scopeName(e.scope),
                         modesCell(e.run_modes), e.description);
    }
  } else {
    out +=
        "| unit | BGPM | input | event | kind | scope | modes | counts |\n"
        "|---|---|---|---|---|---|---|---|\n";
    for (const EventRow& e : c.events) {
      if (!shown(e)) continue;
      out += fmt::format("| {} | {} | {} | `{}` | {} | {} | {} | {} |\n", e.unit, idOf(e),
                         inputOf(e), nameOf(e), kindName(e.kind), probe::scopeName(e.scope),
                         modesCell(e.run_modes), e.description);
    }
  }
  return out + "\n";
}

nlohmann::json eventsJson(const EventsCatalog& c) {
  if (!c.has_units) {
    return {{"machine", c.machine}, {"unit", c.family}, {"events", nlohmann::json::array()}};
  }
  nlohmann::json out;
  out["machine"] = c.machine;
  out["unit"] = c.family;
  out["devices"] = c.devices;
  nlohmann::json list = nlohmann::json::array();
  for (const EventRow& e : c.events) {
    nlohmann::json j;
    j["name"] = e.name;
    j["unit"] = e.unit;
    j["input"] = e.input;
    if (e.counter >= 0) {
      j["counter"] = e.counter;
      j["select"] = e.select;
    }
    if (e.id >= 0) j["id"] = e.id;
    if (e.core >= 0) j["core"] = e.core;
    if (e.thread >= 0) j["thread"] = e.thread;
    if (e.unit_mode != 0) j["unit_mode"] = e.unit_mode;
    j["modes"] = nlohmann::json::array();
    for (RunMode m :
         {RunMode::kFunctional, RunMode::kWarmup, RunMode::kTiming, RunMode::kProfile}) {
      if (e.run_modes & runModeBit(m)) j["modes"].push_back(runModeName(m));
    }
    j["kind"] = kindName(e.kind);
    j["scope"] = probe::scopeName(e.scope);
    j["generic"] = e.generic;
    j["instances"] = e.instances;
    j["wired"] = e.wired;
    j["description"] = e.description;
    if (!e.never.empty()) j["never"] = e.never;
    list.push_back(j);
  }
  out["events"] = list;
  nlohmann::json truth = nlohmann::json::array();
  for (const SimEvent& e : c.sim_events) {
    truth.push_back({{"name", e.name}, {"scope", e.scope}, {"description", e.description}});
  }
  out["sim_events"] = truth;
  return out;
}

std::string summaryTable(const EventsSummary& s, bool markdown) {
  std::string out;
  if (markdown) {
    out += "| unit | events | count | never count | reserved inputs |\n|---|---|---|---|---|\n";
    for (const EventsSummary::Unit& u : s.units) {
      out += fmt::format("| {} | {} | {} | {} | {} |\n", u.name, u.events, u.counting, u.never,
                         u.reserved);
    }
    out +=
        fmt::format("| all | {} | {} | {} | {} |\n\n", s.events, s.counting, s.never, s.reserved);
    if (s.reasons.empty()) return out;
    out += "| events | why they never count here |\n|---|---|\n";
    for (const EventsSummary::Reason& r : s.reasons) {
      out += fmt::format("| {} | {} |\n", r.events, r.text);
    }
    return out + "\n";
  }
  out += fmt::format("{:<8} {:>7} {:>7} {:>12} {:>9}\n", "unit", "events", "count", "never count",
                     "reserved");
  for (const EventsSummary::Unit& u : s.units) {
    out += fmt::format("{:<8} {:>7} {:>7} {:>12} {:>9}\n", u.name, u.events, u.counting, u.never,
                       u.reserved);
  }
  out += fmt::format("{:<8} {:>7} {:>7} {:>12} {:>9}\n", "all", s.events, s.counting, s.never,
                     s.reserved);
  if (s.reasons.empty()) return out;
  out += "\nWhy events never count here (events: reason)\n";
  for (const EventsSummary::Reason& r : s.reasons) {
    out += fmt::format("{:>6}  {}\n", r.events, r.text);
  }
  return out;
}

nlohmann::json summaryJson(const EventsSummary& s) {
  nlohmann::json units = nlohmann::json::array(), reasons = nlohmann::json::array();
  for (const EventsSummary::Unit& u : s.units) {
    units.push_back({{"unit", u.name},
                     {"events", u.events},
                     {"counting", u.counting},
                     {"never", u.never},
                     {"reserved", u.reserved}});
  }
  for (const EventsSummary::Reason& r : s.reasons) {
    reasons.push_back({{"reason", r.text}, {"events", r.events}});
  }
  return {{"events", s.events},     {"counting", s.counting}, {"never", s.never},
          {"reserved", s.reserved}, {"units", units},         {"reasons", reasons}};
}

std::string eventsSummaryText(const EventsCatalog& c) {
  if (!c.has_units) return noUnitsText(c);
  return fmt::format("Events of machine {} ({}): how many count, per unit\n{}", c.machine,
                     c.family_title, summaryTable(summarizeEvents(c.events), false));
}

nlohmann::json eventsSummaryJson(const EventsCatalog& c) {
  nlohmann::json out = summaryJson(summarizeEvents(c.events));
  out["machine"] = c.machine;
  out["unit"] = c.family;
  return out;
}

std::string genericNamesText(const GenericNames& g) {
  std::string out = fmt::format(
      "Names `hpmsim stat` takes on machine {} besides native events (perf's, then the generic "
      "events), and what each counts\n",
      g.machine);
  out += fmt::format("{:-<100}\n", "");
  for (const GenericName& n : g.names) {
    out += fmt::format("{:<28} {:<8} {}\n", n.name, n.kind, n.definition);
  }
  return out;
}

nlohmann::json genericNamesJson(const GenericNames& g) {
  nlohmann::json list = nlohmann::json::array();
  for (const GenericName& n : g.names) {
    list.push_back(
        {{"name", n.name}, {"kind", n.kind}, {"definition", n.definition}, {"natives", n.natives}});
  }
  return {{"machine", g.machine}, {"names", list}};
}

}  // namespace hpm::tools
