#!/usr/bin/env bash
# The same workloads under two hpmsim binaries, before and after a change (docs/PERFORMANCE.md,
# "The hardening's checks", measured in docs/CHANGELOG.md): runs alternate A B B A (PAIRS
# pairs, default 3) so that the machine's drift falls on both alike; prints each binary's median
# host seconds (the simulation's own, --stats-json "host_seconds"), their ratio, and whether the
# simulated instructions and cycles are equal.
#
#   bench/before_after.sh OLD_HPMSIM NEW_HPMSIM [GUEST_BIN_DIR]   (default: build/guest/bin)
#
# Workloads: amg (one thread) in the functional and timing modes, bench_omp at 16 threads in the
# timing mode, and the 8-node MPI stencil (the message unit, the network and the windows), on
# MACHINE (default bgq); MACHINE=sunfire runs the first three on its Fireplane bus (it has no
# torus for the stencil).
set -euo pipefail
old=$1
new=$2
bin=${3:-build/guest/bin}
pairs=${PAIRS:-3}
machine=${MACHINE:-bgq}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# one HPMSIM ARGS...: prints "instructions cycles host_seconds".
one() {
  local hpmsim=$1
  shift
  # (--env-clear: the guest's environment the same under both, whatever the caller's shell sets,
  # such as `_`, which differs with the binary's path and moves the guest's stack.)
  "$hpmsim" run --quiet --env-clear --machine "$machine" --stats-json "$tmp/s.json" "$@" \
    >/dev/null 2>"$tmp/err" || {
    cat "$tmp/err" >&2
    exit 1
  }
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["instructions"], d["cycles"], d["host_seconds"])' "$tmp/s.json"
}

printf '%-34s %12s %12s %8s %s\n' workload old_s new_s new/old "same instructions and cycles"
measure() {
  local name=$1
  shift
  local a=() b=() ra="" rb=""
  for _ in $(seq "$pairs"); do
    for order in old new new old; do
      local bin_path=$old
      [ "$order" = new ] && bin_path=$new
      read -r n c s < <(one "$bin_path" "$@")
      if [ "$order" = old ]; then a+=("$s"); ra="$n $c"; else b+=("$s"); rb="$n $c"; fi
    done
  done
  local ma mb
  ma=$(printf '%s\n' "${a[@]}" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
  mb=$(printf '%s\n' "${b[@]}" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
  awk -v n="$name" -v a="$ma" -v b="$mb" -v same="$([ "$ra" = "$rb" ] && echo yes || echo "no ($ra / $rb)")" \
    'BEGIN { printf "%-34s %12.3f %12.3f %8.3f %s\n", n, a, b, b / a, same }'
}

one_thread=(--env OMP_NUM_THREADS=1)
measure "amg 30 1, functional" --mode functional "${one_thread[@]}" -- "$bin/amg" 30 1
measure "amg 30 1, timing" --mode timing "${one_thread[@]}" -- "$bin/amg" 30 1
measure "bench_omp 1, 16 threads, timing" --mode timing --env OMP_NUM_THREADS=16 -- \
  "$bin/bench_omp" 1
if [ "$machine" != sunfire ]; then
  measure "mpi_stencil 512 10, 8 nodes" --nodes 8 -- "$bin/mpi_stencil" 512 10
fi
