// The whole node: 16 cores sharing L2 and DDR bandwidth; the driver contract of NodeTiming
// (issueTime has no side effect, idleUntil, warmup, lastCost, snapshot, switchContext);
// statistics; parameters by their configuration names; the machine presets.
#include "base/error.h"
#include "config/schema.h"
#include "node/machine.h"
#include "tests/core/harness.h"

namespace hpm::timing::test {
namespace {

// Eight independent loads and the loop branch per iteration on one thread of each of `n`
// cores; returns each core's cycles per iteration over iterations 10..30.
std::vector<Cycle> bandwidth(const TimingParams& p, u32 n, bool from_ddr) {
  NodeTiming m(p);
  std::vector<Stream> streams;
  std::vector<u32> harts;
  for (u32 c = 0; c < n; ++c) {
    Loop l;
    for (u32 i = 0; i < 8; ++i) l.body.push_back(ld(6 + i, 20, 0));
    l.body.push_back(bne(30, 0, -32));
    if (from_ddr) {
      // Fresh lines, 256 bytes apart (no stream to prefetch): every load goes to DDR.
      l.addr = [c](u64 it, u32 i) { return 0x10000000 + u64{c} * (64 << 20) + (it * 8 + i) * 256; };
    } else {
      // 40 lines per core, 2 KiB apart, cycled: they miss the L1D and L1P and hit the L2.
      l.addr = [c](u64 it, u32 i) {
        return 0x800000 + u64{c} * (1 << 20) + ((it % 5) * 8 + i) * 2048;
      };
    }
    l.iterations = 40;
    streams.push_back(unroll(l));
    harts.push_back(c * p.threads_per_core);
  }
  std::vector<const Stream*> ptrs;
  for (const Stream& s : streams) ptrs.push_back(&s);
  const auto at = runMany(m, harts, ptrs);
  std::vector<Cycle> out;
  for (u32 c = 0; c < n; ++c) out.push_back(span(streams[c], at[c], 10, 30) / 20);
  return out;
}

// bgq's parameters without the crossbar's data widths (l2.slice_bytes_per_cycle,
// core_port_bytes_per_cycle): each server's rule alone, then the widths by their own tests.
TimingParams withoutCrossbarWidths() {
  TimingParams p;
  p.l2.slice_bytes_per_cycle = 0;
  p.l2.core_port_bytes_per_cycle = 0;
  return p;
}

TEST(Node, SixteenCoresShareTheL2SliceBandwidth) {
  for (u32 busy : {2u, 4u}) {
    TimingParams p = withoutCrossbarWidths();
    p.threads_per_core = 1;
    p.l2.slices = 1;  // one slice: its port is the bottleneck
    p.l2.slice_busy_cycles = busy;
    // One core: eight misses overlap in the load-miss queue, 82 cycles per iteration. Sixteen:
    // 128 requests per iteration through one port, busy cycles each.
    EXPECT_EQ(bandwidth(p, 1, false), (std::vector<Cycle>{82})) << busy;
    EXPECT_EQ(bandwidth(p, 16, false), std::vector<Cycle>(16, 128 * busy)) << busy;
  }
}

TEST(Node, SixteenSlicesGiveSixteenCoresTheirL2Latency) {
  TimingParams p = withoutCrossbarWidths();
  p.threads_per_core = 1;
  EXPECT_EQ(bandwidth(p, 16, false), std::vector<Cycle>(16, 82));
}

TEST(Node, ASliceReturnsOneLinePerLineOverItsWidth) {
  // One slice, 16 cores: 128 reads per iteration, each holding the slice's port
  // max(slice_busy_cycles, 128 / width) cycles: 8 at bgq's 16 bytes per cycle, 16 at 8.
  for (u32 width : {16u, 8u}) {
    TimingParams p;
    p.threads_per_core = 1;
    p.l2.slices = 1;
    p.l2.core_port_bytes_per_cycle = 0;
    p.l2.slice_bytes_per_cycle = width;
    EXPECT_EQ(bandwidth(p, 16, false), std::vector<Cycle>(16, 128 * (128 / width))) << width;
  }
}

TEST(Node, ACoresPortReturnsOneLinePerLineOverItsWidth) {
  // One core, eight reads per iteration to L2 lines: alone they overlap in 82 cycles; through
  // a port of 8 bytes per cycle each line holds it 16 cycles (128 per iteration), of 4 bytes 32
  // (256). The slices (their width off) are not the limit.
  for (u32 width : {8u, 4u}) {
    TimingParams p;
    p.threads_per_core = 1;
    p.l2.slice_bytes_per_cycle = 0;
    p.l2.core_port_bytes_per_cycle = width;
    EXPECT_EQ(bandwidth(p, 1, false), (std::vector<Cycle>{8 * (128 / width)})) << width;
    // Sixteen cores each have their own port: the same cycles each. (A core's span over 20
    // iterations can come out one cycle short when a slice wait delays the load it is measured
    // from; never longer: the port, not the slices, is the limit.)
    for (Cycle c : bandwidth(p, 16, false)) {
      EXPECT_LE(c, 8 * (128 / width)) << width;
      EXPECT_GE(c + 1, 8 * (128 / width)) << width;
    }
  }
  // bgq's 16 bytes per cycle: 64 cycles of transfers per iteration, under the latency.
  TimingParams p;
  p.threads_per_core = 1;
  EXPECT_EQ(bandwidth(p, 1, false), (std::vector<Cycle>{82}));
}

TEST(Node, SixteenCoresShareTheDdrBandwidth) {
  TimingParams p = withoutCrossbarWidths();
  p.threads_per_core = 1;
  p.l1p.prefetch = false;
  // One core: latency-bound, 350 per iteration. Sixteen: 128 lines per iteration over two
  // controllers of ceil(128 / 13.33) = 10 cycles per line: 640.
  EXPECT_EQ(bandwidth(p, 1, true), (std::vector<Cycle>{350}));
  EXPECT_EQ(bandwidth(p, 16, true), std::vector<Cycle>(16, 640));
  // Twice the bandwidth: 320 cycles of transfers, below the latency again.
  p.ddr.bytes_per_cycle = 26.67;
  for (Cycle c : bandwidth(p, 16, true)) {
    EXPECT_GE(c, 350u);
    EXPECT_LE(c, 352u);
  }
  p.ddr.bytes_per_cycle = 13.33;
  p.ddr.controllers = 4;
  EXPECT_EQ(bandwidth(p, 16, true), std::vector<Cycle>(16, 350));
}

TEST(Node, L2SlicesParameterSpreadsTheLoad) {
  TimingParams p;
  p.threads_per_core = 1;
  p.l2.slice_busy_cycles = 8;
  p.l2.slices = 1;
  const Cycle one = bandwidth(p, 16, false)[0];
  p.l2.slices = 4;
  const Cycle four = bandwidth(p, 16, false)[0];
  EXPECT_EQ(one, 128u * 8);
  EXPECT_LT(four, one / 3);
}

// ---- The driver contract ----

TimingParams twoCores() {
  TimingParams p;
  p.cores = 2;
  p.threads_per_core = 2;
  return p;
}

TEST(Contract, IssueTimeHasNoSideEffect) {
  NodeTiming m(twoCores());
  const isa::DecodedInst load = dec(ld(5, 6, 0));
  const isa::DecodedInst fadd = dec(faddD(1, 2, 3));
  const std::string before = statsJson(m).dump();
  const Cycle a = m.issueTime(0, load, 0x10000, 0x800000);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(m.issueTime(0, load, 0x10000, 0x800000), a);
    m.issueTime(1, fadd, 0x20000, 0);
    m.issueTime(3, load, 0x30000, 0x900000);
  }
  EXPECT_EQ(statsJson(m).dump(), before);
  EXPECT_EQ(m.hartTime(0), 0u);
  const IssueCost& cost = m.issue(0, load, 0x10000, 0x10004, 0x800000, a);
  EXPECT_GE(m.hartTime(0), a + 1);
  // What issue() returns is its cost, ending at the thread's new clock.
  EXPECT_EQ(&cost, &m.lastCost(0));
  EXPECT_EQ(cost.clock, m.hartTime(0));
  EXPECT_EQ(cost.cycles, m.hartTime(0));
}

TEST(Contract, IssueTimeIsNeverBeforeHartTimeAndIssueBeforeItIsRefused) {
  NodeTiming m(twoCores());
  m.idleUntil(2, 500);
  const isa::DecodedInst add1 = dec(addi(5, 5, 1));
  const Cycle t = m.issueTime(2, add1, 0x10000, 0);
  EXPECT_GE(t, 500u);
  EXPECT_THROW(m.issue(2, add1, 0x10000, 0x10004, 0, t - 1), Error);
}

TEST(Contract, IdleUntilCountsIdleCyclesAndIsTheLastCost) {
  NodeTiming m(twoCores());
  m.idleUntil(1, 1000);
  EXPECT_EQ(m.hartTime(1), 1000u);
  EXPECT_EQ(m.lastCost(1).cycles, 1000u);
  EXPECT_EQ(m.lastCost(1).clock, 1000u);
  EXPECT_EQ(m.lastCost(1).stalls[static_cast<std::size_t>(Stall::kIdle)], 1000u);
  m.idleUntil(1, 10);  // earlier: no effect
  EXPECT_EQ(m.hartTime(1), 1000u);
  const auto j = statsJson(m);
  EXPECT_EQ(j["cores"][0]["threads"][1]["stalls"]["idle"].get<u64>(), 1000u);
  EXPECT_EQ(j["cores"][0]["threads"][1]["cycles"].get<u64>(), 1000u);
}

TEST(Contract, WarmupTouchesTheCachesOnlyAndAdvancesTheClockByOne) {
  TimingParams p = oneThread();
  NodeTiming m(p);
  const isa::DecodedInst load = dec(ld(5, 6, 0));
  const isa::DecodedInst use = dec(add(7, 5, 5));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(m.warmup(0, load, 0x10000, 0x800000).clock, i + 1u);
  EXPECT_EQ(m.hartTime(0), 3u);
  EXPECT_EQ(m.lastCost(0).cycles, 1u);
  // The line and the code are now cached: the timed load hits the L1D and fetch pays only
  // fetch_to_issue.
  const Cycle t = m.issueTime(0, load, 0x10000, 0x800000);
  EXPECT_EQ(t, 3u + p.core.fetch_to_issue);
  m.issue(0, load, 0x10000, 0x10004, 0x800000, t);
  EXPECT_EQ(m.issueTime(0, use, 0x10004, 0), t + p.l1d.hit_latency);
  const auto j = statsJson(m);
  EXPECT_EQ(j["cores"][0]["warmup_instructions"].get<u64>(), 3u);
  EXPECT_EQ(j["cores"][0]["instructions"].get<u64>(), 1u);
  EXPECT_EQ(j["cores"][0]["l1d"]["hits"].get<u64>(), 3u);
}

TEST(Contract, LastCostsAddUpToTheClockAndTheStalls) {
  TimingParams p = oneThread();
  NodeTiming m(p);
  Loop l;
  l.body = {ld(5, 5, 0), addi(6, 5, 1), fdivD(1, 2, 3), faddD(4, 1, 1), bne(30, 0, -16)};
  l.addr = [](u64 it, u32) { return 0x800000 + (it % 50) * 4096; };
  l.iterations = 100;
  const Stream s = unroll(l);
  Cycle cycles = 0;
  std::array<Cycle, kStallCount> stalls{};
  for (const Step& st : s.steps) {
    const Cycle t = m.issueTime(0, st.d, st.pc, st.addr);
    m.issue(0, st.d, st.pc, st.next_pc, st.addr, t);
    const IssueCost& c = m.lastCost(0);
    cycles += c.cycles;
    Cycle stalled = 0;
    for (std::size_t i = 0; i < kStallCount; ++i) {
      stalls[i] += c.stalls[i];
      stalled += c.stalls[i];
    }
    EXPECT_EQ(c.cycles, stalled + 1);  // one cycle to issue, the rest stalls
  }
  EXPECT_EQ(cycles, m.hartTime(0));
  const auto j = statsJson(m)["cores"][0]["stalls"];
  for (std::size_t i = 0; i < kStallCount; ++i) {
    EXPECT_EQ(j[std::string(stallName(static_cast<Stall>(i)))].get<u64>(), stalls[i]);
  }
  EXPECT_GT(stalls[static_cast<std::size_t>(Stall::kDependency)], 0u);
  EXPECT_GT(stalls[static_cast<std::size_t>(Stall::kIcacheMiss)], 0u);
}

TEST(Contract, SnapshotCountsIssuesPerPipe) {
  TimingParams p;
  p.cores = 1;
  p.threads_per_core = 2;
  p.core.integer_pipes = 2;
  NodeTiming m(p);
  Loop ints;
  for (u32 i = 0; i < 8; ++i) ints.body.push_back(addi(5 + i, 5 + i, 1));
  ints.body.push_back(bne(30, 0, -32));
  ints.iterations = 10;
  Loop fps = ints;
  fps.base = 0x20000;
  for (u32 i = 0; i < 8; ++i) fps.body[i] = faddD(1 + i, 1 + i, 20);
  const Stream a = unroll(ints);
  const Stream b = unroll(fps);
  runMany(m, {0, 1}, {&a, &b});
  const CoreSnapshot s = m.snapshot(0);
  EXPECT_EQ(s.integer_pipes, 2u);
  EXPECT_EQ(s.fp_pipes, 1u);
  EXPECT_EQ(s.issued[0] + s.issued[1], 90u + 10u);  // all of thread 0, thread 1's branches
  EXPECT_EQ(s.issued[2], 80u);                      // the AXU, after the two XU pipes
  EXPECT_EQ(s.cycles, std::max(m.hartTime(0), m.hartTime(1)));
}

TEST(Contract, SwitchContextRestartsTheFetchStream) {
  TimingParams p = oneThread();
  NodeTiming m(p);
  const isa::DecodedInst a1 = dec(addi(5, 5, 1));
  for (u64 pc = 0x10000; pc < 0x10010; pc += 4) {
    m.issue(0, a1, pc, pc + 4, 0, m.issueTime(0, a1, pc, 0));
  }
  // The next group follows the stream without waiting; after a switch it is refetched.
  const Cycle clock = m.hartTime(0);
  EXPECT_EQ(m.issueTime(0, a1, 0x10010, 0), clock);
  m.switchContext(0);
  EXPECT_EQ(m.issueTime(0, a1, 0x10010, 0), clock + p.core.fetch_to_issue);
}

TEST(Contract, StatisticsNameEveryUnit) {
  TimingParams p = twoCores();
  NodeTiming m(p);
  const auto j = statsJson(m);
  ASSERT_EQ(j["cores"].size(), 2u);
  ASSERT_EQ(j["cores"][0]["threads"].size(), 2u);
  EXPECT_EQ(j["l2_slices"].size(), 16u);
  EXPECT_EQ(j["ddr_controllers"].size(), 2u);
  const auto& t = j["cores"][1]["threads"][0];
  for (const char* k : {"cycles", "instructions", "branches", "branch_mispredicts"}) {
    EXPECT_TRUE(t.contains(k)) << k;
  }
  EXPECT_TRUE(t["instructions_by_class"].contains("fp_fma"));
  EXPECT_TRUE(t["issued"].contains("xu0"));
  EXPECT_TRUE(t["issued"].contains("axu0"));
  for (const char* s : {"dependency", "pipe_busy", "ibuffer_empty", "icache_miss", "mispredict",
                        "lmq_full", "sq_full", "idle"}) {
    EXPECT_TRUE(t["stalls"].contains(s)) << s;
  }
  for (const char* c : {"l1i", "l1d", "l1p"}) {
    for (const char* k : {"accesses", "hits", "misses", "evictions", "writebacks", "prefetches"}) {
      EXPECT_TRUE(j["cores"][0][c].contains(k)) << c << "." << k;
    }
  }
  for (const char* k : {"requests", "bytes", "busy_cycles"}) {
    EXPECT_TRUE(j["l2_slices"][3].contains(k)) << k;
    EXPECT_TRUE(j["ddr_controllers"][1].contains(k)) << k;
  }
  stats::TextWriter text;
  m.visitStats(text);
  EXPECT_NE(text.str().find("l2_slices"), std::string::npos);
}

// ---- Parameters ----

TEST(Params, WhatIfSweepNamesSetTheModel) {
  TimingParams p;
  config::Schema schema(p);
  schema.applyOverride("core.integer_pipes=2");
  schema.applyOverride("core.store_queue_entries=10");
  schema.applyOverride("core.latency.int_alu=2");
  schema.applyOverride("core.occupancy.int_div=34");
  schema.applyOverride("l1d.replacement=fifo");
  schema.applyOverride("ddr.bytes_per_cycle=20");
  EXPECT_EQ(p.core.integer_pipes, 2u);
  EXPECT_EQ(p.core.store_queue_entries, 10u);
  EXPECT_EQ(p.core.latency.int_alu, 2u);
  EXPECT_EQ(p.core.occupancy.int_div, 34u);
  EXPECT_EQ(p.l1d.replacement, mem::Replacement::kFifo);
  EXPECT_EQ(p.ddr.bytes_per_cycle, 20.0);
  EXPECT_EQ(schema.find("cores"), nullptr);  // from the node section, not the timing model's
  for (const config::Param& param : schema.params()) {
    EXPECT_FALSE(param.doc.empty()) << param.key;
  }
}

TEST(Params, InconsistentValuesAreRefusedWithTheirNames) {
  auto message = [](TimingParams p) -> std::string {
    try {
      NodeTiming m(p);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kConfig);
      return e.what();
    }
    return "";
  };
  TimingParams p;
  p.core.mispredict_penalty = 6;
  EXPECT_NE(message(p).find("mispredict_penalty"), std::string::npos);
  p = TimingParams{};
  p.core.mispredict_penalty_jump = 6;
  EXPECT_NE(message(p).find("mispredict_penalty_jump = 6"), std::string::npos);
  p = TimingParams{};
  p.core.integer_pipes = 4;
  p.core.fp_pipes = 5;
  EXPECT_NE(message(p).find("integer_pipes"), std::string::npos);
  p = TimingParams{};
  p.core.ibuffer_entries = 2;
  EXPECT_NE(message(p).find("ibuffer_entries"), std::string::npos);
  p = TimingParams{};
  p.l2.size_kib = 1000;
  EXPECT_NE(message(p).find("l2"), std::string::npos);
  p = TimingParams{};
  p.core.occupancy.fp_div = 0;
  EXPECT_NE(message(p).find("fp_div"), std::string::npos);
  p = TimingParams{};
  p.core.occupancy.fp_sqrt_single = 0;
  EXPECT_NE(message(p).find("core.occupancy.fp_sqrt_single"), std::string::npos);
  // The structural limits' bounds, which the model's rings and windows rely on.
  p = TimingParams{};
  p.core.scoreboard_entries = 33;
  EXPECT_NE(message(p).find("scoreboard_entries"), std::string::npos);
  p = TimingParams{};
  p.core.store_writes_in_flight = 65;
  EXPECT_NE(message(p).find("store_writes_in_flight"), std::string::npos);
  p = TimingParams{};
  p.core.divider_extra_cycles = 101;
  EXPECT_NE(message(p).find("divider_extra_cycles"), std::string::npos);
}

TEST(Params, PresetsBuildValidModels) {
  const MachineConfig bgq = loadMachine("bgq", {});
  const TimingParams q = timingParamsFor(bgq);
  EXPECT_EQ(q.cores, 16u);
  EXPECT_EQ(q.threads_per_core, 4u);
  EXPECT_EQ(q.core.store_queue_entries, 20u);
  NodeTiming mq(q);
  EXPECT_EQ(mq.hardwareThreads(), 64u);

  const MachineConfig bgp = loadMachine("bgp", {"core.integer_pipes=2"});
  const TimingParams b = timingParamsFor(bgp);
  EXPECT_EQ(b.cores, 4u);
  EXPECT_EQ(b.threads_per_core, 1u);
  EXPECT_EQ(b.core.integer_pipes, 2u);
  EXPECT_EQ(b.l1d.size_kib, 32u);
  EXPECT_EQ(b.l2.size_kib, 8192u);
  NodeTiming mb(b);
  EXPECT_EQ(mb.hardwareThreads(), 4u);
  // The BG/P core: FP latency 5, so an FP chain of eight takes 40 cycles per iteration.
  Loop l;
  for (u32 i = 0; i < 8; ++i) l.body.push_back(faddD(1, 1, 2));
  l.body.push_back(bne(30, 0, -32));
  TimingParams one = b;
  one.cores = 1;
  EXPECT_EQ(steadyPeriod(one, l), 40u);

  // The CVA6 core (docs/fidelity.md): four dependent 2-cycle multiplies, the counter and the
  // branch take 10 cycles, the counter waiting a cycle for the shared write-back port, as on
  // CVA6's RTL (its mul_dep kernel: 60,030 cycles for 6,000 iterations).
  const TimingParams c = timingParamsFor(loadMachine("cva6", {}));
  EXPECT_EQ(c.cores, 1u);
  EXPECT_EQ(c.threads_per_core, 1u);
  Loop muls;
  for (u32 i = 0; i < 4; ++i) muls.body.push_back(mul(5, 5, 6));
  muls.body.push_back(addi(7, 7, -1));
  muls.body.push_back(bne(7, 0, -20));
  EXPECT_EQ(steadyPeriod(c, muls), 10u);
}

}  // namespace
}  // namespace hpm::timing::test
