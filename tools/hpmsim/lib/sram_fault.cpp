#include "tools/hpmsim/lib/sram_fault.h"

#include <fmt/core.h>

#include <charconv>
#include <cstdio>
#include <map>

#include "base/error.h"
#include "node/monitor.h"
#include "pmu/counter_unit.h"

namespace hpm::tools {
namespace {

u64 number(const std::string& spec, const std::string& key, const std::string& text) {
  u64 v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    fail(ExitCode::kUsage, "--sram-fault '{}': {} must be a number, not '{}'", spec, key, text);
  }
  return v;
}

}  // namespace

void scheduleSramFaults(const std::vector<std::string>& specs, Monitor* monitor,
                        const std::string& machine) {
  if (specs.empty()) return;
  if (monitor == nullptr) {
    fail(ExitCode::kUsage, "--sram-fault: machine {} has no counter unit (monitor.unit = none)",
         machine);
  }
  const auto& units = monitor->units();
  for (const std::string& spec : specs) {
    std::map<std::string, std::string> parts;
    std::size_t at = 0;
    while (at <= spec.size()) {
      const std::size_t comma = std::min(spec.find(',', at), spec.size());
      const std::string part = spec.substr(at, comma - at);
      const std::size_t eq = part.find('=');
      if (eq == std::string::npos) {
        fail(ExitCode::kUsage,
             "--sram-fault '{}': expected KEY=VALUE, not '{}' (keys: counter, "
             "cycle, bit, unit)",
             spec, part);
      }
      const std::string key = part.substr(0, eq);
      if (key != "counter" && key != "cycle" && key != "bit" && key != "unit") {
        fail(ExitCode::kUsage,
             "--sram-fault '{}': unknown key '{}' (keys: counter, cycle, bit, unit)", spec, key);
      }
      if (!parts.emplace(key, part.substr(eq + 1)).second) {
        fail(ExitCode::kUsage, "--sram-fault '{}': '{}' given twice", spec, key);
      }
      at = comma + 1;
    }
    for (const char* key : {"counter", "cycle"}) {
      if (!parts.contains(key)) fail(ExitCode::kUsage, "--sram-fault '{}': no {}=", spec, key);
    }
    Monitor::SramFault f;
    bool found = false;
    for (u32 d = 0; d < units.size() && !found; ++d) {
      const bool named = parts.contains("unit") ? units[d]->path() == parts["unit"]
                                                : units[d]->sramEntryBits() > 0;
      if (named) {
        f.device = d;
        found = true;
      }
    }
    if (!found) {
      if (parts.contains("unit")) {
        fail(ExitCode::kUsage, "--sram-fault '{}': machine {} has no unit {}", spec, machine,
             parts["unit"]);
      }
      fail(ExitCode::kUsage,
           "--sram-fault: machine {}'s counter units keep their counts in no SRAM (UPC-P, the "
           "bgp machine's unit, does)",
           machine);
    }
    f.counter = static_cast<u32>(number(spec, "counter", parts["counter"]));
    f.at = number(spec, "cycle", parts["cycle"]);
    f.bit = parts.contains("bit") ? static_cast<u32>(number(spec, "bit", parts["bit"])) : 0;
    monitor->scheduleSramFault(f);
  }
}

void reportSramFaults(const Monitor& monitor, Cycle end) {
  for (const Monitor::SramFault& f : monitor.sramFaults()) {
    const pmu::CounterUnit& unit = *monitor.units()[f.device];
    const std::string what =
        fmt::format("hpmsim: SRAM fault in {} counter {} bit {}", unit.path(), f.counter, f.bit);
    if (f.applied == ~Cycle{0}) {
      fmt::print(stderr, "{}: not injected: the run ended at cycle {}, before cycle {}\n", what,
                 end, f.at);
      continue;
    }
    const pmu::CounterUnit::DetectedFault* seen = nullptr;
    const auto detected = unit.detectedFaults();
    for (const auto& d : detected) {
      if (d.counter == f.counter && d.cycle >= f.applied) {
        seen = &d;
        break;
      }
    }
    if (seen == nullptr) {
      fmt::print(stderr,
                 "{}: flipped at cycle {}; not detected (no read of the entry followed by the "
                 "end, cycle {})\n",
                 what, f.applied, end);
    } else {
      fmt::print(stderr, "{}: flipped at cycle {}; detected at cycle {} ({})\n", what, f.applied,
                 seen->cycle,
                 seen->interrupted ? "parity error: status registers and an interrupt"
                                   : "parity error: status registers; parity interrupts were off");
    }
  }
}

}  // namespace hpm::tools
