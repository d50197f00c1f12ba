#include "tools/hpmsim/lib/upc_config.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/core.h>

#include "base/error.h"

namespace hpm::tools {
namespace {

// The largest counter configuration read (a real one is a few hundred bytes).
constexpr std::uintmax_t kMaxConfigBytes = 1 << 20;

}  // namespace

std::vector<const NativeEvent*> parseUpcConfig(const std::string& path,
                                               const std::vector<NativeEvent>& catalogue,
                                               u32 counters) {
  std::ifstream in(path);
  if (!in) fail(ExitCode::kIo, "--upc-config: cannot read '{}': {}", path, std::strerror(errno));
  // A regular file of bounded size: a device (/dev/zero) or a fifo would be read without end.
  if (!std::filesystem::is_regular_file(path)) {
    fail(ExitCode::kIo, "--upc-config: '{}' is not a regular file", path);
  }
  if (std::filesystem::file_size(path) > kMaxConfigBytes) {
    fail(ExitCode::kIo, "--upc-config: '{}' is larger than {} bytes: not a configuration", path,
         kMaxConfigBytes);
  }
  std::map<u32, const NativeEvent*> by_counter;
  std::map<u32, u32> named_at;  // counter -> line of the event name that took it
  u32 line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string word, extra;
    if (!(words >> word)) continue;
    if (word == "select") {
      u32 select = 0;
      if (!(words >> select) || (words >> extra)) {
        fail(ExitCode::kUsage, "{}:{}: expected `select S`", path, line_number);
      }
      for (u32 c = 0; c < counters; ++c) {
        const NativeEvent* e = nullptr;
        for (const NativeEvent& n : catalogue) {
          if (n.counter == static_cast<i32>(c) && n.select == static_cast<i32>(select)) e = &n;
        }
        if (e == nullptr) {
          fail(ExitCode::kUsage, "{}:{}: select {} names no event of counter {} (hpmsim events)",
               path, line_number, select, c);
        }
        if (!named_at.contains(c)) by_counter[c] = e;
      }
      continue;
    }
    if (words >> extra) {
      fail(ExitCode::kUsage, "{}:{}: one event name per line ('{}' follows '{}')", path,
           line_number, extra, word);
    }
    const auto named = std::find_if(catalogue.begin(), catalogue.end(),
                                    [&word](const NativeEvent& n) { return n.name == word; });
    const NativeEvent* e = named != catalogue.end() ? &*named : nullptr;
    if (e == nullptr) {
      fail(ExitCode::kUsage, "{}:{}: unknown event '{}' (hpmsim events --machine bgp)", path,
           line_number, word);
    }
    const u32 c = static_cast<u32>(e->counter);
    if (auto it = named_at.find(c); it != named_at.end() && by_counter[c] != e) {
      fail(ExitCode::kUsage,
           "{}:{}: {} and {} (line {}) are both inputs of counter {}: UPC-P counts one of them "
           "per run",
           path, line_number, word, by_counter[c]->name, it->second, c);
    }
    by_counter[c] = e;
    named_at[c] = line_number;
  }
  std::vector<const NativeEvent*> events;
  for (const auto& [c, e] : by_counter) events.push_back(e);
  if (events.empty()) fail(ExitCode::kUsage, "--upc-config: '{}' programs no counter", path);
  return events;
}

std::vector<UpcCounterRow> upcCounterRows(Monitor& upc, u32 counters, Cycle now) {
  std::vector<UpcCounterRow> rows;
  for (const ProgrammedCounter& c : upc.readHost(now)) {
    // (The select field of the counter's byte in the configuration registers after the counts.)
    const u64 config = upc.readRegister(0, 8 * u64{counters} + 8 * (c.counter / 8));
    const u32 select = (config >> (8 * (c.counter % 8))) & 3;
    const NativeEvent* e = upc.find(c.event);
    for (const NativeEvent& other : upc.catalogue()) {
      if (other.counter == static_cast<i32>(c.counter) && other.select == static_cast<i32>(select))
        e = &other;
    }
    rows.push_back({c.counter, select, e->name, c.value, e->name != c.event});
  }
  return rows;
}

std::string upcCountersText(const std::string& path, Cycle cycles,
                            const std::vector<UpcCounterRow>& rows) {
  std::string out =
      fmt::format("hpmsim: UPC-P counters programmed by {} ({} counters, {} cycles)\n", path,
                  rows.size(), cycles);
  out += fmt::format("{:>8} {:>7}  {:<36} {:>20}\n", "counter", "select", "event", "value");
  for (const UpcCounterRow& r : rows) {
    out += fmt::format("{:>8} {:>7}  {:<36} {:>20}{}\n", r.counter, r.select, r.event, r.value,
                       r.reprogrammed ? "  (reprogrammed by the guest)" : "");
  }
  return out;
}

}  // namespace hpm::tools
