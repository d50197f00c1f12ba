#include "pmu/imon/unit.h"

#include <algorithm>

#include "base/error.h"
#include "pmu/imon/events.h"
#include "stats/stats.h"

namespace hpm::imon {

void Stats::visit(stats::Visitor& v) const {
  v.counter("transactions", transactions, "Transactions delivered while the unit wanted them");
  v.counter("matched", matched, "Counter increments, over every counter");
  v.counter("fifo_records", fifo_records, "Transactions recorded in a sequence FIFO");
  v.counter("fifo_lost", fifo_lost, "Records pushed out of a full FIFO (overruns)");
  v.counter("fifo_pops", fifo_pops, "FIFO entries software took");
}

Unit::Unit(const Params& params)
    : p_(params), ns_(probe::transactionNamespace(params.interconnect)) {
  if (p_.monitors < 1 || p_.monitors > 16) {
    fail(ExitCode::kConfig, "imon.monitors = {} must be between 1 and 16", p_.monitors);
  }
  if (p_.counter_bits < 1 || p_.counter_bits > 64) {
    fail(ExitCode::kConfig, "imon.counter_bits = {} must be between 1 and 64", p_.counter_bits);
  }
  if (p_.fifo_entries < 1 || p_.fifo_entries > 255) {
    fail(ExitCode::kConfig, "imon.fifo_entries = {} must be between 1 and 255", p_.fifo_entries);
  }
  value_mask_ = p_.counter_bits == 64 ? ~u64{0} : (u64{1} << p_.counter_bits) - 1;
  counters_.resize(std::size_t{p_.monitors} * kCountersPerMonitor);
  fifos_.resize(p_.monitors);
  for (Fifo& f : fifos_) f.ring.resize(p_.fifo_entries);
}

u64 Unit::windowBytes() const {
  const u64 end = reg::kMonitorBase + u64{p_.monitors} * reg::kMonitorStride;
  return (end + 4095) / 4096 * 4096;
}

void Unit::refresh() {
  bool wants = false;
  for (u32 m = 0; m < p_.monitors; ++m) {
    for (u32 c = 0; c < kCountersPerMonitor; ++c) {
      const Filter& f = counters_[m * kCountersPerMonitor + c].filter;
      if (!f.live()) continue;
      wants = wants || (run_ >> m & 1) != 0 || (c == kFifoCounter && fifos_[m].enabled);
    }
  }
  if (wants != wants_) {
    wants_ = wants;
    ++epoch_;
  }
}

void Unit::transaction(const probe::Transaction& t) {
  now_ = std::max(now_, t.cycle);
  ++stats_.transactions;
  for (u32 m = 0; m < p_.monitors; ++m) {
    const bool running = (run_ >> m & 1) != 0;
    Fifo& fifo = fifos_[m];
    if (!running && !fifo.enabled) continue;
    for (u32 c = 0; c < kCountersPerMonitor; ++c) {
      Counter& counter = counters_[m * kCountersPerMonitor + c];
      if (!counter.filter.matches(t)) continue;
      if (running) {
        counter.value = (counter.value + 1) & value_mask_;
        ++stats_.matched;
      }
      if (c == kFifoCounter && fifo.enabled) {
        if (fifo.held == p_.fifo_entries) {  // full: the oldest goes
          fifo.head = (fifo.head + 1) % p_.fifo_entries;
          --fifo.held;
          ++fifo.lost;
          ++stats_.fifo_lost;
        }
        fifo.ring[(fifo.head + fifo.held++) % p_.fifo_entries] = t;
        ++stats_.fifo_records;
      }
    }
  }
}

u64 Unit::read(u64 offset, Cycle now) {
  advanceTo(now);
  if (offset == reg::kInfo) {
    return reg::kInfoMonitors.put(p_.monitors) | reg::kInfoCounters.put(kCountersPerMonitor) |
           reg::kInfoFifoEntries.put(p_.fifo_entries) | reg::kInfoCounterBits.put(p_.counter_bits) |
           reg::kInfoTypes.put(ns_.size) | reg::kInfoSnoops.put(probe::kSnoopResults) |
           reg::kInfoIdBits.put(probe::kTransactionIdBits) |
           reg::kInfoInterconnect.put(static_cast<u64>(p_.interconnect));
  }
  if (offset == reg::kRun) return run_;
  if (offset < reg::kMonitorBase || offset % 8 != 0) return 0;
  const u64 m = (offset - reg::kMonitorBase) / reg::kMonitorStride;
  if (m >= p_.monitors) return 0;
  return readMonitor(static_cast<u32>(m), (offset - reg::kMonitorBase) % reg::kMonitorStride);
}

u64 Unit::readMonitor(u32 m, u64 off) {
  Fifo& fifo = fifos_[m];
  if (off < kCountersPerMonitor * reg::kCounterStride) {
    const Counter& c = counters_[m * kCountersPerMonitor + off / reg::kCounterStride];
    switch (off % reg::kCounterStride) {
      case reg::kTypes: return ns_.local(c.filter.types);
      case reg::kAddrMatch: return c.filter.addr_match;
      case reg::kAddrMask: return c.filter.addr_mask;
      case reg::kIdMatch: return c.filter.id_match;
      case reg::kIdMask: return c.filter.id_mask;
      case reg::kSnoops: return c.filter.snoops;
      case reg::kCount: return c.value;
      default: return 0;
    }
  }
  switch (off) {
    case reg::kFifoEnable: return fifo.enabled ? 1 : 0;
    case reg::kFifoStatus: {
      const u64 status = reg::kStatusHeld.put(fifo.held) |
                         reg::kStatusOverrun.put(fifo.lost != 0 ? 1 : 0) |
                         reg::kStatusLost.put(std::min(fifo.lost, reg::kStatusLost.mask()));
      fifo.lost = 0;
      return status;
    }
    case reg::kFifoPop: {
      if (fifo.held == 0) return 0;
      fifo.latch = fifo.ring[fifo.head];
      fifo.head = (fifo.head + 1) % p_.fifo_entries;
      --fifo.held;
      ++stats_.fifo_pops;
      const probe::Transaction& t = fifo.latch;
      return reg::kPopValid.put(1) | reg::kPopType.put(ns_.bitOf(t.type)) |
             reg::kPopSnoop.put(static_cast<u64>(t.snoop)) |
             reg::kPopSource.put(t.source & reg::kPopSource.mask()) | reg::kPopId.put(t.id) |
             reg::kPopSupplier.put(t.supplier & reg::kPopSupplier.mask());
    }
    case reg::kLatchAddress: return fifo.latch.address;
    case reg::kLatchCycle: return fifo.latch.cycle;
    default: return 0;
  }
}

bool Unit::write(u64 offset, u64 value, Cycle now) {
  advanceTo(now);
  bool changed = false;
  if (offset == reg::kRun) {
    run_ = value & ((u64{1} << p_.monitors) - 1);
    changed = true;
  } else if (offset >= reg::kMonitorBase && offset % 8 == 0) {
    const u64 m = (offset - reg::kMonitorBase) / reg::kMonitorStride;
    if (m < p_.monitors) {
      changed = writeMonitor(static_cast<u32>(m),
                             (offset - reg::kMonitorBase) % reg::kMonitorStride, value);
    }
  }
  if (changed) refresh();
  return changed;
}

bool Unit::writeNarrow(u64 offset, unsigned size, u64 value, Cycle now) {
  const u64 reg = offset & ~u64{7};
  // The registers a narrow store merges into: RUN, and a monitor's counters' filters and
  // values and its FIFO_ENABLE, whose reads have no side effects.
  bool plain = reg == reg::kRun;
  if (reg >= reg::kMonitorBase && reg < reg::kMonitorBase + p_.monitors * reg::kMonitorStride) {
    const u64 off = (reg - reg::kMonitorBase) % reg::kMonitorStride;
    plain = off < kCountersPerMonitor * reg::kCounterStride || off == reg::kFifoEnable;
  }
  if (!plain) return false;
  const unsigned shift = static_cast<unsigned>(offset & 7) * 8;
  const u64 mask = ((u64{1} << (size * 8)) - 1) << shift;
  const u64 old = read(reg, now);  // (a plain register: reading it changes nothing)
  return write(reg, (old & ~mask) | ((value << shift) & mask), now);
}

bool Unit::writeMonitor(u32 m, u64 off, u64 value) {
  Fifo& fifo = fifos_[m];
  if (off < kCountersPerMonitor * reg::kCounterStride) {
    Counter& c = counters_[m * kCountersPerMonitor + off / reg::kCounterStride];
    switch (off % reg::kCounterStride) {
      case reg::kTypes: c.filter.types = ns_.global(value); break;
      case reg::kAddrMatch: c.filter.addr_match = value; break;
      case reg::kAddrMask: c.filter.addr_mask = value; break;
      case reg::kIdMatch: c.filter.id_match = value & Filter::kIdBits; break;
      case reg::kIdMask: c.filter.id_mask = value & Filter::kIdBits; break;
      case reg::kSnoops: c.filter.snoops = value & ((u64{1} << probe::kSnoopResults) - 1); break;
      case reg::kCount: c.value = value & value_mask_; return false;
      default: return false;
    }
    return true;
  }
  switch (off) {
    case reg::kFifoEnable: fifo.enabled = (value & 1) != 0; return true;
    default: return false;  // read-only or reserved: ignored
  }
}

u32 Unit::hostAdd(u32 port, u32 event, u32 mode, std::string_view name) {
  (void)port, (void)mode;
  const auto table = presets(p_.interconnect);
  if (event >= table.size()) fail(ExitCode::kInternal, "imon: no preset {}", event);
  if (host_next_ >= counters_.size()) {
    fail(ExitCode::kUsage,
         "{} does not fit: the interconnect monitor's {} counters are taken (imon.monitors = {} "
         "monitors of 2)",
         name, counters_.size(), p_.monitors);
  }
  host_.emplace_back(host_next_, event);
  return host_next_++;
}

void Unit::hostStart(Cycle now) {
  if (host_.empty()) return;
  const auto table = presets(p_.interconnect);
  u64 run = 0;
  for (const auto& [counter, preset] : host_) {
    const u64 base = reg::kMonitorBase + counter / kCountersPerMonitor * reg::kMonitorStride +
                     counter % kCountersPerMonitor * reg::kCounterStride;
    write(base + reg::kTypes, ns_.local(table[preset].types), now);
    write(base + reg::kSnoops, table[preset].snoops, now);
    run |= u64{1} << (counter / kCountersPerMonitor);
  }
  write(reg::kRun, run, now);
  host_started_ = true;
}

void Unit::hostStop(Cycle now) {
  if (host_started_) write(reg::kRun, 0, now);
  host_started_ = false;
  hostClear();
}

u64 Unit::counterOffset(u32 counter) const {
  return reg::kMonitorBase + counter / kCountersPerMonitor * reg::kMonitorStride +
         counter % kCountersPerMonitor * reg::kCounterStride + reg::kCount;
}

}  // namespace hpm::imon
