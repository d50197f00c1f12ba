// A set-associative tag array with per-line timestamps, as flat arrays (no allocation after
// construction, no per-access hashing), all zero when empty: the arrays are ZeroArrays, so a
// large cache takes host memory only for the sets a run touches. It keeps no statistics and knows
// nothing of timing: the memory system (memory_system.h) decides what an access means and counts it
// in one place.
//
// A line is named by its line address (byte address >> log2(line bytes)). Its set is
// (line >> set_shift) & (sets - 1): set_shift is 0 for the private caches; an L2 slice skips the
// low bits that chose the slice. Each line carries `ready` (the cycle its data arrives: a fill
// is installed when it is requested, so later accesses can wait for it), `meta` (the L2's
// sharer mask) and `flags` (dirty, prefetched, shared).
#pragma once

#include <array>

#include "base/types.h"
#include "base/zero_array.h"
#include "mem/mem_params.h"

namespace hpm::mem {

class Cache {
 public:
  static constexpr u32 kNone = ~u32{0};
  static constexpr u64 kInvalid = ~u64{0};
  // kShared (a Fireplane external cache's line): other caches may hold copies. With kDirty it
  // makes the MOESI states: M dirty, O dirty|shared, E clean, S shared.
  enum Flag : u8 { kDirty = 1, kPrefetched = 2, kShared = 4, kListPrefetched = 8 };

  Cache() = default;
  Cache(u32 sets, u32 ways, u32 set_shift, Replacement replacement, u64 seed);

  u32 sets() const { return sets_; }
  u32 ways() const { return ways_; }

  // The slot holding `line`, or kNone. No side effect.
  // (A line is in at most one slot, so a slot that holds it is the answer: the slot found last
  // for lines of the same low bits is tried first, a direct-mapped memo in front of the ways.)
  u32 find(u64 line) const {
    const u64 key = line + 1;
    u32& memo = memo_[line & (kMemo - 1)];
    if (memo < keys_.size() && keys_[memo] == key) return memo;
    const u32 base = setBase(line);
    for (u32 w = 0; w < ways_; ++w) {
      if (keys_[base + w] == key) {
        memo = base + w;
        return base + w;
      }
    }
    return kNone;
  }
  // A hit: refreshes the slot's age under LRU.
  void touch(u32 slot) {
    if (replacement_ == Replacement::kLru) age_[slot] = ++clock_;
  }
  // The slot a fill of `line` replaces: an invalid slot of its set, else the policy's victim.
  u32 victim(u64 line);
  // Installs `line` in `slot` (from victim()); the caller has dealt with the previous line.
  void install(u32 slot, u64 line, Cycle ready) {
    keys_[slot] = line + 1;
    age_[slot] = ++clock_;
    ready_[slot] = ready;
    meta_[slot] = 0;
    flags_[slot] = 0;
  }
  void invalidate(u32 slot) {
    keys_[slot] = 0;
    age_[slot] = 0;  // the first choice of victim()
    flags_[slot] = 0;
    meta_[slot] = 0;
  }

  u64 tag(u32 slot) const { return keys_[slot] - 1; }  // kInvalid for an invalid slot
  bool valid(u32 slot) const { return keys_[slot] != 0; }
  Cycle ready(u32 slot) const { return ready_[slot]; }
  void setReady(u32 slot, Cycle c) { ready_[slot] = c; }
  u64 meta(u32 slot) const { return meta_[slot]; }
  void setMeta(u32 slot, u64 m) { meta_[slot] = m; }
  u8 flags(u32 slot) const { return flags_[slot]; }
  void setFlags(u32 slot, u8 f) { flags_[slot] = f; }

 private:
  u32 setBase(u64 line) const { return static_cast<u32>((line >> set_shift_) & set_mask_) * ways_; }

  u32 sets_ = 0;
  u32 ways_ = 0;
  u32 set_shift_ = 0;
  u64 set_mask_ = 0;
  Replacement replacement_ = Replacement::kLru;
  u64 clock_ = 0;  // age stamps: larger is younger; 0 marks an invalid slot
  u64 rng_ = 1;
  // By a line's low bits, the slot find() found last for such a line (a host-side shortcut: no
  // model state; a stale entry only fails its check).
  static constexpr u32 kMemo = 256;
  mutable std::array<u32, kMemo> memo_{};
  // Per slot: the line + 1 (0: invalid, so that empty is all zero), the age stamp, ready, meta
  // and flags.
  ZeroArray<u64> keys_;
  ZeroArray<u64> age_;
  ZeroArray<Cycle> ready_;
  ZeroArray<u64> meta_;
  ZeroArray<u8> flags_;
};

}  // namespace hpm::mem
