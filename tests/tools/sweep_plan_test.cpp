// hpmsim sweep's plan (tools/hpmsim/lib/sweep_plan.h): the --set KEY=V1,V2,... rules and the
// points' order, on made-up command lines. Test names state the rule they check.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/error.h"
#include "tools/hpmsim/lib/sweep_plan.h"

namespace hpm::tools {
namespace {

using Values = std::vector<std::string>;

// The message of parseAxes' usage error for `sets`, "" if it took them.
std::string usageError(const std::vector<std::string>& sets) {
  try {
    parseAxes(sets);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage) << e.what();
    return e.what();
  }
  return "";
}

TEST(SweepPlan, EachSetIsAnAxisOfItsValuesInTheOrderGiven) {
  const auto axes = parseAxes({"l2.size_kib=8192,32768", "core.store_queue_entries=20,8,40"});
  ASSERT_EQ(axes.size(), 2u);
  EXPECT_EQ(axes[0].key, "l2.size_kib");
  EXPECT_EQ(axes[0].values, (Values{"8192", "32768"}));
  EXPECT_EQ(axes[1].key, "core.store_queue_entries");
  EXPECT_EQ(axes[1].values, (Values{"20", "8", "40"}));
}

TEST(SweepPlan, OnlyTheFirstEqualsSignEndsTheKey) {
  const auto axes = parseAxes({"network.shape=a=b,c"});
  ASSERT_EQ(axes.size(), 1u);
  EXPECT_EQ(axes[0].key, "network.shape");
  EXPECT_EQ(axes[0].values, (Values{"a=b", "c"}));
}

TEST(SweepPlan, ASettingWithoutAKeyOrWithoutValuesIsAUsageError) {
  for (const std::string set : {"core.integer_pipes=", "=1,2", "core.integer_pipes", "="}) {
    EXPECT_EQ(usageError({"l2.size_kib=8192", set}),
              "sweep: --set expects KEY=V1,V2,..., got '" + set + "'");
  }
}

TEST(SweepPlan, AnEmptyValueIsAUsageError) {
  for (const std::string set :
       {"core.integer_pipes=1,,2", "core.integer_pipes=,1", "k=,", "core.integer_pipes=1,2,"}) {
    EXPECT_EQ(usageError({set}), "sweep: empty value in '" + set + "'");
  }
}

TEST(SweepPlan, NoSetsAreNoAxes) {
  EXPECT_TRUE(parseAxes({}).empty());
}

TEST(SweepPlan, TheFirstAxisVariesSlowestAndTheLastFastest) {
  const std::vector<SweepAxis> axes = {{"a", {"1", "2"}}, {"b", {"x", "y", "z"}}};
  EXPECT_EQ(crossProduct(axes),
            (std::vector<Values>{
                {"1", "x"}, {"1", "y"}, {"1", "z"}, {"2", "x"}, {"2", "y"}, {"2", "z"}}));
}

TEST(SweepPlan, ThePointsAreEveryCombinationOnceInTheValuesOrder) {
  const std::vector<SweepAxis> axes = {{"a", {"2", "1"}}, {"b", {"x"}}, {"c", {"p", "q"}}};
  EXPECT_EQ(
      crossProduct(axes),
      (std::vector<Values>{{"2", "x", "p"}, {"2", "x", "q"}, {"1", "x", "p"}, {"1", "x", "q"}}));
}

TEST(SweepPlan, NoAxesAreOnePointOfNoValues) {
  EXPECT_EQ(crossProduct({}), (std::vector<Values>{Values{}}));
}

TEST(SweepPlan, APointsSettingsAreKeyEqualsValueInTheAxesOrder) {
  const std::vector<SweepAxis> axes = {{"l2.size_kib", {"8192", "32768"}},
                                       {"core.integer_pipes", {"1", "2"}}};
  EXPECT_EQ(pointSettings(axes, {"32768", "1"}),
            (Values{"l2.size_kib=32768", "core.integer_pipes=1"}));
}

}  // namespace
}  // namespace hpm::tools
