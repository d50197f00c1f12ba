// hpmsim events' summary and printers on made-up catalogues, without a machine: the summary's
// rules, and the exact lines of the listing, of docs/events.md's tables and of the JSON objects
// scripts read. (events_summary_test.cpp holds the summary against a real machine's list.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/json_text.h"
#include "tools/hpmsim/lib/events_catalog.h"
#include "tools/hpmsim/lib/events_print.h"

namespace hpm::tools {
namespace {

constexpr RunModes kAllModes = 0b1111;
constexpr RunModes kMemoryModesOnly = 0b1110;  // warmup, timing, profile

EventRow row(const std::string& name, const std::string& unit, u32 input,
             const std::string& never = "") {
  EventRow e;
  e.name = name;
  e.unit = unit;
  e.input = input;
  e.never = never;
  e.description = never.empty() ? name : "never counts: " + never;
  return e;
}

EventRow threadRow(const std::string& name, i32 thread, u32 input) {
  EventRow e = row(name + "@t" + std::to_string(thread), "punit", input);
  e.thread = thread;
  return e;
}

// A BG/Q-like catalogue: per-thread variants of one event, and an L2 event that counts and one
// that never does.
EventsCatalog bgqLike() {
  EventsCatalog c;
  c.machine = "bgq";
  c.family = "upcq";
  c.family_title = "UPC-Q";
  c.family_description = "the Blue Gene/Q units";
  c.devices = {"/dev/hpm/upc", "/dev/hpm/sim"};
  EventRow t0 = threadRow("PEVT_INST_ALL", 0, 0);
  t0.id = 1;
  t0.scope = probe::Scope::kThread;
  t0.run_modes = kAllModes;
  t0.description = "instructions";
  EventRow t1 = t0;
  t1.name = "PEVT_INST_ALL@t1";
  t1.thread = 1;
  t1.input = 1024;
  EventRow hits = row("PEVT_L2_HITS", "l2", 7);
  hits.id = 2;
  hits.kind = probe::Kind::kLevel;
  hits.scope = probe::Scope::kL2Slice;
  hits.run_modes = kMemoryModesOnly;
  hits.description = "L2 hits";
  c.events = {t0, t1, hits, row("PEVT_X", "l2", 8, "no signal")};
  return c;
}

// A BG/P-like catalogue: every input has its own counter and select.
EventsCatalog fixedLike() {
  EventsCatalog c;
  c.machine = "bgp";
  c.family = "upcp";
  c.family_title = "UPC-P";
  c.family_description = "the Blue Gene/P unit";
  c.devices = {"/dev/hpm/upc"};
  c.fixed = true;
  EventRow cycles = row("BGP_PU0_CYCLES", "upc", 0);
  cycles.counter = 0;
  cycles.select = 0;
  cycles.kind = probe::Kind::kLevel;
  cycles.scope = probe::Scope::kCore;
  cycles.run_modes = kAllModes;
  cycles.description = "cycles";
  EventRow misses = row("BGP_PU1_MISSES", "upc", 1025);
  misses.counter = 1;
  misses.select = 3;
  misses.scope = probe::Scope::kCore;
  misses.run_modes = 0b1100;
  misses.description = "misses";
  c.events = {cycles, misses};
  return c;
}

const std::string kRule(100, '-');

TEST(EventsSummaryRules, PerThreadVariantsAreNotEventsOfTheirOwnButThreadZeroStandsForThem) {
  const EventsSummary s = summarizeEvents(bgqLike().events);
  EXPECT_EQ(s.events, 3u);
  ASSERT_EQ(s.units.size(), 2u);
  EXPECT_EQ(s.units[0].name, "punit");
  EXPECT_EQ(s.units[0].events, 1u);
}

TEST(EventsSummaryRules, UnitsComeInTheOrderOfTheirFirstEventAndAddUpToTheTotals) {
  const EventsSummary s =
      summarizeEvents({row("A", "l2", 0), row("B", "io", 1, "no signal"), row("C", "l2", 2)});
  ASSERT_EQ(s.units.size(), 2u);
  EXPECT_EQ(s.units[0].name, "l2");
  EXPECT_EQ(s.units[0].events, 2u);
  EXPECT_EQ(s.units[0].counting, 2u);
  EXPECT_EQ(s.units[1].name, "io");
  EXPECT_EQ(s.units[1].never, 1u);
  EXPECT_EQ(s.events, 3u);
  EXPECT_EQ(s.counting, 2u);
  EXPECT_EQ(s.never, 1u);
}

TEST(EventsSummaryRules, ReservedInputsAreCountedApartAndAreNoReasonToNeverCount) {
  const EventsSummary s = summarizeEvents(
      {row("A", "upc", 0, std::string(kReservedInput)), row("B", "upc", 1, "no signal")});
  EXPECT_EQ(s.reserved, 1u);
  EXPECT_EQ(s.units[0].reserved, 1u);
  EXPECT_EQ(s.never, 1u);
  ASSERT_EQ(s.reasons.size(), 1u);
  EXPECT_EQ(s.reasons[0].text, "no signal");
}

TEST(EventsSummaryRules, ReasonsComeMostFrequentFirstAndTiesInTheOrderFirstSeen) {
  const EventsSummary s = summarizeEvents({row("A", "l2", 0, "first"), row("B", "l2", 1, "second"),
                                           row("C", "l2", 2, "third"), row("D", "l2", 3, "third")});
  ASSERT_EQ(s.reasons.size(), 3u);
  EXPECT_EQ(s.reasons[0].text, "third");
  EXPECT_EQ(s.reasons[0].events, 2u);
  EXPECT_EQ(s.reasons[1].text, "first");
  EXPECT_EQ(s.reasons[2].text, "second");
}

TEST(EventsPrint, ModeLettersGiveEachRunModeItsLetterInOrderAndADashWhereItDoesNotCount) {
  EXPECT_EQ(modeLetters(kAllModes), "fwtp");
  EXPECT_EQ(modeLetters(kMemoryModesOnly), "-wtp");
  EXPECT_EQ(modeLetters(0b1100), "--tp");
  EXPECT_EQ(modeLetters(0), "----");
}

TEST(EventsPrint, TheListingShowsPerThreadVariantsOnceAsThreadZerosAndCountsTheLinesShown) {
  EXPECT_EQ(eventsText(bgqLike()),
            "Native events of machine bgq (UPC-Q), devices /dev/hpm/upc, /dev/hpm/sim\n"
            "Modes: the run modes it counts in (f functional, w warmup, t timing, p profile; - "
            "not there)\n" +
                kRule +
                "\n"
                "PEVT_INST_ALL@t<t>                       punit   1 input 0 + 1024 t pulse "
                "hardware thread   fwtp  instructions\n"
                "PEVT_L2_HITS                             l2      2 input          7 level L2 "
                "slice          -wtp  L2 hits\n"
                "PEVT_X                                   l2        input          8 pulse node "
                "             ----  never counts: no signal\n" +
                kRule + "\nTotal events reported: 3\n");
}

TEST(EventsPrint, AUnitWhoseInputsHaveTheirOwnCountersListsCounterAndSelect) {
  EXPECT_EQ(eventsText(fixedLike()),
            "Native events of machine bgp (UPC-P), devices /dev/hpm/upc\n"
            "Modes: the run modes it counts in (f functional, w warmup, t timing, p profile; - "
            "not there)\n" +
                kRule +
                "\n"
                "BGP_PU0_CYCLES                     counter   0 select 0 input    0 level core  "
                "            fwtp  cycles\n"
                "BGP_PU1_MISSES                     counter   1 select 3 input 1025 pulse core  "
                "            --tp  misses\n" +
                kRule + "\nTotal events reported: 2\n");
}

TEST(EventsPrint, TheMarkdownIsTheSummarysTablesThenTheReferenceTable) {
  EXPECT_EQ(eventsMarkdown(bgqLike()),
            "## bgq: UPC-Q, the Blue Gene/Q units (3 native events)\n\n"
            "Devices: /dev/hpm/upc, /dev/hpm/sim\n\n"
            "| unit | events | count | never count | reserved inputs |\n"
            "|---|---|---|---|---|\n"
            "| punit | 1 | 1 | 0 | 0 |\n"
            "| l2 | 2 | 1 | 1 | 0 |\n"
            "| all | 3 | 2 | 1 | 0 |\n\n"
            "| events | why they never count here |\n"
            "|---|---|\n"
            "| 1 | no signal |\n\n"
            "| unit | BGPM | input | event | kind | scope | modes | counts |\n"
            "|---|---|---|---|---|---|---|---|\n"
            "| punit | 1 | 0 + 1024 t | `PEVT_INST_ALL@t<t>` | pulse | hardware thread | "
            "functional warmup timing profile | instructions |\n"
            "| l2 | 2 | 7 | `PEVT_L2_HITS` | level | L2 slice | warmup timing profile | L2 hits |\n"
            "| l2 |  | 8 | `PEVT_X` | pulse | node | never | never counts: no signal |\n\n");
}

TEST(EventsPrint, TheMarkdownOfAFixedUnitListsEveryInputWithItsCounterAndSelect) {
  const std::string md = eventsMarkdown(fixedLike());
  EXPECT_NE(md.find("| input | counter | select | event | kind | scope | modes | counts |\n"
                    "|---|---|---|---|---|---|---|---|\n"
                    "| 0 | 0 | 0 | `BGP_PU0_CYCLES` | level | core | functional warmup timing "
                    "profile | cycles |\n"
                    "| 1025 | 1 | 3 | `BGP_PU1_MISSES` | pulse | core | timing profile | misses |\n"
                    "\n"),
            std::string::npos)
      << md;
  // Without a reason to never count, the summary has no table of reasons.
  EXPECT_EQ(md.find("why they never count"), std::string::npos);
}

TEST(EventsPrint, TheSummaryTextHasAColumnPerCountAndTheReasonsMostFrequentFirst) {
  EXPECT_EQ(eventsSummaryText(bgqLike()),
            "Events of machine bgq (UPC-Q): how many count, per unit\n"
            "unit      events   count  never count  reserved\n"
            "punit          1       1            0         0\n"
            "l2             2       1            1         0\n"
            "all            3       2            1         0\n"
            "\n"
            "Why events never count here (events: reason)\n"
            "     1  no signal\n");
}

TEST(EventsPrint, TheSummaryObjectHasTheTotalsTheUnitsAndTheReasonsWithTheMachine) {
  EXPECT_EQ(jsonText(eventsSummaryJson(bgqLike())),
            R"({"counting":2,"events":3,"machine":"bgq","never":1,)"
            R"("reasons":[{"events":1,"reason":"no signal"}],"reserved":0,"unit":"upcq",)"
            R"("units":[{"counting":1,"events":1,"never":0,"reserved":0,"unit":"punit"},)"
            R"({"counting":1,"events":2,"never":1,"reserved":0,"unit":"l2"}]})");
}

TEST(EventsPrint, TheObjectHoldsEveryVariantAndOnlyTheFieldsThatApplyToAnEvent) {
  EventsCatalog c = bgqLike();
  c.events[0].instances = 16;
  c.events[0].wired = true;
  c.events[0].generic = "Instructions";
  c.events[0].core = 3;
  c.events[3].unit_mode = 1;
  c.sim_events = {{"Cycles", "hardware thread", "clock cycles"}};
  const nlohmann::json j = eventsJson(c);
  EXPECT_EQ(j.at("machine"), "bgq");
  EXPECT_EQ(j.at("unit"), "upcq");
  EXPECT_EQ(j.at("devices"), nlohmann::json::array({"/dev/hpm/upc", "/dev/hpm/sim"}));
  ASSERT_EQ(j.at("events").size(), 4u);
  EXPECT_EQ(jsonText(j.at("events")[0]),
            R"({"core":3,"description":"instructions","generic":"Instructions","id":1,)"
            R"("input":0,"instances":16,"kind":"pulse",)"
            R"("modes":["functional","warmup","timing","profile"],"name":"PEVT_INST_ALL@t0",)"
            R"("scope":"hardware thread","thread":0,"unit":"punit","wired":true})");
  EXPECT_EQ(jsonText(j.at("events")[3]),
            R"({"description":"never counts: no signal","generic":"","input":8,"instances":0,)"
            R"("kind":"pulse","modes":[],"name":"PEVT_X","never":"no signal","scope":"node",)"
            R"("unit":"l2","unit_mode":1,"wired":false})");
  EXPECT_EQ(jsonText(j.at("sim_events")),
            R"([{"description":"clock cycles","name":"Cycles","scope":"hardware thread"}])");
}

TEST(EventsPrint, AFixedUnitsEventsCarryTheirCounterAndSelect) {
  const nlohmann::json e = eventsJson(fixedLike()).at("events")[1];
  EXPECT_EQ(e.at("counter"), 1);
  EXPECT_EQ(e.at("select"), 3);
  EXPECT_EQ(e.at("modes"), nlohmann::json::array({"timing", "profile"}));
}

TEST(EventsPrint, AMachineWithoutUnitsSaysSoInTextAndGivesTheSameObjectsEmpty) {
  const EventsCatalog c = noUnitsCatalog("plain");
  const std::string said = "machine plain has no counter unit (monitor.unit = none)\n";
  EXPECT_EQ(eventsText(c), said);
  EXPECT_EQ(eventsMarkdown(c), said);
  EXPECT_EQ(eventsSummaryText(c), said);
  EXPECT_EQ(jsonText(eventsJson(c)), R"({"events":[],"machine":"plain","unit":"none"})");
  EXPECT_EQ(jsonText(eventsSummaryJson(c)),
            R"({"counting":0,"events":0,"machine":"plain","never":0,"reasons":[],)"
            R"("reserved":0,"unit":"none","units":[]})");
}

GenericNames someNames() {
  GenericNames g;
  g.machine = "bgq";
  g.names = {{"instructions", "perf", "PEVT_A + PEVT_B", {"PEVT_A", "PEVT_B"}},
             {"task-clock", "perf", "the kernel: the process's CPU time (msec)", {}},
             {"L1dMisses", "generic", "-PEVT_C", {"PEVT_C"}}};
  return g;
}

TEST(EventsPrint, TheGenericNamesAreOneLineEachWithTheirKindAndDefinition) {
  EXPECT_EQ(genericNamesText(someNames()),
            "Names `hpmsim stat` takes on machine bgq besides native events (perf's, then the "
            "generic events), and what each counts\n" +
                kRule +
                "\n"
                "instructions                 perf     PEVT_A + PEVT_B\n"
                "task-clock                   perf     the kernel: the process's CPU time (msec)\n"
                "L1dMisses                    generic  -PEVT_C\n");
}

TEST(EventsPrint, TheGenericNamesObjectListsEachNamesNativeEvents) {
  // (A delimiter of its own for the definition that holds `)"`.)
  const std::string expected =
      R"({"machine":"bgq","names":[)"
      R"({"definition":"PEVT_A + PEVT_B","kind":"perf","name":"instructions",)"
      R"("natives":["PEVT_A","PEVT_B"]},)"
      R"j({"definition":"the kernel: the process's CPU time (msec)","kind":"perf",)j"
      R"("name":"task-clock","natives":[]},)"
      R"({"definition":"-PEVT_C","kind":"generic","name":"L1dMisses",)"
      R"("natives":["PEVT_C"]}]})";
  EXPECT_EQ(jsonText(genericNamesJson(someNames())), expected);
}

}  // namespace
}  // namespace hpm::tools
