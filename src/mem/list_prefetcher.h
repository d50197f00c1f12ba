// The L1P's list prefetcher (BG/Q's "perfect prefetcher"; docs/timing.md "The list
// prefetcher"), one per hardware thread. Started around a code region, it records the L1D miss
// addresses of the region's run into a list in guest memory and, on a later run, replays the
// list the previous run recorded: it compares each new miss with the list and prefetches the
// lines the list holds next, so a region whose misses repeat (a gather through an index array,
// a pointer chase) finds its lines in the L1P.
//
// The guest reaches it through the register window /dev/hpm/l1p (namespace l1plist below; the
// node's device, node/l1p_device.h), as BG/Q's SPI reached its L1P's MMIO registers
// (spi/include/l1p/pprefetch.h: L1P_PatternConfigure, L1P_PatternStart(record), ...Stop,
// ...Pause, ...Resume, ...Status). Facts from that header: each hardware thread has its own list
// prefetcher; an entry of a list is a 4-byte word (L1P_LISTWORDSIZE); there are two lists, the
// one replayed (read) and the one recorded (written), which the library swaps when a recording
// run stops; unused entries are all ones; the abandon threshold (L1P_PP_MAXTOL) is the number
// of consecutive misses that match nothing after which the list is abandoned; the status has
// finished, abandoned, maximum length reached and end of list. BGPM's events (PEVT_L1P_LIST_*)
// say that a miss is compared with the list and may match after skipping 1 to 7 entries.
//
// The model's rules (what the header does not say is an estimate, marked so in docs/timing.md):
//  - every L1D load miss of the thread (an L1P lookup, hit or miss) while the list runs is
//    recorded (unless recording is inhibited) and, while the read list is loaded and neither
//    abandoned nor at its end, compared with the read list's entries from the current position
//    on, kWindow of them: a match at offset 0 is a plain match, at offset k in 1..7 a skip of k;
//    the position moves past the matched entry. No match is a mismatch; more than `maxtol`
//    consecutive mismatches abandon the list.
//  - after each match the prefetcher requests the lines of the entries up to `depth` past the
//    position (each once); a match at or beyond the entries already requested is a compare that
//    overran the prefetch (PEVT_L1P_LIST_CMP_OVRUN_PREFCH).
//  - an entry is the low 32 bits of the line number (the address over the line size); its
//    upper bits are taken from the miss that is being compared. An entry of all ones ends the
//    list. A recording that fills the list's memory stops recording (overflow); a stop writes
//    the end mark after the last entry when there is room.
//  - list reads and writes take no interconnect bandwidth (a deviation: on BG/Q they are L1P
//    requests of their own).
#pragma once

#include <array>
#include <vector>

#include "base/types.h"

namespace hpm::mem {

// The register window's contract (guest/include/hpm/l1p.h declares the same facts for guest
// code; tests/mem/list_prefetcher_test.cpp holds them equal). 64-bit registers; each hardware
// thread that accesses the window reaches its own list prefetcher.
namespace l1plist {
inline constexpr u64 kCtrl = 0x00;       // control (kStart, kLoad, kInhibit, kPause, depth)
inline constexpr u64 kStatus = 0x08;     // status bits; a write clears the bits it sets
inline constexpr u64 kMaxTol = 0x10;     // abandon threshold: consecutive mismatches tolerated
inline constexpr u64 kReadBase = 0x18;   // guest address of the list replayed
inline constexpr u64 kWriteBase = 0x20;  // guest address of the list recorded
inline constexpr u64 kSize = 0x28;       // bytes of each list (4 per entry)
inline constexpr u64 kReadPos = 0x30;    // entries of the read list passed (read only)
inline constexpr u64 kWritePos = 0x38;   // entries recorded (read only)
inline constexpr u64 kWindowBytes = 4096;
// kCtrl's bits, and its depth field (bits 8..11: lines prefetched ahead; 0: kDefaultDepth).
inline constexpr u64 kStart = 1, kLoad = 2, kInhibit = 4, kPause = 8;
inline constexpr u32 kDepthShift = 8;
inline constexpr u64 kDepthMask = 0xf;
// kStatus's bits.
inline constexpr u64 kFinished = 1, kAbandoned = 2, kMaxLength = 4, kEndOfList = 8;
inline constexpr u32 kEntryBytes = 4;  // L1P_LISTWORDSIZE
inline constexpr u32 kEndMark = 0xffffffff;
inline constexpr u32 kWindow = 8;        // entries compared with a miss: the current and 7 more
inline constexpr u32 kDefaultDepth = 4;  // estimate
}  // namespace l1plist

// Where the lists are: guest memory, 4-byte words at guest addresses. A false return is an
// address the guest cannot access (the list ends there; a recording overflows).
class ListMemory {
 public:
  virtual ~ListMemory() = default;
  virtual bool read32(u64 addr, u32& value) = 0;
  virtual bool write32(u64 addr, u32 value) = 0;
};

// One hardware thread's counts: each is the ground truth of its event (probe.h).
struct ListStats {
  u64 started = 0;   // starts (PEVT_L1P_LIST_STARTED)
  u64 compares = 0;  // misses compared with the read list (PEVT_L1P_LIST_CMP)
  std::array<u64, l1plist::kWindow> skip_by{};  // [k]: matches after skipping k entries (k >= 1)
  u64 skips = 0;                                // matches after a skip (PEVT_L1P_LIST_SKIP)
  u64 mismatches = 0;  // compares that matched no entry (PEVT_L1P_LIST_MISMATCH)
  u64 abandons = 0;    // lists abandoned (PEVT_L1P_LIST_ABANDON)
  u64 overflows = 0;   // recordings that filled their memory (PEVT_L1P_LIST_OVF_MEM)
  u64 overruns = 0;    // matches beyond the prefetched entries (PEVT_L1P_LIST_CMP_OVRUN_PREFCH)
  u64 prefetches = 0;  // lines requested for the list (PEVT_L1P_STRM_LINE_ESTB_ALL_LIST)
};

// What one miss did: the events it raised (each at most once), and the lines to prefetch.
struct ListOutcome {
  bool compared = false, mismatch = false, abandoned = false, overflow = false, overrun = false;
  u32 skip = 0;  // 0: none or a plain match; k in 1..7: a skip of k
  std::vector<u64> lines;
};

class ListPrefetcher {
 public:
  // Register accesses of the thread that owns it (offsets of l1plist). A write to kCtrl that
  // sets kStart starts a run (positions to zero, status cleared), one that clears it stops the
  // run (the end mark written, kFinished set).
  u64 read(u64 offset) const;
  // Returns whether the run started (true) or stopped (false) with this write, or neither.
  enum class Change : u8 { kNone, kStarted, kStopped };
  Change write(u64 offset, u64 value, ListMemory& memory);

  // Whether misses reach it now (started and not paused).
  bool active() const { return (ctrl_ & l1plist::kStart) != 0 && (ctrl_ & l1plist::kPause) == 0; }
  // An L1D load miss to line `line` (address over the line size) while active(): records it,
  // compares it; `out` gets what happened (cleared first).
  void onMiss(u64 line, ListMemory& memory, ListOutcome& out);

 private:
  u64 entries() const { return size_ / l1plist::kEntryBytes; }
  u32 depth() const {
    const u32 d = static_cast<u32>((ctrl_ >> l1plist::kDepthShift) & l1plist::kDepthMask);
    return d == 0 ? l1plist::kDefaultDepth : d;
  }
  // Entry i of the read list in `value`; false past its end (the end mark, the list's size, an
  // address the guest cannot read).
  bool readEntry(u64 i, ListMemory& memory, u32& value) const;

  u64 ctrl_ = 0;
  u64 status_ = 0;
  u64 maxtol_ = ~u64{0};
  u64 read_base_ = 0, write_base_ = 0, size_ = 0;
  u64 read_pos_ = 0;   // the next entry of the read list a miss is compared with
  u64 write_pos_ = 0;  // the next entry recorded
  u64 requested_ = 0;  // entries of the read list whose lines were requested: [0, requested_)
  u64 mismatch_run_ = 0;
};

}  // namespace hpm::mem
