// What the network's tests share: their link parameters, a packet, and mixed point-to-point
// traffic for the stress tests (reproducible from a seed, so a failure replays exactly).
#pragma once

#include "base/types.h"
#include "net/collective_params.h"
#include "net/network.h"
#include "net/network_params.h"

namespace hpm::net::test {

// 2 GB/s links at 1.6 GHz (1.25 bytes a cycle: a 544-byte packet holds a link 436 cycles), 64
// cycles a hop, 200 to inject and 150 to receive.
inline NetworkParams baseParams() {
  NetworkParams p;
  p.link_gbytes_per_s = 2.0;
  p.hop_cycles = 64;
  p.injection_cycles = 200;
  p.reception_cycles = 150;
  return p;
}

// Blue Gene/P's collective network as its tests take it: one byte a cycle at 850 MHz, so a
// 256-byte packet with its 4 bytes of overhead holds a link 264 cycles; 50 cycles a hop, 10 for
// the ALU, 20 to inject and 30 to receive.
inline CollectiveParams collectiveParams() {
  CollectiveParams p;
  p.enabled = true;
  p.link_gbytes_per_s = 0.85;
  p.link_overhead_bytes = 4;
  p.hop_cycles = 50;
  p.alu_cycles = 10;
  p.injection_cycles = 20;
  p.reception_cycles = 30;
  return p;
}

// A point-to-point packet of `bytes` zero bytes.
inline Packet packet(u32 src, u32 dst, u64 seq, Cycle entered, u64 bytes, bool dynamic = false,
                     bool priority = false) {
  Packet p;
  p.src = src;
  p.dst = dst;
  p.seq = seq;
  p.entered = entered;
  p.dynamic = dynamic;
  p.priority = priority;
  p.bytes.assign(bytes, 0);
  return p;
}

// For each of `nodes` sources, `per_node` draws of a destination (a draw of the source itself
// sends nothing): packet k enters at cycle 50k with 64 to 544 bytes in 32-byte steps, a third
// each deterministic, dynamic and priority. make(src, dst, seq, entered, bytes, dynamic,
// priority) builds each packet. Returns how many were injected.
template <class Make>
u64 injectMixedTraffic(Network& n, u32 nodes, u64 seed, u64 per_node, Make make) {
  u64 state = seed, sent = 0;
  const auto next = [&state] {  // a 64-bit linear congruential generator (Knuth's MMIX)
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  for (u32 src = 0; src < nodes; ++src) {
    for (u64 k = 0; k < per_node; ++k) {
      const u32 dst = static_cast<u32>(next() % nodes);
      if (dst == src) continue;
      const u64 kind = next() % 3;
      n.inject(make(src, dst, k, k * 50, 64 + next() % 16 * 32, kind == 1, kind == 2));
      ++sent;
    }
  }
  return sent;
}

}  // namespace hpm::net::test
