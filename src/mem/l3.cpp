#include "mem/l3.h"

#include <algorithm>
#include <string>

namespace hpm::mem {

using probe::describe;
using probe::Event;

namespace {
// Returns reserved this long before a new one are dropped: requests reach a bank in issue order,
// a few hundred cycles apart at most, so none can want the path that far back.
constexpr Cycle kReturnHorizon = Cycle{1} << 14;
}  // namespace

void L3BankStats::visit(stats::Visitor& v) const {
  static constexpr const char* kReadPortNames[] = {"rd0", "rd1", "r2"};
  for (u32 port = 0; port < read.size(); ++port) {
    const L3ReadPortStats& r = read[port];
    const std::string n = kReadPortNames[port];
    v.counter(n + "_single_lines", r.single_lines, describe(Event::kL3SingleLines));
    v.counter(n + "_bursts", r.bursts, describe(Event::kL3Bursts));
    v.counter(n + "_return_collisions", r.collisions, describe(Event::kL3ReturnCollisions));
    v.counter(n + "_dir0_hits", r.hits[0], describe(Event::kL3Dir0Hits));
    v.counter(n + "_dir0_misses", r.misses[0], describe(Event::kL3Dir0Misses));
    v.counter(n + "_dir1_hits", r.hits[1], describe(Event::kL3Dir1Hits));
    v.counter(n + "_dir1_misses", r.misses[1], describe(Event::kL3Dir1Misses));
  }
  for (u32 d = 0; d < lookups.size(); ++d) {
    const std::string n = "dir" + std::to_string(d);
    v.counter(n + "_lookups", lookups[d], describe(Event::kL3DirLookups));
    v.counter(n + "_wait_cycles", lookup_wait_cycles[d], describe(Event::kL3DirWaitCycles));
  }
  for (u32 w = 0; w < deposits.size(); ++w) {
    const std::string n = "w" + std::to_string(w);
    v.counter(n + "_deposits", deposits[w], describe(Event::kL3Deposits));
    v.counter(n + "_wait_cycles", deposit_wait_cycles[w], describe(Event::kL3DepositWaitCycles));
  }
  v.counter("allocations", allocations, describe(Event::kL3Allocations));
  v.counter("allocation_wait_cycles", allocation_wait_cycles,
            describe(Event::kL3AllocationWaitCycles));
  v.counter("ddr_fetches", ddr_fetches, describe(Event::kL3DdrFetches));
  v.counter("edram_prefetches", edram_prefetches, describe(Event::kL3EdramPrefetches));
}

L3Banks::L3Banks(const L3Params& p, u32 banks, u32 line_bytes, u32 set_shift)
    : p_(p), set_shift_(set_shift) {
  return_cycles_ = (line_bytes + p_.return_bytes_per_cycle - 1) / p_.return_bytes_per_cycle;
  stats_.assign(banks, {});
  versions_.assign(banks, 0);
  dir_free_.assign(banks * kDirectories, 0);
  dir_counted_.assign(banks * kDirectories, 0);
  wport_free_.assign(banks * kWritePorts, 0);
  wport_counted_.assign(banks * kWritePorts, 0);
  mh_free_.assign(u64{banks} * p_.miss_handler_entries, 0);
  mh_counted_.assign(banks, 0);
  returns_.assign(banks, {});
}

void L3Banks::waited(Event e, u32 instance, u32 bank, Cycle p, Cycle start, Cycle& counted_until,
                     u64& stat) {
  const Cycle from = std::max(p, counted_until);
  if (start > from) add(e, instance, stat, bank, start - from);
  counted_until = std::max(counted_until, start);
}

Cycle L3Banks::lookup(u32 bank, u64 line, Cycle p, bool waits, bool timed) {
  const u32 dir = directoryOf(line);
  const u32 i = bank * kDirectories + dir;
  L3BankStats& s = stats_[bank];
  add(Event::kL3DirLookups, i, s.lookups[dir], bank);
  if (!timed) return p;
  Cycle& free = dir_free_[i];
  const Cycle start = waits ? std::max(p, free) : p;
  if (waits)
    waited(Event::kL3DirWaitCycles, i, bank, p, start, dir_counted_[i], s.lookup_wait_cycles[dir]);
  free = std::max(free, start) + p_.directory_cycles;
  return start;
}

Cycle L3Banks::deposit(u32 bank, u32 port, Cycle p, bool timed) {
  const u32 i = bank * kWritePorts + port;
  L3BankStats& s = stats_[bank];
  add(Event::kL3Deposits, i, s.deposits[port], bank);
  if (!timed) return p;
  Cycle& free = wport_free_[i];
  const Cycle start = std::max(p, free);
  waited(Event::kL3DepositWaitCycles, i, bank, p, start, wport_counted_[i],
         s.deposit_wait_cycles[port]);
  free = start + p_.write_port_cycles;
  return start;
}

void L3Banks::delivered(u32 bank, u32 port, u64 line, bool hit, bool burst) {
  const u32 i = bank * kReadPorts + port;
  L3ReadPortStats& r = stats_[bank].read[port];
  if (burst) {
    add(Event::kL3Bursts, i, r.bursts, bank);
  } else {
    add(Event::kL3SingleLines, i, r.single_lines, bank);
  }
  const u32 dir = directoryOf(line);
  if (hit) {
    add(dir == 0 ? Event::kL3Dir0Hits : Event::kL3Dir1Hits, i, r.hits[dir], bank);
  } else {
    add(dir == 0 ? Event::kL3Dir0Misses : Event::kL3Dir1Misses, i, r.misses[dir], bank);
  }
}

Cycle L3Banks::returnPath(u32 bank, u32 port, Cycle ready, bool waits, bool timed) {
  if (!timed) return ready;
  std::vector<Cycle>& reserved = returns_[bank];
  const Cycle hold = return_cycles_;
  if (!reserved.empty() && reserved.front() + kReturnHorizon < ready) {
    const auto old = std::lower_bound(reserved.begin(), reserved.end(), ready - kReturnHorizon);
    reserved.erase(reserved.begin(), old);
  }
  // The first cycle from `ready` at which the path is free for `hold` cycles (a fetch takes it
  // at `ready` whatever holds it).
  Cycle at = ready;
  auto it =
      std::lower_bound(reserved.begin(), reserved.end(), ready + 1 > hold ? ready + 1 - hold : 0);
  if (waits) {
    for (; it != reserved.end() && *it < at + hold; ++it) {
      if (*it + hold > at) at = *it + hold;
    }
  }
  reserved.insert(std::upper_bound(reserved.begin(), reserved.end(), at), at);
  if (at > ready) {
    add(Event::kL3ReturnCollisions, bank * kReadPorts + port, stats_[bank].read[port].collisions,
        bank);
  }
  return at;
}

Cycle L3Banks::allocate(u32 bank, Cycle p, bool waits, bool timed, u32* entry) {
  L3BankStats& s = stats_[bank];
  add(Event::kL3Allocations, bank, s.allocations, bank);
  *entry = 0;
  if (!timed) return p;
  const auto first = mh_free_.begin() + u64{bank} * p_.miss_handler_entries;
  const auto e = std::min_element(first, first + p_.miss_handler_entries);
  *entry = static_cast<u32>(e - first);
  const Cycle start = waits ? std::max(p, *e) : p;
  if (waits) {
    waited(Event::kL3AllocationWaitCycles, bank, bank, p, start, mh_counted_[bank],
           s.allocation_wait_cycles);
  }
  *e = std::max(*e, start + 1);  // (taken until release says how long)
  return start;
}

// ---- Ground truth ----

// One row: `stat` (an expression of the model `m`, the bank `b` and the port or directory `k`
// of instance i) is the event's count. Every row is shared: any core's requests change them.
#define HPM_L3_TRUTH(event, per, stat)                             \
  probe::TruthRow<L3Banks> {                                       \
    probe::Event::event,                                           \
        [](const L3Banks& m, u32 i, probe::TruthTerms& t) {        \
          [[maybe_unused]] const u32 b = i / (per), k = i % (per); \
          t.push_back({&(stat)});                                  \
        },                                                         \
        probe::Changes::kShared                                    \
  }

std::span<const probe::TruthRow<L3Banks>> L3Banks::truthTable() {
  static const probe::TruthRow<L3Banks> kRows[] = {
      HPM_L3_TRUTH(kL3SingleLines, kReadPorts, m.stats_[b].read[k].single_lines),
      HPM_L3_TRUTH(kL3Bursts, kReadPorts, m.stats_[b].read[k].bursts),
      HPM_L3_TRUTH(kL3ReturnCollisions, kReadPorts, m.stats_[b].read[k].collisions),
      HPM_L3_TRUTH(kL3Dir0Hits, kReadPorts, m.stats_[b].read[k].hits[0]),
      HPM_L3_TRUTH(kL3Dir0Misses, kReadPorts, m.stats_[b].read[k].misses[0]),
      HPM_L3_TRUTH(kL3Dir1Hits, kReadPorts, m.stats_[b].read[k].hits[1]),
      HPM_L3_TRUTH(kL3Dir1Misses, kReadPorts, m.stats_[b].read[k].misses[1]),
      HPM_L3_TRUTH(kL3DirLookups, kDirectories, m.stats_[b].lookups[k]),
      HPM_L3_TRUTH(kL3DirWaitCycles, kDirectories, m.stats_[b].lookup_wait_cycles[k]),
      HPM_L3_TRUTH(kL3Deposits, kWritePorts, m.stats_[b].deposits[k]),
      HPM_L3_TRUTH(kL3DepositWaitCycles, kWritePorts, m.stats_[b].deposit_wait_cycles[k]),
      HPM_L3_TRUTH(kL3Allocations, 1, m.stats_[b].allocations),
      HPM_L3_TRUTH(kL3AllocationWaitCycles, 1, m.stats_[b].allocation_wait_cycles),
      HPM_L3_TRUTH(kL3DdrFetches, 1, m.stats_[b].ddr_fetches),
      HPM_L3_TRUTH(kL3EdramPrefetches, 1, m.stats_[b].edram_prefetches),
  };
  return kRows;
}

#undef HPM_L3_TRUTH

std::optional<u64> L3Banks::groundTruth(Event e, u32 instance) const {
  return probe::truthOf(truthTable(), *this, e, instance);
}

void L3Banks::registerTallies(probe::Bus& bus) const {
  // (probe::registerTallies's shared versions are by instance; here an instance's version is its
  // bank's.)
  const probe::Topology& topology = bus.topology();
  for (const probe::TruthRow<L3Banks>& row : truthTable()) {
    const u32 instances = topology.instances(probe::info(row.event).scope);
    const u32 per = topology.l3_banks == 0 ? 1 : instances / topology.l3_banks;
    for (u32 i = 0; i < instances; ++i) {
      const u32 input = bus.input(row.event, i);
      probe::TruthTerms terms;
      row.terms(*this, i, terms);
      for (const probe::TallyTerm& t : terms) bus.addTally(input, t.value, t.weight);
      bus.setTallyTruth(input, row.truth);
      bus.setTallyVersion(input, &versions_[i / per], probe::Bus::kAnyCore);
    }
  }
}

void L3Banks::visitStats(stats::Visitor& v) const {
  v.beginList("l3_banks");
  for (const L3BankStats& s : stats_) v.group("", s);
  v.endList();
}

}  // namespace hpm::mem
