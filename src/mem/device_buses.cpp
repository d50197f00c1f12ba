#include "mem/device_buses.h"

namespace hpm::mem {

using probe::DeviceBus;
using probe::Event;

namespace {

// The statistics' names, by bus (docs/timing.md "Device buses").
constexpr std::string_view kReadNames[] = {"devbus_reads", "netbus_reads"};
constexpr std::string_view kWriteNames[] = {"devbus_writes", "netbus_writes"};
static_assert(std::size(kReadNames) == probe::kDeviceBuses);

}  // namespace

void DeviceBuses::access(u32 core, u64 addr, bool write) {
  const u32 b = static_cast<u32>(router_ ? router_(addr) : DeviceBus::kDevice);
  DeviceBusStats& s = stats_[core];
  const u32 instance = core * probe::kDeviceBuses + b;
  if (write) {
    probe::count(bus_, Event::kDeviceBusWrites, instance, s.writes[b]);
  } else {
    probe::count(bus_, Event::kDeviceBusReads, instance, s.reads[b]);
  }
}

void DeviceBuses::visitCore(u32 core, stats::Visitor& v) const {
  const DeviceBusStats& s = stats_[core];
  for (u32 b = 0; b < probe::kDeviceBuses; ++b) {
    v.counter(kReadNames[b], s.reads[b], probe::describe(Event::kDeviceBusReads));
    v.counter(kWriteNames[b], s.writes[b], probe::describe(Event::kDeviceBusWrites));
  }
}

// ---- Ground truth ----

// One row: `stat` (of core c's statistics `s`, bus b, for instance i = c x buses + b).
#define HPM_BUS_TRUTH(event, stat)                                               \
  probe::TruthRow<DeviceBuses> {                                                 \
    probe::Event::event, [](const DeviceBuses& m, u32 i, probe::TruthTerms& t) { \
      const DeviceBusStats& s = m.stats_[i / probe::kDeviceBuses];               \
      const u32 b = i % probe::kDeviceBuses;                                     \
      t.push_back({&(stat)});                                                    \
    }                                                                            \
  }

std::span<const probe::TruthRow<DeviceBuses>> DeviceBuses::truthTable() {
  static const probe::TruthRow<DeviceBuses> kRows[] = {
      HPM_BUS_TRUTH(kDeviceBusReads, s.reads[b]),
      HPM_BUS_TRUTH(kDeviceBusWrites, s.writes[b]),
  };
  return kRows;
}

#undef HPM_BUS_TRUTH

std::optional<u64> DeviceBuses::groundTruth(Event e, u32 instance) const {
  return probe::truthOf(truthTable(), *this, e, instance);
}

void DeviceBuses::registerTallies(probe::Bus& bus,
                                  const std::function<const u64*(u32)>& core_version) const {
  // (probe::registerTallies takes a kOwnCore instance for its core; here instance i is bus
  // i % buses of core i / buses.)
  const probe::Topology& topology = bus.topology();
  for (const probe::TruthRow<DeviceBuses>& row : truthTable()) {
    for (u32 i = 0; i < topology.instances(probe::info(row.event).scope); ++i) {
      const u32 input = bus.input(row.event, i);
      probe::TruthTerms terms;
      row.terms(*this, i, terms);
      for (const probe::TallyTerm& t : terms) bus.addTally(input, t.value, t.weight);
      bus.setTallyTruth(input, row.truth);
      const u32 core = i / probe::kDeviceBuses;
      bus.setTallyVersion(input, core_version(core), core);
    }
  }
}

}  // namespace hpm::mem
