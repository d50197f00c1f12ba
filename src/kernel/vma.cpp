#include "kernel/vma.h"

#include <algorithm>

#include "base/bits.h"
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

bool VmaMap::coversBlocks(u64 start, u64 end, u64 grain) const {
  // A block is left out only when it lies whole in a gap between areas.
  u64 covered = start;  // everything below is covered
  auto it = areas_.lower_bound(start);
  if (it != areas_.begin() && std::prev(it)->second.end > start) it = std::prev(it);
  for (; it != areas_.end() && it->second.start < end; ++it) {
    const Vma& a = it->second;
    if (a.start > covered && alignUp(covered, grain) + grain <= a.start) return false;
    covered = std::max(covered, a.end);
  }
  return covered >= end || alignUp(covered, grain) + grain > end;
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
  regap(start, end);
}

void VmaMap::insert(u64 start, u64 end, u8 perm, std::string name) {
  remove(start, end);
  if (commits(perm)) committed_ += end - start;
  areas_.emplace(start, Vma{start, end, perm, std::move(name)});
  regap(start, end);
}

void VmaMap::regap(u64 start, u64 end) {
  // The gaps from `from` (the start of the last area before `start`, or 0) to `to` (the start of
  // the first area at or after `end`, or kTop) are rebuilt from the areas between. Neither was
  // inside a gap before the change (each starts an area that was there, or lies inside one), so
  // no gap outside them changed.
  auto it = areas_.lower_bound(start);
  if (it != areas_.begin()) --it;
  const u64 from = it == areas_.end() || it->second.start >= start ? 0 : it->second.start;
  if (from == 0) it = areas_.begin();
  const auto next = areas_.lower_bound(end);
  const u64 to = next == areas_.end() ? kTop : next->second.start;
  for (auto g = gaps_.lower_bound(from); g != gaps_.end() && g->first < to;) gaps_.erase(g++);
  u64 cursor = from;
  for (; it != next; ++it) {
    if (it->second.start > cursor) gaps_.insert({cursor, it->second.start});
    cursor = it->second.end;
  }
  if (cursor < to) gaps_.insert({cursor, to});
}

VmaMap::GapTree::const_iterator VmaMap::highestGap(u64 below, u64 length) const {
  // Down from the root: the rightmost node whose key is below `below` and whose gap is long
  // enough. A subtree wholly below `below` whose largest gap is long enough holds one, found
  // along one path; only the path to `below` straddles it.
  using NodeIt = GapTree::node_const_iterator;
  const NodeIt end = gaps_.node_end();
  const std::function<GapTree::const_iterator(NodeIt)> search =
      [&](NodeIt node) -> GapTree::const_iterator {
    if (node == end || node.get_metadata() < length) return gaps_.end();
    const auto& [gap_start, gap_end] = **node;
    if (gap_start >= below) return search(node.get_l_child());
    const auto right = search(node.get_r_child());
    if (right != gaps_.end()) return right;
    if (gap_end - gap_start >= length) return gaps_.find(gap_start);
    return search(node.get_l_child());
  };
  return search(gaps_.node_begin());
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
  // The gap holding the ceiling (or the highest below it), clipped to [floor, ceiling) ...
  auto g = gaps_.lower_bound(ceiling);
  if (g == gaps_.begin()) return std::nullopt;
  --g;
  const u64 top = std::min(g->second, ceiling);
  if (top < floor + length) return std::nullopt;
  if (top - std::max(g->first, floor) >= length) return top - length;
  // ... else the highest gap below it long enough, clipped to the floor.
  const auto below = highestGap(g->first, length);
  if (below == gaps_.end() || below->second < floor + length) return std::nullopt;
  if (below->second - std::max(below->first, floor) < length) return std::nullopt;
  return below->second - length;
}

}  // namespace hpm
