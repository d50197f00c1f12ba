// Blue Gene/P's collective network and global barrier (net/collective.h): the ALU's arithmetic,
// combining and broadcast over the tree, their timing, ordering and back-pressure.
#include "net/collective.h"
#include "tests/net/network_test_util.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <vector>

namespace hpm::net {
namespace {

using Payload = std::array<u8, kColPayloadBytes>;

Payload words(std::initializer_list<u64> values) {
  Payload p{};
  u32 at = 0;
  for (u64 v : values) {
    std::memcpy(p.data() + at, &v, 8);
    at += 8;
  }
  return p;
}

u64 word(const Payload& p, u32 i) {
  u64 v = 0;
  std::memcpy(&v, p.data() + 8 * i, 8);
  return v;
}

CollectiveParams params() {
  return test::collectiveParams();
}

constexpr u64 kHz = 850'000'000;

ColPacket packet(u32 src, u32 header, const Payload& payload, u8 vc = 0) {
  ColPacket p;
  p.src = src;
  p.vc = vc;
  p.header = header;
  p.payload = payload;
  return p;
}

CollectiveNetwork network(u32 nodes) {
  CollectiveNetwork net(params(), nodes, kHz);
  for (u32 n = 0; n < nodes; ++n) {
    for (u8 vc = 0; vc < kColVcs; ++vc) net.setReceptionRoom(n, vc, kColFifoPackets);
  }
  return net;
}

// Advances in steps of 1000 cycles to the end, the nodes reading their reception FIFOs empty
// at each step.
std::vector<ColDelivery> runToEnd(CollectiveNetwork& net) {
  std::vector<ColDelivery> all;
  for (Cycle h = 1000; !net.idle() || net.nextStep() != ~Cycle{0}; h += 1000) {
    for (ColDelivery& d : net.advance(h)) all.push_back(std::move(d));
    for (u32 n = 0; n < net.nodes(); ++n) {
      for (u8 vc = 0; vc < kColVcs; ++vc) net.setReceptionRoom(n, vc, kColFifoPackets);
    }
    if (h > 10'000'000) break;
  }
  return all;
}

const u32 kAdd64 = colhdr::make(0, colhdr::kOpAdd, 4, 7);

TEST(CollectiveAlu, AddsSixtyFourBitOperandsModuloTwoToTheSixtyFour) {
  Payload a = words({~u64{0}, 5, u64{1} << 63});
  combine(kAdd64, a, words({2, 7, u64{1} << 63}));
  EXPECT_EQ(word(a, 0), 1u);
  EXPECT_EQ(word(a, 1), 12u);
  EXPECT_EQ(word(a, 2), 0u);
}

TEST(CollectiveAlu, CarriesAcrossTheWordsOfAHundredTwentyEightBitOperand) {
  const u32 add128 = colhdr::make(0, colhdr::kOpAdd, 8, 0);
  Payload a = words({~u64{0}, 1, 3, 0});
  combine(add128, a, words({1, 0, ~u64{0}, ~u64{0}}));
  EXPECT_EQ(word(a, 0), 0u);
  EXPECT_EQ(word(a, 1), 2u);  // the carry out of the low word
  EXPECT_EQ(word(a, 2), 2u);  // 3 + (2^128 - 1): wraps to 2, carry lost
  EXPECT_EQ(word(a, 3), 0u);
}

TEST(CollectiveAlu, MaxIsUnsignedAndSixteenBitOperandsStayInTheirLanes) {
  const u32 max16 = colhdr::make(0, colhdr::kOpMax, 1, 0);
  Payload a = words({0x0001'8000'0003'ffffULL});
  combine(max16, a, words({0x0002'7fff'0004'0001ULL}));
  EXPECT_EQ(word(a, 0), 0x0002'8000'0004'ffffULL);
  const u32 add16 = colhdr::make(0, colhdr::kOpAdd, 1, 0);
  Payload b = words({0x0000'0000'0000'ffffULL});
  combine(add16, b, words({0x0000'0000'0000'0001ULL}));
  EXPECT_EQ(word(b, 0), 0u);  // no carry into the next operand
}

TEST(CollectiveAlu, BitwiseOperationsCombineEveryByte) {
  Payload a = words({0xf0f0}), b = words({0xf0f0}), c = words({0xf0f0});
  combine(colhdr::make(0, colhdr::kOpOr, 4, 0), a, words({0x0ff0}));
  combine(colhdr::make(0, colhdr::kOpAnd, 4, 0), b, words({0x0ff0}));
  combine(colhdr::make(0, colhdr::kOpXor, 4, 0), c, words({0x0ff0}));
  EXPECT_EQ(word(a, 0), 0xfff0u);
  EXPECT_EQ(word(b, 0), 0x00f0u);
  EXPECT_EQ(word(c, 0), 0xff00u);
}

TEST(CollectiveNetwork, TheTreeIsTheHeapOrderOfTheNodes) {
  const CollectiveNetwork net = network(6);
  EXPECT_EQ(net.neighbour(0, 0), ~u32{0});
  EXPECT_EQ(net.neighbour(0, 1), 1u);
  EXPECT_EQ(net.neighbour(0, 2), 2u);
  EXPECT_EQ(net.neighbour(2, 1), 5u);
  EXPECT_EQ(net.neighbour(2, 2), ~u32{0});
  EXPECT_EQ(net.neighbour(5, 0), 2u);
  EXPECT_EQ(net.depth(), 2u);
  EXPECT_EQ(network(1).depth(), 0u);
  EXPECT_EQ(net.linkCycles(), 264u);
}

TEST(CollectiveNetwork, ACombineGivesEveryNodeTheSumOfAllNodesContributions) {
  for (u32 nodes : {1u, 2u, 5u, 8u, 13u}) {
    CollectiveNetwork net = network(nodes);
    for (u32 n = 0; n < nodes; ++n) net.inject(n, 0, packet(n, kAdd64, words({n + 1, 100})));
    const std::vector<ColDelivery> got = runToEnd(net);
    ASSERT_EQ(got.size(), nodes);
    std::vector<u32> per_node(nodes, 0);
    for (const ColDelivery& d : got) {
      ++per_node[d.node];
      EXPECT_EQ(word(d.packet.payload, 0), u64{nodes} * (nodes + 1) / 2) << nodes;
      EXPECT_EQ(word(d.packet.payload, 1), 100u * nodes);
      EXPECT_EQ(d.packet.header, kAdd64);
    }
    for (u32 n = 0; n < nodes; ++n) EXPECT_EQ(per_node[n], 1u);
    // One ALU operation at each router with children.
    EXPECT_EQ(net.stats().combined, nodes / 2);
    // Each link carries the packet once up and once down.
    EXPECT_EQ(net.stats().link_packets, 2 * u64{nodes - 1});
  }
}

TEST(CollectiveNetwork, ACombineTakesTheDocumentedTimeUpAndDownTheTree) {
  // Two nodes: node 1's packet reaches the root at I + H; the ALU gives the result at
  // I + H + A; the root reads it a link time and the reception later; node 1 a hop later still.
  CollectiveNetwork net = network(2);
  net.inject(0, 0, packet(0, kAdd64, words({1})));
  net.inject(1, 0, packet(1, kAdd64, words({2})));
  const std::vector<ColDelivery> got = runToEnd(net);
  ASSERT_EQ(got.size(), 2u);
  const Cycle i = 20, h = 50, a = 10, l = 264, r = 30;
  EXPECT_EQ(got[0].node, 0u);
  EXPECT_EQ(got[0].when, i + h + a + l + r);
  EXPECT_EQ(got[1].node, 1u);
  EXPECT_EQ(got[1].when, i + h + a + h + l + r);
}

TEST(CollectiveNetwork, ABroadcastReachesEveryNodeOnceTheSenderIncluded) {
  CollectiveNetwork net = network(7);
  const u32 bcast = colhdr::make(0, colhdr::kOpNone, 1, 3);
  net.inject(5, 0, packet(5, bcast, words({42, 43})));
  const std::vector<ColDelivery> got = runToEnd(net);
  ASSERT_EQ(got.size(), 7u);
  std::vector<u32> seen(7, 0);
  for (const ColDelivery& d : got) {
    ++seen[d.node];
    EXPECT_EQ(word(d.packet.payload, 0), 42u);
    EXPECT_EQ(word(d.packet.payload, 1), 43u);
  }
  for (u32 s : seen) EXPECT_EQ(s, 1u);
  EXPECT_EQ(net.stats().combined, 0u);
}

TEST(CollectiveNetwork, EveryNodeReceivesAChannelsPacketsInTheOrderTheyPassedTheRoot) {
  CollectiveNetwork net = network(6);
  const u32 bcast = colhdr::make(0, colhdr::kOpNone, 4, 0);
  u64 tag = 0;
  for (u32 round = 0; round < 3; ++round) {
    for (u32 n : {5u, 0u, 3u, 1u}) net.inject(n, round * 100 + n, packet(n, bcast, words({tag++})));
  }
  std::map<u32, std::vector<u64>> order;
  for (const ColDelivery& d : runToEnd(net)) order[d.node].push_back(word(d.packet.payload, 0));
  ASSERT_EQ(order.size(), 6u);
  for (const auto& [node, seq] : order) {
    EXPECT_EQ(seq.size(), 12u);
    EXPECT_EQ(seq, order[0]) << "node " << node;
  }
}

TEST(CollectiveNetwork, ANodeWithNoReceptionRoomHoldsTheBroadcastForEveryNode) {
  CollectiveNetwork net(params(), 3, kHz);
  for (u32 n = 0; n < 3; ++n) net.setReceptionRoom(n, 0, n == 2 ? 0 : kColFifoPackets);
  net.inject(1, 0, packet(1, colhdr::make(0, colhdr::kOpNone, 4, 0), words({9})));
  std::vector<ColDelivery> got = net.advance(100'000);
  // The root sends to both children and its own FIFO at once (their receivers have room); node
  // 2's router holds the packet until its reception FIFO has room.
  std::vector<u32> nodes;
  for (const ColDelivery& d : got) nodes.push_back(d.node);
  EXPECT_EQ(nodes, (std::vector<u32>{0, 1}));
  EXPECT_FALSE(net.idle());
  net.setReceptionRoom(2, 0, 1);
  got = net.advance(200'000);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].node, 2u);
  EXPECT_GE(got[0].when, 100'000u);  // not before the room came
  EXPECT_TRUE(net.idle());
}

TEST(CollectiveNetwork, NoOtherNodeSeesAnInjectionBeforeTheLookahead) {
  CollectiveNetwork net = network(9);
  std::vector<ColSignal> signals;
  net.onSignal([&](const ColSignal& s) { signals.push_back(s); });
  net.inject(4, 1000, packet(4, kAdd64, words({1})));
  for (u32 n = 0; n < 9; ++n) {
    if (n != 4) net.inject(n, 5000, packet(n, kAdd64, words({1})));
  }
  runToEnd(net);
  u32 early = 0;  // other nodes' signals that only node 4's packet can have made
  for (const ColSignal& s : signals) {
    if (s.node != 4 && s.at < 5000 + net.lookahead()) {
      EXPECT_GE(s.at, 1000 + net.lookahead()) << "node " << s.node;
      ++early;
    }
  }
  EXPECT_GT(early, 0u);  // (node 4's packet climbs to its parent alone, before the others')
}

TEST(CollectiveNetwork, TheSignalsCountEachLinksPacketsAtBothEnds) {
  CollectiveNetwork net = network(4);
  std::map<std::tuple<u32, int, u32>, u32> count;  // (node, kind, port) -> packets
  net.onSignal([&](const ColSignal& s) { ++count[{s.node, s.kind, s.port}]; });
  for (u32 n = 0; n < 4; ++n) net.inject(n, 0, packet(n, kAdd64, words({1})));
  runToEnd(net);
  // Node 3 (a leaf under node 1): one packet up its parent link, one down it.
  EXPECT_EQ((count[{3, ColSignal::kSent, 0}]), 1u);
  EXPECT_EQ((count[{3, ColSignal::kReceived, 0}]), 1u);
  // Node 1: one up from node 3 (its port 1), one down to it; one up to the root, one back.
  EXPECT_EQ((count[{1, ColSignal::kReceived, 1}]), 1u);
  EXPECT_EQ((count[{1, ColSignal::kSent, 1}]), 1u);
  EXPECT_EQ((count[{1, ColSignal::kSent, 0}]), 1u);
  // The arbiter took node 1's own packet and node 3's, combined, then the result from above.
  EXPECT_EQ((count[{1, ColSignal::kTaken, kColLocal}]), 1u);
  EXPECT_EQ((count[{1, ColSignal::kTaken, 1}]), 1u);
  EXPECT_EQ((count[{1, ColSignal::kTaken, 0}]), 1u);
  // Class 0 won twice at node 1 (up, then down).
  EXPECT_EQ((count[{1, ColSignal::kClassWin, 0}]), 2u);
}

TEST(GlobalBarrier, CompletesALatencyAfterTheLastNodeArms) {
  GlobalBarrier b(3, 100);
  b.arm(0, 0, 10);
  b.arm(2, 0, 50);
  EXPECT_TRUE(b.completions(0).empty());
  b.arm(1, 0, 30);
  ASSERT_EQ(b.completions(0).size(), 1u);
  EXPECT_EQ(b.completions(0)[0], 150u);
  // A node that arms twice is in the next barrier too; other channels are apart.
  b.arm(0, 0, 200);
  b.arm(0, 1, 200);
  b.arm(1, 0, 210);
  b.arm(2, 0, 400);
  ASSERT_EQ(b.completions(0).size(), 2u);
  EXPECT_EQ(b.completions(0)[1], 500u);
  EXPECT_TRUE(b.completions(1).empty());
}

TEST(GlobalBarrier, AnArmWhileTheNodesBitIsSetChangesNothing) {
  // A wired AND: node 0's second and third arms before the barrier completes are not the next
  // barrier's, and a million of them hold no memory.
  GlobalBarrier b(2, 10);
  EXPECT_TRUE(b.arm(0, 2, 5));
  for (Cycle t = 6; t < 1'000'006; ++t) EXPECT_FALSE(b.arm(0, 2, t));
  EXPECT_EQ(b.ignoredArms(), 1'000'000u);
  EXPECT_TRUE(b.arm(1, 2, 2'000'000));
  ASSERT_EQ(b.completions(2).size(), 1u);
  EXPECT_EQ(b.completions(2)[0], 2'000'010u);
  EXPECT_TRUE(b.arm(1, 2, 2'000'020));  // the next barrier's
  EXPECT_EQ(b.completions(2).size(), 1u);
}

}  // namespace
}  // namespace hpm::net
