#include "net/torus.h"

namespace hpm::net {

Torus::Torus(std::vector<u32> dims) : dims_(std::move(dims)), stride_(dims_.size(), 1) {
  for (std::size_t d = dims_.size(); d-- > 0;) {
    stride_[d] = nodes_;
    nodes_ *= dims_[d];
  }
}

u32 Torus::stepIn(u32 at, u32 dst, u32 d) const {
  const u32 size = dims_[d];
  const u32 from = coordinate(at, d);
  const u32 to = coordinate(dst, d);
  if (from == to) return ~u32{0};
  const u32 plus = (to + size - from) % size;  // steps the plus way
  return linkOf(at, d, plus <= size - plus ? 0 : 1, dimensions());
}

u32 Torus::nextLink(u32 at, u32 dst) const {
  for (u32 d = 0; d < dimensions(); ++d) {
    if (const u32 link = stepIn(at, dst, d); link != ~u32{0}) return link;
  }
  return ~u32{0};  // at == dst: no link
}

void Torus::minimalLinks(u32 at, u32 dst, std::vector<u32>& out) const {
  out.clear();
  for (u32 d = 0; d < dimensions(); ++d) {
    if (const u32 link = stepIn(at, dst, d); link != ~u32{0}) out.push_back(link);
  }
}

u32 Torus::linkTarget(u32 link) const {
  const u32 dimensions = this->dimensions();
  const u32 node = link / (2 * dimensions);
  const u32 d = link % (2 * dimensions) / 2;
  const u32 size = dims_[d];
  const u32 from = coordinate(node, d);
  const u32 to = (link & 1) == 0 ? (from + 1) % size : (from + size - 1) % size;
  return node + (to - from) * stride_[d];  // (unsigned wrap: `to < from` subtracts)
}

u32 Torus::hops(u32 src, u32 dst) const {
  u32 n = 0;
  for (u32 d = 0; d < dimensions(); ++d) {
    const u32 size = dims_[d];
    const u32 plus = (coordinate(dst, d) + size - coordinate(src, d)) % size;
    n += plus <= size - plus ? plus : size - plus;
  }
  return n;
}

}  // namespace hpm::net
