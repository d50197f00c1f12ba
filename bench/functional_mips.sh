#!/usr/bin/env bash
# Functional-mode simulation speed: hpmsim against qemu-riscv64 on the same binaries.
#
#   bench/functional_mips.sh [BUILD_DIR]      (default: build)
#
# For each workload it runs hpmsim (functional mode, --stats-json for the exact instruction
# count) and qemu-riscv64 on the same binary and arguments, best of REPEAT (default 3) wall-clock
# times each, and prints instructions, seconds, MIPS (millions of guest instructions per host
# second) and the ratio hpmsim/qemu. qemu's MIPS use hpmsim's instruction count, which equals
# qemu's own for these programs (tests/guest checks it). Single-threaded workloads first, then
# the OpenMP workload at 1, 4 and 64 threads (the cost per instruction should stay flat).
set -euo pipefail
build=${1:-build}
repeat=${REPEAT:-3}
hpmsim=$build/tools/hpmsim/hpmsim
bin=$build/guest/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

best_time() {  # best wall-clock seconds of `repeat` runs of the command
  local best=""
  for _ in $(seq "$repeat"); do
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s.%N)
    best=$(echo "$start $end $best" | awk '{t = $2 - $1; if ($3 == "" || t < $3) print t; else print $3}')
  done
  echo "$best"
}

instructions_of() {  # the top-level "instructions" of a --stats-json file
  grep -m1 -E '^  "instructions":' "$1" | tr -dc '0-9'
}

printf '%-22s %14s %9s %9s %9s %9s %7s\n' workload instructions hpmsim_s hpmsim_MIPS qemu_s \
  qemu_MIPS ratio
run_case() {  # name, env assignments..., -- , program and args
  local name=$1
  shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]}" "$hpmsim" run --mode functional --stats-json "$tmp/s.json" -- "$@" >/dev/null
  local n h q
  n=$(instructions_of "$tmp/s.json")
  h=$(best_time env "${envs[@]}" "$hpmsim" run --mode functional -- "$@")
  hpmsim_seconds[$name]=$h
  instructions[$name]=$n
  q=$(best_time env "${envs[@]}" qemu-riscv64 "$@")
  awk -v name="$name" -v n="$n" -v h="$h" -v q="$q" 'BEGIN {
    printf "%-22s %14d %9.3f %9.1f %9.3f %9.1f %7.2f\n", name, n, h, n / h / 1e6, q, n / q / 1e6,
      (n / h) / (n / q) }'
}
declare -A hpmsim_seconds instructions  # by workload name, for the native comparison
run_case bench_int X=1 -- "$bin/bench_int"
run_case bench_mem X=1 -- "$bin/bench_mem"
run_case bench_fp X=1 -- "$bin/bench_fp"
run_case bench_omp_1thread OMP_NUM_THREADS=1 -- "$bin/bench_omp"
run_case bench_omp_4threads OMP_NUM_THREADS=4 -- "$bin/bench_omp"
run_case bench_omp_64threads OMP_NUM_THREADS=64 -- "$bin/bench_omp"

# The host's own speed on the same work: each single-threaded workload's C source compiled for
# the host (cc -O2) and timed the same way. Its "MIPS" divide the guest's instruction count by
# the native time: no simulator of this guest can beat that figure by much where the host's
# memory, not the interpretation, sets the pace (bench_mem's pointer chase).
src=$(dirname "$0")/../guest/workloads
if command -v cc >/dev/null; then
  printf '\n%-22s %14s %9s %9s %9s\n' native instructions native_s native_MIPS hpmsim/native
  for w in bench_int bench_mem bench_fp; do
    cc -O2 -o "$tmp/$w" "$src/$w.c" -lm
    c=$(best_time "$tmp/$w")
    awk -v name="$w" -v n="${instructions[$w]}" -v h="${hpmsim_seconds[$w]}" -v c="$c" 'BEGIN {
      printf "%-22s %14d %9.3f %9.1f %9.2f\n", name, n, c, n / c / 1e6, h / c }'
  done
fi
