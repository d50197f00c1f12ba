// The core's finer signals (docs/timing.md "Core signals"): each on a small instruction stream
// whose count follows by hand from the timing rules, and what the model publishes for each equal
// to its ground truth. Steady-state counts are taken as the difference of two runs that differ
// only by ten iterations, so that the cold caches and the predictor's training cancel out.
#include <map>

#include "stats/probe.h"
#include "tests/core/harness.h"

namespace hpm::timing::test {
namespace {

using probe::Event;

constexpr u32 fcvtLD(u32 rd, u32 rs1) {
  return rType(0x61, 2, rs1, 7, rd, 0x53);
}

// Sums what the bus delivers per input.
struct Totals final : probe::Sink {
  std::map<u32, u64> n;
  void pulse(u32 input, Cycle, u64 count) override { n[input] += count; }
  void level(u32 input, Cycle t0, Cycle t1) override { n[input] += t1 - t0; }
};

probe::Topology topologyOf(const TimingParams& p) {
  probe::Topology t;
  t.threads = p.cores * p.threads_per_core;
  t.cores = p.cores;
  t.slices = p.l2.slices;
  t.controllers = p.ddr.controllers;
  return t;
}

// Runs `l` for `iterations` on thread 0 with every core signal (and the stalls they split)
// published; checks that what the bus delivered for each equals its ground truth, and returns
// the ground truths.
std::map<Event, u64> run(const TimingParams& p, Loop l, u64 iterations) {
  l.iterations = iterations;
  NodeTiming m(p);
  probe::Bus bus(topologyOf(p), 1);
  Totals totals;
  bus.setSink(&totals);
  std::vector<Event> events = {Event::kStallDependency, Event::kStallPipeBusy,
                               Event::kStallIbufferEmpty};
  for (u32 e = static_cast<u32>(Event::kFetchSlots); e < probe::kEventCount; ++e) {
    if (probe::coreSignal(static_cast<Event>(e))) events.push_back(static_cast<Event>(e));
  }
  for (Event e : events) bus.setWanted(bus.input(e, 0), true);
  m.setProbe(&bus);
  const Stream s = unroll(l);
  runOne(m, 0, s.steps);
  std::map<Event, u64> out;
  for (Event e : events) {
    const std::optional<u64> truth = m.groundTruth(e, 0);
    EXPECT_TRUE(truth.has_value()) << probe::info(e).name;
    out[e] = truth.value_or(0);
    EXPECT_EQ(totals.n[bus.input(e, 0)], out[e]) << probe::info(e).name << " published";
  }
  // The splits add up to the stalls they split.
  EXPECT_EQ(out[Event::kStallDependencyXu] + out[Event::kStallDependencyAxu],
            out[Event::kStallDependency]);
  EXPECT_EQ(out[Event::kStallPipeBusyXu] + out[Event::kStallPipeBusyAxu],
            out[Event::kStallPipeBusy]);
  return out;
}

// What ten more iterations add to each signal.
std::map<Event, u64> tenIterations(const TimingParams& p, const Loop& l) {
  const std::map<Event, u64> a = run(p, l, 40);
  std::map<Event, u64> b = run(p, l, 50);
  for (auto& [e, n] : b) n -= a.at(e);
  return b;
}

TimingParams wide() {
  TimingParams p = oneThread();
  p.core.ibuffer_entries = 16;  // fetch never binds (pipeline_test.cpp)
  return p;
}

TEST(CoreSignals, DependencyStallsSplitByTheProducersPipe) {
  // fmul.d at T (latency 6); fcvt.l.d waits T+1..T+6 for f1: 5 AXU cycles; addi waits for x5,
  // which the AXU's fcvt writes at T+12: 5 more; mul issues at T+13 (x6 at T+13), its
  // dependent addi waits T+14..T+19: 5 XU cycles; the branch issues at T+20.
  Loop l;
  l.body = {fmulD(1, 1, 2), fcvtLD(5, 1),  addi(6, 5, 1),
            mul(7, 6, 6),   addi(8, 7, 1), bne(30, 0, -20)};
  const auto d = tenIterations(wide(), l);
  EXPECT_EQ(d.at(Event::kStallDependencyAxu), 10u * 10);
  EXPECT_EQ(d.at(Event::kStallDependencyXu), 10u * 5);
  EXPECT_EQ(d.at(Event::kStallFence), 0u);
}

TEST(CoreSignals, PipeStallsSplitByTheWaitingInstructionsPipe) {
  // fdiv.d at T holds the AXU 72 cycles: the independent fadd.d waits 71; div at T+73 holds the
  // XU 65 cycles: the independent addi waits 64. Each divide is busy its occupancy; the div
  // found the XU free (no collision).
  Loop l;
  l.body = {fdivD(1, 20, 21), faddD(2, 20, 21), div(5, 20, 21), addi(6, 20, 1), bne(30, 0, -16)};
  const auto d = tenIterations(wide(), l);
  EXPECT_EQ(d.at(Event::kStallPipeBusyAxu), 10u * 71);
  EXPECT_EQ(d.at(Event::kStallPipeBusyXu), 10u * 64);
  EXPECT_EQ(d.at(Event::kFpDivSqrtBusy), 10u * 72);
  EXPECT_EQ(d.at(Event::kMulDivBusy), 10u * 65);
  EXPECT_EQ(d.at(Event::kMulDivCollisions), 0u);
}

TEST(CoreSignals, ADivideWaitingForAnotherCollides) {
  // Eight independent divides: each after the first waits for the one before (occupancy 65);
  // the loop branch waits for the last, and the next iteration's first divide waits only for
  // the branch's cycle: seven collisions an iteration, 8 x 65 busy cycles.
  Loop l;
  for (u32 k = 0; k < 8; ++k) l.body.push_back(div(5 + k, 20, 21));
  l.body.push_back(bne(30, 0, -32));
  const auto d = tenIterations(wide(), l);
  EXPECT_EQ(d.at(Event::kMulDivCollisions), 10u * 7);
  EXPECT_EQ(d.at(Event::kMulDivBusy), 10u * 8 * 65);
}

TEST(CoreSignals, AFenceWaitsForTheThreadsLoad) {
  // The load hits the L1D (6 cycles): the fence, a cycle after it, waits 5.
  Loop l;
  l.body = {ld(5, 20, 0), kFence, bne(30, 0, -8)};
  const auto d = tenIterations(wide(), l);
  EXPECT_EQ(d.at(Event::kStallFence), 10u * 5);
  EXPECT_EQ(d.at(Event::kStallDependencyXu), 10u * 5);
}

TEST(CoreSignals, AOneGroupLoopEmptiesTheBufferOnceAnIteration) {
  // A two-instruction loop in one group: a group every taken_branch_cycles (3), of 4 slots; the
  // addi waits the cycle the pair leaves free.
  TimingParams p = oneThread();
  Loop l;
  l.body = {addi(5, 5, 1), bne(30, 0, -4)};
  const auto d = tenIterations(p, l);
  EXPECT_EQ(d.at(Event::kIbufferEmpties), 10u);
  EXPECT_EQ(d.at(Event::kStallIbufferEmpty), 10u * (p.core.taken_branch_cycles - 2));
  EXPECT_EQ(d.at(Event::kFetchSlots), 10u * 4);
  EXPECT_EQ(d.at(Event::kPipelineFlushes), 0u);
}

TEST(CoreSignals, AnEcallRefetchesAfterIt) {
  Loop l;
  l.body = {addi(5, 5, 1), kEcall, bne(30, 0, -8)};
  const auto d = tenIterations(oneThread(), l);
  EXPECT_EQ(d.at(Event::kPipelineFlushes), 10u);
}

TEST(CoreSignals, StoresThatFindTheStoreQueueFullCountOncePerStall) {
  // Two store-queue entries leaving every store_drain_cycles (2), eight stores an iteration to
  // blocks write combining cannot join: a store issues every 2 cycles, each waiting a cycle for
  // an entry but the first of an iteration, whose wait the loop branch's cycle fills: seven.
  TimingParams p = wide();
  p.core.store_queue_entries = 2;
  Loop l;
  for (u32 k = 0; k < 8; ++k) l.body.push_back(sd(5, 20, 0));
  l.body.push_back(bne(30, 0, -32));
  l.addr = [](u64 iter, u32 k) { return 0x800000 + 64 * (iter * 8 + k); };
  const auto d = tenIterations(p, l);
  EXPECT_EQ(d.at(Event::kSqFullStalls), 10u * 7);
}

TEST(CoreSignals, LoadMissesThatFindTheLoadMissQueueFullCountOncePerStall) {
  // Two load-miss-queue entries; eight loads an iteration, each to a new line that the stream
  // prefetcher has brought into the L1P in time, so each holds its entry l1p.hit_latency (24)
  // cycles: the loads issue in pairs 24 cycles apart, the first of each pair waiting for the
  // entry of the pair before, the second finding the other one free: four an iteration.
  TimingParams p = wide();
  p.core.load_miss_queue_entries = 2;
  Loop l;
  for (u32 k = 0; k < 8; ++k) l.body.push_back(ld(5 + k, 20, 0));
  l.body.push_back(bne(30, 0, -32));
  l.addr = [](u64 iter, u32 k) { return 0x800000 + 64 * (iter * 8 + k); };
  const auto d = tenIterations(p, l);
  EXPECT_EQ(d.at(Event::kLmqFullStalls), 10u * 4);
}

TEST(CoreSignals, ALoadToALineStillFillingHitsThePendingMiss) {
  // The first load misses a new line each iteration; the second, to the same line a cycle
  // later, finds it in the L1D still being filled.
  Loop l;
  l.body = {ld(5, 20, 0), ld(6, 20, 8), bne(30, 0, -8)};
  l.addr = [](u64 iter, u32 k) { return 0x800000 + 64 * iter + 8 * k; };
  const auto d = tenIterations(wide(), l);
  EXPECT_EQ(d.at(Event::kLoadHitsPendingMiss), 10u);
}

TEST(CoreSignals, ARunningThreadsCyclesAreItsClockLessItsIdleCycles) {
  NodeTiming m(oneThread());
  Loop l;
  l.body = {addi(5, 5, 1), bne(30, 0, -4)};
  l.iterations = 5;
  const Stream s = unroll(l);
  runOne(m, 0, s.steps);
  const Cycle busy = m.hartTime(0);
  m.idleUntil(0, busy + 100);
  runOne(m, 0, s.steps);
  EXPECT_EQ(m.groundTruth(Event::kThreadRunning, 0), m.hartTime(0) - 100);
  EXPECT_EQ(m.groundTruth(Event::kStallIdle, 0), 100u);
}

}  // namespace
}  // namespace hpm::timing::test
