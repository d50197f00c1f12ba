// Execution pipes, result latency and pipe occupancy (docs/timing.md "Issue"): dependency chains
// and independent operations of every instruction class, each table entry at two values, and
// hardware threads sharing one core's pipes.
//
// The loops here run with a 16-entry instruction buffer so that fetch never binds (a single
// thread with the default 8 entries issues at most 0.8 instructions per cycle: fetch_test.cpp).
#include "tests/core/harness.h"

namespace hpm::timing::test {
namespace {

constexpr u32 fcvtLD(u32 rd, u32 rs1) {
  return rType(0x61, 2, rs1, 7, rd, 0x53);
}
constexpr u32 kFflags = 0x001;

TimingParams wide() {
  TimingParams p = oneThread();
  p.core.ibuffer_entries = 16;
  return p;
}

// A loop of eight operations and the loop branch (bne, on an XU pipe).
Loop eight(u32 (*op)(u32 k)) {
  Loop l;
  for (u32 k = 0; k < 8; ++k) l.body.push_back(op(k));
  l.body.push_back(bne(30, 0, -32));
  l.addr = [](u64, u32 k) { return 0x800000 + 16 * u64{k}; };
  return l;
}

struct ClassCase {
  const char* name;
  u32* latency;    // the table entry under test (in `params`), or nullptr
  u32* occupancy;  // likewise
  bool axu;
  u32 (*dependent)(u32 k);    // eight of these form one dependency chain
  u32 (*independent)(u32 k);  // eight of these are independent
};

// Period of a dependency chain of eight ops of latency L and occupancy O plus the loop branch:
// each op issues max(L, O) after the one before; on the XU the branch takes the pipe once.
Cycle chainPeriod(u32 lat, u32 occ, bool axu) {
  const Cycle step = std::max(lat, occ);
  if (axu) return std::max<Cycle>(9, 8 * step);
  return 7 * step + std::max<Cycle>(lat, occ + 1);
}

// Period of eight independent ops of occupancy O plus the loop branch: the pipe is free every O
// cycles; on the XU the branch takes one more slot; a thread issues at most once per cycle.
Cycle independentPeriod(u32 occ, bool axu) {
  if (axu) return std::max<Cycle>(9, 8 * Cycle{occ});
  return 8 * Cycle{occ} + 1;
}

std::vector<ClassCase> cases(TimingParams& p) {
  LatencyTable& l = p.core.latency;
  OccupancyTable& o = p.core.occupancy;
  return {
      {"int_alu", &l.int_alu, &o.int_alu, false, [](u32) { return addi(5, 5, 1); },
       [](u32 k) { return addi(5 + k, 20, 1); }},
      {"int_mul", &l.int_mul, &o.int_mul, false, [](u32) { return mul(5, 5, 6); },
       [](u32 k) { return mul(5 + k, 20, 21); }},
      {"int_div", &l.int_div, &o.int_div, false, [](u32) { return div(5, 5, 6); },
       [](u32 k) { return div(5 + k, 20, 21); }},
      {"fp_add", &l.fp_add, &o.fp_add, true, [](u32) { return faddD(1, 1, 2); },
       [](u32 k) { return faddD(1 + k, 20, 21); }},
      {"fp_mul", &l.fp_mul, &o.fp_mul, true, [](u32) { return fmulD(1, 1, 2); },
       [](u32 k) { return fmulD(1 + k, 20, 21); }},
      {"fp_fma", &l.fp_fma, &o.fp_fma, true, [](u32) { return fmaddD(1, 1, 2, 3); },
       [](u32 k) { return fmaddD(1 + k, 20, 21, 22); }},
      {"fp_div", &l.fp_div, &o.fp_div, true, [](u32) { return fdivD(1, 1, 2); },
       [](u32 k) { return fdivD(1 + k, 20, 21); }},
      {"fp_sqrt", &l.fp_sqrt, &o.fp_sqrt, true, [](u32) { return fsqrtD(1, 1); },
       [](u32 k) { return fsqrtD(1 + k, 20); }},
      {"fp_div_single", &l.fp_div_single, &o.fp_div_single, true,
       [](u32) { return fdivS(1, 1, 2); }, [](u32 k) { return fdivS(1 + k, 20, 21); }},
      {"fp_sqrt_single", &l.fp_sqrt_single, &o.fp_sqrt_single, true,
       [](u32) { return fsqrtS(1, 1); }, [](u32 k) { return fsqrtS(1 + k, 20); }},
      {"fp_misc", &l.fp_misc, &o.fp_misc, true, [](u32) { return fsgnjD(1, 1, 1); },
       [](u32 k) { return fsgnjD(1 + k, 20, 20); }},
      {"fp_cvt", &l.fp_cvt, &o.fp_cvt, true,
       [](u32 k) { return k % 2 == 0 ? fcvtDL(1, 5) : fcvtLD(5, 1); },
       [](u32 k) { return fcvtDL(1 + k, 20); }},
      {"system", &l.system, &o.system, false, [](u32) { return csrrs(5, kFflags, 5); },
       [](u32 k) { return csrrs(5 + k, kFflags, 0); }},
      // Classes whose latency comes from memory or that write no register: occupancy only.
      {"load", nullptr, &o.load, false, nullptr, [](u32 k) { return ld(5 + k, 20, 0); }},
      {"fp_load", nullptr, &o.fp_load, true, nullptr, [](u32 k) { return fld(1 + k, 20, 0); }},
      {"fp_store", nullptr, &o.fp_store, true, nullptr, [](u32 k) { return fsd(1 + k, 20, 0); }},
      {"store", nullptr, &o.store, false, nullptr, [](u32 k) { return sd(5 + k, 20, 0); }},
  };
}

TEST(Pipeline, DependencyChainIssuesEveryMaxOfLatencyAndOccupancyCycles) {
  TimingParams base = wide();
  const std::size_t n = cases(base).size();
  for (std::size_t i = 0; i < n; ++i) {
    TimingParams p = wide();
    ClassCase c = cases(p)[i];
    if (c.latency == nullptr) continue;
    for (u32 delta : {0u, 10u}) {
      TimingParams q = wide();
      ClassCase cq = cases(q)[i];
      *cq.latency += delta;
      const Cycle want = chainPeriod(*cq.latency, *cq.occupancy, c.axu);
      EXPECT_EQ(steadyPeriod(q, eight(c.dependent)), want)
          << c.name << " latency " << *cq.latency << " occupancy " << *cq.occupancy;
    }
  }
}

TEST(Pipeline, IndependentOpsIssueOncePerOccupancy) {
  TimingParams base = wide();
  const std::size_t n = cases(base).size();
  for (std::size_t i = 0; i < n; ++i) {
    for (u32 occ : {1u, 3u}) {
      TimingParams q = wide();
      q.core.store_drain_cycles = 1;  // the store queue and the L2 slice never bind here
      q.l2.slice_busy_cycles = 1;
      ClassCase c = cases(q)[i];
      const u32 original = *c.occupancy;
      *c.occupancy = occ == 1 ? original : original + 2;
      const Cycle want = independentPeriod(*c.occupancy, c.axu);
      EXPECT_EQ(steadyPeriod(q, eight(c.independent)), want)
          << c.name << " occupancy " << *c.occupancy;
    }
  }
}

TEST(Pipeline, BgqDefaultsGiveTheSeedsLatencies) {
  // Integer 1-2 cycles, FP 6-8 (seed 003 section 3), multiply and divide not fully pipelined.
  const TimingParams p = wide();
  EXPECT_EQ(steadyPeriod(p, eight([](u32) { return addi(5, 5, 1); })), 9u);
  EXPECT_EQ(steadyPeriod(p, eight([](u32) { return faddD(1, 1, 2); })), 48u);
  EXPECT_EQ(steadyPeriod(p, eight([](u32 k) { return faddD(1 + k, 20, 21); })), 9u);
  EXPECT_EQ(steadyPeriod(p, eight([](u32 k) { return mul(5 + k, 20, 21); })), 8u * 3 + 1);
  EXPECT_EQ(steadyPeriod(p, eight([](u32 k) { return div(5 + k, 20, 21); })), 8u * 65 + 1);
}

TEST(Pipeline, BranchOccupancyHoldsTheXuForEveryBranch) {
  for (u32 occ : {1u, 4u}) {
    TimingParams p = wide();
    p.core.occupancy.branch = occ;
    // Seven never-taken branches to the next instruction and the loop branch: nine XU branches.
    Loop l;
    l.body.push_back(addi(5, 5, 1));
    for (u32 k = 0; k < 7; ++k) l.body.push_back(beq(20, 21, 4));
    l.body.push_back(bne(30, 0, -32));
    // addi (one cycle) then eight branches, each `occ` after the one before.
    EXPECT_EQ(steadyPeriod(p, l), 8u * occ + 1) << occ;
  }
}

TEST(Pipeline, JumpOccupancyHoldsTheXu) {
  for (u32 occ : {10u, 20u}) {
    TimingParams p = wide();
    p.core.occupancy.jump = occ;
    Loop l;
    for (u32 k = 0; k < 8; ++k) l.body.push_back(jal(0, 4));  // jumps to the next instruction
    l.body.push_back(bne(30, 0, -32));
    EXPECT_EQ(steadyPeriod(p, l), 8u * occ + 1) << occ;
  }
}

TEST(Pipeline, JumpLatencyDelaysUsersOfTheLinkRegister) {
  for (u32 lat : {1u, 20u}) {
    TimingParams p = wide();
    p.core.latency.jump = lat;
    Loop l;
    l.body = {jal(5, 4), addi(6, 5, 0), addi(7, 6, 0), bne(30, 0, -12)};
    // jal at t; with latency 1 the redirect binds: its target group arrives taken_branch_cycles
    // after the jal's group; the loop is then fetch-bound at 2 x 3 cycles. With latency 20 the
    // addi waits for the link register: t + 20, the second addi t + 21, the branch t + 22, the
    // next jal arrives 3 cycles after the branch's group (fetched before t + 17).
    const Cycle period = steadyPeriod(p, l);
    if (lat == 1) {
      EXPECT_EQ(period, 6u);
    } else {
      EXPECT_EQ(period, 23u);
    }
  }
}

TEST(Pipeline, AtomicOccupancyHoldsTheXu) {
  for (u32 occ : {20u, 30u}) {
    TimingParams p = wide();
    p.core.occupancy.atomic = occ;
    Loop l = eight([](u32 k) { return amoaddD(5 + k, 0, 20); });
    EXPECT_EQ(steadyPeriod(p, l), 8u * occ + 1) << occ;
  }
}

// ---- Threads sharing a core ----

Loop independentInts() {
  return eight([](u32 k) { return addi(5 + k, 5 + k, 1); });
}
Loop independentFp() {
  return eight([](u32 k) { return faddD(1 + k, 1 + k, 20); });
}

// Runs `loops[i]` on hardware thread i of one core (80 iterations each); returns each thread's
// cycles for iterations 30..70.
std::vector<Cycle> shared(const TimingParams& p, const std::vector<Loop>& loops) {
  NodeTiming m(p);
  std::vector<Stream> streams;
  std::vector<u32> harts;
  for (std::size_t i = 0; i < loops.size(); ++i) {
    Loop l = loops[i];
    l.iterations = 80;
    streams.push_back(unroll(l));
    harts.push_back(static_cast<u32>(i));
  }
  std::vector<const Stream*> ptrs;
  for (const Stream& s : streams) ptrs.push_back(&s);
  const auto at = runMany(m, harts, ptrs);
  std::vector<Cycle> out;
  for (std::size_t i = 0; i < loops.size(); ++i) out.push_back(span(streams[i], at[i], 30, 70));
  return out;
}

TEST(Threads, OneTwoAndFourThreadsShareOneIntegerPipe) {
  TimingParams p;
  p.cores = 1;
  p.threads_per_core = 4;
  // One thread: fetch-bound at 13 cycles per 9-instruction iteration (fetch_test.cpp). More:
  // the XU issues one instruction per cycle, shared round-robin: 9 x n cycles per iteration.
  EXPECT_EQ(shared(p, {independentInts()}), (std::vector<Cycle>{40 * 13}));
  EXPECT_EQ(shared(p, {independentInts(), independentInts()}),
            (std::vector<Cycle>{40 * 18, 40 * 18}));
  EXPECT_EQ(shared(p, std::vector<Loop>(4, independentInts())), std::vector<Cycle>(4, 40 * 36));
}

TEST(Threads, IntegerPipesParameterMultipliesIntegerThroughput) {
  TimingParams p;
  p.cores = 1;
  p.threads_per_core = 4;
  p.core.integer_pipes = 2;
  EXPECT_EQ(shared(p, {independentInts(), independentInts()}),
            (std::vector<Cycle>{40 * 13, 40 * 13}));
  EXPECT_EQ(shared(p, std::vector<Loop>(4, independentInts())), std::vector<Cycle>(4, 40 * 18));
}

TEST(Threads, IntegerAndFpThreadsIssueToBothPipesInOneCycle) {
  TimingParams p;
  p.cores = 1;
  p.threads_per_core = 4;
  // An FP thread needs the XU once per iteration (its branch): the pair needs 10 XU cycles per
  // iteration, below the 13 each thread's fetch allows.
  EXPECT_EQ(shared(p, {independentInts(), independentFp()}),
            (std::vector<Cycle>{40 * 13, 40 * 13}));
}

TEST(Threads, FpPipesParameterMultipliesFpThroughput) {
  for (u32 pipes : {1u, 2u}) {
    TimingParams p;
    p.cores = 1;
    p.threads_per_core = 4;
    p.core.fp_pipes = pipes;
    // Four FP threads: 32 AXU instructions per iteration of each.
    EXPECT_EQ(shared(p, std::vector<Loop>(4, independentFp())),
              std::vector<Cycle>(4, 40 * 32 / pipes))
        << pipes;
  }
}

TEST(Threads, NonPipelinedDivideHoldsThePipeAgainstOtherThreads) {
  TimingParams p;
  p.cores = 1;
  p.threads_per_core = 2;
  Loop divs = eight([](u32 k) { return div(5 + k, 20, 21); });
  // The divide thread alone: 8 x 65 + 1 per iteration; the integer thread next to it gets the
  // XU only between divides: once per 65 cycles, so 9 of its instructions take 9 x 65 cycles
  // apart from the slots freed by the divider thread's own branch.
  const std::vector<Cycle> c = shared(p, {divs, independentInts()});
  EXPECT_GT(c[1], 40u * 8 * 65 / 2);
}

TEST(Threads, RoundRobinGivesEqualThreadsEqualShares) {
  TimingParams p;
  p.cores = 1;
  p.threads_per_core = 4;
  NodeTiming m(p);
  Loop l = independentInts();
  l.iterations = 60;
  const Stream s = unroll(l);
  const auto at = runMany(m, {0, 1, 2, 3}, {&s, &s, &s, &s});
  // Once the predictor has learnt the loop (ten iterations of global history), each thread
  // issues every fourth cycle: in a window of 400 cycles, 100 instructions each, give or take one.
  for (const auto& v : at) {
    const auto n = std::count_if(v.begin(), v.end(), [](Cycle c) { return c >= 1200 && c < 1600; });
    EXPECT_NEAR(static_cast<double>(n), 100.0, 1.0);
  }
}

}  // namespace
}  // namespace hpm::timing::test
