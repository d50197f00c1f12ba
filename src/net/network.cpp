#include "net/network.h"

#include <algorithm>
#include <cmath>

namespace hpm::net {

Network::Network(const NetworkParams& params, Torus torus, u64 clock_hz)
    : params_(params),
      torus_(std::move(torus)),
      cycles_per_byte_(static_cast<double>(clock_hz) / (params.link_gbytes_per_s * 1e9)),
      link_free_(torus_.links(), 0),
      links_(torus_.links()) {}

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

void Network::inject(Packet p) {
  u32 slot;
  if (free_slots_.empty()) {
    slot = static_cast<u32>(packets_.size());
    packets_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  events_.push(Step{p.entered, p.src, p.seq, p.src, slot});
  packets_[slot] = std::move(p);
}

std::vector<Delivery> Network::advance(Cycle horizon) {
  std::vector<Delivery> out;
  while (!events_.empty() && events_.top().when < horizon) {
    const Step step = events_.top();
    events_.pop();
    Packet& p = packets_[step.slot];
    const u32 link = torus_.nextLink(step.at, p.dst);
    const Cycle start = std::max(step.when, link_free_[link]);
    const u64 hold = linkCycles(p.bytes.size());
    link_free_[link] = start + hold;
    LinkStats& ls = links_[link];
    ++ls.packets;
    ls.chunks += p.chunks();
    ls.busy_cycles += hold;
    ls.wait_cycles += start - step.when;
    const u32 next = torus_.linkTarget(link);
    if (on_crossing_) {
      on_crossing_(
          LinkCrossing{link, p.chunks(), start, start + hold + params_.hop_cycles, next == p.dst});
    }
    if (next != p.dst) {
      events_.push(Step{start + params_.hop_cycles, step.src, step.seq, next, step.slot});
      continue;
    }
    out.push_back(
        Delivery{start + hold + params_.hop_cycles + params_.reception_cycles, std::move(p)});
    free_slots_.push_back(step.slot);
    ++delivered_;
  }
  std::stable_sort(out.begin(), out.end(), [](const Delivery& a, const Delivery& b) {
    if (a.when != b.when) return a.when < b.when;
    if (a.packet.src != b.packet.src) return a.packet.src < b.packet.src;
    return a.packet.seq < b.packet.seq;
  });
  return out;
}

}  // namespace hpm::net
