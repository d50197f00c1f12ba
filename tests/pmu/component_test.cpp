// The families behind the counter-unit interface (pmu/counter_unit.h), without a node: each
// attaches its units and catalogue to a probe bus of a preset's shape, and its units are owned,
// programmed and deleted through the interface (under AddressSanitizer too: a unit deleted
// through the wrong type is caught here, in the unit-test set).
#include <gtest/gtest.h>

#include <vector>

#include "isa/ops.h"
#include "pmu/upc/component.h"
#include "pmu/upcq/component.h"
#include "stats/probe.h"

namespace hpm::pmu {
namespace {

probe::Bus busOf(u32 cores, u32 threads_per_core, u32 slices, u32 controllers) {
  probe::Topology t;
  t.cores = cores;
  t.threads = cores * threads_per_core;
  t.slices = slices;
  t.controllers = controllers;
  return probe::Bus(t, static_cast<u32>(isa::kOpCount));
}

TEST(Components, UpcqAttachesAUnitPerCoreAndTheNodeUnitsOwnedThroughTheInterface) {
  const probe::Bus bus = busOf(16, 4, 16, 2);
  Attachment a = upcq::attach(upcq::Params{}, NodeShape{16, 4, &bus});
  ASSERT_EQ(a.units.size(), 16u + 4u);
  EXPECT_EQ(a.units.front()->path(), "/dev/hpm/punit0");
  EXPECT_EQ(a.units[16]->path(), "/dev/hpm/l2");
  EXPECT_EQ(a.units[16]->kind().port_name, "slice");
  for (const auto& u : a.units) EXPECT_EQ(u->sramEntryBits(), 0u) << u->path();
  // The L2 unit keeps slices apart in its sliced mode only; a sliced event's counter on slice s
  // is 6 s + j.
  CounterUnit& l2 = *a.units[16];
  EXPECT_FALSE(l2.hostCountsPerPort(0));
  EXPECT_TRUE(l2.hostCountsPerPort(1));
  EXPECT_EQ(l2.hostAdd(0, 0, 1, "first"), 0u);
  EXPECT_EQ(l2.hostAdd(5, 0, 1, "first"), 30u);
  EXPECT_EQ(l2.hostAdd(0, 1, 1, "second"), 1u);
  EXPECT_EQ(l2.hostAdd(15, 1, 1, "second"), 91u);
  EXPECT_THROW(l2.hostAdd(0, 2, 0, "combined"), Error);
  // A plan forgotten (host multiplexing tries sets of events) takes the other mode afresh.
  l2.hostClear();
  EXPECT_EQ(l2.hostAdd(0, 2, 0, "combined"), 0u);
  // The network unit (no MODE register) keeps its 11 links apart always: counter 6 l + j.
  CounterUnit& nw = *a.units[19];
  EXPECT_EQ(nw.path(), "/dev/hpm/nw");
  EXPECT_EQ(nw.kind().port_name, "link");
  EXPECT_EQ(nw.ports(), 11u);
  EXPECT_TRUE(nw.hostCountsPerPort(0));
  EXPECT_EQ(nw.hostAdd(0, 0, 0, "first"), 0u);
  EXPECT_EQ(nw.hostAdd(10, 0, 0, "first"), 60u);
  EXPECT_EQ(nw.hostAdd(0, 9, 0, "second"), 1u);
  EXPECT_EQ(nw.hostAdd(3, 9, 0, "second"), 19u);
  EXPECT_GT(a.events.size(), 1000u);
  a.units.clear();  // every unit deleted through CounterUnit
}

TEST(Components, UpcAttachesOneUnitWithSramOwnedThroughTheInterface) {
  const probe::Bus bus = busOf(4, 1, 8, 2);
  Attachment a = upc::attach(upc::Params{}, NodeShape{4, 1, &bus});
  ASSERT_EQ(a.units.size(), 1u);
  EXPECT_EQ(a.units[0]->path(), "/dev/hpm/upc");
  EXPECT_EQ(a.units[0]->sramEntryBits(), 56u);  // 52 data bits and 4 parity bits
  EXPECT_EQ(a.events.size(), 1024u);
  a.units[0]->flipSramBit(3, 0, 10);
  a.units[0]->read(a.units[0]->counterOffset(3), 11);
  ASSERT_EQ(a.units[0]->detectedFaults().size(), 1u);
  EXPECT_EQ(a.units[0]->detectedFaults()[0].counter, 3u);
  EXPECT_EQ(a.units[0]->detectedFaults()[0].cycle, 11u);
  a.units.clear();
}

// Every register of `unit`'s window, read at `now` (a second reading equals the first: reads at
// one cycle with no events between change nothing more).
std::vector<u64> registers(CounterUnit& unit, Cycle now) {
  std::vector<u64> values;
  for (u64 offset = 0; offset < unit.windowBytes(); offset += 8) {
    values.push_back(unit.read(offset, now));
  }
  return values;
}

// A narrow store (kernel/device.h) to any register of UPC-P's and UPC-Q's units changes
// nothing: their registers take whole stores only. (The kernel used to merge one by reading the
// register first: a store of 0x01 to a PUnit's OVERFLOW_STATUS then wrote back, and so
// acknowledged, every other bit it read.)
TEST(Components, ANarrowStoreToAnyRegisterOfUpcpOrUpcqChangesNothing) {
  const probe::Bus bus = busOf(16, 4, 16, 2);
  Attachment q = upcq::attach(upcq::Params{}, NodeShape{16, 4, &bus});
  const probe::Bus bus_p = busOf(4, 1, 8, 2);
  Attachment p = upc::attach(upc::Params{}, NodeShape{4, 1, &bus_p});
  std::vector<CounterUnit*> units = {q.units[0].get(),  q.units[16].get(), q.units[17].get(),
                                     q.units[18].get(), q.units[19].get(), p.units[0].get()};
  for (CounterUnit* unit : units) {
    const std::vector<u64> before = registers(*unit, 100);
    for (u64 offset = 0; offset < unit->windowBytes(); offset += 8) {
      for (const unsigned size : {1u, 2u, 4u}) {
        EXPECT_FALSE(unit->writeNarrow(offset + 8 - size, size, 0xffffffff, 100));
        EXPECT_FALSE(unit->writeNarrow(offset, size, 1, 100));
      }
    }
    EXPECT_EQ(registers(*unit, 100), before) << unit->path();
  }
}

}  // namespace
}  // namespace hpm::pmu
