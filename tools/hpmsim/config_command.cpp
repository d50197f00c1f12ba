// `hpmsim config`: the effective machine configuration, and the reference of every parameter.
#include <fmt/core.h>

#include <algorithm>
#include <map>

#include "base/json_text.h"
#include "config/schema.h"
#include "node/machine.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/lib/session.h"

namespace hpm::tools {

namespace {

struct ConfigOptions {
  std::string machine = "bgq";
  std::vector<std::string> overrides;
  bool list = false;
  bool json = false;
  bool markdown = false;
};

int run(const ConfigOptions& opt) {
  MachineConfig machine = loadMachine(opt.machine, opt.overrides);
  const config::Schema schema = effectiveSchema(machine);
  if (opt.json) {
    fmt::print("{}\n", jsonText(schema.toJson(), 2));
  } else if (opt.markdown) {
    // The reference table of docs/configuration.md: every key with its type, each preset's
    // value (and this machine's, when it is not a preset as is) and its meaning.
    std::vector<std::string> titles = machinePresets();
    std::vector<std::map<std::string, std::string>> values;
    for (const std::string& preset : titles) {
      MachineConfig m = loadMachine(preset, {});
      const config::Schema preset_schema(m);
      std::map<std::string, std::string> column;
      for (const config::Param& p : preset_schema.params()) {
        column[p.key] = keyApplies(m, p.key) ? jsonText(p.read()) : "";
      }
      values.push_back(std::move(column));
    }
    const bool custom = !opt.overrides.empty() ||
                        std::find(titles.begin(), titles.end(), opt.machine) == titles.end();
    if (custom) {
      titles.push_back(machine.name + " (this machine)");
      std::map<std::string, std::string> column;
      const config::Schema full(machine);
      for (const config::Param& p : full.params()) {
        column[p.key] = keyApplies(machine, p.key) ? jsonText(p.read()) : "";
      }
      values.push_back(std::move(column));
    }
    std::string header = "| key | type |", rule = "|---|---|";
    for (const std::string& t : titles) {
      header += fmt::format(" {} |", t);
      rule += "---|";
    }
    fmt::print("{} meaning |\n{}---|\n", header, rule);
    // A '|' inside a cell ends it: escaped ("one of none|upc|upcq").
    auto cell = [](const std::string& text) {
      std::string out;
      for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
      return out;
    };
    // (Every key, and for a machine whose interconnect has no such section, a dash.)
    const config::Schema every(machine);
    for (const config::Param& p : every.params()) {
      std::string row = fmt::format("| `{}` | {} |", p.key, cell(p.type));
      for (const auto& column : values) {
        const std::string& v = column.at(p.key);
        row += v.empty() ? std::string(" — |") : fmt::format(" `{}` |", cell(v));
      }
      fmt::print("{} {} |\n", row, cell(p.doc));
    }
  } else if (opt.list) {
    for (const config::Param& p : schema.params()) {
      fmt::print("{} = {}    # {} ({})\n", p.key, jsonText(p.read()), p.doc, p.type);
    }
  } else {
    fmt::print("{}", schema.toToml());
  }
  return 0;
}

}  // namespace

void addConfigCommand(CLI::App& root, Action& selected) {
  auto opt = std::make_shared<ConfigOptions>();
  CLI::App* cmd = root.add_subcommand(
      "config", "Print a machine's effective configuration (TOML), or list every parameter");
  addMachineOptions(*cmd, opt->machine, opt->overrides);
  cmd->add_flag("--list", opt->list, "One line per parameter: key, value, meaning, type");
  cmd->add_flag("--json", opt->json, "The configuration as a JSON object");
  cmd->add_flag("--markdown", opt->markdown,
                "The parameter reference as a Markdown table: every preset's values, and this "
                "machine's when it is not a preset as is (docs/configuration.md)");
  cmd->callback([opt, &selected] { selected = [opt] { return run(*opt); }; });
}

}  // namespace hpm::tools
