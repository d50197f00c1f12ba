#!/usr/bin/env bash
# Host instructions per simulated instruction, per run mode (issue 43: the timing model's cost).
#
#   bench/host_instructions.sh [BUILD_DIR]      (default: build)
#
# callgrind counts the host instructions of hpmsim running one workload at two sizes; the
# marginal cost is (host instructions at the large size - at the small size) / (simulated
# instructions at the large size - at the small size), so that loading the program, building
# the machine and writing the results drop out. callgrind counts instructions, not seconds: the
# figure is the same on a loaded machine and on a quiet one (docs/PERFORMANCE.md says how to
# read it beside wall-clock figures).
#
# WORKLOADS: "name|small args|large args;..." (default: amg on one OpenMP thread at grids 10 and
# 14, one round, and bench_int at 2 and 4). MODES (default: "functional timing"). THREADS: the
# OpenMP threads (default 1). STAT_EVENTS: counts these events from the host in every run
# (`hpmsim stat -e STAT_EVENTS`, the units in use from the start) instead of `hpmsim run`.
# (valgrind cannot reserve the guest's default 256 GiB of host address space: the runs set
# kernel.address_space_gib=16.)
set -euo pipefail
build=${1:-build}
hpmsim=$(realpath "$build/tools/hpmsim/hpmsim")
bin=$(realpath "$build/guest/bin")
modes=${MODES:-functional timing}
threads=${THREADS:-1}
workloads=${WORKLOADS:-"amg|10 1|14 1;bench_int|2|4"}
command -v valgrind >/dev/null || {
  echo "host_instructions.sh: valgrind is missing (Debian package valgrind)" >&2
  exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# count MODE PROGRAM ARGS...: prints "host_instructions simulated_instructions".
count() {
  local mode=$1
  shift
  local how=(run --stats-json "$tmp/s.json")
  [ -n "${STAT_EVENTS:-}" ] && how=(stat -e "$STAT_EVENTS" --json -o "$tmp/s.json")
  (cd "$bin" && valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
    "$hpmsim" "${how[@]}" --mode "$mode" --set kernel.address_space_gib=16 --env-clear \
    --env "OMP_NUM_THREADS=$threads" -- "$@" 2>"$tmp/err" |
    cat >/dev/null) || {
    cat "$tmp/err" >&2
    exit 1
  }
  local host
  host=$(grep -m1 '^summary:' "$tmp/cg.out" | awk '{print $2}')
  local sim
  sim=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["instructions"])' \
    "$tmp/s.json")
  echo "$host $sim"
}

printf '%-10s %-12s %14s %14s %12s\n' mode workload "host instr" "sim instr" "host/sim"
IFS=';' read -r -a items <<<"$workloads"
for item in "${items[@]}"; do
  IFS='|' read -r name small large <<<"$item"
  for mode in $modes; do
    read -r -a small_args <<<"$small"
    read -r -a large_args <<<"$large"
    count "$mode" "$name" "${small_args[@]}" >"$tmp/small"
    count "$mode" "$name" "${large_args[@]}" >"$tmp/large"
    read -r h1 s1 <"$tmp/small"
    read -r h2 s2 <"$tmp/large"
    python3 -c 'import sys
m, w, h1, s1, h2, s2 = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
print(f"{m:<10} {w:<12} {h2 - h1:>14} {s2 - s1:>14} {(h2 - h1) / (s2 - s1):>12.1f}")' \
      "$mode" "$name" "$h1" "$s1" "$h2" "$s2"
  done
done
