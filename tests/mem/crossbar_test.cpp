// Unit tests of the crossbar and its shared L2 (src/mem/crossbar.cpp) through the interconnect's
// interface (src/mem/interconnect.h), with the private caches above it recorded: where a line
// comes from and when, the coherence a store's issue and an atomic need, the write-allocate of a
// drain, and the statistics' names.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "mem/crossbar.h"
#include "mem/interconnect.h"
#include "stats/stats.h"

namespace hpm::mem {
namespace {

using probe::Snoop;
using probe::TransactionType;

// The private caches above the interconnect: which (core, line) copies it removed.
struct Removed final : PrivateCaches {
  std::vector<std::pair<u32, u64>> copies;
  bool invalidateCore(u32 core, u64 line) override {
    copies.emplace_back(core, line);
    return true;
  }
};

MemParams twoCores() {
  MemParams p;  // bgq's L2: 16 slices, 128-byte lines, 82-cycle hits; DDR 350 cycles
  p.cores = 2;
  p.validate();
  return p;
}

u64 count(const Interconnect& ic, TransactionType t, Snoop s) {
  return ic.transactionCounts().n[static_cast<u32>(t)][static_cast<u32>(s)];
}

constexpr u64 kLine = 0x1000;  // a line number (128-byte lines)

TEST(CrossbarInterface, AReadMissIsServedByDdrThenTheSameLineHitsTheL2) {
  const MemParams p = twoCores();
  Removed l1s;
  const std::unique_ptr<Interconnect> ic = makeInterconnect(p, l1s);
  Level level = Level::kL1;
  EXPECT_EQ(ic->read(0, kLine, 1000, Request::kData, true, &level), 1000u + p.ddr.latency);
  EXPECT_EQ(level, Level::kDdr);
  EXPECT_EQ(count(*ic, TransactionType::kRead, Snoop::kMemory), 1u);
  EXPECT_EQ(count(*ic, TransactionType::kMemRead, Snoop::kNone), 1u);
  EXPECT_EQ(ic->read(0, kLine, 2000, Request::kData, true, &level), 2000u + p.l2.hit_latency);
  EXPECT_EQ(level, Level::kL2);
  EXPECT_EQ(ic->probeRead(1, kLine, 3000), 3000u + p.l2.hit_latency) << "another core's fetch";
  EXPECT_EQ(ic->probeRead(1, kLine + 1, 3000), 3000u + p.ddr.latency);
  EXPECT_TRUE(l1s.copies.empty()) << "reads remove no copy";
}

TEST(CrossbarInterface, AStoresIssueRemovesTheOtherSharersCopiesOnly) {
  Removed l1s;
  const std::unique_ptr<Interconnect> ic = makeInterconnect(twoCores(), l1s);
  Level level;
  ic->read(0, kLine, 100, Request::kData, true, &level);
  ic->read(1, kLine, 200, Request::kData, true, &level);
  ic->storeIssued(0, kLine);
  EXPECT_EQ(l1s.copies, (std::vector<std::pair<u32, u64>>{{1, kLine}}));
  EXPECT_EQ(count(*ic, TransactionType::kInvalidate, Snoop::kNone), 1u);
  ic->storeIssued(0, kLine);  // core 0 is now the only sharer: nothing to remove
  EXPECT_EQ(l1s.copies.size(), 1u);
}

TEST(CrossbarInterface, AnAtomicIsPerformedAtTheL2AndRemovesEveryCopy) {
  const MemParams p = twoCores();
  Removed l1s;
  const std::unique_ptr<Interconnect> ic = makeInterconnect(p, l1s);
  Level level;
  ic->read(0, kLine, 100, Request::kData, true, &level);
  ic->read(1, kLine, 200, Request::kData, true, &level);
  EXPECT_EQ(ic->own(1, kLine, 1000, true), 1000u + p.l2.hit_latency);
  std::sort(l1s.copies.begin(), l1s.copies.end());
  EXPECT_EQ(l1s.copies, (std::vector<std::pair<u32, u64>>{{0, kLine}, {1, kLine}}))
      << "the issuing core's copy too";
  EXPECT_EQ(count(*ic, TransactionType::kAtomic, Snoop::kL2), 1u);
}

TEST(CrossbarInterface, ADrainThatMissesAllocatesItsLineFromDdrAndWaitsForItsSlicesPort) {
  const MemParams p = twoCores();
  Removed l1s;
  const std::unique_ptr<Interconnect> ic = makeInterconnect(p, l1s);
  const Cycle start = ic->drainFree(0, kLine, 500);
  EXPECT_EQ(start, 500u) << "an idle slice";
  EXPECT_EQ(ic->drain(0, kLine, 8, start, true), start) << "done when the slice takes it";
  EXPECT_EQ(ic->drainFree(1, kLine, 500), 500u + p.l2.slice_busy_cycles) << "its port is taken";
  EXPECT_EQ(count(*ic, TransactionType::kWrite, Snoop::kMemory), 1u);
  EXPECT_EQ(count(*ic, TransactionType::kMemRead, Snoop::kNone), 1u) << "write-allocate";
  ic->drainCombined(0, kLine, 8);
  const auto& xbar = dynamic_cast<const Crossbar&>(*ic);
  EXPECT_EQ(xbar.sliceStats(xbar.sliceOf(kLine << 7)).bytes, 16u);
}

TEST(CrossbarInterface, ItsStatisticsAreTheL2SlicesAndDdrControllers) {
  Removed l1s;
  const std::unique_ptr<Interconnect> ic = makeInterconnect(twoCores(), l1s);
  stats::JsonWriter shared;
  ic->visitSharedStats(shared);
  EXPECT_EQ(shared.result().at("l2_slices").size(), 16u);
  EXPECT_EQ(shared.result().at("ddr_controllers").size(), 2u);
  EXPECT_TRUE(shared.result().contains("interconnect"));
  EXPECT_FALSE(shared.result().contains("bus"));
  stats::JsonWriter core;
  ic->visitCoreTraffic(0, core);
  for (const char* name : {"l2_reads", "l2_hits", "ddr_reads", "port_busy_cycles"}) {
    EXPECT_TRUE(core.result().contains(name)) << name;
  }
}

}  // namespace
}  // namespace hpm::mem
