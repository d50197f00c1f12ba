// busstat's measurement without a guest: the events each counter counts and the checks of the
// counter budget, the rotation of --distribution's type filters, the FIFO sampling's checks, and
// the RUN bits of the monitors in use.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/error.h"
#include "tools/hpmsim/lib/busstat_measure.h"
#include "tools/hpmsim/lib/imon_host.h"

namespace hpm::tools {
namespace {

using Names = std::vector<std::string>;

// The message of the Error `f` throws, or "" when it throws none; `code` gets its exit code.
template <typename F>
std::string failure(F f, ExitCode* code = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (code != nullptr) *code = e.code();
    return e.what();
  }
  return "";
}

constexpr probe::Interconnect kCrossbar = probe::Interconnect::kCrossbar;

TEST(BusstatEvents, WithoutDashETheFourDefaultsAreCutToTheUnitsCounters) {
  EXPECT_EQ(busstatEvents({}, false, kCrossbar, 4, 2),
            (Names{"sfi_hstgrm_all_trans", "sfi_hstgm_cohrnt", "sfi_hstgrm_io", "ic_mem_write"}));
  EXPECT_EQ(busstatEvents({}, false, kCrossbar, 8, 4),
            (Names{"sfi_hstgrm_all_trans", "sfi_hstgm_cohrnt", "sfi_hstgrm_io", "ic_mem_write"}));
  EXPECT_EQ(busstatEvents({}, false, kCrossbar, 2, 1),
            (Names{"sfi_hstgrm_all_trans", "sfi_hstgm_cohrnt"}));
}

TEST(BusstatEvents, FireplanesDefaultWriteToMemoryIsTheExternalCachesWriteBack) {
  EXPECT_EQ(busstatEvents({}, false, probe::Interconnect::kFireplane, 4, 2),
            (Names{"sfi_hstgrm_all_trans", "sfi_hstgm_cohrnt", "sfi_hstgrm_io", "ic_write_back"}));
}

TEST(BusstatEvents, DashEListsAreSplitAtCommasInTheOrderGiven) {
  EXPECT_EQ(busstatEvents({"ic_write,ic_read", "ic_fetch"}, false, kCrossbar, 4, 2),
            (Names{"ic_write", "ic_read", "ic_fetch"}));
}

TEST(BusstatEvents, MoreEventsThanCountersAreRefusedNamingTheMonitors) {
  ExitCode code = ExitCode::kInternal;
  EXPECT_EQ(failure(
                [] {
                  busstatEvents({"a,b,c", "d,e"}, false, kCrossbar, 4, 2);
                },
                &code),
            "busstat: 5 events asked, the interconnect monitor has 4 counters (imon.monitors = 2 "
            "monitors of 2)");
  EXPECT_EQ(code, ExitCode::kUsage);
  EXPECT_EQ(failure([] { busstatEvents({"a,b"}, false, kCrossbar, 2, 1); }), "");
}

TEST(BusstatEvents, DistributionSetsTheFiltersItselfAndTakesNoDashE) {
  EXPECT_EQ(busstatEvents({}, true, kCrossbar, 4, 2), Names{});
  ExitCode code = ExitCode::kInternal;
  EXPECT_EQ(failure([] { busstatEvents({"ic_read"}, true, kCrossbar, 4, 2); }, &code),
            "busstat: --distribution sets the filters itself: give no -e");
  EXPECT_EQ(code, ExitCode::kUsage);
}

TEST(BusstatInterval, DistributionRotatesEvery100000CyclesUnlessAnIntervalIsGiven) {
  EXPECT_EQ(busstatInterval(0, true), 100000u);
  EXPECT_EQ(busstatInterval(0, false), 0u);
  EXPECT_EQ(busstatInterval(500, true), 500u);
  EXPECT_EQ(busstatInterval(500, false), 500u);
}

TEST(BusstatPresets, ANameIsLookedUpAmongTheMachinesInterconnectsPresets) {
  EXPECT_EQ(presetNamed("ic_read", probe::Interconnect::kCrossbar).name, "ic_read");
  EXPECT_EQ(presetNamed("ic_write_back", probe::Interconnect::kFireplane).name, "ic_write_back");
  ExitCode code = ExitCode::kInternal;
  EXPECT_EQ(failure([] { presetNamed("sfi_nonsense", probe::Interconnect::kCrossbar); }, &code),
            "busstat: unknown event 'sfi_nonsense' (hpmsim events --unit imon lists them)");
  EXPECT_EQ(code, ExitCode::kUsage);
  // (Fireplane's transaction types have no presets on the crossbar.)
  EXPECT_NE(failure([] { presetNamed("ic_write_back", probe::Interconnect::kCrossbar); }), "");
}

TEST(BusstatRotation, EachRoundGoesOnWithTheTypesWhereTheLastLeftOff) {
  const auto round = [](u64 r) {
    std::vector<u32> types;
    for (u32 c = 0; c < rotatedCounters(4, 6); ++c) types.push_back(rotatedItem(r, c, 4, 6));
    return types;
  };
  EXPECT_EQ(round(0), (std::vector<u32>{0, 1, 2, 3}));
  EXPECT_EQ(round(1), (std::vector<u32>{4, 5, 0, 1}));
  EXPECT_EQ(round(2), (std::vector<u32>{2, 3, 4, 5}));
  EXPECT_EQ(round(3), round(0));
}

TEST(BusstatRotation, OverAsManyRoundsAsTypesEveryTypeIsWatchedEquallyOften) {
  const u32 counters = 4, types = 10;
  std::vector<u32> watched(types);
  for (u64 r = 0; r < types; ++r) {
    for (u32 c = 0; c < rotatedCounters(counters, types); ++c) {
      ++watched[rotatedItem(r, c, counters, types)];
    }
  }
  EXPECT_EQ(watched, std::vector<u32>(types, counters));
}

TEST(BusstatRotation, NoTwoCountersWatchOneTypeWhenThereAreMoreCountersThanTypes) {
  EXPECT_EQ(rotatedCounters(8, 5), 5u);
  EXPECT_EQ(rotatedCounters(4, 12), 4u);
  // The stride stays the unit's counters: each round still watches every type once.
  for (u64 r = 0; r < 5; ++r) {
    std::vector<u32> watched(5);
    for (u32 c = 0; c < rotatedCounters(8, 5); ++c) ++watched[rotatedItem(r, c, 8, 5)];
    EXPECT_EQ(watched, std::vector<u32>(5, 1)) << "round " << r;
  }
}

TEST(BusstatFifo, SamplingTheFifosNeedsTwoCountersAndNoDistribution) {
  ExitCode code = ExitCode::kInternal;
  EXPECT_EQ(failure([] { checkFifoSampling(true, 4); }, &code),
            "busstat: --fifo and --trace go without --distribution");
  EXPECT_EQ(code, ExitCode::kUsage);
  EXPECT_EQ(failure([] { checkFifoSampling(false, 1); }),
            "busstat: the FIFO records counter 1's matches: give two events");
  EXPECT_EQ(failure([] { checkFifoSampling(false, 2); }), "");
}

TEST(ImonRun, TheRunBitsAreTheMonitorsOfTheCountersInUse) {
  EXPECT_EQ(monitorsOf(0), 0u);
  EXPECT_EQ(monitorsOf(1), 0b1u);
  EXPECT_EQ(monitorsOf(2), 0b1u);
  EXPECT_EQ(monitorsOf(3), 0b11u);
  EXPECT_EQ(monitorsOf(4), 0b11u);
  EXPECT_EQ(monitorsOf(5), 0b111u);
}

TEST(ImonFilters, ATypeFilterMatchesItsTypesWithItsSnoopResultsAnywhere) {
  probe::Transaction t;
  t.type = probe::TransactionType::kWrite;
  t.snoop = probe::Snoop::kNone;
  t.address = 0x123440;
  t.source = 7;
  EXPECT_TRUE(typeFilter(typeBit(probe::TransactionType::kWrite)).matches(t));
  EXPECT_FALSE(typeFilter(typeBit(probe::TransactionType::kRead)).matches(t));
  EXPECT_FALSE(typeFilter(typeBit(probe::TransactionType::kWrite),
                          u64{1} << static_cast<u32>(probe::Snoop::kL2))
                   .matches(t));
}

}  // namespace
}  // namespace hpm::tools
