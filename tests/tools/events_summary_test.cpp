// `hpmsim events --summary`: how many of a machine's events count, per unit, and why the others
// never do. The summary is the catalogue's own account, so it is held against the event list
// (`events --json`): every event is counted once, as counting, never counting (with the reason
// the event itself gives) or reserved, and an event says why it never counts exactly when no bus
// input feeds it.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/process.h"

namespace {

namespace fs = std::filesystem;
using hpm::test::RunResult;
using nlohmann::json;

const std::string kHpmsim = HPM_TEST_HPMSIM;

json hpmsimJson(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {kHpmsim};
  argv.insert(argv.end(), args.begin(), args.end());
  const RunResult r = hpm::test::runProcess(argv, {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C"}, "",
                                            fs::current_path(), std::chrono::seconds{120});
  EXPECT_EQ(r.status(), 0) << r.err;
  return json::parse(r.out);
}

class EventsSummary : public ::testing::TestWithParam<std::string> {};

TEST_P(EventsSummary, CountsEveryEventOnceWithTheReasonTheEventGives) {
  const json list = hpmsimJson({"events", "--machine", GetParam(), "--json"});
  const json summary = hpmsimJson({"events", "--machine", GetParam(), "--summary", "--json"});
  std::map<std::string, std::map<std::string, int>> by_unit;  // unit -> column -> events
  std::map<std::string, int> reasons;
  int events = 0;
  for (const json& e : list.at("events")) {
    if (e.value("thread", -1) > 0) continue;  // a per-thread variant, not an event of its own
    ++events;
    const std::string unit = e.at("unit");
    ++by_unit[unit]["events"];
    const std::string never = e.value("never", "");
    if (never.empty()) {
      ++by_unit[unit]["counting"];
    } else if (never == "reserved") {
      ++by_unit[unit]["reserved"];
    } else {
      ++by_unit[unit]["never"];
      ++reasons[never];
      EXPECT_NE(e.at("description").get<std::string>().find(never), std::string::npos)
          << e.at("name") << ": its description does not give its reason";
    }
    // The interconnect monitor's events filter transactions (no bus input feeds them); every
    // other event says why it never counts exactly when nothing feeds it.
    if (unit != "imon") {
      EXPECT_EQ(never.empty(), e.at("wired").get<bool>()) << e.at("name");
    }
  }
  EXPECT_EQ(summary.at("events"), events);
  int counting = 0, never = 0, reserved = 0;
  ASSERT_EQ(summary.at("units").size(), by_unit.size());
  for (const json& u : summary.at("units")) {
    const std::string name = u.at("unit");
    for (const char* column : {"events", "counting", "never", "reserved"}) {
      EXPECT_EQ(u.at(column).get<int>(), by_unit[name][column]) << name << " " << column;
    }
    counting += u.at("counting").get<int>();
    never += u.at("never").get<int>();
    reserved += u.at("reserved").get<int>();
  }
  EXPECT_EQ(summary.at("counting"), counting);
  EXPECT_EQ(summary.at("never"), never);
  EXPECT_EQ(summary.at("reserved"), reserved);
  EXPECT_EQ(counting + never + reserved, events);
  ASSERT_EQ(summary.at("reasons").size(), reasons.size());
  int previous = events;
  for (const json& r : summary.at("reasons")) {
    const int n = r.at("events");
    EXPECT_EQ(n, reasons[r.at("reason").get<std::string>()]) << r.at("reason");
    EXPECT_LE(n, previous) << "the reasons are listed most frequent first";
    previous = n;
  }
}

INSTANTIATE_TEST_SUITE_P(Machines, EventsSummary,
                         ::testing::Values("bgp", "bgq", "sunfire", "cva6"));

}  // namespace
