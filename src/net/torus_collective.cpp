#include "net/torus_collective.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>

#include "net/network.h"

namespace hpm::net {
namespace {

// An exact sum of doubles: a two's-complement fixed-point number whose bit 0 is 2^-1074 (the
// least subnormal). A finite double is m x 2^(s - 1074) with m < 2^53 and s < 2047, so its bits
// lie below 2^2100; 76 more bits hold the sum of up to 2^75 of them.
class ExactSum {
 public:
  void add(double x) {
    u64 bits = std::bit_cast<u64>(x);
    const bool negative = (bits >> 63) != 0;
    const u32 biased = static_cast<u32>(bits >> 52 & 0x7ff);
    u64 m = bits & ((u64{1} << 52) - 1);
    u32 shift = 0;
    if (biased != 0) {
      m |= u64{1} << 52;
      shift = biased - 1;
    }
    if (m == 0) return;
    // m << shift, spread over two words, added or subtracted with the carry through the rest.
    const u32 word = shift / 64, offset = shift % 64;
    const u64 lo = m << offset, hi = offset == 0 ? 0 : m >> (64 - offset);
    if (negative) {
      subAt(word, lo);
      subAt(word + 1, hi);
    } else {
      addAt(word, lo);
      addAt(word + 1, hi);
    }
  }

  // The sum rounded once to the nearest double (ties to even).
  double value() const {
    std::array<u64, kWords> a = words_;
    const bool negative = (a[kWords - 1] >> 63) != 0;
    if (negative) {  // (two's complement: invert and add one)
      u64 carry = 1;
      for (u64& w : a) {
        w = ~w + carry;
        carry = carry != 0 && w == 0 ? 1 : 0;
      }
    }
    int top = -1;  // the highest set bit
    for (u32 i = kWords; i-- > 0;) {
      if (a[i] != 0) {
        top = static_cast<int>(i * 64 + 63 - static_cast<u32>(std::countl_zero(a[i])));
        break;
      }
    }
    if (top < 0) return 0.0;  // (an exact zero is +0)
    const auto bit = [&](int b) { return b >= 0 && ((a[b / 64] >> (b % 64)) & 1) != 0; };
    double r;
    if (top <= 52) {
      r = std::ldexp(static_cast<double>(a[0]), -1074);  // (exact: a subnormal or the least
                                                         // normals)
    } else {
      u64 m = 0;
      for (int b = top; b > top - 53; --b) m = m << 1 | (bit(b) ? 1 : 0);
      const bool round = bit(top - 53);
      bool sticky = false;  // (any bit below the round bit)
      if (const int below = top - 53; below > 0) {
        const u32 w = static_cast<u32>(below) / 64, b = static_cast<u32>(below) % 64;
        sticky = (a[w] & ((u64{1} << b) - 1)) != 0;
        for (u32 i = 0; i < w && !sticky; ++i) sticky = a[i] != 0;
      }
      if (round && (sticky || (m & 1) != 0)) ++m;               // (2^53 stays exact as a double)
      r = std::ldexp(static_cast<double>(m), top - 52 - 1074);  // (beyond the largest: inf)
    }
    return negative ? -r : r;
  }

 private:
  static constexpr u32 kWords = 34;
  void addAt(u32 i, u64 v) {
    for (; v != 0 && i < kWords; ++i) {
      words_[i] += v;
      v = words_[i] < v ? 1 : 0;
    }
  }
  void subAt(u32 i, u64 v) {
    for (; v != 0 && i < kWords; ++i) {
      const u64 before = words_[i];
      words_[i] -= v;
      v = before < v ? 1 : 0;
    }
  }
  std::array<u64, kWords> words_{};
};

// -1, 0, 1 as a compares to b: `word`-byte little-endian integers, signed or not.
int compareWords(const u8* a, const u8* b, u16 word, bool is_signed) {
  for (u32 i = word; i-- > 0;) {
    u8 x = a[i], y = b[i];
    if (is_signed && i == word - 1u) {
      x ^= 0x80;
      y ^= 0x80;
    }
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

double doubleAt(const u8* p) {
  double d;
  std::memcpy(&d, p, 8);
  return d;
}

// For min and max: a total order on non-NaN doubles with -0 below +0 (so that the result does
// not depend on the inputs' order).
bool lessDouble(double a, double b) {
  if (a == b) return std::signbit(a) && !std::signbit(b);
  return a < b;
}

}  // namespace

void combineWords(u8 op, u16 word, std::span<const std::span<const u8>> inputs, std::span<u8> out) {
  if (inputs.empty()) return;
  std::memcpy(out.data(), inputs[0].data(), out.size());
  if (collop::floating(op)) {
    for (std::size_t at = 0; at + 8 <= out.size(); at += 8) {
      bool finite = true, nan = false;
      for (const auto& in : inputs) {
        const double d = doubleAt(in.data() + at);
        finite = finite && std::isfinite(d);
        nan = nan || std::isnan(d);
      }
      double r = doubleAt(inputs[0].data() + at);
      if (op == collop::kFloatAdd) {
        if (finite) {
          ExactSum sum;
          bool minus_zeros = true;  // (IEEE: a sum of -0s is -0, any other exact zero +0)
          for (const auto& in : inputs) {
            const double x = doubleAt(in.data() + at);
            sum.add(x);
            minus_zeros = minus_zeros && x == 0.0 && std::signbit(x);
          }
          r = minus_zeros ? -0.0 : sum.value();
        } else {
          for (std::size_t i = 1; i < inputs.size(); ++i) r += doubleAt(inputs[i].data() + at);
        }
      } else if (nan) {
        for (const auto& in : inputs) {  // (the first NaN, in input order)
          if (std::isnan(doubleAt(in.data() + at))) {
            r = doubleAt(in.data() + at);
            break;
          }
        }
      } else {
        for (std::size_t i = 1; i < inputs.size(); ++i) {
          const double d = doubleAt(inputs[i].data() + at);
          if (op == collop::kFloatMin ? lessDouble(d, r) : lessDouble(r, d)) r = d;
        }
      }
      std::memcpy(out.data() + at, &r, 8);
    }
    return;
  }
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    const u8* in = inputs[i].data();
    for (std::size_t at = 0; at + word <= out.size(); at += word) {
      u8* o = out.data() + at;
      const u8* x = in + at;
      switch (op) {
        case collop::kAnd:
          for (u32 b = 0; b < word; ++b) o[b] &= x[b];
          break;
        case collop::kOr:
          for (u32 b = 0; b < word; ++b) o[b] |= x[b];
          break;
        case collop::kXor:
          for (u32 b = 0; b < word; ++b) o[b] ^= x[b];
          break;
        case collop::kUnsignedAdd:
        case collop::kSignedAdd: {
          u32 carry = 0;
          for (u32 b = 0; b < word; ++b) {
            const u32 s = u32{o[b]} + x[b] + carry;
            o[b] = static_cast<u8>(s);
            carry = s >> 8;
          }
          break;
        }
        case collop::kUnsignedMin:
        case collop::kSignedMin:
          if (compareWords(x, o, word, op == collop::kSignedMin) < 0) std::memcpy(o, x, word);
          break;
        case collop::kUnsignedMax:
        case collop::kSignedMax:
          if (compareWords(x, o, word, op == collop::kSignedMax) > 0) std::memcpy(o, x, word);
          break;
        default: break;
      }
    }
  }
}

// The Network's collectives (net/network.h, "Collectives").

u32 Network::allocSlot() {
  u32 slot;
  if (free_slots_.empty()) {
    slot = static_cast<u32>(packets_.size());
    packets_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  InFlight& f = packets_[slot];
  ++f.generation;  // (never reset: the slot's earlier packets' waiting entries stay stale)
  f.blocked = false;
  f.hold = kNone;
  f.down = false;
  // (A packet injected at its source has come by no link: its source's queue is its input,
  // whatever channel the slot's last packet came by. Arbitration keeps deterministic packets of
  // one input in order by (from, from_channel): a stale channel here let a later packet of the
  // same source overtake an earlier one that was waiting for room.)
  f.from = kNone;
  f.from_channel = Channel::kEscape;
  return slot;
}

u32 Network::makeHold(std::vector<Release> releases) {
  u32 h;
  if (free_holds_.empty()) {
    h = static_cast<u32>(holds_.size());
    holds_.emplace_back();
  } else {
    h = free_holds_.back();
    free_holds_.pop_back();
  }
  holds_[h].releases = std::move(releases);
  holds_[h].remaining = 1;
  return h;
}

void Network::releaseHold(u32 h, Cycle when) {
  Hold& hold = holds_[h];
  if (--hold.remaining != 0) return;
  for (const Release& r : hold.releases) {
    if (r.link == kNone) {
      source_bytes_[r.node] -= r.bytes;
    } else {
      push(when, Kind::kFree, r.link, static_cast<u32>(r.channel), r.bytes);
    }
  }
  hold.releases.clear();
  free_holds_.push_back(h);
}

void Network::collDrop(u32 slot) {
  InFlight& f = packets_[slot];
  ++coll_drops_;
  if (f.hold != kNone) releaseHold(f.hold, f.head_at);
  f.packet.bytes.clear();
  ++f.generation;
  free_slots_.push_back(slot);
  --in_flight_;
}

void Network::setClassRoute(u32 cls, ClassRoute route) {
  const auto shared = std::make_shared<const ClassRoute>(std::move(route));
  for (u32 node = 0; node < torus_.nodes(); ++node) {
    node_classes_[node][cls] = shared->member(node) ? shared : nullptr;
  }
}

// Whether a packet at node `node` came by the tree of its register `route`: injected there by a
// member, or over a link the tree brings it by (up from a child, or down from the parent), on
// the tree's channel.
static bool cameByTree(const ClassRoute* route, u32 node, u32 from, Channel from_channel,
                       bool down) {
  if (route == nullptr || !route->member(node)) return false;
  if (from == ClassRoute::kNone) return !down;
  if (from_channel != channelOf(route->type())) return false;
  if (down) return node != route->root() && from == route->downLink(route->up(node));
  const std::vector<u32>& children = route->childLinks(node);
  return std::binary_search(children.begin(), children.end(), from);
}

void Network::collArrive(u32 slot, Cycle now) {
  InFlight& f = packets_[slot];
  const Packet& p = f.packet;
  const u64 size = p.bytes.size();
  const std::shared_ptr<const ClassRoute>& shared = node_classes_[f.at][p.coll.cls];
  const ClassRoute* route = shared.get();
  const Channel channel = route ? channelOf(route->type()) : Channel::kUserWorld;
  // The buffer it arrived in, or its source's queue, until what the router makes of it leaves.
  f.hold = makeHold({f.from == kNone ? Release{kNone, channel, size, p.src}
                                     : Release{f.from, f.from_channel, size, 0}});
  if (!cameByTree(route, f.at, f.from, f.from_channel, f.down) ||
      (p.coll.type == CollType::kReduce && !route->member(p.dst))) {
    collDrop(slot);
    return;
  }
  if (f.down || (p.coll.type == CollType::kBroadcast && f.at == route->root())) {
    collFanout(slot, now);
    return;
  }
  if (p.coll.type == CollType::kBroadcast) {
    collWait(slot, route->up(f.at), now);
    return;
  }
  const std::vector<u32>& children = route->childLinks(f.at);
  const u32 input =
      f.from == kNone
          ? static_cast<u32>(children.size())
          : static_cast<u32>(std::lower_bound(children.begin(), children.end(), f.from) -
                             children.begin());
  const u32 node = f.at, cls = p.coll.cls;
  Combining& waiting = combining_[u64{node} * kClassRoutes + cls];
  if (waiting.route != shared) {
    // (The node's register names another tree than the packets waiting here came by: they
    // can never combine, and are dropped.)
    for (std::deque<u32>& q : waiting.inputs) {
      for (const u32 s : q) collDrop(s);
    }
    waiting.route = shared;
    waiting.inputs.clear();
  }
  waiting.inputs.resize(children.size() + 1);
  waiting.inputs[input].push_back(slot);
  collCombine(node, cls, now);
}

void Network::collCombine(u32 node, u32 cls, Cycle now) {
  Combining& waiting = combining_.find(u64{node} * kClassRoutes + cls)->second;
  std::vector<std::deque<u32>>& inputs = waiting.inputs;
  const ClassRoute& route = *waiting.route;
  while (std::all_of(inputs.begin(), inputs.end(), [](const auto& q) { return !q.empty(); })) {
    std::vector<u32> slots;
    for (auto& q : inputs) {
      slots.push_back(q.front());
      q.pop_front();
    }
    const u32 local = slots.back();
    const u32 out = allocSlot();  // (may move packets_: indices only from here)
    InFlight& r = packets_[out];
    r.packet = packets_[local].packet;
    const Collective& c = r.packet.coll;
    std::vector<std::span<const u8>> payloads;
    std::vector<Release> releases;
    for (const u32 s : slots) {
      const Packet& in = packets_[s].packet;
      if (in.coll != c || in.bytes.size() != r.packet.bytes.size()) ++coll_mismatches_;
      const std::size_t header = std::min<std::size_t>(params_.header_bytes, in.bytes.size());
      payloads.push_back(std::span<const u8>(in.bytes).subspan(header));
      Hold& h = holds_[packets_[s].hold];
      releases.insert(releases.end(), h.releases.begin(), h.releases.end());
    }
    // (Inputs of another size than the local client's are cut or padded with its own bytes.)
    const std::size_t header = std::min<std::size_t>(params_.header_bytes, r.packet.bytes.size());
    const std::size_t bytes = r.packet.bytes.size() - header;
    std::vector<std::vector<u8>> fitted;
    for (std::span<const u8>& pl : payloads) {
      if (pl.size() == bytes) continue;
      std::vector<u8> v(r.packet.bytes.begin() + static_cast<std::ptrdiff_t>(header),
                        r.packet.bytes.end());
      std::copy_n(pl.begin(), std::min(pl.size(), bytes), v.begin());
      fitted.push_back(std::move(v));
      pl = fitted.back();
    }
    std::vector<u8> result(bytes);
    if (c.word != 0 && bytes % c.word == 0) combineWords(c.op, c.word, payloads, result);
    std::copy(result.begin(), result.end(),
              r.packet.bytes.begin() + static_cast<std::ptrdiff_t>(header));
    const u32 src32 = node;
    if (r.packet.bytes.size() >= 4) std::memcpy(r.packet.bytes.data(), &src32, 4);
    ++combines_;
    for (const u32 s : slots) {
      Hold& h = holds_[packets_[s].hold];
      h.releases.clear();
      free_holds_.push_back(packets_[s].hold);
      packets_[s].packet.bytes.clear();
      ++packets_[s].generation;
      free_slots_.push_back(s);
    }
    in_flight_ -= slots.size() - 1;
    InFlight& o = packets_[out];
    o.packet.src = node;
    o.at = node;
    o.head_at = now;
    o.from = kNone;
    o.from_channel = channelOf(route.type());
    o.hold = makeHold(std::move(releases));
    if (node == route.root()) {
      collFanout(out, now);
    } else {
      collWait(out, route.up(node), now);
    }
  }
}

void Network::collFanout(u32 slot, Cycle now) {
  const u32 node = packets_[slot].at;
  const Packet& p = packets_[slot].packet;
  const ClassRoute& route = *node_classes_[node][p.coll.cls];
  std::vector<u32> links;
  bool local = true;
  if (p.coll.type == CollType::kReduce) {
    local = node == p.dst;
    if (!local) links.push_back(route.downLink(route.childToward(node, p.dst)));
  } else {
    for (const u32 child : route.childLinks(node)) links.push_back(route.downLink(child));
  }
  const u32 copies = static_cast<u32>(links.size()) + (local ? 1 : 0);
  const u32 hold = packets_[slot].hold;
  holds_[hold].remaining = copies;
  in_flight_ += copies - 1;
  // The packet itself is the last copy; the others are new slots.
  std::vector<u32> slots;
  for (u32 i = 0; i + 1 < copies; ++i) {
    const u32 s = allocSlot();
    InFlight& c = packets_[s];
    const InFlight& o = packets_[slot];
    c.packet = o.packet;
    c.at = node;
    c.head_at = now;
    c.from = o.from;
    c.from_channel = o.from_channel;
    c.hold = hold;
    c.down = true;
    slots.push_back(s);
  }
  packets_[slot].down = true;
  slots.push_back(slot);
  for (std::size_t i = 0; i < links.size(); ++i) collWait(slots[i], links[i], now);
  if (local) {
    InFlight& f = packets_[slots.back()];
    f.packet.dst = node;
    collLand(slots.back(), now + linkCycles(f.packet.bytes.size()));
  }
}

void Network::collWait(u32 slot, u32 link, Cycle now) {
  InFlight& f = packets_[slot];
  const Channel channel = channelOf(node_classes_[f.at][f.packet.coll.cls]->type());
  waiting_[link].push_back({slot, f.generation, channel, false});
  if (!arbitrate(link, now) && link_free_[link] > now) wakeWhenFree(link);
}

void Network::collLand(u32 slot, Cycle tail) {
  InFlight& f = packets_[slot];
  const u32 node = f.at;
  const Channel channel = channelOf(node_classes_[node][f.packet.coll.cls]->type());
  const u64 size = f.packet.bytes.size();
  u64& room = room_[node];
  if (held_[node].empty() && room >= size) {
    room -= size;
    deliver(slot, kNone, channel, tail);
  } else {
    held_[node].push_back({slot, kNone, channel, tail});
    ++held_count_;
    ++reception_holds_;
  }
}

}  // namespace hpm::net
