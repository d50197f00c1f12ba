// The network model's cost per simulated packet (docs/PERFORMANCE.md, "Many nodes"): packets
// between random node pairs of a 512-node BG/Q torus (4x4x4x4x2), injected a few at a time
// and moved to their destinations, as the many-node driver does window by window. Reports host
// nanoseconds per packet and per hop (items: hops).
#include <benchmark/benchmark.h>

#include <random>

#include "net/network.h"

namespace {

void BM_NetworkPacket(benchmark::State& state) {
  hpm::NetworkParams params;
  const hpm::net::Torus torus({4, 4, 4, 4, 2});
  hpm::net::Network network(params, torus, 1'600'000'000);
  std::mt19937 random(1);
  std::uniform_int_distribution<unsigned> node(0, torus.nodes() - 1);
  const auto payload = static_cast<std::size_t>(state.range(0));
  hpm::Cycle now = 0;
  hpm::u64 seq = 0, hops = 0, packets = 0;
  for (auto _ : state) {
    // One window's injections: 64 packets, then the network moves one lookahead on.
    for (int i = 0; i < 64; ++i) {
      hpm::net::Packet p;
      p.src = node(random);
      do p.dst = node(random);
      while (p.dst == p.src);
      p.seq = seq++;
      p.entered = now + params.injection_cycles;
      p.bytes.assign(payload + 32, 0);
      hops += torus.hops(p.src, p.dst);
      network.inject(std::move(p));
    }
    now += network.lookahead();
    benchmark::DoNotOptimize(network.advance(now + params.injection_cycles));
    packets += 64;
  }
  state.counters["ns_per_packet"] = benchmark::Counter(
      static_cast<double>(packets), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["ns_per_hop"] = benchmark::Counter(
      static_cast<double>(hops), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_NetworkPacket)->Arg(0)->Arg(512)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
