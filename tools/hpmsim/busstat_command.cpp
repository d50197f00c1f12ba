// `hpmsim busstat`: the interconnect monitor from the host, in the spirit of Solaris busstat(1M)
// with seed 004's Fire Link events (docs/interconnect.md). It programs the monitor's counters
// with filter presets, samples them every interval of simulated cycles as a tool on the machine
// would, and, with --distribution, rotates the counters' type filters over the transaction types
// at every interval to estimate the run's transaction-type distribution (seed 004, Figure 3).
#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/json_text.h"
#include "node/machine.h"
#include "node/monitor.h"
#include "node/simulation.h"
#include "pmu/imon/events.h"
#include "pmu/imon/unit.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/lib/busstat_analysis.h"
#include "tools/hpmsim/lib/finite_range.h"
#include "tools/hpmsim/lib/imon_host.h"
#include "tools/hpmsim/lib/interconnect_tool.h"
#include "tools/hpmsim/lib/output.h"

namespace hpm::tools {
namespace {

struct BusstatOptions {
  SessionOptions run;
  std::vector<std::string> events;
  double interval_ms = 0;   // -I: simulated milliseconds (0: not given)
  u64 interval_cycles = 0;  // --interval-cycles (0: not given)
  bool distribution = false;
  bool fifo = false;
  std::string trace;
  bool json = false;
  std::string csv;
  std::string output;  // -o: the report's file ("": standard error)
};

constexpr u64 kDefaultRotation = 100000;  // cycles per filter setting in --distribution

const imon::Preset& presetNamed(const std::string& name, probe::Interconnect ic) {
  for (const imon::Preset& p : imon::presets(ic)) {
    if (p.name == name) return p;
  }
  fail(ExitCode::kUsage, "busstat: unknown event '{}' (hpmsim events --unit imon lists them)",
       name);
}

int run(const BusstatOptions& opt) {
  Session session = openSession(opt.run, "busstat", kToolSession);
  const RunOptions ro = toolRunOptions(session);
  MachineConfig& machine = session.machine;
  RunFiles& files = session.files;
  files.output(opt.csv, "--csv", !opt.csv.empty());
  files.output(opt.trace, "--trace", !opt.trace.empty());
  files.output(opt.output, "-o", !opt.output.empty());
  files.check();
  Simulation sim(machine, ro);
  ImonHost unit(sim, "busstat");
  const u64 asked =
      intervalOptionCycles(opt.interval_ms, opt.interval_cycles, machine.node.clock_mhz, "busstat");
  const u64 interval = asked != 0 ? asked : opt.distribution ? kDefaultRotation : 0;

  // What each counter counts: the presets asked for, or in --distribution one type each.
  std::vector<std::string> names = splitList(opt.events);
  if (opt.distribution && !names.empty()) {
    fail(ExitCode::kUsage, "busstat: --distribution sets the filters itself: give no -e");
  }
  if (!opt.distribution && names.empty()) {
    names = {"sfi_hstgrm_all_trans", "sfi_hstgm_cohrnt", "sfi_hstgrm_io", "ic_mem_write"};
    names.resize(std::min<std::size_t>(names.size(), unit.counters()));
  }
  if (names.size() > unit.counters()) {
    fail(ExitCode::kUsage,
         "busstat: {} events asked, the interconnect monitor has {} counters (imon.monitors = {} "
         "monitors of 2)",
         names.size(), unit.counters(), machine.imon.monitors);
  }
  const u64 all_snoops = (u64{1} << probe::kSnoopResults) - 1;
  auto filterOf = [&](u64 type_mask, u64 snoops) {
    imon::Filter f;
    f.types = type_mask;
    f.snoops = snoops;
    return f;
  };
  // The machine's namespace: type i of the rotation is global type ns.first + i.
  const probe::TransactionNamespace ns = probe::transactionNamespace(machine.node.interconnect);
  const u32 types = ns.size;
  // Round r: counter c watches type (r x counters + c) mod types.
  u64 round = 0;
  auto typeOf = [&](u32 counter) {
    return static_cast<u32>((round * unit.counters() + counter) % types);
  };
  u32 used = 0;
  if (opt.distribution) {
    used = std::min(unit.counters(), types);
    for (u32 c = 0; c < used; ++c)
      unit.program(c, filterOf(u64{1} << (ns.first + typeOf(c)), all_snoops), 0);
  } else {
    used = static_cast<u32>(names.size());
    for (u32 c = 0; c < used; ++c) {
      const imon::Preset& p = presetNamed(names[c], machine.node.interconnect);
      unit.program(c, filterOf(p.types, p.snoops), 0);
    }
  }
  u64 run_bits = 0;
  for (u32 c = 0; c < used; ++c) run_bits |= u64{1} << (c / imon::kCountersPerMonitor);
  unit.run(run_bits, 0);

  // --fifo / --trace: every used monitor's FIFO records what its counter 1 matches; each sample
  // takes what the FIFOs hold and learns how many records they lost meanwhile.
  const bool sample_fifos = opt.fifo || !opt.trace.empty();
  const u32 monitors_used = (used + imon::kCountersPerMonitor - 1) / imon::kCountersPerMonitor;
  if (sample_fifos) {
    if (opt.distribution)
      fail(ExitCode::kUsage, "busstat: --fifo and --trace go without --distribution");
    if (used < 2)
      fail(ExitCode::kUsage, "busstat: the FIFO records counter 1's matches: give two events");
    for (u32 m = 0; m < monitors_used; ++m) unit.enableFifo(m, 0);
  }
  // The records (busstat_analysis.h): the rotation's types, or the counters' totals.
  const BusstatRun header{.program = fmt::format("{}", fmt::join(opt.run.command, " ")),
                          .machine = machine.name,
                          .clock_mhz = machine.node.clock_mhz,
                          .clock_hz = machine.clockHz(),
                          .cycles = 0};
  DistributionRecords distribution{
      .run = header, .counters = used, .rotation = interval, .types = {}};
  for (u32 t = 0; t < types && opt.distribution; ++t) {
    const auto& info = probe::kTransactionTypeInfo[ns.first + t];
    distribution.types.push_back({.mnemonic = std::string(info.mnemonic),
                                  .name = std::string(info.name),
                                  .sampled = 0,
                                  .observed = 0,
                                  .exact = 0});
  }
  CountsRecords counted{.run = header,
                        .events = names,
                        .totals = std::vector<u64>(used),
                        .exact = {},
                        .fifo = std::nullopt};
  if (sample_fifos) counted.fifo.emplace();
  // Every output that grows with the intervals is written as they end (the text on stderr, the
  // CSV files, the JSON's intervals to a spool read back at the end): hpmsim's memory does not
  // grow with them, whatever -I is.
  std::optional<ResultFile> trace_file;
  if (!opt.trace.empty()) {
    trace_file.emplace(opt.trace);
    trace_file->write("cycle,monitor,address,type,snoop,source,id\n");
  }
  auto sampleFifos = [&](Cycle now) {
    for (u32 m = 0; m < monitors_used; ++m) {
      for (const probe::Transaction& t : unit.sampleFifo(m, now, counted.fifo->lost)) {
        ++counted.fifo->taken;
        if (!trace_file) continue;
        trace_file->write(
            fmt::format("{},{},{:#x},{},{},{},{}\n", t.cycle, m, t.address,
                        probe::kTransactionTypeInfo[static_cast<u32>(t.type)].mnemonic,
                        probe::kSnoopInfo[static_cast<u32>(t.snoop)].name, t.source, t.id));
      }
    }
  };

  std::optional<ResultFile> csv_file;
  if (!opt.csv.empty()) csv_file.emplace(opt.csv);
  ReportStream report(opt.output);
  // Without --distribution: busstat's layout, one line per monitor and interval, its two
  // counters' events and counts; the CSV a row per interval; the JSON's intervals.
  std::optional<JsonRowSpool> json_intervals;
  if (opt.json && !opt.distribution) json_intervals.emplace();
  u64 samples = 0;
  if (!opt.distribution) {
    if (!opt.json) report.write(intervalHeaderText(header));
    if (csv_file) csv_file->write(intervalHeaderCsv(names));
  }
  const auto intervalEnded = [&](Cycle cycle, const std::vector<u64>& counts) {
    for (u32 c = 0; c < used; ++c) counted.totals[c] += counts[c];
    if (!opt.json) report.write(intervalText(cycle, names, counts));
    if (csv_file) csv_file->write(intervalCsv(cycle, counts));
    if (json_intervals) json_intervals->add(intervalJson(cycle, names, counts));
  };
  Cycle last = 0;
  auto sample = [&](Cycle now) {
    std::vector<u64> counts(used);
    for (u32 c = 0; c < used; ++c) {
      counts[c] = unit.read(c, now);
      if (opt.distribution) {
        distribution.types[typeOf(c)].sampled += counts[c];
        distribution.types[typeOf(c)].observed += now - last;
      }
    }
    ++samples;
    if (!opt.distribution) intervalEnded(now, counts);
    if (sample_fifos) sampleFifos(now);
    last = now;
    if (opt.distribution) {
      ++round;
      for (u32 c = 0; c < used; ++c)
        unit.program(c, filterOf(u64{1} << (ns.first + typeOf(c)), all_snoops), now);
    } else {
      for (u32 c = 0; c < used; ++c) unit.clear(c, now);
    }
  };
  if (interval != 0) sim.setIntervalHook(interval, sample);

  runSessionProgram(sim, session);
  const Cycle end = sim.elapsedCycles();
  if (end > last || samples == 0) sample(std::max(end, last));  // the last, partial interval
  const Termination& term = sim.kernel().termination();

  // The simulator's count of what each filter matched over the run: the ground truth.
  const probe::TransactionCounts& truth = *sim.transactionTruth();
  nlohmann::json out;
  std::string text, csv;
  if (opt.distribution) {
    distribution.run.cycles = end;
    for (u32 t = 0; t < types; ++t) {
      distribution.types[t].exact =
          truth.count(u32{1} << (ns.first + t), static_cast<u32>(all_snoops));
    }
    const Distribution d = busstatDistribution(distribution);
    text = distributionText(d);
    csv = distributionCsv(d);
    out = distributionJson(d);
  } else {
    counted.run.cycles = end;
    for (u32 c = 0; c < used; ++c) {
      const imon::Preset& p = presetNamed(names[c], machine.node.interconnect);
      counted.exact.push_back(truth.count(p.types, p.snoops));
    }
    text = countsText(counted);
    out = countsJson(counted);
  }
  if (csv_file) {
    csv_file->write(csv);
    csv_file->commit();
  }
  if (trace_file) trace_file->commit();
  if (json_intervals) {
    json_intervals->print([&report](std::string_view t) { report.write(t); }, out, "intervals");
  } else if (opt.json) {
    report.write(jsonText(out, 2) + "\n");
  } else {
    report.write(text);
  }
  report.commit();
  return term.status;
}

}  // namespace

void addBusstatCommand(CLI::App& root, Action& selected) {
  auto opt = std::make_shared<BusstatOptions>();
  CLI::App* cmd = root.add_subcommand(
      "busstat",
      "Count interconnect transactions with the interconnect monitor (as Solaris busstat)");
  addSessionOptions(*cmd, opt->run, kToolSession);
  cmd->add_option("-e,--event", opt->events,
                  "Interconnect events, comma-separated (hpmsim events --unit imon), two per "
                  "monitor")
      ->allow_extra_args(false);
  cmd->add_option("-I,--interval-print", opt->interval_ms,
                  "Print the counts of every interval of MSECS simulated milliseconds, as perf's "
                  "-I (--distribution: rotate the filters so often, default every 100000 cycles)")
      ->check(positiveInterval(IntervalUnit::kMilliseconds));
  cmd->add_option("--interval-cycles,--interval", opt->interval_cycles, "As -I, in cycles")
      ->check(positiveInterval(IntervalUnit::kCycles));
  cmd->add_flag("--distribution", opt->distribution,
                "Rotate the counters over the transaction types and estimate the run's "
                "transaction-type distribution (seed 004, Figure 3)");
  cmd->add_option("--csv", opt->csv, "Also write the intervals or the distribution as CSV");
  cmd->add_flag("--fifo", opt->fifo,
                "Also sample each monitor's sequence FIFO (counter 1's matches) at every interval "
                "and report how much of the stream it saw");
  cmd->add_option("--trace", opt->trace,
                  "Sample the FIFOs as --fifo does and write the records taken as CSV");
  cmd->add_flag("--json", opt->json, "Print a JSON object instead of the table");
  addReportOutput(*cmd, opt->output);
  addSessionProgram(*cmd, opt->run, kToolSession);
  cmd->callback([opt, &selected] {
    placeOutputs(opt->run, {&opt->output, &opt->csv, &opt->trace});
    selected = [opt] { return run(*opt); };
  });
}

}  // namespace hpm::tools
