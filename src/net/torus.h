// The torus between nodes: coordinates, links and deterministic dimension-order routing.
#pragma once

#include <vector>

#include "base/types.h"

namespace hpm::net {

// Node n's coordinates are its digits in the mixed radix of the dimensions, the first dimension
// the most significant (A, B, C, D, E on BG/Q: node ids in the standard ABCDE order, the rank
// order MPI's default mapping gives).
//
// Each node has two links per dimension, plus (direction 0) and minus (1): link l of node n is
// n * 2D + 2 * dim + direction. A dimension of size 1 has no neighbour (its links are unused);
// in a dimension of size 2 both links reach the same neighbour, as BG/Q's cables do.
class Torus {
 public:
  explicit Torus(std::vector<u32> dims);

  u32 nodes() const { return nodes_; }
  u32 dimensions() const { return static_cast<u32>(dims_.size()); }
  const std::vector<u32>& dims() const { return dims_; }
  u32 links() const { return nodes_ * 2 * dimensions(); }
  u32 coordinate(u32 node, u32 dim) const { return node / stride_[dim] % dims_[dim]; }

  // The first link on the route from `at` to `dst` (at != dst): dimension order, first dimension
  // first; in each dimension the shorter way round, plus on a tie.
  u32 nextLink(u32 at, u32 dst) const;
  // The links that bring a packet at `at` one hop nearer `dst` (at != dst), in dimension order:
  // one per dimension still to travel, the shorter way round (plus on a tie). The first is
  // nextLink's. Dynamic routing chooses among them.
  // (`out` is cleared first: a caller's buffer, reused.)
  void minimalLinks(u32 at, u32 dst, std::vector<u32>& out) const;
  // The dimension a link is in.
  u32 linkDimension(u32 link) const { return link % (2 * dimensions()) / 2; }
  // The node a link leads to.
  u32 linkTarget(u32 link) const;
  // Links on the route (its hop count).
  u32 hops(u32 src, u32 dst) const;

  static u32 linkOf(u32 node, u32 dim, u32 direction, u32 dimensions) {
    return node * 2 * dimensions + 2 * dim + direction;
  }

 private:
  // The link from `at` one step nearer `dst` in dimension d (the shorter way, plus on a tie),
  // or ~0 when they agree in it.
  u32 stepIn(u32 at, u32 dst, u32 d) const;

  std::vector<u32> dims_;
  std::vector<u32> stride_;  // nodes per step of each dimension
  u32 nodes_ = 1;
};

}  // namespace hpm::net
