#include "net/link_protocol.h"

#include <algorithm>

namespace hpm::net {

LinkProtocol::LinkProtocol(const Torus& torus)
    : torus_(torus),
      out_(torus.links()),
      owed_acks_(torus.links(), 0),
      owed_tokens_(torus.links()),
      flush_pending_(torus.links(), 0),
      next_ack_(torus.links(), 0),
      starved_since_(torus.links()),
      stats_(torus.links()) {
  for (auto& s : starved_since_) s.fill(kClosed);
}

u32 LinkProtocol::reverse(u32 link) const {
  // (Link l of node n is n x 2D + 2 x dimension + direction: the far end's link of the same
  // dimension, the other direction, leads back to n, in a dimension of size 2 as well.)
  const u32 per_node = 2 * torus_.dimensions();
  return torus_.linkTarget(link) * per_node + (link % per_node ^ 1);
}

bool LinkProtocol::refund(u32 link, u32 channel, u64 bytes) {
  u64& out = out_[link][channel];
  if (bytes > out) return false;
  out -= bytes;
  return true;
}

bool LinkProtocol::owes(u32 carrier) const {
  if (owed_acks_[carrier] != 0) return true;
  const auto& t = owed_tokens_[carrier];
  return std::any_of(t.begin(), t.end(), [](u64 b) { return b != 0; });
}

std::array<u64, kProtocolChannels> LinkProtocol::carry(u32 carrier, Cycle at, bool own_packet,
                                                       u64 own_cycles) {
  LinkProtocolStats& s = stats_[carrier];
  if (own_packet) {
    ++s.token_ack_packets;
    s.token_ack_cycles += own_cycles;
    signal({ProtocolSignal::kTokenAckPacket, carrier, kAnyChannel, at, at});
  }
  const u64 acks = owed_acks_[carrier];
  owed_acks_[carrier] = 0;
  s.acks += acks;
  if (!own_packet) s.piggybacked_acks += acks;
  Cycle& next = next_ack_[carrier];
  for (u64 i = 0; i < acks; ++i) {
    const Cycle t = std::max(at, next);
    next = t + 1;
    signal({ProtocolSignal::kAck, carrier, kAnyChannel, t, t});
  }
  std::array<u64, kProtocolChannels> tokens = owed_tokens_[carrier];
  owed_tokens_[carrier] = {};
  for (u64 b : tokens) s.tokens_returned += b;
  return tokens;
}

void LinkProtocol::end(u32 link, u32 i, Cycle now) {
  Cycle& since = starved_since_[link][i];
  if (since == kClosed) return;
  if (now > since) {
    stats_[link].no_token_cycles[i] += now - since;
    signal({ProtocolSignal::kNoTokens, link, i, since, now});
  }
  since = kClosed;
  const u32 key = link * (kProtocolChannels + 1) + i;
  open_.erase(std::find(open_.begin(), open_.end(), key));
}

void LinkProtocol::setStarved(u32 link, const std::array<bool, kProtocolChannels>& starved,
                              Cycle now) {
  bool any = false;
  for (u32 i = 0; i <= kProtocolChannels; ++i) {
    const bool on = i < kProtocolChannels ? starved[i] : any;
    any = any || on;
    Cycle& since = starved_since_[link][i];
    if (on && since == kClosed) {
      since = now;
      open_.push_back(link * (kProtocolChannels + 1) + i);
    } else if (!on) {
      end(link, i, now);
    }
  }
}

void LinkProtocol::split(Cycle horizon) {
  for (const u32 key : open_) {
    const u32 link = key / (kProtocolChannels + 1), i = key % (kProtocolChannels + 1);
    Cycle& since = starved_since_[link][i];
    if (horizon <= since) continue;
    stats_[link].no_token_cycles[i] += horizon - since;
    signal({ProtocolSignal::kNoTokens, link, i, since, horizon});
    since = horizon;
  }
}

}  // namespace hpm::net
