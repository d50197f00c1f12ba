// The torus links' token and acknowledgement protocol (net/link_protocol.h, network.link_protocol):
// tokens spent and returned, every packet acknowledged once, token/ack packets only when no data
// packet goes the other way, and the timing rule the model documents.
#include <gtest/gtest.h>

#include <vector>

#include "net/link_protocol.h"
#include "net/network.h"
#include "net/network_params.h"
#include "net/torus.h"
#include "tests/net/network_test_util.h"

namespace hpm::net {
namespace {

constexpr u64 kClock = 1'600'000'000;
constexpr u32 kEscape = static_cast<u32>(Channel::kEscape);

// The tests' links with the protocol on: a 12-byte token/ack packet holds a link 10 cycles.
NetworkParams params() {
  NetworkParams p = test::baseParams();
  p.link_protocol = true;
  p.token_ack_bytes = 12;
  return p;
}

using test::packet;

// Node 0's plus link, and the same cable's other way, node 1's minus link. (On a ring of 2 nodes
// node 1's packets to node 0 take its plus link, the other cable: a ring of 3 makes them take
// the reverse link.)
const u32 kForward = Torus::linkOf(0, 0, 0, 1);
const u32 kBack = Torus::linkOf(1, 0, 1, 1);

struct Recorded {
  std::vector<ProtocolSignal> signals;
  std::vector<LinkCrossing> crossings;
};

void record(Network& n, Recorded& r) {
  n.onProtocol([&r](const ProtocolSignal& s) { r.signals.push_back(s); });
  n.onCrossing([&r](const LinkCrossing& x) { r.crossings.push_back(x); });
}

TEST(LinkProtocol, IsOnlyWhereTheParametersEnableIt) {
  NetworkParams off = params();
  off.link_protocol = false;
  EXPECT_EQ(Network(off, Torus({2}), kClock).protocol(), nullptr);
  const Network on(params(), Torus({2}), kClock);
  ASSERT_NE(on.protocol(), nullptr);
  EXPECT_EQ(on.protocol()->reverse(kForward), kBack);
  EXPECT_EQ(on.protocol()->reverse(kBack), kForward);
  const Torus t({4, 3, 2});
  const LinkProtocol lp(t);
  for (u32 l = 0; l < t.links(); ++l) {
    if (t.dims()[t.linkDimension(l)] == 1) continue;
    EXPECT_EQ(lp.reverse(lp.reverse(l)), l);
    EXPECT_EQ(t.linkTarget(lp.reverse(l)), l / 6);
  }
}

TEST(LinkProtocol, AnIdleReverseLinkSendsTheAckAndTokensInATokenAckPacketWhenTheTailArrives) {
  Network n(params(), Torus({2}), kClock);
  Recorded r;
  record(n, r);
  n.inject(packet(0, 1, 0, 1000, 544));
  // Sent at 1000; its tail reaches node 1 at 1000 + 436 + 64 = 1500: the ack is owed then, and
  // the buffer empties into the unit then (tokens owed). Both go at 1500 in one token/ack packet
  // on the reverse link, which holds it 10 cycles; the tokens are back at 1500 + 10 + 64.
  n.advance(1574);
  EXPECT_EQ(n.protocol()->tokensOut(kForward, kEscape), 544u);
  n.advance(1575);
  EXPECT_EQ(n.protocol()->tokensOut(kForward, kEscape), 0u);
  ASSERT_EQ(r.signals.size(), 2u);
  EXPECT_EQ(r.signals[0].kind, ProtocolSignal::kTokenAckPacket);
  EXPECT_EQ(r.signals[0].link, kBack);
  EXPECT_EQ(r.signals[0].at, 1500u);
  EXPECT_EQ(r.signals[1].kind, ProtocolSignal::kAck);
  EXPECT_EQ(r.signals[1].at, 1500u);
  const LinkProtocolStats& s = n.protocol()->stats(kBack);
  EXPECT_EQ(s.token_ack_packets, 1u);
  EXPECT_EQ(s.token_ack_cycles, 10u);
  EXPECT_EQ(s.acks, 1u);
  EXPECT_EQ(s.piggybacked_acks, 0u);
  EXPECT_EQ(s.tokens_returned, 544u);
  // The protocol's traffic is not the data's: the links count only packets.
  EXPECT_EQ(n.links()[kBack].packets, 0u);
}

TEST(LinkProtocol, ADataPacketStartingOnTheReverseLinkThenCarriesThemAndNoTokenAckPacketGoes) {
  Network n(params(), Torus({3}), kClock);
  Recorded r;
  record(n, r);
  n.inject(packet(0, 1, 0, 1000, 544));
  n.inject(packet(1, 0, 0, 1500, 96));  // at node 1's router when the ack is owed
  n.advance(~Cycle{0});
  const LinkProtocolStats& back = n.protocol()->stats(kBack);
  EXPECT_EQ(back.token_ack_packets, 0u);
  EXPECT_EQ(back.acks, 1u);
  EXPECT_EQ(back.piggybacked_acks, 1u);
  // Its own ack comes back alone: nothing goes node 0's way after it.
  const LinkProtocolStats& fwd = n.protocol()->stats(kForward);
  EXPECT_EQ(fwd.token_ack_packets, 1u);
  EXPECT_EQ(fwd.acks, 1u);
  // The data packet left when it arrived: carrying the ack cost it nothing.
  ASSERT_EQ(r.crossings.size(), 2u);
  EXPECT_EQ(r.crossings[1].sent, 1500u);
  EXPECT_EQ(n.protocol()->tokensOut(kForward, kEscape), 0u);
  EXPECT_EQ(n.protocol()->tokensOut(kBack, kEscape), 0u);
}

TEST(LinkProtocol, ADataPacketThatWantsTheLinkDuringATokenAckPacketWaitsForItsEnd) {
  Network n(params(), Torus({3}), kClock);
  Recorded r;
  record(n, r);
  n.inject(packet(0, 1, 0, 1000, 544));
  n.inject(packet(1, 0, 0, 1505, 96));  // the token/ack packet holds the link 1500 to 1510
  n.advance(~Cycle{0});
  ASSERT_EQ(r.crossings.size(), 2u);
  EXPECT_EQ(r.crossings[1].link, kBack);
  EXPECT_EQ(r.crossings[1].sent, 1510u);
  EXPECT_EQ(n.links()[kBack].wait_cycles, 5u);
}

TEST(LinkProtocol, AOneWayStreamIsAcknowledgedByTokenAckPacketsOnly) {
  Network n(params(), Torus({2}), kClock);
  for (u64 k = 0; k < 20; ++k) n.inject(packet(0, 1, k, 1000, 544));
  EXPECT_EQ(n.advance(~Cycle{0}).size(), 20u);
  const LinkProtocolStats& back = n.protocol()->stats(kBack);
  EXPECT_EQ(back.acks, 20u);
  EXPECT_EQ(back.piggybacked_acks, 0u);
  EXPECT_GT(back.token_ack_packets, 0u);
  EXPECT_LE(back.token_ack_packets, 20u);
  EXPECT_EQ(back.tokens_returned, 20u * 544);
}

TEST(LinkProtocol, StreamsBothWaysCarryTheirAcksInEachOthersPackets) {
  Network n(params(), Torus({3}), kClock);
  for (u64 k = 0; k < 20; ++k) {
    n.inject(packet(0, 1, k, 1000, 544));
    n.inject(packet(1, 0, k, 1000, 544));
  }
  EXPECT_EQ(n.advance(~Cycle{0}).size(), 40u);
  for (const u32 l : {kForward, kBack}) {
    const LinkProtocolStats& s = n.protocol()->stats(l);
    EXPECT_EQ(s.acks, 20u);
    EXPECT_GT(s.piggybacked_acks, 10u);  // (the last ones, after the other stream ended, alone)
    EXPECT_EQ(s.acks - s.piggybacked_acks > 0, s.token_ack_packets > 0);
  }
}

TEST(LinkProtocol, ASenderWithTooFewTokensWaitsForThemAndCountsTheCyclesTheLinkWasFree) {
  NetworkParams p = params();
  p.vc_buffer_bytes = 2 * 544;  // room for the bubble rule's two packets only
  Network n(p, Torus({2}), kClock);
  Recorded r;
  record(n, r);
  for (u64 k = 0; k < 4; ++k) n.inject(packet(0, 1, k, 1000, 544));
  EXPECT_EQ(n.advance(~Cycle{0}).size(), 4u);
  // An injected packet needs room for itself and a largest packet more: the second waits for
  // the first's tokens, back at 1500 + 10 + 64 = 1574, although the link is free from 1436.
  ASSERT_EQ(r.crossings.size(), 4u);
  EXPECT_EQ(r.crossings[1].sent, 1574u);
  const LinkProtocolStats& s = n.protocol()->stats(kForward);
  EXPECT_GE(s.no_token_cycles[kEscape], 1574u - 1436);
  EXPECT_EQ(s.no_token_cycles[kAnyChannel], s.no_token_cycles[kEscape]);
  u64 signalled = 0;
  for (const ProtocolSignal& x : r.signals) {
    if (x.kind != ProtocolSignal::kNoTokens) continue;
    EXPECT_EQ(x.link, kForward);
    EXPECT_LT(x.at, x.until);
    if (x.channel == kEscape) signalled += x.until - x.at;
  }
  EXPECT_EQ(signalled, s.no_token_cycles[kEscape]);
}

TEST(LinkProtocol, UnderHeavyMixedTrafficTokensStayWithinTheBufferAndEveryPacketIsAckedOnce) {
  NetworkParams p = params();
  p.vc_buffer_bytes = 2 * 544;
  const Torus t({4, 4});
  Network n(p, t, kClock);
  Recorded r;
  record(n, r);
  const u64 sent = test::injectMixedTraffic(n, t.nodes(), 777, 40, packet);
  const LinkProtocol& lp = *n.protocol();
  u64 delivered = 0;
  Cycle last = 0;
  for (Cycle h = 100; !n.idle() || n.nextStep() != ~Cycle{0}; h += 100) {
    for (const Delivery& d : n.advance(h)) {
      ++delivered;
      last = d.when;
    }
    for (u32 l = 0; l < t.links(); ++l) {
      for (u32 c = 0; c < kProtocolChannels; ++c) ASSERT_LE(lp.tokensOut(l, c), p.vc_buffer_bytes);
    }
    ASSERT_LT(h, Cycle{10'000'000}) << "the protocol deadlocked";
  }
  EXPECT_EQ(delivered, sent);
  // Every packet that crossed a link was acknowledged once over its reverse link, all tokens are
  // back, nothing is owed, and no interval of waiting for tokens stayed open.
  u64 token_ack_packets = 0;
  for (u32 l = 0; l < t.links(); ++l) {
    EXPECT_EQ(lp.stats(lp.reverse(l)).acks, n.links()[l].packets) << l;
    EXPECT_FALSE(lp.owes(l));
    for (u32 c = 0; c < kProtocolChannels; ++c) EXPECT_EQ(lp.tokensOut(l, c), 0u);
    EXPECT_LE(lp.stats(l).no_token_cycles[kAnyChannel], last);
    token_ack_packets += lp.stats(l).token_ack_packets;
  }
  EXPECT_GT(token_ack_packets, 0u);
  // Acknowledgements leave a link one a cycle.
  std::vector<std::vector<Cycle>> acks(t.links());
  for (const ProtocolSignal& x : r.signals) {
    if (x.kind == ProtocolSignal::kAck) acks[x.link].push_back(x.at);
  }
  for (const std::vector<Cycle>& a : acks) {
    for (std::size_t i = 1; i < a.size(); ++i) EXPECT_LT(a[i - 1], a[i]);
  }
}

}  // namespace
}  // namespace hpm::net
