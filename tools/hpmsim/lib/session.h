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
#include "node/machine.h"
#include "node/run_modes.h"
#include "node/simulation.h"
#include "tools/hpmsim/lib/guest_env.h"
#include "tools/hpmsim/lib/output.h"

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
  // --mode's help: the modes the command runs.
  std::string_view modes = "functional, warmup, timing or profile";
  // The modes it runs (openSession refuses the others, saying `modes` and `modes_why`).
  RunModes runs = kModesWithUnits;
  std::string_view modes_why;  // " (why only those)", or ""
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

// A command's session, opened from its options: checked and loaded once, before anything runs.
struct Session {
  SessionOptions options;    // as given (after placeOutputs)
  std::string command_name;  // "run", "stat", ...: the commands' messages name it
  RunMode mode = RunMode::kTiming;
  MachineConfig machine;  // the preset or file with --set applied, network.shape as --nodes says
  u32 nodes = 1;
  bool many_nodes = false;           // --nodes given, or a shape of more than one node
  std::vector<std::string> command;  // the program (its path resolved) and its arguments
  std::vector<std::string> envp;     // the guest's environment (--env-clear, --env)
  // The program and the machine file as inputs, --output-dir's folder and, with many nodes,
  // --node-output's files: the command adds its outputs, then calls check().
  RunFiles files;
};

// Opens `o`'s session for command `name` ("run"): fails (ExitCode::kUsage) when no program is
// given, on a mode that is unknown or not in spec.runs, when the nodes disagree (resolveNodes),
// or when mpirun started several host processes and the run is not one of many nodes.
Session openSession(const SessionOptions& o, std::string_view name, const SessionSpec& spec);

// Fails (ExitCode::kUsage) when the session runs many nodes and one of `options` is given: each
// is whether it is given and its name ("--report").
void refuseWithManyNodes(const Session& s,
                         std::initializer_list<std::pair<bool, std::string_view>> options);

// Starts the session's program on `sim` and runs it to the end, or to Ctrl-C (the kernel asks
// pendingInterrupt), under the host memory budget, with the progress line unless --quiet.
// Returns the host seconds it took.
double runSessionProgram(Simulation& sim, const Session& s);

}  // namespace hpm::tools
