// `hpmsim events`: the native events of a machine's counter unit, as papi_native_avail lists
// them; --markdown gives the reference of docs/events.md. What is listed is
// lib/events_catalog.h's, how it is printed lib/events_print.h's.
#include <fmt/core.h>

#include "base/json_text.h"
#include "node/machine.h"
#include "node/simulation.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/lib/events_catalog.h"
#include "tools/hpmsim/lib/events_print.h"
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

std::string jsonLine(const nlohmann::json& j) {
  return jsonText(j, 2) + "\n";
}

int run(const EventsOptions& opt) {
  MachineConfig machine = loadMachine(opt.machine, opt.overrides);
  RunOptions ro;
  ro.mode = RunMode::kTiming;
  Simulation sim(machine, ro);
  const Monitor* monitor = sim.monitor();
  // A machine without any unit (no monitor) has nothing to list, --generic included: the
  // printers say so, and --unit is not checked.
  if (opt.generic && monitor != nullptr) {
    const GenericNames names = genericNames(machine.name, *monitor);
    fmt::print("{}", opt.json ? jsonLine(genericNamesJson(names)) : genericNamesText(names));
    return 0;
  }
  const EventsCatalog catalog = monitor != nullptr ? eventsCatalog(machine.name, *monitor, opt.unit)
                                                   : noUnitsCatalog(machine.name);
  if (opt.summary) {
    fmt::print("{}", opt.json ? jsonLine(eventsSummaryJson(catalog)) : eventsSummaryText(catalog));
  } else if (opt.json) {
    fmt::print("{}", jsonLine(eventsJson(catalog)));
  } else {
    fmt::print("{}", opt.markdown ? eventsMarkdown(catalog) : eventsText(catalog));
  }
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
