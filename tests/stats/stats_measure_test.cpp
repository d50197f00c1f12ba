// Each statistic's measure (kind and unit, stats/measure.h): the rule that gives a plain total
// its unit by name, the JSON writer's "units", the recording that carries them between host
// processes, and the text, which keeps its format.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "stats/measure.h"
#include "stats/record.h"
#include "stats/stats.h"
#include "tests/support/stats_units.h"

namespace hpm::stats {
namespace {

using nlohmann::json;

TEST(StatsMeasure, APlainTotalsUnitIsAWordOfItsNameAndACountOtherwise) {
  EXPECT_EQ(unitByName("cycles"), Unit::kCycles);
  EXPECT_EQ(unitByName("busy_cycles"), Unit::kCycles);
  EXPECT_EQ(unitByName("l3_dir0_wait_cycles"), Unit::kCycles);
  EXPECT_EQ(unitByName("instructions"), Unit::kInstructions);
  EXPECT_EQ(unitByName("warmup_instructions"), Unit::kInstructions);
  EXPECT_EQ(unitByName("bytes"), Unit::kBytes);
  EXPECT_EQ(unitByName("io_bytes_read"), Unit::kBytes);
  EXPECT_EQ(unitByName("bytes_sent"), Unit::kBytes);
  EXPECT_EQ(unitByName("misses"), Unit::kCount);
  EXPECT_EQ(unitByName("l1d_load_misses"), Unit::kCount);
  EXPECT_EQ(unitByName("reads128"), Unit::kCount);
  // A word, not a part of one.
  EXPECT_EQ(unitByName("cyclesx"), Unit::kCount);
  EXPECT_EQ(unitByName("kilobytes"), Unit::kCount);
  EXPECT_EQ(unitByName(""), Unit::kCount);
}

TEST(StatsMeasure, AStatisticDeclaredWithoutAMeasureIsATotal) {
  JsonWriter w;
  w.counter("busy_cycles", 3, "");
  w.counter("hits", 4, "");
  EXPECT_EQ(w.units(), json::parse(R"({"busy_cycles": {"kind": "total", "unit": "cycles"},
                                       "hits": {"kind": "total", "unit": "count"}})"));
}

constexpr Stat kDeclared{"most_held_bytes", level(Unit::kBytes), "The most bytes held at once"};

// A made-up model's statistics: groups, a list and each kind of statistic.
void visitModel(Visitor& v) {
  v.counter("cycles", 10, "Cycles");
  v.real("host_seconds", 0.5, total(Unit::kSeconds), "Host seconds");
  v.text("mode", "timing", "Run mode");
  v.beginGroup("queue");
  v.counter(kDeclared, 64);
  v.endGroup();
  v.beginList("threads");
  for (u64 tid = 1; tid <= 2; ++tid) {
    v.beginGroup("");
    v.counter("tid", tid, kLabel, "Thread id");
    v.counter("instructions", 100 * tid, "Instructions");
    v.endGroup();
  }
  v.endList();
}

const json kModelUnits = json::parse(R"({
  "cycles": {"kind": "total", "unit": "cycles"},
  "host_seconds": {"kind": "total", "unit": "seconds"},
  "mode": {"kind": "text", "unit": ""},
  "queue.most_held_bytes": {"kind": "level", "unit": "bytes"},
  "threads.*.tid": {"kind": "label", "unit": ""},
  "threads.*.instructions": {"kind": "total", "unit": "instructions"}})");

TEST(StatsMeasure, TheJsonHasEveryStatisticsMeasureAtItsPathWithAListsElementsAsStar) {
  JsonWriter w;
  visitModel(w);
  EXPECT_EQ(w.units(), kModelUnits);
  EXPECT_EQ(hpm::test::measureProblems(w.result(), w.units()), std::vector<std::string>{});
}

TEST(StatsMeasure, TheValuesAreWrittenAsTheyWereWithoutMeasures) {
  JsonWriter w;
  visitModel(w);
  EXPECT_EQ(w.result(), json::parse(R"({"cycles": 10, "host_seconds": 0.5, "mode": "timing",
      "queue": {"most_held_bytes": 64},
      "threads": [{"tid": 1, "instructions": 100}, {"tid": 2, "instructions": 200}]})"));
}

TEST(StatsMeasure, OnePathDeclaredWithTwoMeasuresIsTheModelsError) {
  JsonWriter w;
  w.beginList("links");
  w.beginGroup("");
  w.counter("depth", 3, level(Unit::kCount), "");
  w.endGroup();
  w.beginGroup("");
  try {
    w.counter("depth", 3, total(Unit::kCount), "");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kInternal);
    EXPECT_STREQ(e.what(),
                 R"(statistic 'links.*.depth' is declared as {"kind":"level","unit":"count"} )"
                 R"(and as {"kind":"total","unit":"count"})");
  }
}

TEST(StatsMeasure, AReplayedRecordingHasEveryMeasureOfTheVisits) {
  Recorder r;
  visitModel(r);
  JsonWriter w;
  replay(r.take(), w);
  EXPECT_EQ(w.units(), kModelUnits);
}

TEST(StatsMeasure, TheTextKeepsItsFormatWithoutMeasures) {
  TextWriter t;
  visitModel(t);
  EXPECT_EQ(t.str(),
            "cycles                      10  # Cycles\n"
            "host_seconds               0.5  # Host seconds\n"
            "mode                    timing  # Run mode\n"
            "queue.most_held_bytes       64  # The most bytes held at once\n"
            "threads.0.tid                1  # Thread id\n"
            "threads.0.instructions     100  # Instructions\n"
            "threads.1.tid                2  # Thread id\n"
            "threads.1.instructions     200  # Instructions\n");
}

}  // namespace
}  // namespace hpm::stats
