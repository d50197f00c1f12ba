// conflicts' count of writebacks by block, page and address, its hottest blocks and its
// printers on made-up records, without a guest.
#include <gtest/gtest.h>

#include <string>

#include "tools/hpmsim/lib/conflicts_analysis.h"

namespace hpm::tools {
namespace {

// A bgq-like L2 of 2 slices of 4 sets; 7 writebacks seen of 10: three in block 2 (one page),
// three in block 5 (two pages, one of no virtual page), one in block 7.
ConflictsRecords sevenWritebacks() {
  ConflictsRecords r;
  r.program = "./writebacks conflict";
  r.machine = "bgq";
  r.cache = {.fireplane = false, .slices = 2, .sets = 4, .ways = 16, .line_bytes = 128};
  r.cycles = 50000;
  r.interval = 1000;
  r.writebacks = 10;
  r.lost = 1;
  const struct {
    u32 block;
    u64 address, virtual_page;
    const char* segment;
  } seen[] = {{5, 0x10000, 0x20000, "prog (data)"},
              {2, 0x2000, 0x12000, "[heap]"},
              {7, 0x4080, 0x4000, "[stack]"},
              {2, 0x2000, 0, "unused"},
              {5, 0x30000, 0, "(no page)"},
              {2, 0x2000, 0, "unused"},
              {5, 0x10000, 0, "unused"}};
  for (const auto& s : seen) {
    PageRecord& page = countWriteback(r, s.block, s.address);
    if (page.writebacks == 1) {  // as the run describes a page when first seen
      page.virtual_page = s.virtual_page;
      page.segment = s.segment;
    }
  }
  return r;
}

TEST(ConflictsRecords, EachWritebackCountsInItsBlockPageAndAddress) {
  const ConflictsRecords r = sevenWritebacks();
  EXPECT_EQ(r.taken, 7u);
  ASSERT_EQ(r.blocks.size(), 3u);
  const BlockRecord& b = r.blocks.at(5);
  EXPECT_EQ(b.writebacks, 3u);
  EXPECT_EQ(b.addresses, (std::map<u64, u64>{{0x10000, 2}, {0x30000, 1}}));
  EXPECT_EQ(b.pages.at(0x10000).writebacks, 2u);
  EXPECT_EQ(b.pages.at(0x10000).segment, "prog (data)") << "described when first seen";
  EXPECT_EQ(r.blocks.at(7).pages.count(0x4000), 1u) << "0x4080's page";
}

TEST(ConflictsReport, HottestBlocksComeFirstTiesInBlockOrderEachWithItsSliceAndSet) {
  const ConflictsReport report = conflictsReport(sevenWritebacks(), 2);
  EXPECT_EQ(report.blocks, 3u);
  EXPECT_EQ(report.seen_percent, 70.0);
  ASSERT_EQ(report.hottest.size(), 2u);
  EXPECT_EQ(report.hottest[0].block, 2u);
  EXPECT_EQ(report.hottest[1].block, 5u);
  EXPECT_EQ(report.hottest[1].slice, 1u);
  EXPECT_EQ(report.hottest[1].set, 1u);
  ASSERT_EQ(report.hottest[1].addresses.size(), 2u);
  EXPECT_EQ(report.hottest[1].addresses[1].page, 0x30000u);
  ASSERT_EQ(report.every_block.size(), 3u) << "the CSV has every block, not only the top";
  EXPECT_EQ(report.every_block[2].block, 7u);
}

TEST(ConflictsReport, NoWritebacksSeenIsZeroPercentAndNoBlocks) {
  ConflictsRecords r;
  r.cache.sets = 4;
  const ConflictsReport report = conflictsReport(r, 3);
  EXPECT_EQ(report.seen_percent, 0.0);
  EXPECT_TRUE(report.hottest.empty());
}

TEST(ConflictsReport, TextListsEachHotBlocksPagesAndAddresses) {
  EXPECT_EQ(conflictsText(conflictsReport(sevenWritebacks(), 2)),
            "\n Writebacks of './writebacks conflict' (machine bgq: the L2 as the external cache, "
            "2 slices x 4 sets of 16 ways, 128-byte lines; physical addresses are virtual ones on "
            "this node)\n"
            " FIFO sampled every 1,000 cycles: 7 of 10 writebacks seen (70.0 %), 1 lost between "
            "samples; 3 blocks had one\n"
            "\n"
            " CacheBlock: 2 (slice 0, set 2)    Writebacks: 3\n"
            " Writebacks by Page (1 pages):\n"
            "   Physical Page           # WBs  Virtual Page         Segment\n"
            "   0x2000                      3  0x12000              [heap]\n"
            " Writebacks by Address (1 addresses):\n"
            "   Physical Address         # WB  Physical Page\n"
            "   0x2000                      3  0x2000\n"
            "\n"
            " CacheBlock: 5 (slice 1, set 1)    Writebacks: 3\n"
            " Writebacks by Page (2 pages):\n"
            "   Physical Page           # WBs  Virtual Page         Segment\n"
            "   0x10000                     2  0x20000              prog (data)\n"
            "   0x30000                     1  0x0                  (no page)\n"
            " Writebacks by Address (2 addresses):\n"
            "   Physical Address         # WB  Physical Page\n"
            "   0x10000                     2  0x10000\n"
            "   0x30000                     1  0x30000\n"
            "\n");
}

TEST(ConflictsReport, FireplaneTextDescribesTheExternalCaches) {
  ConflictsRecords r = sevenWritebacks();
  r.machine = "sunfire";
  r.cache = {.fireplane = true, .slices = 1, .sets = 512, .ways = 2, .line_bytes = 64};
  const std::string text = conflictsText(conflictsReport(r, 0));
  EXPECT_EQ(text.substr(0, text.find('\n', 1) + 1),
            "\n Writebacks of './writebacks conflict' (machine sunfire: each CPU's external "
            "cache, 512 sets of 2 ways, 64-byte lines; physical addresses are frames on the "
            "boards)\n");
}

TEST(ConflictsReport, CsvHasEveryBlockSeen) {
  EXPECT_EQ(conflictsCsv(conflictsReport(sevenWritebacks(), 1)),
            "block,slice,set,writebacks\n"
            "2,0,2,3\n"
            "5,1,1,3\n"
            "7,1,3,1\n");
}

TEST(ConflictsReport, JsonHasTheCountsAndTheHottestBlocks) {
  EXPECT_EQ(conflictsJson(conflictsReport(sevenWritebacks(), 1)).dump(),
            R"({"blocks":3,"cycles":50000,)"
            R"("hottest":[{"addresses":[{"address":8192,"writebacks":3}],"block":2,)"
            R"("pages":[{"page":8192,"segment":"[heap]","virtual_page":73728,"writebacks":3}],)"
            R"("set":2,"slice":0,"writebacks":3}],)"
            R"("interval":1000,"lost":1,"machine":"bgq","sets_per_slice":4,"taken":7,)"
            R"("writebacks":10})");
}

}  // namespace
}  // namespace hpm::tools
