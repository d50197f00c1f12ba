#include "mem/frames.h"

namespace hpm::mem {

FrameTable::FrameTable(const FireplaneParams& bus, u32 cores) : bus_(bus), cores_(cores) {
  placed_.assign(bus_.boards, 0);
}

std::optional<u64> FrameTable::peek(u64 va) const {
  const u64 vpage = va >> kPageBits;
  const Recent& r = recent_[vpage & (kRecent - 1)];
  if (r.vpage == vpage) return r.frame | (va & kPageMask);
  const auto it = frames_.find(vpage);
  if (it == frames_.end()) return std::nullopt;
  return it->second | (va & kPageMask);
}

std::optional<u64> FrameTable::virtualOf(u64 pa) const {
  const auto it = pages_.find(pa & ~kPageMask);
  if (it == pages_.end()) return std::nullopt;
  return it->second << kPageBits | (pa & kPageMask);
}

u64 FrameTable::place(u64 va, u32 core) {
  const u64 vpage = va >> kPageBits;
  auto [it, fresh] = frames_.try_emplace(vpage, 0);
  if (fresh) {
    u32 board = 0;
    switch (bus_.placement) {
      case Placement::kFirstTouch: board = bus_.boardOf(core, cores_); break;
      case Placement::kInterleave: board = static_cast<u32>(vpage % bus_.boards); break;
      case Placement::kOneBoard: board = bus_.home_board; break;
    }
    it->second = (u64{board} << kBoardShift) | (placed_[board]++ << kPageBits);
    pages_.emplace(it->second, vpage);
  }
  recent_[vpage & (kRecent - 1)] = Recent{vpage, it->second};
  return it->second | (va & kPageMask);
}

}  // namespace hpm::mem
