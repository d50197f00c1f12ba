// Physical frames of guest pages on a machine whose memory sits on boards (a Fireplane bus,
// mem_params.h FireplaneParams): the memory system translates every virtual address it is given to
// a 42-bit physical one, placing a page's frame on a board the first time the page reaches it.
// Board b's frames start at b << kBoardShift and are handed out in order; frames are never
// reused (pages a guest unmaps keep theirs). Machines on a crossbar map memory 1:1 and have no
// frame table.
//
// Placement happens in the timing model's order of accesses: "first touch" is the first access
// the memory system sees, not the functional one (they differ only for pages the timing model
// never sees: those have no frame, and /proc/self/pagemap shows them absent).
#pragma once

#include <array>
#include <optional>
#include <unordered_map>
#include <vector>

#include "base/types.h"
#include "mem/mem_params.h"

namespace hpm::mem {

class FrameTable {
 public:
  static constexpr u32 kPageBits = 12;
  static constexpr u64 kPageMask = (u64{1} << kPageBits) - 1;

  FrameTable(const FireplaneParams& bus, u32 cores);

  // The physical address of `va` for an access by `core`, placing its page on first reference.
  u64 physical(u64 va, u32 core) {
    const u64 vpage = va >> kPageBits;
    const Recent& r = recent_[vpage & (kRecent - 1)];
    if (r.vpage == vpage) return r.frame | (va & kPageMask);
    return place(va, core);
  }
  // The physical address of `va` if its page has a frame (no placement).
  std::optional<u64> peek(u64 va) const;
  // The virtual address whose page holds physical address `pa`, if a page has that frame.
  std::optional<u64> virtualOf(u64 pa) const;
  // The board whose memory holds physical address `pa`.
  static u32 homeBoard(u64 pa) { return static_cast<u32>(pa >> kBoardShift); }
  // Pages placed on each board so far.
  const std::vector<u64>& pagesByBoard() const { return placed_; }

 private:
  static constexpr u32 kRecent = 256;  // a direct-mapped cache of translations
  struct Recent {
    u64 vpage = ~u64{0};
    u64 frame = 0;  // the page's physical address
  };
  u64 place(u64 va, u32 core);

  FireplaneParams bus_;
  u32 cores_;
  std::unordered_map<u64, u64> frames_;  // virtual page -> physical page address
  std::unordered_map<u64, u64> pages_;   // physical page address -> virtual page
  std::vector<u64> placed_;              // by board
  std::array<Recent, kRecent> recent_{};
};

}  // namespace hpm::mem
