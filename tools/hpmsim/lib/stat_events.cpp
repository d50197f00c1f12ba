#include "tools/hpmsim/lib/stat_events.h"

#include <fmt/core.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "base/error.h"

namespace hpm::tools {
namespace {

// The hardware thread a counter counted: its core's thread "@t<k>" of a thread's event, or the
// core itself on a machine with one thread per core; nullopt for per-core and node-wide counts.
std::optional<u32> hardwareThreadOf(const ProgrammedCounter& c, const NativeEvent* native,
                                    u32 threads_per_core) {
  const int core = c.core >= 0 ? c.core : (native != nullptr ? native->core : -1);
  if (core < 0) return std::nullopt;
  if (native != nullptr && native->thread >= 0) {
    return static_cast<u32>(core) * threads_per_core + static_cast<u32>(native->thread);
  }
  if (threads_per_core == 1) return static_cast<u32>(core);
  return std::nullopt;
}

}  // namespace

bool softwareEvent(const std::string& name) {
  const auto names = Monitor::perfSoftwareEvents();
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool unsupportedPerfEvent(const std::string& name) {
  const auto names = Monitor::perfUnsupportedEvents();
  if (std::find(names.begin(), names.end(), name) != names.end()) return true;
  // (A perf name defined here, on a machine whose units have none of its events: sunfire's
  // instructions, say.)
  const auto& aliases = Monitor::perfAliases();
  return std::any_of(aliases.begin(), aliases.end(),
                     [&name](const auto& alias) { return alias.first == name; });
}

// -e's names with their groups: "{a,b},c" is a and b in group 1, c in none. perf's modifiers
// (":u", ":k", ...) are refused: the guest's instructions all run in user mode and the kernel's
// work is modelled in time, not instructions, so no unit tells the two apart.
std::vector<std::pair<std::string, int>> parseEvents(const std::vector<std::string>& items) {
  std::vector<std::pair<std::string, int>> out;
  int groups = 0;
  for (const std::string& item : items) {
    int group = 0;
    std::string name;
    const auto flush = [&] {
      if (name.empty()) return;
      if (const auto colon = name.find(':'); colon != std::string::npos) {
        fail(ExitCode::kUsage,
             "stat: '{}': modifiers such as ':{}' are not supported: the guest's instructions all "
             "run in user mode and the kernel's work is modelled as time, so the units count "
             "both alike (count '{}')",
             name, name.substr(colon + 1), name.substr(0, colon));
      }
      out.emplace_back(name, group);
      name.clear();
    };
    for (const char c : item) {
      if (c == '{') {
        if (group != 0) fail(ExitCode::kUsage, "stat: -e '{}': groups do not nest", item);
        flush();
        group = ++groups;
      } else if (c == '}') {
        if (group == 0) fail(ExitCode::kUsage, "stat: -e '{}': '}}' without '{{'", item);
        flush();
        group = 0;
      } else if (c == ',') {
        flush();
      } else {
        name += c;
      }
    }
    if (group != 0) fail(ExitCode::kUsage, "stat: -e '{}': '{{' without '}}'", item);
    flush();
  }
  return out;
}

const NativeEvent* rawEvent(const Monitor& monitor, const std::string& name) {
  if (name.size() < 2 || name.size() > 9 || name[0] != 'r' ||
      name.find_first_not_of("0123456789abcdefABCDEF", 1) != std::string::npos) {
    return nullptr;
  }
  const u64 number = std::stoull(name.substr(1), nullptr, 16);
  const std::vector<NativeEvent>& events = monitor.catalogue();
  const bool numbered =
      std::any_of(events.begin(), events.end(), [](const NativeEvent& e) { return e.id >= 0; });
  for (const NativeEvent& e : events) {
    if (e.thread >= 0) continue;
    if (numbered ? e.id == static_cast<i64>(number) : e.input == number) return &e;
  }
  return nullptr;
}

void splitPerThread(Request& r, const Monitor& monitor, u32 threads_per_core) {
  std::vector<const NativeEvent*> natives;
  std::vector<int> signs;
  for (std::size_t i = 0; i < r.natives.size(); ++i) {
    std::vector<const NativeEvent*> variants;
    if (r.natives[i]->thread < 0 && threads_per_core > 1) {
      for (u32 t = 0; t < threads_per_core; ++t) {
        if (const NativeEvent* v = monitor.find(fmt::format("{}@t{}", r.natives[i]->name, t))) {
          variants.push_back(v);
        }
      }
    }
    if (variants.size() != threads_per_core) variants = {r.natives[i]};
    for (const NativeEvent* v : variants) {
      natives.push_back(v);
      signs.push_back(r.signs[i]);
    }
  }
  r.natives = std::move(natives);
  r.signs = std::move(signs);
}

std::vector<ThreadGroup> perThread(const Kernel& kernel, const Monitor& monitor,
                                   const std::vector<ProgrammedCounter>& counters,
                                   const std::vector<Request>& requests, u32 threads_per_core,
                                   const std::function<bool(const ProgrammedCounter&)>& counted) {
  std::map<u32, std::map<std::string, i64>> by_hw;
  for (const ProgrammedCounter& c : counters) {
    const NativeEvent* native = monitor.find(c.event);
    const std::optional<u32> hw = hardwareThreadOf(c, native, threads_per_core);
    if (!hw || !counted(c)) continue;
    for (const Request& r : requests) {
      if (const int sign = r.signOf(native); sign != 0) {
        by_hw[*hw][r.name] += sign * static_cast<i64>(c.value);
      }
    }
  }
  // Union-find over hardware threads, joined by the threads placed on several.
  std::map<u32, u32> parent;
  const auto root = [&parent](u32 h) {
    while (parent.at(h) != h) h = parent[h] = parent[parent[h]];
    return h;
  };
  for (const auto& t : kernel.threads()) {
    for (u32 h : t->placed_on) parent.emplace(h, h);
    for (u32 h : t->placed_on) parent[root(h)] = root(t->placed_on.front());
  }
  std::map<u32, ThreadGroup> groups;  // by root
  for (const auto& t : kernel.threads()) {
    if (!t->placed_on.empty()) groups[root(t->placed_on.front())].tids.push_back(t->tid());
  }
  for (const auto& [h, p] : parent) {
    ThreadGroup& g = groups[root(h)];
    g.hardware_threads.push_back(h);
    if (!by_hw.contains(h)) continue;
    for (const auto& [name, n] : by_hw.at(h)) g.counts[name] += n > 0 ? static_cast<u64>(n) : 0;
  }
  std::vector<ThreadGroup> out;
  for (auto& [r, g] : groups) {
    std::sort(g.tids.begin(), g.tids.end());
    out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.tids < b.tids; });
  return out;
}

std::vector<std::vector<const NativeEvent*>> multiplexedSets(Monitor& monitor,
                                                             const std::vector<Request>& requests,
                                                             bool cores_chosen) {
  std::vector<std::vector<const NativeEvent*>> sets;
  const auto inSet = [&sets](const NativeEvent* e) {
    return std::any_of(sets.begin(), sets.end(), [e](const auto& set) {
      return std::find(set.begin(), set.end(), e) != set.end();
    });
  };
  for (std::size_t i = 0; i < requests.size();) {
    // A request, or every request of its group.
    std::size_t end = i + 1;
    while (requests[i].group != 0 && end < requests.size() &&
           requests[end].group == requests[i].group) {
      ++end;
    }
    std::vector<const NativeEvent*> unit;
    for (std::size_t j = i; j < end; ++j) {
      for (const NativeEvent* e : requests[j].natives) {
        if (!inSet(e) && std::find(unit.begin(), unit.end(), e) == unit.end()) unit.push_back(e);
      }
    }
    std::vector<std::string> members;
    for (std::size_t j = i; j < end; ++j) members.push_back(requests[j].name);
    const std::string what = requests[i].group != 0
                                 ? fmt::format("group {{{}}}", fmt::join(members, ","))
                                 : fmt::format("'{}'", requests[i].name);
    i = end;
    if (unit.empty()) continue;
    if (const auto why = monitor.hostFits(unit)) {
      // Not even alone: the counters cannot take it in any slice. The --cores hint is for
      // names that stand for an event of every core (generic and perf names); a conflict
      // between native events has no such way out.
      const bool node_wide = std::any_of(members.begin(), members.end(), [&](const auto& name) {
        return std::any_of(requests.begin(), requests.end(), [&](const Request& r) {
          return r.name == name && r.natives.size() > 1;
        });
      });
      const std::string_view hint = monitor.family() ? monitor.family()->node_wide_hint : "";
      if (hint.empty() || cores_chosen || !node_wide) {
        fail(ExitCode::kUsage, "stat: {} cannot be counted, not even alone or multiplexed: {}",
             what, *why);
      }
      fail(ExitCode::kUsage, "stat: {} cannot be counted, not even alone or multiplexed: {}.\n{}",
           what, *why, hint);
    }
    std::vector<const NativeEvent*> grown = sets.empty() ? unit : sets.back();
    if (!sets.empty()) grown.insert(grown.end(), unit.begin(), unit.end());
    if (!sets.empty() && !monitor.hostFits(grown)) {
      sets.back() = std::move(grown);
    } else {
      sets.push_back(std::move(unit));
    }
  }
  return sets;
}

}  // namespace hpm::tools
