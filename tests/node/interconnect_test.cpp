// The interconnect monitor on bgq's crossbar and sunfire's Fireplane bus, end to end
// (docs/interconnect.md, docs/sunfire.md): node_mix runs with every transaction recorded
// (Monitor::recordTransactions), and the unit's filters, counters and FIFO are held against that
// record exactly. (bgq's catalogue presets are held against the memory system's counts by type
// and snoop result in monitor_exactness_test, sunfire's here.)
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "node/machine.h"
#include "node/monitor.h"
#include "node/simulation.h"
#include "pmu/imon/unit.h"

namespace hpm {
namespace {

using probe::Snoop;
using probe::Transaction;
using probe::TransactionType;

const std::string kNodeMix = std::string(HPM_TEST_GUEST_BIN_DIR) + "/node_mix";

u64 counterReg(u32 monitor, u32 counter, u64 field) {
  return imon::reg::kMonitorBase + monitor * imon::reg::kMonitorStride +
         counter * imon::reg::kCounterStride + field;
}
u64 fifoReg(u32 monitor, u64 field) {
  return imon::reg::kMonitorBase + monitor * imon::reg::kMonitorStride + field;
}

struct MonitoredRun {
  std::vector<Transaction> stream;
  std::vector<u64> counts;           // the four counters
  std::vector<Transaction> fifo[2];  // what software pops at the end
  u64 status[2] = {0, 0};            // FIFO_STATUS before the pops
  probe::TransactionCounts truth;
  Cycle cycles = 0;
};

// Small machines whose runs have every kind of traffic the filters below look for: writebacks
// from small caches, cache-to-cache transfers between four CPUs.
const std::vector<std::string> kBgq = {"node.cores=2"};
const std::vector<std::string> kSunfire = {"node.cores=4", "fireplane.ecache_kib=64"};

// Runs node_mix on `machine` with `filters` (one per counter: monitor c / 2, counter c % 2), both
// monitors running and both FIFOs enabled, recording every transaction.
MonitoredRun runWith(const std::string& name, const std::vector<std::string>& overrides,
                     const std::vector<imon::Filter>& filters) {
  MachineConfig machine = loadMachine(name, overrides);
  const probe::TransactionNamespace ns = probe::transactionNamespace(machine.node.interconnect);
  RunOptions options;
  options.root = std::filesystem::temp_directory_path().string();
  Simulation sim(machine, options);
  Monitor* monitor = sim.monitor();
  EXPECT_NE(monitor, nullptr);
  MonitoredRun run;
  if (monitor == nullptr) return run;
  const int dev = monitor->findDevice("/dev/hpm/imon");
  EXPECT_GE(dev, 0);
  monitor->recordTransactions();
  for (u32 c = 0; c < filters.size(); ++c) {
    const imon::Filter& f = filters[c];
    monitor->writeRegister(dev, counterReg(c / 2, c % 2, imon::reg::kTypes), ns.local(f.types));
    monitor->writeRegister(dev, counterReg(c / 2, c % 2, imon::reg::kAddrMatch), f.addr_match);
    monitor->writeRegister(dev, counterReg(c / 2, c % 2, imon::reg::kAddrMask), f.addr_mask);
    monitor->writeRegister(dev, counterReg(c / 2, c % 2, imon::reg::kIdMatch), f.id_match);
    monitor->writeRegister(dev, counterReg(c / 2, c % 2, imon::reg::kIdMask), f.id_mask);
    monitor->writeRegister(dev, counterReg(c / 2, c % 2, imon::reg::kSnoops), f.snoops);
  }
  for (u32 m = 0; m < 2; ++m) monitor->writeRegister(dev, fifoReg(m, imon::reg::kFifoEnable), 1);
  monitor->writeRegister(dev, imon::reg::kRun, 3);
  sim.exec(kNodeMix, {kNodeMix, "4"}, {});
  sim.run();
  EXPECT_EQ(sim.kernel().termination().status, 0);
  run.cycles = sim.elapsedCycles();
  run.stream = monitor->recordedTransactions();
  run.truth = *sim.transactionTruth();
  for (u32 c = 0; c < 4; ++c) {
    run.counts.push_back(monitor->readRegister(dev, counterReg(c / 2, c % 2, imon::reg::kCount)));
  }
  for (u32 m = 0; m < 2; ++m) {
    run.status[m] = monitor->readRegister(dev, fifoReg(m, imon::reg::kFifoStatus));
    for (;;) {
      const u64 info = monitor->readRegister(dev, fifoReg(m, imon::reg::kFifoPop));
      if (info >> 63 == 0) break;
      Transaction t;
      t.type = ns.type(static_cast<u32>(info & 0xff));
      t.snoop = static_cast<Snoop>(info >> 8 & 0xff);
      t.source = static_cast<u32>(info >> 16 & 0xffff);
      t.id = static_cast<u32>(info >> 32 & 0x1ff);
      t.supplier = static_cast<u32>(info >> 48 & probe::kNoSupplier);
      t.address = monitor->readRegister(dev, fifoReg(m, imon::reg::kLatchAddress));
      t.cycle = monitor->readRegister(dev, fifoReg(m, imon::reg::kLatchCycle));
      run.fifo[m].push_back(t);
    }
  }
  return run;
}

bool same(const Transaction& a, const Transaction& b) {
  return a.cycle == b.cycle && a.address == b.address && a.source == b.source && a.id == b.id &&
         a.supplier == b.supplier && a.type == b.type && a.snoop == b.snoop;
}

u64 typeBit(TransactionType t) {
  return u64{1} << static_cast<u32>(t);
}

// Holds `run` to its recorded stream: the counters count what their filters match, the FIFOs
// hold the last 8 matches and their lost counts are exact; and to `probe_run`, the same program
// unmonitored: monitoring changes nothing.
void checkRun(const MonitoredRun& run, const MonitoredRun& probe_run,
              const std::vector<imon::Filter>& filters);

TEST(Interconnect, CountersAndFifosEqualWhatTheirFiltersMatchInTheRecordedStream) {
  ASSERT_TRUE(std::filesystem::exists(kNodeMix)) << kNodeMix;
  // A first run finds an address region with traffic: the page of the most frequent write.
  const MonitoredRun probe_run = runWith("bgq", kBgq, {});
  ASSERT_FALSE(probe_run.stream.empty());
  std::map<u64, u64> pages;
  for (const Transaction& t : probe_run.stream) {
    if (t.type == TransactionType::kWrite) ++pages[t.address >> 12];
  }
  ASSERT_FALSE(pages.empty());
  const u64 page = std::max_element(pages.begin(), pages.end(), [](auto& a, auto& b) {
                     return a.second < b.second;
                   })->first;

  std::vector<imon::Filter> filters(4);
  // Counter 0: every type from odd hardware threads (source trits ...XXX1).
  filters[0].types = ~u64{0} >> (64 - probe::kTransactionTypes);
  filters[0].id_match = imon::Filter::idWord(1, 0);
  filters[0].id_mask = imon::Filter::idWord(1, 0) | imon::Filter::idWord(probe::kSliceAgent, 0);
  // Counter 1 (feeds FIFO 0): writes and reads to that page (address trits, 12 low bits X).
  filters[1].types = typeBit(TransactionType::kWrite) | typeBit(TransactionType::kRead);
  filters[1].addr_match = page << 12;
  filters[1].addr_mask = ~u64{0xfff};
  // Counter 2: reads, prefetches and fetches that DDR supplied, with even transaction ids.
  filters[2].types = typeBit(TransactionType::kRead) | typeBit(TransactionType::kPrefetch) |
                     typeBit(TransactionType::kFetch);
  filters[2].snoops = u64{1} << static_cast<u32>(Snoop::kMemory);
  filters[2].id_mask = imon::Filter::idWord(0, 1);
  // Counter 3 (feeds FIFO 1): the L2 slices' DDR traffic.
  filters[3].types = typeBit(TransactionType::kMemRead) | typeBit(TransactionType::kMemWrite);
  checkRun(runWith("bgq", kBgq, filters), probe_run, filters);
}

TEST(Interconnect, FireplaneCountersAndFifosEqualWhatTheirFiltersMatchInTheRecordedStream) {
  ASSERT_TRUE(std::filesystem::exists(kNodeMix)) << kNodeMix;
  const MonitoredRun probe_run = runWith("sunfire", kSunfire, {});
  ASSERT_FALSE(probe_run.stream.empty());
  std::map<u64, u64> pages;  // physical pages
  for (const Transaction& t : probe_run.stream) {
    if (t.type == TransactionType::kReadToOwn) ++pages[t.address >> 12];
  }
  ASSERT_FALSE(pages.empty());
  const u64 page = std::max_element(pages.begin(), pages.end(), [](auto& a, auto& b) {
                     return a.second < b.second;
                   })->first;
  std::vector<imon::Filter> filters(4);
  // Counter 0: every Fireplane type from odd CPUs.
  filters[0].types = probe::transactionNamespace(probe::Interconnect::kFireplane).global(~u64{0});
  filters[0].id_match = imon::Filter::idWord(1, 0);
  filters[0].id_mask = imon::Filter::idWord(1, 0);
  // Counter 1 (feeds FIFO 0): ownership requests and reads of that physical page.
  filters[1].types = typeBit(TransactionType::kReadToOwn) | typeBit(TransactionType::kReadToShare);
  filters[1].addr_match = page << 12;
  filters[1].addr_mask = ~u64{0xfff};
  // Counter 2: line requests another cache supplied (cache-to-cache), with even ids.
  filters[2].types = typeBit(TransactionType::kReadToShare) |
                     typeBit(TransactionType::kReadToShareAlways) |
                     typeBit(TransactionType::kReadToOwn);
  filters[2].snoops =
      u64{1} << static_cast<u32>(Snoop::kOwned) | u64{1} << static_cast<u32>(Snoop::kModified);
  filters[2].id_mask = imon::Filter::idWord(0, 1);
  // Counter 3 (feeds FIFO 1): writebacks.
  filters[3].types = typeBit(TransactionType::kWriteBack);
  checkRun(runWith("sunfire", kSunfire, filters), probe_run, filters);
}

// Every preset of sunfire's catalogue, programmed by the host as `hpmsim stat` does, counts
// exactly the transactions of its types and snoop results (the memory system's counts).
TEST(Interconnect, EveryFireplanePresetEqualsTheTransactionsItsFilterSelects) {
  ASSERT_TRUE(std::filesystem::exists(kNodeMix)) << kNodeMix;
  std::vector<std::string> overrides = kSunfire;
  overrides.push_back("imon.monitors=16");  // 32 counters: every preset at once
  MachineConfig machine = loadMachine("sunfire", overrides);
  RunOptions options;
  options.root = std::filesystem::temp_directory_path().string();
  Simulation sim(machine, options);
  Monitor* monitor = sim.monitor();
  ASSERT_NE(monitor, nullptr);
  std::vector<const NativeEvent*> events;
  for (const NativeEvent& e : monitor->catalogue()) {
    if (e.transaction_snoops != 0) events.push_back(&e);
  }
  ASSERT_EQ(events.size(), 32u) << "seed Table 1's 11, one per Fireplane type, two by supplier";
  monitor->programHost(events);
  sim.exec(kNodeMix, {kNodeMix, "4"}, {});
  sim.run();
  ASSERT_EQ(sim.kernel().termination().status, 0);
  const probe::TransactionCounts& truth = *sim.transactionTruth();
  std::map<std::string, u64> counted;
  for (const ProgrammedCounter& c : monitor->readHost(sim.elapsedCycles())) {
    const NativeEvent* e = monitor->find(c.event);
    ASSERT_NE(e, nullptr) << c.event;
    EXPECT_EQ(c.value, truth.count(e->transaction_types, e->transaction_snoops)) << c.event;
    counted[c.event] = c.value;
  }
  // The run had each kind of traffic the model generates.
  for (const char* name :
       {"ic_read_to_share", "ic_read_to_share_always", "ic_read_to_own", "ic_read_to_own_upgrade",
        "ic_write_back", "ic_reads_from_cache", "ic_reads_from_memory"}) {
    EXPECT_GT(counted[name], 0u) << name;
  }
  EXPECT_EQ(counted["sfi_hstgrm_all_trans"],
            counted["sfi_hstgm_cohrnt"] + counted["sfi_hstgrm_io"] + counted["sfi_hstgrm_int"]);
  EXPECT_EQ(
      counted["ic_reads_from_cache"] + counted["ic_reads_from_memory"],
      counted["ic_read_to_share"] + counted["ic_read_to_share_always"] + counted["ic_read_to_own"]);
}

void checkRun(const MonitoredRun& run, const MonitoredRun& probe_run,
              const std::vector<imon::Filter>& filters) {
  // Monitoring changes nothing: the same transactions, at the same cycles.
  ASSERT_EQ(run.stream.size(), probe_run.stream.size());
  EXPECT_EQ(run.cycles, probe_run.cycles);
  for (std::size_t i = 0; i < run.stream.size(); ++i) {
    ASSERT_TRUE(same(run.stream[i], probe_run.stream[i])) << "transaction " << i;
  }
  // The recorded stream is the memory system's own count, type by type.
  probe::TransactionCounts recorded;
  for (const Transaction& t : run.stream) recorded.add(t.type, t.snoop);
  EXPECT_EQ(recorded.n, run.truth.n);
  // The stream is in the order the model processes instructions, stamped with their issue
  // cycles. On the crossbar that is cycle order; on Fireplane a store waits in the store queue
  // for its line's ownership, so the instruction behind a full queue issues long after it was
  // scheduled and another CPU's transactions of earlier cycles can follow it (docs/sunfire.md).
  if (run.stream.front().type <
      probe::transactionNamespace(probe::Interconnect::kFireplane).type(0)) {
    for (std::size_t i = 1; i < run.stream.size(); ++i) {
      ASSERT_LE(run.stream[i - 1].cycle, run.stream[i].cycle) << "transactions in cycle order";
    }
  }

  for (u32 c = 0; c < 4; ++c) {
    std::vector<Transaction> matched;
    for (const Transaction& t : run.stream) {
      if (filters[c].matches(t)) matched.push_back(t);
    }
    EXPECT_GT(matched.size(), 8u) << "counter " << c << ": the filter must select something";
    EXPECT_LT(matched.size(), run.stream.size()) << "counter " << c << ": and not everything";
    EXPECT_EQ(run.counts[c], matched.size()) << "counter " << c;
    if (c % 2 == 1) {
      // The FIFO holds the last 8 matches in order; the others were lost, and it says so.
      const u32 m = c / 2;
      ASSERT_EQ(run.fifo[m].size(), 8u);
      for (u32 k = 0; k < 8; ++k) {
        EXPECT_TRUE(same(run.fifo[m][k], matched[matched.size() - 8 + k])) << "entry " << k;
      }
      EXPECT_EQ(run.status[m] & 0xff, 8u);
      EXPECT_EQ(run.status[m] >> 8 & 1, 1u);
      EXPECT_EQ(run.status[m] >> 32, matched.size() - 8);
    }
  }
}

}  // namespace
}  // namespace hpm
