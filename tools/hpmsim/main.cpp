// hpmsim: an execution-driven simulator of a Blue Gene-class compute node with faithful
// performance-monitoring hardware. See README.md and docs/.
#include <fmt/core.h>

#include <cstdio>

#include "base/error.h"
#include "tools/hpmsim/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"hpmsim: a Blue Gene-class node simulator with modelled performance counters",
               "hpmsim"};
  app.set_version_flag("--version", std::string("hpmsim ") + HPMSIM_VERSION);
  app.require_subcommand(1);
  hpm::tools::Action selected;
  // Subcommands register here.
  hpm::tools::addUpcCommand(app, selected);
  hpm::tools::addRunCommand(app, selected);
  hpm::tools::addConfigCommand(app, selected);
  hpm::tools::addSweepCommand(app, selected);
  hpm::tools::addEventsCommand(app, selected);
  hpm::tools::addStatCommand(app, selected);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    return selected ? selected() : 0;
  } catch (const hpm::Error& e) {
    std::fflush(stdout);
    fmt::print(stderr, "hpmsim: error: {}\n", e.what());
    return static_cast<int>(e.code());
  }
}
