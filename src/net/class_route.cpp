#include "net/class_route.h"

#include <algorithm>

namespace hpm::net {

Box Box::world(const Torus& torus) {
  return Box{std::vector<u32>(torus.dimensions(), 0), torus.dims()};
}

bool Box::contains(const Torus& torus, u32 node) const {
  for (u32 d = 0; d < torus.dimensions(); ++d) {
    const u32 c = torus.coordinate(node, d);
    if (c < low[d] || c >= low[d] + size[d]) return false;
  }
  return true;
}

Box ClassWrite::box(u32 dimensions) const {
  Box b;
  for (u32 d = 0; d < std::min(dimensions, kClassDims); ++d) {
    b.low.push_back(low[d]);
    b.size.push_back(size[d]);
  }
  return b;
}

std::optional<ClassRoute> ClassRoute::make(const Torus& torus, const Box& box, u32 root,
                                           ClassType type) {
  const u32 dims = torus.dimensions();
  if (box.low.size() != dims || box.size.size() != dims || root >= torus.nodes()) {
    return std::nullopt;
  }
  for (u32 d = 0; d < dims; ++d) {
    if (box.size[d] == 0 || box.low[d] + box.size[d] > torus.dims()[d]) return std::nullopt;
  }
  if (!box.contains(torus, root)) return std::nullopt;
  ClassRoute r;
  r.type_ = type;
  r.root_ = root;
  r.dimensions_ = dims;
  r.up_.assign(torus.nodes(), kNone);
  r.children_.resize(torus.nodes());
  r.down_.assign(torus.links(), kNone);
  for (u32 n = 0; n < torus.nodes(); ++n) {
    if (!box.contains(torus, n)) continue;
    ++r.members_;
    if (n == root) continue;
    // The first dimension where n and the root differ; the shorter way round where the box is
    // the whole ring (plus on a tie, as Torus::nextLink), else straight towards the root.
    for (u32 d = 0; d < dims; ++d) {
      const u32 from = torus.coordinate(n, d), to = torus.coordinate(root, d);
      if (from == to) continue;
      u32 direction = from < to ? 0 : 1;
      if (box.size[d] == torus.dims()[d]) {
        const u32 size = torus.dims()[d];
        const u32 plus = (to + size - from) % size;
        direction = plus <= size - plus ? 0 : 1;
      }
      const u32 link = Torus::linkOf(n, d, direction, dims);
      const u32 parent = torus.linkTarget(link);
      r.up_[n] = link;
      r.children_[parent].push_back(link);
      r.down_[link] = Torus::linkOf(parent, d, direction ^ 1, dims);
      break;
    }
  }
  for (u32 n = 0; n < torus.nodes(); ++n) {
    std::sort(r.children_[n].begin(), r.children_[n].end());
    u32 hops = 0;
    for (u32 at = n; r.up_[at] != kNone; at = torus.linkTarget(r.up_[at])) ++hops;
    r.depth_ = std::max(r.depth_, hops);
  }
  return r;
}

u32 ClassRoute::childToward(u32 node, u32 dst) const {
  // Up from dst until the next step reaches node (the tree has no cycles: each step is nearer
  // the root).
  for (u32 at = dst; up_[at] != kNone;) {
    const u32 link = up_[at];
    // (The parent is the far end of the link: found through the parent's down link.)
    const u32 parent = down_[link] / (2 * dimensions_);
    if (parent == node) return link;
    at = parent;
  }
  return kNone;
}

u16 ClassRoute::inputBits(u32 node) const {
  // BG/Q's input order: A-, A+, ..., E-, E+ (the neighbour on that side), I/O, local: bit 11
  // for the first. A child on node's minus side sends up its plus link.
  u16 bits = member(node) ? 1 : 0;  // the local client
  for (const u32 link : children_[node]) {
    const u32 d = link % (2 * dimensions_) / 2, plus = (link & 1) == 0 ? 1 : 0;
    const u32 input = 2 * d + (plus != 0 ? 0 : 1);
    if (input < 10) bits |= static_cast<u16>(1u << (11 - input));
  }
  return bits;
}

u16 ClassRoute::outputBits(u32 node) const {
  if (up_[node] == kNone) return 0;
  const u32 link = up_[node];
  const u32 d = link % (2 * dimensions_) / 2;
  const u32 output = 2 * d + ((link & 1) == 0 ? 1 : 0);  // (towards the plus side: X+)
  return output < 10 ? static_cast<u16>(1u << (11 - output)) : 0;
}

}  // namespace hpm::net
