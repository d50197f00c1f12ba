// The cycles a level signal is high, kept as the union of the intervals [start, end) that raise
// it: each request outstanding from its issue to its fill, say, the signal "at least one
// outstanding". Exact, with no per-cycle work, for intervals added in order of their starts
// (each start >= the start of the one before), as a model adds them when its requests are made
// in cycle order; an interval starting earlier is taken from the last run's end (its cycles before
// that are lost). Plain fields, so that a model can name them as the terms of its ground truth:
// the cycles so far are done + until - from.
#pragma once

#include <algorithm>
#include <utility>

#include "base/types.h"

namespace hpm {

struct IntervalUnion {
  u64 done = 0;     // the cycles of the runs before the last
  Cycle from = 0;   // the last run of the union: [from, until)
  Cycle until = 0;  //

  // Adds [start, end) and returns the part of it the union did not cover yet, [first, second)
  // (empty when first >= second): the cycles a level signal publishes for it.
  std::pair<Cycle, Cycle> add(Cycle start, Cycle end) {
    start = std::max(start, until);
    if (end <= start) return {start, start};
    if (start > until) {
      done += until - from;
      from = start;
    }
    until = end;
    return {start, end};
  }
  // The union's cycles (those still to come included).
  u64 total() const { return done + (until - from); }
};

}  // namespace hpm
