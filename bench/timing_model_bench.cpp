// Cost of the timing model per instruction: one issueTime() and one issue() for a typical
// instruction mix (docs/timing.md "Speed"). The streams are built before timing starts.
//
//   build/bench/timing_model_bench --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "core/node_timing.h"
#include "core/timing_params.h"
#include "isa/decode.h"

namespace hpm::timing {
namespace {

constexpr u32 iType(i32 imm, u32 rs1, u32 f3, u32 rd, u32 opc) {
  return (static_cast<u32>(imm & 0xfff) << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | opc;
}
constexpr u32 rType(u32 f7, u32 rs2, u32 rs1, u32 f3, u32 rd, u32 opc) {
  return (f7 << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | opc;
}
constexpr u32 sType(i32 imm, u32 rs2, u32 rs1, u32 f3, u32 opc) {
  const u32 u = static_cast<u32>(imm);
  return (((u >> 5) & 0x7f) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | ((u & 0x1f) << 7) |
         opc;
}
constexpr u32 bne(u32 rs1, u32 rs2, i32 off) {
  const u32 u = static_cast<u32>(off);
  return (((u >> 12) & 1) << 31) | (((u >> 5) & 0x3f) << 25) | (rs2 << 20) | (rs1 << 15) |
         (1u << 12) | (((u >> 1) & 0xf) << 8) | (((u >> 11) & 1) << 7) | 0x63;
}

struct Step {
  isa::DecodedInst d;
  u64 pc, next_pc, addr;
};

// A loop of 32 instructions: 14 integer ALU, 1 multiply, 7 loads (a walk over `footprint` bytes:
// 256 KiB streams through the L1D, 8 KiB stays in it), 3 stores, 4 FP, 2 inner branches (one
// with random directions) and the loop branch.
std::vector<Step> mix(u64 base, u64 data, u32 iterations, u64 footprint = 256 << 10) {
  std::vector<u32> body;
  for (u32 k = 0; k < 4; ++k) {
    body.push_back(iType(8, 10, 0, 10, 0x13));          // addi a0, a0, 8
    body.push_back(iType(0, 10, 3, 5 + k, 0x03));       // ld t0+k, 0(a0)
    body.push_back(rType(0, 5 + k, 11, 0, 11, 0x33));   // add a1, a1, t0+k
    body.push_back(iType(1, 12 + k, 0, 12 + k, 0x13));  // addi a2+k, a2+k, 1
  }
  body.push_back(rType(1, 12, 11, 0, 13, 0x33));  // mul a3, a1, a2
  body.push_back(sType(0, 11, 10, 3, 0x23));      // sd a1, 0(a0)
  body.push_back(sType(8, 13, 10, 3, 0x23));      // sd a3, 8(a0)
  body.push_back(iType(0, 10, 3, 1, 0x07));       // fld f1, 0(a0)
  body.push_back(rType(0x01, 2, 1, 7, 3, 0x53));  // fadd.d f3, f1, f2
  body.push_back(rType(0x09, 3, 4, 7, 4, 0x53));  // fmul.d f4, f4, f3
  body.push_back(iType(16, 10, 3, 9, 0x03));      // ld s1, 16(a0)
  body.push_back(bne(9, 0, 8));                   // data-dependent, skips one
  body.push_back(iType(1, 14, 0, 14, 0x13));
  body.push_back(iType(24, 10, 3, 15, 0x03));     // ld a5, 24(a0)
  body.push_back(sType(32, 15, 10, 3, 0x23));     // sd a5, 32(a0)
  body.push_back(rType(0x01, 4, 3, 7, 5, 0x53));  // fadd.d f5, f3, f4
  body.push_back(bne(16, 0, 8));                  // never taken
  body.push_back(iType(1, 17, 0, 17, 0x13));
  body.push_back(iType(-1, 18, 0, 18, 0x13));
  body.push_back(bne(18, 0, -4 * static_cast<i32>(body.size())));
  std::vector<isa::DecodedInst> dec;
  for (u32 w : body) dec.push_back(isa::decode(w));
  std::vector<Step> out;
  u64 seed = 7;
  u64 a0 = data;
  const u32 n = static_cast<u32>(body.size());
  for (u32 it = 0; it < iterations; ++it) {
    for (u32 i = 0; i < n;) {
      const isa::DecodedInst& d = dec[i];
      Step s{d, base + 4 * u64{i}, 0, 0};
      const isa::InstClass c = d.info().cls;
      if (d.op == isa::Op::kAddi && d.rd == 10) a0 = data + ((a0 - data + 72) % footprint);
      if (c == isa::InstClass::kLoad || c == isa::InstClass::kStore ||
          c == isa::InstClass::kFpLoad) {
        s.addr = a0 + static_cast<u64>(d.imm);
      }
      u32 next = i + 1;
      if (c == isa::InstClass::kBranch) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        const bool taken = i == n - 1 ? true : (d.rs1 == 9 ? (seed >> 63) != 0 : false);
        if (taken) next = static_cast<u32>(static_cast<i64>(i) + d.imm / 4);
      }
      s.next_pc = base + 4 * u64{next};
      out.push_back(s);
      if (i == n - 1) break;
      i = next;
    }
  }
  return out;
}

TimingParams params(u32 cores, u32 threads) {
  TimingParams p;
  p.cores = cores;
  p.threads_per_core = threads;
  return p;
}

// One hardware thread: one issueTime() and one issue() per instruction. Argument: the data
// footprint in KiB.
void BM_OneThread(benchmark::State& state) {
  NodeTiming m(params(1, 1));
  const std::vector<Step> steps =
      mix(0x10000, 0x800000, 4096, static_cast<u64>(state.range(0)) << 10);
  std::size_t i = 0;
  for (auto _ : state) {
    const Step& s = steps[i];
    const Cycle t = m.issueTime(0, s.d, s.pc, s.addr);
    m.issue(0, s.d, s.pc, s.next_pc, s.addr, t);
    if (++i == steps.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["cycles_per_inst"] = benchmark::Counter(static_cast<double>(m.hartTime(0)) /
                                                         static_cast<double>(state.iterations()));
}
BENCHMARK(BM_OneThread)->Arg(256)->Arg(8);

// All hardware threads of `cores` cores, each on its own data, issued in time order as the
// scheduler does: a heap of each thread's last known issue time, a lower bound (other threads'
// issues only delay it, apart from rare cache fills). The earliest is asked again and issued if
// its time is unchanged, else put back. Items are issued instructions; the heap is included.
void BM_Node(benchmark::State& state) {
  const u32 cores = static_cast<u32>(state.range(0));
  const u32 threads = 4;
  NodeTiming m(params(cores, threads));
  const u32 harts = cores * threads;
  std::vector<std::vector<Step>> steps;
  for (u32 h = 0; h < harts; ++h) {
    steps.push_back(mix(0x10000, 0x1000000 + u64{h} * (1 << 20), 512));
  }
  std::vector<std::size_t> pos(harts, 0);
  using Entry = std::pair<Cycle, u32>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
  for (u32 h = 0; h < harts; ++h) {
    const Step& s = steps[h][0];
    ready.emplace(m.issueTime(h, s.d, s.pc, s.addr), h);
  }
  u64 issued = 0;
  for (auto _ : state) {
    const auto [known, h] = ready.top();
    ready.pop();
    const Step& s = steps[h][pos[h]];
    const Cycle t = m.issueTime(h, s.d, s.pc, s.addr);
    if (t != known) {
      ready.emplace(t, h);
      continue;
    }
    m.issue(h, s.d, s.pc, s.next_pc, s.addr, t);
    ++issued;
    if (++pos[h] == steps[h].size()) pos[h] = 0;
    const Step& n = steps[h][pos[h]];
    ready.emplace(m.issueTime(h, n.d, n.pc, n.addr), h);
  }
  state.SetItemsProcessed(static_cast<i64>(issued));
}
BENCHMARK(BM_Node)->Arg(1)->Arg(16);

}  // namespace
}  // namespace hpm::timing

BENCHMARK_MAIN();
