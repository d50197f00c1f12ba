// `hpmsim stat`: counts events with the machine's counter unit, programmed from the host for the
// whole run, and prints them as perf stat does (with derived ratios): perf's options with perf's
// meaning where they have one here (-e lists and {groups}, -I in simulated milliseconds with the
// last partial interval, -x SEP in perf's CSV field order, -r N with the variance column, -A,
// -a, --no-big-num, -o, --json), and more events than the counters multiplexed with perf's
// running column. What the names count is stat_events.h's; the multiplexing node/host_mux.h's.
#include <fmt/core.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "base/error.h"
#include "base/json_text.h"
#include "base/wire.h"
#include "cluster/cluster.h"
#include "node/host_mux.h"
#include "node/machine.h"
#include "node/monitor.h"
#include "node/run_modes.h"
#include "node/simulation.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/finite_range.h"
#include "tools/hpmsim/guest_env.h"
#include "tools/hpmsim/host_memory.h"
#include "tools/hpmsim/interrupt.h"
#include "tools/hpmsim/mpi_hosts.h"
#include "tools/hpmsim/nodes_run.h"
#include "tools/hpmsim/output.h"
#include "tools/hpmsim/program_path.h"
#include "tools/hpmsim/progress.h"
#include "tools/hpmsim/report.h"
#include "tools/hpmsim/stat_events.h"

namespace hpm::tools {
namespace {

struct StatOptions {
  std::string machine = "bgq";
  std::string mode = "timing";
  std::vector<std::string> overrides;
  std::vector<std::string> events;
  std::vector<u32> cores;   // restrict generic events to these cores (empty: all)
  u64 interval = 0;         // --interval-cycles
  double interval_ms = 0;   // -I: simulated milliseconds
  std::string separator;    // -x: perf's CSV output with this separator
  bool no_big_num = false;  // --no-big-num: no thousands separators
  bool all_cpus = false;    // -a: the whole node (the default; accepted as perf's)
  int detailed = 0;         // -d, -dd, -ddd: perf's detailed events after the others
  u32 repeat = 1;           // -r
  bool json = false;
  bool per_region = false;
  bool no_aggr = false;        // -A: every counter of every unit instance (and L2 slice) apart
  bool per_core = false;       // --per-core: each request's count per core
  bool quiet = false;          // --quiet: no progress line
  u64 host_memory = 0;         // --host-memory MIB (0: what the host has available)
  bool per_thread = false;     // --per-thread: counts of each guest thread's hardware threads
  double mux_interval_ms = 4;  // --mux-interval-ms: multiplexing's time slice (perf's default)
  std::string root = ".";
  std::string output;
  std::string report;       // --report: an HTML report of the results (report.h)
  std::string trace;        // --trace: their timelines as a Chrome trace
  u32 nodes = 0;            // --nodes: 0 = as network.shape says (1 unless set)
  std::string node_output;  // --node-output DIR
  GuestEnvOptions env;
  std::vector<std::string> command;
};

// A derived ratio perf stat prints beside an event ("#  1.23 insn per cycle").
struct Metric {
  double value = 0;
  std::string unit;
  bool percent = false;
};

// One interval's reading: its end and the cumulative count of each request by then.
struct IntervalRow {
  Cycle cycle = 0;
  double seconds = 0;
  std::map<std::string, u64> cumulative;
};

// Where each -I interval goes as it ends (printed, or spooled for the JSON), with the run's
// requests: so that hpmsim's memory does not grow with the intervals.
using IntervalSink = std::function<void(const std::vector<Request>&, const IntervalRow&)>;

// The intervals the report and the trace draw, at most kKeptIntervals: past that every other
// row is dropped, and from then on only every stride-th is kept (rows are cumulative, so a kept
// row's counts are those of the intervals it now spans: coarser, still exact).
struct KeptIntervals {
  static constexpr std::size_t kKeptIntervals = 4096;
  std::vector<IntervalRow> rows;
  u64 stride = 1, seen = 0;
  void add(const IntervalRow& row) {
    if (++seen % stride != 0) return;
    rows.push_back(row);
    if (rows.size() < kKeptIntervals) return;
    std::vector<IntervalRow> half;
    for (std::size_t i = 1; i < rows.size(); i += 2) half.push_back(std::move(rows[i]));
    rows = std::move(half);
    stride *= 2;
  }
};

// One run's results.
struct Measured {
  std::vector<Request> requests;
  std::vector<u32> cores;  // the cores counted (empty: all)
  std::string unit_name, unit_title;
  std::map<std::string, u64> counts;                   // by request (not the unsupported ones)
  std::map<u32, std::map<std::string, u64>> per_core;  // by core, by request (per-core units)
  std::vector<std::map<std::string, u64>> per_node;    // many nodes: by node, by request
  std::vector<ThreadGroup> per_thread;                 // --per-thread (stat_events.h)
  std::vector<ProgrammedCounter> counters;
  std::vector<IntervalRow> intervals;  // -I: those the report draws (KeptIntervals), in order
  std::map<u32, std::map<std::string, u64>> regions;  // by region id, by request
  std::map<u32, std::string> region_names;
  std::vector<RegionSpan> region_spans;  // each thread's stays in regions (--per-region)
  Cycle end = 0;
  double seconds = 0;
  double host_seconds = 0;
  u64 instructions = 0;
  int status = 0;
  // Multiplexing (more events than counters): the sets that took turns, the switches, and each
  // multiplexed request's share of the run its set counted (absent: 100 %, counted throughout);
  // a request whose set never counted has no count.
  std::size_t mux_sets = 1;
  u64 mux_switches = 0;
  std::map<std::string, double> pcnt_running;
};

// A node's counts and counters, carried to host 0 when the nodes are spread over host
// processes (cluster/cluster.h's node results).
std::string nodeCounts(const std::map<std::string, u64>& counts,
                       const std::vector<ProgrammedCounter>& counters) {
  wire::Writer w;
  w.put(u64{counts.size()});
  for (const auto& [name, value] : counts) {
    w.bytes(name);
    w.put(value);
  }
  w.put(u64{counters.size()});
  for (const ProgrammedCounter& c : counters) {
    w.bytes(c.event);
    w.bytes(c.device);
    w.put(c.core);
    w.put(c.port);
    w.bytes(c.port_name);
    w.put(c.counter);
    w.put(c.value);
  }
  return w.take();
}

// Reads nodeCounts' bytes; a counter's port name is taken from `names` (the unit families'
// own strings, which every node's counters point to).
void readNodeCounts(std::string_view bytes, const std::vector<std::string_view>& names,
                    std::map<std::string, u64>& counts, std::vector<ProgrammedCounter>& counters) {
  wire::Reader r(bytes);
  for (u64 n = r.get<u64>(); n > 0; --n) {
    const std::string name(r.bytes());
    counts[name] = r.get<u64>();
  }
  counters.resize(r.get<u64>());
  for (ProgrammedCounter& c : counters) {
    c.event = r.bytes();
    c.device = r.bytes();
    c.core = r.get<i32>();
    c.port = r.get<i32>();
    const std::string_view port_name = r.bytes();
    const auto it = std::find(names.begin(), names.end(), port_name);
    c.port_name = it != names.end() ? *it : std::string_view{};
    c.counter = r.get<u32>();
    c.value = r.get<u64>();
  }
}

// A line of perf stat -x SEP: value, unit, event, [variance,] run time (ns), percent running,
// metric value, metric unit; `prefix` first (-I: the interval's end, in seconds, and SEP).
std::string perfCsvLine(const std::string& sep, const std::string& prefix, const std::string& value,
                        const std::string& name, const std::optional<double>& variance,
                        const std::optional<Metric>& derived, u64 runtime_ns, double pcnt = 100) {
  std::string l = prefix + value + sep + sep + name;
  if (variance) l += sep + fmt::format("{:.2f}%", *variance);
  l += sep + std::to_string(static_cast<u64>(static_cast<double>(runtime_ns) * pcnt / 100 + 0.5)) +
       sep + fmt::format("{:.2f}", pcnt) + sep;
  if (derived) {
    l += fmt::format("{:.2f}", derived->value) + sep + (derived->percent ? "% " : "") +
         derived->unit;
  } else {
    l += sep;
  }
  return l + "\n";
}

Measured measure(const StatOptions& opt, const MachineConfig& machine, RunMode mode, u64 interval,
                 bool many_nodes, net::HostLink* hosts, const std::vector<std::string>& envp,
                 const IntervalSink& sink) {
  RunOptions ro;
  ro.mode = mode;
  ro.root = opt.root;
  // Many nodes: every node's units are programmed alike and read at the node's own end; the
  // counts are each node's and their sum (the first node's monitor names the events).
  std::unique_ptr<net::Cluster> cluster;
  std::unique_ptr<Simulation> single;
  HostMemoryBudget budget(opt.host_memory);
  if (many_nodes) {
    net::ClusterOptions co;
    co.on_built = [&budget](u32 built, u32 total) { budget.checkNodes(built, total); };
    co.limit = budget.limit();
    if (!opt.node_output.empty()) {
      co.output = net::ClusterOptions::Output::kFiles;
      co.output_dir = opt.node_output;
    }
    co.hosts = hosts;
    std::fflush(stdout);
    cluster = std::make_unique<net::Cluster>(machine, ro, co);
    budget.describeGuests([&cluster] { return guestsMemoryText(*cluster); });
  } else {
    single = std::make_unique<Simulation>(machine, ro);
    single->kernel().setLimitSource(budget.limit());
    budget.describeGuests([&single] { return guestMemoryText(single->kernel()); });
  }
  // (Many nodes: a node of this host's, programmed as every node is.)
  Simulation& sim = cluster ? cluster->node(cluster->localNodes().first) : *single;
  Monitor* monitor = sim.monitor();
  if (monitor == nullptr)
    fail(ExitCode::kUsage, "stat: machine {} has no counter unit", machine.name);
  Measured m;
  const UnitFamily* family = monitor->family();
  m.unit_name = family ? family->name : kNoUnitFamily;
  m.unit_title = family ? family->title : "interconnect monitor";

  std::vector<u32>& cores = m.cores;
  cores = opt.cores;
  for (const u32 core : cores) {
    if (core >= machine.node.cores) {
      fail(ExitCode::kUsage, "stat: --cores {}: machine {} has cores 0 to {}", core, machine.name,
           machine.node.cores - 1);
    }
  }
  std::vector<std::pair<std::string, int>> names = parseEvents(opt.events);
  if (names.empty()) {
    for (const char* n : {"instructions", "cycles", "branches", "branch-misses", "cache-references",
                          "cache-misses"}) {
      names.emplace_back(n, 0);
    }
    // Without a counter unit (sunfire) the node's monitors are its companions': the
    // interconnect monitor's all-transactions and coherent-transactions events.
    if (family == nullptr) names = {{"sfi_hstgrm_all_trans", 0}, {"sfi_hstgm_cohrnt", 0}};
    // perf stat's defaults always work. On UPC-P one run counts one pair of cores (a counter
    // serves the same event of cores 0 and 2), so the defaults count cores 0 and 1, where a
    // program's first threads run; the header says so.
    const u32 default_cores = family ? family->stat_default_cores : 0;
    if (default_cores != 0 && cores.empty()) {
      for (u32 core = 0; core < std::min(default_cores, machine.node.cores); ++core) {
        cores.push_back(core);
      }
    }
  }
  // perf stat's -d, -dd and -ddd: its detailed events, each level adding to the one before,
  // after the events asked for (or the defaults). Those with no model here print as perf prints
  // what a machine cannot count.
  static constexpr std::string_view kDetailed[3][6] = {
      {"L1-dcache-loads", "L1-dcache-load-misses", "LLC-loads", "LLC-load-misses"},
      {"L1-icache-loads", "L1-icache-load-misses", "dTLB-loads", "dTLB-load-misses", "iTLB-loads",
       "iTLB-load-misses"},
      {"L1-dcache-prefetches", "L1-dcache-prefetch-misses"}};
  for (int level = 0; level < std::min(opt.detailed, 3); ++level) {
    for (const std::string_view n : kDetailed[level]) {
      const bool asked = std::any_of(names.begin(), names.end(),
                                     [n](const auto& name) { return name.first == n; });
      if (!n.empty() && !asked) names.emplace_back(std::string(n), 0);
    }
  }
  std::vector<const NativeEvent*> natives;
  for (const auto& [name, group] : names) {
    Request r{name, {}, {}, group};
    if (const NativeEvent* e = monitor->find(name)) {
      r.natives = {e};
      r.signs = {1};
    } else if (const NativeEvent* raw = rawEvent(*monitor, name)) {
      r.natives = {raw};
      r.signs = {1};
    } else if (softwareEvent(name)) {
      r.source = Request::Source::kSoftware;
    } else {
      for (const Monitor::Term& t : monitor->expandTerms(name)) {
        // Native events of one core on a node-wide unit (UPC-P's "PU<k>_..."): with --cores,
        // keep the chosen cores' and the node-wide ones.
        if (!cores.empty() && t.event->core >= 0 &&
            std::find(cores.begin(), cores.end(), static_cast<u32>(t.event->core)) == cores.end()) {
          continue;
        }
        r.natives.push_back(t.event);
        r.signs.push_back(t.sign);
      }
    }
    if (r.natives.empty() && r.source == Request::Source::kUnit && unsupportedPerfEvent(name)) {
      r.source = Request::Source::kUnsupported;
    }
    // An event whose model runs in other modes than this one (a pipeline event in the warm-up
    // mode) is <not supported> here, as perf says of an event its PMU cannot count, never a
    // silent 0; an event that never counts is still counted (docs/events.md: it reads 0).
    const auto elsewhere = [&](const NativeEvent* e) {
      return e->run_modes != 0 && (e->run_modes & runModeBit(mode)) == 0;
    };
    if (std::any_of(r.natives.begin(), r.natives.end(), elsewhere)) {
      const NativeEvent* e = *std::find_if(r.natives.begin(), r.natives.end(), elsewhere);
      std::string modes = runModesText(e->run_modes);  // "timing profile" -> "timing and profile"
      if (const auto last = modes.rfind(' '); last != std::string::npos) {
        modes.replace(last, 1, " and ");
        for (auto at = modes.find(' '); at < last; at = modes.find(' ', at + 2)) {
          modes.replace(at, 1, ", ");
        }
      }
      fmt::print(stderr,
                 "hpmsim stat: {} counts in the {} modes only: <not supported> in the {} "
                 "mode\n",
                 e->name == name ? name : fmt::format("{} ({})", name, e->name), modes,
                 runModeName(mode));
      r.natives.clear();
      r.signs.clear();
      r.source = Request::Source::kUnsupported;
    }
    if (r.natives.empty() && r.source == Request::Source::kUnit) {
      fail(ExitCode::kUsage,
           "stat: unknown event '{}' (a native event of `hpmsim events --machine {}`, a generic "
           "event such as L1dMisses, a perf name such as instructions, or rHEX, a native "
           "event's number)",
           name, machine.name);
    }
    if (opt.per_thread) splitPerThread(r, *monitor, machine.node.threads_per_core);
    for (const NativeEvent* e : r.natives) {
      if (std::find(natives.begin(), natives.end(), e) == natives.end()) natives.push_back(e);
    }
    m.requests.push_back(std::move(r));
  }
  const std::vector<Request>& requests = m.requests;
  // Whatever does not fit the units at once is multiplexed (node/host_mux.h): requests, and groups,
  // each counted whole in one set, the sets made in the order asked.
  std::optional<Multiplexer> mux;
  if (const auto why = monitor->hostFits(natives)) {
    std::vector<std::vector<const NativeEvent*>> sets =
        multiplexedSets(*monitor, requests, !cores.empty());
    if (opt.interval != 0 || opt.interval_ms != 0 || opt.per_region) {
      fail(ExitCode::kUsage,
           "stat: the events need {} sets of counters, multiplexed in time slices; -I and "
           "--per-region read the counters between, so they go only with events that fit at "
           "once ({})",
           sets.size(), *why);
    }
    if (cluster) {
      fail(ExitCode::kUsage,
           "stat: the events need {} sets of counters, multiplexed in time slices, which many "
           "nodes do not do yet: count fewer events at once ({})",
           sets.size(), *why);
    }
    const Cycle slice =
        intervalCycles(opt.mux_interval_ms, machine.node.clock_mhz, "stat: --mux-interval-ms");
    if (slice <= 2 * monitor->hostSettleCycles()) {
      fail(ExitCode::kUsage,
           "stat: --mux-interval-ms {} is {} cycles: a slice must last more than twice the "
           "units' settling time after a stop ({} cycles)",
           opt.mux_interval_ms, slice, monitor->hostSettleCycles());
    }
    mux.emplace(sim, std::move(sets), slice);
    m.mux_sets = mux->sets();
  } else if (cluster) {
    for (u32 n = cluster->localNodes().first; n < cluster->localNodes().last; ++n) {
      cluster->node(n).monitor()->programHost(natives);
    }
  } else {
    monitor->programHost(natives);
  }

  // A per-core unit (UPC-Q's PUnit) counts its core's events, programmed on every core:
  // --cores keeps the chosen cores' units. UPC-P keeps them by choosing native events.
  auto counted = [&cores](const ProgrammedCounter& c) {
    if (cores.empty() || c.core < 0) return true;
    return std::find(cores.begin(), cores.end(), static_cast<u32>(c.core)) != cores.end();
  };
  // Counts per request, summed over the native events and unit instances counting it.
  auto byRequest = [&](const std::vector<ProgrammedCounter>& layout,
                       const std::vector<u64>* values) {
    std::map<std::string, u64> by_event;
    for (std::size_t i = 0; i < layout.size(); ++i) {
      if (!counted(layout[i])) continue;
      by_event[layout[i].event] += values ? (*values)[i] : layout[i].value;
    }
    std::map<std::string, u64> out;
    for (const Request& r : requests) {
      i64 sum = 0;
      for (std::size_t i = 0; i < r.natives.size(); ++i) {
        auto it = by_event.find(r.natives[i]->name);
        if (it != by_event.end()) sum += r.signs[i] * static_cast<i64>(it->second);
      }
      // A difference read while the unit's readings lag (UPC-Q's sweep) may dip below zero.
      out[r.name] = sum > 0 ? static_cast<u64>(sum) : 0;
    }
    return out;
  };

  // The counters' identities, in sampleHost's order. (Without any access to a unit: a read
  // at the end of the levels given so far, readHost's, moved the units' clocks ahead of the
  // run, and the inputs that came later were shifted past it.)
  const std::vector<ProgrammedCounter> layout =
      interval != 0 || opt.per_region ? monitor->hostLayout() : std::vector<ProgrammedCounter>{};
  KeptIntervals kept;
  Cycle last_interval = 0;
  const auto intervalEnded = [&](IntervalRow row) {
    row.seconds = static_cast<double>(sim.kernel().nanosAt(row.cycle)) / 1e9;
    last_interval = row.cycle;
    if (sink) sink(m.requests, row);
    kept.add(row);
  };
  if (interval != 0) {
    sim.setIntervalHook(interval, [&](Cycle now) {
      const std::vector<u64> values = monitor->sampleHost(now);
      intervalEnded({now, 0, byRequest(layout, &values)});
    });
  }
  // Per-region counts: the counters' values at each marker, differences summed per region.
  std::map<u32, std::vector<u64>> region_open;
  if (opt.per_region) {
    sim.setRegionHook([&](u32 id, bool begin, Cycle now) {
      const std::vector<u64> values = monitor->sampleHost(now);
      if (begin) {
        region_open[id] = values;
        return;
      }
      auto it = region_open.find(id);
      if (it == region_open.end()) return;
      std::vector<u64> delta(values.size());
      for (std::size_t i = 0; i < values.size(); ++i) delta[i] = values[i] - it->second[i];
      for (const auto& [name, n] : byRequest(layout, &delta)) m.regions[id][name] += n;
      region_open.erase(it);
    });
  }

  std::vector<std::string> command = opt.command;
  command[0] = resolveProgram(opt.command[0]);
  const auto start = std::chrono::steady_clock::now();
  // Many nodes: each node's counters read at its own end, named by node, on its host; the
  // counts are their sums (on host 0).
  std::vector<std::string_view> port_names;  // (the unit families' strings: see readNodeCounts)
  const auto readNode = [&](u32 n) {
    Simulation& node = cluster->node(n);
    std::vector<ProgrammedCounter> counters = node.monitor()->readHost(node.elapsedCycles());
    if (port_names.empty()) {
      for (const ProgrammedCounter& c : counters) port_names.push_back(c.port_name);
    }
    std::map<std::string, u64> counts = byRequest(counters, nullptr);
    const u64 cpu_nanos = node.kernel().nanosAt(node.kernel().processCpuCycles());
    for (const Request& r : requests) {
      if (r.source == Request::Source::kSoftware) {
        counts[r.name] = r.name.ends_with("clock") ? cpu_nanos : node.kernel().stats().migrations;
      } else if (r.source == Request::Source::kUnsupported) {
        counts.erase(r.name);
      }
    }
    return nodeCounts(counts, counters);
  };
  if (cluster) {
    cluster->exec(command[0], command, envp);
    cluster->run(pendingInterrupt, readNode);
  } else {
    sim.kernel().setInterruptSource(pendingInterrupt);
    sim.exec(command[0], opt.command, envp);
    ProgressLine progress(!opt.quiet);
    sim.run(progress.follow(sim));
  }
  m.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  m.status = cluster ? cluster->exitStatus() : 0;
  if (cluster && !cluster->writesResults()) return m;  // (host 0 has every node's counts)
  m.end = cluster ? cluster->elapsedCycles() : sim.elapsedCycles();
  if (cluster) {
    for (u32 n = 0; n < cluster->nodes(); ++n) {
      std::map<std::string, u64> counts;
      std::vector<ProgrammedCounter> counters;
      readNodeCounts(cluster->nodeResult(n), port_names, counts, counters);
      for (const Request& r : requests) {
        if (counts.contains(r.name)) m.counts[r.name] += counts.at(r.name);
      }
      m.per_node.push_back(std::move(counts));
      for (ProgrammedCounter& c : counters) {
        c.device = fmt::format("node {} {}", n, c.device);
        m.counters.push_back(std::move(c));
      }
    }
    m.seconds = static_cast<double>(sim.kernel().nanosAt(m.end)) / 1e9;
    m.instructions = cluster->retiredInstructions();
    m.status = cluster->exitStatus();
    std::fflush(stdout);
    fmt::print(stderr, "{}", cluster->reports());
    return m;
  }
  if (mux) {
    // perf's estimate: each counter's count scaled by the run's time over its set's.
    mux->finish(m.end);
    m.mux_switches = mux->switches();
    m.counters = mux->counters();
    for (ProgrammedCounter& c : m.counters) {
      const Cycle running = mux->running(c.event);
      c.value =
          running == 0
              ? 0
              : static_cast<u64>(
                    static_cast<double>(c.value) * static_cast<double>(m.end) / running + 0.5);
    }
    for (const Request& r : requests) {
      if (r.source != Request::Source::kUnit) continue;
      Cycle running = 0;
      for (const NativeEvent* e : r.natives) running = std::max(running, mux->running(e->name));
      m.pcnt_running[r.name] =
          m.end == 0 ? 0 : 100.0 * static_cast<double>(running) / static_cast<double>(m.end);
    }
  } else {
    m.counters = monitor->readHost(m.end);
  }
  m.counts = byRequest(m.counters, nullptr);
  for (const auto& [name, pcnt] : m.pcnt_running) {
    if (pcnt == 0) m.counts.erase(name);  // <not counted>: its set never had a turn
  }
  // Software events: the kernel's figures.
  const u64 cpu_nanos = sim.kernel().nanosAt(sim.kernel().processCpuCycles());
  for (const Request& r : requests) {
    if (r.source == Request::Source::kSoftware) {
      m.counts[r.name] = r.name.ends_with("clock") ? cpu_nanos : sim.kernel().stats().migrations;
    } else if (r.source == Request::Source::kUnsupported) {
      m.counts.erase(r.name);
    }
  }
  // --per-core: each counter's core (its unit's, or its native event's on a node-wide unit).
  if (opt.per_core) {
    for (const ProgrammedCounter& c : m.counters) {
      const NativeEvent* native = monitor->find(c.event);
      const int core = c.core >= 0 ? c.core : (native != nullptr ? native->core : -1);
      if (core < 0 || !counted(c)) continue;
      for (const Request& r : requests) {
        // A subtracted term subtracts on its core too (the differences add up per core).
        if (const int sign = r.signOf(native); sign != 0) {
          m.per_core[static_cast<u32>(core)][r.name] += sign * c.value;
        }
      }
    }
  }
  if (opt.per_thread) {
    m.per_thread = perThread(sim.kernel(), *monitor, m.counters, requests,
                             machine.node.threads_per_core, counted);
  }
  // perf stat -I prints the last, partial interval too: it ends at the run's end, with the
  // final (settled) counts.
  if (interval != 0 && (kept.seen == 0 || last_interval < m.end)) {
    intervalEnded({m.end, 0, m.counts});
  }
  m.intervals = std::move(kept.rows);
  // (The last row is always drawn, whatever the stride dropped.)
  if (interval != 0 && (m.intervals.empty() || m.intervals.back().cycle < m.end)) {
    m.intervals.push_back(
        {m.end, static_cast<double>(sim.kernel().nanosAt(m.end)) / 1e9, m.counts});
  }
  for (const RegionReport& r : sim.regions()) m.region_names[r.id] = r.name;
  if (opt.per_region) m.region_spans = sim.regionSpans();
  for (const auto& [id, counts] : m.regions) {
    if (!m.region_names.contains(id)) m.region_names[id] = "region" + std::to_string(id);
  }
  m.seconds = static_cast<double>(sim.kernel().nanosAt(m.end)) / 1e9;
  m.instructions = sim.retiredInstructions();
  const Termination& term = sim.kernel().termination();
  m.status = term.status;
  std::fflush(stdout);
  if (!term.report.empty()) fmt::print(stderr, "{}", term.report);
  return m;
}

// Derived ratios, as perf stat shows them, for the pairs that were counted.
std::optional<Metric> metricOf(const std::string& name, const std::map<std::string, double>& c) {
  auto ratio = [&](const std::string& num, const std::string& den) -> std::optional<double> {
    if (!c.contains(num) || !c.contains(den) || c.at(den) == 0) return std::nullopt;
    return c.at(num) / c.at(den);
  };
  struct Derived {
    const char* name;
    const char* denominator;
    const char* unit;
    bool percent;
  };
  static const Derived kDerived[] = {
      {"instructions", "cycles", "insn per cycle", false},
      {"branch-misses", "branches", "of all branches", true},
      {"cache-misses", "cache-references", "of all cache refs", true},
      {"L1-dcache-load-misses", "L1-dcache-loads", "of all L1-dcache loads", true},
      {"LLC-load-misses", "LLC-loads", "of all LLC loads", true},
      {"L1-icache-load-misses", "L1-icache-loads", "of all L1-icache loads", true},
  };
  for (const Derived& d : kDerived) {
    if (name != d.name) continue;
    if (auto r = ratio(d.name, d.denominator)) {
      return Metric{d.percent ? 100 * *r : *r, d.unit, d.percent};
    }
  }
  return std::nullopt;
}

int run(const StatOptions& opt) {
  if (opt.command.empty())
    fail(ExitCode::kUsage, "stat: no program given (hpmsim stat -e ... -- PROGRAM)");
  const auto mode = parseRunMode(opt.mode);
  if (!mode) fail(ExitCode::kUsage, "stat: unknown --mode '{}'", opt.mode);
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
  MachineConfig machine = loadMachine(opt.machine, opt.overrides);
  const u32 nodes = resolveNodes(machine, opt.nodes, opt.node_output, "stat");
  const bool many_nodes = manyNodes(nodes, opt.nodes);
  if (hostProcesses() > 1 && !many_nodes) {
    fail(ExitCode::kUsage,
         "stat: started by mpirun with {} processes, which spread the nodes of a many-node run "
         "(--nodes N) over them: give --nodes N",
         hostProcesses());
  }
  if (many_nodes) {
    const auto refuse = [&](bool given, std::string_view option) {
      if (given) fail(ExitCode::kUsage, "stat: {} is not available with many nodes yet", option);
    };
    refuse(opt.interval != 0 || opt.interval_ms != 0, "-I");
    refuse(opt.per_region, "--per-region");
    refuse(opt.per_thread, "--per-thread");
    refuse(opt.per_core, "--per-core");
    refuse(!opt.report.empty(), "--report");
    refuse(!opt.trace.empty(), "--trace");
  }
  RunFiles files;
  files.input(resolveProgram(opt.command[0]), "the program");
  files.input(std::filesystem::is_regular_file(opt.machine) ? opt.machine : "", "the machine file");
  files.output(opt.output, "-o", !opt.output.empty());
  files.output(opt.report, "--report", !opt.report.empty());
  files.output(opt.trace, "--trace", !opt.trace.empty());
  if (many_nodes) addNodeOutputs(files, opt.node_output, nodes);
  files.check();
  // -I MSECS: simulated milliseconds at the machine's clock.
  const u64 interval =
      intervalOptionCycles(opt.interval_ms, opt.interval, machine.node.clock_mhz, "stat");
  // (The multiplexing slice is taken only if the events need it; its value is checked here,
  // before the run, all the same.)
  intervalCycles(opt.mux_interval_ms, machine.node.clock_mhz, "stat: --mux-interval-ms");
  std::signal(SIGPIPE, SIG_IGN);

  // -r N: N runs; the report gives each request's mean and the relative standard deviation of
  // the mean. Simulated runs are deterministic: they differ only where the program itself
  // varies (its inputs, its environment, its clock readings), so the column is usually 0.
  // Many nodes over host processes (mpirun): joined once for every run; host 0 reports. (The
  // guest's environment is taken before: Open MPI's start adds to the process's.)
  std::vector<std::string> envp = guestEnvironment(opt.env);
  const std::unique_ptr<net::HostLink> hosts =
      many_nodes ? joinHosts(nodes, pendingInterrupt) : nullptr;
  envp = hostZeroEnvironment(hosts.get(), envp);
  // The report goes to -o's file or to stderr (as perf stat: the guest owns stdout); with -I each
  // interval's lines as it ends (perf stat -I's, or -x's), or its JSON row to a spool, so that
  // memory does not grow with the intervals.
  std::optional<ResultFile> out_file;
  if (!opt.output.empty() && (!hosts || hosts->host() == 0)) out_file.emplace(opt.output);
  const auto emit = [&](std::string_view t) {
    if (out_file) {
      out_file->write(t);
    } else {
      fmt::print(stderr, "{}", t);
    }
  };
  std::optional<JsonRowSpool> json_intervals;
  if (opt.json && interval != 0) json_intervals.emplace();
  IntervalSink sink;
  std::map<std::string, u64> interval_before;  // -I: the cumulative counts at the last interval
  double interval_before_seconds = 0;
  if (interval != 0 && (!hosts || hosts->host() == 0)) {
    sink = [&](const std::vector<Request>& requests, const IntervalRow& row) {
      const auto sampled = [](const Request& r) { return r.source == Request::Source::kUnit; };
      std::string text;
      if (opt.json) {
        nlohmann::json j;
        j["cycle"] = row.cycle;
        j["seconds"] = row.seconds;
        for (const Request& r : requests) {
          if (!sampled(r)) continue;
          const u64 now = row.cumulative.at(r.name);
          j["counts"][r.name] = now - interval_before[r.name];
          j["cumulative"][r.name] = now;
        }
        json_intervals->add(j);
      } else if (!opt.separator.empty()) {
        std::map<std::string, double> delta;
        for (const Request& r : requests) {
          delta[r.name] = static_cast<double>(row.cumulative.at(r.name) - interval_before[r.name]);
        }
        // (The run time field: the interval's, as perf stat -I -x gives it.)
        const u64 ns = static_cast<u64>((row.seconds - interval_before_seconds) * 1e9 + 0.5);
        for (const Request& r : requests) {
          if (!sampled(r)) continue;
          text += perfCsvLine(opt.separator, fmt::format("{:.9f}", row.seconds) + opt.separator,
                              std::to_string(row.cumulative.at(r.name) - interval_before[r.name]),
                              r.name, std::nullopt, metricOf(r.name, delta), ns);
        }
      } else {
        // As perf stat -I: the counts of each interval, at its end in (simulated) seconds, the
        // last (partial) one included.
        if (interval_before.empty())
          text += fmt::format("#{:>13} {:>20}      {}\n", "time", "counts", "event");
        for (const Request& r : requests) {
          if (!sampled(r)) continue;
          const u64 v = row.cumulative.at(r.name) - interval_before[r.name];
          text += fmt::format("{:>14.9f} {:>20}      {}\n", row.seconds,
                              opt.no_big_num ? std::to_string(v) : withCommas(v), r.name);
        }
      }
      for (const Request& r : requests) interval_before[r.name] = row.cumulative.at(r.name);
      interval_before_seconds = row.seconds;
      emit(text);
    };
  }
  std::vector<Measured> runs;
  for (u32 r = 0; r < opt.repeat; ++r) {
    runs.push_back(measure(opt, machine, *mode, interval, many_nodes, hosts.get(), envp, sink));
    // Ctrl-C: report the runs so far. (Over host processes every host stops after the same
    // run: the one that ended interrupted, a status every host knows.)
    const int status = runs.back().status;
    if (hosts ? status == 128 + SIGINT || status == 128 + SIGTERM : pendingInterrupt() != 0) break;
  }
  if (hosts && hosts->host() != 0) return runs.back().status;
  const Measured& m = runs.back();
  std::map<std::string, double> mean;
  std::map<std::string, double> spread;  // stddev of the mean, percent of the mean
  // A multiplexed request whose set never had a turn has no count (perf's "<not counted>").
  const auto notCounted = [&m](const Request& r) {
    return r.source != Request::Source::kUnsupported && !m.counts.contains(r.name);
  };
  // perf's "(xx.xx%)": the share of the run a multiplexed request's set counted.
  const auto running = [&m](const Request& r) {
    const auto it = m.pcnt_running.find(r.name);
    return it == m.pcnt_running.end() ? 100.0 : it->second;
  };
  for (const Request& r : m.requests) {
    if (r.source == Request::Source::kUnsupported || notCounted(r)) continue;
    double sum = 0, squares = 0;
    for (const Measured& one : runs) sum += static_cast<double>(one.counts.at(r.name));
    const double n = static_cast<double>(runs.size());
    mean[r.name] = sum / n;
    for (const Measured& one : runs) {
      const double d = static_cast<double>(one.counts.at(r.name)) - mean[r.name];
      squares += d * d;
    }
    const double stddev_of_mean = runs.size() > 1 ? std::sqrt(squares / (n - 1) / n) : 0;
    spread[r.name] = mean[r.name] != 0 ? 100 * stddev_of_mean / mean[r.name] : 0;
  }
  const bool repeated = runs.size() > 1;
  const auto number = [&](double v) {
    const u64 rounded = static_cast<u64>(v + 0.5);
    return opt.no_big_num ? std::to_string(rounded) : withCommas(rounded);
  };
  // task-clock and cpu-clock are shown in msec (counted in ns), as perf shows them.
  const auto isClock = [](const Request& r) {
    return r.source == Request::Source::kSoftware && r.name.ends_with("clock");
  };
  const auto msec = [&](const Request& r) { return mean.at(r.name) / 1e6; };
  const auto metric = [&](const Request& r) -> std::optional<Metric> {
    if (isClock(r)) {
      if (m.seconds <= 0) return std::nullopt;
      return Metric{msec(r) / (m.seconds * 1e3), "CPUs utilized", false};
    }
    return metricOf(r.name, mean);
  };
  // Interval and region tables are the units' (software events are the kernel's totals).
  const auto sampled = [](const Request& r) { return r.source == Request::Source::kUnit; };

  // The results as JSON (--json prints it, --report and --trace draw it).
  const auto resultJson = [&] {
    nlohmann::json out;
    out["command"] = opt.command;
    out["guest_inputs"] = guestInputsDigest(opt.command, envp);
    out["clock_mhz"] = machine.node.clock_mhz;
    out["machine"] = machine.name;
    out["mode"] = opt.mode;
    if (!m.per_node.empty()) {
      out["nodes"] = m.per_node.size();
      out["network_shape"] = machine.network.shape.text();
      nlohmann::json pn = nlohmann::json::array();
      for (const auto& counts : m.per_node) pn.push_back(counts);
      out["per_node"] = pn;
    }
    out["unit"] = m.unit_name;
    nlohmann::json counts = nlohmann::json::object();
    for (const Request& r : m.requests) {
      if (m.counts.contains(r.name)) counts[r.name] = m.counts.at(r.name);
    }
    out["counts"] = counts;
    // perf stat -j's fields, one object per event.
    nlohmann::json events = nlohmann::json::array();
    for (const Request& r : m.requests) {
      nlohmann::json e = {
          {"event", r.name},
          {"unit", isClock(r) ? "msec" : ""},
          {"event-runtime", static_cast<u64>(m.seconds * 1e9 * running(r) / 100 + 0.5)},
          {"pcnt-running", running(r)}};
      if (r.source == Request::Source::kUnsupported) {
        e["counter-value"] = "<not supported>";
        e["pcnt-running"] = 0.0;
      } else if (notCounted(r)) {
        e["counter-value"] = "<not counted>";
      } else {
        e["counter-value"] = isClock(r) ? msec(r) : mean[r.name];
        if (repeated) e["variance"] = spread[r.name];
        if (const auto d = metric(r)) {
          e["metric-value"] = d->value;
          e["metric-unit"] = (d->percent ? "% " : "") + d->unit;
        }
      }
      if (r.group != 0) e["group"] = r.group;
      events.push_back(e);
    }
    if (!m.per_thread.empty()) {
      nlohmann::json pt = nlohmann::json::array();
      for (const ThreadGroup& g : m.per_thread) {
        pt.push_back(
            {{"tids", g.tids}, {"hardware_threads", g.hardware_threads}, {"counts", g.counts}});
      }
      out["per_thread"] = pt;
    }
    if (!m.per_core.empty()) {
      nlohmann::json pc = nlohmann::json::object();
      for (const auto& [core, values] : m.per_core) pc[std::to_string(core)] = values;
      out["per_core"] = pc;
    }
    out["events"] = events;
    if (repeated) {
      out["runs"] = runs.size();
      nlohmann::json each = nlohmann::json::array();
      for (const Measured& one : runs) each.push_back(one.counts);
      out["counts_per_run"] = each;
    }
    if (!m.cores.empty()) out["cores"] = m.cores;
    if (m.mux_sets > 1) {
      out["multiplexing"] = {
          {"sets", m.mux_sets}, {"switches", m.mux_switches}, {"slice_ms", opt.mux_interval_ms}};
    }
    out["cycles_simulated"] = m.end;
    out["seconds_simulated"] = m.seconds;
    out["host_seconds"] = m.host_seconds;
    out["instructions"] = m.instructions;
    out["exit_status"] = m.status;
    nlohmann::json cj = nlohmann::json::array();
    for (const ProgrammedCounter& c : m.counters) {
      nlohmann::json row = {
          {"event", c.event}, {"device", c.device}, {"counter", c.counter}, {"value", c.value}};
      if (c.port >= 0) row[std::string(c.port_name)] = c.port;
      cj.push_back(row);
    }
    out["counters"] = cj;
    if (!m.intervals.empty()) {
      nlohmann::json ij = nlohmann::json::array();
      std::map<std::string, u64> before;
      for (const IntervalRow& row : m.intervals) {
        nlohmann::json j;
        j["cycle"] = row.cycle;
        j["seconds"] = row.seconds;
        for (const Request& r : m.requests) {
          if (!sampled(r)) continue;
          const u64 now = row.cumulative.at(r.name);
          j["counts"][r.name] = now - before[r.name];
          j["cumulative"][r.name] = now;
          before[r.name] = now;
        }
        ij.push_back(j);
      }
      out["intervals"] = ij;
    }
    if (!m.regions.empty()) {
      nlohmann::json rj;
      for (const auto& [id, values] : m.regions) {
        for (const Request& r : m.requests) {
          if (sampled(r)) rj[std::to_string(id)][r.name] = values.at(r.name);
        }
        rj[std::to_string(id)]["name"] = m.region_names.at(id);
      }
      out["regions"] = rj;
      nlohmann::json spans = nlohmann::json::array();
      for (const RegionSpan& span : m.region_spans) {
        spans.push_back(
            {{"tid", span.tid}, {"id", span.id}, {"begin", span.begin}, {"end", span.end}});
      }
      out["region_spans"] = spans;
    }
    return out;
  };

  std::string text;
  if (json_intervals) {
    // (Every interval, from the spool: resultJson's are the few the report draws.)
    json_intervals->print([&](std::string_view t) { emit(t); }, resultJson(), "intervals");
  } else if (opt.json) {
    text = jsonText(resultJson(), 2) + "\n";
  } else if (!opt.separator.empty()) {
    // perf stat -x SEP: value, unit, event, [variance,] run time (ns), percent running, metric
    // value, metric unit; with -I the interval's end (seconds) first.
    const std::string& sep = opt.separator;
    const u64 runtime = static_cast<u64>(m.seconds * 1e9 + 0.5);
    const auto line = [&](const std::string& prefix, const std::string& value,
                          const std::string& name, const std::optional<double>& variance,
                          const std::optional<Metric>& derived, double pcnt = 100) {
      return perfCsvLine(sep, prefix, value, name, variance, derived, runtime, pcnt);
    };
    if (interval == 0) {  // (-I: the intervals' lines were printed as they ended)
      for (const Request& r : m.requests) {
        if (r.source == Request::Source::kUnsupported) {
          text += line("", "<not supported>", r.name, std::nullopt, std::nullopt);
          continue;
        }
        if (notCounted(r)) {
          text += line("", "<not counted>", r.name, std::nullopt, std::nullopt, 0);
          continue;
        }
        const std::string value = isClock(r) ? fmt::format("{:.2f}", msec(r))
                                             : std::to_string(static_cast<u64>(mean[r.name] + 0.5));
        std::string l =
            line("", value, r.name, repeated ? std::optional<double>(spread[r.name]) : std::nullopt,
                 metric(r), running(r));
        if (isClock(r)) l.insert(value.size() + sep.size(), "msec");  // the unit field
        text += l;
      }
      // As perf stat --per-node -x: "N<k>" first on each node's lines.
      for (std::size_t n = 0; n < m.per_node.size(); ++n) {
        for (const Request& r : m.requests) {
          if (!m.per_node[n].contains(r.name)) continue;
          const u64 v = m.per_node[n].at(r.name);
          const std::string value =
              isClock(r) ? fmt::format("{:.2f}", static_cast<double>(v) / 1e6) : std::to_string(v);
          text += line(fmt::format("N{}", n) + sep, value, r.name, std::nullopt, std::nullopt);
        }
      }
    }
  } else {
    std::string cmdline;
    for (const std::string& a : opt.command) cmdline += (cmdline.empty() ? "" : " ") + a;
    // (-I: the intervals' lines, perf stat -I's, were printed as they ended.)
    const std::string on_cores =
        m.cores.empty() ? "" : fmt::format(", cores {}", fmt::join(m.cores, ","));
    const std::string on_nodes = m.per_node.empty()
                                     ? ""
                                     : fmt::format(", {} nodes ({}), summed", m.per_node.size(),
                                                   machine.network.shape.text());
    text +=
        fmt::format("\n Performance counter stats for '{}' (machine {}, {}, {} mode{}{}{}):\n\n",
                    cmdline, machine.name, m.unit_title, opt.mode, on_cores, on_nodes,
                    repeated ? fmt::format(", {} runs", runs.size()) : "");
    for (const Request& r : m.requests) {
      if (r.source == Request::Source::kUnsupported) {
        text += fmt::format("{:>20}      {}\n", "<not supported>", r.name);
        continue;
      }
      if (notCounted(r)) {
        text += fmt::format("{:>20}      {:<28} (0.00%)\n", "<not counted>", r.name);
        continue;
      }
      std::string shown;
      if (const auto d = metric(r)) {
        shown = fmt::format("#  {:.2f}{} {}", d->value, d->percent ? "%" : "", d->unit);
      }
      const std::string variance =
          repeated ? fmt::format("  ( +- {:>5.2f}% )", spread[r.name]) : "";
      if (isClock(r)) {
        // "1,234.56 msec task-clock", as perf.
        const u64 hundredths = static_cast<u64>(msec(r) * 100 + 0.5);
        const std::string value = fmt::format(
            "{}.{:02d}", number(static_cast<double>(hundredths / 100)), hundredths % 100);
        text += fmt::format("{:>20} msec {:<23} {}{}\n", value, r.name, shown, variance);
        continue;
      }
      // perf's running-time column, for what was multiplexed.
      const std::string pcnt =
          m.pcnt_running.contains(r.name) ? fmt::format("  ({:.2f}%)", running(r)) : "";
      text += fmt::format("{:>20}      {:<28} {}{}{}\n", number(mean[r.name]), r.name, shown,
                          variance, pcnt);
    }
    if (m.mux_sets > 1) {
      text += fmt::format(
          "\n (multiplexed: {} sets of events took turns on the counters in {:g} ms slices, {} "
          "switches; counts are scaled by the run's time over their set's)\n",
          m.mux_sets, opt.mux_interval_ms, m.mux_switches);
    }
    // Many nodes: each node's counts, as perf stat --per-node prints its nodes ("N0 ...").
    if (!m.per_node.empty()) text += "\n";
    for (std::size_t n = 0; n < m.per_node.size(); ++n) {
      for (const Request& r : m.requests) {
        if (!m.per_node[n].contains(r.name)) continue;
        const double v = static_cast<double>(m.per_node[n].at(r.name));
        text += isClock(r) ? fmt::format("{:<8} {:>20} msec {}\n", fmt::format("N{}", n),
                                         fmt::format("{:.2f}", v / 1e6), r.name)
                           : fmt::format("{:<8} {:>20}      {}\n", fmt::format("N{}", n), number(v),
                                         r.name);
      }
    }
    // As perf stat --per-core: each core's counts (per-core units, or a node-wide unit's
    // per-core inputs).
    if (!m.per_core.empty()) text += "\n";
    for (const auto& [core, values] : m.per_core) {
      for (const Request& r : m.requests) {
        if (!values.contains(r.name)) continue;
        text += fmt::format("{:<8} {:>20}      {}\n", fmt::format("C{}", core),
                            number(static_cast<double>(values.at(r.name))), r.name);
      }
    }
    // As perf stat --per-thread: "COMM-TID  count  event" (threads that shared a hardware
    // thread: "COMM-TID+TID").
    if (!m.per_thread.empty()) text += "\n";
    const std::string comm = std::filesystem::path(opt.command[0]).filename().string();
    for (const ThreadGroup& g : m.per_thread) {
      std::string label = comm.substr(0, 15);
      for (std::size_t i = 0; i < g.tids.size(); ++i) {
        label += fmt::format("{}{}", i == 0 ? "-" : "+", g.tids[i]);
      }
      for (const Request& r : m.requests) {
        if (r.source != Request::Source::kUnit) continue;
        // (Not counted: a thread on cores --cores left out, or an event counted per core.)
        const std::string value = g.counts.contains(r.name)
                                      ? number(static_cast<double>(g.counts.at(r.name)))
                                      : "<not counted>";
        text += fmt::format("{:>20} {:>20}      {}\n", label, value, r.name);
      }
    }
    if (opt.no_aggr) {
      // As perf stat -A: each counter apart, where it counted.
      text += "\n";
      for (const ProgrammedCounter& c : m.counters) {
        if (!m.cores.empty() && c.core >= 0 &&
            std::find(m.cores.begin(), m.cores.end(), static_cast<u32>(c.core)) == m.cores.end()) {
          continue;
        }
        const std::string where =
            c.port >= 0 ? fmt::format("{} {} {}", c.device, c.port_name, c.port) : c.device;
        text += fmt::format("{:>20}      {:<28} {} counter {}\n",
                            number(static_cast<double>(c.value)), c.event, where, c.counter);
      }
    }
    for (const auto& [id, values] : m.regions) {
      text += fmt::format("\n region {} ({}):\n", id, m.region_names.at(id));
      for (const Request& r : m.requests) {
        if (!sampled(r)) continue;
        text +=
            fmt::format("{:>20}      {}\n", number(static_cast<double>(values.at(r.name))), r.name);
      }
    }
    text += fmt::format("\n{:>20.9f} seconds simulated ({} cycles at {:g} MHz)\n", m.seconds,
                        number(static_cast<double>(m.end)), machine.node.clock_mhz);
    text += fmt::format(
        "{:>20.3f} seconds host ({:.1f} million simulated instructions per second)\n\n",
        m.host_seconds,
        m.host_seconds > 0 ? static_cast<double>(m.instructions) / m.host_seconds / 1e6 : 0.0);
  }
  emit(text);
  if (out_file) out_file->commit();
  if (!opt.report.empty() || !opt.trace.empty()) {
    Report report;
    report.addStat(resultJson(), fmt::format("hpmsim stat of {}", opt.command[0]));
    if (!opt.report.empty()) writeTextFile(opt.report, report.html("hpmsim stat"));
    if (!opt.trace.empty()) writeTextFile(opt.trace, jsonText(report.chromeTrace()) + "\n");
  }
  return m.status;
}

}  // namespace

void addStatCommand(CLI::App& root, Action& selected) {
  auto opt = std::make_shared<StatOptions>();
  CLI::App* cmd = root.add_subcommand(
      "stat", "Count events with the machine's counter unit over a run (as perf stat)");
  cmd->add_option("--machine", opt->machine, machineOptionHelp())->capture_default_str();
  cmd->add_option("--mode", opt->mode, "Run mode: warmup, timing or profile")
      ->capture_default_str();
  cmd->add_option("--set", opt->overrides, "Override a configuration parameter (KEY=VALUE)")
      ->allow_extra_args(false);
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
                "Count the whole node (the default: the units count every core)");
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
  cmd->add_flag("--quiet", opt->quiet, "No progress line on stderr (shown only on a terminal)");
  addHostMemoryOption(*cmd, opt->host_memory);
  cmd->add_option("--report", opt->report,
                  "Also write an HTML report with charts of the counts, intervals and regions");
  cmd->add_option("--trace", opt->trace,
                  "Also write the interval counts and regions as a Chrome trace (Perfetto)");
  cmd->add_option("--root", opt->root, "Directory the guest sees as /");
  addNodeOptions(*cmd, opt->nodes, opt->node_output,
                 " and count on every node: the counts summed, then each node's (N0, N1, ...)");
  addGuestEnvOptions(*cmd, opt->env);
  cmd->add_option("command", opt->command, "PROGRAM [ARGS...], after --")->required();
  cmd->positionals_at_end();
  cmd->callback([opt, &selected] { selected = [opt] { return run(*opt); }; });
}

}  // namespace hpm::tools
