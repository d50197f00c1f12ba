#include "tests/support/process.h"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <thread>

namespace hpm::test {

namespace fs = std::filesystem;

std::string RunResult::describe() const {
  if (!spawn_error.empty()) return "could not start: " + spawn_error;
  if (timed_out) return "timed out (killed)";
  if (WIFEXITED(wait_status)) return "exit status " + std::to_string(exit_code());
  if (WIFSIGNALED(wait_status)) {
    return "killed by signal " + std::to_string(signal()) + " (" + strsignal(signal()) + ")";
  }
  return "wait status " + std::to_string(wait_status);
}

TempDir::TempDir(const std::string& prefix) {
  std::string pattern = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

namespace {

void setNonBlocking(int fd) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

}  // namespace

RunResult runProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                     const std::string& input, const fs::path& cwd,
                     std::chrono::milliseconds timeout, std::size_t max_capture,
                     Interrupt interrupt) {
  RunResult result;
  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  std::vector<char*> cenv;
  for (const auto& e : env) cenv.push_back(const_cast<char*>(e.c_str()));
  cenv.push_back(nullptr);
  std::string cwd_str = cwd.string();

  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0 ||
      pipe2(err_pipe, O_CLOEXEC) != 0) {
    result.spawn_error = std::string("pipe2: ") + std::strerror(errno);
    return result;
  }
  // Input that fits in the pipe is written before the child starts, so that the guest's first
  // read sees all of it: how many read calls the guest makes (and so its instruction count)
  // must not depend on how fast this process feeds the pipe. Larger input is streamed.
  size_t written = 0;
  if (input.size() <= static_cast<size_t>(fcntl(in_pipe[1], F_GETPIPE_SZ))) {
    while (written < input.size()) {
      ssize_t w = write(in_pipe[1], input.data() + written, input.size() - written);
      if (w <= 0) break;
      written += static_cast<size_t>(w);
    }
  }
  pid_t pid = fork();
  if (pid < 0) {
    result.spawn_error = std::string("fork: ") + std::strerror(errno);
    return result;
  }
  if (pid == 0) {
    setpgid(0, 0);
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    // Only 0, 1 and 2 reach the guest: descriptors inherited from whatever runs the tests would
    // shift the numbers the guest's open() returns (qemu-user shares the host's table).
    close_range(3, ~0U, 0);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(SIGPIPE, SIG_DFL);
    if (chdir(cwd_str.c_str()) != 0) _exit(126);
    execve(cargv[0], cargv.data(), cenv.data());
    const char msg[] = "runProcess: execve failed\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(127);
  }
  setpgid(pid, pid);  // also from the parent, so the group exists before any kill
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  int in_fd = in_pipe[1], out_fd = out_pipe[0], err_fd = err_pipe[0];
  setNonBlocking(in_fd);
  setNonBlocking(out_fd);
  setNonBlocking(err_fd);
  if (written == input.size()) {
    close(in_fd);
    in_fd = -1;
  }

  const auto started = std::chrono::steady_clock::now();
  auto deadline = started + timeout;
  bool interrupted = interrupt.signo == 0;
  char buf[65536];
  while (out_fd >= 0 || err_fd >= 0) {
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      result.timed_out = true;
      break;
    }
    if (!interrupted && now >= started + interrupt.after) {
      kill(-pid, interrupt.signo);
      interrupted = true;
    }
    pollfd fds[3];
    int n = 0;
    if (in_fd >= 0) fds[n++] = {in_fd, POLLOUT, 0};
    if (out_fd >= 0) fds[n++] = {out_fd, POLLIN, 0};
    if (err_fd >= 0) fds[n++] = {err_fd, POLLIN, 0};
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    // Wake up in time for the interrupt.
    if (!interrupted) left = std::min<long long>(left, interrupt.after.count() / 4 + 1);
    int ready =
        poll(fds, static_cast<nfds_t>(n), static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == in_fd) {
        ssize_t w = write(in_fd, input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<size_t>(w);
        if (w < 0 && errno != EAGAIN) written = input.size();  // EPIPE: the child stopped reading
        if (written == input.size()) {
          close(in_fd);
          in_fd = -1;
        }
        continue;
      }
      int& fd = fds[i].fd == out_fd ? out_fd : err_fd;
      std::string& sink = fds[i].fd == out_fd ? result.out : result.err;
      ssize_t r = read(fd, buf, sizeof buf);
      if (r > 0) {
        if (sink.size() < max_capture) sink.append(buf, static_cast<size_t>(r));
      } else if (r == 0 || errno != EAGAIN) {
        close(fd);
        fd = -1;
      }
    }
  }
  for (int fd : {in_fd, out_fd, err_fd}) {
    if (fd >= 0) close(fd);
  }
  // The pipes are closed; wait for the exit, still bounded by the deadline.
  while (!result.timed_out) {
    pid_t w = waitpid(pid, &result.wait_status, WNOHANG);
    if (w == pid) return result;
    if (w < 0 && errno != EINTR) {
      result.spawn_error = std::string("waitpid: ") + std::strerror(errno);
      return result;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      result.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  waitpid(pid, &result.wait_status, 0);
  return result;
}

RunResult runOnTerminal(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                        const fs::path& cwd, std::chrono::milliseconds timeout) {
  RunResult result;
  int master = -1;
  int slave = -1;
  if (openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) {
    result.spawn_error = std::string("openpty: ") + std::strerror(errno);
    return result;
  }
  std::vector<std::string> args = argv;
  std::vector<std::string> envs = env;
  std::vector<char*> argp;
  std::vector<char*> envp;
  for (std::string& a : args) argp.push_back(a.data());
  for (std::string& e : envs) envp.push_back(e.data());
  argp.push_back(nullptr);
  envp.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    // Only async-signal-safe calls from here on.
    setsid();
    ioctl(slave, TIOCSCTTY, 0);
    dup2(slave, 0);
    dup2(slave, 1);
    dup2(slave, 2);
    if (slave > 2) close(slave);
    close(master);
    if (chdir(cwd.c_str()) != 0) _exit(126);
    execve(argp[0], argp.data(), envp.data());
    _exit(127);
  }
  close(slave);
  if (pid < 0) {
    close(master);
    result.spawn_error = std::string("fork: ") + std::strerror(errno);
    return result;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{master, POLLIN, 0};
    if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) == 0) {
      kill(pid, SIGKILL);
      result.timed_out = true;
      break;
    }
    const ssize_t n = read(master, buf, sizeof buf);
    if (n <= 0) break;  // EIO once every holder of the terminal has closed it
    result.out.append(buf, static_cast<std::size_t>(n));
  }
  close(master);
  waitpid(pid, &result.wait_status, 0);
  return result;
}

}  // namespace hpm::test
