#!/usr/bin/env bash
# Simulation speed with many nodes (docs/PERFORMANCE.md, "Many nodes"): simulated instructions
# per host second with 1, 8 and 64 bgq nodes of one thread each, on a compute-heavy program
# (mpi_stencil: a 512 x 512 Jacobi grid, 10 iterations, split over the nodes) and a
# communication-heavy one (mpi_collectives 100: every collective, alltoall included), with the
# packets, windows and host time per packet; then the network model alone (bench/network_bench).
#
#   bench/network_speed.sh [BUILD_DIR]      (default: build)
#
# Each figure is the median of REPEAT (default 3) runs, the programs alternating; the time is
# the simulation's own (--stats-json "host_seconds"). Run it on an otherwise quiet machine.
set -euo pipefail
build=${1:-build}
repeat=${REPEAT:-3}
hpmsim=$build/tools/hpmsim/hpmsim
bin=$build/guest/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

field() { python3 -c "import json,sys; d=json.load(open('$1')); print(d$2)"; }

printf '%-16s %6s %14s %10s %9s %9s %10s %12s\n' program nodes instructions packets windows \
  host_s MIPS us/packet
for nodes in 1 8 64; do
  declare -A times=()
  for ((r = 0; r < repeat; r++)); do
    for prog in stencil collectives; do
      case $prog in
        stencil) args=("$bin/mpi_stencil" 512 10 10) ;;
        collectives) args=("$bin/mpi_collectives" 100) ;;
      esac
      "$hpmsim" run --quiet --env-clear --nodes "$nodes" --stats-json "$tmp/$prog.json" -- \
        "${args[@]}" >/dev/null
      times[$prog]+="$(field "$tmp/$prog.json" "['host_seconds']") "
    done
  done
  for prog in stencil collectives; do
    median=$(printf '%s\n' ${times[$prog]} | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    instructions=$(field "$tmp/$prog.json" "['instructions']")
    packets=$(field "$tmp/$prog.json" "['network']['packets_delivered']")
    windows=$(field "$tmp/$prog.json" "['network']['windows']")
    python3 -c "
i, p, t = $instructions, $packets, $median
print('%-16s %6d %14d %10d %9d %9.3f %10.1f %12s' % ('mpi_$prog', $nodes, i, p, $windows, t,
      i / t / 1e6, '%.2f' % (t / p * 1e6) if p else '-'))"
  done
  unset times
done
echo
"$build/bench/network_bench" --benchmark_min_time=0.5 2>/dev/null | grep BM_
