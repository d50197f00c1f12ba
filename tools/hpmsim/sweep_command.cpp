// `hpmsim sweep`: what-if experiments. Runs a program once per point of the cross product of
// parameter values, in parallel on the host's cores (each point is a separate `hpmsim run`), and
// prints total cycles, cycles per region and the speedup against the first point.
#include <fcntl.h>
#include <fmt/core.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "base/error.h"
#include "base/json_text.h"
#include "base/types.h"
#include "node/machine.h"
#include "node/node_stats.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/interrupt.h"
#include "tools/hpmsim/lib/guest_env.h"
#include "tools/hpmsim/lib/program_path.h"
#include "tools/hpmsim/lib/progress.h"
#include "tools/hpmsim/lib/run_stats.h"
#include "tools/hpmsim/lib/session.h"

namespace hpm::tools {
namespace {

// A point's statistics (its run's --stats-json) are read through their declarations.
constexpr std::string_view kCycles = run_stat::kCycles.name;

struct SweepOptions {
  // --machine, --mode, --root, the environment, the program: every point's, as run's (--set is
  // sweep's own: a parameter and its values)
  SessionOptions session;
  std::vector<std::string> sets;  // KEY=V1,V2,...
  unsigned jobs = 0;              // 0: the host's cores
  bool json = false;
};

// sweep's points run one node each; its --set is its own (a parameter and its values), and it
// takes no --host-memory (each point is hpmsim run's, with run's default budget).
constexpr SessionSpec kSweepSession{
    .modes = "functional, warmup, timing or profile, of every point",
    .runs = kModesWithUnits,
    .modes_why = "",
    .overrides = false,
    .host_memory = false,
    .nodes = false,
    .nodes_what = "",
    .output_dir = false};

struct Axis {
  std::string key;
  std::vector<std::string> values;
};

struct Point {
  std::vector<std::string> values;  // one per axis
  nlohmann::json stats;
  int status = -1;
  std::string error;
};

std::vector<Axis> parseAxes(const std::vector<std::string>& sets) {
  std::vector<Axis> axes;
  for (const std::string& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) {
      fail(ExitCode::kUsage, "sweep: --set expects KEY=V1,V2,..., got '{}'", s);
    }
    Axis axis{s.substr(0, eq), {}};
    std::stringstream values(s.substr(eq + 1));
    for (std::string v; std::getline(values, v, ',');) {
      if (v.empty()) fail(ExitCode::kUsage, "sweep: empty value in '{}'", s);
      axis.values.push_back(v);
    }
    axes.push_back(std::move(axis));
  }
  return axes;
}

std::string selfPath() {
  std::error_code ec;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) fail(ExitCode::kInternal, "sweep: cannot find the hpmsim executable");
  return path.string();
}

// Runs one point as a child `hpmsim run`, its output and errors into files in `dir`.
void runPoint(const SweepOptions& opt, const std::vector<Axis>& axes, Point& point,
              const std::filesystem::path& dir, std::size_t index) {
  const std::string stats = (dir / fmt::format("point{}.json", index)).string();
  const std::string out = (dir / fmt::format("point{}.out", index)).string();
  std::vector<std::string> args = {selfPath(),          "run",    "--machine",
                                   opt.session.machine, "--mode", opt.session.mode};
  for (std::size_t a = 0; a < axes.size(); ++a) {
    args.push_back("--set");
    args.push_back(axes[a].key + "=" + point.values[a]);
  }
  args.push_back("--stats-json");
  args.push_back(stats);
  args.insert(args.end(), {"--root", opt.session.root});
  if (opt.session.env.clear) args.push_back("--env-clear");
  for (const std::string& setting : opt.session.env.settings)
    args.insert(args.end(), {"--env", setting});
  args.push_back("--");
  args.insert(args.end(), opt.session.command.begin(), opt.session.command.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    point.error = "fork failed";
    return;
  }
  if (pid == 0) {
    const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int null = ::open("/dev/null", O_RDONLY);
    if (fd < 0 || null < 0) ::_exit(127);
    ::dup2(null, 0);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  // Polled rather than blocking, so that an interrupt reaches the point still running (a
  // terminal's Ctrl-C reaches it anyway; a signal to this process alone does not): it stops and
  // writes what it has, as `hpmsim run` does. Forwarded as SIGTERM: a point that had the
  // terminal's SIGINT too takes each signal once (a second SIGINT would end it at once).
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
  // What hpmsim said (its lines start "hpmsim"; the guest's own output is mixed in the file).
  std::ifstream err(out);
  std::string said, last;
  for (std::string line; std::getline(err, line);) {
    if (said.empty() && line.starts_with("hpmsim")) said = line;
    if (!line.empty()) last = line;
  }
  if (said.empty()) said = last;
  std::ifstream in(stats);
  std::error_code ec;
  if (!in || std::filesystem::file_size(stats, ec) == 0 || ec) {
    point.error = said.empty() ? fmt::format("no statistics (status {})", point.status) : said;
    return;
  }
  try {
    point.stats = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    point.error = said.empty() ? e.what() : said;
  }
  // A point whose program failed (a non-zero status, a fatal signal) failed, its figures or not.
  if (point.error.empty() && point.status != 0) {
    point.error = said.starts_with("hpmsim") ? said : fmt::format("exit status {}", point.status);
  }
}

int run(const SweepOptions& opt) {
  if (opt.session.command.empty())
    fail(ExitCode::kUsage, "sweep: no program given (-- PROGRAM ...)");
  const std::vector<Axis> axes = parseAxes(opt.sets);
  if (axes.empty()) fail(ExitCode::kUsage, "sweep: give at least one --set KEY=V1,V2,...");
  (void)guestEnvironment(opt.session.env);  // (its settings checked before any point runs)
  std::vector<Point> points(1);
  for (const Axis& axis : axes) {
    std::vector<Point> next;
    for (const Point& p : points) {
      for (const std::string& v : axis.values) {
        Point q = p;
        q.values.push_back(v);
        next.push_back(std::move(q));
      }
    }
    points = std::move(next);
  }
  // The program exists and every point's configuration is valid before any runs: a misspelt
  // path or key, or a value out of range, is one error, not a table of failed runs.
  if (const std::string program = resolveProgram(opt.session.command[0]);
      !std::filesystem::is_regular_file(program)) {
    fail(ExitCode::kUsage, "sweep: cannot open program '{}'", opt.session.command[0]);
  }
  for (const Point& p : points) {
    std::vector<std::string> overrides;
    for (std::size_t a = 0; a < axes.size(); ++a)
      overrides.push_back(axes[a].key + "=" + p.values[a]);
    loadMachine(opt.session.machine, overrides);
  }
  char tmpl[] = "/tmp/hpmsim-sweep-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) fail(ExitCode::kIo, "sweep: cannot create a temporary directory");
  const std::filesystem::path dir = tmpl;
  const unsigned jobs =
      opt.jobs != 0 ? opt.jobs : std::max(1u, std::thread::hardware_concurrency());
  std::size_t next = 0;
  std::size_t finished = 0;  // points done, and workers that found no more
  unsigned idle = 0;
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
        runPoint(opt, axes, points[index], dir, index);
        std::lock_guard<std::mutex> guard(lock);
        ++finished;
      }
    });
  }
  {
    // Points done and an estimate of the time left (secondsLeft).
    ProgressLine progress(!opt.session.quiet);
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
      progress.update([&] {
        const double seconds = progress.elapsed();
        std::string line = fmt::format("[hpmsim sweep] {} of {} points done, {:.0f} s", done,
                                       points.size(), seconds);
        if (const auto left = secondsLeft(points.size(), done, done_at, seconds)) {
          line += fmt::format(", about {:.0f} s left", *left);
        }
        return line;
      });
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  for (auto& w : workers) w.join();
  std::filesystem::remove_all(dir);
  // After an interrupt, the points it stopped have partial results and the later ones none:
  // neither is a result of the configuration.
  const int interrupted = pendingInterrupt();
  if (interrupted != 0) {
    for (Point& p : points) {
      if (p.status == -1 && p.error.empty()) {
        p.error = "not run (interrupted)";
      } else if ((p.status == 128 + SIGINT || p.status == 128 + SIGTERM) &&
                 p.stats.contains(kCycles)) {
        p.error = fmt::format("interrupted at cycle {}", p.stats[kCycles].get<u64>());
        p.stats = nlohmann::json::object();
      }
    }
  }

  // Regions seen in any point, in order of id.
  std::map<u64, std::string> regions;
  for (const Point& p : points) {
    if (!p.stats.contains(node_stat::kRegions)) continue;
    for (const auto& r : p.stats[node_stat::kRegions])
      regions[r[node_stat::kRegionId.name].get<u64>()] =
          r[node_stat::kRegionName.name].get<std::string>();
  }
  auto regionCycles = [](const Point& p, u64 id) -> std::optional<u64> {
    if (!p.stats.contains(node_stat::kRegions)) return std::nullopt;
    for (const auto& r : p.stats[node_stat::kRegions]) {
      if (r[node_stat::kRegionId.name].get<u64>() == id) {
        return r[node_stat::kRegionCycles.name].get<u64>();
      }
    }
    return std::nullopt;
  };
  const double base =
      points.front().stats.contains(kCycles) ? points.front().stats[kCycles].get<double>() : 0.0;
  int failures = 0;
  if (opt.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const Point& p : points) {
      nlohmann::json row;
      for (std::size_t a = 0; a < axes.size(); ++a) row["config"][axes[a].key] = p.values[a];
      row["status"] = p.status;
      if (!p.error.empty()) {
        row["error"] = p.error;
        ++failures;
      }
      if (p.stats.contains(kCycles)) {
        row["cycles"] = p.stats[kCycles];
        row["instructions"] = p.stats[run_stat::kInstructions.name];
        if (p.stats.contains("guest_inputs")) row["guest_inputs"] = p.stats["guest_inputs"];
        for (const auto& [id, name] : regions) {
          if (auto c = regionCycles(p, id)) row["regions"][name] = *c;
        }
        row["speedup"] = base / p.stats[kCycles].get<double>();
      }
      out.push_back(row);
    }
    fmt::print("{}\n", jsonText(out, 2));
  } else {
    std::string header;
    for (const Axis& a : axes) header += fmt::format("{:>24} ", a.key);
    header += fmt::format("{:>16} ", "cycles");
    for (const auto& [id, name] : regions) header += fmt::format("{:>16} ", name);
    header += fmt::format("{:>8}", "speedup");
    fmt::print("{}\n", header);
    for (const Point& p : points) {
      std::string row;
      for (const std::string& v : p.values) row += fmt::format("{:>24} ", v);
      if (!p.error.empty() || !p.stats.contains(kCycles)) {
        ++failures;
        row += fmt::format("failed (status {}): {}", p.status, p.error.substr(0, 200));
        fmt::print("{}\n", row);
        continue;
      }
      row += fmt::format("{:>16} ", p.stats[kCycles].get<u64>());
      for (const auto& [id, name] : regions) {
        const auto c = regionCycles(p, id);
        row += c ? fmt::format("{:>16} ", *c) : fmt::format("{:>16} ", "-");
      }
      row += fmt::format("{:>8.3f}", base / p.stats[kCycles].get<double>());
      fmt::print("{}\n", row);
    }
  }
  if (interrupted != 0) return 128 + interrupted;
  return failures == 0 ? 0 : static_cast<int>(ExitCode::kGuestFault);
}

}  // namespace

void addSweepCommand(CLI::App& root, Action& selected) {
  auto opt = std::make_shared<SweepOptions>();
  CLI::App* cmd = root.add_subcommand(
      "sweep", "Run a program over the cross product of parameter values, in parallel");
  addSessionOptions(*cmd, opt->session, kSweepSession);
  cmd->add_option("--set", opt->sets, "A parameter and its values: KEY=V1,V2,... (repeatable)")
      ->allow_extra_args(false)
      ->required();
  cmd->add_option("--jobs", opt->jobs, "Runs at a time (default: the host's cores)");
  cmd->add_flag("--json", opt->json, "Print the results as a JSON list");
  addSessionProgram(*cmd, opt->session, kSweepSession);
  cmd->callback([opt, &selected] { selected = [opt] { return run(*opt); }; });
}

}  // namespace hpm::tools
