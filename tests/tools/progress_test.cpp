// The sweep's progress line's estimate of the time left (tools/hpmsim/lib/progress.h), as a
// function of the points done and the time. Test names state the rule they check.
#include <gtest/gtest.h>

#include <optional>

#include "tools/hpmsim/lib/progress.h"

namespace hpm::tools {
namespace {

TEST(SecondsLeft, NoneBeforeTheFirstPointHasFinished) {
  EXPECT_EQ(secondsLeft(10, 0, 0.0, 0.0), std::nullopt);
  EXPECT_EQ(secondsLeft(10, 0, 0.0, 50.0), std::nullopt);
}

// When a point finishes, the points left at the throughput so far: 2 of 10 in 20 s leave 8 at
// 10 s each.
TEST(SecondsLeft, WhenAPointFinishesItIsThePointsLeftAtTheThroughputSoFar) {
  EXPECT_DOUBLE_EQ(*secondsLeft(10, 2, 20.0, 20.0), 80.0);
  EXPECT_DOUBLE_EQ(*secondsLeft(10, 10, 60.0, 60.0), 0.0);
}

// While the next point runs, nothing new is known about the rate: the estimate counts down one
// second per second (it grew with the time, as if the running point made the rest slower), and
// stops at 0 rather than going negative.
TEST(SecondsLeft, NeverGrowsWhileAPointRunsAndNeverFallsBelowZero) {
  EXPECT_DOUBLE_EQ(*secondsLeft(10, 2, 20.0, 30.0), 70.0);
  EXPECT_DOUBLE_EQ(*secondsLeft(10, 2, 20.0, 100.0), 0.0);
  EXPECT_DOUBLE_EQ(*secondsLeft(10, 2, 20.0, 500.0), 0.0);
  double last = *secondsLeft(10, 2, 20.0, 20.0);
  for (double now = 20.0; now <= 200.0; now += 0.5) {
    const double left = *secondsLeft(10, 2, 20.0, now);
    EXPECT_LE(left, last) << now;
    EXPECT_GE(left, 0.0) << now;
    last = left;
  }
}

}  // namespace
}  // namespace hpm::tools
