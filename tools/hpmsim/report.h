// hpmsim report: the files runs write (statistics JSON, profile CSVs, stat's JSON with its
// intervals, sweep JSON) made into one self-contained HTML page with charts, and into a Chrome
// trace event file (Perfetto, chrome://tracing). The page inlines Chart.js (Debian's
// libjs-chart.js, compiled in), the data and the drawing code (tools/hpmsim/report/).
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace hpm::tools {

// Every result is read with the types its fields must have: a field of another type is refused
// (hpm::Error, ExitCode::kIo) naming the file and the field's place (/timing/cores/0/cycles).
// The report's data, gathered from results; its JSON is what report/render.js draws:
//   runs      [{file, summary, config: [[key, value]], axes: {ipc, stalls, miss_pct}, cores,
//              stall_causes, l2, regions, region_spans, clock_mhz}] (axes: the charts' axis
//              titles, from the units of the statistics they draw)
//   profiles  [{file, interval, cores: [{core, cycle: [], series: {xu0_ipc: [], axu0_ipc: [],
//              lmq_full_share: [], sq_full_share: []}}]}]: each sample's values for the
//              interval ending at its cycle; where a core did not run, one entry of nulls
//              (a gap) an interval after its last sample before it. `interval` is inferred
//              (the greatest common divisor of the cycles: the samples' file does not state it).
//   functions [{file, causes, rows: [{name, instructions, cycles, stalls: {cause: cycles}}]}]
//   stats     [{file, command, machine, unit, cycles, seconds, exit_status, events, counts,
//              intervals: {ms: [], cycles: [], counts: {event: []}}, regions, region_spans}]
//   sweeps    [{file, parameters, regions, points: [{label, config, status, cycles,
//              instructions, speedup, regions: {name: cycles}, region_speedup}]}]
class Report {
 public:
  Report();

  // A result file, recognised by its contents (hpm::Error naming the file if it is none).
  void addFile(const std::string& path);
  // A result file's contents, `name` its file: recognised and added as addFile does.
  void addText(const std::string& text, const std::string& name);
  // Results already in memory; `name` says where they came from.
  void addRun(const nlohmann::json& stats, const std::string& name);
  void addStat(const nlohmann::json& stat, const std::string& name);
  void addSweep(const nlohmann::json& points, const std::string& name);
  void addProfileSamples(const std::string& csv, const std::string& name);
  void addProfileFunctions(const std::string& csv, const std::string& name);

  const nlohmann::json& data() const { return data_; }
  // The statistics addRun looked up, each as its path in the statistics JSON's "units" (a list's
  // elements as '*': timing.cores.*.l1d.misses), found or not: the tests hold each to a real
  // run's statistics, so that no chart reads a statistic that no model writes.
  const std::set<std::string>& statisticsRead() const { return statistics_read_; }
  // The page, titled `title`.
  std::string html(const std::string& title) const;
  // The Chrome trace: one process for the node, a counter track per core (IPC, queues full)
  // and per stat event, and each guest thread's regions as slices on its own track.
  nlohmann::json chromeTrace() const;

 private:
  nlohmann::json data_;
  std::set<std::string> statistics_read_;
};

}  // namespace hpm::tools
