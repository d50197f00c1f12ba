// busstat's distribution estimate and its printers on made-up records, without a guest.
#include <gtest/gtest.h>

#include <string>

#include "tools/hpmsim/lib/busstat_analysis.h"

namespace hpm::tools {
namespace {

// A 1,000-cycle run at 1,600 MHz.
BusstatRun shortRun() {
  return {.program = "./prog 3",
          .machine = "bgq",
          .clock_mhz = 1600,
          .clock_hz = 1600000000,
          .cycles = 1000};
}

TypeRecord type(std::string mnemonic, std::string name, u64 sampled, u64 observed, u64 exact) {
  return {.mnemonic = std::move(mnemonic),
          .name = std::move(name),
          .sampled = sampled,
          .observed = observed,
          .exact = exact};
}

// Four types: estimated 40 (exactly), 0 (never watched, none there), 60 (20 % high) and 100
// (none there): 200 in all.
DistributionRecords fourTypes() {
  return {.run = shortRun(),
          .counters = 2,
          .rotation = 100,
          .types = {type("RD", "read", 10, 250, 40), type("IF", "fetch", 0, 0, 0),
                    type("WR", "write", 30, 500, 50), type("INV", "invalidate", 25, 250, 0)}};
}

TEST(BusstatDistribution, EstimateIsTheSampledCountScaledFromTheWatchedCyclesToTheRun) {
  const Distribution d = busstatDistribution(fourTypes());
  ASSERT_EQ(d.rows.size(), 4u);
  EXPECT_EQ(d.rows[0].estimate, 40.0);  // 10 in 250 of 1,000 cycles
  EXPECT_EQ(d.rows[1].estimate, 0.0);   // never watched: no estimate, not a division by 0
  EXPECT_EQ(d.rows[2].estimate, 60.0);
  EXPECT_EQ(d.rows[3].estimate, 100.0);
  EXPECT_EQ(d.rows[0].observed_percent, 25.0);
  EXPECT_EQ(d.rows[1].observed_percent, 0.0);
  EXPECT_EQ(d.rows[2].observed_percent, 50.0);
  EXPECT_EQ(d.total_estimate, 200.0);
  EXPECT_EQ(d.total_exact, 90u);
}

TEST(BusstatDistribution, SharesArePercentagesOfTheSumOfTheEstimates) {
  const Distribution d = busstatDistribution(fourTypes());
  EXPECT_EQ(d.rows[0].share_percent, 20.0);
  EXPECT_EQ(d.rows[1].share_percent, 0.0);
  EXPECT_EQ(d.rows[2].share_percent, 30.0);
  EXPECT_EQ(d.rows[3].share_percent, 50.0);
}

TEST(BusstatDistribution, ErrorIsAgainstTheExactCountAndNoneWhenThatIsZero) {
  const Distribution d = busstatDistribution(fourTypes());
  EXPECT_EQ(d.rows[0].error_percent, 0.0);
  EXPECT_FALSE(d.rows[1].error_percent.has_value());
  EXPECT_EQ(d.rows[2].error_percent, 20.0);
  EXPECT_FALSE(d.rows[3].error_percent.has_value());
}

TEST(BusstatDistribution, ARunOfNoCyclesOrNoTransactionsEstimatesZeroEverywhere) {
  DistributionRecords records = fourTypes();
  records.run.cycles = 0;
  for (TypeRecord& t : records.types) t.sampled = 0;
  const Distribution d = busstatDistribution(records);
  for (const DistributionRow& row : d.rows) {
    EXPECT_EQ(row.estimate, 0.0);
    EXPECT_EQ(row.observed_percent, 0.0);
    EXPECT_EQ(row.share_percent, 0.0);
  }
  EXPECT_EQ(d.total_estimate, 0.0);
}

TEST(BusstatDistribution, TextIsTheTableWithTotalsAndTheSimulatedTime) {
  EXPECT_EQ(distributionText(busstatDistribution(fourTypes())),
            "\n Transaction distribution of './prog 3' (machine bgq, interconnect monitor: 2 "
            "counters rotated over 4 types every 100 cycles; 1,000 cycles)\n"
            "\n"
            "  type  name             sampled  observed      estimated   share          exact    "
            "error\n"
            "  RD    read                  10     25.0%             40   20.0%             40   "
            "+0.0 %\n"
            "  IF    fetch                  0      0.0%              0    0.0%              0    "
            "0.0 %\n"
            "  WR    write                 30     50.0%             60   30.0%             50  "
            "+20.0 %\n"
            "  INV   invalidate            25     25.0%            100   50.0%              0     "
            "   -\n"
            "  all                                                 200                     90\n"
            "\n"
            "         0.000000625 seconds simulated (1,000 cycles at 1600 MHz)\n"
            "\n");
}

TEST(BusstatDistribution, CsvHasARowPerTypeWithTheEstimateAndShareUnrounded) {
  EXPECT_EQ(distributionCsv(busstatDistribution(fourTypes())),
            "type,name,sampled,observed_cycles,estimated,share,exact\n"
            "RD,read,10,250,40.0,20.0000,40\n"
            "IF,fetch,0,0,0.0,0.0000,0\n"
            "WR,write,30,500,60.0,30.0000,50\n"
            "INV,invalidate,25,250,100.0,50.0000,0\n");
}

TEST(BusstatDistribution, JsonHasTheRowsTheRotationTheCyclesAndTheMachine) {
  const nlohmann::json out = distributionJson(busstatDistribution(fourTypes()));
  EXPECT_EQ(out.dump(),
            R"({"cycles":1000,"distribution":[)"
            R"({"estimated":40.0,"exact":40,"name":"read","observed_cycles":250,"sampled":10,)"
            R"("share_percent":20.0,"type":"RD"},)"
            R"({"estimated":0.0,"exact":0,"name":"fetch","observed_cycles":0,"sampled":0,)"
            R"("share_percent":0.0,"type":"IF"},)"
            R"({"estimated":60.0,"exact":50,"name":"write","observed_cycles":500,"sampled":30,)"
            R"("share_percent":30.0,"type":"WR"},)"
            R"({"estimated":100.0,"exact":0,"name":"invalidate","observed_cycles":250,)"
            R"("sampled":25,"share_percent":50.0,"type":"INV"}],)"
            R"("machine":"bgq","rotation_cycles":100})");
}

const std::vector<std::string> kThreeEvents = {"ic_read", "ic_write", "ic_fetch"};

TEST(BusstatIntervals, TextHasALinePerMonitorWithItsTwoCountersEventsAndCounts) {
  EXPECT_EQ(intervalHeaderText(shortRun()),
            "\n Interconnect transactions of './prog 3' (machine bgq)\n\n"
            "         cycle  dev    event0                                 pic0 event1         "
            "                        pic1\n");
  EXPECT_EQ(intervalText(200000, kThreeEvents, {1234, 5, 0}),
            "       200,000  imon0  ic_read                               1,234 ic_write       "
            "                           5\n"
            "       200,000  imon1  ic_fetch                                  0\n");
}

TEST(BusstatIntervals, CsvAndJsonHaveTheCycleAndEachEventsCount) {
  EXPECT_EQ(intervalHeaderCsv(kThreeEvents), "cycle,ic_read,ic_write,ic_fetch\n");
  EXPECT_EQ(intervalCsv(200000, {1234, 5, 0}), "200000,1234,5,0\n");
  EXPECT_EQ(intervalJson(200000, kThreeEvents, {1234, 5, 0}).dump(),
            R"({"counts":{"ic_fetch":0,"ic_read":1234,"ic_write":5},"cycle":200000})");
}

TEST(BusstatTrace, ARecordIsItsCycleMonitorHexAddressTypeMnemonicSnoopNameSourceAndId) {
  EXPECT_EQ(traceHeaderCsv(), "cycle,monitor,address,type,snoop,source,id\n");
  probe::Transaction t;
  t.cycle = 12345;
  t.address = 0x1f80;
  t.type = probe::TransactionType::kWrite;
  t.snoop = probe::Snoop::kL2;
  t.source = 17;
  t.id = 3;
  EXPECT_EQ(traceRecordCsv(1, t), "12345,1,0x1f80,WR,L2,17,3\n");
  t.type = probe::TransactionType::kReadToOwnUpgrade;
  t.snoop = probe::Snoop::kModified;
  EXPECT_EQ(traceRecordCsv(0, t), "12345,0,0x1f80,RTOU,Modified,17,3\n");
}

// Four counters, the FIFOs sampled: 25 records taken of the 40 + 10 their counters matched.
CountsRecords fourCounters() {
  return {.run = shortRun(),
          .events = {"ic_read", "ic_write", "ic_fetch", "ic_mem_read"},
          .totals = {100, 40, 7, 10},
          .exact = {100, 40, 7, 11},
          .fifo = FifoRecords{.taken = 25, .lost = 3}};
}

TEST(BusstatCounts, FifoRecordsAreSeenOutOfWhatCounterOneOfEachMonitorMatched) {
  const FifoSeen seen = fifoSeen(fourCounters());
  EXPECT_EQ(seen.matched, 50u);
  EXPECT_EQ(seen.seen_percent, 50.0);
  CountsRecords one_monitor = fourCounters();
  one_monitor.events.resize(2);
  one_monitor.totals.resize(2);
  EXPECT_EQ(fifoSeen(one_monitor).matched, 40u);
  one_monitor.totals[1] = 0;
  EXPECT_EQ(fifoSeen(one_monitor).seen_percent, 0.0) << "nothing matched: no division by 0";
}

TEST(BusstatCounts, TextHasEachEventsTotalTheFifoLineAndTheSimulatedTime) {
  EXPECT_EQ(countsText(fourCounters()),
            "\n"
            "                 100      ic_read\n"
            "                  40      ic_write\n"
            "                   7      ic_fetch\n"
            "                  10      ic_mem_read\n"
            "\n"
            "                  25      FIFO records taken (3 lost between samples; 50.0 % of "
            "counter 1's matches seen)\n"
            "\n"
            "         0.000000625 seconds simulated (1,000 cycles at 1600 MHz)\n"
            "\n");
  CountsRecords no_fifo = fourCounters();
  no_fifo.fifo.reset();
  EXPECT_EQ(countsText(no_fifo).find("FIFO"), std::string::npos);
}

TEST(BusstatCounts, JsonHasTheCountsTheExactCountsAndTheFifo) {
  EXPECT_EQ(countsJson(fourCounters()).dump(),
            R"({"counts":{"ic_fetch":7,"ic_mem_read":10,"ic_read":100,"ic_write":40},)"
            R"("cycles":1000,)"
            R"("exact":{"ic_fetch":7,"ic_mem_read":11,"ic_read":100,"ic_write":40},)"
            R"("fifo":{"lost":3,"matched":50,"taken":25},"machine":"bgq"})");
}

}  // namespace
}  // namespace hpm::tools
