// Blue Gene/Q's collectives on the torus: the class routes' trees (net/class_route.h), the
// routers' ALU (net/torus_collective.h) and the network's collective rules (net/network.h,
// "Collectives"), each checked against the rule the model documents.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <set>

#include "net/class_route.h"
#include "net/network.h"
#include "net/torus_collective.h"
#include "tests/net/network_test_util.h"

namespace hpm::net {
namespace {

constexpr u64 kClock = 1'600'000'000;
constexpr u64 kHeader = 32;

NetworkParams params() {
  return test::baseParams();
}

ClassRoute world(const Torus& t, u32 root = 0, ClassType type = ClassType::kUserWorld) {
  return *ClassRoute::make(t, Box::world(t), root, type);
}

// A collective packet from `src` whose payload is the 8-byte words `words`.
Packet collPacket(u32 src, u64 seq, Cycle entered, CollType type, u8 op,
                  const std::vector<u64>& words, u32 dst = 0, u8 cls = 0) {
  Packet p;
  p.src = src;
  p.dst = dst;
  p.seq = seq;
  p.entered = entered;
  p.coll = Collective{true, cls, type, op, 8};
  p.bytes.assign(kHeader + (words.size() * 8 + 31) / 32 * 32, 0);
  std::memcpy(p.bytes.data(), &src, 4);
  std::memcpy(p.bytes.data() + kHeader, words.data(), words.size() * 8);
  return p;
}

u64 wordOf(const Packet& p, u32 i) {
  u64 w;
  std::memcpy(&w, p.bytes.data() + kHeader + 8 * i, 8);
  return w;
}

TEST(ClassRoute, EachMembersParentIsTheFirstHopOfTheDimensionOrderRouteToTheRoot) {
  for (const std::vector<u32>& dims : {std::vector<u32>{4, 4, 2}, std::vector<u32>{2, 2, 2, 2, 2},
                                       std::vector<u32>{5, 3}, std::vector<u32>{1}}) {
    const Torus t(dims);
    for (const u32 root : {0u, t.nodes() - 1, t.nodes() / 2}) {
      const ClassRoute r = world(t, root);
      EXPECT_EQ(r.members(), t.nodes());
      EXPECT_EQ(r.up(root), ClassRoute::kNone);
      u32 depth = 0;
      for (u32 n = 0; n < t.nodes(); ++n) {
        EXPECT_TRUE(r.member(n));
        if (n != root) {
          EXPECT_EQ(r.up(n), t.nextLink(n, root)) << n;
        }
        // The path up is a shortest one.
        u32 hops = 0;
        for (u32 at = n; at != root; at = t.linkTarget(r.up(at))) ASSERT_LE(++hops, t.nodes());
        EXPECT_EQ(hops, t.hops(n, root));
        depth = std::max(depth, hops);
        // Its children are those whose up link ends at it, each once.
        for (const u32 c : r.childLinks(n)) {
          EXPECT_EQ(t.linkTarget(c), n);
          EXPECT_EQ(r.up(c / (2 * t.dimensions())), c);
          EXPECT_EQ(t.linkTarget(r.downLink(c)), c / (2 * t.dimensions()));
        }
        // BG/Q's class route bits: the local client and one input per child; one output bit,
        // none at the root.
        EXPECT_EQ(std::popcount(r.inputBits(n)), 1 + static_cast<int>(r.childLinks(n).size()));
        EXPECT_EQ(std::popcount(r.outputBits(n)), n == root ? 0 : 1);
      }
      EXPECT_EQ(r.depth(), depth);
    }
  }
}

TEST(ClassRoute, ASubBoxTreeStaysInsideTheBoxAndGoesStraightTowardsTheRoot) {
  const Torus t({4, 4});
  const Box box{{1, 0}, {2, 3}};  // rows 1-2, columns 0-2: no wrap in the second dimension
  const u32 root = 1 * 4 + 0;
  const ClassRoute r = *ClassRoute::make(t, box, root, ClassType::kUserSubcomm);
  EXPECT_EQ(r.members(), 6u);
  for (u32 n = 0; n < t.nodes(); ++n) {
    EXPECT_EQ(r.member(n), box.contains(t, n)) << n;
    if (!r.member(n)) {
      EXPECT_EQ(r.up(n), ClassRoute::kNone);
      continue;
    }
    for (u32 at = n; at != root; at = t.linkTarget(r.up(at))) {
      EXPECT_TRUE(box.contains(t, t.linkTarget(r.up(at)))) << n;
    }
  }
  // (2,2) to (1,0): column 2 -> 1 -> 0 straight (the shorter way round would wrap to 3).
  EXPECT_EQ(r.depth(), 3u);
  EXPECT_FALSE(ClassRoute::make(t, box, 3 * 4 + 3, ClassType::kUserSubcomm).has_value());
  EXPECT_FALSE(ClassRoute::make(t, Box{{3, 0}, {2, 1}}, 12, ClassType::kUserSubcomm).has_value());
}

TEST(ClassRoute, ChildTowardFindsTheSubtreeHoldingADestination) {
  const Torus t({4, 4});
  const ClassRoute r = world(t);
  for (u32 dst = 1; dst < t.nodes(); ++dst) {
    // From the root down to dst, one child at a time.
    u32 at = 0, hops = 0;
    while (at != dst) {
      const u32 child = r.childToward(at, dst);
      ASSERT_NE(child, ClassRoute::kNone) << dst;
      at = child / (2 * t.dimensions());
      ASSERT_LE(++hops, t.nodes());
    }
    EXPECT_EQ(hops, t.hops(0, dst));
  }
}

std::vector<u8> bytesOf(const std::vector<u64>& v) {
  std::vector<u8> b(v.size() * 8);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::vector<u64> combined(u8 op, u16 word, const std::vector<std::vector<u64>>& inputs) {
  std::vector<std::vector<u8>> bytes;
  for (const auto& in : inputs) bytes.push_back(bytesOf(in));
  std::vector<std::span<const u8>> spans(bytes.begin(), bytes.end());
  std::vector<u8> out(bytes[0].size());
  combineWords(op, word, spans, out);
  std::vector<u64> r(inputs[0].size());
  std::memcpy(r.data(), out.data(), out.size());
  return r;
}

TEST(CollectiveAlu, IntegerOpsCombineWordByWordSignedAndUnsigned) {
  const u64 m1 = ~u64{0};  // -1 signed, the largest unsigned
  const std::vector<std::vector<u64>> in = {{5, m1, 0xf0}, {7, 1, 0x0f}, {3, 2, 0xff}};
  EXPECT_EQ(combined(collop::kAnd, 8, in), (std::vector<u64>{5 & 7 & 3, 0, 0}));
  EXPECT_EQ(combined(collop::kOr, 8, in), (std::vector<u64>{7, m1, 0xff}));
  EXPECT_EQ(combined(collop::kXor, 8, in), (std::vector<u64>{5 ^ 7 ^ 3, m1 ^ 1 ^ 2, 0}));
  EXPECT_EQ(combined(collop::kUnsignedAdd, 8, in), (std::vector<u64>{15, 2, 0x1fe}));
  EXPECT_EQ(combined(collop::kSignedAdd, 8, in), (std::vector<u64>{15, 2, 0x1fe}));
  EXPECT_EQ(combined(collop::kUnsignedMin, 8, in), (std::vector<u64>{3, 1, 0x0f}));
  EXPECT_EQ(combined(collop::kUnsignedMax, 8, in), (std::vector<u64>{7, m1, 0xff}));
  EXPECT_EQ(combined(collop::kSignedMin, 8, in), (std::vector<u64>{3, m1, 0x0f}));
  EXPECT_EQ(combined(collop::kSignedMax, 8, in), (std::vector<u64>{7, 2, 0xff}));
  // 4-byte words: each half of a u64 on its own (a carry does not cross words).
  const std::vector<std::vector<u64>> halves = {{0x00000001ffffffffULL}, {0x0000000200000001ULL}};
  EXPECT_EQ(combined(collop::kUnsignedAdd, 4, halves), (std::vector<u64>{0x0000000300000000ULL}));
  EXPECT_EQ(combined(collop::kSignedMin, 4, halves), (std::vector<u64>{0x00000001ffffffffULL}));
  // 16-byte words: one 128-bit integer (the carry crosses the u64s).
  EXPECT_EQ(combined(collop::kUnsignedAdd, 16, {{m1, 0}, {1, 0}}), (std::vector<u64>{0, 1}));
  EXPECT_EQ(combined(collop::kSignedMax, 16, {{0, m1}, {5, 0}}), (std::vector<u64>{5, 0}));
}

std::vector<u64> doubles(std::initializer_list<double> ds) {
  std::vector<u64> v;
  for (const double d : ds) v.push_back(std::bit_cast<u64>(d));
  return v;
}

double asDouble(u64 w) {
  return std::bit_cast<double>(w);
}

TEST(CollectiveAlu, FloatingPointAddIsExactRoundedOnceAndIndependentOfInputOrder) {
  // 1e16 + 1 + -1e16 + 1 is 2 exactly; added left to right in doubles it is 0 or 1.
  std::vector<double> in = {1e16, 1.0, -1e16, 1.0};
  std::sort(in.begin(), in.end());
  do {
    std::vector<std::vector<u64>> inputs;
    for (const double d : in) inputs.push_back(doubles({d}));
    EXPECT_EQ(asDouble(combined(collop::kFloatAdd, 8, inputs)[0]), 2.0);
  } while (std::next_permutation(in.begin(), in.end()));
  // Rounded once, to even: 1 + 2^-53 + 2^-53 is 1 + 2^-52 (twice rounded it would be 1).
  EXPECT_EQ(asDouble(combined(collop::kFloatAdd, 8,
                              {doubles({1.0}), doubles({0x1p-53}), doubles({0x1p-53})})[0]),
            1.0 + 0x1p-52);
  EXPECT_EQ(asDouble(combined(collop::kFloatAdd, 8, {doubles({1.0}), doubles({0x1p-53})})[0]), 1.0);
  // Subnormals, cancellation to +0, overflow of the exact sum, negative sums.
  EXPECT_EQ(
      asDouble(combined(collop::kFloatAdd, 8, {doubles({0x1p-1074}), doubles({0x1p-1074})})[0]),
      0x1p-1073);
  const double zero =
      asDouble(combined(collop::kFloatAdd, 8, {doubles({-3.5}), doubles({3.5})})[0]);
  EXPECT_EQ(zero, 0.0);
  EXPECT_FALSE(std::signbit(zero));
  const double minus =
      asDouble(combined(collop::kFloatAdd, 8, {doubles({-0.0}), doubles({-0.0})})[0]);
  EXPECT_EQ(minus, 0.0);
  EXPECT_TRUE(std::signbit(minus));  // (as IEEE adds two -0s)
  EXPECT_EQ(asDouble(combined(collop::kFloatAdd, 8, {doubles({1e308}), doubles({1e308})})[0]),
            INFINITY);
  EXPECT_EQ(asDouble(combined(collop::kFloatAdd, 8, {doubles({-1.25}), doubles({-2.5})})[0]),
            -3.75);
  EXPECT_TRUE(std::isnan(
      asDouble(combined(collop::kFloatAdd, 8, {doubles({INFINITY}), doubles({-INFINITY})})[0])));
}

TEST(CollectiveAlu, FloatingPointMinAndMaxOrderMinusZeroBelowPlusZeroAndPropagateNaN) {
  const auto min = [](double a, double b) {
    return asDouble(combined(collop::kFloatMin, 8, {doubles({a}), doubles({b})})[0]);
  };
  const auto max = [](double a, double b) {
    return asDouble(combined(collop::kFloatMax, 8, {doubles({a}), doubles({b})})[0]);
  };
  EXPECT_EQ(min(2.5, -7.0), -7.0);
  EXPECT_EQ(max(2.5, -7.0), 2.5);
  EXPECT_TRUE(std::signbit(min(0.0, -0.0)));
  EXPECT_TRUE(std::signbit(min(-0.0, 0.0)));
  EXPECT_FALSE(std::signbit(max(-0.0, 0.0)));
  EXPECT_TRUE(std::isnan(min(1.0, NAN)));
  EXPECT_TRUE(std::isnan(max(NAN, 1.0)));
}

// Every node of `t` injects one all-reduce packet (u64 add of node + 1 and of its square, or the
// given op) at the given times; returns the deliveries.
std::vector<Delivery> allreduce(Network& n, const Torus& t, u8 op, std::vector<Cycle> at = {}) {
  for (u32 src = 0; src < t.nodes(); ++src) {
    n.inject(collPacket(src, 0, at.empty() ? 1000 : at[src], CollType::kAllreduce, op,
                        {src + 1u, u64{src} * src}));
  }
  return n.advance(~Cycle{0});
}

TEST(TorusCollectives, AnAllreduceReachesEveryMemberOnceWithTheCombinedResult) {
  const Torus t({4, 2, 2});
  Network n(params(), t, kClock);
  n.setClassRoute(0, world(t));
  const auto ds = allreduce(n, t, collop::kUnsignedAdd);
  ASSERT_EQ(ds.size(), t.nodes());
  std::set<u32> got;
  u64 squares = 0;
  for (u32 i = 0; i < t.nodes(); ++i) squares += u64{i} * i;
  for (const Delivery& d : ds) {
    EXPECT_TRUE(got.insert(d.packet.dst).second);
    EXPECT_EQ(wordOf(d.packet, 0), t.nodes() * (t.nodes() + 1) / 2);
    EXPECT_EQ(wordOf(d.packet, 1), squares);
  }
  EXPECT_TRUE(n.idle());
  EXPECT_EQ(n.combines(), t.nodes());  // one per router
  EXPECT_EQ(n.collectiveMismatches(), 0u);
  // Every tree link carried one packet up and one down, on the user comm-world channel; no
  // other link carried any.
  const ClassRoute r = world(t);
  std::set<u32> tree;
  for (u32 i = 1; i < t.nodes(); ++i) {
    tree.insert(r.up(i));
    tree.insert(r.downLink(r.up(i)));
  }
  for (u32 l = 0; l < t.links(); ++l) {
    const u64 expected = tree.contains(l) ? 1 : 0;
    EXPECT_EQ(n.links()[l].channel_packets[static_cast<u32>(Channel::kUserWorld)], expected) << l;
    EXPECT_EQ(n.links()[l].packets, expected) << l;
  }
}

TEST(TorusCollectives, AnAllreduceOnAnIdleTreeTakesTheDepthUpAndDownAtHopAndLinkTimes) {
  // Up: depth hops (each router combines at its last input's head: cut-through). Down: depth
  // hops to the farthest member, which lands one link time and the reception after its head.
  const Torus t({8});
  Network n(params(), t, kClock);
  n.setClassRoute(0, world(t));
  const auto ds = allreduce(n, t, collop::kUnsignedAdd);
  ASSERT_EQ(ds.size(), 8u);
  const Cycle link = n.linkCycles(kHeader + 32);
  // The root (0) waits for node 4's packet: 4 hops up; node 4 gets it 4 hops later.
  EXPECT_EQ(ds.back().when, 1000 + 8 * 64 + link + 150);
  EXPECT_EQ(ds.back().packet.dst, 4u);
  EXPECT_EQ(ds.front().when, 1000 + 4 * 64 + link + 150);
  EXPECT_EQ(ds.front().packet.dst, 0u);
}

TEST(TorusCollectives, FloatingPointSumsDependOnTheTreeAloneNotOnArrivalOrder) {
  const Torus t({4, 4});
  std::vector<double> values;
  for (u32 i = 0; i < t.nodes(); ++i)
    values.push_back((i % 3 == 0 ? 1e16 : 1.0) * (i % 2 ? -1 : 1) + 0.1 * i);
  u64 first = 0;
  for (u64 trial = 0; trial < 6; ++trial) {
    Network n(params(), t, kClock);
    n.setClassRoute(0, world(t));
    for (u32 src = 0; src < t.nodes(); ++src) {
      const Cycle at = 1000 + (src * 7919 + trial * 104729) % 997;  // a different order each time
      n.inject(collPacket(src, 0, at, CollType::kAllreduce, collop::kFloatAdd,
                          {std::bit_cast<u64>(values[src])}));
    }
    const auto ds = n.advance(~Cycle{0});
    ASSERT_EQ(ds.size(), t.nodes());
    for (const Delivery& d : ds) {
      if (trial == 0 && d.packet.dst == 0) first = wordOf(d.packet, 0);
      EXPECT_EQ(wordOf(d.packet, 0), first) << trial;
    }
  }
}

TEST(TorusCollectives, EveryOpCombinesThroughTheTree) {
  const Torus t({3, 3});
  for (const u8 op :
       {collop::kAnd, collop::kOr, collop::kXor, collop::kUnsignedMin, collop::kUnsignedMax,
        collop::kSignedAdd, collop::kSignedMin, collop::kSignedMax}) {
    Network n(params(), t, kClock);
    n.setClassRoute(0, world(t, 4));
    std::vector<std::vector<u64>> inputs;
    for (u32 src = 0; src < t.nodes(); ++src) {
      const std::vector<u64> w = {(src * 0x9e3779b97f4a7c15ULL) ^ (src % 2 ? ~u64{0} : 0)};
      inputs.push_back(w);
      n.inject(collPacket(src, 0, 1000, CollType::kAllreduce, op, w));
    }
    const u64 expected = combined(op, 8, inputs)[0];
    const auto ds = n.advance(~Cycle{0});
    ASSERT_EQ(ds.size(), t.nodes());
    for (const Delivery& d : ds) EXPECT_EQ(wordOf(d.packet, 0), expected) << int{op};
  }
}

TEST(TorusCollectives, ABroadcastGoesUpToTheRootAndDownToEveryMemberItsSenderIncluded) {
  const Torus t({4, 3});
  Network n(params(), t, kClock);
  n.setClassRoute(0, world(t, 5));
  n.inject(collPacket(10, 0, 1000, CollType::kBroadcast, 0, {42, 43}));
  const auto ds = n.advance(~Cycle{0});
  ASSERT_EQ(ds.size(), t.nodes());
  std::set<u32> got;
  for (const Delivery& d : ds) {
    EXPECT_TRUE(got.insert(d.packet.dst).second);
    EXPECT_EQ(wordOf(d.packet, 0), 42u);
    EXPECT_EQ(wordOf(d.packet, 1), 43u);
  }
  EXPECT_EQ(n.combines(), 0u);
  EXPECT_TRUE(n.idle());
}

TEST(TorusCollectives, AReduceDeliversOnlyToItsDestination) {
  const Torus t({4, 4});
  Network n(params(), t, kClock);
  n.setClassRoute(0, world(t));
  for (u32 src = 0; src < t.nodes(); ++src) {
    n.inject(collPacket(src, 0, 1000, CollType::kReduce, collop::kUnsignedMax, {src * 3u}, 9));
  }
  const auto ds = n.advance(~Cycle{0});
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].packet.dst, 9u);
  EXPECT_EQ(wordOf(ds[0].packet, 0), 45u);
  EXPECT_TRUE(n.idle());
}

TEST(TorusCollectives, PacketsOfAClassWithNoRouteAreDropped) {
  const Torus t({2});
  Network n(params(), t, kClock);
  n.inject(collPacket(0, 0, 1000, CollType::kBroadcast, 0, {1}, 0, 3));
  EXPECT_TRUE(n.advance(~Cycle{0}).empty());
  EXPECT_EQ(n.collectiveDrops(), 1u);
  EXPECT_TRUE(n.idle());
}

// Sub-communicator classes: each node routes by its own register. The two rows of a 4x2 torus
// (boxes of 4 nodes: coordinate 1 fixed) set class 3 to their own row's tree, rooted at the
// row's first node; an all-reduce on each row combines that row's nodes only, on the
// sub-communicator channel, over links inside the row.
TEST(TorusCollectives, DisjointBoxesShareAClassEachRouterRoutingByItsOwnRegister) {
  const Torus t({4, 2});
  Network n(params(), t, kClock);
  std::vector<std::shared_ptr<const ClassRoute>> rows;
  for (u32 row = 0; row < 2; ++row) {
    rows.push_back(std::make_shared<const ClassRoute>(
        *ClassRoute::make(t, Box{{0, row}, {4, 1}}, row, ClassType::kUserSubcomm)));
  }
  for (u32 node = 0; node < t.nodes(); ++node) {
    n.setNodeClassRoute(node, 3, rows[t.coordinate(node, 1)]);
  }
  for (u32 src = 0; src < t.nodes(); ++src) {
    n.inject(
        collPacket(src, 0, 1000, CollType::kAllreduce, collop::kUnsignedAdd, {src + 1u}, 0, 3));
  }
  const auto ds = n.advance(~Cycle{0});
  ASSERT_EQ(ds.size(), t.nodes());
  for (const Delivery& d : ds) {
    // Row 0 holds nodes 0, 2, 4, 6 (sum of node + 1: 16); row 1 nodes 1, 3, 5, 7 (20).
    EXPECT_EQ(wordOf(d.packet, 0), d.packet.dst % 2 == 0 ? 16u : 20u) << d.packet.dst;
  }
  EXPECT_EQ(n.combines(), t.nodes());
  EXPECT_EQ(n.collectiveDrops(), 0u);
  for (u32 l = 0; l < t.links(); ++l) {
    const LinkStats& s = n.links()[l];
    EXPECT_EQ(s.channel_packets[static_cast<u32>(Channel::kUserSubcomm)], s.packets) << l;
    if (s.packets != 0) {
      // (Inside a row: the link's two ends have the same coordinate 1.)
      EXPECT_EQ(t.coordinate(l / (2 * t.dimensions()), 1), t.coordinate(t.linkTarget(l), 1)) << l;
    }
  }
}

// A packet reaching a router whose register of its class is clear, or names another tree than
// the one it came by, is dropped there. On two nodes (the world's tree: 1's up link goes to the
// root 0): with node 0's register clear, both nodes' packets are dropped at 0; with it naming
// the tree of node 0 alone, node 1's packet (from a link that is no input of that tree) is
// dropped and node 0's combines alone and lands at 0.
TEST(TorusCollectives, APacketReachingAClearRegisterOrOneOfAnotherTreeIsDropped) {
  const Torus t({2});
  {
    Network n(params(), t, kClock);
    n.setClassRoute(0, world(t));
    n.setNodeClassRoute(0, 0, nullptr);
    for (u32 src = 0; src < 2; ++src) {
      n.inject(collPacket(src, 0, 1000, CollType::kAllreduce, collop::kUnsignedAdd, {src + 1u}));
    }
    EXPECT_TRUE(n.advance(~Cycle{0}).empty());
    EXPECT_EQ(n.collectiveDrops(), 2u);
    EXPECT_TRUE(n.idle());
  }
  Network n(params(), t, kClock);
  n.setClassRoute(0, world(t));
  n.setNodeClassRoute(0, 0,
                      std::make_shared<const ClassRoute>(
                          *ClassRoute::make(t, Box{{0}, {1}}, 0, ClassType::kUserWorld)));
  for (u32 src = 0; src < 2; ++src) {
    n.inject(collPacket(src, 0, 1000, CollType::kAllreduce, collop::kUnsignedAdd, {src + 1u}));
  }
  const auto ds = n.advance(~Cycle{0});
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].packet.dst, 0u);
  EXPECT_EQ(wordOf(ds[0].packet, 0), 1u);
  EXPECT_EQ(n.collectiveDrops(), 1u);
  EXPECT_TRUE(n.idle());
}

TEST(TorusCollectives, CollectivesAndPointToPointPacketsShareALinkOneAfterTheOther) {
  // Node 1's up link to the root 0 carries its all-reduce packet; a point-to-point packet from 1
  // to 0 entering then waits one link time for it (and the collective one waits for none).
  const Torus t({2});
  Network n(params(), t, kClock);
  n.setClassRoute(0, world(t));
  n.inject(collPacket(1, 0, 1000, CollType::kAllreduce, collop::kUnsignedAdd, {1}));
  Packet p;
  p.src = 1;
  p.dst = 0;
  p.seq = 1;
  p.entered = 1001;
  p.bytes.assign(544, 0);
  n.inject(p);
  n.inject(collPacket(0, 0, 1000, CollType::kAllreduce, collop::kUnsignedAdd, {2}));
  const auto ds = n.advance(~Cycle{0});
  ASSERT_EQ(ds.size(), 3u);
  const u32 up = Torus::linkOf(1, 0, 0, 1);
  EXPECT_EQ(n.links()[up].packets, 2u);
  EXPECT_EQ(n.links()[up].wait_cycles, n.linkCycles(64) - 1);
  const auto p2p =
      std::find_if(ds.begin(), ds.end(), [](const Delivery& d) { return !d.packet.coll.on; });
  ASSERT_NE(p2p, ds.end());
  EXPECT_EQ(p2p->when, 1000 + n.linkCycles(64) + 64 + 436 + 150);
}

TEST(TorusCollectives, ManyCollectivesMixedWithPointToPointTrafficOnTheSmallestBuffersAllArrive) {
  // Every node of a 4x4 torus runs 30 all-reduces and broadcasts on the user and system classes
  // among 40 point-to-point packets to pseudo-random nodes, with two-packet buffers: nothing
  // deadlocks, every member gets every result, and each all-reduce's result is right.
  NetworkParams p = params();
  p.vc_buffer_bytes = 2 * 544;
  const Torus t({4, 4});
  Network n(p, t, kClock);
  n.setClassRoute(0, world(t));
  n.setClassRoute(kSystemClass, world(t, 7, ClassType::kSystem));
  u64 state = 777;
  const auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  u64 p2p = 0;
  for (u32 src = 0; src < t.nodes(); ++src) {
    u64 seq = 0;
    for (u64 k = 0; k < 30; ++k) {
      const u8 cls = k % 3 == 2 ? kSystemClass : 0;
      std::vector<u64> words(64, src + k);  // 512 bytes
      n.inject(collPacket(src, seq++, k * 40 + src, CollType::kAllreduce, collop::kUnsignedAdd,
                          words, 0, cls));
      if (k % 5 == 0 && src == k % t.nodes()) {
        n.inject(collPacket(src, seq++, k * 40 + 1, CollType::kBroadcast, 0, {k}, 0, cls));
      }
    }
    for (u64 k = 0; k < 40; ++k) {
      const u32 dst = static_cast<u32>(next() % t.nodes());
      if (dst == src) continue;
      Packet q;
      q.src = src;
      q.dst = dst;
      q.seq = seq++;
      q.entered = k * 30;
      q.dynamic = next() % 2 == 0;
      q.bytes.assign(64 + next() % 16 * 32, 0);
      n.inject(q);
      ++p2p;
    }
  }
  const auto ds = n.advance(~Cycle{0});
  EXPECT_TRUE(n.idle());
  std::map<u32, std::vector<u64>> results;  // per node: all-reduce results in arrival order
  u64 coll = 0, broadcasts = 0;
  for (const Delivery& d : ds) {
    if (!d.packet.coll.on) continue;
    ++coll;
    if (d.packet.coll.type == CollType::kBroadcast) {
      ++broadcasts;
    } else if (d.packet.coll.cls == 0) {
      results[d.packet.dst].push_back(wordOf(d.packet, 63));
    }
  }
  EXPECT_EQ(ds.size() - coll, p2p);
  EXPECT_EQ(coll - broadcasts, 30u * t.nodes());
  EXPECT_EQ(broadcasts, 6u * t.nodes());  // (k = 0, 5, ..., 25 from nodes k % 16)
  for (const auto& [node, r] : results) {
    std::vector<u64> expected;
    for (u64 k = 0; k < 30; ++k) {
      if (k % 3 != 2) expected.push_back(t.nodes() * k + t.nodes() * (t.nodes() - 1) / 2);
    }
    EXPECT_EQ(r, expected) << node;
  }
}

}  // namespace
}  // namespace hpm::net
