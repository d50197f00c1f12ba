#include "tools/hpmsim/lib/busstat_measure.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "base/error.h"
#include "node/machine.h"
#include "tools/hpmsim/lib/finite_range.h"
#include "tools/hpmsim/lib/interconnect_tool.h"
#include "tools/hpmsim/lib/output.h"

namespace hpm::tools {

u64 busstatInterval(u64 asked, bool distribution) {
  return asked != 0 ? asked : distribution ? kDefaultRotation : 0;
}

std::vector<std::string> busstatEvents(const std::vector<std::string>& given, bool distribution,
                                       probe::Interconnect ic, u32 counters, u32 monitors) {
  std::vector<std::string> names = splitList(given);
  if (distribution && !names.empty()) {
    fail(ExitCode::kUsage, "busstat: --distribution sets the filters itself: give no -e");
  }
  if (!distribution && names.empty()) {
    names = {"sfi_hstgrm_all_trans", "sfi_hstgm_cohrnt", "sfi_hstgrm_io",
             ic == probe::Interconnect::kFireplane ? "ic_write_back" : "ic_mem_write"};
    names.resize(std::min<std::size_t>(names.size(), counters));
  }
  if (names.size() > counters) {
    fail(ExitCode::kUsage,
         "busstat: {} events asked, the interconnect monitor has {} counters (imon.monitors = {} "
         "monitors of 2)",
         names.size(), counters, monitors);
  }
  return names;
}

const imon::Preset& presetNamed(const std::string& name, probe::Interconnect ic) {
  for (const imon::Preset& p : imon::presets(ic)) {
    if (p.name == name) return p;
  }
  fail(ExitCode::kUsage, "busstat: unknown event '{}' (hpmsim events --unit imon lists them)",
       name);
}

u32 rotatedCounters(u32 counters, u32 types) {
  return std::min(counters, types);
}

void checkFifoSampling(bool distribution, u32 used) {
  if (distribution) fail(ExitCode::kUsage, "busstat: --fifo and --trace go without --distribution");
  if (used < 2) {
    fail(ExitCode::kUsage, "busstat: the FIFO records counter 1's matches: give two events");
  }
}

BusstatMeasure::BusstatMeasure(const BusstatOptions& opt, const Session& session,
                               const RunOptions& ro)
    : session_(session),
      distribution_(opt.distribution),
      sample_fifos_(opt.fifo || !opt.trace.empty()),
      sim_(session.machine, ro),
      unit_(sim_, "busstat") {
  const MachineConfig& machine = session.machine;
  interval_ = busstatInterval(
      intervalOptionCycles(opt.interval_ms, opt.interval_cycles, machine.node.clock_mhz, "busstat"),
      distribution_);
  events_ = busstatEvents(opt.events, distribution_, machine.node.interconnect, unit_.counters(),
                          machine.imon.monitors);
  ns_ = probe::transactionNamespace(machine.node.interconnect);
  if (distribution_) {
    used_ = rotatedCounters(unit_.counters(), ns_.size);
    for (u32 c = 0; c < used_; ++c) program(c, rotatedItem(0, c, unit_.counters(), ns_.size), 0);
  } else {
    used_ = static_cast<u32>(events_.size());
    for (u32 c = 0; c < used_; ++c) {
      const imon::Preset& p = presetNamed(events_[c], machine.node.interconnect);
      unit_.program(c, typeFilter(p.types, p.snoops), 0);
    }
  }
  unit_.run(monitorsOf(used_), 0);
  // --fifo / --trace: every used monitor's FIFO records what its counter 1 matches.
  monitors_used_ = (used_ + imon::kCountersPerMonitor - 1) / imon::kCountersPerMonitor;
  if (sample_fifos_) {
    checkFifoSampling(distribution_, used_);
    for (u32 m = 0; m < monitors_used_; ++m) unit_.enableFifo(m, 0);
  }
  header_ = BusstatRun{.program = commandLine(session),
                       .machine = machine.name,
                       .clock_mhz = machine.node.clock_mhz,
                       .clock_hz = machine.clockHz(),
                       .cycles = 0};
}

void BusstatMeasure::program(u32 counter, u32 type, Cycle at) {
  unit_.program(counter, typeFilter(u64{1} << (ns_.first + type), kAllSnoops), at);
}

BusstatResult BusstatMeasure::run(const BusstatSinks& sinks) {
  const u32 counters = unit_.counters();
  const u32 types = ns_.size;
  DistributionRecords distribution{
      .run = header_, .counters = used_, .rotation = interval_, .types = {}};
  for (u32 t = 0; t < types && distribution_; ++t) {
    const auto& info = probe::kTransactionTypeInfo[ns_.first + t];
    distribution.types.push_back({.mnemonic = std::string(info.mnemonic),
                                  .name = std::string(info.name),
                                  .sampled = 0,
                                  .observed = 0,
                                  .exact = 0});
  }
  CountsRecords counted{.run = header_,
                        .events = events_,
                        .totals = std::vector<u64>(used_),
                        .exact = {},
                        .fifo = std::nullopt};
  if (sample_fifos_) counted.fifo.emplace();

  // Each sample takes what the FIFOs hold and learns how many records they lost meanwhile.
  const auto sampleFifos = [&](Cycle now) {
    for (u32 m = 0; m < monitors_used_; ++m) {
      for (const probe::Transaction& t : unit_.sampleFifo(m, now, counted.fifo->lost)) {
        ++counted.fifo->taken;
        if (sinks.record) sinks.record(m, t);
      }
    }
  };
  u64 round = 0;  // --distribution's
  u64 samples = 0;
  Cycle last = 0;
  const auto sample = [&](Cycle now) {
    std::vector<u64> counts(used_);
    for (u32 c = 0; c < used_; ++c) {
      counts[c] = unit_.read(c, now);
      if (distribution_) {
        TypeRecord& type = distribution.types[rotatedItem(round, c, counters, types)];
        type.sampled += counts[c];
        type.observed += now - last;
      }
    }
    ++samples;
    if (!distribution_) {
      for (u32 c = 0; c < used_; ++c) counted.totals[c] += counts[c];
      if (sinks.interval) sinks.interval(now, counts);
    }
    if (sample_fifos_) sampleFifos(now);
    last = now;
    if (distribution_) {
      ++round;
      for (u32 c = 0; c < used_; ++c) program(c, rotatedItem(round, c, counters, types), now);
    } else {
      for (u32 c = 0; c < used_; ++c) unit_.clear(c, now);
    }
  };
  if (interval_ != 0) sim_.setIntervalHook(interval_, sample);

  runSessionProgram(sim_, session_);
  const Cycle end = sim_.elapsedCycles();
  if (end > last || samples == 0) sample(std::max(end, last));  // the last, partial interval
  BusstatResult result;
  result.status = sim_.kernel().termination().status;

  // The simulator's count of what each filter matched over the run: the ground truth.
  const probe::TransactionCounts& truth = *sim_.transactionTruth();
  if (distribution_) {
    distribution.run.cycles = end;
    for (u32 t = 0; t < types; ++t) {
      distribution.types[t].exact =
          truth.count(u32{1} << (ns_.first + t), static_cast<u32>(kAllSnoops));
    }
    result.records = std::move(distribution);
  } else {
    counted.run.cycles = end;
    for (const std::string& name : events_) {
      const imon::Preset& p = presetNamed(name, session_.machine.node.interconnect);
      counted.exact.push_back(truth.count(p.types, p.snoops));
    }
    result.records = std::move(counted);
  }
  return result;
}

}  // namespace hpm::tools
