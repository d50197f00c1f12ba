#include "tools/hpmsim/lib/stat_measure.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>

#include "base/error.h"
#include "base/wire.h"
#include "cluster/cluster.h"
#include "node/host_mux.h"
#include "node/monitor.h"
#include "node/simulation.h"
#include "tools/hpmsim/interrupt.h"
#include "tools/hpmsim/lib/finite_range.h"
#include "tools/hpmsim/lib/guest_env.h"
#include "tools/hpmsim/lib/host_memory.h"
#include "tools/hpmsim/lib/program_path.h"
#include "tools/hpmsim/lib/progress.h"

namespace hpm::tools {
namespace {

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

}  // namespace

StatRun measureStat(const StatOptions& opt, const MachineConfig& machine, RunMode mode,
                    u64 interval, bool many_nodes, net::HostLink* hosts,
                    const std::vector<std::string>& envp, const IntervalSink& sink) {
  RunOptions ro;
  ro.mode = mode;
  ro.root = opt.session.root;
  // Many nodes: every node's units are programmed alike and read at the node's own end; the
  // counts are each node's and their sum (the first node's monitor names the events).
  std::unique_ptr<net::Cluster> cluster;
  std::unique_ptr<Simulation> single;
  HostMemoryBudget budget(opt.session.host_memory);
  if (many_nodes) {
    net::ClusterOptions co;
    co.on_built = [&budget](u32 built, u32 total) { budget.checkNodes(built, total); };
    co.limit = budget.limit();
    if (!opt.session.node_output.empty()) {
      co.output = net::ClusterOptions::Output::kFiles;
      co.output_dir = opt.session.node_output;
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
  StatRun m;
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
      // -a: perf's system-wide cycles, every hardware thread's clock, idle ones included.
      const bool node_cycles = opt.all_cpus && perfCyclesName(name);
      for (const Monitor::Term& t : monitor->expandTerms(node_cycles ? "Cycles" : name)) {
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

  std::vector<std::string> command = opt.session.command;
  command[0] = resolveProgram(opt.session.command[0]);
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
    sim.exec(command[0], opt.session.command, envp);
    ProgressLine progress(!opt.session.quiet);
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
      c.value = multiplexEstimate(c.value, m.end, mux->running(c.event));
    }
    for (const Request& r : requests) {
      if (r.source != Request::Source::kUnit) continue;
      Cycle running = 0;
      u64 turns = 0;
      for (const NativeEvent* e : r.natives) {
        running = std::max(running, mux->running(e->name));
        turns = std::max(turns, mux->turns(e->name));
      }
      m.mux_turns[r.name] = turns;
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

StatResult measureStatRuns(const StatOptions& opt, const Session& s, u64 interval,
                           net::HostLink* hosts, const std::vector<std::string>& envp,
                           const IntervalSink& sink) {
  StatResult result{opt.session.command,
                    guestInputsDigest(opt.session.command, envp),
                    s.machine.name,
                    s.machine.node.clock_mhz,
                    opt.session.mode,
                    s.machine.network.shape.text(),
                    opt.mux_interval_ms,
                    opt.all_cpus,
                    {}};
  for (u32 r = 0; r < opt.repeat; ++r) {
    result.runs.push_back(
        measureStat(opt, s.machine, s.mode, interval, s.many_nodes, hosts, envp, sink));
    // Ctrl-C: report the runs so far. (Over host processes every host stops after the same
    // run: the one that ended interrupted, a status every host knows.)
    const int status = result.runs.back().status;
    if (hosts ? status == 128 + SIGINT || status == 128 + SIGTERM : pendingInterrupt() != 0) break;
  }
  return result;
}

}  // namespace hpm::tools
