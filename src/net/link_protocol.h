// The torus links' token and acknowledgement protocol (Blue Gene/P's, kept from Blue Gene/L's),
// for machines whose `network.link_protocol` is on (bgp). Network (net/network.h) owns the
// timing; this class keeps each link's protocol state and counts, and says what happened.
//
// What the hardware does (sources; docs/network.md "The links' protocol"):
// - Blue Gene/L's torus paper (N. R. Adiga et al., "Blue Gene/L torus interconnection network",
//   IBM J. Res. & Dev. 49(2/3), 2005): packets of 32 to 256 bytes in 32-byte chunks; "a robust
//   error recovery mechanism that involves an acknowledgment and retransmission protocol is
//   implemented across the physical links that connect two nodes"; flow control between routers
//   by tokens, per virtual channel: a sender may send a packet on a channel only when it holds
//   tokens for the room it takes in the next router's buffer of that channel; the receiver
//   returns tokens as that buffer drains. A sender keeps each packet in its retransmission buffer
//   until the receiver acknowledges it (resent on a CRC error). Acknowledgements and tokens ride
//   in the header of a packet going the other way on the same cable when there is one, else in
//   a short token/acknowledgement packet of their own. Blue Gene/P's torus kept that link level
//   (the same 3D torus with the same virtual channels: two dynamic, VCD0 and VCD1, bubble
//   normal VCBN and bubble priority VCBP, as its UPC-P events name them).
// - Its counters (UPC-P, BG/P's event list: TORUS_<link>_TOKEN_ACK_PACKETS, _ACKS, _NO_TOKENS,
//   _NO_VCD0_TOKENS, _NO_VCBN_TOKENS, _NO_VCBP_TOKENS; BG/L's UPC named the same signals
//   TS_<link>_TOKEN_ACKS, _ACKS and _LINK_AVAIL_NO_<vc>_TOKENS): no public source gives their
//   definitions beyond the names. hpmsim reads them as the sender's side of the link, as its
//   other TORUS_<link>_ events are: token/ack packets the link sent, acknowledgements the link
//   sent (one per packet acknowledged), and the cycles the link was available (free) while a
//   packet of the channel waited at it with too few tokens (BG/L's "link available, no tokens").
//
// The model's rules (estimates where no source gives a figure; docs/network.md):
// - Tokens are bytes: a sender spends a packet's size on its channel when it sends it; the
//   receiver owes them back when the bytes leave its buffer (the packet's tail gone on, or into
//   the message unit).
// - The receiver owes an acknowledgement for each packet when its tail has arrived.
// - What a receiver owes goes back on the reverse link (the same cable, the other way) with the
//   first transmission that starts there at or after the moment it is owed: a data packet
//   (piggybacked) or, when the reverse link is idle at that moment or becomes idle with no data
//   packet starting, a token/ack packet of `token_ack_bytes` (estimate: 12 bytes, a link-level
//   header of 8 bytes, the 24-bit CRC and the valid byte the paper gives every packet) that
//   holds the link ceil(12 / bytes per cycle) cycles; a data packet wanting the link meanwhile
//   waits for it to finish. The sender acts on them when the carrier's tail has arrived (its
//   CRC checked): tokens come back then.
// - A link sends its acknowledgements one a cycle (its ACKS signal is one bit), from the
//   carrier's first cycle on.
#pragma once

#include <array>
#include <functional>
#include <vector>

#include "base/types.h"
#include "net/torus.h"

namespace hpm::net {

// The channels that keep tokens (net/network.h's point-to-point channels: dynamic, escape,
// priority, system, the second dynamic; protocolIndex), and the index of "any channel" in the
// no-token signals.
inline constexpr u32 kProtocolChannels = 5;
inline constexpr u32 kAnyChannel = kProtocolChannels;

// What the protocol did on a link (its sender's side).
struct ProtocolSignal {
  enum Kind : u8 { kTokenAckPacket = 0, kAck = 1, kNoTokens = 2 };
  Kind kind = kAck;
  u32 link = 0;
  u32 channel = kAnyChannel;  // kNoTokens: the channel, or kAnyChannel (some channel)
  Cycle at = 0;               // pulses: the cycle; kNoTokens: the interval [at, until)
  Cycle until = 0;
};

struct LinkProtocolStats {
  u64 token_ack_packets = 0;  // token/ack packets sent on the link
  u64 token_ack_cycles = 0;   // cycles they held it
  u64 acks = 0;               // acknowledgements sent on the link (packets of the reverse link)
  u64 piggybacked_acks = 0;   // of them, in a data packet's header
  u64 tokens_returned = 0;    // bytes of tokens the link carried back
  // Cycles the link was free while a packet of the channel waited with too few tokens; the last
  // one: of any channel.
  std::array<u64, kProtocolChannels + 1> no_token_cycles{};
};

class LinkProtocol {
 public:
  explicit LinkProtocol(const Torus& torus);
  void onSignal(std::function<void(const ProtocolSignal&)> emit) { emit_ = std::move(emit); }

  // The link on the same cable the other way (from the link's far end back to its node).
  u32 reverse(u32 link) const;

  // ---- tokens (the sender's view of the far buffer) ----
  // Bytes of the far buffer of `channel` the sender holds no tokens for: sent and not returned.
  u64 tokensOut(u32 link, u32 channel) const { return out_[link][channel]; }
  void spend(u32 link, u32 channel, u64 bytes) { out_[link][channel] += bytes; }
  // Tokens back at the sender of `link`. Contract: at most tokensOut (returns false, changing
  // nothing, otherwise: the caller's bug).
  bool refund(u32 link, u32 channel, u64 bytes);

  // ---- what a receiver owes, by the link that will carry it back ----
  void oweAck(u32 carrier) { ++owed_acks_[carrier]; }
  void oweTokens(u32 carrier, u32 channel, u64 bytes) { owed_tokens_[carrier][channel] += bytes; }
  bool owes(u32 carrier) const;
  // A transmission starting on `carrier` at `at` (a data packet, or a token/ack packet when
  // `own_packet`) takes all it owes: the acknowledgements are counted and signalled, one a
  // cycle; returns the tokens by channel, for the caller to give back to reverse(carrier)'s
  // sender when the carrier's tail arrives.
  std::array<u64, kProtocolChannels> carry(u32 carrier, Cycle at, bool own_packet, u64 own_cycles);

  // ---- no tokens: per link, which channels have a packet waiting with too few tokens ----
  // The link is free at `now` and `starved` says which channels lack tokens for a waiting
  // packet (from now on, until the next call); a busy link: none (`close`).
  void setStarved(u32 link, const std::array<bool, kProtocolChannels>& starved, Cycle now);
  void close(u32 link, Cycle now) { setStarved(link, {}, now); }
  // The network has moved everything before `horizon`: the intervals still open are signalled
  // up to it (and go on from it), so that each is known before the window it falls in.
  void split(Cycle horizon);

  // The link's pending token/ack flush (Network's event), at most one at a time.
  bool flushPending(u32 link) const { return flush_pending_[link] != 0; }
  void setFlushPending(u32 link, bool pending) { flush_pending_[link] = pending ? 1 : 0; }

  const LinkProtocolStats& stats(u32 link) const { return stats_[link]; }

 private:
  void signal(const ProtocolSignal& s) {
    if (emit_) emit_(s);
  }
  // Ends interval `i` (channel, or kAnyChannel) of `link` at `now`.
  void end(u32 link, u32 i, Cycle now);

  Torus torus_;
  std::vector<std::array<u64, kProtocolChannels>> out_;
  std::vector<u64> owed_acks_;
  std::vector<std::array<u64, kProtocolChannels>> owed_tokens_;
  std::vector<u8> flush_pending_;
  std::vector<Cycle> next_ack_;  // per link: the first cycle its next acknowledgement may take
  static constexpr Cycle kClosed = ~Cycle{0};
  std::vector<std::array<Cycle, kProtocolChannels + 1>> starved_since_;  // kClosed: not starved
  std::vector<u32> open_;  // link x (kProtocolChannels + 1) + i of the open intervals
  std::vector<LinkProtocolStats> stats_;
  std::function<void(const ProtocolSignal&)> emit_;
};

}  // namespace hpm::net
