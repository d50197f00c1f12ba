// How `hpmsim sweep` runs its points: each a child `hpmsim run` of this hpmsim (a process of its
// own, so that a point that crashes or exhausts the host fails alone), `--jobs` at a time, with
// the progress line, and what it reads of each (its exit status, what hpmsim said, its
// --stats-json). The pure parts (the child's arguments, the figures read from its statistics,
// the progress text, the marking of interrupted points) are tested without a child.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "tools/hpmsim/lib/session.h"
#include "tools/hpmsim/lib/sweep_result.h"

namespace hpm::tools {

// The sweep before it runs: every point of the axes' cross product (crossProduct's order), none
// run yet (status -1, no error, no figures).
SweepResult pendingSweep(std::vector<SweepAxis> axes);

// The command line of a point's child: `hpmsim` (this executable's path) run with the session's
// machine and mode, a --set per setting (pointSettings), --stats-json `stats_json`, the
// session's root and environment options, then -- and the program with its arguments. Each
// point thus runs as `hpmsim run` would, with run's defaults for all else (its host memory
// budget, one node unless the machine's network.shape says more).
std::vector<std::string> pointArguments(const std::string& hpmsim, const SessionOptions& session,
                                        const std::vector<std::string>& settings,
                                        const std::string& stats_json);

// The figures in a point's statistics (its --stats-json), read through their declarations
// (run_stats.h, node/node_stats.h): none if they have no cycles. Throws (nlohmann::json's
// exceptions) on statistics of another shape.
std::optional<PointFigures> pointFigures(const nlohmann::json& stats);

// What hpmsim said in a point's output (its stdout and stderr, the guest's output mixed in): its
// first line that starts "hpmsim", else the last line that is not empty, else "".
std::string hpmsimSaid(std::istream& output);

// Runs `point` as a child `hpmsim run` (`hpmsim` the executable, pointArguments), its output and
// statistics in files of `dir` named by `index`, and sets its status, its error and its figures.
// Waits by polling, so that an interrupt of the sweep reaches the point still running: it is
// forwarded once as SIGTERM (a point that had a terminal's SIGINT too takes each signal once),
// and the point stops and writes what it has, as `hpmsim run` does. A point fails with its
// status and what hpmsim said (or "exit status N") when its program failed, its figures kept;
// with what hpmsim said (or "no statistics (status N)") when it wrote no statistics.
void runPoint(const std::string& hpmsim, const SessionOptions& session,
              const std::vector<SweepAxis>& axes, SweepPoint& point,
              const std::filesystem::path& dir, std::size_t index);

// The progress line of a sweep of `total` points when `done` have finished, the last `done_at`
// seconds after the start, and it is `now` seconds after it: the points done, the host seconds
// and, once a point has finished, the estimate of the time left (progress.h's secondsLeft).
std::string sweepProgress(std::size_t total, std::size_t done, double done_at, double now);

// After an interrupt, the points it stopped have partial figures and the later ones none:
// neither is a result of the configuration. A point not run fails "not run (interrupted)"; one
// stopped by SIGINT or SIGTERM (status 130 or 143) with figures fails "interrupted at cycle C",
// its figures dropped; the points that had finished keep theirs.
void markInterrupted(std::vector<SweepPoint>& points);

// Runs every point of `sweep` (pendingSweep's), `jobs` at a time (0: the host's cores), in
// temporary files removed at the end, with the progress line (sweepProgress) unless
// session.quiet or stderr is not a terminal. After Ctrl-C (interrupt.h) it starts no more
// points, waits for the running ones and marks them (markInterrupted); returns the signal then,
// else 0. Fails (ExitCode::kIo) when it cannot make its temporary folder.
int runSweep(const SessionOptions& session, SweepResult& sweep, unsigned jobs);

}  // namespace hpm::tools
