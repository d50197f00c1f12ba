// Test support: running a child process (the simulator, qemu) with exact argv, environment and
// stdin, capturing its output, bounded by a timeout; and temporary directories.
#pragma once

#include <sys/wait.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace hpm::test {

struct RunResult {
  std::string out;
  std::string err;
  int wait_status = 0;  // as from waitpid
  bool timed_out = false;
  std::string spawn_error;  // nonempty if the child could not be started

  bool exited() const { return !timed_out && WIFEXITED(wait_status); }
  bool signaled() const { return !timed_out && WIFSIGNALED(wait_status); }
  int exit_code() const { return WEXITSTATUS(wait_status); }
  int signal() const { return WTERMSIG(wait_status); }
  // The exit status as a shell reports it: the exit code, 128 + signal, or -1 (timed out or
  // not started).
  int status() const {
    if (exited()) return exit_code();
    if (signaled()) return 128 + signal();
    return -1;
  }
  std::string describe() const;
};

// A signal for the child's process group, as a terminal's Ctrl-C sends it, `after` the start.
struct Interrupt {
  std::chrono::milliseconds after{0};
  int signo = 0;  // 0: none
};

// Runs argv[0] with exactly `argv` and `env`, in `cwd`, feeding `input` on stdin and capturing
// stdout and stderr (each up to `max_capture` bytes), without core dumps and with only
// descriptors 0, 1 and 2 open. Sends `interrupt`, if any; kills the child's process group after
// `timeout`.
RunResult runProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                     const std::string& input, const std::filesystem::path& cwd,
                     std::chrono::milliseconds timeout, std::size_t max_capture = 64u << 20,
                     Interrupt interrupt = {});

// Runs argv[0] with exactly `argv` and `env`, in `cwd`, in a new session whose controlling
// terminal is a fresh pseudo-terminal on its stdin, stdout and stderr; returns what appeared on
// the terminal (in `out`, with the terminal's newline translation) and the wait status.
RunResult runOnTerminal(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                        const std::filesystem::path& cwd, std::chrono::milliseconds timeout);

// The whole content of the file at `path` (empty when it cannot be read).
std::string readFile(const std::filesystem::path& path);

// A fresh directory under the system's temporary directory, removed with its contents when the
// object goes away.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "hpm-test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace hpm::test
