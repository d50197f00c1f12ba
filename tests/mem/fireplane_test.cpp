// Unit tests of the Fireplane bus (src/mem/fireplane.cpp, docs/sunfire.md): the MOESI
// transitions and the transactions they put on the bus, who supplies a line and when, the
// writeback of an evicted dirty line, and the placement of pages on boards.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "base/error.h"
#include "mem/fireplane.h"
#include "mem/memory_system.h"
#include "stats/probe.h"
#include "stats/stats.h"

namespace hpm::mem {
namespace {

using probe::Snoop;
using probe::TransactionType;

// Four CPUs on two boards (0, 1 on board 0; 2, 3 on board 1), tiny direct-mapped-ish caches.
MemParams fireplane(Placement placement = Placement::kFirstTouch) {
  MemParams p;
  p.cores = 4;
  p.interconnect = probe::Interconnect::kFireplane;
  p.fireplane.boards = 2;
  p.fireplane.placement = placement;
  p.l1p.prefetch = false;
  p.fireplane.ecache_kib = 16;
  p.fireplane.ecache_ways = 2;
  p.fireplane.line_bytes = 64;
  p.fireplane.ecache_hit_latency = 15;
  p.ddr.controllers = 1;
  p.ddr.latency = 200;
  p.fireplane.cache_to_cache_latency = 300;
  p.fireplane.remote_latency = 40;
  return p;
}

// The Fireplane bus below m's private caches (its statistics are the bus's own).
const Fireplane& fireplaneOf(const MemorySystem& m) {
  return dynamic_cast<const Fireplane&>(m.interconnect());
}

u64 count(const MemorySystem& m, TransactionType t, Snoop s) {
  return m.transactionCounts().n[static_cast<u32>(t)][static_cast<u32>(s)];
}

TEST(Fireplane, ReadsSharesAndOwnershipFollowMoesiAndSayWhoSuppliedTheLine) {
  MemorySystem m(fireplane());
  constexpr u64 a = 0x10000;
  // CPU 0 reads: nobody has the line, memory supplies it, CPU 0 holds it Exclusive.
  const LoadResult r0 = m.load(0, a, 1000, 0);
  EXPECT_EQ(count(m, TransactionType::kReadToShare, Snoop::kMemory), 1u);
  EXPECT_EQ(r0.level, Level::kDdr);
  EXPECT_EQ(r0.ready, 1000 + 200u) << "an uncontended local memory read";
  // CPU 2 (board 1) reads: CPU 0's clean copy becomes Shared, memory (board 0: remote) supplies.
  const LoadResult r2 = m.load(2, a, 2000, 0);
  EXPECT_EQ(count(m, TransactionType::kReadToShare, Snoop::kShared), 1u);
  EXPECT_EQ(r2.ready, 2000 + 200u + 40u) << "a remote memory read adds remote_latency";
  EXPECT_EQ(fireplaneOf(m).busStats().memory_local, 1u);
  EXPECT_EQ(fireplaneOf(m).busStats().memory_remote, 1u);
  // CPU 2 stores: its line is Shared, so it upgrades (no data) and CPU 0's copy goes.
  const Cycle done = m.drain(2, a, 8, m.drainFree(2, a, 3000));
  EXPECT_EQ(count(m, TransactionType::kReadToOwnUpgrade, Snoop::kNone), 1u);
  EXPECT_GE(done, 3000u + 8u) << "the store is done once the upgrade held the bus";
  EXPECT_EQ(fireplaneOf(m).busStats().snoop_invalidations, 1u);
  EXPECT_FALSE(m.l1dPresent(0, a)) << "the invalidation took CPU 0's L1 copy too";
  // CPU 0 reads again: CPU 2 holds it Modified and supplies it (cache to cache), keeping it Owned.
  const LoadResult again = m.load(0, a, 4000, 0);
  EXPECT_EQ(count(m, TransactionType::kReadToShare, Snoop::kModified), 1u);
  EXPECT_EQ(again.level, Level::kPeer);
  EXPECT_EQ(again.ready, 4000 + 300u);
  // CPU 3 reads: CPU 2's Owned copy supplies it again.
  m.load(3, a, 5000, 0);
  EXPECT_EQ(count(m, TransactionType::kReadToShare, Snoop::kOwned), 1u);
  // CPU 1 performs an atomic: a ReadToOwn the Owned copy answers; every other copy goes.
  m.atomic(1, a, 6000, 0);
  EXPECT_EQ(count(m, TransactionType::kReadToOwn, Snoop::kOwned), 1u);
  EXPECT_EQ(fireplaneOf(m).busStats().snoop_invalidations, 1u + 3u);
  EXPECT_EQ(fireplaneOf(m).busStats().cache_to_cache, 3u);
  // CPU 1 holds it Modified: its stores need no transaction.
  const u64 before = m.transactionCounts().count(~u32{0}, ~u32{0});
  m.drain(1, a, 8, m.drainFree(1, a, 7000));
  EXPECT_EQ(m.transactionCounts().count(~u32{0}, ~u32{0}), before);
}

// Keeps the transactions the bus carries.
struct Recorder : probe::Sink {
  std::vector<probe::Transaction> seen;
  void pulse(u32, Cycle, u64) override {}
  void level(u32, Cycle, Cycle) override {}
  void transaction(const probe::Transaction& t) override { seen.push_back(t); }
};

TEST(Fireplane, AnEvictedModifiedLineIsWrittenBackToItsHomeBoardWithItsPhysicalAddress) {
  const MemParams p = fireplane();
  MemorySystem m(p);
  probe::Topology topology;
  topology.cores = topology.threads = topology.slices = p.cores;
  topology.controllers = p.controllerInstances();
  probe::Bus bus(topology, 1);
  Recorder recorder;
  bus.setSink(&recorder);
  bus.setTransactionsWanted(true);
  m.setProbe(&bus);
  constexpr u64 a = 0x20000;
  m.load(0, a, 0, 0);  // place the page on board 0
  m.drain(0, a, 8, m.drainFree(0, a, 10));
  const u64 pa = *m.frames()->peek(a);
  // Two more lines of the same (physically indexed) set of the 2-way E$ evict it.
  const u32 block = m.l2Block(pa);
  u64 evictors = 0;
  for (u64 va = 0x100000; evictors < 2; va += 64) {
    m.load(0, va, 100, 0);
    if (m.l2Block(*m.frames()->peek(va)) == block) ++evictors;
  }
  EXPECT_EQ(count(m, TransactionType::kWriteBack, Snoop::kNone), 1u);
  EXPECT_EQ(fireplaneOf(m).busStats().writebacks_local, 1u);
  std::vector<probe::Transaction> writebacks;
  for (const probe::Transaction& t : recorder.seen) {
    if (t.type == TransactionType::kWriteBack) writebacks.push_back(t);
  }
  ASSERT_EQ(writebacks.size(), 1u);
  EXPECT_EQ(writebacks[0].address, pa & ~u64{63}) << "the evicted line's physical address";
  EXPECT_EQ(writebacks[0].source, 0u);
  EXPECT_EQ(writebacks[0].supplier, probe::kNoSupplier);
  // A line CPU 0 holds Modified, read by CPU 1: CPU 0 supplies it, and the record says so.
  m.drain(0, 0x90000, 8, m.drainFree(0, 0x90000, 200));
  m.setRequesterThread(1);
  m.load(1, 0x90000, 300, 0);
  EXPECT_EQ(recorder.seen.back().type, TransactionType::kReadToShare);
  EXPECT_EQ(recorder.seen.back().snoop, Snoop::kModified);
  EXPECT_EQ(recorder.seen.back().supplier, 0u);
  EXPECT_EQ(recorder.seen.back().source, 1u);
  EXPECT_EQ(fireplaneOf(m).sliceStats(0).writebacks, 1u);
}

// Two CPUs of board 0 miss at the same cycle: the address bus takes their requests 8 cycles
// apart, and the second fill waits for the board's data port, held 16 cycles by the first. CPUs
// on two boards do not share a port.
TEST(Fireplane, FillsToOneBoardShareItsDataPort) {
  const auto second = [](u32 other_cpu, u32 data_cycles) {
    MemParams p = fireplane();
    p.fireplane.data_cycles = data_cycles;
    p.fireplane.address_cycles = 8;
    p.ddr.bytes_per_cycle = 64;  // one cycle per line: the controllers do not queue
    MemorySystem m(p);
    const Cycle a = m.load(0, 0x100000, 1000, 0).ready;
    const Cycle b = m.load(other_cpu, 0x200000, 1000, 0).ready;
    EXPECT_EQ(a, 1000u + 200);
    return b - a;
  };
  EXPECT_EQ(second(1, 16), 16u) << "board 0's port: the second fill follows the first";
  EXPECT_EQ(second(1, 0), 8u) << "no data-path contention: only the address bus's 8 cycles";
  EXPECT_EQ(second(2, 16), 8u) << "board 1's own port";
}

TEST(Fireplane, InstructionFetchesAskWithReadToShareAlwaysAndKeepTheLineShared) {
  MemorySystem m(fireplane());
  m.fetch(0, 0x30000, 0);
  EXPECT_EQ(count(m, TransactionType::kReadToShareAlways, Snoop::kMemory), 1u);
  // A store to that line later needs an upgrade: it was never Exclusive.
  m.drain(0, 0x30000, 8, m.drainFree(0, 0x30000, 1000));
  EXPECT_EQ(count(m, TransactionType::kReadToOwnUpgrade, Snoop::kNone), 1u);
}

TEST(Fireplane, PagesArePlacedOnBoardsByThePolicyWithFortyTwoBitAddresses) {
  {
    MemorySystem m(fireplane(Placement::kFirstTouch));
    m.load(3, 0x40000, 0, 0);  // CPU 3: board 1
    m.load(0, 0x41000, 0, 0);  // CPU 0: board 0
    EXPECT_EQ(FrameTable::homeBoard(*m.frames()->peek(0x40000)), 1u);
    EXPECT_EQ(FrameTable::homeBoard(*m.frames()->peek(0x41000)), 0u);
    EXPECT_EQ(*m.frames()->peek(0x40abc) & 0xfff, 0xabcu) << "the offset in the page stays";
    m.load(0, 0x40008, 10, 0);
    EXPECT_EQ(FrameTable::homeBoard(*m.frames()->peek(0x40000)), 1u) << "placed once";
    EXPECT_FALSE(m.frames()->peek(0x50000)) << "never touched: no frame";
  }
  {
    MemorySystem m(fireplane(Placement::kInterleave));
    for (u64 page = 0; page < 8; ++page) m.load(0, page << 12, 0, 0);
    for (u64 page = 0; page < 8; ++page) {
      const u64 pa = *m.frames()->peek(page << 12);
      EXPECT_EQ(FrameTable::homeBoard(pa), page % 2);
      EXPECT_LT(pa, u64{1} << kPhysicalAddressBits);
    }
    EXPECT_EQ(m.frames()->pagesByBoard(), (std::vector<u64>{4, 4}));
  }
  {
    MemParams p = fireplane(Placement::kOneBoard);
    p.fireplane.home_board = 1;
    MemorySystem m(p);
    m.load(0, 0x1000, 0, 0);
    m.load(1, 0x2000, 0, 0);
    EXPECT_EQ(m.frames()->pagesByBoard(), (std::vector<u64>{0, 2}));
  }
}

TEST(Fireplane, ParametersThatCannotDescribeABusAreRefusedByName) {
  MemParams p = fireplane();
  p.fireplane.boards = 5;
  EXPECT_THROW(p.validate(), Error) << "5 boards for 4 CPUs";
  p = fireplane();
  p.fireplane.home_board = 2;
  try {
    p.validate();
    FAIL() << "home_board 2 of 2 boards";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("home_board"), std::string::npos) << e.what();
  }
}

// ---- Through the interconnect's interface (src/mem/interconnect.h) ----

// The private caches above the interconnect: which (core, line) copies it removed.
struct Removed final : PrivateCaches {
  std::vector<std::pair<u32, u64>> copies;
  bool invalidateCore(u32 core, u64 line) override {
    copies.emplace_back(core, line);
    return true;
  }
};

u64 count(const Interconnect& ic, TransactionType t, Snoop s) {
  return ic.transactionCounts().n[static_cast<u32>(t)][static_cast<u32>(s)];
}

TEST(FireplaneInterface, ReadsAndOwnershipRequestsSnoopTheOtherCachesAndRemoveTheirCopies) {
  MemParams p = fireplane();
  p.validate();
  Removed l1s;
  const std::unique_ptr<Interconnect> ic = makeInterconnect(p, l1s);
  constexpr u64 kLine = 0x100;  // physical line 0x4000: board 0's memory
  Level level = Level::kL1;
  EXPECT_EQ(ic->read(0, kLine, 1000, Request::kData, true, &level), 1000u + 200u);
  EXPECT_EQ(level, Level::kDdr);
  ic->read(1, kLine, 2000, Request::kData, true, &level);
  EXPECT_EQ(count(*ic, TransactionType::kReadToShare, Snoop::kShared), 1u);
  ic->storeIssued(1, kLine);
  EXPECT_TRUE(l1s.copies.empty()) << "a store's issue needs nothing: its drain owns the line";
  EXPECT_EQ(ic->drainFree(1, kLine, 3000), 3000u) << "CPU 1's own E$";
  ic->drain(1, kLine, 8, 3000, true);
  EXPECT_EQ(count(*ic, TransactionType::kReadToOwnUpgrade, Snoop::kNone), 1u);
  EXPECT_EQ(l1s.copies, (std::vector<std::pair<u32, u64>>{{0, kLine}}));
  EXPECT_EQ(ic->probeRead(0, kLine, 4000), 4000u + 300u) << "CPU 1 holds it Modified";
  EXPECT_EQ(ic->read(0, kLine, 4000, Request::kData, true, &level), 4000u + 300u);
  EXPECT_EQ(level, Level::kPeer);
  l1s.copies.clear();
  ic->own(2, kLine, 5000, true);
  EXPECT_EQ(count(*ic, TransactionType::kReadToOwn, Snoop::kOwned), 1u);
  std::sort(l1s.copies.begin(), l1s.copies.end());
  EXPECT_EQ(l1s.copies, (std::vector<std::pair<u32, u64>>{{0, kLine}, {1, kLine}, {2, kLine}}))
      << "the other copies, and the atomic's own CPU's L1 copies";
}

TEST(FireplaneInterface, ItsStatisticsAreTheExternalCachesMemoryAndBusNotL2Slices) {
  MemParams p = fireplane();
  p.validate();
  Removed l1s;
  const std::unique_ptr<Interconnect> ic = makeInterconnect(p, l1s);
  stats::JsonWriter shared;
  ic->visitSharedStats(shared);
  EXPECT_EQ(shared.result().at("ecaches").size(), 4u) << "one per CPU";
  EXPECT_EQ(shared.result().at("memory_controllers").size(), 2u) << "one per board";
  EXPECT_TRUE(shared.result().contains("bus"));
  EXPECT_FALSE(shared.result().contains("l2_slices"));
  stats::JsonWriter core;
  ic->visitCoreTraffic(0, core);
  for (const char* name : {"ecache_reads", "ecache_hits", "memory_reads"}) {
    EXPECT_TRUE(core.result().contains(name)) << name;
  }
  EXPECT_FALSE(core.result().contains("l2_reads"));
  EXPECT_FALSE(core.result().contains("port_busy_cycles")) << "no crossbar port";
}

}  // namespace
}  // namespace hpm::mem
