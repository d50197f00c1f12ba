// `hpmsim config`: the effective machine configuration, and the reference of every parameter.
#include <fmt/core.h>

#include "config/schema.h"
#include "node/machine.h"
#include "tools/hpmsim/commands.h"

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
  config::Schema schema(machine);
  if (opt.json) {
    fmt::print("{}\n", schema.toJson().dump(2));
  } else if (opt.markdown) {
    // The reference table of docs/configuration.md: every key with its type, this machine's
    // value and its meaning.
    fmt::print("| key | type | {} | meaning |\n|---|---|---|---|\n", machine.name);
    for (const config::Param& p : schema.params()) {
      fmt::print("| `{}` | {} | `{}` | {} |\n", p.key, p.type, p.read().dump(), p.doc);
    }
  } else if (opt.list) {
    for (const config::Param& p : schema.params()) {
      fmt::print("{} = {}    # {} ({})\n", p.key, p.read().dump(), p.doc, p.type);
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
  cmd->add_option("--machine", opt->machine, "Machine preset (bgq, bgp) or TOML file")
      ->capture_default_str();
  cmd->add_option("--set", opt->overrides, "Override a configuration parameter (KEY=VALUE)")
      ->allow_extra_args(false);
  cmd->add_flag("--list", opt->list, "One line per parameter: key, value, meaning, type");
  cmd->add_flag("--json", opt->json, "The configuration as a JSON object");
  cmd->add_flag("--markdown", opt->markdown, "The parameter reference as a Markdown table");
  cmd->callback([opt, &selected] { selected = [opt] { return run(*opt); }; });
}

}  // namespace hpm::tools
