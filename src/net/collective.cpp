#include "net/collective.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace hpm::net {
namespace {

constexpr u32 kLocalBit = 1u << kColLocal;
constexpr Cycle kNever = ~Cycle{0};

u64 readOperand(const u8* p, u32 bytes) {
  u64 v = 0;
  std::memcpy(&v, p, std::min<u32>(bytes, 8));
  return v;
}

void writeOperand(u8* p, u32 bytes, u64 v) {
  std::memcpy(p, &v, std::min<u32>(bytes, 8));
}

// ADD of little-endian integers of any width: byte by byte with a carry.
void addWide(u8* into, const u8* from, u32 bytes) {
  u32 carry = 0;
  for (u32 i = 0; i < bytes; ++i) {
    const u32 sum = u32{into[i]} + from[i] + carry;
    into[i] = static_cast<u8>(sum);
    carry = sum >> 8;
  }
}

// MAX of little-endian unsigned integers of any width: the larger, compared from the top byte.
void maxWide(u8* into, const u8* from, u32 bytes) {
  for (u32 i = bytes; i-- > 0;) {
    if (into[i] != from[i]) {
      if (from[i] > into[i]) std::memcpy(into, from, bytes);
      return;
    }
  }
}

}  // namespace

void combine(u32 header, std::array<u8, kColPayloadBytes>& into,
             const std::array<u8, kColPayloadBytes>& from) {
  const u32 op = colhdr::opcode(header);
  if (op == colhdr::kOpOr || op == colhdr::kOpAnd || op == colhdr::kOpXor) {
    for (u32 i = 0; i < kColPayloadBytes; ++i) {
      into[i] = op == colhdr::kOpOr    ? into[i] | from[i]
                : op == colhdr::kOpAnd ? into[i] & from[i]
                                       : into[i] ^ from[i];
    }
    return;
  }
  if (op != colhdr::kOpAdd && op != colhdr::kOpMax) return;
  const u32 width = colhdr::operandBytes(header);
  for (u32 at = 0; at < kColPayloadBytes; at += width) {
    const u32 n = std::min(width, kColPayloadBytes - at);
    u8* a = into.data() + at;
    const u8* b = from.data() + at;
    if (n > 8) {
      (op == colhdr::kOpAdd ? addWide : maxWide)(a, b, n);
      continue;
    }
    const u64 mask = n == 8 ? ~u64{0} : (u64{1} << (8 * n)) - 1;
    const u64 x = readOperand(a, n), y = readOperand(b, n);
    writeOperand(a, n, op == colhdr::kOpAdd ? (x + y) & mask : std::max(x, y));
  }
}

CollectiveNetwork::CollectiveNetwork(const CollectiveParams& params, u32 nodes, u64 clock_hz)
    : params_(params), nodes_(nodes), routers_(nodes) {
  // Every link's sender holds all its tokens from the start.
  for (Router& r : routers_) {
    for (auto& kind : r.since) {
      for (auto& port : kind) port.fill(kOff);
    }
    for (u32 port = 0; port < kColLinks; ++port) {
      r.since[ColSignal::kSenderEmpty - ColSignal::kFirstState][port].fill(0);
    }
  }
  const double bytes_per_cycle = params.link_gbytes_per_s * 1e9 / static_cast<double>(clock_hz);
  const double wire = 4.0 + kColPayloadBytes + static_cast<double>(params.link_overhead_bytes);
  link_cycles_ = std::max<u64>(1, static_cast<u64>(std::ceil(wire / bytes_per_cycle)));
}

u32 CollectiveNetwork::neighbour(u32 node, u32 port) const {
  if (port == 0) return node == 0 ? ~u32{0} : (node - 1) / 2;
  const u64 child = 2 * u64{node} + port;
  return port < kColLinks && child < nodes_ ? static_cast<u32>(child) : ~u32{0};
}

u32 CollectiveNetwork::depth() const {
  u32 d = 0;
  for (u64 last = u64{nodes_} - 1; last > 0; last = (last - 1) / 2) ++d;
  return d;
}

u32 CollectiveNetwork::targetsOf(u32 node, bool down) const {
  if (!down) return 1u;  // the parent's link
  u32 t = kLocalBit;
  for (u32 port = 1; port < kColLinks; ++port) {
    if (neighbour(node, port) != ~u32{0}) t |= 1u << port;
  }
  return t;
}

void CollectiveNetwork::signal(ColSignal::Kind kind, u32 node, u32 port, u8 vc, Cycle at,
                               Cycle until) {
  if (on_signal_) on_signal_(ColSignal{kind, node, port, vc, at, until});
}

bool CollectiveNetwork::stateOn(u32 kind, u32 node, u32 port, u8 vc, Cycle now) const {
  const Router& r = routers_[node];
  const std::deque<Entry>& q = r.in[port][vc];
  switch (kind) {
    case ColSignal::kReceiverFull: {
      if (port >= kColLinks) return false;
      u32 held = r.freeing[port][vc];
      for (auto it = q.begin(); it != q.end() && it->head <= now; ++it) ++held;
      return held >= kColFifoPackets;
    }
    case ColSignal::kSenderEmpty: return port < kColLinks && r.far_used[port][vc] == 0;
    case ColSignal::kArbiterHas: return !q.empty() && q.front().head <= now;
    default: return false;
  }
}

namespace {

// Calls fn(kind, port, vc, since) for each of a router's tracked states (its level's start, or
// kOff while it is off).
template <class Router, class Fn>
void forEachState(Router& r, Fn&& fn) {
  for (u32 k = 0; k < ColSignal::kStates; ++k) {
    const auto kind = static_cast<ColSignal::Kind>(ColSignal::kFirstState + k);
    for (u32 port = 0; port < kColPorts; ++port) {
      for (u8 vc = 0; vc < kColVcs; ++vc) fn(kind, port, vc, r.since[k][port][vc]);
    }
  }
}

}  // namespace

void CollectiveNetwork::updateStates(u32 node, Cycle now) {
  forEachState(routers_[node], [&](ColSignal::Kind kind, u32 port, u8 vc, Cycle& since) {
    const bool on = stateOn(kind, node, port, vc, now);
    if (on && since == kOff) {
      since = now;
    } else if (!on && since != kOff) {
      if (now > since && on_level_) on_level_(ColSignal{kind, node, port, vc, since, now});
      since = kOff;
    }
  });
}

void CollectiveNetwork::splitStates(Cycle horizon) {
  for (u32 node = 0; node < nodes_; ++node) {
    forEachState(routers_[node], [&](ColSignal::Kind kind, u32 port, u8 vc, Cycle& since) {
      if (since == kOff || since >= horizon) return;
      if (on_level_) on_level_(ColSignal{kind, node, port, vc, since, horizon});
      since = horizon;
    });
  }
}

void CollectiveNetwork::inject(u32 node, Cycle at, ColPacket p) {
  Router& r = routers_[node];
  const u8 vc = p.vc;
  const Cycle head = at + params_.injection_cycles;
  r.in[kColLocal][vc].push_back(Entry{std::move(p), head, head});
  ++in_flight_;
  ++stats_.injected;
  wake(node, head);
}

void CollectiveNetwork::setReceptionRoom(u32 node, u8 vc, u32 packets) {
  Router& r = routers_[node];
  const bool opened = r.room[vc] == 0 && packets > 0;
  r.room[vc] = packets;
  if (opened) wake(node, horizon_);
}

u64 CollectiveNetwork::injectionFreed(u32 node, u8 vc, Cycle at) {
  Router& r = routers_[node];
  while (!r.injection_frees[vc].empty() && r.injection_frees[vc].front() <= at) {
    r.injection_frees[vc].pop_front();
    ++r.injection_freed[vc];
  }
  return r.injection_freed[vc];
}

bool CollectiveNetwork::canSend(u32 node, u8 vc, u32 targets, Cycle now, Cycle& next) const {
  const Router& r = routers_[node];
  bool ok = true;
  for (u32 port = 0; port < kColLinks; ++port) {
    if ((targets & (1u << port)) == 0) continue;
    if (r.link_free[port] > now) {
      next = std::min(next, r.link_free[port]);
      ok = false;
    }
    // (A full far FIFO wakes this router when a slot frees.)
    if (r.far_used[port][vc] >= kColFifoPackets) ok = false;
  }
  // (No room in the reception FIFO: setReceptionRoom wakes it.)
  if ((targets & kLocalBit) != 0) {
    if (r.room[vc] == 0) ok = false;
    if (r.receive_free > now) {
      next = std::min(next, r.receive_free);
      ok = false;
    }
  }
  return ok;
}

bool CollectiveNetwork::tryDown(u32 node, u8 vc, Cycle now, Cycle& next) {
  if (node == 0) return false;
  std::deque<Entry>& q = routers_[node].in[0][vc];
  if (q.empty()) return false;
  if (q.front().head > now) {
    next = std::min(next, q.front().head);
    return false;
  }
  const u32 targets = targetsOf(node, true);
  if (!canSend(node, vc, targets, now, next)) return false;
  const ColPacket p = q.front().packet;
  send(node, vc, p, 1u, targets, now);
  return true;
}

bool CollectiveNetwork::tryUp(u32 node, u8 vc, Cycle now, Cycle& next) {
  Router& r = routers_[node];
  const u32 sources = targetsOf(node, true) & ~1u;  // the children's links and the local client
  const u32 targets = targetsOf(node, node == 0);
  // A ready packet that goes alone (the earliest head; ties by port).
  u32 alone = kColPorts;
  Cycle alone_head = kNever;
  bool all_ready = true;
  Cycle last_head = 0;
  for (u32 port = 1; port < kColPorts; ++port) {
    if ((sources & (1u << port)) == 0) continue;
    const std::deque<Entry>& q = r.in[port][vc];
    if (q.empty()) {
      all_ready = false;
      continue;
    }
    const Entry& e = q.front();
    const Cycle head = port == kColLocal ? std::max(e.head, r.inject_free) : e.head;
    if (head > now) {
      next = std::min(next, head);
      all_ready = false;
      continue;
    }
    if (!colhdr::combining(e.packet.header)) {
      if (e.head < alone_head) alone = port, alone_head = e.head;
      all_ready = false;
    }
    last_head = std::max(last_head, e.head);
  }
  if (alone != kColPorts) {
    if (!canSend(node, vc, targets, now, next)) return false;
    const ColPacket p = r.in[alone][vc].front().packet;
    send(node, vc, p, 1u << alone, targets, now);
    return true;
  }
  if (!all_ready) return false;
  // (A leaf's own packet passes without the ALU.)
  const bool alu = sources != kLocalBit;
  const Cycle ready = alu ? std::max(last_head + params_.alu_cycles, r.alu_free) : last_head;
  if (ready > now) {
    next = std::min(next, ready);
    return false;
  }
  if (!canSend(node, vc, targets, now, next)) return false;
  // The result: the first source's packet (the local client's when it is one, as it always is),
  // combined with the others' in port order.
  ColPacket result = r.in[kColLocal][vc].front().packet;
  for (u32 port = 1; port < kColLinks; ++port) {
    if ((sources & (1u << port)) == 0) continue;
    const ColPacket& other = r.in[port][vc].front().packet;
    if (colhdr::opcode(other.header) != colhdr::opcode(result.header) ||
        colhdr::operandBytes(other.header) != colhdr::operandBytes(result.header)) {
      ++stats_.mismatches;
    }
    combine(result.header, result.payload, other.payload);
  }
  if (alu) {
    result.src = node;
    ++stats_.combined;
    r.alu_free = now + link_cycles_;
    signal(ColSignal::kAluBusy, node, kColLocal, vc, now, now + link_cycles_);
  }
  send(node, vc, result, sources, targets, now);
  return true;
}

void CollectiveNetwork::send(u32 node, u8 vc, const ColPacket& p, u32 sources, u32 targets,
                             Cycle now) {
  Router& r = routers_[node];
  signal(ColSignal::kClassWin, node, colhdr::cls(p.header), vc, now);
  bool any_cut_through = false;  // (a packet sent on before a source's tail arrived)
  for (u32 port = 0; port < kColPorts; ++port) {
    if ((sources & (1u << port)) == 0) continue;
    std::deque<Entry>& q = r.in[port][vc];
    const bool cut_through = q.front().tail > now;
    any_cut_through = any_cut_through || cut_through;
    q.pop_front();
    --in_flight_;
    signal(ColSignal::kTaken, node, port, vc, now);
    if (port == kColLocal) {
      r.inject_free = now + link_cycles_;
      signal(ColSignal::kReceiverBusy, node, port, vc, now, now + link_cycles_);
    }
    if (port < kColLinks && cut_through) {
      signal(ColSignal::kReceivedCutThrough, node, port, vc, now);
    }
    // Its slot frees when its tail has left this router, as the packet's sending ends (the tail
    // arrived by then: it arrives one link time after the head, which came before `now`).
    const Cycle tail_gone = now + link_cycles_;
    if (port == kColLocal) {
      r.injection_frees[vc].push_back(tail_gone);
    } else {
      ++r.freeing[port][vc];
      frees_.push(Free{tail_gone, node, port * kColVcs + vc});
    }
  }
  for (u32 out = 0; out < kColLinks && any_cut_through; ++out) {
    if ((targets & (1u << out)) != 0) signal(ColSignal::kSentCutThrough, node, out, vc, now);
  }
  for (u32 port = 0; port < kColLinks; ++port) {
    if ((targets & (1u << port)) == 0) continue;
    const u32 far = neighbour(node, port);
    // The far router's port for this link: its parent's link, or its link to this child.
    const u32 far_port = port == 0 ? 1 + (node - 1) % 2 : 0;
    r.link_free[port] = now + link_cycles_;
    ++r.far_used[port][vc];
    ++stats_.link_packets;
    signal(ColSignal::kSent, node, port, vc, now);
    signal(ColSignal::kSenderBusy, node, port, vc, now, now + link_cycles_);
    const Cycle head = now + params_.hop_cycles;
    routers_[far].in[far_port][vc].push_back(Entry{p, head, head + link_cycles_});
    ++in_flight_;
    signal(ColSignal::kReceiverBusy, far, far_port, vc, head, head + link_cycles_);
    signal(ColSignal::kReceived, far, far_port, vc, head + link_cycles_);
    wake(far, head);
  }
  if ((targets & kLocalBit) != 0) {
    r.receive_free = now + link_cycles_;
    signal(ColSignal::kSenderBusy, node, kColLocal, vc, now, now + link_cycles_);
    --r.room[vc];
    ++stats_.delivered;
    out_.push_back(ColDelivery{now + link_cycles_ + params_.reception_cycles, node, p});
  }
}

void CollectiveNetwork::step(u32 node, Cycle now) {
  Cycle next = kNever;
  for (bool moved = true; moved;) {
    moved = false;
    for (u8 vc = 0; vc < kColVcs; ++vc) {
      moved = tryDown(node, vc, now, next) || moved;
      moved = tryUp(node, vc, now, next) || moved;
    }
  }
  if (next != kNever) wake(node, next);
}

std::vector<ColDelivery> CollectiveNetwork::advance(Cycle horizon) {
  out_.clear();
  for (;;) {
    const Cycle wake_at = wakes_.empty() ? kNever : wakes_.top().first;
    const Cycle free_at = frees_.empty() ? kNever : frees_.top().when;
    const Cycle t = std::min(wake_at, free_at);
    if (t >= horizon) break;
    if (free_at <= wake_at) {
      // (Frees first: a slot freed at t lets a packet go at t.)
      const Free f = frees_.top();
      frees_.pop();
      const u32 port = f.slot / kColVcs;
      const u8 vc = static_cast<u8>(f.slot % kColVcs);
      // The slot is in this router's FIFO for `port`: the router at its far end fed it.
      const u32 feeder = neighbour(f.node, port);
      const u32 feeder_port = port == 0 ? 1 + (f.node - 1) % 2 : 0;
      --routers_[f.node].freeing[port][vc];
      --routers_[feeder].far_used[feeder_port][vc];
      updateStates(f.node, std::max(f.when, horizon_));
      updateStates(feeder, std::max(f.when, horizon_));
      wake(feeder, f.when);
      continue;
    }
    const u32 node = wakes_.top().second;
    wakes_.pop();
    // (Several wakes of one router at one time: the first does everything.)
    while (!wakes_.empty() && wakes_.top() == Wake{t, node}) wakes_.pop();
    const Cycle now = std::max(t, horizon_);
    step(node, now);
    updateStates(node, now);
  }
  horizon_ = std::max(horizon_, horizon);
  splitStates(horizon_);
  std::stable_sort(out_.begin(), out_.end(), [](const ColDelivery& a, const ColDelivery& b) {
    return a.when != b.when ? a.when < b.when : a.node < b.node;
  });
  return std::move(out_);
}

GlobalBarrier::GlobalBarrier(u32 nodes, Cycle latency, u32 members)
    : members_(members == 0 ? nodes : members), latency_(latency) {
  for (auto& a : armed_) a.assign(nodes, kClear);
}

bool GlobalBarrier::arm(u32 node, u32 channel, Cycle at) {
  std::vector<Cycle>& armed = armed_[channel];
  if (armed[node] != kClear) {
    ++ignored_;
    return false;
  }
  armed[node] = at;
  latest_[channel] = std::max(latest_[channel], at);
  if (++set_[channel] < members_) return true;
  done_[channel].push_back(latest_[channel] + latency_);
  std::fill(armed.begin(), armed.end(), kClear);
  set_[channel] = 0;
  latest_[channel] = 0;
  return true;
}

}  // namespace hpm::net
