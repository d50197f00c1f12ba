#!/usr/bin/env bash
# Simulation speed of hpmsim's run modes: seed 003's Table 1 for hpmsim (docs/PERFORMANCE.md,
# "Run modes").
#
#   bench/modes_speed.sh [BUILD_DIR]      (default: build)
#
# 1. One single-threaded workload (default: guest/workloads/amg.c, one OpenMP thread, grid 30,
#    one round; WORKLOAD="program args" to change it) in the functional, warmup, timing and
#    profile modes: simulated instructions and cycles per host second.
# 2. The timing mode on the OpenMP workload guest/workloads/bench_omp.c (ROUNDS rounds,
#    default 4) with 1, 4, 16 and 64 guest threads: instructions per host second and host
#    nanoseconds per simulated instruction, which should stay flat.
#
# Each figure is the best of REPEAT (default 3) runs; the time is the simulation's own
# (--stats-json "host_seconds": from the first instruction to the exit, without loading the
# program or writing the statistics). Run it on an otherwise quiet machine.
set -euo pipefail
build=${1:-build}
repeat=${REPEAT:-3}
rounds=${ROUNDS:-4}
hpmsim=$build/tools/hpmsim/hpmsim
bin=$build/guest/bin
read -r -a workload <<<"${WORKLOAD:-amg 30 1}"
workload[0]=$bin/${workload[0]}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# best ENV... -- HPMSIM_ARGS... : prints "instructions cycles best_host_seconds".
best() {
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  local best_s="" n="" c=""
  for _ in $(seq "$repeat"); do
    env "${envs[@]}" "$hpmsim" run --stats-json "$tmp/s.json" "$@" >/dev/null 2>"$tmp/err" || {
      cat "$tmp/err" >&2
      exit 1
    }
    read -r n c s < <(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["instructions"], d["cycles"], d["host_seconds"])' "$tmp/s.json")
    best_s=$(awk -v a="$s" -v b="$best_s" 'BEGIN { print (b == "" || a < b) ? a : b }')
  done
  echo "$n $c $best_s"
}

echo "Single thread: ${workload[*]#"$bin/"} (OMP_NUM_THREADS=1), best of $repeat"
printf '%-11s %14s %14s %9s %12s %12s %9s %8s\n' mode instructions cycles host_s \
  M_instr/s M_cycles/s ns/instr slowdown
base=""
for mode in functional warmup timing profile; do
  read -r n c s < <(best OMP_NUM_THREADS=1 -- --mode "$mode" --profile-prefix "$tmp/p" -- \
    "${workload[@]}")
  [ -z "$base" ] && base=$(awk -v n="$n" -v s="$s" 'BEGIN { print n / s }')
  awk -v m="$mode" -v n="$n" -v c="$c" -v s="$s" -v b="$base" 'BEGIN {
    printf "%-11s %14d %14d %9.3f %12.2f %12.2f %9.1f %7.2fx\n", m, n, c, s, n / s / 1e6,
      c / s / 1e6, s / n * 1e9, b / (n / s) }'
done

echo
echo "Timing mode: bench_omp $rounds (OMP_NUM_THREADS=T), best of $repeat"
printf '%-8s %14s %14s %9s %12s %12s %9s\n' threads instructions cycles host_s M_instr/s \
  M_cycles/s ns/instr
for threads in 1 4 16 64; do
  read -r n c s < <(best OMP_NUM_THREADS="$threads" -- --mode timing -- "$bin/bench_omp" "$rounds")
  awk -v t="$threads" -v n="$n" -v c="$c" -v s="$s" 'BEGIN {
    printf "%-8d %14d %14d %9.3f %12.2f %12.2f %9.1f\n", t, n, c, s, n / s / 1e6, c / s / 1e6,
      s / n * 1e9 }'
done
