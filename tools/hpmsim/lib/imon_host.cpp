#include "tools/hpmsim/lib/imon_host.h"

#include "base/error.h"
#include "node/monitor.h"
#include "node/simulation.h"

namespace hpm::tools {
namespace {

u64 monitorOffset(u32 monitor, u64 field) {
  return imon::reg::kMonitorBase + monitor * imon::reg::kMonitorStride + field;
}

u64 counterOffset(u32 counter, u64 field) {
  return monitorOffset(counter / imon::kCountersPerMonitor,
                       counter % imon::kCountersPerMonitor * imon::reg::kCounterStride + field);
}

}  // namespace

imon::Filter typeFilter(u64 types, u64 snoops) {
  imon::Filter f;
  f.types = types;
  f.snoops = snoops;
  return f;
}

u64 monitorsOf(u32 counters) {
  u64 bits = 0;
  for (u32 c = 0; c < counters; ++c) bits |= u64{1} << (c / imon::kCountersPerMonitor);
  return bits;
}

u32 rotatedItem(u64 round, u32 counter, u32 counters, u32 items) {
  return static_cast<u32>((round * counters + counter) % items);
}

ImonHost::ImonHost(Simulation& sim, std::string_view tool) : monitor_(sim.monitor()) {
  if (monitor_ != nullptr) device_ = monitor_->findDevice("/dev/hpm/imon");
  if (device_ < 0) {
    fail(ExitCode::kUsage,
         "{}: machine {} has no interconnect monitor (monitor.interconnect = false)", tool,
         sim.machine().name);
  }
  counters_ = sim.machine().imon.monitors * imon::kCountersPerMonitor;
  ns_ = probe::transactionNamespace(sim.machine().node.interconnect);
}

void ImonHost::program(u32 counter, const imon::Filter& f, Cycle at) {
  const auto set = [&](u64 field, u64 value) {
    monitor_->hostWrite(device_, counterOffset(counter, field), value, at);
  };
  set(imon::reg::kTypes, ns_.local(f.types));
  set(imon::reg::kAddrMatch, f.addr_match);
  set(imon::reg::kAddrMask, f.addr_mask);
  set(imon::reg::kIdMatch, f.id_match);
  set(imon::reg::kIdMask, f.id_mask);
  set(imon::reg::kSnoops, f.snoops);
  set(imon::reg::kCount, 0);
}

u64 ImonHost::read(u32 counter, Cycle at) {
  return monitor_->hostRead(device_, counterOffset(counter, imon::reg::kCount), at);
}

void ImonHost::clear(u32 counter, Cycle at) {
  monitor_->hostWrite(device_, counterOffset(counter, imon::reg::kCount), 0, at);
}

void ImonHost::run(u64 monitors, Cycle at) {
  monitor_->hostWrite(device_, imon::reg::kRun, monitors, at);
}

void ImonHost::enableFifo(u32 monitor, Cycle at) {
  monitor_->hostWrite(device_, monitorOffset(monitor, imon::reg::kFifoEnable), 1, at);
}

std::vector<probe::Transaction> ImonHost::sampleFifo(u32 monitor, Cycle at, u64& lost) {
  const auto get = [&](u64 field) {
    return monitor_->hostRead(device_, monitorOffset(monitor, field), at);
  };
  // One read: what the FIFO holds and (cleared by the read) what it dropped since the last.
  const u64 status = get(imon::reg::kFifoStatus);
  lost += imon::reg::kStatusLost.get(status);
  std::vector<probe::Transaction> out;
  for (u64 k = 0; k < imon::reg::kStatusHeld.get(status); ++k) {
    const u64 info = get(imon::reg::kFifoPop);
    if (imon::reg::kPopValid.get(info) == 0) break;
    probe::Transaction t;
    t.type = ns_.type(static_cast<u32>(imon::reg::kPopType.get(info)));
    t.snoop = static_cast<probe::Snoop>(imon::reg::kPopSnoop.get(info));
    t.source = static_cast<u32>(imon::reg::kPopSource.get(info));
    t.id = static_cast<u32>(imon::reg::kPopId.get(info));
    t.supplier = static_cast<u32>(imon::reg::kPopSupplier.get(info));
    t.address = get(imon::reg::kLatchAddress);
    t.cycle = get(imon::reg::kLatchCycle);
    out.push_back(t);
  }
  return out;
}

}  // namespace hpm::tools
