// The guest program's environment, for the commands that run one (run, stat): the host's, or
// an empty one (--env-clear, as `env -i`), with --env KEY=VALUE settings on top. A fixed
// environment makes a run reproducible anywhere: the guest's stack, and so its run, depends on
// the size of its environment. Open MPI's launcher variables (OMPI_*, PMIX_*) are never passed
// on: under `mpirun` they describe hpmsim's host processes, not the simulated nodes.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace hpm::tools {

struct GuestEnvOptions {
  bool clear = false;
  std::vector<std::string> settings;  // KEY=VALUE, in order (a later one wins)
};

void addGuestEnvOptions(CLI::App& cmd, GuestEnvOptions& options);

// The environment to give the guest; fails (ExitCode::kUsage) naming a setting without '=' or
// with an empty name.
std::vector<std::string> guestEnvironment(const GuestEnvOptions& options);

// A digest of what the guest was given (its arguments and environment, in order), written into
// the results ("guest_inputs"): two results of one program are comparable only when theirs are
// equal, since the guest's stack, and so its run, depends on them (a shell's `_` or `TMUX` moves
// a program's cycles). FNV-1a, 64 bits, as 16 hexadecimal digits.
std::string guestInputsDigest(const std::vector<std::string>& argv,
                              const std::vector<std::string>& envp);

}  // namespace hpm::tools
