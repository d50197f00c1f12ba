// The torus's coordinates and routes, the shapes `--nodes N` picks, and the network model's
// timing rules (net/network.h), each checked against the formula the model documents.
#include <gtest/gtest.h>

#include <memory>

#include <set>

#include "net/network.h"
#include "net/network_params.h"
#include "net/torus.h"
#include "tests/net/network_test_util.h"

namespace hpm::net {
namespace {

TEST(Torus, NodeIdsAreCoordinatesWithTheFirstDimensionMostSignificant) {
  const Torus t({2, 3, 4});
  EXPECT_EQ(t.nodes(), 24u);
  EXPECT_EQ(t.links(), 24u * 6);
  for (u32 n = 0; n < t.nodes(); ++n) {
    EXPECT_EQ(t.coordinate(n, 0) * 12 + t.coordinate(n, 1) * 4 + t.coordinate(n, 2), n);
  }
}

TEST(Torus, EveryRouteReachesItsDestinationInTheShortestHopCount) {
  for (const std::vector<u32>& dims :
       {std::vector<u32>{4, 4, 4, 4, 2}, std::vector<u32>{5, 1, 3}, std::vector<u32>{2}}) {
    const Torus t(dims);
    for (u32 src = 0; src < t.nodes(); ++src) {
      for (u32 dst = 0; dst < t.nodes(); ++dst) {
        u32 at = src, hops = 0;
        while (at != dst) {
          at = t.linkTarget(t.nextLink(at, dst));
          ASSERT_LE(++hops, t.nodes());
        }
        EXPECT_EQ(hops, t.hops(src, dst));
        u32 shortest = 0;  // per dimension, the shorter way round
        for (u32 d = 0; d < t.dimensions(); ++d) {
          const u32 size = dims[d];
          const u32 plus = (t.coordinate(dst, d) + size - t.coordinate(src, d)) % size;
          shortest += std::min(plus, size - plus);
        }
        EXPECT_EQ(hops, shortest);
      }
    }
  }
}

TEST(Torus, RoutesFinishADimensionBeforeTheNextAndTakePlusOnATie) {
  const Torus t({4, 4});
  // From (0,0) to (2,3): the first dimension first; 2 steps either way round is a tie: plus.
  const u32 first = t.nextLink(0, 2 * 4 + 3);
  EXPECT_EQ(first, Torus::linkOf(0, 0, 0, 2));
  EXPECT_EQ(t.linkTarget(first), 4u);  // (1,0)
  // Then in the second dimension the shorter way: 3 steps plus is 1 step minus.
  EXPECT_EQ(t.nextLink(2 * 4, 2 * 4 + 3), Torus::linkOf(8, 1, 1, 2));
  EXPECT_EQ(t.linkTarget(Torus::linkOf(8, 1, 1, 2)), 2u * 4 + 3);
}

// The shape torusShapeFor picks, as text ("" when there is none).
std::string shapeFor(u64 nodes, u32 dimensions) {
  TorusShape shape;
  return torusShapeFor(nodes, dimensions, shape).empty() ? shape.text() : "";
}

// Why parseTorusShape refuses `text` ("" when it accepts it).
std::string refusal(const std::string& text) {
  TorusShape shape;
  return parseTorusShape(text, shape);
}

TEST(TorusShape, NodesGoIntoTheMachinesDimensionsAsBalancedAsTheFactorsAllow) {
  EXPECT_EQ(shapeFor(1, 5), "1x1x1x1x1");
  EXPECT_EQ(shapeFor(8, 5), "2x2x2x1x1");
  EXPECT_EQ(shapeFor(64, 5), "4x2x2x2x2");
  EXPECT_EQ(shapeFor(12, 3), "3x2x2");
  EXPECT_EQ(shapeFor(7, 5), "7x1x1x1x1");
  EXPECT_EQ(shapeFor(16, 3), "4x2x2");
  EXPECT_EQ(shapeFor(4096, 3), "16x16x16");
  TorusShape shape;
  EXPECT_EQ(parseTorusShape("2x3x1", shape), "");
  EXPECT_EQ(shape.dims, (std::vector<u32>{2, 3, 1}));
  EXPECT_EQ(shape.nodes(), 6u);
  EXPECT_EQ(shape.text(), "2x3x1");
  for (const char* bad : {"", "2x", "x2", "0x2", "ax2", "2x-1", "2 x2"}) {
    EXPECT_NE(refusal(bad).find("is not a torus shape"), std::string::npos) << bad;
  }
}

TEST(TorusShape, NodeCountsAreComputedIn64BitsAndHeldToTheLimitOf4096) {
  // 65536 x 65536 is 2^32 nodes (0 in 32 bits), 2 x 2147483649 is 2 in 32 bits: both refused.
  EXPECT_NE(refusal("65536x65536x1x1x1").find("size 65536 (at most 255"), std::string::npos)
      << refusal("65536x65536x1x1x1");
  EXPECT_NE(refusal("2x2147483649x1x1x1").find("size 2147483649 (at most 255"), std::string::npos);
  EXPECT_NE(refusal("99999999999999999999999x1").find("(at most 255"), std::string::npos);
  EXPECT_NE(refusal("255x255x1x1x1").find("is 65025 nodes: at most 4096"), std::string::npos);
  EXPECT_NE(refusal("5000x1x1x1x1").find("at most 255"), std::string::npos);
  EXPECT_NE(refusal("2x2x2x2x2x2x2x2x2").find("more than 8 dimensions"), std::string::npos);
  EXPECT_EQ(refusal("255x16x1x1x1"), "");
  EXPECT_EQ(refusal("16x16x16"), "");
  EXPECT_EQ(refusal("2x2x2x2x2x2x2x2"), "");
}

TEST(TorusShape, NodeCountsWithNoShapeOfSizesUpTo255AreRefusedWithTheReason) {
  TorusShape shape;
  EXPECT_NE(torusShapeFor(257, 5, shape).find("(257x1x1x1x1) has a size over 255"),
            std::string::npos);
  EXPECT_NE(torusShapeFor(4097, 5, shape).find("1 to 4096 nodes, not 4097"), std::string::npos);
  EXPECT_NE(torusShapeFor(u64{1} << 32, 5, shape).find("not 4294967296"), std::string::npos);
  EXPECT_EQ(shape, TorusShape{});  // (untouched by a refusal)
}

NetworkParams params() {
  return test::baseParams();
}

using test::packet;

constexpr u64 kClock = 1'600'000'000;

TEST(Network, ALinkHoldsAPacketItsBytesOverTheBandwidthRoundedUp) {
  const Network n(params(), Torus({2}), kClock);
  EXPECT_EQ(n.linkCycles(32), 26u);    // 25.6
  EXPECT_EQ(n.linkCycles(544), 436u);  // 435.2
  NetworkParams slow = params();
  slow.link_gbytes_per_s = 1.0;
  EXPECT_EQ(Network(slow, Torus({2}), kClock).linkCycles(544), 871u);  // 870.4
}

TEST(Network, LookaheadIsInjectionOneHopTheSmallestPacketAndReception) {
  const Network n(params(), Torus({4}), kClock);
  EXPECT_EQ(n.lookahead(), 200u + 64 + 26 + 150);
}

TEST(Network, APacketOnAnIdleRouteLandsAfterItsHopsOneLinkTimeAndTheReception) {
  // Virtual cut-through: the head moves on at each router; the tail follows one link time
  // behind. Delivery = entered + hops x hop + link time + reception.
  for (u32 dst : {1u, 2u, 3u, 5u}) {
    Network n(params(), Torus({8}), kClock);
    n.inject(packet(0, dst, 0, 1000, 544));
    const auto ds = n.advance(~Cycle{0});
    ASSERT_EQ(ds.size(), 1u);
    const u32 hops = std::min(dst, 8 - dst);
    EXPECT_EQ(ds[0].when, 1000 + hops * 64 + 436 + 150) << dst;
    EXPECT_EQ(ds[0].packet.dst, dst);
  }
}

TEST(Network, PacketsSharingALinkLeaveOneLinkTimeApart) {
  Network n(params(), Torus({4}), kClock);
  n.inject(packet(0, 1, 0, 1000, 544));
  n.inject(packet(0, 2, 1, 1000, 96));  // the same first link, queued behind
  n.inject(packet(3, 2, 0, 1000, 96));  // another link: no wait
  const auto ds = n.advance(~Cycle{0});
  ASSERT_EQ(ds.size(), 3u);
  // (Delivery order: time, then source.)
  EXPECT_EQ(ds[0].packet.src, 3u);
  EXPECT_EQ(ds[0].when, 1000 + 64 + n.linkCycles(96) + 150);
  EXPECT_EQ(ds[1].when, 1000 + 64 + 436 + 150);
  // The second waits 436 cycles for the link, then has the next link to itself.
  EXPECT_EQ(ds[2].when, 1000 + 436 + 2 * 64 + n.linkCycles(96) + 150);
  EXPECT_EQ(n.links()[Torus::linkOf(0, 0, 0, 1)].wait_cycles, 436u);
}

TEST(Network, LinksCountThePacketsAndChunksOfEveryPacketCrossingThem) {
  const Torus torus({3, 3});
  Network n(params(), torus, kClock);
  n.inject(packet(0, 8, 0, 0, 544));  // (0,0) -> (2,2): minus in both dimensions
  n.inject(packet(0, 8, 1, 0, 64));
  n.advance(~Cycle{0});
  std::set<u32> used;
  for (u32 at = 0; at != 8; at = torus.linkTarget(torus.nextLink(at, 8))) {
    used.insert(torus.nextLink(at, 8));
  }
  EXPECT_EQ(used.size(), 2u);
  for (u32 l = 0; l < torus.links(); ++l) {
    const LinkStats& s = n.links()[l];
    EXPECT_EQ(s.packets, used.contains(l) ? 2u : 0u) << l;
    EXPECT_EQ(s.chunks, used.contains(l) ? 17u + 2u : 0u) << l;
  }
}

TEST(Network, AdvanceMovesOnlyStepsBeforeTheHorizon) {
  Network n(params(), Torus({4}), kClock);
  n.inject(packet(0, 2, 0, 500, 64));
  EXPECT_TRUE(n.advance(500).empty());  // its first step is at 500: not before 500
  EXPECT_FALSE(n.idle());
  EXPECT_EQ(n.nextStep(), 500u);
  EXPECT_TRUE(n.advance(501).empty());  // it crossed the first link; the second is at 564
  EXPECT_EQ(n.nextStep(), 564u);
  const auto ds = n.advance(565);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_TRUE(n.idle());
  EXPECT_EQ(n.packetsDelivered(), 1u);
}

// ---- virtual channels, back-pressure, dynamic routing ------------------------------------------

// Every node sends `per_node` packets of mixed sizes to node 0 at once (a hot spot): the links
// into node 0 are the bottleneck, and the routers before them fill.
std::vector<Delivery> hotSpot(Network& n, u32 per_node) {
  std::vector<Delivery> all;
  for (u32 src = 1; src < n.torus().nodes(); ++src) {
    for (u32 k = 0; k < per_node; ++k) {
      n.inject(packet(src, 0, k, 100 + k * 10, k % 3 == 0 ? 544 : 96, false, false));
    }
  }
  for (Delivery& d : n.advance(~Cycle{0})) all.push_back(std::move(d));
  return all;
}

TEST(Network, AFullBufferHoldsPacketsBackAndTheyStillAllArriveInOrder) {
  NetworkParams small = params();
  small.vc_buffer_bytes = 2 * 544;  // the least the bubble rule allows
  NetworkParams large = params();
  large.vc_buffer_bytes = 1 << 20;
  Network tight(small, Torus({8}), kClock), loose(large, Torus({8}), kClock);
  const auto a = hotSpot(tight, 12), b = hotSpot(loose, 12);
  ASSERT_EQ(a.size(), 7u * 12);
  ASSERT_EQ(b.size(), a.size());
  EXPECT_TRUE(tight.idle());
  EXPECT_GT(tight.bufferWaits(), 0u);  // back-pressure happened
  EXPECT_EQ(loose.bufferWaits(), 0u);  // (buffers that never fill never push back)
  // Deterministic packets of one source arrive in the order they left.
  std::vector<u64> next(8, 0);
  for (const Delivery& d : a) EXPECT_EQ(d.packet.seq, next[d.packet.src]++) << d.packet.src;
  // Holding packets back cannot finish the work sooner (the last link is the bottleneck in
  // both, so the hot spot's last packet lands no earlier).
  EXPECT_GE(a.back().when, b.back().when);
}

TEST(Network, AnEnteringPacketNeedsRoomForALargestPacketMoreOnTheEscapeChannel) {
  // A 2-packet buffer: a packet going on from 1 to 2 in the same dimension needs room for
  // itself; a packet injected at 1 for 2 needs room for itself and a largest packet more. With
  // one packet in 2's buffer (from 1), the injected one waits until it drains.
  NetworkParams p = params();
  p.vc_buffer_bytes = 2 * 544;
  Network n(p, Torus({8}), kClock);
  n.inject(packet(1, 2, 0, 1000, 544));  // into the buffer at 2, until its tail arrives
  n.inject(packet(1, 2, 1, 1000, 96));   // entering: waits for room and the link
  const auto ds = n.advance(~Cycle{0});
  ASSERT_EQ(ds.size(), 2u);
  // The first holds the link 436 cycles and the buffer until 1000 + 436 + 64; only then has the
  // buffer room for 96 + 544 bytes.
  EXPECT_EQ(ds[0].when, 1000 + 436 + 64 + 150);
  EXPECT_EQ(ds[1].when, 1000 + 436 + 64 + n.linkCycles(96) + 64 + 150);
  EXPECT_EQ(n.bufferWaits(), 1u);
}

TEST(Network, DynamicPacketsTakeAnyLinkThatBringsThemNearerAndOnlySuch) {
  // From (0,0) to (1,1) of a 4x4 torus: the A+ and B+ links both bring a packet nearer. A
  // stream of dynamic packets uses both (the second finds A+ busy and B+ free); deterministic
  // ones use A+ only. Every packet crosses exactly two links either way.
  const Torus t({4, 4});
  const u32 a_plus = Torus::linkOf(0, 0, 0, 2), b_plus = Torus::linkOf(0, 1, 0, 2);
  for (const bool dynamic : {false, true}) {
    Network n(params(), t, kClock);
    for (u64 k = 0; k < 8; ++k) n.inject(packet(0, 5, k, 1000, 544, dynamic, false));
    const auto ds = n.advance(~Cycle{0});
    ASSERT_EQ(ds.size(), 8u);
    u64 crossings = 0, on_dynamic = 0;
    for (const LinkStats& s : n.links()) {
      crossings += s.packets;
      on_dynamic += s.channel_packets[static_cast<u32>(Channel::kDynamic)];
    }
    EXPECT_EQ(crossings, 16u) << dynamic;
    EXPECT_EQ(n.links()[a_plus].packets + n.links()[b_plus].packets, 8u) << dynamic;
    if (dynamic) {
      EXPECT_GT(n.links()[b_plus].packets, 0u);
      EXPECT_GT(on_dynamic, 0u);
    } else {
      EXPECT_EQ(n.links()[b_plus].packets, 0u);
      EXPECT_EQ(on_dynamic, 0u);
    }
  }
  // Spread over two links, the stream lands sooner.
  Network det(params(), t, kClock), dyn(params(), t, kClock);
  for (u64 k = 0; k < 8; ++k) {
    det.inject(packet(0, 5, k, 1000, 544, false, false));
    dyn.inject(packet(0, 5, k, 1000, 544, true, false));
  }
  EXPECT_LT(dyn.advance(~Cycle{0}).back().when, det.advance(~Cycle{0}).back().when);
}

// Two dynamic channels (network.dynamic_channels = 2, bgp's VCD0 and VCD1): a stream of dynamic
// packets along one link, faster than the far buffer drains (small buffers), fills one
// channel's buffer and goes on in the other's: both carry packets, every packet arrives, and the
// stream lands no later than with one channel. With one, the second carries nothing.
TEST(Network, ASecondDynamicChannelTakesWhatTheFirstHasNoRoomFor) {
  const auto run = [](u32 channels) {
    NetworkParams p = params();
    p.vc_buffer_bytes = 2 * 544;
    p.dynamic_channels = channels;
    auto n = std::make_unique<Network>(p, Torus({8}), kClock);
    for (u64 k = 0; k < 24; ++k) n->inject(packet(0, 4, k, 1000, 544, true, false));
    const auto ds = n->advance(~Cycle{0});
    EXPECT_EQ(ds.size(), 24u) << channels;
    EXPECT_TRUE(n->idle());
    return std::pair{std::move(n), ds.back().when};
  };
  const auto [one, one_done] = run(1);
  const auto [two, two_done] = run(2);
  u64 first = 0, second = 0, second_with_one = 0;
  for (const LinkStats& s : two->links()) {
    first += s.channel_packets[static_cast<u32>(Channel::kDynamic)];
    second += s.channel_packets[static_cast<u32>(Channel::kDynamic1)];
  }
  for (const LinkStats& s : one->links()) {
    second_with_one += s.channel_packets[static_cast<u32>(Channel::kDynamic1)];
  }
  EXPECT_GT(first, 0u);
  EXPECT_GT(second, 0u);
  EXPECT_EQ(second_with_one, 0u);
  EXPECT_LE(two_done, one_done);
}

// Deterministic packets of one source to one destination arrive in the order they left, even
// when a later, smaller one would fit the next buffer before an earlier, larger one: the source's
// queue is one input. Node 1's unit takes nothing at first, so the first packet waits at node 1
// holding 544 bytes of its escape buffer; the next (384 bytes, entering: it needs room for a
// largest packet more) cannot follow, the last (32 bytes) could. (The slots of two priority
// packets that went two hops are reused for them: a slot's stale channel once made the source's
// queue look like two inputs, and the 32-byte packet overtook the 384-byte one; libmpi's
// rendezvous then saw its completion before the data's last packet and never completed:
// mpi_collectives on 5 nodes deadlocked.)
TEST(Network, APacketOfASourceNeverOvertakesAnEarlierOneWaitingForRoom) {
  NetworkParams p = params();
  p.vc_buffer_bytes = 1400;
  Network n(p, Torus({4}), kClock);
  n.inject(packet(0, 2, 0, 100, 96, false, true));
  n.inject(packet(3, 1, 0, 100, 96, false, true));
  ASSERT_EQ(n.advance(5000).size(), 2u);  // (their slots are free again)
  n.setReceptionRoom(1, 0);
  n.inject(packet(0, 1, 0, 6000, 544));
  n.inject(packet(0, 1, 1, 6001, 384));
  n.inject(packet(0, 1, 2, 6002, 32));
  ASSERT_TRUE(n.advance(20000).empty());
  n.setReceptionRoom(1, ~u64{0});
  std::vector<u64> order;
  for (const Delivery& d : n.advance(~Cycle{0})) order.push_back(d.packet.seq);
  EXPECT_EQ(order, (std::vector<u64>{0, 1, 2}));
}

TEST(Network, APriorityPacketGoesBeforeOthersWaitingForTheSameLink) {
  Network n(params(), Torus({4}), kClock);
  n.inject(packet(0, 1, 0, 1000, 544, false, false));  // holds the link until 1436
  n.inject(packet(0, 1, 1, 1010, 96, false, false));   // waits
  n.inject(packet(0, 1, 2, 1020, 96, false, true));    // waits, and goes first
  const auto ds = n.advance(~Cycle{0});
  ASSERT_EQ(ds.size(), 3u);
  EXPECT_EQ(ds[1].packet.seq, 2u);
  EXPECT_EQ(ds[1].when, 1436 + 64 + n.linkCycles(96) + 150);
  EXPECT_EQ(ds[2].packet.seq, 1u);
  EXPECT_EQ(n.links()[Torus::linkOf(0, 0, 0, 1)].channel_packets[2], 1u);
}

TEST(Network, HeavyMixedTrafficWithTheSmallestBuffersNeverDeadlocks) {
  // Every node of a 4x4 torus sends 60 packets to pseudo-random nodes, deterministic, dynamic
  // and priority mixed, sizes from one chunk to the largest, with two-packet buffers: the bubble
  // rule and the escape channel must let every packet through.
  NetworkParams p = params();
  p.vc_buffer_bytes = 2 * 544;
  const Torus t({4, 4});
  Network n(p, t, kClock);
  const u64 sent = test::injectMixedTraffic(n, t.nodes(), 12345, 60, packet);
  const auto ds = n.advance(~Cycle{0});
  EXPECT_EQ(ds.size(), sent);
  EXPECT_TRUE(n.idle());
  EXPECT_GT(n.bufferWaits(), 0u);
}

}  // namespace
}  // namespace hpm::net
