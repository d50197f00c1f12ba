// The options every hpmsim command that simulates shares, declared once: the machine and its
// overrides, the run mode, the guest's root and environment, the progress line, the host memory
// budget, the nodes, and the program. Each command holds one SessionOptions and adds the options
// it takes with addSessionOptions (first, in --help) and addSessionProgram (last); what differs
// between commands (which modes they run, whether they run many nodes) is said in a SessionSpec,
// so one option never has two texts or two defaults.
#pragma once

#include <CLI/CLI.hpp>

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "tools/hpmsim/lib/guest_env.h"

namespace hpm::tools {

struct SessionOptions {
  std::string machine = "bgq";         // --machine: a preset's name or a TOML file
  std::vector<std::string> overrides;  // --set KEY=VALUE, in order
  std::string mode = "timing";         // --mode
  std::string root = ".";              // --root: the folder the guest sees as /
  GuestEnvOptions env;                 // --env-clear, --env
  bool quiet = false;                  // --quiet: no progress line
  u64 host_memory = 0;                 // --host-memory MIB (0: what the host has available)
  u32 nodes = 0;                       // --nodes: 0 = as network.shape says (1 unless set)
  std::string node_output;             // --node-output DIR
  std::string output_dir;              // --output-dir DIR: where relative output paths go
  std::vector<std::string> command;    // the program and its arguments
};

// What a command takes of the session's options.
struct SessionSpec {
  // --mode's help: the modes the command runs (the command checks the mode it is given).
  std::string_view modes = "functional, warmup, timing or profile";
  // --set is the machine's override (KEY=VALUE); false: the command declares its own --set
  // (sweep's KEY=V1,V2,...).
  bool overrides = true;
  bool host_memory = true;  // --host-memory
  bool nodes = false;       // --nodes and --node-output
  // With `nodes`: what the command does on each node, added to --nodes' help.
  std::string_view nodes_what;
  bool output_dir = false;  // --output-dir: the command writes files (placeOutputs)
};

// --machine and --set KEY=VALUE: the options of every command that builds a machine (config and
// events take only these).
void addMachineOptions(CLI::App& cmd, std::string& machine, std::vector<std::string>& overrides);
// The help of every --machine option: the built-in presets' names, from machines/*.toml.
std::string machineOptionHelp();

// --machine, --set and --mode: the options a command's --help lists first.
void addSessionOptions(CLI::App& cmd, SessionOptions& o, const SessionSpec& spec = {});
// --root, --quiet, --host-memory, --nodes, --node-output, --env-clear, --env, then the PROGRAM
// [ARGS...] positional, which must come last (after the command's own options).
void addSessionProgram(CLI::App& cmd, SessionOptions& o, const SessionSpec& spec = {});

// --output-dir DIR: each of `paths` that is given and relative (an output option's value) is
// placed in DIR; absolute paths, and every path without --output-dir, stay as they are. Call once,
// after parsing and before the outputs are checked (the command makes DIR: RunFiles::folder, or
// toolRunOptions for the interconnect tools).
void placeOutputs(const SessionOptions& o, std::initializer_list<std::string*> paths);

}  // namespace hpm::tools
