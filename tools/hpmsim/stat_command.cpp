// `hpmsim stat`: counts events with the machine's counter unit, programmed from the host for the
// whole run, and prints them as perf stat does (with derived ratios): perf's options with perf's
// meaning where they have one here (-e lists and {groups}, -I in simulated milliseconds with the
// last partial interval, -x SEP in perf's CSV field order, -r N with the variance column, -A,
// -a, --no-big-num, -o, --json), and more events than the counters multiplexed with perf's
// running column. What the names count is stat_events.h's; the multiplexing node/host_mux.h's.
#include <fmt/core.h>

#include <csignal>
#include <memory>

#include "base/error.h"
#include "base/json_text.h"
#include "node/machine.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/interrupt.h"
#include "tools/hpmsim/lib/finite_range.h"
#include "tools/hpmsim/lib/nodes_run.h"
#include "tools/hpmsim/lib/output.h"
#include "tools/hpmsim/lib/session.h"
#include "tools/hpmsim/lib/stat_measure.h"
#include "tools/hpmsim/lib/stat_output.h"
#include "tools/hpmsim/mpi_hosts.h"
#include "tools/hpmsim/report.h"

namespace hpm::tools {
namespace {

// stat counts in the modes that have the counter units, on one node or many.
constexpr SessionSpec kStatSession{
    .modes = "warmup, timing or profile",
    .runs = kModesWithUnits,
    .modes_why = "",
    .overrides = true,
    .host_memory = true,
    .nodes = true,
    .nodes_what = " and count on every node: the counts summed, then each node's (N0, N1, ...)",
    .output_dir = true};

int run(const StatOptions& opt) {
  if (opt.repeat == 0) fail(ExitCode::kUsage, "stat: -r 0: at least one run");
  if (opt.repeat > 1 && (opt.interval != 0 || opt.interval_ms != 0 || opt.per_region)) {
    fail(ExitCode::kUsage, "stat: -r counts whole runs: it goes without -I and --per-region");
  }
  // Known defect: a hardware thread's idle cycles (a wait, or the time before its first
  // thread) reach the units as one level interval when it next runs, and one that starts
  // before an earlier reading is moved after it (same length: totals stay exact). An interval
  // reading between thus moves cycles into later regions (amg 12 1, 2 threads on bgq, -e
  // cycles: region 1 reads 1,143,856 cycles alone and 1,715,856 with --interval-cycles
  // 1000000, whose first reading came before the second thread's first instruction). Totals
  // are exact together (they were not while the layout was read with readHost).
  if ((opt.interval != 0 || opt.interval_ms != 0) && opt.per_region) {
    fail(ExitCode::kUsage,
         "stat: -I and --per-region do not go together yet (an interval's reading moves a "
         "waiting hardware thread's cycles into later regions); use one per run");
  }
  Session session = openSession(opt.session, "stat", kStatSession);
  const MachineConfig& machine = session.machine;
  refuseWithManyNodes(session, {{opt.interval != 0 || opt.interval_ms != 0, "-I"},
                                {opt.per_region, "--per-region"},
                                {opt.per_thread, "--per-thread"},
                                {opt.per_core, "--per-core"},
                                {!opt.report.empty(), "--report"},
                                {!opt.trace.empty(), "--trace"}});
  RunFiles& files = session.files;
  files.output(opt.output, "-o", !opt.output.empty());
  files.output(opt.report, "--report", !opt.report.empty());
  files.output(opt.trace, "--trace", !opt.trace.empty());
  files.check();
  // -I MSECS: simulated milliseconds at the machine's clock.
  const u64 interval =
      intervalOptionCycles(opt.interval_ms, opt.interval, machine.node.clock_mhz, "stat");
  // (The multiplexing slice is taken only if the events need it; its value is checked here,
  // before the run, all the same.)
  intervalCycles(opt.mux_interval_ms, machine.node.clock_mhz, "stat: --mux-interval-ms");
  std::signal(SIGPIPE, SIG_IGN);

  // -r N: N runs; the report gives each request's mean and the relative standard deviation of
  // the mean. Many nodes over host processes (mpirun): joined once for every run; host 0
  // reports. (The guest's environment is taken before: Open MPI's start adds to the process's.)
  const std::unique_ptr<net::HostLink> hosts =
      session.many_nodes ? joinHosts(session.nodes, pendingInterrupt) : nullptr;
  const std::vector<std::string> envp = hostZeroEnvironment(hosts.get(), session.envp);
  StatOutput output(opt, interval, !hosts || hosts->host() == 0);
  const StatResult result =
      measureStatRuns(opt, session, interval, hosts.get(), envp, output.intervals());
  const int status = result.last().status;
  if (hosts && hosts->host() != 0) return status;
  output.finish(result);
  if (!opt.report.empty() || !opt.trace.empty()) {
    Report report;
    report.addStat(statJson(result), fmt::format("hpmsim stat of {}", opt.session.command[0]));
    if (!opt.report.empty()) writeTextFile(opt.report, report.html("hpmsim stat"));
    if (!opt.trace.empty()) writeTextFile(opt.trace, jsonText(report.chromeTrace()) + "\n");
  }
  return status;
}

}  // namespace

void addStatCommand(CLI::App& root, Action& selected) {
  auto opt = std::make_shared<StatOptions>();
  CLI::App* cmd = root.add_subcommand(
      "stat", "Count events with the machine's counter unit over a run (as perf stat)");
  addSessionOptions(*cmd, opt->session, kStatSession);
  cmd->add_option("-e,--event", opt->events,
                  "Events to count, comma-separated: perf names (instructions, cycles, "
                  "cache-misses, ...), generic events (L1dMisses) or native events")
      ->allow_extra_args(false);
  cmd->add_option("--cores", opt->cores,
                  "Count generic events on these cores only (UPC-P: 0,1 or 2,3 fit together; "
                  "its default events count cores 0,1)")
      ->delimiter(',');
  cmd->add_option("-I,--interval-print", opt->interval_ms,
                  "Also print the counts of every interval of MSECS simulated milliseconds, the "
                  "last partial one included (as perf stat -I)")
      ->check(positiveInterval(IntervalUnit::kMilliseconds));
  cmd->add_option("--interval-cycles,--interval", opt->interval,
                  "As -I, with the interval in cycles")
      ->check(positiveInterval(IntervalUnit::kCycles));
  cmd->add_option("-x,--field-separator", opt->separator,
                  "CSV output with this separator, in perf stat -x's field order: value, unit, "
                  "event, [variance,] run time (ns), percent running, metric value, metric unit");
  cmd->add_option("-r,--repeat", opt->repeat,
                  "Run the program N times and print each event's mean with the relative "
                  "standard deviation of the mean (simulated runs differ only where the program "
                  "varies)")
      ->check(positiveWhole("runs", ~u32{0}));
  cmd->add_flag("--no-big-num", opt->no_big_num, "Counts without thousands separators");
  cmd->add_option("--mux-interval-ms", opt->mux_interval_ms,
                  "When the events need more counters than the units have, their sets take "
                  "turns in slices of this many simulated milliseconds (Linux's default "
                  "perf_event_mux_interval_ms), and each count is scaled by the run's time over "
                  "its set's, with perf's (xx.xx%) column")
      ->capture_default_str()
      ->check(positiveInterval(IntervalUnit::kMilliseconds));
  cmd->add_flag("-d,--detailed", opt->detailed,
                "Also perf's detailed events: L1 data and last-level loads and misses; -dd adds "
                "the L1 instruction cache's and the TLBs', -ddd the L1's prefetches");
  cmd->add_flag("-a,--all-cpus", opt->all_cpus,
                "System wide, as perf's -a: cycles (cpu-cycles, ref-cycles) count every hardware "
                "thread's clock, idle ones included, not only the cycles the program's threads "
                "ran (the other events count the whole node either way)");
  cmd->add_flag("--per-region", opt->per_region,
                "Also count between the guest's region markers (node-wide counts, read at the "
                "markers as software would: UPC-Q readings lag by up to the sweep period)");
  cmd->add_flag("--per-thread", opt->per_thread,
                "Also each guest thread's counts: those of the hardware threads it ran on "
                "(threads that shared one are counted together)");
  cmd->add_flag("--per-core", opt->per_core,
                "Also print each core's counts (as perf stat --per-core; node-wide events, such "
                "as the L2's, have no core and are left out)");
  cmd->add_flag("-A,--no-aggr", opt->no_aggr,
                "Also print every counter apart: each core's unit, each L2 slice (sliced events)");
  cmd->add_flag("--json", opt->json, "An object whose key `counts` maps each event to its count");
  cmd->add_option("-o,--output", opt->output, "Write the report to FILE instead of stderr");
  cmd->add_option("--report", opt->report,
                  "Also write an HTML report with charts of the counts, intervals and regions");
  cmd->add_option("--trace", opt->trace,
                  "Also write the interval counts and regions as a Chrome trace (Perfetto)");
  addSessionProgram(*cmd, opt->session, kStatSession);
  cmd->callback([opt, &selected] {
    placeOutputs(opt->session,
                 {&opt->output, &opt->report, &opt->trace, &opt->session.node_output});
    selected = [opt] { return run(*opt); };
  });
}

}  // namespace hpm::tools
