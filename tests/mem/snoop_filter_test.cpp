// Blue Gene/P's snoop filter (mem/snoop_filter.h): conservative (a snoop for a line the caches
// hold always passes), and each of its events' rules.
#include "mem/snoop_filter.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <vector>

#include "mem/memory_system.h"

namespace hpm::mem {
namespace {

SnoopParams params(u32 entries = 4, u32 lines_per_entry = 4, u32 registers = 2) {
  SnoopParams p;
  p.filter = true;
  p.cache_entries = entries;
  p.lines_per_entry = lines_per_entry;
  p.stream_registers = registers;
  return p;
}

TEST(SnoopFilter, NeverRejectsASnoopForALineTheCachesHoldOverRandomSequences) {
  // A reference model of the caches: the lines held, each with the stamp filled() gave it. Random
  // fills, evictions and snoops (a snoop that passes removes the line, as the L1 would), over
  // small address ranges and small filters so that every mechanism (snoop-cache hits and
  // updates, register merges, wraps) is exercised.
  for (u32 seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    SnoopFilter f(params(1 + seed % 4, 1u << (seed % 3), 1 + seed % 3), 0, 3);
    std::map<u64, u64> held;  // line -> stamp
    const u64 range = 16 + 8 * (seed % 5);
    u64 passed_held = 0;
    for (u32 step = 0; step < 20000; ++step) {
      const u64 line = rng() % range + (seed % 2 ? 0 : 1000);
      switch (rng() % 4) {
        case 0:  // a fill (of a line not held: the caches hold one copy)
          if (!held.contains(line)) held[line] = f.filled(line);
          break;
        case 1:  // an eviction
          if (auto it = held.find(line); it != held.end()) {
            f.removed(it->second);
            held.erase(it);
          }
          break;
        default: {  // a snoop
          const bool holds = held.contains(line);
          const bool passes = f.snoop(static_cast<u32>(rng() % 3), line);
          if (holds) {
            ASSERT_TRUE(passes) << "seed " << seed << " step " << step << " line " << line;
            ++passed_held;
            f.removed(held.at(line));
            held.erase(line);
          }
        }
      }
    }
    EXPECT_GT(passed_held, 0u);
    EXPECT_GT(f.wraps(), 0u) << "seed " << seed << ": no wrap, the history set went untested";
    u64 rejected = 0;
    for (u32 p = 0; p < 3; ++p) rejected += f.portStats(p).rejected;
    EXPECT_GT(rejected, 0u) << "seed " << seed << ": the filter rejected nothing";
  }
}

TEST(SnoopFilter, AnEmptyFilterRejectsEverySnoopByItsStreamRegisters) {
  SnoopFilter f(params(), 0, 3);
  EXPECT_FALSE(f.snoop(1, 42));
  const SnoopPortStats& s = f.portStats(1);
  EXPECT_EQ(s.requests, 1u);
  EXPECT_EQ(s.register_rejected, 1u);
  EXPECT_EQ(s.rejected, 1u);
  EXPECT_EQ(s.cache_rejected, 0u);
  EXPECT_EQ(s.both_rejected, 0u);
  EXPECT_EQ(f.portStats(0).requests, 0u) << "each port counts its own source's snoops";
}

TEST(SnoopFilter, ARepeatedSnoopOfOnePortIsRejectedByItsSnoopCacheUntilTheLineIsLoaded) {
  SnoopFilter f(params(), 0, 3);
  f.filled(8);  // the active set covers line 8
  EXPECT_TRUE(f.snoop(0, 8)) << "the registers cover it and the snoop cache has not seen it";
  EXPECT_FALSE(f.snoop(0, 8)) << "the port's snoop cache now records it";
  EXPECT_EQ(f.portStats(0).cache_rejected, 1u);
  EXPECT_EQ(f.portStats(0).active_hits, 2u) << "the registers look at every snoop";
  EXPECT_EQ(f.portStats(0).both_rejected, 0u);
  EXPECT_TRUE(f.snoop(1, 8)) << "another port's snoop cache is its own";
  f.filled(8);  // loading the line clears it from every port's snoop cache
  EXPECT_TRUE(f.snoop(0, 8));
}

TEST(SnoopFilter, ASnoopInAnEntrysBlockUpdatesTheEntryAndOneOutsideTakesANewOne) {
  SnoopFilter f(params(4, 4, 2), 0, 3);
  f.snoop(2, 16);  // a new entry for lines 16-19
  EXPECT_EQ(f.portStats(2).cache_updates, 0u);
  f.snoop(2, 17);  // the same block: the entry records line 17 too
  EXPECT_EQ(f.portStats(2).cache_updates, 1u);
  f.snoop(2, 20);  // the next block: a new entry
  EXPECT_EQ(f.portStats(2).cache_updates, 1u);
  EXPECT_FALSE(f.snoop(2, 17));
  EXPECT_EQ(f.portStats(2).cache_rejected, 1u);
  EXPECT_EQ(f.portStats(2).both_rejected, 1u) << "no register covers 17 either";
  EXPECT_EQ(f.portStats(2).rejected, 4u);
}

TEST(SnoopFilter, AWrapMovesTheActiveSetToTheHistorySetOnceTheLinesBeforeItAreGone) {
  SnoopFilter f(params(4, 1, 1), 0, 1);
  const u64 a = f.filled(0b1000);
  EXPECT_TRUE(f.snoop(0, 0b1000));
  EXPECT_EQ(f.portStats(0).active_hits, 1u);
  const u64 b = f.filled(0b1001);  // the one register grows to cover 0b100x
  f.removed(a);                    // no line of an earlier set remains: a wrap
  EXPECT_EQ(f.wraps(), 1u);
  EXPECT_TRUE(f.snoop(0, 0b1001)) << "the history set covers the line still held";
  EXPECT_EQ(f.portStats(0).history_hits, 1u);
  EXPECT_EQ(f.portStats(0).active_hits, 1u) << "the active set restarted empty";
  const u64 c = f.filled(0b110000);
  f.removed(c);  // a line of the active set: the history set's line is still held, no wrap
  EXPECT_EQ(f.wraps(), 1u);
  f.filled(0b110000);
  f.removed(b);  // the last line of the history set goes: a wrap
  EXPECT_EQ(f.wraps(), 2u);
  EXPECT_FALSE(f.snoop(0, 0b1010));
  EXPECT_EQ(f.portStats(0).register_rejected, 1u) << "the old history set is gone";
}

TEST(MemorySystemSnoopFilters, ARemoteStoreSnoopsEveryOtherCoreOnItsSourcesPort) {
  MemParams p;
  p.cores = 4;
  p.l2.slices = 2;
  p.l2.size_kib = 256;
  p.snoop = params(8, 4, 4);
  MemorySystem m(p);
  m.load(2, 0x10000, 0, 0);  // core 2 holds the line
  m.storeIssue(0, 0x10000, 100);
  // Core 0 is port 0 of cores 1, 2 and 3.
  for (u32 c = 1; c < 4; ++c) {
    EXPECT_EQ(m.snoopFilter(c).portStats(0).requests, 1u) << "core " << c;
  }
  EXPECT_EQ(m.snoopFilter(2).portStats(0).rejected, 0u) << "core 2 holds it: the snoop passes";
  EXPECT_EQ(m.snoopFilter(1).portStats(0).register_rejected, 1u) << "core 1 never loaded";
  EXPECT_EQ(m.l1dStats(2).invalidations, 1u);
  m.storeIssue(3, 0x10000, 200);  // core 3 is port 2 of core 0, 1 and 2
  EXPECT_EQ(m.snoopFilter(2).portStats(2).requests, 1u);
  EXPECT_EQ(m.snoopFilter(0).portStats(2).requests, 1u);
  EXPECT_EQ(m.snoopFilter(3).portStats(0).requests, 1u) << "core 0 is port 0 of core 3";
}

TEST(MemorySystemSnoopFilters, NoStoreOrAtomicIsRejectedByACoreWhoseL1dHoldsItsLine) {
  // The memory system's filters against its own caches: random loads, stores and atomics of
  // four cores over a few lines, with small L1s and L1Ps (evictions, wraps); before each store
  // or atomic, the cores whose L1D holds a piece of its line must see its snoop pass.
  MemParams p;
  p.cores = 4;
  p.l1d.size_kib = 1;
  p.l1d.ways = 2;
  p.l1p.entries = 4;
  p.l2.slices = 2;
  p.l2.size_kib = 64;
  p.snoop = params(4, 2, 2);
  MemorySystem m(p);
  std::mt19937_64 rng(7);
  const u32 pieces = p.lineBytes() / p.l1d.line_bytes;
  u64 held_snoops = 0;
  Cycle now = 0;
  for (u32 step = 0; step < 20000; ++step) {
    const u32 core = static_cast<u32>(rng() % 4);
    const u64 addr = 0x100000 + (rng() % 48) * p.l1d.line_bytes;
    now += 1 + rng() % 3;
    const u32 kind = static_cast<u32>(rng() % 8);
    if (kind < 5) {
      m.load(core, addr, now, now);
      continue;
    }
    const u64 line_addr = addr & ~u64{p.lineBytes() - 1};
    std::vector<u64> rejected(4, 0);
    std::vector<bool> holds(4, false);
    for (u32 c = 0; c < 4; ++c) {
      if (c == core) continue;
      const u32 port = core < c ? core : core - 1;
      rejected[c] = m.snoopFilter(c).portStats(port).rejected;
      for (u32 k = 0; k < pieces; ++k)
        holds[c] = holds[c] || m.l1dPresent(c, line_addr + k * p.l1d.line_bytes);
    }
    if (kind < 7) {
      m.storeIssue(core, addr, now);
    } else {
      m.atomic(core, addr, now, now);
    }
    for (u32 c = 0; c < 4; ++c) {
      if (!holds[c]) continue;
      ++held_snoops;
      const u32 port = core < c ? core : core - 1;
      ASSERT_EQ(m.snoopFilter(c).portStats(port).rejected, rejected[c])
          << "step " << step << ": core " << c << " holds the line";
      EXPECT_FALSE(m.l1dPresent(c, addr)) << "the store removed core " << c << "'s copy";
    }
  }
  EXPECT_GT(held_snoops, 1000u);
  u64 wraps = 0, rejected = 0;
  for (u32 c = 0; c < 4; ++c) {
    wraps += m.snoopFilter(c).wraps();
    for (u32 port = 0; port < 3; ++port) rejected += m.snoopFilter(c).portStats(port).rejected;
  }
  EXPECT_GT(wraps, 0u);
  EXPECT_GT(rejected, 0u);
}

TEST(MemorySystemSnoopFilters, ASnoopThatPassesTakesTheL1ACycleFromTheCoresLoads) {
  MemParams p;
  p.cores = 2;
  p.l2.slices = 2;
  p.l2.size_kib = 256;
  p.snoop = params();
  MemorySystem m(p);
  m.load(1, 0x20000, 0, 0);
  m.load(1, 0x30000, 0, 0);
  const Cycle hit = m.load(1, 0x30000, 1000, 1000).ready - 1000;
  m.storeIssue(0, 0x20000, 2000);  // passes core 1's filter at cycle 2000
  EXPECT_EQ(m.load(1, 0x30000, 2000, 2000).ready, 2000 + p.snoop.l1_cycles + hit);
  EXPECT_EQ(m.load(1, 0x30000, 2005, 2005).ready, 2005 + hit) << "one cycle only";
}

TEST(MemorySystemSnoopFilters, WithoutSnoopFiltersNothingChanges) {
  MemParams p;
  p.cores = 2;
  p.l2.slices = 2;
  p.l2.size_kib = 256;
  MemorySystem m(p);
  m.load(1, 0x30000, 0, 0);
  const Cycle hit = m.load(1, 0x30000, 1000, 1000).ready - 1000;
  m.storeIssue(0, 0x30000, 2000);
  m.load(1, 0x40000, 0, 0);
  EXPECT_EQ(m.load(1, 0x40000, 2000, 2000).ready, 2000 + hit);
  EXPECT_EQ(p.snoopPorts(), 0u);
}

}  // namespace
}  // namespace hpm::mem
