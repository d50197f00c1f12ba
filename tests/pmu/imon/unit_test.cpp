// The interconnect monitor's registers and rules (pmu/imon/unit.h, docs/interconnect.md), on the
// unit alone: filters of type masks and 1/0/X trits, counters that wrap, the sequence FIFO with
// its overrun flag and lost count.
#include <gtest/gtest.h>

#include <vector>

#include "base/error.h"
#include "guest/include/hpm/imon.h"
#include "pmu/imon/events.h"
#include "pmu/imon/unit.h"
#include "stats/transaction_masks.h"

namespace hpm::imon {
namespace {

using probe::Snoop;
using probe::Transaction;
using probe::TransactionType;

u64 counterReg(u32 monitor, u32 counter, u64 field) {
  return reg::kMonitorBase + monitor * reg::kMonitorStride + counter * reg::kCounterStride + field;
}
u64 fifoReg(u32 monitor, u64 field) {
  return reg::kMonitorBase + monitor * reg::kMonitorStride + field;
}

Transaction tx(Cycle cycle, u64 address, TransactionType type = TransactionType::kRead,
               u32 source = 0, u32 id = 0, Snoop snoop = Snoop::kL2) {
  return Transaction{cycle, address, source, id, probe::kNoSupplier, type, snoop};
}

TEST(IMonUnit, InfoDescribesTheShapeAndResetCountsNothing) {
  Unit u(Params{});
  const u64 info = u.read(reg::kInfo, 0);
  EXPECT_EQ(info & 0xff, 2u);         // monitors
  EXPECT_EQ(info >> 8 & 0xff, 2u);    // counters per monitor
  EXPECT_EQ(info >> 16 & 0xff, 8u);   // FIFO entries
  EXPECT_EQ(info >> 24 & 0xff, 32u);  // counter bits
  EXPECT_EQ(info >> 32 & 0xff, 10u);  // the crossbar's transaction types
  EXPECT_EQ(info >> 40 & 0xff, probe::kSnoopResults);
  EXPECT_EQ(info >> 48 & 0xff, probe::kTransactionIdBits);
  EXPECT_EQ(info >> 56, 0u);  // the crossbar
  EXPECT_FALSE(u.wantsTransactions());
  EXPECT_EQ(u.read(counterReg(0, 0, reg::kSnoops), 0), (u64{1} << probe::kSnoopResults) - 1);
}

TEST(IMonUnit, TheSeedsTritExample110XMatchesExactlyTheAddresses1100And1101) {
  Unit u(Params{});
  u.write(counterReg(0, 0, reg::kTypes), probe::typeBit(TransactionType::kRead), 0);
  u.write(counterReg(0, 0, reg::kAddrMatch), 0b1100, 0);
  u.write(counterReg(0, 0, reg::kAddrMask), 0b1110, 0);  // mask 1: tested; 0: X
  u.write(reg::kRun, 1, 0);
  ASSERT_TRUE(u.wantsTransactions());
  for (u64 a = 0; a < 16; ++a) u.transaction(tx(a, a));
  EXPECT_EQ(u.read(counterReg(0, 0, reg::kCount), 20), 2u);
}

TEST(IMonUnit, EveryFilterTermMustMatch) {
  Unit u(Params{});
  // Counter 1 of monitor 1: writes from odd sources, even ids, that hit the L2.
  u.write(counterReg(1, 1, reg::kTypes), probe::typeBit(TransactionType::kWrite), 0);
  u.write(counterReg(1, 1, reg::kIdMatch), Filter::idWord(1, 0), 0);
  u.write(counterReg(1, 1, reg::kIdMask), Filter::idWord(1, 1), 0);
  u.write(counterReg(1, 1, reg::kSnoops), u64{1} << static_cast<u32>(Snoop::kL2), 0);
  u.write(reg::kRun, 2, 0);
  u64 expected = 0;
  Cycle t = 0;
  for (u32 source = 0; source < 4; ++source) {
    for (u32 id = 0; id < 4; ++id) {
      for (Snoop s : {Snoop::kL2, Snoop::kMemory}) {
        for (TransactionType type : {TransactionType::kWrite, TransactionType::kRead}) {
          u.transaction(tx(t++, 0x1000, type, source, id, s));
          expected +=
              type == TransactionType::kWrite && source % 2 == 1 && id % 2 == 0 && s == Snoop::kL2;
        }
      }
    }
  }
  EXPECT_EQ(expected, 4u);
  EXPECT_EQ(u.read(counterReg(1, 1, reg::kCount), t), expected);
  EXPECT_EQ(u.read(counterReg(0, 0, reg::kCount), t), 0u) << "another counter's filter";
}

TEST(IMonUnit, CountersCountOnlyWhileTheirMonitorRunsAndWrapAtTheirWidth) {
  Params p;
  p.counter_bits = 4;
  Unit u(p);
  u.write(counterReg(0, 0, reg::kTypes), ~u64{0}, 0);
  EXPECT_EQ(u.read(counterReg(0, 0, reg::kTypes), 0), (u64{1} << 10) - 1)
      << "bits beyond the crossbar's 10 types read 0";
  u.transaction(tx(1, 0));  // not running
  EXPECT_EQ(u.read(counterReg(0, 0, reg::kCount), 2), 0u);
  u.write(reg::kRun, 1, 2);
  for (Cycle t = 3; t < 3 + 18; ++t) u.transaction(tx(t, 0));
  EXPECT_EQ(u.read(counterReg(0, 0, reg::kCount), 30), 18u % 16);
  u.write(counterReg(0, 0, reg::kCount), 0x1f, 30);
  EXPECT_EQ(u.read(counterReg(0, 0, reg::kCount), 30), 0xfu) << "a write keeps the low bits";
  u.write(reg::kRun, 0, 31);
  EXPECT_FALSE(u.wantsTransactions());
}

TEST(IMonUnit, TheFifoKeepsTheLastMatchesOfCounterOnesFilterAndReportsEachLostRecordOnce) {
  Unit u(Params{});
  u.write(counterReg(0, 1, reg::kTypes), probe::typeBit(TransactionType::kMemWrite), 0);
  u.write(fifoReg(0, reg::kFifoEnable), 1, 0);
  ASSERT_TRUE(u.wantsTransactions()) << "the FIFO records whether the counters run or not";
  for (u32 i = 0; i < 13; ++i) {
    u.transaction(tx(10 + i, 0x4000 + 0x80 * i, TransactionType::kMemWrite, probe::kSliceAgent + 3,
                     i, Snoop::kNone));
    u.transaction(tx(10 + i, 0x9000, TransactionType::kRead));  // filtered out
  }
  const u64 status = u.read(fifoReg(0, reg::kFifoStatus), 30);
  EXPECT_EQ(status & 0xff, 8u);
  EXPECT_EQ(status >> 8 & 1, 1u) << "overrun";
  EXPECT_EQ(status >> 32, 5u) << "13 matches, 8 held";
  for (u32 i = 5; i < 13; ++i) {
    const u64 info = u.read(fifoReg(0, reg::kFifoPop), 31);
    ASSERT_EQ(info >> 63, 1u);
    EXPECT_EQ(info & 0xff, static_cast<u32>(TransactionType::kMemWrite));
    EXPECT_EQ(info >> 8 & 0xff, static_cast<u32>(Snoop::kNone));
    EXPECT_EQ(info >> 16 & 0xffff, probe::kSliceAgent + 3);
    EXPECT_EQ(info >> 32 & 0x1ff, i);
    EXPECT_EQ(u.read(fifoReg(0, reg::kLatchAddress), 31), 0x4000 + 0x80 * i);
    EXPECT_EQ(u.read(fifoReg(0, reg::kLatchCycle), 31), 10 + i);
  }
  EXPECT_EQ(u.read(fifoReg(0, reg::kFifoPop), 32), 0u) << "empty: no valid bit";
  EXPECT_EQ(u.read(fifoReg(0, reg::kFifoStatus), 33), 0u)
      << "the first read cleared the overrun flag and the lost count; the entries are taken";
  EXPECT_EQ(u.read(counterReg(0, 1, reg::kCount), 33), 0u) << "the counter did not run";
}

// A narrow store (kernel/device.h) to FIFO_POP or FIFO_STATUS pops nothing and clears nothing;
// one to a filter register or a counter merges its bytes into the value.
TEST(IMonUnit, ANarrowStoreNeverPopsTheFifoOrClearsItsLostCountAndMergesIntoPlainRegisters) {
  Unit u(Params{});
  u.write(counterReg(0, 1, reg::kTypes), probe::typeBit(TransactionType::kMemWrite), 0);
  u.write(fifoReg(0, reg::kFifoEnable), 1, 0);
  for (u32 i = 0; i < 13; ++i) {
    u.transaction(tx(10 + i, 0x4000 + 0x80 * i, TransactionType::kMemWrite, 0, i));
  }
  for (const unsigned size : {1u, 2u, 4u}) {
    for (u64 byte = 0; byte + size <= 8; byte += size) {
      EXPECT_FALSE(u.writeNarrow(fifoReg(0, reg::kFifoPop) + byte, size, 1, 30));
      EXPECT_FALSE(u.writeNarrow(fifoReg(0, reg::kFifoStatus) + byte, size, 0, 30));
      EXPECT_FALSE(u.writeNarrow(reg::kInfo + byte, size, 0, 30));
    }
  }
  const u64 status = u.read(fifoReg(0, reg::kFifoStatus), 31);
  EXPECT_EQ(status & 0xff, 8u) << "nothing popped";
  EXPECT_EQ(status >> 32, 5u) << "the lost count stayed";
  EXPECT_EQ(u.read(fifoReg(0, reg::kFifoPop), 31) >> 32 & 0x1ff, 5u) << "the oldest held";

  u.write(counterReg(0, 0, reg::kAddrMatch), 0x1122334455667788, 32);
  EXPECT_TRUE(u.writeNarrow(counterReg(0, 0, reg::kAddrMatch) + 1, 1, 0xaa, 32));
  EXPECT_TRUE(u.writeNarrow(counterReg(0, 0, reg::kAddrMatch) + 4, 4, 0xccddeeff, 32));
  EXPECT_EQ(u.read(counterReg(0, 0, reg::kAddrMatch), 32), 0xccddeeff5566aa88u);
  EXPECT_FALSE(u.writeNarrow(counterReg(0, 0, reg::kCount), 2, 0x1234, 32));
  EXPECT_EQ(u.read(counterReg(0, 0, reg::kCount), 32), 0x1234u);
}

TEST(IMonUnit, ReadOnlyAndReservedRegistersIgnoreWritesAndReadZero) {
  Unit u(Params{});
  const u64 info = u.read(reg::kInfo, 0);
  EXPECT_FALSE(u.write(reg::kInfo, 0, 0));
  EXPECT_EQ(u.read(reg::kInfo, 0), info);
  EXPECT_FALSE(u.write(0x10, 5, 0));
  EXPECT_EQ(u.read(0x10, 0), 0u);
  EXPECT_FALSE(u.write(counterReg(0, 0, 0x38), 5, 0));
  EXPECT_EQ(u.read(counterReg(0, 0, 0x38), 0), 0u);
  EXPECT_FALSE(u.write(reg::kMonitorBase + 2 * reg::kMonitorStride, 5, 0)) << "no monitor 2";
  u.write(reg::kRun, ~u64{0}, 0);
  EXPECT_EQ(u.read(reg::kRun, 0), 3u) << "one run bit per monitor";
  EXPECT_EQ(u.windowBytes(), 4096u);
}

TEST(IMonUnit, HostProgrammingTakesCountersInOrderAndRefusesTheFifthNamingTheLimit) {
  Unit u(Params{});
  const auto table = presets(probe::Interconnect::kCrossbar);
  for (u32 i = 0; i < 4; ++i) EXPECT_EQ(u.hostAdd(0, i, 0, table[i].name), i);
  try {
    u.hostAdd(0, 4, 0, table[4].name);
    FAIL() << "a fifth counter";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("imon.monitors"), std::string::npos) << e.what();
  }
  u.hostStart(0);
  EXPECT_EQ(u.read(reg::kRun, 0), 3u);
  EXPECT_EQ(u.filter(0).types, table[0].types);
  EXPECT_EQ(u.counterOffset(3), counterReg(1, 1, reg::kCount));
  // A multiplexing switch: stopped, the plan forgotten, another preset in counter 0 from then.
  u.hostStop(100);
  EXPECT_EQ(u.read(reg::kRun, 100), 0u);
  EXPECT_EQ(u.hostAdd(0, 5, 0, table[5].name), 0u);
  u.hostStart(200);
  EXPECT_EQ(u.read(reg::kRun, 200), 1u);
  EXPECT_EQ(u.filter(0).types, table[5].types);
}

// On Fireplane the type mask and the FIFO's type field number the bus's own 19 types from 0.
TEST(IMonUnit, AFireplaneUnitsTypeBitsAreItsNamespaces) {
  Params p;
  p.interconnect = probe::Interconnect::kFireplane;
  Unit u(p);
  const auto ns = probe::transactionNamespace(probe::Interconnect::kFireplane);
  EXPECT_EQ(u.read(reg::kInfo, 0) >> 32 & 0xff, 19u);
  EXPECT_EQ(u.read(reg::kInfo, 0) >> 56, 1u) << "the interconnect field says Fireplane";
  const u64 wb = ns.bitOf(TransactionType::kWriteBack);
  u.write(counterReg(0, 1, reg::kTypes), u64{1} << wb, 0);
  EXPECT_EQ(u.read(counterReg(0, 1, reg::kTypes), 0), u64{1} << wb);
  u.write(counterReg(0, 1, reg::kTypes), ~u64{0}, 0);
  EXPECT_EQ(u.read(counterReg(0, 1, reg::kTypes), 0), (u64{1} << 19) - 1) << "19 bits hold";
  u.write(counterReg(0, 1, reg::kTypes), u64{1} << wb, 0);
  u.write(reg::kMonitorBase + reg::kFifoEnable, 1, 0);
  u.write(reg::kRun, 1, 0);
  probe::Transaction t;
  t.type = TransactionType::kReadToShare;  // not matched
  u.transaction(t);
  t.type = TransactionType::kWriteBack;
  t.address = 0x2000000040;
  u.transaction(t);
  EXPECT_EQ(u.read(counterReg(0, 1, reg::kCount), 0), 1u);
  const u64 pop = u.read(reg::kMonitorBase + reg::kFifoPop, 0);
  EXPECT_EQ(pop & 0xff, wb);
  EXPECT_EQ(u.read(reg::kMonitorBase + reg::kLatchAddress, 0), 0x2000000040u);
  // A crossbar type never matches a Fireplane filter, whatever the mask.
  t.type = TransactionType::kMemWrite;
  u.transaction(t);
  EXPECT_EQ(u.read(counterReg(0, 1, reg::kCount), 0), 1u);
}

// The guest's header (guest/include/hpm/imon.h) names the same registers, types and results.
TEST(IMonUnit, TheGuestHeaderAgreesWithTheUnitAndTheTransactionNamespace) {
  static_assert(HPM_IMON_REG_INFO == reg::kInfo && HPM_IMON_REG_RUN == reg::kRun);
  static_assert(HPM_IMON_REG_MONITOR(1) == reg::kMonitorBase + reg::kMonitorStride);
  static_assert(HPM_IMON_REG_COUNTER(1, 1) ==
                reg::kMonitorBase + reg::kMonitorStride + reg::kCounterStride);
  static_assert(HPM_IMON_TYPES_OFF == reg::kTypes && HPM_IMON_ADDR_MATCH_OFF == reg::kAddrMatch &&
                HPM_IMON_ADDR_MASK_OFF == reg::kAddrMask &&
                HPM_IMON_ID_MATCH_OFF == reg::kIdMatch && HPM_IMON_ID_MASK_OFF == reg::kIdMask &&
                HPM_IMON_SNOOPS_OFF == reg::kSnoops && HPM_IMON_COUNT_OFF == reg::kCount);
  static_assert(HPM_IMON_FIFO_ENABLE_OFF == reg::kFifoEnable &&
                HPM_IMON_FIFO_STATUS_OFF == reg::kFifoStatus &&
                HPM_IMON_FIFO_POP_OFF == reg::kFifoPop &&
                HPM_IMON_LATCH_ADDRESS_OFF == reg::kLatchAddress &&
                HPM_IMON_LATCH_CYCLE_OFF == reg::kLatchCycle);
  // Every field of INFO, ID_MATCH/ID_MASK, FIFO_STATUS and FIFO_POP: its place and width.
  constexpr auto same = [](u64 shift, u64 bits, reg::Field f) {
    return shift == f.shift && bits == f.bits;
  };
#define HPM_SAME_FIELD(c, f) same(c##_SHIFT, c##_BITS, reg::f)
  static_assert(HPM_SAME_FIELD(HPM_IMON_INFO_MONITORS, kInfoMonitors) &&
                HPM_SAME_FIELD(HPM_IMON_INFO_COUNTERS, kInfoCounters) &&
                HPM_SAME_FIELD(HPM_IMON_INFO_FIFO_ENTRIES, kInfoFifoEntries) &&
                HPM_SAME_FIELD(HPM_IMON_INFO_COUNTER_BITS, kInfoCounterBits) &&
                HPM_SAME_FIELD(HPM_IMON_INFO_TYPES, kInfoTypes) &&
                HPM_SAME_FIELD(HPM_IMON_INFO_SNOOPS, kInfoSnoops) &&
                HPM_SAME_FIELD(HPM_IMON_INFO_ID_BITS, kInfoIdBits) &&
                HPM_SAME_FIELD(HPM_IMON_INFO_INTERCONNECT, kInfoInterconnect));
  static_assert(HPM_SAME_FIELD(HPM_IMON_ID_SOURCE, kIdSource) &&
                HPM_SAME_FIELD(HPM_IMON_ID_ID, kIdId));
  static_assert(HPM_SAME_FIELD(HPM_IMON_STATUS_HELD, kStatusHeld) &&
                HPM_SAME_FIELD(HPM_IMON_STATUS_OVERRUN, kStatusOverrun) &&
                HPM_SAME_FIELD(HPM_IMON_STATUS_LOST, kStatusLost));
  static_assert(HPM_SAME_FIELD(HPM_IMON_POP_TYPE, kPopType) &&
                HPM_SAME_FIELD(HPM_IMON_POP_SNOOP, kPopSnoop) &&
                HPM_SAME_FIELD(HPM_IMON_POP_SOURCE, kPopSource) &&
                HPM_SAME_FIELD(HPM_IMON_POP_ID, kPopId) &&
                HPM_SAME_FIELD(HPM_IMON_POP_SUPPLIER, kPopSupplier) &&
                HPM_SAME_FIELD(HPM_IMON_POP_VALID, kPopValid));
#undef HPM_SAME_FIELD
  static_assert(HPM_IMON_FIELD_MASK(HPM_IMON_POP_SUPPLIER) == HPM_IMON_NO_SUPPLIER);
  static_assert(HPM_IMON_SLICE_AGENT == probe::kSliceAgent);
  static_assert(HPM_IMON_ID_BITS == probe::kTransactionIdBits);
  static_assert(HPM_IMON_NO_SUPPLIER == probe::kNoSupplier);
  static_assert(HPM_IMON_TYPES == probe::transactionNamespace(probe::Interconnect::kCrossbar).size);
  static_assert(HPM_IMON_FIREPLANE_TYPES ==
                probe::transactionNamespace(probe::Interconnect::kFireplane).size);
  static_assert(HPM_IMON_INTERCONNECT_FIREPLANE ==
                static_cast<int>(probe::Interconnect::kFireplane));
  static_assert(HPM_IMON_SNOOPS == probe::kSnoopResults);
  const std::pair<int, TransactionType> types[] = {
      {HPM_IMON_READ, TransactionType::kRead},
      {HPM_IMON_FETCH, TransactionType::kFetch},
      {HPM_IMON_PREFETCH, TransactionType::kPrefetch},
      {HPM_IMON_WRITE, TransactionType::kWrite},
      {HPM_IMON_ATOMIC, TransactionType::kAtomic},
      {HPM_IMON_INVALIDATE, TransactionType::kInvalidate},
      {HPM_IMON_MEM_READ, TransactionType::kMemRead},
      {HPM_IMON_MEM_WRITE, TransactionType::kMemWrite},
      {HPM_IMON_IO_READ, TransactionType::kIoRead},
      {HPM_IMON_IO_WRITE, TransactionType::kIoWrite},
  };
  for (const auto& [guest, type] : types) EXPECT_EQ(guest, static_cast<int>(type));
  const auto fireplane = probe::transactionNamespace(probe::Interconnect::kFireplane);
  const std::pair<int, TransactionType> fireplane_types[] = {
      {HPM_IMON_RTS, TransactionType::kReadToShare},
      {HPM_IMON_RTSA, TransactionType::kReadToShareAlways},
      {HPM_IMON_RTSR, TransactionType::kReadToShareRemote},
      {HPM_IMON_RTSM, TransactionType::kReadToShareMtag},
      {HPM_IMON_RTO, TransactionType::kReadToOwn},
      {HPM_IMON_RTOR, TransactionType::kReadToOwnRemote},
      {HPM_IMON_RTOU, TransactionType::kReadToOwnUpgrade},
      {HPM_IMON_RS, TransactionType::kReadStream},
      {HPM_IMON_RSR, TransactionType::kReadStreamRemote},
      {HPM_IMON_WS, TransactionType::kWriteStream},
      {HPM_IMON_WSR, TransactionType::kWriteStreamRemote},
      {HPM_IMON_WB, TransactionType::kWriteBack},
      {HPM_IMON_WBR, TransactionType::kWriteBackRemote},
      {HPM_IMON_RIO, TransactionType::kReadIO},
      {HPM_IMON_WIO, TransactionType::kWriteIO},
      {HPM_IMON_RBIO, TransactionType::kReadBlockIO},
      {HPM_IMON_WBIO, TransactionType::kWriteBlockIO},
      {HPM_IMON_INT, TransactionType::kInterrupt},
      {HPM_IMON_FLUSH, TransactionType::kFlush},
  };
  for (const auto& [guest, type] : fireplane_types) {
    EXPECT_EQ(guest, static_cast<int>(fireplane.bitOf(type)));
    EXPECT_EQ(probe::kTransactionTypeInfo[static_cast<u32>(type)].mnemonic.size() > 0, true);
  }
  EXPECT_EQ(HPM_IMON_SNOOP_SHARED, static_cast<int>(Snoop::kShared));
  EXPECT_EQ(HPM_IMON_SNOOP_OWNED, static_cast<int>(Snoop::kOwned));
  EXPECT_EQ(HPM_IMON_SNOOP_MODIFIED, static_cast<int>(Snoop::kModified));
  EXPECT_EQ(HPM_IMON_SNOOP_NONE, static_cast<int>(Snoop::kNone));
  EXPECT_EQ(HPM_IMON_SNOOP_MEMORY, static_cast<int>(Snoop::kMemory));
  EXPECT_EQ(HPM_IMON_SNOOP_L2, static_cast<int>(Snoop::kL2));
}

TEST(IMonUnit, ParametersOutsideTheirRangeAreConfigurationErrors) {
  Params p;
  p.fifo_entries = 0;
  EXPECT_THROW(Unit{p}, Error);
  p = Params{};
  p.monitors = 17;
  EXPECT_THROW(Unit{p}, Error);
}

}  // namespace
}  // namespace hpm::imon
