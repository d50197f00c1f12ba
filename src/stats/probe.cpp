#include "stats/probe.h"

#include <algorithm>
#include <cctype>

namespace hpm::probe {

std::string_view scopeName(Scope s) {
  switch (s) {
    case Scope::kThread: return "hardware thread";
    case Scope::kCore: return "core";
    case Scope::kL2Slice: return "L2 slice";
    case Scope::kController: return "memory controller";
    case Scope::kNode: return "node";
    case Scope::kKernel: return "kernel";
    case Scope::kLink: return "torus link";
    case Scope::kSnoopFilter: return "snoop filter";
    case Scope::kSnoopPort: return "snoop port";
    case Scope::kL3Bank: return "L3 bank";
    case Scope::kL3ReadPort: return "L3 read port";
    case Scope::kL3WritePort: return "L3 write port";
    case Scope::kL3Directory: return "L3 directory";
    case Scope::kDeviceBus: return "device bus";
    case Scope::kColPort: return "collective network port";
    case Scope::kColClass: return "collective class route";
  }
  return "?";
}

std::string upperName(Event e) {
  // "L1dMisses" -> "L1D_MISSES", "CoreL2Reads" -> "CORE_L2_READS": a word starts at an uppercase
  // letter after a lowercase letter or a digit.
  const std::string_view name = info(e).name;
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (i > 0 && std::isupper(static_cast<unsigned char>(c)) &&
        (std::islower(static_cast<unsigned char>(name[i - 1])) ||
         std::isdigit(static_cast<unsigned char>(name[i - 1])))) {
      out += '_';
    }
    out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

u32 Topology::instances(Scope s) const {
  switch (s) {
    case Scope::kThread: return threads;
    case Scope::kCore: return cores;
    case Scope::kL2Slice: return slices;
    case Scope::kController: return controllers;
    case Scope::kNode:
    case Scope::kKernel: return 1;
    case Scope::kLink: return links;
    case Scope::kSnoopFilter: return snoop_ports == 0 ? 0 : cores;
    case Scope::kSnoopPort: return cores * snoop_ports;
    case Scope::kL3Bank: return l3_banks;
    case Scope::kL3ReadPort: return l3_banks * kL3ReadPorts;
    case Scope::kL3WritePort: return l3_banks * kL3WritePorts;
    case Scope::kL3Directory: return l3_banks * kL3Directories;
    case Scope::kDeviceBus: return cores * device_buses;
    case Scope::kColPort: return col_ports;
    case Scope::kColClass: return col_classes;
  }
  return 1;
}

Bus::Bus(const Topology& topology, u32 opcodes) : topology_(topology), opcodes_(opcodes) {
  u32 next = 0;
  for (std::size_t e = 0; e < kEventCount; ++e) {
    base_.push_back(next);
    next += topology_.instances(kEventInfo[e].scope);
  }
  op_base_ = next;
  next += opcodes * topology_.threads;
  wanted_.assign(next, 0);
  batches_.assign(next, PulseBatch{});
  level_batches_.assign(next, LevelBatch{});
  tally_kind_.assign(next, TallyKind::kNone);
  tally_truth_.assign(next, 1);
  tallies_.assign(next, {});
  tally_versions_.assign(next, {nullptr, 0});
  tally_active_.assign(next, 0);
}

std::pair<Event, u32> Bus::eventOf(u32 input) const {
  if (input >= op_base_) return {Event::kCount, (input - op_base_) / topology_.threads};
  const auto it = std::upper_bound(base_.begin(), base_.end(), input);
  const auto e = static_cast<std::size_t>(it - base_.begin()) - 1;
  return {static_cast<Event>(e), input - base_[e]};
}

void Bus::addTally(u32 input, const u64* value, u64 weight) {
  tally_kind_[input] = TallyKind::kTerms;
  tallies_[input].push_back(TallyTerm{value, weight});
}

u64 Bus::tallyValue(u32 input) const {
  u64 sum = 0;
  for (const TallyTerm& t : tallies_[input]) sum += t.weight * *t.value;
  return sum;
}

}  // namespace hpm::probe
