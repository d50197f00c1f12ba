// Unit tests of Blue Gene/P's L3 banks (src/mem/l3.h) through the crossbar: which port and
// directory each request takes, and that collisions and waits come from two requests wanting
// one resource in the same cycles.
#include <gtest/gtest.h>

#include <memory>

#include "mem/crossbar.h"

namespace hpm::mem {
namespace {

struct NoCopies final : PrivateCaches {
  bool invalidateCore(u32, u64) override { return false; }
};

// bgp's shape: four cores, two banks of 128-byte lines, the L3's defaults.
MemParams bgpLike() {
  MemParams p;
  p.cores = 4;
  p.l2.size_kib = 8192;
  p.l2.slices = 2;
  p.l2.ways = 8;
  p.l2.hit_latency = 50;
  p.l2.slice_bytes_per_cycle = 0;
  p.l2.core_port_bytes_per_cycle = 0;
  p.l3.banks = true;
  p.validate();
  return p;
}

// Two lines of bank `bank` and directory `dir`, from line `from` on.
u64 lineOf(const Crossbar& x, const L3Banks& l3, u32 bank, u32 dir, u64 from) {
  u64 line = from;
  while (x.sliceOf(line << 7) != bank || l3.directoryOf(line) != dir) ++line;
  return line;
}

TEST(L3Banks, EachCoresReadsGoToItsPortAndTheirLinesDirectory) {
  const MemParams p = bgpLike();
  NoCopies l1s;
  Crossbar x(p, l1s);
  const L3Banks& l3 = *x.l3();
  Level level;
  const u64 a = lineOf(x, l3, 0, 1, 0x1000);
  x.read(0, a, 1000, Request::kData, true, &level);      // RD0, a miss
  x.read(3, a, 2000, Request::kPrefetch, true, &level);  // RD1, a burst that hits
  const L3BankStats& s = l3.stats(0);
  EXPECT_EQ(s.read[0].single_lines, 1u);
  EXPECT_EQ(s.read[0].misses[1], 1u);
  EXPECT_EQ(s.read[1].bursts, 1u);
  EXPECT_EQ(s.read[1].hits[1], 1u);
  EXPECT_EQ(s.lookups[1], 2u);
  EXPECT_EQ(s.lookups[0], 0u);
  // The miss allocated a miss-handler entry and fetched its line, and the bank prefetched the
  // next line into its own bank's eDRAM.
  const u32 next_bank = x.sliceOf((a + 1) << 7);
  EXPECT_EQ(s.allocations, 1u + (next_bank == 0 ? 1 : 0));
  EXPECT_EQ(l3.stats(next_bank).edram_prefetches, 1u);
  EXPECT_EQ(l3.stats(0).ddr_fetches + l3.stats(1).ddr_fetches, 2u);
  EXPECT_EQ(x.probeRead(1, a + 1, 5000), 5000u + p.l2.hit_latency) << "prefetched into the eDRAM";
}

TEST(L3Banks, TwoReadsInOneCycleCollideAtTheDirectoryAndOnTheReturnPath) {
  MemParams p = bgpLike();
  p.l3.prefetch_lines = 0;
  NoCopies l1s;
  Crossbar x(p, l1s);
  const L3Banks& l3 = *x.l3();
  Level level;
  const u64 a = lineOf(x, l3, 0, 0, 0x2000);
  const u64 b = lineOf(x, l3, 0, 0, a + 1);
  x.read(0, a, 100, Request::kData, true, &level);
  x.read(0, b, 3000, Request::kData, true, &level);
  // Both hit later, in the same cycle, from cores on different ports.
  const Cycle first = x.read(0, a, 10000, Request::kData, true, &level);
  const Cycle second = x.read(1, b, 10000, Request::kData, true, &level);
  const L3BankStats& s = l3.stats(0);
  EXPECT_EQ(s.lookup_wait_cycles[0], 1u) << "the second lookup a cycle behind the first";
  EXPECT_EQ(first, 10000u + p.l2.hit_latency);
  // The second waited a cycle for the directory, then the slice's port, and its data found the
  // first's return on the path (4 cycles for a 128-byte line at 32 bytes per cycle).
  EXPECT_EQ(second, first + 4);
  EXPECT_EQ(s.read[1].collisions, 1u);
  EXPECT_EQ(s.read[0].collisions, 0u) << "the misses returned far apart";
  // A read far from any other collides nowhere.
  x.read(2, a, 20000, Request::kData, true, &level);
  EXPECT_EQ(s.read[0].collisions, 0u);
}

TEST(L3Banks, WritesWaitForTheirWritePortAndDmaTakesItsOwnPorts) {
  MemParams p = bgpLike();
  p.l3.prefetch_lines = 0;
  NoCopies l1s;
  Crossbar x(p, l1s);
  const L3Banks& l3 = *x.l3();
  const u64 a = lineOf(x, l3, 1, 0, 0x3000);
  const u64 b = lineOf(x, l3, 1, 1, 0x3000);
  EXPECT_EQ(x.drain(0, a, 8, 500, true), 500u);
  // Core 2 shares W0: its drain two cycles later waits for the port's four cycles.
  EXPECT_EQ(x.drain(2, b, 8, 502, true), 504u);
  const L3BankStats& s = l3.stats(1);
  EXPECT_EQ(s.deposits[0], 2u);
  EXPECT_EQ(s.deposit_wait_cycles[0], 2u);
  // The DMA reads two lines (a burst on R2) and writes one (on W0).
  x.deviceLines(a << 7, 256, 9000, false, true, nullptr);
  x.deviceLines(b << 7, 8, 9500, true, true, nullptr);
  const u64 reads = l3.stats(0).read[2].bursts + s.read[2].bursts;
  EXPECT_EQ(reads, 2u);
  EXPECT_EQ(s.deposits[0], 3u);
}

TEST(L3Banks, MissesWaitForAFreeMissHandlerEntry) {
  MemParams p = bgpLike();
  p.l3.miss_handler_entries = 1;
  p.l3.prefetch_lines = 0;
  NoCopies l1s;
  Crossbar x(p, l1s);
  const L3Banks& l3 = *x.l3();
  Level level;
  const u64 a = lineOf(x, l3, 0, 0, 0x4000);
  const u64 b = lineOf(x, l3, 0, 1, a + 1);
  const Cycle first = x.read(0, a, 100, Request::kData, true, &level);
  const Cycle second = x.read(1, b, 100, Request::kData, true, &level);
  // The second miss's entry is free once the first line is in the eDRAM.
  EXPECT_GE(second, first + p.ddr.latency);
  EXPECT_GT(l3.stats(0).allocation_wait_cycles, 0u);
  EXPECT_EQ(l3.stats(0).allocations, 2u);
  EXPECT_EQ(l3.stats(0).edram_prefetches + l3.stats(1).edram_prefetches, 0u);
}

}  // namespace
}  // namespace hpm::mem
