// `hpmsim stat`: counts events with the machine's counter unit, programmed from the host for the
// whole run, and prints them as perf stat does (with derived ratios).
#include <fmt/core.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/error.h"
#include "node/machine.h"
#include "node/monitor.h"
#include "node/simulation.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/guest_env.h"
#include "tools/hpmsim/interrupt.h"
#include "tools/hpmsim/output.h"
#include "tools/hpmsim/program_path.h"

namespace hpm::tools {
namespace {

struct StatOptions {
  std::string machine = "bgq";
  std::string mode = "timing";
  std::vector<std::string> overrides;
  std::vector<std::string> events;
  std::vector<u32> cores;  // restrict generic events to these cores (empty: all)
  u64 interval = 0;
  bool json = false;
  bool per_region = false;
  bool no_aggr = false;  // -A: every counter of every unit instance (and L2 slice) apart
  std::string root = ".";
  std::string output;
  GuestEnvOptions env;
  std::vector<std::string> command;
};

// Requested names in order, each with the native events whose counts add up to it.
struct Request {
  std::string name;
  std::vector<const NativeEvent*> natives;
};

int run(const StatOptions& opt) {
  if (opt.command.empty())
    fail(ExitCode::kUsage, "stat: no program given (hpmsim stat -e ... -- PROGRAM)");
  const auto mode = parseRunMode(opt.mode);
  if (!mode) fail(ExitCode::kUsage, "stat: unknown --mode '{}'", opt.mode);
  if (*mode == RunMode::kFunctional) {
    fail(ExitCode::kUsage,
         "stat: the counter unit counts the timing model's events: use --mode warmup, timing or "
         "profile");
  }
  MachineConfig machine = loadMachine(opt.machine, opt.overrides);
  if (!opt.output.empty()) requireWritable(opt.output);
  RunOptions ro;
  ro.mode = *mode;
  ro.root = opt.root;
  std::signal(SIGPIPE, SIG_IGN);
  Simulation sim(machine, ro);
  Monitor* monitor = sim.monitor();
  if (monitor == nullptr)
    fail(ExitCode::kUsage, "stat: machine {} has no counter unit", machine.name);

  std::vector<u32> cores = opt.cores;
  for (const u32 core : cores) {
    if (core >= machine.node.cores) {
      fail(ExitCode::kUsage, "stat: --cores {}: machine {} has cores 0 to {}", core, machine.name,
           machine.node.cores - 1);
    }
  }
  std::vector<std::string> names = splitList(opt.events);
  if (names.empty()) {
    names = {"instructions",  "cycles",           "branches",
             "branch-misses", "cache-references", "cache-misses"};
    // Without a counter unit (sunfire) the node's monitors are its companions': the
    // interconnect monitor's all-transactions and coherent-transactions events.
    if (monitor->family() == nullptr) names = {"sfi_hstgrm_all_trans", "sfi_hstgm_cohrnt"};
    // perf stat's defaults always work. On UPC-P one run counts one pair of cores (a counter
    // serves the same event of cores 0 and 2), so the defaults count cores 0 and 1, where a
    // program's first threads run; the header says so.
    const u32 default_cores = monitor->family() ? monitor->family()->stat_default_cores : 0;
    if (default_cores != 0 && cores.empty()) {
      for (u32 core = 0; core < std::min(default_cores, machine.node.cores); ++core) {
        cores.push_back(core);
      }
    }
  }
  std::vector<Request> requests;
  std::vector<const NativeEvent*> natives;
  for (const std::string& name : names) {
    Request r{name, {}};
    if (const NativeEvent* e = monitor->find(name)) {
      r.natives = {e};
    } else {
      r.natives = monitor->expand(name);
      if (!cores.empty()) {
        // Native events of one core on a node-wide unit (UPC-P's "PU<k>_..."): keep the chosen
        // cores' and the node-wide ones.
        std::erase_if(r.natives, [&](const NativeEvent* native) {
          return native->core >= 0 && std::find(cores.begin(), cores.end(),
                                                static_cast<u32>(native->core)) == cores.end();
        });
      }
    }
    if (r.natives.empty()) {
      fail(ExitCode::kUsage,
           "stat: unknown event '{}' (a native event of `hpmsim events --machine {}`, a generic "
           "event such as L1dMisses, or a perf name such as instructions)",
           name, machine.name);
    }
    for (const NativeEvent* e : r.natives) {
      if (std::find(natives.begin(), natives.end(), e) == natives.end()) natives.push_back(e);
    }
    requests.push_back(std::move(r));
  }
  try {
    monitor->programHost(natives);
  } catch (const Error& e) {
    // The --cores hint is for names that stand for an event of every core (generic and perf
    // names); a conflict between native events has no such way out.
    const bool node_wide = std::any_of(requests.begin(), requests.end(),
                                       [](const Request& r) { return r.natives.size() > 1; });
    const std::string_view hint = monitor->family() ? monitor->family()->node_wide_hint : "";
    if (hint.empty() || !cores.empty() || !node_wide) throw;
    // Node-wide counts do not fit (UPC-P: its counters count cores 0 and 1 with select 0, cores
    // 2 and 3 with select 1, as Blue Gene/P's counter modes).
    fail(ExitCode::kUsage, "{}.\n{}", e.what(), hint);
  }

  // A per-core unit (UPC-Q's PUnit) counts its core's events, programmed on every core:
  // --cores keeps the chosen cores' units. UPC-P keeps them by choosing native events.
  auto counted = [&](const ProgrammedCounter& c) {
    if (cores.empty() || c.core < 0) return true;
    return std::find(cores.begin(), cores.end(), static_cast<u32>(c.core)) != cores.end();
  };
  // Counts per native event name, summed over the unit instances counting it.
  auto sumByEvent = [&counted](const std::vector<ProgrammedCounter>& counters,
                               const std::vector<u64>* values) {
    std::map<std::string, u64> by_event;
    for (std::size_t i = 0; i < counters.size(); ++i) {
      if (!counted(counters[i])) continue;
      by_event[counters[i].event] += values ? (*values)[i] : counters[i].value;
    }
    return by_event;
  };
  auto total = [](const Request& r, const std::map<std::string, u64>& by_event) {
    u64 sum = 0;
    for (const NativeEvent* e : r.natives) {
      auto it = by_event.find(e->name);
      if (it != by_event.end()) sum += it->second;
    }
    return sum;
  };

  std::vector<std::pair<Cycle, std::map<std::string, u64>>> intervals;
  std::vector<ProgrammedCounter> layout;  // counter identities, for interval samples
  if (opt.interval != 0) {
    sim.setIntervalHook(opt.interval, [&](Cycle now) {
      const std::vector<u64> values = monitor->sampleHost(now);
      if (layout.empty()) layout = monitor->readHost(0);  // identities only
      intervals.emplace_back(now, sumByEvent(layout, &values));
    });
  }
  // Per-region counts: the counters' values at each marker, differences summed per region.
  std::map<u32, std::map<std::string, u64>> region_counts;
  std::map<u32, std::vector<u64>> region_open;
  std::vector<ProgrammedCounter> region_layout;
  if (opt.per_region) {
    sim.setRegionHook([&](u32 id, bool begin, Cycle now) {
      const std::vector<u64> values = monitor->sampleHost(now);
      if (region_layout.empty()) region_layout = monitor->readHost(0);
      if (begin) {
        region_open[id] = values;
        return;
      }
      auto it = region_open.find(id);
      if (it == region_open.end()) return;
      for (std::size_t i = 0; i < values.size(); ++i) {
        if (!counted(region_layout[i])) continue;
        region_counts[id][region_layout[i].event] += values[i] - it->second[i];
      }
      region_open.erase(it);
    });
  }

  sim.exec(resolveProgram(opt.command[0]), opt.command, guestEnvironment(opt.env));
  const auto start = std::chrono::steady_clock::now();
  sim.kernel().setInterruptSource(pendingInterrupt);
  sim.run();
  const double host_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const Cycle end = sim.elapsedCycles();
  const std::vector<ProgrammedCounter> counters = monitor->readHost(end);
  const auto by_event = sumByEvent(counters, nullptr);
  const Termination& term = sim.kernel().termination();
  std::fflush(stdout);
  if (!term.report.empty()) fmt::print(stderr, "{}", term.report);

  std::map<std::string, u64> counts;
  for (const Request& r : requests) counts[r.name] = total(r, by_event);
  const double seconds = static_cast<double>(sim.kernel().nanosAt(end)) / 1e9;

  // Derived ratios, as perf stat shows them, for the pairs that were counted.
  auto ratio = [&](const std::string& num, const std::string& den) -> std::optional<double> {
    if (!counts.contains(num) || !counts.contains(den) || counts[den] == 0) return std::nullopt;
    return static_cast<double>(counts[num]) / static_cast<double>(counts[den]);
  };
  auto note = [&](const std::string& name) -> std::string {
    if (name == "instructions") {
      if (auto r = ratio("instructions", "cycles"))
        return fmt::format("#  {:.2f} insn per cycle", *r);
    }
    if (name == "branch-misses") {
      if (auto r = ratio("branch-misses", "branches"))
        return fmt::format("#  {:.2f}% of all branches", 100 * *r);
    }
    if (name == "cache-misses") {
      if (auto r = ratio("cache-misses", "cache-references"))
        return fmt::format("#  {:.2f}% of all cache refs", 100 * *r);
    }
    if (name == "L1-dcache-load-misses") {
      if (auto r = ratio("L1-dcache-load-misses", "L1-dcache-loads"))
        return fmt::format("#  {:.2f}% of all L1-dcache loads", 100 * *r);
    }
    if (name == "LLC-load-misses") {
      if (auto r = ratio("LLC-load-misses", "LLC-loads"))
        return fmt::format("#  {:.2f}% of all LLC loads", 100 * *r);
    }
    if (name == "L1-icache-load-misses") {
      if (auto r = ratio("L1-icache-load-misses", "L1-icache-loads"))
        return fmt::format("#  {:.2f}% of all L1-icache loads", 100 * *r);
    }
    return "";
  };

  std::string text;
  if (opt.json) {
    nlohmann::json out;
    out["machine"] = machine.name;
    out["mode"] = opt.mode;
    out["unit"] = monitor->family() ? monitor->family()->name : kNoUnitFamily;
    out["counts"] = counts;
    if (!cores.empty()) out["cores"] = cores;
    out["cycles_simulated"] = end;
    out["seconds_simulated"] = seconds;
    out["host_seconds"] = host_seconds;
    out["instructions"] = sim.retiredInstructions();
    out["exit_status"] = term.status;
    nlohmann::json cj = nlohmann::json::array();
    for (const ProgrammedCounter& c : counters) {
      nlohmann::json row = {
          {"event", c.event}, {"device", c.device}, {"counter", c.counter}, {"value", c.value}};
      if (c.port >= 0) row[std::string(c.port_name)] = c.port;
      cj.push_back(row);
    }
    out["counters"] = cj;
    if (!intervals.empty()) {
      nlohmann::json ij = nlohmann::json::array();
      std::map<std::string, u64> before;
      for (const auto& [cycle, values] : intervals) {
        nlohmann::json row;
        row["cycle"] = cycle;
        row["seconds"] = static_cast<double>(sim.kernel().nanosAt(cycle)) / 1e9;
        for (const Request& r : requests) {
          const u64 now = total(r, values);
          row["counts"][r.name] = now - before[r.name];
          row["cumulative"][r.name] = now;
          before[r.name] = now;
        }
        ij.push_back(row);
      }
      out["intervals"] = ij;
    }
    if (!region_counts.empty()) {
      nlohmann::json rj;
      for (const auto& [id, values] : region_counts) {
        for (const Request& r : requests) rj[std::to_string(id)][r.name] = total(r, values);
      }
      out["regions"] = rj;
    }
    text = out.dump(2) + "\n";
  } else {
    std::string cmdline;
    for (const std::string& a : opt.command) cmdline += (cmdline.empty() ? "" : " ") + a;
    // As perf stat -I: the counts of each interval, at its end in (simulated) seconds.
    if (!intervals.empty())
      text += fmt::format("#{:>13} {:>20}      {}\n", "time", "counts", "event");
    std::map<std::string, u64> before;
    for (const auto& [cycle, values] : intervals) {
      const double at = static_cast<double>(sim.kernel().nanosAt(cycle)) / 1e9;
      for (const Request& r : requests) {
        const u64 now = total(r, values);
        text +=
            fmt::format("{:>14.9f} {:>20}      {}\n", at, withCommas(now - before[r.name]), r.name);
        before[r.name] = now;
      }
    }
    const std::string on_cores =
        cores.empty() ? "" : fmt::format(", cores {}", fmt::join(cores, ","));
    text += fmt::format("\n Performance counter stats for '{}' (machine {}, {}, {} mode{}):\n\n",
                        cmdline, machine.name,
                        monitor->family() ? monitor->family()->title : "interconnect monitor",
                        opt.mode, on_cores);
    for (const Request& r : requests) {
      text +=
          fmt::format("{:>20}      {:<28} {}\n", withCommas(counts[r.name]), r.name, note(r.name));
    }
    if (opt.no_aggr) {
      // As perf stat -A: each counter apart, where it counted.
      text += "\n";
      for (const ProgrammedCounter& c : counters) {
        if (!counted(c)) continue;
        const std::string where =
            c.port >= 0 ? fmt::format("{} {} {}", c.device, c.port_name, c.port) : c.device;
        text += fmt::format("{:>20}      {:<28} {} counter {}\n", withCommas(c.value), c.event,
                            where, c.counter);
      }
    }
    for (const auto& [id, values] : region_counts) {
      text += fmt::format("\n region {}:\n", id);
      for (const Request& r : requests) {
        text += fmt::format("{:>20}      {}\n", withCommas(total(r, values)), r.name);
      }
    }
    text += fmt::format("\n{:>20.9f} seconds simulated ({} cycles at {:g} MHz)\n", seconds,
                        withCommas(end), machine.node.clock_mhz);
    text += fmt::format(
        "{:>20.3f} seconds host ({:.1f} million simulated instructions per second)\n\n",
        host_seconds,
        host_seconds > 0 ? static_cast<double>(sim.retiredInstructions()) / host_seconds / 1e6
                         : 0.0);
  }
  if (!opt.output.empty()) {
    writeTextFile(opt.output, text);
  } else {
    fmt::print(stderr, "{}", text);  // as perf stat: the guest owns stdout
  }
  return term.status;
}

}  // namespace

void addStatCommand(CLI::App& root, Action& selected) {
  auto opt = std::make_shared<StatOptions>();
  CLI::App* cmd = root.add_subcommand(
      "stat", "Count events with the machine's counter unit over a run (as perf stat)");
  cmd->add_option("--machine", opt->machine, "Machine preset (bgq, bgp) or TOML file")
      ->capture_default_str();
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
  cmd->add_option("--interval", opt->interval,
                  "Also print the counts of every interval of N cycles (as perf stat -I)");
  cmd->add_flag("--per-region", opt->per_region,
                "Also count between the guest's region markers (node-wide counts, read at the "
                "markers as software would: UPC-Q readings lag by up to the sweep period)");
  cmd->add_flag("-A,--no-aggr", opt->no_aggr,
                "Also print every counter apart: each core's unit, each L2 slice (sliced events)");
  cmd->add_flag("--json", opt->json, "An object whose key `counts` maps each event to its count");
  cmd->add_option("-o,--output", opt->output, "Write the report to FILE instead of stderr");
  cmd->add_option("--root", opt->root, "Directory the guest sees as /");
  addGuestEnvOptions(*cmd, opt->env);
  cmd->add_option("command", opt->command, "PROGRAM [ARGS...], after --")->required();
  cmd->positionals_at_end();
  cmd->callback([opt, &selected] { selected = [opt] { return run(*opt); }; });
}

}  // namespace hpm::tools
