// Blue Gene/P's collective network and global barrier network: the timing and function of the
// tree that combines and broadcasts packets in its routers, and of the wired-AND barrier
// (docs/network.md, "The collective network"). One model for all the nodes, as the torus's
// (net/network.h); each node's device (net/collective_unit.h) injects into it and receives from
// it.
//
// The tree: node i's parent is node (i - 1) / 2 and node 0 is the root (heap order; the
// machine's cabling gives each node up to three collective links, and hpmsim wires them as this
// binary tree). A router's ports are its links (0 to the parent, 1 to child 2i + 1, 2 to child
// 2i + 2) and its local client (3: the processor's injection and reception FIFOs), each with a
// receiver FIFO of kColFifoPackets packets per virtual channel. Every class route is the whole
// partition's tree (hpmsim's kernel sets the 16 alike): up the tree its sources are a node's
// children and its local client and its target the parent; at the root a packet turns down, to
// the children and the local client; a packet from the parent goes on to the children and the
// local client.
//
// Routing, on each virtual channel (two, independent but for the links they share):
// - A packet whose opcode is NONE (or a point-to-point one) goes up alone, then down to every
//   node: a broadcast, which reaches its sender too.
// - A combining packet (another opcode) waits at each router until every up-tree source has one
//   at the head of its FIFO; the ALU combines them operand by operand (net/collective.cpp
//   combine) and the result goes on, taking the ALU for the packet's link time.
// - A packet goes when all its targets can take it at once: each link free and the receiver FIFO
//   at its far end with room, the local client's reception FIFO with room. Virtual cut-through:
//   it may leave a router once its head has arrived; it holds each link linkCycles(), its head
//   reaches the next router hop_cycles after it left, and its receiver FIFO slot frees when its
//   tail has left that router. A packet for the local client is readable reception_cycles after
//   its tail reached the router.
// Events at one router at one cycle are decided in a fixed order (channel 0 first; at each,
// down-tree before up-tree), so results do not depend on the order routers are visited.
#pragma once

#include <algorithm>
#include <array>
#include <deque>
#include <functional>
#include <queue>
#include <vector>

#include "base/types.h"
#include "net/collective_params.h"

namespace hpm::net {

// A collective packet's header (bpcore/collective.h's layout; bit 31 is the most significant).
namespace colhdr {
inline constexpr u32 kOpNone = 0, kOpOr = 1, kOpAnd = 2, kOpXor = 3, kOpMax = 5, kOpAdd = 6;
constexpr u32 cls(u32 h) {
  return h >> 28;
}
constexpr bool p2p(u32 h) {
  return ((h >> 27) & 1) != 0;
}
constexpr u32 opcode(u32 h) {
  return (h >> 23) & 7;
}
// Bytes of one operand: (the operand size field + 1) 16-bit words.
constexpr u32 operandBytes(u32 h) {
  return 2 * (((h >> 16) & 0x7f) + 1);
}
constexpr bool combining(u32 h) {
  return !p2p(h) && opcode(h) != kOpNone;
}
constexpr u32 make(u32 cls, u32 opcode, u32 operand_words, u32 tag) {
  return (cls & 15) << 28 | (opcode & 7) << 23 | ((operand_words - 1) & 0x7f) << 16 |
         (tag & 0x3fff) << 2;
}
}  // namespace colhdr

struct ColPacket {
  u32 src = 0;  // the node that injected it (a combined packet: the router that combined it)
  u8 vc = 0;
  u32 header = 0;
  std::array<u8, kColPayloadBytes> payload{};
};

struct ColDelivery {
  Cycle when = 0;  // readable in the node's reception FIFO
  u32 node = 0;
  ColPacket packet;
};

// Something a router did, for the node's events (probe ColPacketsSent ... ColArbiterHas): at
// cycle `at`, on `port` (0 to 2: a link; 3: the local client) and virtual channel `vc`; kClassWin
// names the class in `port`. The busy kinds are intervals [at, until), known at `at`: a port
// sending (a link's sender, or the local client taking a packet into its reception FIFO), a port
// receiving (a link's receiver, or the router taking a packet out of the injection FIFO), the
// ALU combining (on the local client's port).
// The state kinds (kFirstState on) are intervals [at, until) of a state that ends at a decision
// made later, published in pieces up to each horizon the network reaches (onLevel), so that each
// piece is known before the window it falls in (docs/network.md "The collective network's
// levels"; the readings are the model's, no public source defines them):
// - kReceiverFull: link `port`'s receiver FIFO of the channel holds kColFifoPackets packets (a
//   packet is in it from its head's arrival until its tail has left the router);
// - kSenderEmpty: link `port`'s sender holds every token of the channel: none of the packets it
//   sent on it is still in the far end's receiver FIFO or on its way there (a link with no far
//   end: always);
// - kArbiterHas: the arbiter has a packet of the channel from `port` (a link's receiver FIFO, or
//   the injection FIFO on the local client's port): its head has reached the router and the
//   arbiter has not yet taken it.
struct ColSignal {
  enum Kind : u8 {
    kSent,
    kReceived,
    kSentCutThrough,
    kReceivedCutThrough,
    kTaken,
    kClassWin,
    kSenderBusy,
    kReceiverBusy,
    kAluBusy,
    kReceiverFull,
    kSenderEmpty,
    kArbiterHas
  };
  static constexpr u32 kKinds = 12;
  static constexpr u32 kFirstState = kReceiverFull, kStates = kKinds - kFirstState;
  Kind kind = kSent;
  u32 node = 0;
  u32 port = 0;
  u8 vc = 0;
  Cycle at = 0;
  Cycle until = 0;
};

// The ALU: `into` op= `from`, operand by operand (little-endian unsigned integers of
// colhdr::operandBytes; a last, partial operand is a narrower one). OR, AND and XOR are bitwise,
// ADD modulo 2^bits, MAX unsigned; other opcodes leave `into` as it is.
void combine(u32 header, std::array<u8, kColPayloadBytes>& into,
             const std::array<u8, kColPayloadBytes>& from);

struct ColStats {
  u64 injected = 0;   // packets the local clients injected
  u64 combined = 0;   // ALU operations (one per combining router step)
  u64 delivered = 0;  // packets put into reception FIFOs
  u64 link_packets = 0;
  u64 mismatches = 0;  // combines whose sources' opcodes or operand sizes differed (the first's)
};

class CollectiveNetwork {
 public:
  CollectiveNetwork(const CollectiveParams& params, u32 nodes, u64 clock_hz);
  // Called for every ColSignal but the state kinds as advance() decides it (may be empty).
  void onSignal(std::function<void(const ColSignal&)> observer) {
    on_signal_ = std::move(observer);
  }
  // Called for every piece of a state kind's interval (ColSignal::kFirstState on): at the end of
  // each advance, the states still on are published up to its horizon (and go on from it); a
  // state that ends is published up to its end. Every piece starts at or after the horizon the
  // network had reached before (a state on from cycle 0: the first advance's). (May be empty.)
  void onLevel(std::function<void(const ColSignal&)> observer) { on_level_ = std::move(observer); }

  u32 nodes() const { return nodes_; }
  // The tree's neighbours: the node at the far end of link `port` of `node`, or ~0 (none).
  u32 neighbour(u32 node, u32 port) const;
  // Levels below the root (a single node: 0).
  u32 depth() const;
  // Cycles a packet holds a link.
  u64 linkCycles() const { return link_cycles_; }
  // The least time from a node's injection to any effect on another node (its router).
  Cycle lookahead() const { return params_.injection_cycles + params_.hop_cycles; }

  // A packet complete in `node`'s injection FIFO at `at`: its head is at the arbiter
  // injection_cycles later, which must not be before the network's present (advance's horizon).
  void inject(u32 node, Cycle at, ColPacket p);
  // The packets `node`'s reception FIFO of `vc` can take from now on (until the next call);
  // packets for it wait at its router (holding their FIFO slots) while it can take none.
  void setReceptionRoom(u32 node, u8 vc, u32 packets);
  // Decides everything before `horizon` and returns the packets readable in reception FIFOs by
  // then (in time, then node order). No packet may be injected before it later.
  std::vector<ColDelivery> advance(Cycle horizon);
  // Packets of `node`'s injection FIFO of `vc` whose tail had left it by `at` (at most the
  // network's present): their slots are free again.
  u64 injectionFreed(u32 node, u8 vc, Cycle at);

  bool idle() const { return in_flight_ == 0; }
  // The time of the network's next event (none: ~0).
  Cycle nextStep() const {
    return std::min(wakes_.empty() ? ~Cycle{0} : wakes_.top().first,
                    frees_.empty() ? ~Cycle{0} : frees_.top().when);
  }
  const ColStats& stats() const { return stats_; }

 private:
  struct Entry {
    ColPacket packet;
    Cycle head = 0;  // its head at this router
    Cycle tail = 0;  // its tail at this router
  };
  struct Router {
    // Receiver FIFOs by port and channel (the local client's: its injection FIFO).
    std::array<std::array<std::deque<Entry>, kColVcs>, kColPorts> in;
    // Packets in the receiver FIFOs at the far end of each link, by channel (including those
    // still on the way): a link may carry a packet only when this is below kColFifoPackets.
    std::array<std::array<u32, kColVcs>, kColLinks> far_used{};
    std::array<Cycle, kColLinks> link_free{};
    Cycle alu_free = 0;
    // The local client's ports: taking packets out of the injection FIFOs, and into the
    // reception FIFOs (one packet at a time each, whatever its channel).
    Cycle inject_free = 0, receive_free = 0;
    std::array<u32, kColVcs> room{};  // the reception FIFOs' (setReceptionRoom)
    std::array<std::deque<Cycle>, kColVcs> injection_frees;
    std::array<u64, kColVcs> injection_freed{};
    // Packets of each link's receiver FIFO taken by the arbiter whose slots are not free yet.
    std::array<std::array<u32, kColVcs>, kColLinks> freeing{};
    // Per state kind, port and channel: the start of the piece of the state not yet published
    // (kOff: the state is off).
    std::array<std::array<std::array<Cycle, kColVcs>, kColPorts>, ColSignal::kStates> since;
  };
  static constexpr Cycle kOff = ~Cycle{0};
  using Wake = std::pair<Cycle, u32>;  // (time, node)

  void wake(u32 node, Cycle at) { wakes_.push({at, node}); }
  // Routes what can go at `node` at `now`; returns the next time something there may change.
  void step(u32 node, Cycle now);
  bool tryDown(u32 node, u8 vc, Cycle now, Cycle& next);
  bool tryUp(u32 node, u8 vc, Cycle now, Cycle& next);
  // The down-tree targets (children, local client), or the parent.
  u32 targetsOf(u32 node, bool down) const;
  bool canSend(u32 node, u8 vc, u32 targets, Cycle now, Cycle& next) const;
  // Sends `p` from `node` at `now` to `targets` (bits: links 0 to 2, local client 3), taking the
  // heads of the FIFOs in `sources` (bits by port).
  void send(u32 node, u8 vc, const ColPacket& p, u32 sources, u32 targets, Cycle now);
  void signal(ColSignal::Kind kind, u32 node, u32 port, u8 vc, Cycle at, Cycle until = 0);
  // Whether state `kind` is on at `node`'s `port` and channel `vc` at `now` (everything at the
  // router before and at `now` decided).
  bool stateOn(u32 kind, u32 node, u32 port, u8 vc, Cycle now) const;
  // Brings `node`'s states to `now`: those that ended are published up to it, those that began
  // start their piece there.
  void updateStates(u32 node, Cycle now);
  // Publishes every state still on up to `horizon`.
  void splitStates(Cycle horizon);

  CollectiveParams params_;
  u32 nodes_;
  u64 link_cycles_;
  std::vector<Router> routers_;
  std::priority_queue<Wake, std::vector<Wake>, std::greater<>> wakes_;
  // Frees of receiver FIFO slots: (time, node, port x kColVcs + vc).
  struct Free {
    Cycle when;
    u32 node;
    u32 slot;
    bool operator>(const Free& o) const {
      return when != o.when ? when > o.when : (node != o.node ? node > o.node : slot > o.slot);
    }
  };
  std::priority_queue<Free, std::vector<Free>, std::greater<>> frees_;
  std::vector<ColDelivery> out_;
  Cycle horizon_ = 0;
  u64 in_flight_ = 0;  // packets in the routers' FIFOs (injected, or on their way)
  ColStats stats_;
  std::function<void(const ColSignal&)> on_signal_;
  std::function<void(const ColSignal&)> on_level_;
};

// Blue Gene/P's global interrupt network used as a barrier: on each of kChannels channels, a
// wired AND of one bit per node. Barrier k completes when every node has armed it,
// barrier_cycles after the last arm, for every node at once; a node's bit stays set until then,
// so an arm while it is set changes nothing (and holds no host memory, whatever a guest does).
// (Blue Gene/Q's GI classes use it too, one per class route: there `members` of the nodes take
// part, those of the class route's tree, and a barrier completes when they all have armed.)
class GlobalBarrier {
 public:
  static constexpr u32 kChannels = 4;
  // Nodes 0 .. nodes - 1 may arm; a barrier completes at the `members`-th arm (0: every node).
  GlobalBarrier(u32 nodes, Cycle latency, u32 members = 0);
  // `node` arms channel `channel` at `at` (arms of one node come in time order); false: its bit
  // was set already, and the arm changed nothing.
  bool arm(u32 node, u32 channel, Cycle at);
  // Arms that changed nothing, over the run.
  u64 ignoredArms() const { return ignored_; }
  // Barriers completed on `channel` so far, and the cycle each completed at.
  const std::vector<Cycle>& completions(u32 channel) const { return done_[channel]; }

 private:
  u32 members_;
  Cycle latency_;
  static constexpr Cycle kClear = ~Cycle{0};
  // Per channel and node: when its bit was set for the pending barrier (kClear: not set).
  std::array<std::vector<Cycle>, kChannels> armed_;
  std::array<u32, kChannels> set_{};       // bits set per channel
  std::array<Cycle, kChannels> latest_{};  // the pending barrier's latest arm per channel
  std::array<std::vector<Cycle>, kChannels> done_;
  u64 ignored_ = 0;
};

}  // namespace hpm::net
