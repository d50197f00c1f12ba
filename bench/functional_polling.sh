#!/usr/bin/env bash
# The functional mode's parking of spinning threads (kernel.park_polls; docs/PERFORMANCE.md,
# "Spinning threads in the functional mode").
#
#   bench/functional_polling.sh [BUILD_DIR]      (default: build)
#
# 1. Instructions the functional mode retires for OpenMP programs (bench_omp 10, bt, amg 30 1)
#    at 1, 4, 16 and 64 threads with libgomp's passive, default and active waiting, parked
#    (the default) and spinning (kernel.park_polls=false), and each one's ratio to the passive
#    count: the goal is at most 1.5 at 64 threads.
# 2. What probing costs where nothing spins: host seconds of the passive runs with parking on
#    and off, REPEAT (default 8) pairs in alternating order, for bench_omp 20 at 4 and 64 threads
#    (the simulation's own time, --stats-json "host_seconds"): the medians and the median of
#    the pairs' ratios.
set -euo pipefail
build=${1:-build}
repeat=${REPEAT:-8}
hpmsim=$build/tools/hpmsim/hpmsim
bin=$build/guest/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run THREADS POLICY PARK PROGRAM ARGS...: prints "instructions host_seconds".
run() {
  local threads=$1 policy=$2 park=$3
  shift 3
  local envs=(--env "OMP_NUM_THREADS=$threads")
  [ "$policy" != default ] && envs+=(--env "OMP_WAIT_POLICY=$policy")
  "$hpmsim" run --quiet --mode functional --set "kernel.park_polls=$park" "${envs[@]}" \
    --stats-json "$tmp/s.json" -- "$bin/$1" "${@:2}" >/dev/null 2>"$tmp/err" || {
    cat "$tmp/err" >&2
    exit 1
  }
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["instructions"], d["host_seconds"])' "$tmp/s.json"
}

echo "1. Functional-mode instructions (ratio to the passive run's), and the host seconds of the"
echo "   default runs parked and spinning (one run each)"
printf '%-12s %7s %10s %16s %16s %16s %8s %8s\n' program threads passive default active \
  'default,spinning' parked_s spin_s
for program in "bench_omp 10" "bt" "amg 30 1"; do
  read -r -a argv <<<"$program"
  for threads in 1 4 16 64; do
    read -r passive _ < <(run "$threads" passive true "${argv[@]}")
    line=$(printf '%-12s %7s %10s' "$program" "$threads" "$passive")
    seconds=""
    for variant in "default true" "active true" "default false"; do
      read -r policy park <<<"$variant"
      read -r n s < <(run "$threads" "$policy" "$park" "${argv[@]}")
      line+=$(awk -v n="$n" -v p="$passive" 'BEGIN { printf " %10d %5.2f", n, n / p }')
      [ "$policy" = default ] && seconds+=$(printf ' %8.3f' "$s")
    done
    echo "$line$seconds"
  done
done

echo
echo "2. Cost of probing where nothing spins (passive waiting; $repeat pairs in ABBA order)"
printf '%-12s %7s %10s %10s %13s\n' program threads parking_s spinning_s median_ratio
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for threads in 4 64; do
  on=() off=() ratios=()
  for i in $(seq "$repeat"); do
    # (The first run of a pair tends to differ from the second on a drifting machine: the
    # order alternates.)
    if ((i % 2)); then order="true false"; else order="false true"; fi
    for park in $order; do
      read -r _ s < <(run "$threads" passive "$park" bench_omp 20)
      if [ "$park" = true ]; then a=$s; else b=$s; fi
    done
    on+=("$a")
    off+=("$b")
    ratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN { print a / b }')")
  done
  awk -v t="$threads" -v a="$(median "${on[@]}")" -v b="$(median "${off[@]}")" \
    -v r="$(median "${ratios[@]}")" \
    'BEGIN { printf "%-12s %7s %10.3f %10.3f %13.3f\n", "bench_omp 20", t, a, b, r }'
done
