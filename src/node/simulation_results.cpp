// What a simulation gives after (or during) its run: the kernel and models it holds, ground
// truth, regions, the profile and the statistics.
#include <algorithm>

#include "node/node_stats.h"
#include "node/simulation_impl.h"

namespace hpm {

void Simulation::setRegionHook(std::function<void(u32, bool, Cycle)> hook) {
  impl_->region_hook = std::move(hook);
}

const Kernel& Simulation::kernel() const {
  return *impl_->kernel;
}
Kernel& Simulation::kernel() {
  return *impl_->kernel;
}
std::optional<u64> Simulation::groundTruth(probe::Event e, u32 instance) const {
  if (auto v = impl_->kernel->groundTruth(e, instance)) return v;
  if (impl_->model) {
    if (auto v = impl_->model->groundTruth(e, instance)) return v;
  }
  if (!impl_->model && impl_->monitor) {  // the functional mode's statistics
    if (auto v = probe::truthOf(Impl::functionalTable(), *impl_, e, instance)) return v;
  }
  if (auto v = probe::truthOf(Impl::truthTable(), *impl_, e, instance)) return v;
  for (const TruthSource& source : impl_->truth_sources) {
    if (auto v = source(e, instance)) return v;
  }
  return std::nullopt;
}

void Simulation::addTruthSource(TruthSource source) {
  impl_->truth_sources.push_back(std::move(source));
}

const probe::TransactionCounts* Simulation::transactionTruth() const {
  return impl_->model ? &impl_->model->transactionCounts() : nullptr;
}

std::optional<u32> Simulation::cacheBlockOf(u64 addr) const {
  if (!impl_->model) return std::nullopt;
  return impl_->model->l2Block(addr);
}

std::optional<u64> Simulation::virtualOf(u64 pa) const {
  const mem::FrameTable* frames = impl_->model ? impl_->model->frames() : nullptr;
  return frames != nullptr ? frames->virtualOf(pa) : std::optional<u64>(pa);
}

Monitor* Simulation::monitor() const {
  impl_->ensureMonitor();  // (the functional mode's units: built when first asked for)
  return impl_->monitor.get();
}
const MachineConfig& Simulation::machine() const {
  return impl_->machine;
}
const RunOptions& Simulation::options() const {
  return impl_->options;
}
Cycle Simulation::elapsedCycles() const {
  return impl_->kernel->elapsedCycles();
}

u64 Simulation::retiredInstructions() const {
  u64 n = 0;
  for (const auto& t : impl_->kernel->threads()) n += t->hart().state().instret;
  return n;
}

std::vector<RegionReport> Simulation::regions() const {
  std::vector<RegionReport> out;
  for (const auto& [id, by_thread] : impl_->regions) {
    RegionReport r;
    r.id = id;
    auto name = impl_->region_names.find(id);
    r.name = name != impl_->region_names.end() ? name->second : "region" + std::to_string(id);
    for (const auto& [tid, totals] : by_thread) {
      r.by_thread.emplace_back(tid, totals);
      r.total.entries += totals.entries;
      r.total.instructions += totals.instructions;
      r.total.cycles = std::max(r.total.cycles, totals.cycles);  // threads overlap in time
      for (std::size_t i = 0; i < timing::kStallCount; ++i) r.total.stalls[i] += totals.stalls[i];
    }
    out.push_back(std::move(r));
  }
  return out;
}

const std::vector<RegionSpan>& Simulation::regionSpans() const {
  return impl_->region_spans;
}

u64 Simulation::regionSpansDropped() const {
  return impl_->region_spans_dropped;
}

const std::vector<ProfileSample>& Simulation::samples() const {
  return impl_->samples;
}

std::vector<FunctionProfile> Simulation::functionProfile() const {
  std::vector<FunctionProfile> out;
  for (const FunctionProfile& f : impl_->functions) {
    if (f.instructions != 0) out.push_back(f);
  }
  std::sort(out.begin(), out.end(), [](const FunctionProfile& a, const FunctionProfile& b) {
    return a.cycles != b.cycles ? a.cycles > b.cycles : a.name < b.name;
  });
  return out;
}

void Simulation::visitStats(stats::Visitor& v) const {
  v.beginGroup(node_stat::kKernel);
  impl_->kernel->visitStats(v);
  v.endGroup();
  if (impl_->model) {
    v.beginGroup(node_stat::kTiming);
    impl_->model->visitStats(v);
    v.endGroup();
    v.beginGroup("hardware_threads");
    v.counter("context_switches", impl_->context_switches,
              "Times a hardware thread went on with another guest thread than the one before");
    v.endGroup();
  }
  if (impl_->monitor) {
    v.beginGroup("monitor");
    impl_->monitor->visitStats(v);
    v.endGroup();
  }
  const auto regs = regions();
  if (!regs.empty()) {
    auto visitTotals = [&v](const RegionTotals& t) {
      v.counter(node_stat::kRegionEntries, t.entries);
      v.counter(node_stat::kRegionInstructions, t.instructions);
      v.counter(node_stat::kRegionCycles, t.cycles);
      v.beginGroup(node_stat::kRegionStalls.name);
      for (std::size_t i = 0; i < timing::kStallCount; ++i) {
        v.counter(timing::stallName(static_cast<timing::Stall>(i)), t.stalls[i],
                  node_stat::kRegionStalls.measure, node_stat::kRegionStalls.doc);
      }
      v.endGroup();
    };
    v.beginList(node_stat::kRegions);
    for (const RegionReport& r : regs) {
      v.beginGroup("");
      v.counter(node_stat::kRegionId, r.id);
      v.text(node_stat::kRegionName, r.name);
      visitTotals(r.total);
      v.beginList("threads");
      for (const auto& [tid, totals] : r.by_thread) {
        v.beginGroup("");
        v.counter("tid", static_cast<u64>(tid), stats::kLabel, "");
        visitTotals(totals);
        v.endGroup();
      }
      v.endList();
      v.endGroup();
    }
    v.endList();
    v.beginList(node_stat::kRegionSpans);
    for (const RegionSpan& span : impl_->region_spans) {
      v.beginGroup("");
      v.counter(node_stat::kSpanTid, static_cast<u64>(span.tid));
      v.counter(node_stat::kSpanId, span.id);
      v.counter(node_stat::kSpanBegin, span.begin);
      v.counter(node_stat::kSpanEnd, span.end);
      v.endGroup();
    }
    v.endList();
    v.counter("region_spans_dropped", impl_->region_spans_dropped,
              "Region stays after the first 10,000, not kept in region_spans");
  }
}

}  // namespace hpm
