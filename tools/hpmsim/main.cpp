// hpmsim: an execution-driven simulator of a Blue Gene-class compute node with faithful
// performance-monitoring hardware. See README.md and docs/.
#include <fmt/core.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <initializer_list>
#include <new>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/host_limits.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/interrupt.h"

namespace {

// A command-line error as one line naming the problem: CLI11's messages for an unknown command
// ("A subcommand is required") and an unknown option ("The following arguments were not
// expected: ...") do not name it clearly.
std::string describeParseError(const CLI::App& app, const CLI::ParseError& e, int argc,
                               char** argv) {
  std::string names;
  bool known = false;
  for (const CLI::App* sub : app.get_subcommands({})) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
    known = known || (argc > 1 && sub->get_name() == argv[1]);
  }
  if (argc < 2) return fmt::format("no command given (commands: {})", names);
  if (argv[1][0] != '-' && !known) {
    return fmt::format("unknown command '{}' (commands: {})", argv[1], names);
  }
  // The innermost command given ("upc explore").
  const CLI::App* sub = &app;
  std::string path;
  while (!sub->get_subcommands().empty()) {
    sub = sub->get_subcommands().front();
    path += (path.empty() ? "" : " ") + sub->get_name();
  }
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-') continue;
    // ("--name=value", "-xVALUE": a short option's value may follow it directly)
    const std::string name(arg[1] == '-' ? arg.substr(0, arg.find('=')) : arg.substr(0, 2));
    if (sub->get_option_no_throw(name) == nullptr && app.get_option_no_throw(name) == nullptr) {
      return sub == &app ? fmt::format("unknown option '{}'", name)
                         : fmt::format("unknown option '{}' for `hpmsim {}`", name, path);
    }
  }
  if (std::string_view(e.what()) == "command is required") {
    return fmt::format("no program given: `hpmsim {} [OPTIONS] -- PROGRAM [ARGS...]`", path);
  }
  return e.what();
}

// CLI11 takes "-1" after an option for an option of its own ("unknown option '-1'"): a negative
// number after an option (before "--") is joined to it ("--counters=-1", "-r-1"), so that the
// option's own check names the value and says why it is refused.
// ", under an address-space limit (ulimit -v) of N MiB" when there is one.
std::string addressSpaceNote() {
  const auto limit = hpm::addressSpaceLimit();
  return limit ? fmt::format(" under an address-space limit (ulimit -v) of {} MiB", *limit >> 20)
               : std::string();
}

bool isNegativeNumber(const char* text) {
  if (text[0] != '-' || text[1] == '-' || text[1] == '\0') return false;
  char* end = nullptr;
  std::strtod(text, &end);  // "-1", "-0.5", "-1e3", "-inf", "-nan"
  return end != text && *end == '\0';
}

std::vector<std::string> joinNegativeValues(int argc, char** argv) {
  std::vector<std::string> out;
  bool after_separator = false;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    after_separator = after_separator || arg == "--";
    if (!after_separator && i + 1 < argc && arg.starts_with("--") && arg.size() > 2 &&
        arg.find('=') == std::string::npos && isNegativeNumber(argv[i + 1])) {
      out.push_back(arg + "=" + argv[++i]);
    } else if (!after_separator && i + 1 < argc && arg.size() == 2 && arg[0] == '-' &&
               arg[1] != '-' && isNegativeNumber(argv[i + 1])) {
      out.push_back(arg + argv[++i]);  // a short option's value follows it directly
    } else {
      out.push_back(arg);
    }
  }
  return out;
}

// hpmsim's own messages on stderr, which may be a closed pipe itself: never throws.
template <class... Args>
void printError(fmt::format_string<Args...> format, Args&&... args) {
  const std::string text = fmt::format(format, std::forward<Args>(args)...);
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

// Whether `e` is a write to a stream whose reader has gone (fmt throws std::system_error with
// EPIPE; hpmsim ignores SIGPIPE while a guest runs, so that the guest takes its own).
bool isBrokenPipe(const std::exception& e) {
  const auto* s = dynamic_cast<const std::system_error*>(&e);
  return s != nullptr && s->code().value() == EPIPE;
}

// Ends hpmsim as a write to a closed pipe ends a program (`hpmsim ... | head -1`): by SIGPIPE,
// status 141 in a shell. (What hpmsim wrote before, its results files included, stays.)
[[noreturn]] void endByBrokenPipe() {
  std::fflush(stdout);  // (fails quietly if it is the closed pipe)
  std::signal(SIGPIPE, SIG_DFL);
  std::raise(SIGPIPE);
  std::_Exit(128 + SIGPIPE);  // (if SIGPIPE is blocked)
}

}  // namespace

int main(int raw_argc, char** raw_argv) {
  std::vector<std::string> args = joinNegativeValues(raw_argc, raw_argv);
  std::vector<char*> arg_pointers;
  for (std::string& a : args) arg_pointers.push_back(a.data());
  const int argc = static_cast<int>(arg_pointers.size());
  char** argv = arg_pointers.data();
  hpm::tools::installInterruptHandlers();
  CLI::App app{"hpmsim: a Blue Gene-class node simulator with modelled performance counters",
               "hpmsim"};
  app.set_version_flag("--version", std::string("hpmsim ") + HPMSIM_VERSION);
  app.require_subcommand(1);
  hpm::tools::Action selected;
  // Subcommands register here, in the order `hpmsim --help` lists them (CLI11 keeps the order
  // of registration within a group, and the groups in the order they first appear): the common
  // commands first, then the interconnect tools and the counter unit's explorer.
  // (docs/commands/hpmsim-<command>.md is each command's page.)
  using Add = void (*)(CLI::App&, hpm::tools::Action&);
  const auto addGroup = [&](const char* group, std::initializer_list<Add> adds) {
    for (const Add add : adds) {
      add(app, selected);
      app.get_subcommands({}).back()->group(group);
    }
  };
  addGroup("Common commands", {hpm::tools::addRunCommand, hpm::tools::addStatCommand,
                               hpm::tools::addReportCommand, hpm::tools::addSweepCommand,
                               hpm::tools::addEventsCommand, hpm::tools::addConfigCommand});
  addGroup("Other commands", {hpm::tools::addBusstatCommand, hpm::tools::addC2cCommand,
                              hpm::tools::addConflictsCommand, hpm::tools::addLocalityCommand,
                              hpm::tools::addUpcCommand});
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::string path;
    for (const CLI::App* sub = &app; !sub->get_subcommands().empty();) {
      sub = sub->get_subcommands().front();
      path += " " + sub->get_name();
    }
    printError("hpmsim: error: {}\nRun `hpmsim{} --help` for the usage.\n",
               describeParseError(app, e, argc, argv), path);
    return static_cast<int>(hpm::ExitCode::kUsage);
  }
  try {
    return selected ? selected() : 0;
  } catch (const hpm::Error& e) {
    std::fflush(stdout);
    printError("hpmsim: error: {}\n", e.what());
    return static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    // The host's memory, or its address-space limit, ran out: a resource the host refused, not
    // a defect (no statistics: writing them would need memory too).
    std::fflush(stdout);
    printError(
        "hpmsim: error: out of host memory{} (docs/kernel.md, \"Memory\": what hpmsim needs from "
        "the host)\n",
        addressSpaceNote());
    return static_cast<int>(hpm::ExitCode::kHost);
  } catch (const std::exception& e) {
    if (isBrokenPipe(e)) endByBrokenPipe();
    // Every expected failure is an hpm::Error with its own message and status; anything else is
    // a defect of hpmsim, reported as one rather than as an abort.
    std::fflush(stdout);
    printError("hpmsim: internal error: {}\n", e.what());
    return static_cast<int>(hpm::ExitCode::kInternal);
  }
}
