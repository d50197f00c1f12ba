#include "node/speculation.h"

#include <bit>

#include "base/error.h"
#include "stats/probe.h"

namespace hpm {

using probe::Event;

Speculation::Speculation(Params p, LineMemory* memory)
    : p_(std::move(p)),
      memory_(memory),
      line_shift_(static_cast<u32>(std::countr_zero(p_.line_bytes))),
      tx_(p_.threads),
      stats_(p_.threads),
      lines_cleaned_(p_.slices, 0) {
  if (p_.threads > kMaxThreads || !std::has_single_bit(p_.line_bytes)) {
    fail(ExitCode::kConfig,
         "the L2's speculation takes at most {} hardware threads and a "
         "power-of-two line",
         kMaxThreads);
  }
}

bool Speculation::begin(u32 hw) {
  if (speculating(hw)) return true;  // flattened
  // (One transaction per hardware thread: the 128 IDs are never all taken by at most 64.)
  if (static_cast<u32>(std::popcount(running_)) >= kIds) return false;
  running_ |= u64{1} << hw;
  tx_[hw].order = next_order_++;
  probe::count(bus_, Event::kTmBegun, hw, stats_[hw].begun);
  return true;
}

Speculation::Outcome Speculation::access(u32 hw, u64 addr, u32 bytes, bool write) {
  Outcome out;
  const u64 me = u64{1} << hw;
  const bool spec = speculating(hw);
  const u64 first = addr >> line_shift_;
  const u64 last = (addr + (bytes == 0 ? 1 : bytes) - 1) >> line_shift_;
  // Who conflicts with the access, and whether the accessing transaction loses.
  u64 others = 0;
  for (u64 line = first; line <= last; ++line) {
    const auto it = lines_.find(line);
    if (it == lines_.end()) continue;
    others |= (it->second.writers | (write ? it->second.readers : 0)) & ~me;
  }
  if (spec) {
    for (u64 o = others; o != 0; o &= o - 1) {
      if (tx_[static_cast<u32>(std::countr_zero(o))].order < tx_[hw].order) {
        out.own_abort = tmreg::kConflict;
        rollback(hw, tmreg::kConflict);
        return out;
      }
    }
  }
  for (u64 o = others; o != 0; o &= o - 1)
    rollback(static_cast<u32>(std::countr_zero(o)), tmreg::kConflict);
  out.victims = others;
  if (!spec) return out;
  Transaction& t = tx_[hw];
  for (u64 line = first; line <= last; ++line) {
    LineState& st = lines_[line];
    if (((st.readers | st.writers) & me) == 0) t.lines.push_back(line);
    if (!write) {
      st.readers |= me;
      continue;
    }
    if ((st.writers & me) != 0) continue;
    // A new version of the line, in its L2 set's ways.
    const u64 line_addr = line << line_shift_;
    u32& versions = versions_[p_.set_of(line_addr)];
    if (versions >= p_.versions_per_set) {
      out.own_abort = tmreg::kCapacity;
      rollback(hw, tmreg::kCapacity);
      return out;
    }
    ++versions;
    st.writers |= me;
    Saved saved{line, std::vector<u8>(p_.line_bytes)};
    if (memory_ == nullptr || !memory_->readLine(line_addr, saved.bytes.data(), p_.line_bytes)) {
      saved.bytes.clear();  // unmapped: the store faults, and there is nothing to restore
    }
    t.saved.push_back(std::move(saved));
  }
  return out;
}

void Speculation::commit(u32 hw) {
  if (!speculating(hw)) return;
  probe::count(bus_, Event::kTmCommitted, hw, stats_[hw].committed);
  finish(hw);
}

void Speculation::rollback(u32 hw, u64 code) {
  if (!speculating(hw)) return;
  for (const Saved& s : tx_[hw].saved) {
    if (!s.bytes.empty() && memory_ != nullptr) {
      memory_->writeLine(s.line << line_shift_, s.bytes.data(), p_.line_bytes);
    }
  }
  probe::count(bus_, Event::kTmRolledBack, hw, stats_[hw].rolled_back);
  if ((code & 0xff) == tmreg::kConflict) {
    probe::count(bus_, Event::kTmConflicts, hw, stats_[hw].conflicts);
  }
  finish(hw);
}

void Speculation::finish(u32 hw) {
  const u64 me = u64{1} << hw;
  Transaction& t = tx_[hw];
  for (const Saved& s : t.saved) {
    const auto it = versions_.find(p_.set_of(s.line << line_shift_));
    if (it != versions_.end() && --it->second == 0) versions_.erase(it);
  }
  for (u64 line : t.lines) {
    const auto it = lines_.find(line);
    if (it == lines_.end()) continue;
    it->second.readers &= ~me;
    it->second.writers &= ~me;
    if ((it->second.readers | it->second.writers) == 0) lines_.erase(it);
    const u32 slice = p_.slice_of(line << line_shift_);
    probe::count(bus_, Event::kTmLinesCleaned, slice, lines_cleaned_[slice]);
  }
  t.lines.clear();
  t.saved.clear();
  running_ &= ~me;
}

}  // namespace hpm
