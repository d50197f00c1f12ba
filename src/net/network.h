// The torus network's timing: packets move router to router over links with a bandwidth and a
// hop latency, in exact time order, with contention for each link and back-pressure from each
// router's buffers.
//
// The model (docs/network.md, "The network model"): virtual cut-through over virtual channels.
// A packet of B bytes (header included, whole 32-byte chunks) whose head is at a router at t
// goes on a link at the first s >= t when the link is free and the buffer of its channel at the
// link's far end has room for it; it holds the link ceil(B / bytes per cycle) cycles, its head
// reaches the next router at s + hop_cycles, and its bytes leave the buffer it was in when its
// tail has left (s + the link's cycles). At its destination the router's buffer empties into
// the message unit as the tail arrives (s + link cycles + hop_cycles), and the bytes are in the
// reception FIFO reception_cycles later.
//
// Channels (as BG/Q's user point-to-point classes): a deterministic packet travels on the
// escape channel by dimension order (net/torus.h); a dynamic one on the dynamic channel over any
// link that brings it nearer (the first, in dimension order, that can take it when it arrives,
// else the first to free), or on the escape channel's dimension-order link when that can take it
// first; a priority packet on the priority channel by dimension order, ahead of the others when
// several wait for one link; a system packet (system software's) on the system channel by
// dimension order. The escape, priority and system channels keep the bubble rule: a packet
// entering one (injected, turning to another dimension, or coming from another channel) needs
// room for itself and a largest packet more, so that rings of buffers never fill and the network
// never deadlocks; the dynamic channel needs room for the packet. Packets waiting for a link on
// a deterministic channel leave in arrival order per input, so that deterministic packets between
// two nodes arrive in the order they left (dynamic ones may overtake each other).
// A destination takes what its message unit has room for (setReceptionRoom, given at each
// window's start); a packet that finds no room waits at the destination's router, holding its
// buffer, until the unit has room: back-pressure from a reception FIFO that is not drained
// reaches the links and, through them, the senders (message_unit.h).
#pragma once

#include <array>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <vector>

#include "base/types.h"
#include "net/class_route.h"
#include "net/link_protocol.h"
#include "net/network_params.h"
#include "net/torus.h"
#include "net/torus_collective.h"

namespace hpm::net {

// The virtual channels: user point-to-point packets' (the first kPointChannels), then the
// collective classes' (BG/Q's VCs 4 user comm-world, 5 user sub-communicator, 6 system
// collective: MU_CollectiveNetworkHeader.h), then a second dynamic channel (Blue Gene/P's VCD1
// beside VCD0: network.dynamic_channels).
enum class Channel : u8 {
  kDynamic = 0,
  kEscape = 1,
  kPriority = 2,
  kSystem = 3,
  kUserWorld = 4,
  kUserSubcomm = 5,
  kSystemCollective = 6,
  kDynamic1 = 7
};
inline constexpr u32 kPointChannels = 4, kChannels = 8;
inline constexpr u32 kFirstCollChannel = 4, kCollChannels = 3;
constexpr bool isCollective(Channel c) {
  return c >= Channel::kUserWorld && c <= Channel::kSystemCollective;
}
constexpr bool isDynamic(Channel c) {
  return c == Channel::kDynamic || c == Channel::kDynamic1;
}
// A point-to-point channel's index in the link protocol's tokens (net/link_protocol.h: the four
// point channels, then the second dynamic one).
constexpr u32 protocolIndex(Channel c) {
  return c == Channel::kDynamic1 ? kPointChannels : static_cast<u32>(c);
}
static_assert(kProtocolChannels == kPointChannels + 1, "the protocol's channels: the point ones");
// The channel a class route's packets travel on (its type must match the packet's channel).
constexpr Channel channelOf(ClassType t) {
  return t == ClassType::kUserWorld ? Channel::kUserWorld
         : t == ClassType::kSystem  ? Channel::kSystemCollective
                                    : Channel::kUserSubcomm;
}

// A packet as it travels: where it goes, how, when its head reached the network, and its bytes
// as they will land in the destination's reception FIFO (header first).
struct Packet {
  u32 src = 0;
  u32 dst = 0;
  u64 seq = 0;            // the source's packet number (ties at equal times: source, then seq)
  Cycle entered = 0;      // its head at the source's router
  bool dynamic = false;   // dynamic routing (else deterministic)
  bool priority = false;  // the priority channel (deterministic routing)
  bool system = false;    // the system channel (deterministic routing)
  u8 type = 0;            // the message unit's packet type (message_unit.h); the network's none
  Collective coll;        // a collective packet's fields (coll.on); dst: a reduce's destination
  std::vector<u8> bytes;  // header + payload, a whole number of 32-byte chunks
  u32 chunks() const { return static_cast<u32>(bytes.size() / 32); }
};

struct Delivery {
  Cycle when = 0;  // its bytes in the destination's reception FIFO
  Packet packet;
};

// Per link, what crossed it (the NWUnit's ground truth).
struct LinkStats {
  u64 packets = 0;
  u64 chunks = 0;
  u64 busy_cycles = 0;  // cycles the link was sending
  u64 wait_cycles = 0;  // cycles packets waited for it (contention and back-pressure)
  std::array<u64, kChannels> channel_packets{};  // packets by channel
  std::array<u64, kChannels> channel_chunks{};   // chunks by channel
};

// A packet crossing a link (what the link counters count): it went on `link` at `sent` on
// `channel`, and its tail reached the link's far end at `arrived`; `last`: that end is its
// destination (a collective packet's: that end's reception FIFO gets it).
struct LinkCrossing {
  u32 link = 0;
  u32 chunks = 0;
  Cycle sent = 0;
  Cycle arrived = 0;
  bool last = false;
  Channel channel = Channel::kEscape;
};

// Collectives (BG/Q's collective classes on the torus; docs/network.md "Collectives on Blue
// Gene/Q's torus"): a collective packet travels on its class route's tree (net/class_route.h),
// on the channel of the class's type, over the same links as point-to-point packets, with the
// same link times, buffers and back-pressure.
// - A combining packet (all-reduce, reduce) waits at each router until every up-tree input of
//   its class (the links from its children, in link order, then the local client) has one, in
//   the order each input brought them; the router combines them (net/torus_collective.h
//   combineWords, the inputs in that order; the result carries the local client's header with
//   the combining node as its source) and the result goes up, at the time the last input's head
//   arrived (cut-through: no time of its own). A broadcast goes up alone.
// - At the root a packet turns down the reverse tree: a copy to each child and one to the local
//   client, at every member (the sender too); a reduce's goes only along the path to its
//   destination (Packet::dst) and into that node's unit. A copy for the local client lands as
//   a point-to-point packet that reached its destination does (one link time after its head,
//   then reception_cycles; held while the unit has no room).
// - Buffers: a packet holds the buffer it arrived in (or its source's queue) until what the
//   router made of it has left: a combined packet's tail, or every copy's. No bubble rule: each
//   class's tree has no cycle, and on each collective channel a packet waits only for the
//   buffers up its tree, then down it, then for its unit, so those waits cannot form a ring.
//   Ties between inputs are decided by link order, never by arrival order.
class Network {
 public:
  Network(const NetworkParams& params, Torus torus, u64 clock_hz);
  // Each node's class route registers (BG/Q's 16 per node; `cls` below kClassRoutes): a router
  // routes a collective packet by its own node's register of the packet's class, which names a
  // tree the node belongs to (its up-tree inputs and its output are that tree's at the node).
  // setClassRoute sets `cls` on every member of `route` (the kernel's world classes);
  // setNodeClassRoute one node's (null: clears it), as that node's software does for a
  // sub-communicator. A collective packet is dropped (counted: collectiveDrops) at a node whose
  // register of its class is clear or names another tree than the one the packet came by (it
  // came on a link that is not the register's input, or not from its output's far end).
  // Registers may change between advance() calls.
  void setClassRoute(u32 cls, ClassRoute route);
  void setNodeClassRoute(u32 node, u32 cls, std::shared_ptr<const ClassRoute> route) {
    node_classes_[node][cls] = std::move(route);
  }
  // Node `node`'s register `cls` (null: clear).
  const ClassRoute* classRoute(u32 node, u32 cls) const { return node_classes_[node][cls].get(); }
  const std::shared_ptr<const ClassRoute>& classRouteShared(u32 node, u32 cls) const {
    return node_classes_[node][cls];
  }
  // Called for every link crossing as advance() decides it (may be empty).
  void onCrossing(std::function<void(const LinkCrossing&)> observer) {
    on_crossing_ = std::move(observer);
  }
  // The links' token and acknowledgement protocol (params.link_protocol; net/link_protocol.h),
  // or null; its signals go to `observer` as the network decides them (each before the horizon
  // advance() reached).
  const LinkProtocol* protocol() const { return protocol_.get(); }
  void onProtocol(std::function<void(const ProtocolSignal&)> observer) {
    if (protocol_) protocol_->onSignal(std::move(observer));
  }

  const Torus& torus() const { return torus_; }
  // Cycles a link holds a packet of `bytes` bytes.
  u64 linkCycles(u64 bytes) const;
  // The least time from a descriptor's injection at one node to any effect on another node's
  // memory: injection + one hop + the smallest packet's link time + reception. Nodes may run
  // this far apart (the window of a many-node run).
  Cycle lookahead() const;

  // A packet whose head reaches its source's router at `p.entered` (src != dst). Packets must
  // come in before the network has advanced past their entry (advance's contract).
  void inject(Packet p);
  // Moves every packet whose next step is before `horizon` (no packet may enter before it
  // later), and returns those that reached their destination by then, in the order of their
  // delivery (time, source, seq).
  std::vector<Delivery> advance(Cycle horizon);
  // No packet in flight.
  bool idle() const { return in_flight_ == 0; }
  // The bytes node `dst`'s message unit can take from now on (until the next call); packets
  // that find less wait at its router. Packets held so far go first, at the network's present
  // (the last horizon advance() reached).
  void setReceptionRoom(u32 dst, u64 bytes) { room_[dst] = bytes; }
  // Bytes of packets that node `src` injected and no link took yet (its queue at the router).
  u64 sourceBytes(u32 src) const { return source_bytes_[src]; }
  // Packets that waited at their destination's router for room in its message unit, over the
  // run.
  u64 receptionHolds() const { return reception_holds_; }
  // The time of the network's next event (idle: ~0).
  Cycle nextStep() const { return events_.empty() ? ~Cycle{0} : events_.top().when; }

  const std::vector<LinkStats>& links() const { return links_; }
  u64 packetsDelivered() const { return delivered_; }
  // Packets that waited at some router for room in the next buffer (back-pressure), summed over
  // their hops.
  u64 bufferWaits() const { return buffer_waits_; }
  // Combines the routers did (one per router step, whatever its inputs), inputs whose op, word
  // length, type or size differed from the local client's (combined as the local client's), and
  // collective packets of a class with no route, or injected at a node outside it (dropped).
  u64 combines() const { return combines_; }
  u64 collectiveMismatches() const { return coll_mismatches_; }
  u64 collectiveDrops() const { return coll_drops_; }

 private:
  static constexpr u32 kNone = ~u32{0};
  // (kOwe, kTokens and kFlush: the link protocol's, only with it.)
  enum class Kind : u8 {
    kOwe = 0,       // an acknowledgement owed on link a (a packet's tail arrived the other way)
    kFree = 1,      // bytes leave the far buffer of link a
    kTokens = 2,    // tokens back at link a's sender
    kLinkFree = 3,  // link a frees
    kArrive = 4,    // a packet's head at a router
    kFlush = 5,     // link a sends what it owes, if it is idle
  };
  struct Event {
    Cycle when;
    Kind kind;
    u32 a;      // kArrive: the packet's slot; the others: the link
    u32 src;    // kArrive: tie order (source, seq); kFree, kTokens: the channel
    u64 seq;    // kArrive: the packet's seq; kFree, kTokens: the bytes
    u64 order;  // insertion order, the last tie-break
    // Ties: in the order of the kinds (owed acks, frees, tokens, link wakes, arrivals, then
    // flushes, so that a data packet starting at the cycle carries what is owed); the others by
    // link (then channel), arrivals by (source, seq): never by insertion order, which lazy wakes
    // would change.
    bool operator>(const Event& o) const {
      if (when != o.when) return when > o.when;
      if (kind != o.kind) return kind > o.kind;
      if (kind == Kind::kArrive) {
        if (src != o.src) return src > o.src;
        if (seq != o.seq) return seq > o.seq;
      } else {
        if (a != o.a) return a > o.a;
        if (src != o.src) return src > o.src;
      }
      return order > o.order;
    }
  };
  // A packet in the network: its head at router `at` since `head_at`, in the buffer of link
  // `from` (kNone: still in its source's message unit) on `from_channel`.
  struct InFlight {
    Packet packet;
    u32 at = 0;
    Cycle head_at = 0;
    u32 from = kNone;
    Channel from_channel = Channel::kEscape;
    u32 generation = 0;    // bumped when it moves: older waiting entries are stale
    bool blocked = false;  // counted once per hop in buffer_waits_
    // Collectives: the buffers it holds (holds_), and whether it goes down its tree.
    u32 hold = kNone;
    bool down = false;
  };
  // A packet waiting for a link on a channel (`entering`: the bubble rule applies).
  struct Waiter {
    u32 slot;
    u32 generation;
    Channel channel;
    bool entering;
  };

  void push(Cycle when, Kind kind, u32 a, u32 src, u64 seq);
  // A busy link with packets waiting for it gets one wake (kLinkFree) at its free time.
  void wakeWhenFree(u32 link);
  void arrive(u32 slot, Cycle now);
  // Sends the best waiter that can go on `link` at `now`, if the link is free; returns whether
  // one went.
  bool arbitrate(u32 link, Cycle now);
  void send(u32 link, const Waiter& w, Cycle now);
  // The packet in `slot`, at its destination's router in the buffer of `link` on `channel`,
  // goes to its message unit at `now` (not before its tail arrived).
  void deliver(u32 slot, u32 link, Channel channel, Cycle now);
  // Packets at a destination's router waiting for room, in arrival order.
  struct Held {
    u32 slot;
    u32 link;
    Channel channel;
    Cycle tail;
  };
  bool fits(u32 link, const Waiter& w) const;
  // Bytes of the far buffer of `channel` a packet on `link` may still take.
  u64 room(u32 link, Channel channel) const;
  // The link protocol's hooks (protocol_ set): the transmission starting on `link` at `now`
  // takes what the link owes (tokens back at the far end's sender after `hold` + hop cycles);
  // a flush of what `link` owes at its first idle moment from `at`; which channels of a free
  // link have a waiting packet with too few tokens.
  void carryOwed(u32 link, Cycle now, u64 hold, bool own_packet);
  void scheduleFlush(u32 link, Cycle at);
  void flush(u32 link, Cycle now);
  void updateStarved(u32 link, Cycle now);

  // Collectives (net/torus_collective.cpp).
  // What a collective packet frees when the last of the packets made of it has left: buffers
  // (link, channel, bytes) or its source's queue (link kNone: node's source bytes).
  struct Release {
    u32 link;
    Channel channel;
    u64 bytes;
    u32 node;
  };
  struct Hold {
    std::vector<Release> releases;
    u32 remaining = 0;  // packets made of it that have not left yet
  };
  // A free packet slot (reused or new), its generation bumped and its state reset (inject and
  // the collectives' packets alike).
  u32 allocSlot();
  u32 makeHold(std::vector<Release> releases);
  // One of the packets sharing hold `h` left at `when` (its tail): the last frees the releases.
  void releaseHold(u32 h, Cycle when);
  // A collective packet's head at router packets_[slot].at at `now`.
  void collArrive(u32 slot, Cycle now);
  // Combines what every up-tree input of class `cls` at `node` has, as long as each has one.
  void collCombine(u32 node, u32 cls, Cycle now);
  // Copies of the packet in `slot` go down from its router: to children and the local client.
  void collFanout(u32 slot, Cycle now);
  // The packet waits for `link` on its class's channel.
  void collWait(u32 slot, u32 link, Cycle now);
  // The packet in `slot` is for its router's local client; its tail there at `tail`.
  void collLand(u32 slot, Cycle tail);
  void collDrop(u32 slot);

  NetworkParams params_;
  Torus torus_;
  double cycles_per_byte_;
  u64 largest_packet_;
  std::vector<Cycle> link_free_;
  std::vector<LinkStats> links_;
  std::vector<std::array<u64, kChannels>> buffer_used_;  // bytes in the far end's buffers
  std::vector<std::vector<Waiter>> waiting_;             // per link
  std::vector<u8> wake_pending_;                         // per link: its kLinkFree is queued
  std::vector<u32> scratch_;                             // arrive's candidate links
  std::vector<InFlight> packets_;                        // by slot
  std::vector<u32> free_slots_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::vector<Delivery> out_;
  std::vector<u64> room_;               // per node: bytes its unit takes (setReceptionRoom)
  std::vector<std::deque<Held>> held_;  // per node
  std::vector<u64> source_bytes_;       // per node (sourceBytes)
  u64 held_count_ = 0;                  // packets in held_ now
  u64 reception_holds_ = 0;
  Cycle horizon_ = 0;  // advance() has moved everything before it
  u64 order_ = 0;
  u64 in_flight_ = 0;
  u64 delivered_ = 0;
  u64 buffer_waits_ = 0;
  // Per node: its class route registers (shared by the members of one tree).
  std::vector<std::array<std::shared_ptr<const ClassRoute>, kClassRoutes>> node_classes_;
  std::vector<Hold> holds_;
  std::vector<u32> free_holds_;
  // Per (node x kClassRoutes + class): the tree they came by, and per up-tree input (child
  // links, then the local client) the packets waiting to be combined, in arrival order.
  struct Combining {
    std::shared_ptr<const ClassRoute> route;
    std::vector<std::deque<u32>> inputs;
  };
  std::map<u64, Combining> combining_;
  u64 combines_ = 0;
  u64 coll_mismatches_ = 0;
  u64 coll_drops_ = 0;
  std::function<void(const LinkCrossing&)> on_crossing_;
  std::unique_ptr<LinkProtocol> protocol_;
};

}  // namespace hpm::net
