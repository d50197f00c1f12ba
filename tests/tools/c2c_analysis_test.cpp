// c2c's tallies of FIFO records, its busiest shared lines and its printers on made-up records,
// without a guest: on the crossbar (bgq) and on Fireplane (sunfire).
#include <gtest/gtest.h>

#include <string>

#include "tools/hpmsim/lib/c2c_analysis.h"

namespace hpm::tools {
namespace {

using probe::Snoop;
using probe::TransactionType;

probe::Transaction record(u64 address, u32 source, TransactionType type, Snoop snoop = Snoop::kNone,
                          u32 supplier = probe::kNoSupplier) {
  probe::Transaction t;
  t.address = address;
  t.source = source;
  t.type = type;
  t.snoop = snoop;
  t.supplier = supplier;
  return t;
}

LineRecord line(std::set<u32> readers, std::set<u32> writers, u64 reads, u64 writes) {
  LineRecord l;
  l.readers = std::move(readers);
  l.writers = std::move(writers);
  l.reads = reads;
  l.writes = writes;
  return l;
}

TEST(C2cSharedLines, ASharedLineHasTwoAgentsOrMoreAndAWriter) {
  const std::map<u64, LineRecord> lines = {
      {0x100, line({1, 2}, {}, 9, 0)},   // two readers, no writer: not shared
      {0x200, line({1}, {1}, 9, 9)},     // one agent reading and writing: not shared
      {0x300, line({}, {3}, 0, 9)},      // one writer alone: not shared
      {0x400, line({1}, {2}, 1, 1)},     // a reader and another writer: shared
      {0x500, line({}, {2, 3}, 0, 2)}};  // two writers: shared
  for (const auto& [address, l] : lines) {
    EXPECT_EQ(sharedLine(l), address >= 0x400) << std::hex << address;
  }
  const SharedLines shared = busiestShared(lines, 10);
  EXPECT_EQ(shared.count, 2u);
  ASSERT_EQ(shared.top.size(), 2u);
  EXPECT_EQ(shared.top[0].address, 0x400u);
  EXPECT_EQ(shared.top[1].address, 0x500u);
}

TEST(C2cSharedLines, TheBusiestComeFirstTiesInAddressOrderAndTopCutsOnlyTheList) {
  const std::map<u64, LineRecord> lines = {{0x100, line({1}, {2}, 1, 1)},
                                           {0x200, line({1}, {2}, 5, 1)},
                                           {0x300, line({1}, {2}, 1, 1)},
                                           {0x400, line({1}, {2}, 1, 1)}};
  const SharedLines shared = busiestShared(lines, 3);
  EXPECT_EQ(shared.count, 4u) << "every shared line seen, not just the top";
  ASSERT_EQ(shared.top.size(), 3u);
  EXPECT_EQ(shared.top[0].address, 0x200u);
  EXPECT_EQ(shared.top[1].address, 0x100u);
  EXPECT_EQ(shared.top[2].address, 0x300u);
}

// bgq, 4 threads a core: 14 FIFO records of 28 the counter matched, over five lines.
CrossbarRecords crossbar() {
  CrossbarRecords r;
  r.sampling.program = "./fs padded 4";
  r.sampling.machine = "bgq";
  r.sampling.cycles = 5000;
  r.sampling.interval = 200;
  r.sampling.matched = 28;
  r.sampling.lost = 2;
  r.threads_per_core = 4;
  r.reads = 20;
  r.from_l2 = 15;
  r.from_memory = 5;
  for (const probe::Transaction& t : {
           record(0x1000, 0, TransactionType::kRead, Snoop::kL2),
           record(0x1000, 5, TransactionType::kRead, Snoop::kMemory),
           record(0x1000, 5, TransactionType::kWrite),
           record(0x2000, 1, TransactionType::kFetch, Snoop::kL2),
           record(0x2000, 2, TransactionType::kRead, Snoop::kL2),
           record(0x3000, 3, TransactionType::kAtomic, Snoop::kMemory),
           record(0x3000, 3, TransactionType::kPrefetch, Snoop::kL2),
           record(0x4000, 1, TransactionType::kAtomic, Snoop::kL2),
           record(0x4000, 2, TransactionType::kRead, Snoop::kL2),
           record(0x4000, probe::kSliceAgent + 1, TransactionType::kInvalidate),
           record(0x5000, 0, TransactionType::kWrite),
           record(0x5000, 1, TransactionType::kWrite),
           record(0x5000, 2, TransactionType::kRead, Snoop::kMemory),
           record(0x5000, 2, TransactionType::kRead, Snoop::kMemory),
       }) {
    tallyCrossbar(r, t);
  }
  return r;
}

TEST(C2cCrossbar, TallyCountsReadsBySnoopWritesByAgentAndAnAtomicAsAWriter) {
  const CrossbarRecords r = crossbar();
  EXPECT_EQ(r.sampling.taken, 14u);
  EXPECT_EQ(r.sources.size(), 5u) << "the slice's invalidation is no source's";
  EXPECT_EQ(r.sources.at(2).from_l2, 2u);
  EXPECT_EQ(r.sources.at(2).from_memory, 2u);
  EXPECT_EQ(r.sources.at(5).writes, 1u);
  const LineRecord& atomic = r.sampling.lines.at(0x4000);
  EXPECT_EQ(atomic.writers, std::set<u32>{1});
  EXPECT_EQ(atomic.readers, (std::set<u32>{1, 2}));
  EXPECT_EQ(atomic.invalidations, 1u);
  EXPECT_EQ(atomic.records(), 3u);
}

TEST(C2cCrossbar, ReportHasTheSuppliersSharesAndTheBusiestSharedLines) {
  const CrossbarReport report = c2cCrossbar(crossbar(), 2);
  EXPECT_EQ(report.from_l2_percent, 75.0);
  EXPECT_EQ(report.from_memory_percent, 25.0);
  EXPECT_EQ(report.seen_percent, 50.0);
  EXPECT_EQ(report.shared.count, 3u);
  ASSERT_EQ(report.shared.top.size(), 2u);
  EXPECT_EQ(report.shared.top[0].address, 0x5000u);
  EXPECT_EQ(report.shared.top[1].address, 0x1000u) << "ties 0x4000 at 3 records: address order";
}

TEST(C2cCrossbar, NoReadsAndNoMatchesGiveZeroPercentages) {
  const CrossbarReport report = c2cCrossbar(CrossbarRecords{}, 5);
  EXPECT_EQ(report.from_l2_percent, 0.0);
  EXPECT_EQ(report.seen_percent, 0.0);
  EXPECT_EQ(report.shared.count, 0u);
}

TEST(C2cCrossbar, TextNamesEachThreadsCoreAndEachSharedLinesAgents) {
  EXPECT_EQ(c2cText(c2cCrossbar(crossbar(), 2)),
            "\n Who supplied the lines read by './fs padded 4' (machine bgq; counted exactly)\n"
            "\n"
            "                  20      line reads\n"
            "                  15      supplied by the L2 (75.0 %)\n"
            "                   5      supplied by memory (25.0 %)\n"
            "                   0      supplied by another core's cache (none: the L1s write "
            "through and the L2 is shared)\n"
            "\n"
            " Sampled every 200 cycles: 14 of 28 reads, writes and invalidations seen (50.0 %), 2 "
            "lost between samples\n"
            "\n"
            " source                      from L2   from mem     writes\n"
            " thread 0 (core 0)                 1          0          1\n"
            " thread 1 (core 0)                 2          0          1\n"
            " thread 2 (core 0)                 2          2          0\n"
            " thread 3 (core 0)                 1          1          0\n"
            " thread 5 (core 1)                 0          1          1\n"
            "\n"
            " Lines shared by agents, one writing: 3 seen; the busiest:\n"
            "\n"
            " 0x5000: 2 reads, 2 writes, 0 invalidations; readers 2; writers 0,1\n"
            " 0x1000: 2 reads, 1 writes, 0 invalidations; readers 0,5; writers 5\n"
            "\n");
}

TEST(C2cCrossbar, JsonHasTheCountsTheSourcesAndTheSharedLines) {
  const nlohmann::json out = c2cJson(c2cCrossbar(crossbar(), 1));
  EXPECT_EQ(out.dump(), R"({"cycles":5000,"from_l2":15,"from_memory":5,"lost":2,"machine":"bgq",)"
                        R"("matched":28,"reads":20,"sampled":14,)"
                        R"("shared":[{"address":20480,"invalidations":0,"readers":[2],"reads":2,)"
                        R"("writers":[0,1],"writes":2}],"shared_lines":3,)"
                        R"("sources":[{"from_l2":1,"from_memory":0,"source":0,"writes":1},)"
                        R"({"from_l2":2,"from_memory":0,"source":1,"writes":1},)"
                        R"({"from_l2":2,"from_memory":2,"source":2,"writes":0},)"
                        R"({"from_l2":1,"from_memory":1,"source":3,"writes":0},)"
                        R"({"from_l2":0,"from_memory":1,"source":5,"writes":1}]})");
}

// sunfire, 2 CPUs a board: 8 FIFO records of 16 the counter matched, over three lines.
FireplaneRecords fireplane() {
  FireplaneRecords r;
  r.sampling.program = "./handoff 4";
  r.sampling.machine = "sunfire";
  r.sampling.cycles = 9000;
  r.sampling.interval = 500;
  r.sampling.matched = 16;
  r.cpus_per_board = 2;
  r.requests = 10;
  r.from_memory = 6;
  r.from_cache = 4;
  const Snoop any = Snoop::kNone;
  for (const probe::Transaction& t : {
           record(0x100, 0, TransactionType::kReadToShare),
           record(0x100, 2, TransactionType::kReadToOwn, any, 0),
           record(0x100, 0, TransactionType::kReadToShare, any, 2),
           record(0x200, 1, TransactionType::kReadToOwnUpgrade),
           record(0x200, 1, TransactionType::kReadToShare),
           record(0x300, 3, TransactionType::kReadToShareAlways),
           record(0x300, 0, TransactionType::kReadToOwn),
       }) {
    tallyFireplane(r, t);
  }
  tallyFireplane(r, record(0x200, 1, TransactionType::kReadToShare));
  return r;
}

TEST(C2cFireplane, TallyCountsOwnershipAndSuppliersAndAnUpgradeMovesNoData) {
  const FireplaneRecords r = fireplane();
  EXPECT_EQ(r.sampling.taken, 8u);
  const FireplaneSource& cpu0 = r.sources.at(0);
  EXPECT_EQ(cpu0.from_memory, 2u);
  EXPECT_EQ(cpu0.from_cache, 1u);
  EXPECT_EQ(cpu0.owns, 1u);
  EXPECT_EQ(cpu0.suppliers, (std::map<u32, u64>{{2, 1}}));
  const FireplaneSource& cpu1 = r.sources.at(1);
  EXPECT_EQ(cpu1.owns, 1u) << "the upgrade";
  EXPECT_EQ(cpu1.from_memory, 2u) << "the two requests, not the upgrade";
  EXPECT_EQ(r.sampling.lines.at(0x100).from_cache, 2u);
}

// The same, with the shared line 0x100's virtual address as the run finds it (0x300 has none).
FireplaneRecords fireplaneMapped() {
  FireplaneRecords r = fireplane();
  r.virtual_addresses[0x100] = 0x7f00;
  return r;
}

TEST(C2cFireplane, EachShownLinesVirtualAddressIsTheRecordsAndZeroWhenItHasNone) {
  FireplaneRecords r = fireplaneMapped();
  r.virtual_addresses[0x200] = 0x9000;  // (not shared: never shown)
  const FireplaneReport report = c2cFireplane(r, 5);
  ASSERT_EQ(report.shared.top.size(), 2u);
  EXPECT_EQ(report.shared.top[0].address, 0x100u);
  EXPECT_EQ(report.shared.top[0].virtual_address, 0x7f00u);
  EXPECT_EQ(report.shared.top[1].address, 0x300u);
  EXPECT_EQ(report.shared.top[1].virtual_address, 0u);
}

TEST(C2cFireplane, TextNamesEachCpusBoardItsSuppliersAndEachLinesVirtualAddress) {
  FireplaneReport report = c2cFireplane(fireplaneMapped(), 5);
  ASSERT_EQ(report.shared.top.size(), 2u);
  EXPECT_EQ(c2cText(report),
            "\n Who supplied the lines requested by './handoff 4' (machine sunfire; counted "
            "exactly)\n"
            "\n"
            "                  10      line requests (RTS, RTSA, RTO)\n"
            "                   6      supplied by memory (60.0 %)\n"
            "                   4      supplied by another CPU's cache (40.0 %)\n"
            "\n"
            " Sampled every 500 cycles: 8 of 16 requests and upgrades seen (50.0 %), 0 lost "
            "between samples\n"
            "\n"
            " source               from mem from cache       owns  suppliers (cpu:lines)\n"
            " cpu 0 (board 0)             2          1          1  2:1\n"
            " cpu 1 (board 0)             2          0          1  \n"
            " cpu 2 (board 1)             0          1          1  0:1\n"
            " cpu 3 (board 1)             1          0          0  \n"
            "\n"
            " Lines shared by CPUs, one writing: 2 seen; the busiest:\n"
            "\n"
            " 0x100 (virtual 0x7f00): 2 reads, 1 ownership requests, 2 from another cache; "
            "readers 0; writers 2\n"
            " 0x300 (virtual 0x0): 1 reads, 1 ownership requests, 0 from another cache; readers "
            "3; writers 0\n"
            "\n");
}

TEST(C2cFireplane, JsonHasTheSuppliersByCpuAndTheSharedLinesVirtualAddresses) {
  const FireplaneReport report = c2cFireplane(fireplaneMapped(), 1);
  const nlohmann::json out = c2cJson(report);
  EXPECT_EQ(out.at("sources").at(0).dump(),
            R"({"from_cache":1,"from_memory":2,"owns":1,"source":0,"suppliers":{"2":1}})");
  EXPECT_EQ(out.at("shared").dump(),
            R"([{"address":256,"from_cache":2,"ownership_requests":1,"readers":[0],"reads":2,)"
            R"("virtual":32512,"writers":[2]}])");
  EXPECT_EQ(out.at("shared_lines"), 2u);
  EXPECT_EQ(out.at("requests"), 10u);
  EXPECT_EQ(out.at("from_cache"), 4u);
  EXPECT_EQ(out.at("sampled"), 8u);
}

}  // namespace
}  // namespace hpm::tools
