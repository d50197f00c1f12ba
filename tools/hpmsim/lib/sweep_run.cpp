#include "tools/hpmsim/lib/sweep_run.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <fstream>
#include <mutex>
#include <thread>

#include "base/error.h"
#include "node/node_stats.h"
#include "tools/hpmsim/interrupt.h"
#include "tools/hpmsim/lib/progress.h"
#include "tools/hpmsim/lib/run_stats.h"

namespace hpm::tools {
namespace {

// run_command.cpp writes it beside the statistics (guest_env.h's guestInputsDigest).
constexpr const char* kGuestInputs = "guest_inputs";

std::string selfPath() {
  std::error_code ec;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) fail(ExitCode::kInternal, "sweep: cannot find the hpmsim executable");
  return path.string();
}

// Starts `args` with stdin from /dev/null and stdout and stderr into the file `out`; -1 if it
// could not fork.
pid_t startChild(std::vector<std::string> args, const std::string& out) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int null = ::open("/dev/null", O_RDONLY);
  if (fd < 0 || null < 0) ::_exit(127);
  ::dup2(null, 0);
  ::dup2(fd, 1);
  ::dup2(fd, 2);
  ::execv(argv[0], argv.data());
  ::_exit(127);
}

}  // namespace

SweepResult pendingSweep(std::vector<SweepAxis> axes) {
  SweepResult sweep;
  for (std::vector<std::string>& values : crossProduct(axes)) {
    SweepPoint point;
    point.values = std::move(values);
    sweep.points.push_back(std::move(point));
  }
  sweep.axes = std::move(axes);
  return sweep;
}

std::vector<std::string> pointArguments(const std::string& hpmsim, const SessionOptions& session,
                                        const std::vector<std::string>& settings,
                                        const std::string& stats_json) {
  std::vector<std::string> args = {hpmsim,          "run",    "--machine",
                                   session.machine, "--mode", session.mode};
  for (const std::string& setting : settings) {
    args.push_back("--set");
    args.push_back(setting);
  }
  args.push_back("--stats-json");
  args.push_back(stats_json);
  args.push_back("--root");
  args.push_back(session.root);
  if (session.env.clear) args.push_back("--env-clear");
  for (const std::string& setting : session.env.settings) {
    args.push_back("--env");
    args.push_back(setting);
  }
  args.push_back("--");
  args.insert(args.end(), session.command.begin(), session.command.end());
  return args;
}

std::optional<PointFigures> pointFigures(const nlohmann::json& stats) {
  const std::string cycles(run_stat::kCycles.name);
  if (!stats.contains(cycles)) return std::nullopt;
  PointFigures f;
  f.cycles = stats.at(cycles).get<u64>();
  f.instructions = stats.at(std::string(run_stat::kInstructions.name)).get<u64>();
  if (stats.contains(kGuestInputs)) f.guest_inputs = stats.at(kGuestInputs).get<std::string>();
  const std::string regions(node_stat::kRegions);
  if (!stats.contains(regions)) return f;
  for (const nlohmann::json& r : stats.at(regions)) {
    f.regions.push_back({r.at(std::string(node_stat::kRegionId.name)).get<u64>(),
                         r.at(std::string(node_stat::kRegionName.name)).get<std::string>(),
                         r.at(std::string(node_stat::kRegionCycles.name)).get<u64>()});
  }
  return f;
}

std::string hpmsimSaid(std::istream& output) {
  std::string said, last;
  for (std::string line; std::getline(output, line);) {
    if (said.empty() && line.starts_with("hpmsim")) said = line;
    if (!line.empty()) last = line;
  }
  return said.empty() ? last : said;
}

void runPoint(const std::string& hpmsim, const SessionOptions& session,
              const std::vector<SweepAxis>& axes, SweepPoint& point,
              const std::filesystem::path& dir, std::size_t index) {
  const std::string stats = (dir / fmt::format("point{}.json", index)).string();
  const std::string out = (dir / fmt::format("point{}.out", index)).string();
  const pid_t pid =
      startChild(pointArguments(hpmsim, session, pointSettings(axes, point.values), stats), out);
  if (pid < 0) {
    point.error = "fork failed";
    return;
  }
  // Polled rather than blocking, so that an interrupt reaches the point still running (a
  // terminal's Ctrl-C reaches it anyway; a signal to this process alone does not). Forwarded as
  // SIGTERM: a point that had the terminal's SIGINT too takes each signal once (a second SIGINT
  // would end it at once).
  int status = 0;
  bool forwarded = false;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      point.error = "waitpid failed";
      return;
    }
    if (pendingInterrupt() != 0 && !forwarded) {
      ::kill(pid, SIGTERM);
      forwarded = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  point.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream output(out);
  const std::string said = hpmsimSaid(output);
  std::ifstream in(stats);
  std::error_code ec;
  if (!in || std::filesystem::file_size(stats, ec) == 0 || ec) {
    point.error = said.empty() ? fmt::format("no statistics (status {})", point.status) : said;
    return;
  }
  try {
    point.figures = pointFigures(nlohmann::json::parse(in));
  } catch (const std::exception& e) {
    point.error = said.empty() ? e.what() : said;
  }
  // A point whose program failed (a non-zero status, a fatal signal) failed, its figures or not.
  if (point.error.empty() && point.status != 0) {
    point.error = said.starts_with("hpmsim") ? said : fmt::format("exit status {}", point.status);
  }
}

std::string sweepProgress(std::size_t total, std::size_t done, double done_at, double now) {
  std::string line = fmt::format("[hpmsim sweep] {} of {} points done, {:.0f} s", done, total, now);
  if (const auto left = secondsLeft(total, done, done_at, now)) {
    line += fmt::format(", about {:.0f} s left", *left);
  }
  return line;
}

void markInterrupted(std::vector<SweepPoint>& points) {
  for (SweepPoint& p : points) {
    if (p.status == -1 && p.error.empty()) {
      p.error = "not run (interrupted)";
    } else if ((p.status == 128 + SIGINT || p.status == 128 + SIGTERM) && p.figures) {
      p.error = fmt::format("interrupted at cycle {}", p.figures->cycles);
      p.figures.reset();
    }
  }
}

int runSweep(const SessionOptions& session, SweepResult& sweep, unsigned jobs) {
  const std::string hpmsim = selfPath();
  char tmpl[] = "/tmp/hpmsim-sweep-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) fail(ExitCode::kIo, "sweep: cannot create a temporary directory");
  const std::filesystem::path dir = tmpl;
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  std::vector<SweepPoint>& points = sweep.points;
  std::size_t next = 0;
  std::size_t finished = 0;  // points done
  unsigned idle = 0;         // workers that found no more
  std::vector<std::thread> workers;
  std::mutex lock;
  for (unsigned j = 0; j < jobs; ++j) {
    workers.emplace_back([&] {
      for (;;) {
        std::size_t index;
        {
          std::lock_guard<std::mutex> guard(lock);
          if (next == points.size() || pendingInterrupt() != 0) {
            ++idle;
            return;
          }
          index = next++;
        }
        runPoint(hpmsim, session, sweep.axes, points[index], dir, index);
        std::lock_guard<std::mutex> guard(lock);
        ++finished;
      }
    });
  }
  {
    ProgressLine progress(!session.quiet);
    std::size_t done = 0;
    double done_at = 0;  // when `done` last changed, seconds since the start
    for (;;) {
      {
        std::lock_guard<std::mutex> guard(lock);
        if (idle == workers.size()) break;
        if (finished != done) {
          done = finished;
          done_at = progress.elapsed();
        }
      }
      progress.update(
          [&] { return sweepProgress(points.size(), done, done_at, progress.elapsed()); });
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  for (auto& w : workers) w.join();
  std::filesystem::remove_all(dir);
  const int interrupted = pendingInterrupt();
  if (interrupted != 0) markInterrupted(points);
  return interrupted;
}

}  // namespace hpm::tools
