// Instruction fetch and branch prediction (docs/timing.md "Instruction fetch", "Branch
// prediction"): buffer credit, group alignment, taken-branch redirects, the shared fetch port
// with empty-buffer priority, I-cache misses, gshare, the return-address stack, the indirect
// target table, mispredict penalties, ecall.
#include "tests/core/harness.h"

namespace hpm::timing::test {
namespace {

Loop straight32() {
  // 31 independent additions and the loop branch: eight aligned groups of four.
  Loop l;
  for (u32 i = 0; i < 31; ++i) l.body.push_back(addi(5 + i % 8, 5 + i % 8, 1));
  l.body.push_back(bne(30, 0, -124));
  return l;
}

// A fetch of group g waits until at most ibuffer - 4 instructions before it have not issued,
// counting those in flight; so with k = ibuffer / 4 groups of credit, k groups are fetched per
// fetch_to_issue + 4 cycles: 32 instructions take max(32, 8 (D + 4) / k) cycles.
Cycle straightPeriod(u32 ibuffer, u32 d) {
  return std::max<Cycle>(32, 8 * (d + 4) / (ibuffer / 4));
}

TEST(Fetch, BufferCreditBoundsASingleThread) {
  for (u32 ib : {4u, 8u, 12u, 16u}) {
    TimingParams p = oneThread();
    p.core.ibuffer_entries = ib;
    EXPECT_EQ(steadyPeriod(p, straight32()), straightPeriod(ib, 6)) << ib;
  }
}

TEST(Fetch, FetchToIssueLengthensTheCreditLoop) {
  for (u32 d : {6u, 10u}) {
    TimingParams p = oneThread();
    p.core.fetch_to_issue = d;
    EXPECT_EQ(steadyPeriod(p, straight32()), straightPeriod(8, d)) << d;
  }
}

Loop tiny(u64 base) {
  Loop l;
  l.base = base;
  l.body = {addi(5, 5, 1), bne(30, 0, -4)};
  return l;
}

TEST(Fetch, PredictedTakenBranchRefetchesAfterTakenBranchCycles) {
  for (u32 t : {3u, 5u}) {
    TimingParams p = oneThread();
    p.core.taken_branch_cycles = t;
    // One group per iteration, fetched taken_branch_cycles after the one before.
    EXPECT_EQ(steadyPeriod(p, tiny(0x10000)), t) << t;
  }
}

TEST(Fetch, ATakenBranchBubbleCostsOnlyWhenTheBufferRunsDry) {
  // Four-byte groups (one instruction each, as CVA6 fetches): the loop's target is fetched
  // taken_branch_cycles after the branch's group. Six independent additions and the branch
  // issue as fast as they arrive, so each iteration costs the bubble: 6 + T. A chain of four
  // multiplies of latency 3 (the branch issues in the last one's shadow) takes 4 x 3 cycles,
  // during which fetch runs ahead and the buffer covers the bubble: 12 whatever T.
  for (u32 t : {2u, 4u}) {
    TimingParams p = fourByteFetch();
    p.core.taken_branch_cycles = t;
    p.core.latency.int_mul = 3;
    p.core.occupancy.int_mul = 1;
    Loop adds;
    for (u32 k = 0; k < 6; ++k) adds.body.push_back(addi(5 + k, 5 + k, 1));
    adds.body.push_back(bne(30, 0, -24));
    EXPECT_EQ(steadyPeriod(p, adds), 6u + t) << t;
    Loop muls;
    for (u32 k = 0; k < 4; ++k) muls.body.push_back(mul(5, 5, 6));
    muls.body.push_back(bne(30, 0, -16));
    EXPECT_EQ(steadyPeriod(p, muls), 12u) << t;
  }
}

TEST(Fetch, ALoopStraddlingTwoGroupsFetchesBoth) {
  TimingParams p = oneThread();
  // addi is the last slot of one group, bne the first of the next: the earlier slots of the
  // first group are discarded, and each iteration costs one more fetch.
  EXPECT_EQ(steadyPeriod(p, tiny(0x1000C)), 1u + p.core.taken_branch_cycles);
  // With 32-byte groups both are in one group again (16 buffer entries so that credit for the
  // eight slots of the larger group does not bind).
  p.core.fetch_group_bytes = 32;
  p.core.ibuffer_entries = 16;
  EXPECT_EQ(steadyPeriod(p, tiny(0x1000C)), p.core.taken_branch_cycles);
}

// An inner branch at 0x10004 whose direction alternates, skipping one instruction when taken.
Loop alternating() {
  Loop l;
  l.body = {addi(5, 5, 1), bne(6, 0, 8), addi(7, 7, 1), addi(8, 8, 1), bne(9, 0, -16)};
  l.taken = [](u64 iter, u32) { return iter % 2 == 0; };
  return l;
}

// The cycles of iterations 30 to 70 of 71 iterations of alternating() on hardware thread 0.
Cycle alternatingSpan(NodeTiming& m) {
  Loop l = alternating();
  l.iterations = 71;
  const Stream s = unroll(l);
  const auto at = runOne(m, 0, s.steps);
  return span(s, at, 30, 70);
}

TEST(Fetch, MispredictCostsThePenaltyFromBranchIssueToTargetIssue) {
  for (u32 pen : {13u, 20u}) {
    TimingParams p = oneThread();
    p.core.history_bits = 0;  // bimodal: the alternating branch is mispredicted every time
    p.core.mispredict_penalty = pen;
    // The branch issues at t + 1; the target issues at t + 1 + penalty; the loop branch's group
    // is fetched one cycle after the target's and its target taken_branch_cycles later, so the
    // next iteration starts at t + 2 + penalty + taken_branch_cycles.
    const Cycle want = 2 + pen + p.core.taken_branch_cycles;
    NodeTiming m(p);
    EXPECT_EQ(alternatingSpan(m), 40 * want) << pen;
    const auto j = statsJson(m);
    EXPECT_GE(j["cores"][0]["branch_mispredicts"].get<u64>(), 70u);
    EXPECT_GT(j["cores"][0]["stalls"]["mispredict"].get<u64>(), 70u * (pen - 2));
  }
}

TEST(Fetch, AMispredictCostsThePenaltyOfTheDirectionTheBranchResolvesTo) {
  for (u32 not_taken : {13u, 20u}) {
    TimingParams p = oneThread();
    p.core.history_bits = 0;
    p.core.mispredict_penalty = 13;
    p.core.mispredict_penalty_not_taken = not_taken;
    // As above, per direction: the taken iterations (even) cost 2 + 13 + T, the others
    // 2 + not_taken + T; 20 of each between iterations 30 and 70.
    const u64 t = p.core.taken_branch_cycles;
    NodeTiming m(p);
    EXPECT_EQ(alternatingSpan(m), 20 * (2 + 13 + t) + 20 * (2 + not_taken + t)) << not_taken;
  }
}

TEST(Fetch, GlobalHistoryLetsGshareLearnAnAlternatingBranch) {
  TimingParams p = oneThread();
  p.core.history_bits = 0;
  EXPECT_EQ(steadyPeriod(p, alternating()), 18u);
  p.core.history_bits = 10;
  // Learnt: no mispredicts. A taken iteration fetches three groups with two redirects (7
  // cycles); a not-taken one two groups with one redirect (4 cycles, 5 to issue its 5).
  NodeTiming m(p);
  Loop l = alternating();
  l.iterations = 81;
  const Stream s = unroll(l);
  const auto at = runOne(m, 0, s.steps);
  EXPECT_EQ(span(s, at, 40, 80), 20u * 14);
  const u64 before = statsJson(m)["cores"][0]["branch_mispredicts"].get<u64>();
  EXPECT_LT(before, 30u);  // only while learning
}

TEST(Fetch, RandomBranchesCostAboutThePenaltyPerMispredict) {
  TimingParams p = oneThread();
  u64 seed = 12345;
  std::vector<bool> dir(1000);
  for (std::size_t i = 0; i < dir.size(); ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    dir[i] = (seed >> 62) & 1;
  }
  auto run = [&](bool random, u64* mispredicts, Cycle* steady) {
    Loop l = alternating();
    l.iterations = 1000;
    l.taken = [&](u64 iter, u32) { return random ? bool(dir[iter]) : true; };
    NodeTiming m(p);
    const Stream s = unroll(l);
    const auto at = runOne(m, 0, s.steps);
    *mispredicts = statsJson(m)["cores"][0]["branch_mispredicts"].get<u64>();
    *steady = span(s, at, 100, 999);
    return span(s, at, 0, 999);
  };
  u64 m_random = 0, m_taken = 0;
  Cycle steady_random = 0, steady_taken = 0;
  const Cycle random = run(true, &m_random, &steady_random);
  const Cycle taken = run(false, &m_taken, &steady_taken);
  EXPECT_EQ(steady_taken, 899u * 7);  // always taken, learnt: fetch-bound at 7 per iteration
  // Random directions defeat the predictor about half the time (both branches count).
  EXPECT_GT(m_random, 400u);
  EXPECT_LT(m_random, 750u);
  // Each further mispredict costs the penalty less the cycles a correct prediction would have
  // taken to reach the next instruction (1 to 5): between penalty - 5 and penalty - 1.
  const double per = static_cast<double>(random - taken) / static_cast<double>(m_random - m_taken);
  EXPECT_GE(per, p.core.mispredict_penalty - 5.0);
  EXPECT_LE(per, p.core.mispredict_penalty - 1.0);
}

TEST(Fetch, ASmallBranchTableAliasesBranches) {
  for (u32 entries : {2u, 1024u}) {
    TimingParams p = oneThread();
    p.core.history_bits = 0;
    p.core.bht_entries = entries;
    // Two inner branches, one always taken, one never, and the loop branch; with two counters
    // all three share counter 0 ((pc >> 1) is even for each) and the never-taken one is
    // mispredicted in every iteration.
    Loop l;
    l.body = {addi(5, 5, 1), beq(6, 0, 8),  addi(7, 7, 1),
              beq(8, 0, 8),  addi(9, 9, 1), bne(30, 0, -20)};
    l.taken = [](u64, u32 i) { return i == 1; };
    // Aliased: the mispredicted branch issues at b; the next iteration's target of the taken
    // branch issues b + penalty + 2 x taken_branch_cycles later. Separate counters: fetch-bound.
    EXPECT_EQ(steadyPeriod(p, l), entries == 2 ? 13u + 2 * 3 : 7u) << entries;
  }
}

// Calls of the function at 0x11000 (addi; ret) from two call sites in turn.
std::vector<Step> twoCallSites(u32 iterations, u32 call_through) {
  std::vector<Step> st;
  auto put = [&](u32 w, u64 pc, u64 next) { st.push_back(Step{dec(w), pc, next, 0}); };
  for (u32 it = 0; it < iterations; ++it) {
    put(call_through == 0 ? jal(1, 0x1000) : jalr(1, 7, 0), 0x10000, 0x11000);
    put(addi(6, 6, 1), 0x11000, 0x11004);
    put(jalr(0, 1, 0), 0x11004, 0x10004);
    put(jal(1, 0xffc), 0x10004, 0x11000);
    put(addi(6, 6, 1), 0x11000, 0x11004);
    put(jalr(0, 1, 0), 0x11004, 0x10008);
    put(bne(30, 0, -8), 0x10008, it + 1 < iterations ? 0x10000 : 0x1000c);
  }
  return st;
}

u64 counter(const NodeTiming& m, const char* name) {
  return statsJson(m)["cores"][0][name].get<u64>();
}

TEST(Fetch, ReturnAddressStackPredictsReturnsToAlternatingCallers) {
  const std::vector<Step> st = twoCallSites(50, 0);
  TimingParams p = oneThread();
  NodeTiming with(p);
  runOne(with, 0, st);
  EXPECT_EQ(counter(with, "returns"), 100u);
  EXPECT_EQ(counter(with, "return_mispredicts"), 0u);
  EXPECT_EQ(counter(with, "jump_mispredicts"), 0u);
  // Without it the return is an indirect jump whose last target is always the other caller.
  p.core.ras_entries = 0;
  NodeTiming without(p);
  const auto at = runOne(without, 0, st);
  EXPECT_GE(counter(without, "jump_mispredicts"), 98u);
  const auto at_with = runOne(*std::make_unique<NodeTiming>(oneThread()), 0, st);
  EXPECT_GT(at.back(), at_with.back() + 98 * 8);
}

TEST(Fetch, IndirectTargetTablePredictsARepeatedTarget) {
  // The first call goes through a register (jalr ra, 0(a7)), always to the same function.
  const std::vector<Step> st = twoCallSites(50, 1);
  TimingParams p = oneThread();
  NodeTiming with(p);
  runOne(with, 0, st);
  EXPECT_EQ(counter(with, "jump_mispredicts"), 1u);  // the first time only
  p.core.indirect_entries = 0;
  NodeTiming without(p);
  runOne(without, 0, st);
  EXPECT_EQ(counter(without, "jump_mispredicts"), 50u);
}

TEST(Fetch, AMispredictedJumpCostsTheJumpPenalty) {
  // Returns without a return-address stack: indirect jumps to the other caller's return address,
  // mispredicted every time. A longer jump penalty delays everything after each by the
  // difference, and nothing else.
  const std::vector<Step> st = twoCallSites(50, 0);
  TimingParams p = oneThread();
  p.core.ras_entries = 0;
  NodeTiming base(p);
  const Cycle end = runOne(base, 0, st).back();
  const u64 mispredicts = counter(base, "jump_mispredicts");
  EXPECT_GE(mispredicts, 98u);
  for (u32 jump : {20u, 30u}) {
    p.core.mispredict_penalty_jump = jump;
    NodeTiming m(p);
    EXPECT_EQ(runOne(m, 0, st).back() - end, mispredicts * (jump - 13)) << jump;
  }
}

TEST(Fetch, ICacheMissStallsFetchForTheL2Latency) {
  // 2 KiB of straight-line code (32 lines of 64 bytes) in a loop.
  Loop l;
  for (u32 i = 0; i < 511; ++i) l.body.push_back(addi(5 + i % 8, 5 + i % 8, 1));
  l.body.push_back(bne(30, 0, -2044));
  TimingParams big = oneThread();
  TimingParams small = oneThread();
  small.l1i.size_kib = 1;  // 16 lines: every line misses in every iteration
  const Cycle hit = steadyPeriod(big, l, 5, 10);
  const Cycle miss = steadyPeriod(small, l, 5, 10);
  // Each miss holds the thread's fetch for the L2 latency; nothing else changes.
  EXPECT_EQ(hit, 512u * 5 / 4 + 6);
  EXPECT_EQ(miss - hit, 32u * small.l2.hit_latency);
  small.l2.hit_latency = 60;
  EXPECT_EQ(steadyPeriod(small, l, 5, 10) - hit, 32u * 60);
}

TEST(Fetch, L1iHitLatencyLengthensTheFetchPipeline) {
  for (u32 h : {0u, 2u}) {
    TimingParams p = oneThread();
    p.l1i.hit_latency = h;
    // The credit loop of straight-line code grows by the hit latency: 8 (D + h + 4) / 2.
    EXPECT_EQ(steadyPeriod(p, straight32()), 4u * (6 + h + 4)) << h;
  }
}

// Blocks of `addi; jal` at `lines` code lines `stride` bytes apart, visited in the order of
// `order` (indices into the blocks), then back to the first: one group fetch per visit.
std::vector<Step> codeWalk(const std::vector<u32>& order, u64 stride, u32 iterations) {
  std::vector<Step> st;
  for (u32 it = 0; it < iterations; ++it) {
    for (std::size_t k = 0; k < order.size(); ++k) {
      const u64 pc = 0x100000 + order[k] * stride;
      const u64 next = 0x100000 + order[(k + 1) % order.size()] * stride;
      st.push_back(Step{dec(addi(5, 5, 1)), pc, pc + 4, 0});
      const i32 off = static_cast<i32>(static_cast<i64>(next) - static_cast<i64>(pc + 4));
      st.push_back(Step{dec(jal(0, off)), pc + 4, next, 0});
    }
  }
  return st;
}

Cycle walkPeriod(const TimingParams& p, const std::vector<u32>& order, u64 stride) {
  NodeTiming m(p);
  const std::vector<Step> st = codeWalk(order, stride, 60);
  const auto at = runOne(m, 0, st);
  const std::size_t per = 2 * order.size();
  return (at[50 * per] - at[30 * per]) / 20;
}

TEST(Fetch, L1iWaysDecideWhetherConflictingCodeLinesHit) {
  // Five code lines of one set (4 KiB apart): four ways miss all five in turn, eight hold them.
  const std::vector<u32> five{0, 1, 2, 3, 4};
  for (u32 ways : {4u, 8u}) {
    TimingParams p = oneThread();
    p.l1i.ways = ways;
    p.l1i.size_kib = 4 * ways;  // keep 64 sets
    // Hits: each jal's target group is fetched taken_branch_cycles after the jal's group. A miss
    // holds the thread's fetch for the L2 latency instead.
    EXPECT_EQ(walkPeriod(p, five, 4096), ways == 4 ? 5u * 82 : 5u * 3) << ways;
  }
}

TEST(Fetch, L1iLineSizeHalvesTheMissesOfStraightCode) {
  Loop l;
  for (u32 i = 0; i < 511; ++i) l.body.push_back(addi(5 + i % 8, 5 + i % 8, 1));
  l.body.push_back(bne(30, 0, -2044));
  TimingParams p = oneThread();
  p.l1i.size_kib = 1;
  const Cycle small_lines = steadyPeriod(p, l, 5, 10);
  p.l1i.line_bytes = 128;  // 16 lines of 2 KiB of code, all missing in a 1 KiB cache
  const Cycle big_lines = steadyPeriod(p, l, 5, 10);
  EXPECT_EQ(small_lines - big_lines, 16u * 82);
}

TEST(Fetch, L1iLruKeepsHotCodeThatFifoEvicts) {
  // A hot line visited between each of four others of its set: five lines, four ways.
  const std::vector<u32> order{0, 1, 0, 2, 0, 3, 0, 4};
  TimingParams lru = oneThread();
  TimingParams fifo = oneThread();
  fifo.l1i.replacement = mem::Replacement::kFifo;
  // LRU: the hot line always hits, the four others always miss.
  EXPECT_EQ(walkPeriod(lru, order, 4096), 4u * 82 + 4u * 3);
  EXPECT_GT(walkPeriod(fifo, order, 4096), 4u * 82 + 4u * 3);
}

std::vector<Cycle> sharedCore(const TimingParams& p, const std::vector<Loop>& loops,
                              NodeTiming* out = nullptr) {
  NodeTiming local(p);
  NodeTiming& m = out != nullptr ? *out : local;
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
  std::vector<Cycle> per;
  for (std::size_t i = 0; i < loops.size(); ++i)
    per.push_back(span(streams[i], at[i], 30, 70) / 40);
  return per;
}

TEST(Fetch, OneThreadFetchesPerCycle) {
  TimingParams p;
  p.cores = 1;
  p.threads_per_core = 4;
  p.core.integer_pipes = 4;  // so that only fetch can bind
  // Each iteration of each thread needs one group: up to three threads fit in the three cycles
  // of a taken-branch redirect; four need four cycles of the shared port.
  EXPECT_EQ(sharedCore(p, {tiny(0x10000)}), (std::vector<Cycle>{3}));
  EXPECT_EQ(sharedCore(p, std::vector<Loop>(3, tiny(0x10000))), std::vector<Cycle>(3, 3));
  NodeTiming m(p);
  EXPECT_EQ(sharedCore(p, std::vector<Loop>(4, tiny(0x10000)), &m), std::vector<Cycle>(4, 4));
  EXPECT_GT(statsJson(m)["cores"][0]["fetch_port_waits"].get<u64>(), 100u);
}

TEST(Fetch, AThreadWithAnEmptyBufferWinsTheFetchPort) {
  TimingParams p;
  p.cores = 1;
  p.threads_per_core = 4;
  p.core.integer_pipes = 4;
  p.core.history_bits = 0;
  // Threads 1-3 keep the fetch port busy every cycle (each fetches a group every three cycles).
  // Thread 0's refetches after its mispredicts find its buffer empty and take the port in the
  // cycle they need it, so thread 0 runs exactly as fast as alone; the others wait instead.
  const Loop other = tiny(0x20100);  // its branch uses another counter than thread 0's
  NodeTiming m(p);
  const std::vector<Cycle> per = sharedCore(p, {alternating(), other, other, other}, &m);
  EXPECT_EQ(per[0], 18u);
  EXPECT_EQ(sharedCore(p, {alternating()}), (std::vector<Cycle>{18}));
  EXPECT_GT(statsJson(m)["cores"][0]["fetch_port_waits"].get<u64>(), 0u);
}

TEST(Fetch, EcallHoldsItsThreadThenRefetches) {
  for (u32 e : {16u, 30u}) {
    TimingParams p = oneThread();
    p.core.ecall_cycles = e;
    Loop l;
    l.body = {addi(5, 5, 1), kEcall, addi(6, 6, 1), bne(30, 0, -12)};
    // addi at t, ecall at t + 1; the refetch starts at t + 1 + E; the loop branch's redirect
    // brings the next iteration taken_branch_cycles after that, fetch_to_issue later.
    EXPECT_EQ(steadyPeriod(p, l), 1u + e + 3 + 6) << e;
  }
}

}  // namespace
}  // namespace hpm::timing::test
