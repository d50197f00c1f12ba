// Blue Gene/Q's collective class routes on the torus: for a box of nodes (the world, or a
// sub-rectangle) and a root, each member's up-tree inputs (the links from its children and its
// local client) and its output link toward the root (none at the root). The routers combine
// collective packets along these trees (net/network.h, "Collectives"; docs/network.md
// "Collectives on Blue Gene/Q's torus").
//
// Facts (jedbrown/bgq-driver, hwi/include/bqc/classroute.h): 16 collective class routes and 16
// GI (barrier) class routes per node; a class route is 12 up-tree input bits (the 10 torus links
// A-, A+, ..., E-, E+, the I/O link, the local client) and at most one output bit, none at the
// root; its class type (user comm-world, system, user sub-communicator) must match the packet's
// virtual channel (4, 6 and 5: MU_CollectiveNetworkHeader.h).
//
// The tree hpmsim builds: each member's parent is the first hop of the deterministic
// dimension-order route to the root inside the box (the first dimension where they differ, the
// shorter way round where the box spans the whole torus in that dimension, else straight
// towards the root). Every member's path up is then a shortest path, so the tree is as shallow
// as the box allows (its depth is the farthest member's hop count), it stays inside the box, and
// it is the path a deterministic point-to-point packet to the root takes. (IBM's control system
// computes the real trees; their shape is not published.)
#pragma once

#include <array>
#include <optional>
#include <vector>

#include "base/types.h"
#include "net/torus.h"

namespace hpm::net {

// The class routes a node has of each kind (classroute.h: BGQ_COLL_CLASS_MAX_CLASSROUTES and
// BGQ_GI_CLASS_MAX_CLASSROUTES), and those hpmsim's kernel sets up as CNK does (cnk/src/rank.cc:
// class 0 the job's world for user programs, 14 the system's job-wide class; GI classes 14 and 15
// system-only).
inline constexpr u32 kClassRoutes = 16;
inline constexpr u32 kWorldClass = 0, kSystemClass = 14;

// The class type (classroute.h's 2-bit field: '00' user comm-world, '01' system, '10' user
// sub-communicator).
enum class ClassType : u8 { kUserWorld = 0, kSystem = 1, kUserSubcomm = 2 };

// A box of the torus: in each dimension the coordinates low .. low + size - 1 (no wrap).
struct Box {
  std::vector<u32> low;
  std::vector<u32> size;
  // The whole torus.
  static Box world(const Torus& torus);
  bool contains(const Torus& torus, u32 node) const;
};

// One node's write of one of its class route registers (the message unit's CLASS_SET): from
// the network's next step its router routes that class by the tree it names. Plain bytes, so
// that the hosts of a run exchange it as it is (no padding).
inline constexpr u32 kClassDims = 8;  // the most torus dimensions a write names
struct ClassWrite {
  u32 node = 0;
  u32 root = 0;  // the tree's root node
  Cycle at = 0;  // the write's cycle
  u8 cls = 0;
  // 1: a GI (barrier) class route, else a collective one.
  u8 gi = 0;
  u8 set = 0;   // 0: clears the register
  u8 type = 0;  // ClassType
  // The tree's box (Box), per dimension.
  std::array<u8, kClassDims> low{}, size{};
  u32 reserved = 0;
  Box box(u32 dimensions) const;
};
static_assert(sizeof(ClassWrite) == 40, "ClassWrite has no padding");

class ClassRoute {
 public:
  static constexpr u32 kNone = ~u32{0};
  // The tree of `box` rooted at `root` (a member). Returns nullopt when the box does not fit the
  // torus or does not hold the root.
  static std::optional<ClassRoute> make(const Torus& torus, const Box& box, u32 root,
                                        ClassType type);

  ClassType type() const { return type_; }
  u32 root() const { return root_; }
  u32 members() const { return members_; }
  bool member(u32 node) const { return up_[node] != kNone || node == root_; }
  // The link from `node` towards the root (kNone at the root and outside the box).
  u32 up(u32 node) const { return up_[node]; }
  // The links arriving at `node` from its children (their up links), in link order: with the
  // local client, its up-tree inputs.
  const std::vector<u32>& childLinks(u32 node) const { return children_[node]; }
  // The link from the parent down to the child whose up link is `child_up` (the same cable the
  // other way).
  u32 downLink(u32 child_up) const { return down_[child_up]; }
  // The child of `node` whose subtree holds `dst` (a member below `node`): its up link; kNone
  // when `dst` is not below `node`.
  u32 childToward(u32 node, u32 dst) const;
  // The most hops from a member up to the root.
  u32 depth() const { return depth_; }
  // The class route's 12 up-tree input bits and output bits as BG/Q orders them (bit 11 - i for
  // input i: A-, A+, ..., E-, E+, I/O, local; the torus's first five dimensions), for `node`.
  u16 inputBits(u32 node) const;
  u16 outputBits(u32 node) const;

 private:
  ClassType type_ = ClassType::kUserWorld;
  u32 root_ = 0;
  u32 members_ = 0;
  u32 depth_ = 0;
  u32 dimensions_ = 0;
  std::vector<u32> up_;
  std::vector<std::vector<u32>> children_;
  std::vector<u32> down_;  // by child up link: the parent's link to the child
};

}  // namespace hpm::net
