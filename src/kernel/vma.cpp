#include "kernel/vma.h"

#include <algorithm>

#include "hart/memory.h"

namespace hpm {

bool VmaMap::commits(u8 perm) {
  return (perm & (GuestMemory::kRead | GuestMemory::kWrite | GuestMemory::kExec)) != 0;
}

u64 VmaMap::committedIn(u64 start, u64 end) const {
  u64 bytes = 0;
  auto it = areas_.lower_bound(start);
  if (it != areas_.begin() && std::prev(it)->second.end > start) it = std::prev(it);
  for (; it != areas_.end() && it->second.start < end; ++it) {
    if (!commits(it->second.perm)) continue;
    bytes += std::min(it->second.end, end) - std::max(it->second.start, start);
  }
  return bytes;
}

void VmaMap::remove(u64 start, u64 end) {
  if (start >= end) return;
  auto it = areas_.lower_bound(start);
  if (it != areas_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end > start) it = prev;
  }
  committed_ -= committedIn(start, end);
  while (it != areas_.end() && it->second.start < end) {
    Vma area = it->second;
    it = areas_.erase(it);
    if (area.start < start) {
      Vma left = area;
      left.end = start;
      areas_.emplace(left.start, left);
    }
    if (area.end > end) {
      Vma right = area;
      right.start = end;
      it = areas_.emplace(right.start, right).first;
      ++it;
    }
  }
}

void VmaMap::insert(u64 start, u64 end, u8 perm, std::string name) {
  remove(start, end);
  if (commits(perm)) committed_ += end - start;
  areas_.emplace(start, Vma{start, end, perm, std::move(name)});
}

void VmaMap::protect(u64 start, u64 end, u8 perm) {
  // Collect the mapped pieces first, then re-insert them with the new protection.
  std::map<u64, Vma> pieces;
  auto it = areas_.lower_bound(start);
  if (it != areas_.begin() && std::prev(it)->second.end > start) it = std::prev(it);
  for (; it != areas_.end() && it->second.start < end; ++it) {
    Vma piece = it->second;
    piece.start = std::max(piece.start, start);
    piece.end = std::min(piece.end, end);
    piece.perm = perm;
    pieces.emplace(piece.start, piece);
  }
  for (auto& [s, piece] : pieces) insert(piece.start, piece.end, piece.perm, piece.name);
}

bool VmaMap::isFree(u64 start, u64 end) const {
  auto it = areas_.lower_bound(start);
  if (it != areas_.end() && it->second.start < end) return false;
  if (it != areas_.begin() && std::prev(it)->second.end > start) return false;
  return true;
}

bool VmaMap::isFullyMapped(u64 start, u64 end) const {
  u64 cursor = start;
  while (cursor < end) {
    const Vma* area = find(cursor);
    if (area == nullptr) return false;
    cursor = area->end;
  }
  return true;
}

const Vma* VmaMap::find(u64 addr) const {
  auto it = areas_.upper_bound(addr);
  if (it == areas_.begin()) return nullptr;
  --it;
  return addr < it->second.end ? &it->second : nullptr;
}

std::optional<u64> VmaMap::findFreeTopDown(u64 length, u64 floor, u64 ceiling) const {
  if (length == 0 || ceiling < floor || ceiling - floor < length) return std::nullopt;
  u64 top = ceiling;  // candidate end of the range
  auto it = areas_.lower_bound(top);
  // Walk areas downward from the ceiling, looking at the gap above each.
  while (true) {
    u64 gap_floor = floor;
    if (it != areas_.begin()) {
      auto prev = std::prev(it);
      gap_floor = std::max(floor, prev->second.end);
      if (prev->second.end > top) {  // the ceiling lies inside this area
        top = prev->second.start;
        it = prev;
        if (top < floor + length) return std::nullopt;
        continue;
      }
    }
    if (top >= gap_floor + length) return top - length;
    if (it == areas_.begin()) return std::nullopt;
    --it;
    top = it->second.start;
    if (top < floor + length) return std::nullopt;
  }
}

}  // namespace hpm
