// The torus network's timing: packets move router to router over links with a bandwidth and a
// hop latency, in exact time order, with contention for each link.
//
// The model (docs/network.md): virtual cut-through. A packet of B bytes (header included,
// whole 32-byte chunks) whose head reaches a router at t goes on the route's next link at
// s = max(t, the link free), holds the link ceil(B / bytes per cycle) cycles, and its head
// reaches the next router at s + hop_cycles; at its destination its tail arrives at
// s + the link's cycles + hop_cycles, and its bytes are in the reception FIFO reception_cycles
// later. Routing is deterministic dimension order (net/torus.h), so the packets between two
// nodes arrive in the order they left. Buffers are unbounded (no back-pressure between routers)
// and all user packets travel on one virtual channel: see the deviations in docs/network.md.
#pragma once

#include <functional>
#include <queue>
#include <vector>

#include "base/types.h"
#include "net/torus.h"
#include "node/network_params.h"

namespace hpm::net {

// A packet as it travels: where it goes, when its head reached the network, and its bytes as
// they will land in the destination's reception FIFO (header first).
struct Packet {
  u32 src = 0;
  u32 dst = 0;
  u64 seq = 0;            // the source's packet number (ties at equal times: source, then seq)
  Cycle entered = 0;      // its head at the source's router
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
  u64 wait_cycles = 0;  // cycles packets waited for it (contention)
};

// A packet crossing a link (what the link counters count): it went on `link` at `sent`, and its
// tail reached the link's far end at `arrived`; `last`: that end is its destination.
struct LinkCrossing {
  u32 link = 0;
  u32 chunks = 0;
  Cycle sent = 0;
  Cycle arrived = 0;
  bool last = false;
};

class Network {
 public:
  Network(const NetworkParams& params, Torus torus, u64 clock_hz);
  // Called for every link crossing as advance() decides it (may be empty).
  void onCrossing(std::function<void(const LinkCrossing&)> observer) {
    on_crossing_ = std::move(observer);
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
  bool idle() const { return events_.empty(); }
  // The time of the next packet's next step (idle: ~0).
  Cycle nextStep() const { return events_.empty() ? ~Cycle{0} : events_.top().when; }

  const std::vector<LinkStats>& links() const { return links_; }
  u64 packetsDelivered() const { return delivered_; }

 private:
  struct Step {
    Cycle when;  // the packet's head at router `at`
    u32 src;
    u64 seq;
    u32 at;
    u32 slot;  // in packets_
    bool operator>(const Step& o) const {
      if (when != o.when) return when > o.when;
      if (src != o.src) return src > o.src;
      return seq > o.seq;
    }
  };

  NetworkParams params_;
  Torus torus_;
  double cycles_per_byte_;
  std::vector<Cycle> link_free_;
  std::vector<LinkStats> links_;
  std::vector<Packet> packets_;  // in flight, by slot
  std::vector<u32> free_slots_;
  std::priority_queue<Step, std::vector<Step>, std::greater<>> events_;
  u64 delivered_ = 0;
  std::function<void(const LinkCrossing&)> on_crossing_;
};

}  // namespace hpm::net
