// The L1P stream prefetcher's establishment policy and depth adaptation (docs/timing.md "The
// stream prefetcher"): the parts of MemorySystem that BG/Q's L1P_CFG_PF_USR drives
// (mem/stream_control.h). The streams' tracking (streamOnMiss, streamOnPrefetchHit) is in
// memory_system.cpp.
//
// The adaptation's rule. US patent 8,347,039 (IBM, "Programmable stream prefetch with resource
// optimization", from the BG/Q contract) states that a load whose line is in the prefetch table
// but whose data is not yet valid increments the prefetching depth of that line's stream, and
// that the engine prefetches within each stream's depth; BGPM's PEVT_L1P_STRM_STRM_DEPTH_STEAL
// says that depth is taken from streams. Where no public source gives the details, the model
// takes the simplest rule that behaved (estimates, marked so in docs/timing.md): one line per
// late hit; the budget is the register's total depth, which also bounds one stream; a stream is
// established with what the budget leaves of the initial depth, at least a line; once the
// established streams' depths use it all, the line comes from the deepest other established stream
// if that is at least two lines deeper than the stream that takes it, or not at all.
#include <algorithm>

#include "mem/memory_system.h"

namespace hpm::mem {

using probe::Event;

void MemorySystem::streamEstablish(u32 core, Stream& s) {
  StreamCore& sc = stream_cores_[core];
  if (!sc.control.establish) return;
  s.confirmed = true;
  s.depth = sc.control.depth;
  if (sc.control.adaptive) {
    // (What the budget has left, at least a line.)
    const u32 left = sc.depth_used < sc.control.total ? sc.control.total - sc.depth_used : 0;
    s.depth = std::max(1u, std::min(s.depth, left));
  }
  sc.depth_used += s.depth;
  probe::count(bus_, Event::kL1pStreamsEstablished, core, l1p_extra_[core].streams_established);
}

void MemorySystem::streamStart(u32 core, Stream& slot, u64 l2line, Cycle at, bool timed) {
  StreamCore& sc = stream_cores_[core];
  sc.depth_used -= slot.depth;
  slot = Stream{l2line + 1, l2line, ++stream_clock_, false, 0};
  if (!sc.control.optimistic) return;
  streamEstablish(core, slot);
  for (u64 x = l2line + 1; x <= l2line + slot.depth; ++x) prefetchLine(core, x, at, timed);
  slot.ahead = l2line + slot.depth;
}

void MemorySystem::streamOnLateHit(u32 core, u64 l2line) {
  probe::count(bus_, Event::kL1pStreamLateHits, core, l1p_extra_[core].late_hits);
  if (!stream_cores_[core].control.adaptive) return;
  Stream* table = &streams_[std::size_t{core} * p_.l1p.streams];
  for (u32 i = 0; i < p_.l1p.streams; ++i) {
    Stream& s = table[i];
    if (s.confirmed && s.next == l2line) {
      streamDeepen(core, s);
      return;
    }
  }
}

void MemorySystem::streamDeepen(u32 core, Stream& s) {
  StreamCore& sc = stream_cores_[core];
  if (s.depth >= sc.control.total) return;
  if (sc.depth_used < sc.control.total) {
    ++s.depth;
    ++sc.depth_used;
    return;
  }
  // The deepest other established stream gives (the least recently used of equals), when it is
  // at least two lines deeper: streams in use together then settle at equal depths instead of
  // taking lines back and forth, and the lines come from streams no longer in use, which grew.
  Stream* table = &streams_[std::size_t{core} * p_.l1p.streams];
  Stream* victim = nullptr;
  for (u32 i = 0; i < p_.l1p.streams; ++i) {
    Stream& t = table[i];
    if (&t == &s || !t.confirmed) continue;
    if (victim == nullptr || t.depth > victim->depth ||
        (t.depth == victim->depth && t.age < victim->age)) {
      victim = &t;
    }
  }
  if (victim == nullptr || victim->depth < s.depth + 2) return;
  --victim->depth;
  ++s.depth;
  probe::count(bus_, Event::kL1pDepthSteals, core, l1p_extra_[core].depth_steals);
}

u32 MemorySystem::streamDepth(u32 core, u64 l2line) const {
  const Stream* table = &streams_[std::size_t{core} * p_.l1p.streams];
  for (u32 i = 0; i < p_.l1p.streams; ++i) {
    if (table[i].confirmed && table[i].next == l2line) return table[i].depth;
  }
  return 0;
}

}  // namespace hpm::mem
