#!/usr/bin/env bash
# The cost of PAPI's calls to the guest, in simulated cycles (deterministic: no alternation or
# medians needed): runs the papi_cost utility on bgq and fails when PAPI_read of two PUnit
# counters costs more than 150 cycles on average, the timer's own cost taken off
# (docs/PERFORMANCE.md, "PAPI calls"; the first read of a run also pays for cold caches, so the
# maximum is higher).
# Usage: bench/papi_cost.sh [BUILD_DIR] [ITERATIONS]   (defaults build, 1000)
set -euo pipefail
build=${1:-build}
iterations=${2:-1000}
# Run as ./papi_cost from the guest binaries' folder, as the docs' table is made: the path goes onto
# the guest's stack, so another path shifts the stack and the figures a little.
hpmsim=$(realpath "$build/tools/hpmsim/hpmsim")
out=$(cd "$build/guest/bin" && "$hpmsim" run --machine bgq --env-clear -- ./papi_cost -t "$iterations")
echo "$out"
# The mean of a report, in cycles; PAPI_read's cost is its mean less the timer's own (the loop
# latency: the two PAPI_get_real_cyc calls around each measured call).
mean() {
  echo "$out" | awk -v what="$1" 'index($0, "Total cost for " what " over") == 1 {f = 1}
                                  f && /^mean cycles/ {print $4; exit}'
}
read=$(mean "PAPI_read (2 counters)")
timer=$(mean "loop latency")
net=$(awk -v r="$read" -v t="$timer" 'BEGIN {printf "%.0f", r - t}')
echo "PAPI_read (2 counters): $net cycles on average ($read measured, less $timer of the timer;" \
  "goal: at most 150)"
[ -n "$net" ] && [ "$net" -le 150 ]
