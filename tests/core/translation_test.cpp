// Address translation (docs/timing.md "Address translation"): the ERATs' round-robin replacement,
// the TLB's static fill, sets and LRU, and what an ERAT miss costs a fetch or an access.
#include "core/translation.h"
#include "tests/core/harness.h"

namespace hpm::timing::test {
namespace {

constexpr u32 kMiB = 20;  // log2 of a 1 MiB page

Page mib(u64 n) {
  return Page{n << kMiB, kMiB};
}

TEST(Erat, APageCoversEveryAddressOfItsAlignedRange) {
  const Page p = pageOf(0x1234567, 24);
  EXPECT_EQ(p.base, 0x1000000u);
  EXPECT_TRUE(p.contains(0x1000000));
  EXPECT_TRUE(p.contains(0x1ffffff));
  EXPECT_FALSE(p.contains(0x2000000));
  EXPECT_FALSE(Page{}.contains(0));  // no page holds nothing
}

TEST(Erat, FillsReplaceEntriesInTurnWhateverWasUsed) {
  Erat erat(4);
  for (u64 n = 0; n < 4; ++n) EXPECT_EQ(erat.fill(mib(n)).bits, 0u);  // empty entries first
  for (u64 n = 0; n < 4; ++n) EXPECT_NE(erat.find((n << kMiB) + 5), nullptr);
  // Using page 0 does not protect it: round robin replaces the oldest fill.
  ASSERT_NE(erat.find(0), nullptr);
  EXPECT_EQ(erat.fill(mib(4)), mib(0));
  EXPECT_EQ(erat.find(0), nullptr);
  EXPECT_EQ(erat.fill(mib(5)), mib(1));
  EXPECT_NE(erat.find(4 << kMiB), nullptr);
}

TEST(Tlb, APagesFirstReloadIsTheStaticFillsAndHits) {
  Tlb tlb(512, 4);
  EXPECT_EQ(tlb.probe(mib(3)), Tlb::Result::kHit);
  EXPECT_EQ(tlb.access(mib(3), 1), Tlb::Result::kHit);
  EXPECT_EQ(tlb.access(mib(3), 2), Tlb::Result::kHit);
}

TEST(Tlb, AFifthPageOfASetEvictsTheLeastRecentlyUsedWhichThenMisses) {
  Tlb tlb(8, 4);  // two sets: even and odd page numbers
  u64 stamp = 0;
  for (u64 n : {0, 2, 4, 6}) EXPECT_EQ(tlb.access(mib(n), ++stamp), Tlb::Result::kHit);
  EXPECT_EQ(tlb.access(mib(0), ++stamp), Tlb::Result::kHit);  // page 2 is now the oldest
  EXPECT_EQ(tlb.access(mib(1), ++stamp), Tlb::Result::kHit);  // the other set: no eviction
  EXPECT_EQ(tlb.access(mib(8), ++stamp), Tlb::Result::kHit);  // first written: evicts page 2
  EXPECT_EQ(tlb.probe(mib(2)), Tlb::Result::kMiss);
  EXPECT_EQ(tlb.probe(mib(0)), Tlb::Result::kHit);
  EXPECT_EQ(tlb.access(mib(2), ++stamp), Tlb::Result::kMiss);  // written again (evicts page 4)
  EXPECT_EQ(tlb.probe(mib(4)), Tlb::Result::kMiss);
}

TEST(Tlb, PagesOfDifferentSizesAreDifferentEntries) {
  Tlb tlb(512, 4);
  EXPECT_EQ(tlb.access(Page{0, 24}, 1), Tlb::Result::kHit);
  EXPECT_EQ(tlb.access(Page{0, kMiB}, 2), Tlb::Result::kHit);  // a first write, not a refill
}

// ---- the timing model ----

TimingParams translated() {
  TimingParams p = oneThread();
  p.core.ibuffer_entries = 16;
  p.translation.enabled = true;
  return p;
}

// One load at each address of `addrs` in turn (independent loads), then the loop branch.
Loop loads(std::vector<u64> addrs) {
  Loop l;
  for (std::size_t i = 0; i < addrs.size(); ++i) l.body.push_back(ld(5, 6, 0));
  l.body.push_back(bne(30, 0, -4 * static_cast<i32>(addrs.size())));
  l.addr = [addrs](u64, u32 i) { return addrs[i]; };
  return l;
}

nlohmann::json threadStats(const NodeTiming& m) {
  return statsJson(m)["cores"][0]["threads"][0];
}

TEST(Translation, OffCostsNothingAndCountsNothing) {
  TimingParams p = oneThread();
  p.core.ibuffer_entries = 16;
  Loop l = loads({0x800000, 0x900000, 0xa00000});
  l.iterations = 5;
  NodeTiming m(p);
  runOne(m, 0, unroll(l).steps);
  const nlohmann::json t = threadStats(m);
  EXPECT_FALSE(t.contains("translation"));
  EXPECT_EQ(t["stalls"]["derat_miss"].get<u64>(), 0u);
  EXPECT_EQ(t["stalls"]["ierat_miss"].get<u64>(), 0u);
}

TEST(Translation, EachNewDataPageCostsOneEratReloadAndThenNothing) {
  // Three loads on three 1 MiB pages, looped: the first iteration misses each page once.
  const TimingParams p = translated();
  const Loop l = loads({0x800000, 0x900008, 0xa00010});
  const Cycle with = steadyPeriod(p, l);
  TimingParams off = p;
  off.translation.enabled = false;
  EXPECT_EQ(with, steadyPeriod(off, l));  // in the steady state, no cost at all
  Loop once = l;
  once.iterations = 3;
  NodeTiming m(p);
  runOne(m, 0, unroll(once).steps);
  const nlohmann::json t = threadStats(m);
  EXPECT_EQ(t["translation"]["derat_misses"].get<u64>(), 3u);
  EXPECT_EQ(t["translation"]["tlb_hits_derat"].get<u64>(), 3u);
  EXPECT_EQ(t["translation"]["tlb_misses_derat"].get<u64>(), 0u);
  EXPECT_EQ(t["stalls"]["derat_miss"].get<u64>(), 3u * p.translation.erat_miss_cycles);
  EXPECT_EQ(t["translation"]["ierat_misses"].get<u64>(), 1u);                 // the code's one page
  EXPECT_EQ(statsJson(m)["cores"][0]["tlb_hits_first_size"].get<u64>(), 4u);  // all 1 MiB
}

TEST(Translation, MorePagesThanTheDeratHoldsMissEveryTimeRoundRobin) {
  // derat_entries + 1 pages cycled through: round robin always replaces the page needed next.
  TimingParams p = translated();
  p.translation.derat_entries = 4;
  std::vector<u64> addrs;
  for (u64 n = 0; n < 5; ++n) addrs.push_back(0x10000000 + (n << kMiB));
  Loop l = loads(addrs);
  l.iterations = 10;
  NodeTiming m(p);
  runOne(m, 0, unroll(l).steps);
  EXPECT_EQ(threadStats(m)["translation"]["derat_misses"].get<u64>(), 50u);
  // With four pages it holds them all: four misses.
  addrs.pop_back();
  l = loads(addrs);
  l.iterations = 10;
  NodeTiming m4(p);
  runOne(m4, 0, unroll(l).steps);
  EXPECT_EQ(threadStats(m4)["translation"]["derat_misses"].get<u64>(), 4u);
}

TEST(Translation, AnEvictedTlbPageCostsTheKernelsRefill) {
  // A one-entry TLB and one-entry D-ERAT: two pages alternate, and from the third access on each
  // reload finds its page evicted by the other (the code's page, in the I-ERAT, stays there).
  TimingParams p = translated();
  p.translation.derat_entries = 1;
  p.translation.tlb_entries = 1;
  p.translation.tlb_ways = 1;
  Loop l = loads({0x800000, 0x900000});
  l.iterations = 3;
  NodeTiming m(p);
  runOne(m, 0, unroll(l).steps);
  const nlohmann::json t = threadStats(m);
  // Each page's first reload is the static fill's (a hit); every later one finds it evicted.
  EXPECT_EQ(t["translation"]["derat_misses"].get<u64>(), 6u);
  EXPECT_EQ(t["translation"]["tlb_hits_derat"].get<u64>(), 2u);
  EXPECT_EQ(t["translation"]["tlb_misses_derat"].get<u64>(), 4u);
  EXPECT_EQ(t["stalls"]["derat_miss"].get<u64>(),
            6u * p.translation.erat_miss_cycles + 4u * p.translation.tlb_miss_cycles);
}

TEST(Translation, TheFetchOfACodePageTheIeratLacksWaitsForTheReload) {
  // The same straight-line code at two bases, a page apart: the second costs one I-ERAT reload
  // more than the first, charged to ierat_miss.
  TimingParams p = translated();
  Loop l;
  for (int i = 0; i < 8; ++i) l.body.push_back(addi(5, 5, 1));
  l.body.push_back(bne(30, 0, -32));
  l.iterations = 1;
  NodeTiming m(p);
  Stream a = unroll(l);
  l.base += u64{1} << kMiB;
  const Stream b = unroll(l);
  a.steps.insert(a.steps.end(), b.steps.begin(), b.steps.end());
  runOne(m, 0, a.steps);
  const nlohmann::json t = threadStats(m);
  EXPECT_EQ(t["translation"]["ierat_misses"].get<u64>(), 2u);
  EXPECT_EQ(t["stalls"]["ierat_miss"].get<u64>(), 2u * p.translation.erat_miss_cycles);
}

TEST(Translation, PagesComeFromThePageMapWhenOneIsGiven) {
  // A 16 MiB page holds all three loads' addresses: one reload; and it is not the size the TLB
  // searches first.
  TimingParams p = translated();
  Loop l = loads({0x1000000, 0x1400000, 0x1f00000});
  l.iterations = 2;
  NodeTiming m(p);
  m.setPageMap([](u64 addr) { return addr >= 0x1000000 ? 24u : 20u; });
  runOne(m, 0, unroll(l).steps);
  EXPECT_EQ(threadStats(m)["translation"]["derat_misses"].get<u64>(), 1u);
  EXPECT_EQ(statsJson(m)["cores"][0]["tlb_hits_first_size"].get<u64>(), 1u);  // the code's page
}

TEST(Translation, ThreadsOfACoreShareItsErats) {
  // Two threads load the same page: only the first misses.
  TimingParams p = translated();
  p.threads_per_core = 2;
  Loop l = loads({0x800000});
  l.iterations = 2;
  NodeTiming m(p);
  const Stream s = unroll(l);
  runMany(m, {0, 1}, {&s, &s});
  const nlohmann::json c = statsJson(m)["cores"][0];
  EXPECT_EQ(c["translation"]["derat_misses"].get<u64>(), 1u);
  EXPECT_EQ(c["translation"]["ierat_misses"].get<u64>(), 1u);
}

}  // namespace
}  // namespace hpm::timing::test
