#include "tools/hpmsim/lib/guest_env.h"

#include <fmt/core.h>

#include <algorithm>

#include "base/error.h"
#include "base/types.h"

extern char** environ;

namespace hpm::tools {

void addGuestEnvOptions(CLI::App& cmd, GuestEnvOptions& options) {
  cmd.add_flag("--env-clear", options.clear,
               "Start the program with an empty environment (as env -i), then --env's settings");
  cmd.add_option("--env", options.settings,
                 "Set a variable of the program's environment (KEY=VALUE; repeatable)");
}

std::string guestInputsDigest(const std::vector<std::string>& argv,
                              const std::vector<std::string>& envp) {
  u64 h = 0xcbf29ce484222325ull;
  const auto byte = [&h](char c) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  };
  // Each string with its terminator ("ab","c" differs from "a","bc"); a 0x01 byte between the
  // arguments and the environment.
  const auto add = [&byte](std::string_view text) {
    for (const char c : text) byte(c);
    byte('\0');
  };
  for (const std::string& a : argv) add(a);
  byte('\x01');
  for (const std::string& e : envp) add(e);
  return fmt::format("{:016x}", h);
}

std::vector<std::string> guestEnvironment(const GuestEnvOptions& options) {
  std::vector<std::string> env;
  if (!options.clear) {
    for (char** e = environ; *e != nullptr; ++e) {
      // (Open MPI's launcher variables describe hpmsim's host processes, not the simulated
      // nodes: a guest seeing them would run differently by how hpmsim was started, issue 24.)
      const std::string_view v = *e;
      if (v.starts_with("OMPI_") || v.starts_with("PMIX_") || v.starts_with("HFI_NO_BACKTRACE=") ||
          v.starts_with("IPATH_NO_BACKTRACE=")) {
        continue;
      }
      env.emplace_back(v);
    }
  }
  for (const std::string& s : options.settings) {
    const std::size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0) {
      fail(ExitCode::kUsage, "--env '{}': expected KEY=VALUE", s);
    }
    const std::string key = s.substr(0, eq + 1);
    std::erase_if(env, [&](const std::string& v) { return v.starts_with(key); });
    env.push_back(s);
  }
  return env;
}

}  // namespace hpm::tools
