#include "tools/hpmsim/lib/run_result.h"

#include <fmt/core.h>

#include "node/machine.h"
#include "tools/hpmsim/lib/guest_env.h"
#include "tools/hpmsim/lib/run_stats.h"

namespace hpm::tools {

RunResult runResult(const Simulation& sim, const Session& s, double host_seconds) {
  RunResult r;
  r.program = s.options.command[0];
  r.machine = s.machine.name;
  r.clock_mhz = s.machine.node.clock_mhz;
  r.mode = s.options.mode;
  r.instructions = sim.retiredInstructions();
  r.cycles = sim.elapsedCycles();
  r.simulated_ns = sim.kernel().nanosAt(r.cycles);
  r.host_seconds = host_seconds;
  r.exit_status = sim.kernel().termination().status;
  r.regions = sim.regions();
  return r;
}

void visitRunStats(stats::Visitor& v, const Simulation& sim, const RunResult& r) {
  run_stat::visitTotals(v, {r.instructions, r.cycles, r.host_seconds, r.mode,
                            static_cast<u64>(r.exit_status), false});
  v.beginList("threads");
  for (const auto& t : sim.kernel().threads()) {
    v.beginGroup("");
    v.counter("tid", static_cast<u64>(t->tid()), stats::kLabel, "Thread id");
    v.counter("hardware_thread", t->slot, stats::kLabel, "Hardware thread it ran on last");
    v.counter("instructions", t->hart().state().instret, "Instructions it retired");
    v.counter("cycles", t->clock(), "Its clock at the end");
    v.counter("busy_cycles", t->busy_cycles, "Cycles it ran (its CPU time)");
    v.endGroup();
  }
  v.endList();
  sim.visitStats(v);
}

nlohmann::json runStatsJson(const Simulation& sim, const RunResult& r, Session& s) {
  stats::JsonWriter json;
  visitRunStats(json, sim, r);
  json.result()["config"] = machineJson(s.machine);
  json.result()["command"] = s.options.command;
  json.result()["guest_inputs"] = guestInputsDigest(s.options.command, s.envp);
  json.result()["units"] = json.units();
  return std::move(json.result());
}

std::string runStatsText(const Simulation& sim, const RunResult& r) {
  stats::TextWriter text;
  visitRunStats(text, sim, r);
  return text.str();
}

std::string runSummaryText(const RunResult& r) {
  std::string out = fmt::format(
      "hpmsim: {} on {} ({} mode): {} instructions, {} cycles elapsed ({:.6f} s simulated at "
      "{:g} MHz), {:.3f} s host, {:.1f} MIPS, exit status {}\n",
      r.program, r.machine, r.mode, r.instructions, r.cycles,
      static_cast<double>(r.simulated_ns) / 1e9, r.clock_mhz, r.host_seconds, r.mips(),
      r.exit_status);
  for (const RegionReport& region : r.regions) {
    // (Elapsed: the longest of its threads' stays, as the statistics' regions say.)
    out += fmt::format("hpmsim:   region {} ({}): {} entries, {} instructions, {} cycles elapsed\n",
                       region.id, region.name, region.total.entries, region.total.instructions,
                       region.total.cycles);
  }
  return out;
}

}  // namespace hpm::tools
