#include "net/network.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace hpm::net {

Network::Network(const NetworkParams& params, Torus torus, u64 clock_hz)
    : params_(params),
      torus_(std::move(torus)),
      cycles_per_byte_(static_cast<double>(clock_hz) / (params.link_gbytes_per_s * 1e9)),
      largest_packet_(params.max_payload_bytes + params.header_bytes),
      link_free_(torus_.links(), 0),
      links_(torus_.links()),
      buffer_used_(torus_.links()),
      waiting_(torus_.links()),
      wake_pending_(torus_.links(), 0),
      room_(torus_.nodes(), ~u64{0}),
      held_(torus_.nodes()),
      source_bytes_(torus_.nodes(), 0),
      node_classes_(torus_.nodes()),
      protocol_(params.link_protocol ? std::make_unique<LinkProtocol>(torus_) : nullptr) {}

u64 Network::linkCycles(u64 bytes) const {
  // (Rounded up per packet, not per chunk: a 544-byte packet at 1.25 bytes per cycle holds its
  // link 436 cycles, not 17 x 26 = 442.)
  return std::max<u64>(1,
                       static_cast<u64>(std::ceil(static_cast<double>(bytes) * cycles_per_byte_)));
}

Cycle Network::lookahead() const {
  return params_.injection_cycles + params_.hop_cycles + linkCycles(params_.header_bytes) +
         params_.reception_cycles;
}

void Network::push(Cycle when, Kind kind, u32 a, u32 src, u64 seq) {
  events_.push(Event{when, kind, a, src, seq, order_++});
}

void Network::wakeWhenFree(u32 link) {
  if (wake_pending_[link] != 0) return;
  wake_pending_[link] = 1;
  push(link_free_[link], Kind::kLinkFree, link, 0, 0);
}

void Network::inject(Packet p) {
  const u32 slot = allocSlot();
  InFlight& f = packets_[slot];
  push(p.entered, Kind::kArrive, slot, p.src, p.seq);
  f.at = p.src;
  f.from = kNone;
  source_bytes_[p.src] += p.bytes.size();
  f.packet = std::move(p);
  ++in_flight_;
}

std::vector<Delivery> Network::advance(Cycle horizon) {
  // Packets held at their destinations go first, as far as the room given allows.
  for (u32 dst = 0; held_count_ != 0 && dst < held_.size(); ++dst) {
    std::deque<Held>& held = held_[dst];
    while (!held.empty()) {
      const Held h = held.front();
      const u64 size = packets_[h.slot].packet.bytes.size();
      if (room_[dst] < size) break;
      room_[dst] -= size;
      held.pop_front();
      --held_count_;
      deliver(h.slot, h.link, h.channel, std::max(h.tail, horizon_));
    }
  }
  horizon_ = std::max(horizon_, horizon);
  while (!events_.empty() && events_.top().when < horizon) {
    const Event e = events_.top();
    events_.pop();
    switch (e.kind) {
      case Kind::kFree:
        buffer_used_[e.a][e.src] -= e.seq;
        if (protocol_) {  // (the sender learns of the room when the tokens come back)
          protocol_->oweTokens(protocol_->reverse(e.a), protocolIndex(static_cast<Channel>(e.src)),
                               e.seq);
          scheduleFlush(protocol_->reverse(e.a), e.when);
        }
        arbitrate(e.a, e.when);
        break;
      case Kind::kLinkFree:
        wake_pending_[e.a] = 0;
        arbitrate(e.a, e.when);
        break;
      case Kind::kArrive: arrive(e.a, e.when); break;
      case Kind::kOwe:
        protocol_->oweAck(e.a);
        scheduleFlush(e.a, e.when);
        break;
      case Kind::kTokens:
        protocol_->refund(e.a, e.src, e.seq);
        arbitrate(e.a, e.when);
        break;
      case Kind::kFlush: flush(e.a, e.when); break;
    }
  }
  if (protocol_) protocol_->split(horizon_);
  std::vector<Delivery> out;
  out.swap(out_);
  std::stable_sort(out.begin(), out.end(), [](const Delivery& a, const Delivery& b) {
    return std::tie(a.when, a.packet.src, a.packet.seq) <
           std::tie(b.when, b.packet.src, b.packet.seq);
  });
  return out;
}

void Network::arrive(u32 slot, Cycle now) {
  InFlight& f = packets_[slot];
  f.head_at = now;
  if (f.packet.coll.on) {
    collArrive(slot, now);
    return;
  }
  const Packet& p = f.packet;
  const u32 first = torus_.nextLink(f.at, p.dst);
  // Entering a bubble-ruled channel: from the unit, from another channel or another dimension.
  const auto entering = [&](Channel c) {
    return f.from == kNone || f.from_channel != c ||
           torus_.linkDimension(f.from) != torus_.linkDimension(first);
  };
  std::vector<u32>& links = scratch_;
  links.clear();
  if (p.priority || p.system) {
    const Channel c = p.priority ? Channel::kPriority : Channel::kSystem;
    waiting_[first].push_back({slot, f.generation, c, entering(c)});
    links.push_back(first);
  } else {
    if (p.dynamic) {
      torus_.minimalLinks(f.at, p.dst, links);
      for (const u32 l : links) {
        waiting_[l].push_back({slot, f.generation, Channel::kDynamic, false});
        if (params_.dynamic_channels > 1) {
          waiting_[l].push_back({slot, f.generation, Channel::kDynamic1, false});
        }
      }
    } else {
      links.push_back(first);
    }
    waiting_[first].push_back({slot, f.generation, Channel::kEscape, entering(Channel::kEscape)});
  }
  const u32 generation = f.generation;
  // A dynamic packet takes a free link with room on the dynamic channel first, in dimension
  // order; then whatever can take it now (the escape channel included).
  if (p.dynamic) {
    for (const u32 l : links) {
      if (link_free_[l] <= now && (fits(l, {slot, generation, Channel::kDynamic, false}) ||
                                   (params_.dynamic_channels > 1 &&
                                    fits(l, {slot, generation, Channel::kDynamic1, false})))) {
        arbitrate(l, now);
        if (packets_[slot].generation != generation) return;
      }
    }
  }
  for (const u32 l : links) {
    arbitrate(l, now);
    if (packets_[slot].generation != generation) return;
  }
  // It waits: each busy link it waits for wakes when it frees (a full buffer wakes its link
  // when it drains: the kFree event).
  for (const u32 l : links) {
    if (link_free_[l] > now) wakeWhenFree(l);
  }
}

u64 Network::room(u32 link, Channel channel) const {
  // (With the link protocol, the room the sender holds tokens for.)
  const u64 used = protocol_ ? protocol_->tokensOut(link, protocolIndex(channel))
                             : buffer_used_[link][static_cast<u32>(channel)];
  return params_.vc_buffer_bytes - std::min(used, params_.vc_buffer_bytes);
}

bool Network::fits(u32 link, const Waiter& w) const {
  const u64 size = packets_[w.slot].packet.bytes.size();
  return size + (w.entering ? largest_packet_ : 0) <= room(link, w.channel);
}

bool Network::arbitrate(u32 link, Cycle now) {
  if (link_free_[link] > now) return false;  // (packets wait: its wake is queued)
  std::vector<Waiter>& list = waiting_[link];
  std::erase_if(list, [&](const Waiter& w) { return packets_[w.slot].generation != w.generation; });
  if (list.empty()) {
    if (protocol_) protocol_->close(link, now);
    return false;
  }
  const auto age = [&](const Waiter& w) {
    const InFlight& f = packets_[w.slot];
    return std::make_tuple(f.head_at, f.packet.src, f.packet.seq);
  };
  // The deterministic channels are FIFOs per input: of the waiters that came from one buffer
  // (or one unit) for one channel, only the oldest may go.
  const auto headOfInput = [&](const Waiter& w) {
    if (isDynamic(w.channel)) return true;
    const InFlight& f = packets_[w.slot];
    for (const Waiter& o : list) {
      const InFlight& g = packets_[o.slot];
      if (o.channel == w.channel && g.from == f.from && g.from_channel == f.from_channel &&
          (g.from != kNone || g.packet.src == f.packet.src) && age(o) < age(w)) {
        return false;
      }
    }
    return true;
  };
  const Waiter* best = nullptr;
  for (const Waiter& w : list) {
    if (!fits(link, w)) {
      packets_[w.slot].blocked = true;  // the link is free: the buffer holds it back
      continue;
    }
    if (!headOfInput(w)) continue;
    if (best == nullptr) {
      best = &w;
      continue;
    }
    const bool w_pri = w.channel == Channel::kPriority, b_pri = best->channel == Channel::kPriority;
    if (w_pri != b_pri) {
      if (w_pri) best = &w;
      continue;
    }
    // (One packet waiting on several channels of the link: a dynamic one before the escape
    // one, and of the two dynamic ones the one with more room left, VCD0 on a tie.)
    if (age(w) < age(*best) ||
        (w.slot == best->slot && isDynamic(w.channel) &&
         (!isDynamic(best->channel) || room(link, w.channel) > room(link, best->channel)))) {
      best = &w;
    }
  }
  if (best == nullptr) {
    if (protocol_) updateStarved(link, now);
    return false;
  }
  send(link, *best, now);
  return true;
}

void Network::send(u32 link, const Waiter& w, Cycle now) {
  const u32 slot = w.slot;
  const Channel channel = w.channel;
  InFlight& f = packets_[slot];
  if (f.blocked) ++buffer_waits_;
  const u64 size = f.packet.bytes.size();
  const bool coll = f.packet.coll.on;
  if (f.from == kNone && !coll) source_bytes_[f.packet.src] -= size;
  const u64 hold = linkCycles(size);
  link_free_[link] = now + hold;
  if (waiting_[link].size() > 1) wakeWhenFree(link);  // (others wait for it: maybe stale ones)
  LinkStats& ls = links_[link];
  ++ls.packets;
  ls.chunks += f.packet.chunks();
  ls.busy_cycles += hold;
  ls.wait_cycles += now - f.head_at;
  ++ls.channel_packets[static_cast<u32>(channel)];
  ls.channel_chunks[static_cast<u32>(channel)] += f.packet.chunks();
  buffer_used_[link][static_cast<u32>(channel)] += size;
  // Its tail leaves the buffer it was in as it finishes crossing.
  if (coll) {
    releaseHold(f.hold, now + hold);
  } else if (f.from != kNone) {
    push(now + hold, Kind::kFree, f.from, static_cast<u32>(f.from_channel), size);
  }
  ++f.generation;  // its other waiting entries are stale now
  const u32 next = torus_.linkTarget(link);
  const bool last = !coll && next == f.packet.dst;
  if (protocol_) {
    protocol_->spend(link, protocolIndex(channel), size);
    carryOwed(link, now, hold, false);
    // The far end owes an acknowledgement when the tail has arrived.
    push(now + hold + params_.hop_cycles, Kind::kOwe, protocol_->reverse(link), 0, 0);
    // A dynamic packet no longer waits at its other links.
    if (f.packet.dynamic) {
      std::vector<u32> others;
      torus_.minimalLinks(f.at, f.packet.dst, others);
      for (const u32 l : others) {
        if (l != link) updateStarved(l, now);
      }
    }
  }
  if (on_crossing_) {
    // (A collective packet going down lands at every member it reaches, a reduce's only at its
    // destination.)
    const bool lands =
        coll ? f.down && (f.packet.coll.type != CollType::kReduce || next == f.packet.dst) : last;
    on_crossing_(LinkCrossing{link, f.packet.chunks(), now, now + hold + params_.hop_cycles, lands,
                              channel});
  }
  if (!last) {
    f.at = next;
    f.from = link;
    f.from_channel = channel;
    f.blocked = false;
    push(now + params_.hop_cycles, Kind::kArrive, slot, f.packet.src, f.packet.seq);
    return;
  }
  // The destination's router empties into its message unit as the tail arrives, when the unit
  // has room; else the packet waits there, in its buffer.
  const Cycle tail = now + hold + params_.hop_cycles;
  u64& room = room_[f.packet.dst];
  if (held_[f.packet.dst].empty() && room >= size) {
    room -= size;
    deliver(slot, link, channel, tail);
  } else {
    held_[f.packet.dst].push_back({slot, link, channel, tail});
    ++held_count_;
    ++reception_holds_;
  }
}

void Network::carryOwed(u32 link, Cycle now, u64 hold, bool own_packet) {
  protocol_->close(link, now);  // (the link is busy from now)
  if (!protocol_->owes(link)) return;
  const std::array<u64, kProtocolChannels> tokens = protocol_->carry(link, now, own_packet, hold);
  const u32 back = protocol_->reverse(link);
  for (u32 c = 0; c < kProtocolChannels; ++c) {
    if (tokens[c] != 0) push(now + hold + params_.hop_cycles, Kind::kTokens, back, c, tokens[c]);
  }
}

void Network::scheduleFlush(u32 link, Cycle at) {
  if (protocol_->flushPending(link)) return;
  protocol_->setFlushPending(link, true);
  push(std::max(at, link_free_[link]), Kind::kFlush, link, 0, 0);
}

void Network::flush(u32 link, Cycle now) {
  protocol_->setFlushPending(link, false);
  if (!protocol_->owes(link)) return;  // (a data packet carried it)
  if (link_free_[link] > now) {
    scheduleFlush(link, link_free_[link]);
    return;
  }
  // A token/ack packet of its own: data packets wanting the link wait for it.
  const u64 hold = linkCycles(params_.token_ack_bytes);
  link_free_[link] = now + hold;
  carryOwed(link, now, hold, true);
  if (!waiting_[link].empty()) wakeWhenFree(link);
}

void Network::updateStarved(u32 link, Cycle now) {
  if (link_free_[link] > now) return;  // (busy: closed when it began)
  std::array<bool, kProtocolChannels> starved{};
  for (const Waiter& w : waiting_[link]) {
    if (packets_[w.slot].generation == w.generation && !fits(link, w)) {
      starved[protocolIndex(w.channel)] = true;
    }
  }
  protocol_->setStarved(link, starved, now);
}

void Network::deliver(u32 slot, u32 link, Channel channel, Cycle now) {
  InFlight& f = packets_[slot];
  if (f.packet.coll.on) {
    releaseHold(f.hold, now);
  } else {
    push(now, Kind::kFree, link, static_cast<u32>(channel), f.packet.bytes.size());
  }
  out_.push_back(Delivery{now + params_.reception_cycles, std::move(f.packet)});
  free_slots_.push_back(slot);
  --in_flight_;
  ++delivered_;
}

}  // namespace hpm::net
