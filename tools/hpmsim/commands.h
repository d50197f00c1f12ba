// Subcommand registration for the hpmsim command line.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

namespace hpm::tools {

// The work a parsed subcommand does; returns the process exit status.
using Action = std::function<int()>;

// Each add*Command creates its subcommand on `root` and, when that subcommand is parsed, stores
// its work in `selected`. Options are owned by the subcommand (captured in the action).
void addRunCommand(CLI::App& root, Action& selected);
void addConfigCommand(CLI::App& root, Action& selected);
void addSweepCommand(CLI::App& root, Action& selected);
void addEventsCommand(CLI::App& root, Action& selected);
void addStatCommand(CLI::App& root, Action& selected);
void addUpcCommand(CLI::App& root, Action& selected);
void addBusstatCommand(CLI::App& root, Action& selected);
void addConflictsCommand(CLI::App& root, Action& selected);
void addC2cCommand(CLI::App& root, Action& selected);
void addLocalityCommand(CLI::App& root, Action& selected);
void addReportCommand(CLI::App& root, Action& selected);

}  // namespace hpm::tools
