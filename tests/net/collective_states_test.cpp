// Blue Gene/P's collective network's states (net/collective.h, ColSignal::kReceiverFull,
// kSenderEmpty, kArbiterHas): published in pieces up to each horizon, each piece at or after the
// horizon reached before it, and their cycles exactly those the routers' decisions imply (rebuilt
// here from the decision signals alone: heads arriving, packets taken, packets sent).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "net/collective.h"
#include "tests/net/network_test_util.h"

namespace hpm::net {
namespace {

CollectiveParams params() {
  return test::collectiveParams();
}

constexpr u64 kHz = 850'000'000;

ColPacket packet(u32 src, u32 header, u8 vc) {
  ColPacket p;
  p.src = src;
  p.vc = vc;
  p.header = header;
  return p;
}

using Key = std::tuple<u32, u32, u32, u32>;  // (state kind, node, port, vc)

// Cycles in [0, end) at which `on(count)` holds, the count changing by the deltas (all of one
// cycle applied before that cycle is judged).
template <typename On>
Cycle cyclesOn(std::vector<std::pair<Cycle, int>> deltas, Cycle end, On on) {
  std::sort(deltas.begin(), deltas.end());
  Cycle total = 0, at = 0;
  int count = 0;
  for (std::size_t i = 0; i <= deltas.size();) {
    const Cycle next = i < deltas.size() ? std::min(deltas[i].first, end) : end;
    if (on(count)) total += next - at;
    at = next;
    if (i == deltas.size() || at >= end) break;
    for (const Cycle t = deltas[i].first; i < deltas.size() && deltas[i].first == t; ++i) {
      count += deltas[i].second;
    }
  }
  return total;
}

TEST(CollectiveStates, EachStatesCyclesAreThoseItsDecisionsImplyPublishedBeforeTheirWindow) {
  constexpr u32 kNodes = 5;  // 0 the root; 1 and 2 its children; 3 and 4 node 1's
  CollectiveNetwork net(params(), kNodes, kHz);
  std::vector<ColSignal> decisions, pieces;
  Cycle reached = 0;  // the horizon of the advance before
  bool early = false;
  net.onSignal([&](const ColSignal& s) { decisions.push_back(s); });
  net.onLevel([&](const ColSignal& s) {
    early = early || s.at < reached || s.until <= s.at;
    pieces.push_back(s);
  });
  const u32 bcast = colhdr::make(0, colhdr::kOpNone, 4, 0);
  const u32 add = colhdr::make(0, colhdr::kOpAdd, 4, 1);
  // (node, channel) -> when each packet's head reaches its router
  std::map<std::pair<u32, u32>, std::vector<Cycle>> heads;
  const auto inject = [&](u32 node, Cycle at, u32 header, u8 vc) {
    net.inject(node, at, packet(node, header, vc));
    heads[{node, vc}].push_back(at + params().injection_cycles);
  };
  // Node 4 reads nothing until cycle 30,000: broadcasts back up behind it, filling FIFOs.
  for (u32 i = 0; i < 12; ++i) inject(3, 10 * i, bcast, 0);
  for (u32 i = 0; i < 6; ++i) inject(2, 20 * i, bcast, 1);
  const Cycle step = 200;
  Cycle h = 0;
  for (; h < 40'000; h += step) {
    for (u32 n = 0; n < kNodes; ++n) {
      for (u8 vc = 0; vc < kColVcs; ++vc) {
        net.setReceptionRoom(n, vc, n == 4 && h < 30'000 ? 0 : kColFifoPackets);
      }
    }
    if (h == 1000) {
      for (u32 n = 0; n < kNodes; ++n) inject(n, h + 5 * n, add, 1);
    }
    net.advance(h + step);
    reached = h + step;
  }
  EXPECT_TRUE(net.idle());
  EXPECT_FALSE(early);
  const Cycle end = h;

  // The states' cycles as published.
  std::map<Key, Cycle> published;
  for (const ColSignal& s : pieces) published[{s.kind, s.node, s.port, s.vc}] += s.until - s.at;

  // The same rebuilt from the decisions: a link receiver's packets arrive (ReceiverBusy's start)
  // and are taken; their slots free a link time after; the sender's tokens go out as it sends
  // and come back as the far end frees the slot.
  std::map<Key, std::vector<std::pair<Cycle, int>>> fifo, waiting, out;
  const Cycle link = net.linkCycles();
  for (const auto& [source, times] : heads) {
    for (Cycle t : times) waiting[{0, source.first, kColLocal, source.second}].push_back({t, +1});
  }
  for (const ColSignal& s : decisions) {
    if (s.kind == ColSignal::kReceiverBusy && s.port < kColLinks) {
      fifo[{0, s.node, s.port, s.vc}].push_back({s.at, +1});
      waiting[{0, s.node, s.port, s.vc}].push_back({s.at, +1});
    } else if (s.kind == ColSignal::kTaken) {
      waiting[{0, s.node, s.port, s.vc}].push_back({s.at, -1});
      if (s.port == kColLocal) continue;
      fifo[{0, s.node, s.port, s.vc}].push_back({s.at + link, -1});
      // (The feeder: the far end of this link; its port back here.)
      const u32 feeder = net.neighbour(s.node, s.port);
      const u32 feeder_port = s.port == 0 ? 1 + (s.node - 1) % 2 : 0;
      out[{0, feeder, feeder_port, s.vc}].push_back({s.at + link, -1});
    } else if (s.kind == ColSignal::kSent && s.port < kColLinks) {
      out[{0, s.node, s.port, s.vc}].push_back({s.at, +1});
    }
  }
  Cycle full_total = 0, have_total = 0;
  for (u32 n = 0; n < kNodes; ++n) {
    for (u32 port = 0; port < kColPorts; ++port) {
      for (u32 vc = 0; vc < kColVcs; ++vc) {
        const Key k{0, n, port, vc};
        const Cycle full =
            port < kColLinks
                ? cyclesOn(fifo[k], end,
                           [](int c) { return c >= static_cast<int>(kColFifoPackets); })
                : 0;
        const Cycle empty =
            port < kColLinks ? cyclesOn(out[k], end, [](int c) { return c == 0; }) : 0;
        const Cycle have = cyclesOn(waiting[k], end, [](int c) { return c > 0; });
        EXPECT_EQ((published[{ColSignal::kReceiverFull, n, port, vc}]), full)
            << "full: node " << n << " port " << port << " vc " << vc;
        EXPECT_EQ((published[{ColSignal::kSenderEmpty, n, port, vc}]), empty)
            << "empty: node " << n << " port " << port << " vc " << vc;
        EXPECT_EQ((published[{ColSignal::kArbiterHas, n, port, vc}]), have)
            << "have: node " << n << " port " << port << " vc " << vc;
        full_total += full;
        have_total += have;
      }
    }
  }
  // The run filled FIFOs (node 4's from its parent first) and made the arbiters wait.
  EXPECT_GT((published[{ColSignal::kReceiverFull, 4, 0, 0}]), 0u);
  EXPECT_GT(full_total, 0u);
  EXPECT_GT(have_total, 0u);
  // A link with no far end (the root's to its parent) holds all its tokens throughout.
  EXPECT_EQ((published[{ColSignal::kSenderEmpty, 0, 0, 0}]), end);
}

}  // namespace
}  // namespace hpm::net
