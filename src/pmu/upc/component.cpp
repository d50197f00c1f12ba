#include "pmu/upc/component.h"

#include "base/error.h"

namespace hpm::upc {

Component::Component(const Params& params)
    : params_(params), unit_(params), config_bytes_(params.counters, 0) {
  // (The reset state, read before any input: counting stopped.)
  running_ = (unit_.read(unit_.map().start_stop, 0) & 1) != 0;
}

bool Component::write(u64 offset, u64 value, Cycle now) {
  unit_.write(offset, value, now);
  const RegisterMap& map = unit_.map();
  if (offset == map.start_stop) running_ = (value & 1) != 0;
  if (offset >= map.config_base && offset < map.start_stop && offset % 8 == 0) {
    const u32 group = static_cast<u32>((offset - map.config_base) / 8);
    for (u32 j = 0; j < 8; ++j) config_bytes_[8 * group + j] = static_cast<u8>(value >> (8 * j));
    return true;
  }
  return false;
}

bool Component::plainCounting(u32 /*port*/, u32 event) const {
  // Under round-robin only (largest-first wants its inputs in global time order): a counter
  // whose byte says level high and no interrupt.
  if (params_.policy != Policy::kRoundRobin) return false;
  const u8 byte = config_bytes_[event % params_.counters];
  return ((byte >> 2) & 3) == 0 && (byte & 0x10) == 0;
}

std::vector<pmu::CounterUnit::Windows> Component::windows(u32 /*port*/, u32 event) const {
  const u32 c = event % params_.counters;
  const Cycle first = unit_.nextVisit(c, 0);
  return {Windows{first, unit_.nextVisit(c, first + 1) - first}};
}

std::vector<pmu::CounterUnit::DetectedFault> Component::detectedFaults() const {
  std::vector<DetectedFault> out;
  for (const Unit::ParityReport& r : unit_.parityReports()) {
    out.push_back({r.counter, r.cycle, r.interrupted});
  }
  return out;
}

void Component::onInterrupt(InterruptSink sink) {
  unit_.onInterrupt([sink = std::move(sink)](const Interrupt& i) { sink(i.counter, i.cycle); });
}

u32 Component::hostAdd(u32 /*port*/, u32 event, u32 /*mode*/, std::string_view name) {
  const u32 c = event % params_.counters;
  auto [it, fresh] = host_.emplace(c, HostInput{event, std::string(name)});
  if (!fresh && it->second.event != event) {
    fail(ExitCode::kUsage,
         "UPC-P cannot count {} and {} together: both are inputs of counter {} (selects {} "
         "and {}), and each input has exactly one counter. No assignment counts both in one "
         "run: use two runs, or count one of them",
         it->second.name, name, c, it->second.event / params_.counters, event / params_.counters);
  }
  return c;
}

void Component::hostStart(Cycle now) {
  if (host_.empty()) return;
  const u32 n = params_.counters;
  std::vector<u64> config((n + 7) / 8, 0);
  for (const auto& [c, input] : host_) {
    config[c / 8] |= u64{input.event / n} << (8 * (c % 8));
  }
  const RegisterMap& map = unit_.map();
  for (u32 g = 0; g < config.size(); ++g) write(map.config(g), config[g], now);
  write(map.start_stop, 1, now);
  host_started_ = true;
}

void Component::hostStop(Cycle now) {
  if (host_started_) write(unit_.map().start_stop, 0, now);
  host_started_ = false;
  host_.clear();
}

}  // namespace hpm::upc
