// `hpmsim c2c`: who supplies the data, and which lines the agents pass between them (seed 004
// section 4.2, in the spirit of perf c2c), on the interconnect monitor. Two counters count every
// line read by snoop result (exactly: the L2 or memory on bgq, which has no cache-to-cache
// transfers; memory or another CPU's cache on sunfire's Fireplane bus); the FIFO, filtered to
// reads, writes, atomics and invalidations (Fireplane: line requests and upgrades) and sampled
// every interval, gives each source agent's reads by supplier (on Fireplane each record names
// the CPU whose cache supplied the line) and the lines several agents touch with at least one
// writing: true or false sharing, which invalidations make costly.
#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "base/error.h"
#include "node/machine.h"
#include "node/simulation.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/lib/imon_host.h"
#include "tools/hpmsim/lib/interconnect_tool.h"
#include "tools/hpmsim/lib/output.h"

namespace hpm::tools {
namespace {

using probe::Snoop;
using probe::TransactionType;

struct C2cOptions {
  SessionOptions run;
  FifoSampling sampling{500, 5, false, {}, 0, 0};
};

constexpr u64 bit(TransactionType t) {
  return u64{1} << static_cast<u32>(t);
}
constexpr u64 kReads = bit(TransactionType::kRead) | bit(TransactionType::kFetch) |
                       bit(TransactionType::kPrefetch) | bit(TransactionType::kAtomic);

std::string agentName(u32 source, u32 threads_per_core) {
  if (source >= probe::kSliceAgent) return fmt::format("L2 slice {}", source - probe::kSliceAgent);
  return fmt::format("thread {} (core {})", source, source / threads_per_core);
}

// What the samples showed of one line.
struct LineSeen {
  std::set<u32> readers, writers;  // source agents
  u64 reads = 0, writes = 0, invalidations = 0;
  u64 from_cache = 0;  // Fireplane: records whose line another CPU's cache supplied
  u64 records() const { return reads + writes + invalidations; }
};

// Both reports' end: the shared lines go into the object, the report out, the guest's status back.
int finish(const C2cOptions& opt, nlohmann::json out, nlohmann::json hot, std::string text,
           Simulation& sim) {
  text += "\n";
  out["shared"] = std::move(hot);
  printReport(opt.sampling, out, text);
  return sim.kernel().termination().status;
}

std::vector<std::pair<u64, const LineSeen*>> busiestShared(const std::map<u64, LineSeen>& lines,
                                                           std::size_t* count, u32 top) {
  // Shared lines: touched by two agents or more, one of them writing.
  std::vector<std::pair<u64, const LineSeen*>> shared;
  for (const auto& [address, line] : lines) {
    std::set<u32> agents = line.readers;
    agents.insert(line.writers.begin(), line.writers.end());
    if (agents.size() >= 2 && !line.writers.empty()) shared.emplace_back(address, &line);
  }
  std::stable_sort(shared.begin(), shared.end(), [](const auto& a, const auto& b) {
    return a.second->records() > b.second->records();
  });
  *count = shared.size();
  if (shared.size() > top) shared.resize(top);
  return shared;
}

double pct(u64 part, u64 whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// Fireplane (sunfire): line requests (RTS, RTSA, RTO) supplied by memory or by another CPU's
// cache, counted exactly; the FIFO's records of requests and upgrades (RTOU) name their supplier.
int runFireplane(const C2cOptions& opt, const MachineConfig& machine, Simulation& sim,
                 ImonHost& unit) {
  const u64 requests = bit(TransactionType::kReadToShare) |
                       bit(TransactionType::kReadToShareAlways) | bit(TransactionType::kReadToOwn);
  const u64 owning = bit(TransactionType::kReadToOwn) | bit(TransactionType::kReadToOwnUpgrade);
  const auto filter = [](u64 types, u64 snoops) {
    imon::Filter f;
    f.types = types;
    f.snoops = snoops;
    return f;
  };
  const u64 from_cache_snoops =
      u64{1} << static_cast<u32>(Snoop::kOwned) | u64{1} << static_cast<u32>(Snoop::kModified);
  const u64 all_snoops = (u64{1} << probe::kSnoopResults) - 1;
  // Monitor 0: counter 0 the requests a cache supplied, counter 1 (the FIFO's) every request
  // and upgrade. Monitor 1: the requests memory supplied, and every request.
  unit.program(0, filter(requests, from_cache_snoops), 0);
  unit.program(1, filter(requests | owning, all_snoops), 0);
  unit.program(2, filter(requests, all_snoops & ~from_cache_snoops), 0);
  unit.program(3, filter(requests, all_snoops), 0);
  unit.enableFifo(0, 0);
  unit.run(3, 0);

  struct SourceSeen {
    u64 from_memory = 0, from_cache = 0, owns = 0;
    std::map<u32, u64> suppliers;  // supplying CPU -> lines
  };
  std::map<u32, SourceSeen> sources;
  std::map<u64, LineSeen> lines;
  u64 taken = 0, lost = 0;
  auto sample = [&](Cycle now) {
    for (const probe::Transaction& t : unit.sampleFifo(0, now, lost)) {
      ++taken;
      LineSeen& line = lines[t.address];
      SourceSeen& src = sources[t.source];
      if ((bit(t.type) & owning) != 0) {
        ++line.writes;
        line.writers.insert(t.source);
        ++src.owns;
      } else {
        ++line.reads;
        line.readers.insert(t.source);
      }
      if (t.type == TransactionType::kReadToOwnUpgrade) continue;  // no data moved
      if (t.supplier != probe::kNoSupplier) {
        ++src.from_cache;
        ++src.suppliers[t.supplier];
        ++line.from_cache;
      } else {
        ++src.from_memory;
      }
    }
  };
  sim.setIntervalHook(opt.sampling.interval, sample);
  runToolProgram(sim, opt.run);
  const Cycle end = sim.elapsedCycles();
  sample(end);
  const u64 from_cache = unit.read(0, end), matched = unit.read(1, end);
  const u64 from_memory = unit.read(2, end), reads = unit.read(3, end);
  std::size_t shared_lines = 0;
  const auto shared = busiestShared(lines, &shared_lines, opt.sampling.top);

  const std::string program = fmt::format("{}", fmt::join(opt.run.command, " "));
  const u32 per_board =
      (machine.node.cores + machine.timing.fireplane.boards - 1) / machine.timing.fireplane.boards;
  std::string text = fmt::format(
      "\n Who supplied the lines requested by '{}' (machine {}; counted exactly)\n\n"
      "{:>20}      line requests (RTS, RTSA, RTO)\n{:>20}      supplied by memory ({:.1f} %)\n"
      "{:>20}      supplied by another CPU's cache ({:.1f} %)\n",
      program, machine.name, withCommas(reads), withCommas(from_memory), pct(from_memory, reads),
      withCommas(from_cache), pct(from_cache, reads));
  text += fmt::format(
      "\n Sampled every {} cycles: {} of {} requests and upgrades seen ({:.1f} %), {} lost "
      "between samples\n\n {:<18} {:>10} {:>10} {:>10}  {}\n",
      withCommas(opt.sampling.interval), withCommas(taken), withCommas(matched),
      pct(taken, matched), withCommas(lost), "source", "from mem", "from cache", "owns",
      "suppliers (cpu:lines)");
  nlohmann::json out = {{"machine", machine.name},
                        {"cycles", end},
                        {"requests", reads},
                        {"from_memory", from_memory},
                        {"from_cache", from_cache},
                        {"sampled", taken},
                        {"lost", lost},
                        {"matched", matched},
                        {"shared_lines", shared_lines}};
  nlohmann::json by_source = nlohmann::json::array();
  for (const auto& [source, s] : sources) {
    std::string who;
    nlohmann::json suppliers = nlohmann::json::object();
    for (const auto& [cpu, n] : s.suppliers) {
      who += fmt::format("{}{}:{}", who.empty() ? "" : " ", cpu, n);
      suppliers[std::to_string(cpu)] = n;
    }
    text +=
        fmt::format(" {:<18} {:>10} {:>10} {:>10}  {}\n",
                    fmt::format("cpu {} (board {})", source, source / per_board),
                    withCommas(s.from_memory), withCommas(s.from_cache), withCommas(s.owns), who);
    by_source.push_back({{"source", source},
                         {"from_memory", s.from_memory},
                         {"from_cache", s.from_cache},
                         {"owns", s.owns},
                         {"suppliers", suppliers}});
  }
  out["sources"] = by_source;
  text +=
      fmt::format("\n Lines shared by CPUs, one writing: {} seen; the busiest:\n\n", shared_lines);
  nlohmann::json hot = nlohmann::json::array();
  for (const auto& [address, line] : shared) {
    const std::optional<u64> va = sim.virtualOf(address);
    text += fmt::format(
        " {:#x} (virtual {:#x}): {} reads, {} ownership requests, {} from another cache; "
        "readers {}; writers {}\n",
        address, va.value_or(0), line->reads, line->writes, line->from_cache,
        fmt::join(line->readers, ","), fmt::join(line->writers, ","));
    hot.push_back({{"address", address},
                   {"virtual", va.value_or(0)},
                   {"reads", line->reads},
                   {"ownership_requests", line->writes},
                   {"from_cache", line->from_cache},
                   {"readers", line->readers},
                   {"writers", line->writers}});
  }
  return finish(opt, std::move(out), std::move(hot), std::move(text), sim);
}

// (Takes a copy: the sampling interval is resolved at the machine's clock.)
int run(C2cOptions opt) {
  const RunOptions ro = toolRunOptions(opt.run, "c2c");
  MachineConfig machine = loadMachine(opt.run.machine, opt.run.overrides);
  resolveFifoSampling(opt.sampling, machine, "c2c");
  Simulation sim(machine, ro);
  ImonHost unit(sim, "c2c");
  if (unit.counters() < 4) fail(ExitCode::kUsage, "c2c: needs two monitors (imon.monitors >= 2)");
  if (machine.node.interconnect == probe::Interconnect::kFireplane)
    return runFireplane(opt, machine, sim, unit);

  // Monitor 0: counter 0 the reads the L2 supplied, counter 1 (the FIFO's) every read, write,
  // atomic and invalidation. Monitor 1: the reads memory supplied, and every read.
  const auto filter = [](u64 types, Snoop only, bool any) {
    imon::Filter f;
    f.types = types;
    if (!any) f.snoops = u64{1} << static_cast<u32>(only);
    return f;
  };
  unit.program(0, filter(kReads, Snoop::kL2, false), 0);
  unit.program(1,
               filter(kReads | bit(TransactionType::kWrite) | bit(TransactionType::kInvalidate),
                      Snoop::kNone, true),
               0);
  unit.program(2, filter(kReads, Snoop::kMemory, false), 0);
  unit.program(3, filter(kReads, Snoop::kNone, true), 0);
  unit.enableFifo(0, 0);
  unit.run(3, 0);

  struct SourceSeen {
    std::map<Snoop, u64> reads;
    u64 writes = 0;
  };
  std::map<u32, SourceSeen> sources;
  std::map<u64, LineSeen> lines;
  u64 taken = 0, lost = 0;
  auto sample = [&](Cycle now) {
    for (const probe::Transaction& t : unit.sampleFifo(0, now, lost)) {
      ++taken;
      LineSeen& line = lines[t.address];
      if (t.type == TransactionType::kInvalidate) {
        ++line.invalidations;
      } else if (t.type == TransactionType::kWrite) {
        ++line.writes;
        line.writers.insert(t.source);
        ++sources[t.source].writes;
      } else {
        ++line.reads;
        line.readers.insert(t.source);
        if (t.type == TransactionType::kAtomic) line.writers.insert(t.source);
        ++sources[t.source].reads[t.snoop];
      }
    }
  };
  sim.setIntervalHook(opt.sampling.interval, sample);
  runToolProgram(sim, opt.run);
  const Cycle end = sim.elapsedCycles();
  sample(end);
  const u64 from_l2 = unit.read(0, end), from_memory = unit.read(2, end), reads = unit.read(3, end);
  const u64 matched = unit.read(1, end);

  std::size_t shared_lines = 0;
  const auto shared = busiestShared(lines, &shared_lines, opt.sampling.top);

  const u32 tpc = machine.node.threads_per_core;
  const std::string program = fmt::format("{}", fmt::join(opt.run.command, " "));
  std::string text = fmt::format(
      "\n Who supplied the lines read by '{}' (machine {}; counted exactly)\n\n"
      "{:>20}      line reads\n{:>20}      supplied by the L2 ({:.1f} %)\n{:>20}      supplied by "
      "memory ({:.1f} %)\n{:>20}      supplied by another core's cache (none: the L1s write "
      "through and the L2 is shared)\n",
      program, machine.name, withCommas(reads), withCommas(from_l2), pct(from_l2, reads),
      withCommas(from_memory), pct(from_memory, reads), 0);
  text += fmt::format(
      "\n Sampled every {} cycles: {} of {} reads, writes and invalidations seen ({:.1f} %), {} "
      "lost between samples\n\n {:<24} {:>10} {:>10} {:>10}\n",
      withCommas(opt.sampling.interval), withCommas(taken), withCommas(matched),
      pct(taken, matched), withCommas(lost), "source", "from L2", "from mem", "writes");
  nlohmann::json out = {
      {"machine", machine.name},     {"cycles", end},    {"reads", reads}, {"from_l2", from_l2},
      {"from_memory", from_memory},  {"sampled", taken}, {"lost", lost},   {"matched", matched},
      {"shared_lines", shared_lines}};
  nlohmann::json by_source = nlohmann::json::array();
  for (const auto& [source, s] : sources) {
    const u64 l2 = s.reads.contains(Snoop::kL2) ? s.reads.at(Snoop::kL2) : 0;
    const u64 mem = s.reads.contains(Snoop::kMemory) ? s.reads.at(Snoop::kMemory) : 0;
    text += fmt::format(" {:<24} {:>10} {:>10} {:>10}\n", agentName(source, tpc), withCommas(l2),
                        withCommas(mem), withCommas(s.writes));
    by_source.push_back(
        {{"source", source}, {"from_l2", l2}, {"from_memory", mem}, {"writes", s.writes}});
  }
  out["sources"] = by_source;
  text += fmt::format("\n Lines shared by agents, one writing: {} seen; the busiest:\n\n",
                      shared_lines);
  nlohmann::json hot = nlohmann::json::array();
  for (const auto& [address, line] : shared) {
    text += fmt::format(" {:#x}: {} reads, {} writes, {} invalidations; readers {}; writers {}\n",
                        address, line->reads, line->writes, line->invalidations,
                        fmt::join(line->readers, ","), fmt::join(line->writers, ","));
    hot.push_back({{"address", address},
                   {"reads", line->reads},
                   {"writes", line->writes},
                   {"invalidations", line->invalidations},
                   {"readers", line->readers},
                   {"writers", line->writers}});
  }
  return finish(opt, std::move(out), std::move(hot), std::move(text), sim);
}

}  // namespace

void addC2cCommand(CLI::App& root, Action& selected) {
  auto opt = std::make_shared<C2cOptions>();
  CLI::App* cmd = root.add_subcommand(
      "c2c",
      "Who supplies the lines a program reads, and the lines its threads share (seed 004's "
      "cache-to-cache analysis, in the spirit of perf c2c)");
  addSessionOptions(*cmd, opt->run, kToolSession);
  addFifoSampling(*cmd, opt->sampling, "busiest shared lines");
  addSessionProgram(*cmd, opt->run, kToolSession);
  cmd->callback([opt, &selected] { selected = [opt] { return run(*opt); }; });
}

}  // namespace hpm::tools
