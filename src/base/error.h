// Errors that reach the user: bad input, bad configuration, unsupported programs.
// Models throw hpm::Error (never print or exit); the tools catch it, print the message
// and exit with the status the error carries.
#pragma once

#include <fmt/core.h>

#include <stdexcept>
#include <string>

namespace hpm {

// Exit statuses of the hpmsim command for its own failures (guest statuses pass through).
enum class ExitCode : int {
  kUsage = 2,       // unknown option, malformed command line
  kConfig = 3,      // bad machine configuration or parameter
  kProgram = 4,     // the guest program cannot be loaded (missing, not ELF, unsupported)
  kGuestFault = 5,  // the simulator refused to go on (for example a strict-syscall stop)
  kIo = 6,          // a host file could not be written or read
  kInternal = 70,   // a broken invariant inside the simulator (EX_SOFTWARE)
  kHost = 71,       // the host refused a resource hpmsim needs (EX_OSERR)
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

template <class... Args>
[[noreturn]] void fail(ExitCode code, fmt::format_string<Args...> format, Args&&... args) {
  throw Error(code, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace hpm
