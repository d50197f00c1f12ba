// locality's board-pair estimates, remote share, hottest regions and printers on made-up
// records, without a guest.
#include <gtest/gtest.h>

#include <string>

#include "tools/hpmsim/lib/locality_analysis.h"

namespace hpm::tools {
namespace {

RegionRecord region(std::string segment, u64 start, u64 end) {
  RegionRecord r;
  r.segment = std::move(segment);
  r.start = start;
  r.end = end;
  return r;
}

// Two boards of two CPUs, 2 counters rotated over the 4 pairs, each pair watched half of a
// 10,000-cycle run: estimates 200, 20, 60 and 120 (80 of 400 remote). Three regions sampled.
LocalityRecords twoBoards() {
  LocalityRecords r;
  r.program = "./first_touch one 4 2";
  r.machine = "sunfire";
  r.placement = "first_touch";
  r.boards = 2;
  r.cpus_per_board = 2;
  r.pair_counters = 2;
  r.rotation = 2000;
  r.interval = 200;
  r.cycles = 10000;
  r.coherent = 400;
  r.matched = 50;
  r.taken = 40;
  r.lost = 2;
  r.unmapped = 3;
  r.pairs = {{.requester = 0, .home = 0, .counted = 100, .observed = 5000},
             {.requester = 0, .home = 1, .counted = 10, .observed = 5000},
             {.requester = 1, .home = 0, .counted = 30, .observed = 5000},
             {.requester = 1, .home = 1, .counted = 60, .observed = 5000}};
  RegionRecord data = region("prog (data)", 0x10000, 0x20000);
  for (int i = 0; i < 3; ++i) countTraffic(data, 0, 0);
  for (int i = 0; i < 2; ++i) countTraffic(data, 0, 1);
  RegionRecord heap = region("[heap]", 0x40000, 0x50000);
  for (int i = 0; i < 2; ++i) countTraffic(heap, 1, 0);
  RegionRecord stack = region("[stack]", 0x7000, 0x8000);
  countTraffic(stack, 1, 1);
  r.regions = {{data.start, data}, {heap.start, heap}, {stack.start, stack}};
  return r;
}

TEST(LocalityRecords, TrafficIsLocalWhenTheRequesterIsTheHomeBoardElseRemoteFromIt) {
  const LocalityRecords r = twoBoards();
  const RegionRecord& data = r.regions.at(0x10000);
  EXPECT_EQ(data.local, 3u);
  EXPECT_EQ(data.remote, 2u);
  EXPECT_EQ(data.remote_from, (std::map<u32, u64>{{1, 2}}));
  EXPECT_EQ(data.homes, (std::map<u32, u64>{{0, 5}}));
}

TEST(LocalityReport, EachPairIsScaledFromTheCyclesItWasWatchedToTheRun) {
  const LocalityReport report = localityReport(twoBoards(), 5);
  EXPECT_FALSE(report.exact) << "2 counters for 4 pairs rotate";
  ASSERT_EQ(report.matrix.size(), 4u);
  EXPECT_EQ(report.matrix[0].estimate, 200.0);
  EXPECT_EQ(report.matrix[1].estimate, 20.0);
  EXPECT_EQ(report.matrix[2].estimate, 60.0);
  EXPECT_EQ(report.matrix[3].estimate, 120.0);
  EXPECT_EQ(report.remote_percent, 20.0);
  EXPECT_EQ(report.seen_percent, 80.0);
}

TEST(LocalityReport, APairNeverWatchedEstimatesZeroAndEnoughCountersAreExact) {
  LocalityRecords r = twoBoards();
  r.pairs[3].counted = 0;
  r.pairs[3].observed = 0;
  r.pair_counters = 4;
  const LocalityReport report = localityReport(r, 5);
  EXPECT_TRUE(report.exact);
  EXPECT_EQ(report.matrix[3].estimate, 0.0);
  EXPECT_EQ(report.remote_percent, 100.0 * 80 / 280);
  r.pairs.clear();
  r.matched = 0;
  const LocalityReport empty = localityReport(r, 5);
  EXPECT_EQ(empty.remote_percent, 0.0) << "nothing estimated: no division by 0";
  EXPECT_EQ(empty.seen_percent, 0.0);
}

TEST(LocalityReport, RegionsWithTheMostRemoteTrafficComeFirstTiesInAddressOrder) {
  const LocalityReport report = localityReport(twoBoards(), 2);
  ASSERT_EQ(report.hottest.size(), 2u);
  EXPECT_EQ(report.hottest[0].start, 0x10000u);
  EXPECT_EQ(report.hottest[1].start, 0x40000u);
}

TEST(LocalityReport, TextHasTheMatrixTheRemoteShareAndTheRegions) {
  EXPECT_EQ(localityText(localityReport(twoBoards(), 5)),
            "\n Coherent transactions (RTS, RTSA, RTO, RTOU, WB) of './first_touch one 4 2' by "
            "requester board and home board (machine sunfire: 2 boards of 2 CPUs, placement "
            "first_touch)\n"
            " 2 counters rotated over 4 board pairs every 2,000 cycles: estimates scaled by the "
            "share of the run each pair was watched\n"
            "\n"
            "   requester\\home      board 0      board 1\n"
            "          board 0          200           20\n"
            "          board 1           60          120\n"
            "\n"
            " 400 coherent transactions (counted exactly), 20.0 % remote (off the requester's "
            "board)\n"
            "\n"
            " FIFO sampled every 200 cycles: 40 of 50 records seen (80.0 %), 2 lost between "
            "samples, 3 of no mapped page\n"
            " Regions with the most remote traffic:\n"
            "\n"
            "   segment                      virtual range                       local    remote  "
            "remote from boards; home boards\n"
            "   prog (data)                  0x000000010000-0x000000020000         3         2  "
            "1:2; 0:5\n"
            "   [heap]                       0x000000040000-0x000000050000         0         2  "
            "0:2; 1:2\n"
            "   [stack]                      0x000000007000-0x000000008000         1         0  "
            "-; 1:1\n"
            "\n");
}

TEST(LocalityReport, TextSaysWhenEveryPairHadACounterOfItsOwn) {
  LocalityRecords r = twoBoards();
  r.pair_counters = 4;
  const std::string text = localityText(localityReport(r, 5));
  EXPECT_NE(text.find("\n every board pair on a counter of its own: exact counts\n"),
            std::string::npos);
}

TEST(LocalityReport, JsonHasTheMatrixAndTheRegions) {
  const nlohmann::json out = localityJson(localityReport(twoBoards(), 1));
  EXPECT_EQ(out.at("matrix").at(1).dump(),
            R"({"counted":10,"estimated":20.0,"home":1,"observed_cycles":5000,"requester":0})");
  // (A delimiter: "(data)" followed by a quote would end a plain raw string.)
  EXPECT_EQ(out.at("regions").dump(),
            R"j([{"end":131072,"homes":{"0":5},"local":3,"remote":2,"remote_from":{"1":2},)j"
            R"j("segment":"prog (data)","start":65536}])j");
  EXPECT_FALSE(out.at("exact").get<bool>());
  EXPECT_EQ(out.at("remote_percent"), 20.0);
  EXPECT_EQ(out.at("boards"), 2u);
  EXPECT_EQ(out.at("cpus_per_board"), 2u);
  EXPECT_EQ(out.at("rotation_cycles"), 2000u);
  EXPECT_EQ(out.at("coherent"), 400u);
  EXPECT_EQ(out.at("sampled"), 40u);
  EXPECT_EQ(out.at("unmapped"), 3u);
}

}  // namespace
}  // namespace hpm::tools
