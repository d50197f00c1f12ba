// `hpmsim events`: the native events of a machine's counter unit, as papi_native_avail lists
// them; --markdown gives the reference of docs/events.md.
#include <fmt/core.h>

#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "base/error.h"
#include "base/json_text.h"
#include "node/machine.h"
#include "node/monitor.h"
#include "node/run_modes.h"
#include "node/simulation.h"
#include "stats/probe.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/lib/session.h"

namespace hpm::tools {
namespace {

struct EventsOptions {
  std::string machine = "bgq";
  std::vector<std::string> overrides;
  std::string unit;  // filter: upc, punit, l2, io, cnk
  bool json = false;
  bool markdown = false;
  bool generic = false;  // perf's and the generic names, with their native definitions
  bool summary = false;  // per unit, how many events count and why the others never do
};

// How many of a machine's events count, per unit kind, and why the others never do: the
// catalogue's own reasons (NativeEvent::never), most frequent first. Per-thread variants
// ("PEVT_...@t1") are not events of their own and are left out, as in the tables.
struct Summary {
  struct Unit {
    std::string name;
    u32 events = 0, counting = 0, never = 0, reserved = 0;
  };
  struct Reason {
    std::string text;
    u32 events = 0;
  };
  std::vector<Unit> units;
  std::vector<Reason> reasons;
  u32 events = 0, counting = 0, never = 0, reserved = 0;
};

constexpr std::string_view kReserved = "reserved";

Summary summarize(const std::vector<const NativeEvent*>& events) {
  Summary s;
  for (const NativeEvent* e : events) {
    if (e->thread > 0) continue;
    auto unit = std::find_if(s.units.begin(), s.units.end(),
                             [&](const Summary::Unit& u) { return u.name == e->unit->name; });
    if (unit == s.units.end()) unit = s.units.insert(s.units.end(), {std::string(e->unit->name)});
    ++unit->events;
    ++s.events;
    if (e->never.empty()) {
      ++unit->counting;
      ++s.counting;
    } else if (e->never == kReserved) {
      ++unit->reserved;
      ++s.reserved;
    } else {
      ++unit->never;
      ++s.never;
      auto r = std::find_if(s.reasons.begin(), s.reasons.end(),
                            [&](const Summary::Reason& x) { return x.text == e->never; });
      if (r == s.reasons.end()) r = s.reasons.insert(s.reasons.end(), {e->never});
      ++r->events;
    }
  }
  std::stable_sort(s.reasons.begin(), s.reasons.end(),
                   [](const auto& a, const auto& b) { return a.events > b.events; });
  return s;
}

nlohmann::json summaryJson(const Summary& s) {
  nlohmann::json units = nlohmann::json::array(), reasons = nlohmann::json::array();
  for (const Summary::Unit& u : s.units) {
    units.push_back({{"unit", u.name},
                     {"events", u.events},
                     {"counting", u.counting},
                     {"never", u.never},
                     {"reserved", u.reserved}});
  }
  for (const Summary::Reason& r : s.reasons) {
    reasons.push_back({{"reason", r.text}, {"events", r.events}});
  }
  return {{"events", s.events},     {"counting", s.counting}, {"never", s.never},
          {"reserved", s.reserved}, {"units", units},         {"reasons", reasons}};
}

// The summary as text (markdown: tables for docs/events.md).
std::string summaryText(const Summary& s, bool markdown) {
  std::string out;
  if (markdown) {
    out += "| unit | events | count | never count | reserved inputs |\n|---|---|---|---|---|\n";
    for (const Summary::Unit& u : s.units) {
      out += fmt::format("| {} | {} | {} | {} | {} |\n", u.name, u.events, u.counting, u.never,
                         u.reserved);
    }
    out +=
        fmt::format("| all | {} | {} | {} | {} |\n\n", s.events, s.counting, s.never, s.reserved);
    if (s.reasons.empty()) return out;
    out += "| events | why they never count here |\n|---|---|\n";
    for (const Summary::Reason& r : s.reasons)
      out += fmt::format("| {} | {} |\n", r.events, r.text);
    return out + "\n";
  }
  out += fmt::format("{:<8} {:>7} {:>7} {:>12} {:>9}\n", "unit", "events", "count", "never count",
                     "reserved");
  for (const Summary::Unit& u : s.units) {
    out += fmt::format("{:<8} {:>7} {:>7} {:>12} {:>9}\n", u.name, u.events, u.counting, u.never,
                       u.reserved);
  }
  out += fmt::format("{:<8} {:>7} {:>7} {:>12} {:>9}\n", "all", s.events, s.counting, s.never,
                     s.reserved);
  if (s.reasons.empty()) return out;
  out += "\nWhy events never count here (events: reason)\n";
  for (const Summary::Reason& r : s.reasons) out += fmt::format("{:>6}  {}\n", r.events, r.text);
  return out;
}

// --generic: each name stat accepts besides the native ones (perf's names, then the catalogue's
// generic events), with the native events its count adds up on this machine.
int listGeneric(const EventsOptions& opt, const MachineConfig& machine, const Monitor& monitor) {
  std::vector<std::string> names;
  for (const auto& [alias, list] : Monitor::perfAliases()) {
    if (std::find(names.begin(), names.end(), alias) == names.end()) names.push_back(alias);
  }
  for (const std::string_view n : Monitor::perfSoftwareEvents()) names.emplace_back(n);
  for (const std::string_view n : Monitor::perfUnsupportedEvents()) names.emplace_back(n);
  const std::size_t perf_names = names.size();
  for (const NativeEvent& e : monitor.catalogue()) {
    if (!e.generic.empty() && std::find(names.begin(), names.end(), e.generic) == names.end()) {
      names.push_back(e.generic);
    }
  }
  const auto software = Monitor::perfSoftwareEvents();
  const auto unsupported = Monitor::perfUnsupportedEvents();
  nlohmann::json list = nlohmann::json::array();
  std::string text = fmt::format(
      "Names `hpmsim stat` takes on machine {} besides native events (perf's, then the generic "
      "events), and what each counts\n",
      machine.name);
  text += fmt::format("{:-<100}\n", "");
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    std::string definition;
    nlohmann::json natives = nlohmann::json::array();
    if (std::find(software.begin(), software.end(), name) != software.end()) {
      definition = name.ends_with("clock") ? "the kernel: the process's CPU time (msec)"
                                           : "the kernel: threads moved to another CPU";
    } else if (std::find(unsupported.begin(), unsupported.end(), name) != unsupported.end()) {
      definition = "<not supported> (no model of it here)";
    } else {
      std::vector<std::string> shown;
      for (const Monitor::Term& t : monitor.expandTerms(name)) {
        if (std::find(shown.begin(), shown.end(), t.event->name) != shown.end()) continue;
        shown.push_back(t.event->name);
        natives.push_back(t.event->name);
        definition +=
            (definition.empty() ? (t.sign < 0 ? "-" : "") : (t.sign < 0 ? " - " : " + ")) +
            t.event->name;
      }
      if (shown.empty()) definition = "<not supported> (no event of this machine)";
    }
    const char* kind = i < perf_names ? "perf" : "generic";
    text += fmt::format("{:<28} {:<8} {}\n", name, kind, definition);
    list.push_back(
        {{"name", name}, {"kind", kind}, {"definition", definition}, {"natives", natives}});
  }
  if (opt.json) {
    fmt::print("{}\n", jsonText(nlohmann::json{{"machine", machine.name}, {"names", list}}, 2));
  } else {
    fmt::print("{}", text);
  }
  return 0;
}

std::string_view kindName(probe::Kind k) {
  return k == probe::Kind::kLevel ? "level" : "pulse";
}

// The run modes an event counts in, as letters in the modes' order (f functional, w warm-up,
// t timing, p profile; '-' where it does not count): "-wtp", "--tp", "----".
std::string modeLetters(RunModes modes) {
  std::string out = "fwtp";
  for (u32 m = 0; m < out.size(); ++m) {
    if ((modes & (1u << m)) == 0) out[m] = '-';
  }
  return out;
}
// For the reference table: "warmup timing profile", or "never".
std::string modesCell(RunModes modes) {
  return modes == 0 ? std::string("never") : runModesText(modes);
}

int run(const EventsOptions& opt) {
  MachineConfig machine = loadMachine(opt.machine, opt.overrides);
  RunOptions ro;
  ro.mode = RunMode::kTiming;
  Simulation sim(machine, ro);
  const Monitor* monitor = sim.monitor();
  if (monitor == nullptr) {
    // (--json: the same objects, empty, so that a script need not tell the cases apart.)
    if (opt.json && opt.summary) {
      nlohmann::json out = summaryJson(Summary{});
      out["machine"] = machine.name;
      out["unit"] = "none";
      fmt::print("{}\n", jsonText(out, 2));
    } else if (opt.json) {
      fmt::print("{}\n", jsonText(nlohmann::json{{"machine", machine.name},
                                                 {"unit", "none"},
                                                 {"events", nlohmann::json::array()}},
                                  2));
    } else {
      fmt::print("machine {} has no counter unit (monitor.unit = none)\n", machine.name);
    }
    return 0;
  }
  if (opt.generic) return listGeneric(opt, machine, *monitor);
  std::vector<const NativeEvent*> events;
  std::vector<std::string_view> kinds;
  for (const NativeEvent& e : monitor->catalogue()) {
    if (std::find(kinds.begin(), kinds.end(), e.unit->name) == kinds.end()) {
      kinds.push_back(e.unit->name);
    }
    if (opt.unit.empty() || e.unit->name == opt.unit) events.push_back(&e);
  }
  if (!opt.unit.empty() && events.empty()) {
    fail(ExitCode::kUsage, "events: --unit {}: machine {} has units {}", opt.unit, machine.name,
         fmt::join(kinds, ", "));
  }
  // A machine without a counter unit (sunfire) still has its companions (the interconnect
  // monitor): the catalogue is theirs.
  const UnitFamily* unit_family = monitor->family();
  const std::string_view family_name = unit_family ? unit_family->name : kNoUnitFamily;
  const std::string_view family_title =
      unit_family ? unit_family->title : std::string_view("no counter unit");
  const std::string_view family_description =
      unit_family ? unit_family->description : std::string_view("companion units only");
  // Units whose every input has its own counter (UPC-P) list the counter and select.
  const bool fixed = std::all_of(monitor->catalogue().begin(), monitor->catalogue().end(),
                                 [](const NativeEvent& e) { return e.counter >= 0; });
  if (opt.summary) {
    const Summary summary = summarize(events);
    if (opt.json) {
      nlohmann::json out = summaryJson(summary);
      out["machine"] = machine.name;
      out["unit"] = family_name;
      fmt::print("{}\n", jsonText(out, 2));
    } else {
      fmt::print("Events of machine {} ({}): how many count, per unit\n{}", machine.name,
                 family_title, summaryText(summary, false));
    }
    return 0;
  }
  if (opt.json) {
    nlohmann::json out;
    out["machine"] = machine.name;
    out["unit"] = family_name;
    out["devices"] = monitor->devicePaths();
    nlohmann::json list = nlohmann::json::array();
    for (const NativeEvent* e : events) {
      nlohmann::json j;
      j["name"] = e->name;
      j["unit"] = e->unit->name;
      j["input"] = e->input;
      if (e->counter >= 0) {
        j["counter"] = e->counter;
        j["select"] = e->select;
      }
      if (e->id >= 0) j["id"] = e->id;
      if (e->core >= 0) j["core"] = e->core;
      if (e->thread >= 0) j["thread"] = e->thread;
      if (e->unit_mode != 0) j["unit_mode"] = e->unit_mode;
      j["modes"] = nlohmann::json::array();
      for (RunMode m :
           {RunMode::kFunctional, RunMode::kWarmup, RunMode::kTiming, RunMode::kProfile}) {
        if (e->run_modes & runModeBit(m)) j["modes"].push_back(runModeName(m));
      }
      j["kind"] = kindName(e->kind);
      j["scope"] = probe::scopeName(e->scope);
      j["generic"] = e->generic;
      j["instances"] = e->instances.size();
      // Whether the model has a signal for it (an event without one is listed and never counts).
      j["wired"] = std::any_of(e->instances.begin(), e->instances.end(),
                               [](const NativeEvent::Instance& i) { return !i.feeds.empty(); });
      j["description"] = e->description;
      if (!e->never.empty()) j["never"] = e->never;
      list.push_back(j);
    }
    out["events"] = list;
    // The ground truth's events (/dev/hpm/sim, node/truth_unit.h), in register order.
    nlohmann::json truth = nlohmann::json::array();
    for (std::size_t e = 0; e < probe::kEventCount; ++e) {
      const probe::EventInfo& info = probe::kEventInfo[e];
      truth.push_back({{"name", info.name},
                       {"scope", probe::scopeName(info.scope)},
                       {"description", info.description}});
    }
    out["sim_events"] = truth;
    fmt::print("{}\n", jsonText(out, 2));
    return 0;
  }
  // The per-thread variants of an event ("PEVT_INST_ALL@t2") are shown once, as thread 0's: the
  // others' inputs follow it every 1024 (docs/upcq.md).
  auto shown = [](const NativeEvent* e) { return e->thread <= 0; };
  auto nameOf = [](const NativeEvent* e) {
    return e->thread == 0 ? fmt::format("{}@t<t>", e->name.substr(0, e->name.find('@'))) : e->name;
  };
  auto inputOf = [](const NativeEvent* e) {
    return e->thread == 0 ? fmt::format("{} + 1024 t", e->input) : fmt::format("{}", e->input);
  };
  auto idOf = [](const NativeEvent* e) { return e->id >= 0 ? fmt::format("{}", e->id) : ""; };
  const auto count = std::count_if(events.begin(), events.end(), shown);
  if (opt.markdown) {
    fmt::print("## {}: {}, {} ({} native events)\n\n", machine.name, family_title,
               family_description, count);
    fmt::print("Devices: {}\n\n", fmt::join(monitor->devicePaths(), ", "));
    fmt::print("{}", summaryText(summarize(events), true));
    if (fixed) {
      fmt::print(
          "| input | counter | select | event | kind | scope | modes | counts |\n"
          "|---|---|---|---|---|---|---|---|\n");
      for (const NativeEvent* e : events) {
        fmt::print("| {} | {} | {} | `{}` | {} | {} | {} | {} |\n", e->input, e->counter, e->select,
                   e->name, kindName(e->kind), probe::scopeName(e->scope), modesCell(e->run_modes),
                   e->description);
      }
    } else {
      fmt::print(
          "| unit | BGPM | input | event | kind | scope | modes | counts |\n"
          "|---|---|---|---|---|---|---|---|\n");
      for (const NativeEvent* e : events) {
        if (!shown(e)) continue;
        fmt::print("| {} | {} | {} | `{}` | {} | {} | {} | {} |\n", e->unit->name, idOf(e),
                   inputOf(e), nameOf(e), kindName(e->kind), probe::scopeName(e->scope),
                   modesCell(e->run_modes), e->description);
      }
    }
    fmt::print("\n");
    return 0;
  }
  fmt::print("Native events of machine {} ({}), devices {}\n", machine.name, family_title,
             fmt::join(monitor->devicePaths(), ", "));
  fmt::print(
      "Modes: the run modes it counts in (f functional, w warmup, t timing, p profile; - not "
      "there)\n");
  fmt::print("{:-<100}\n", "");
  for (const NativeEvent* e : events) {
    if (fixed) {
      fmt::print("{:<34} counter {:>3} select {} input {:>4} {:<5} {:<17} {}  {}\n", e->name,
                 e->counter, e->select, e->input, kindName(e->kind), probe::scopeName(e->scope),
                 modeLetters(e->run_modes), e->description);
    } else if (shown(e)) {
      fmt::print("{:<40} {:<5} {:>3} input {:>10} {:<5} {:<17} {}  {}\n", nameOf(e), e->unit->name,
                 idOf(e), inputOf(e), kindName(e->kind), probe::scopeName(e->scope),
                 modeLetters(e->run_modes), e->description);
    }
  }
  fmt::print("{:-<100}\nTotal events reported: {}\n", "", count);
  return 0;
}

}  // namespace

void addEventsCommand(CLI::App& root, Action& selected) {
  auto opt = std::make_shared<EventsOptions>();
  CLI::App* cmd =
      root.add_subcommand("events", "List the native events of a machine's counter unit");
  addMachineOptions(*cmd, opt->machine, opt->overrides);
  cmd->add_option("--unit", opt->unit,
                  "Only this kind of unit's events (bgp: upc; bgq: punit, l2, io, cnk)");
  cmd->add_flag("--json", opt->json, "An object whose key `events` is the list");
  cmd->add_flag("--markdown", opt->markdown, "The reference table (docs/events.md)");
  cmd->add_flag("--generic", opt->generic,
                "The names stat takes besides native events (perf's and the generic events), "
                "each with the native events it counts on this machine");
  cmd->add_flag("--summary", opt->summary,
                "Per unit: how many events count and how many never do, and why (with --json: "
                "an object)");
  cmd->callback([opt, &selected] { selected = [opt] { return run(*opt); }; });
}

}  // namespace hpm::tools
