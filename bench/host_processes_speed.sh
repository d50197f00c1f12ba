#!/usr/bin/env bash
# Many nodes over host processes (docs/PERFORMANCE.md, "Over several host processes"): the
# speed-up from one host process to two (`mpirun -np 2`) on 16 and 64 bgq nodes of one thread,
# for a compute-heavy program (mpi_stencil: a 512 x 512 Jacobi grid, 10 iterations, split over
# the nodes) and a communication-heavy one (mpi_collectives 100); with the windows, the packets
# that crossed between the hosts, the bytes each host sent, and the time a host waited per
# window for the other (the less-waiting host's: the synchronisation itself; the other's adds
# the imbalance of their blocks).
#
#   bench/host_processes_speed.sh [BUILD_DIR]      (default: build)
#
# Each time is the median of REPEAT (default 3) runs, alternating one process and two; the time
# is the simulation's own (--stats-json "host_seconds", host 0's), without mpirun's start-up.
set -euo pipefail
build=${1:-build}
repeat=${REPEAT:-3}
hpmsim=$(realpath "$build/tools/hpmsim/hpmsim")
bin=$(realpath "$build/guest/bin")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm_rsh_agent=

field() { python3 -c "import json,sys; d=json.load(open('$1')); print(d$2)"; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf '%-16s %5s %14s %8s %9s %8s %8s %7s %11s %12s %13s\n' program nodes instructions \
  packets windows 'P=1 s' 'P=2 s' speedup cross_pkts bytes_sent 'wait us/win'
for nodes in 16 64; do
  for prog in stencil collectives; do
    case $prog in
      stencil) args=("$bin/mpi_stencil" 512 10 10) ;;
      collectives) args=("$bin/mpi_collectives" 100) ;;
    esac
    one=() two=()
    for ((r = 0; r < repeat; r++)); do
      "$hpmsim" run --quiet --env-clear --nodes "$nodes" --stats-json "$tmp/one.json" -- \
        "${args[@]}" >/dev/null
      one+=("$(field "$tmp/one.json" "['host_seconds']")")
      mpirun --oversubscribe -np 2 "$hpmsim" run --quiet --env-clear --nodes "$nodes" \
        --stats-json "$tmp/two.json" -- "${args[@]}" >/dev/null
      two+=("$(field "$tmp/two.json" "['host_seconds']")")
    done
    python3 - "$tmp/two.json" "$(median "${one[@]}")" "$(median "${two[@]}")" "$nodes" "$prog" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
one, two, nodes, prog = float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
hosts = d['host_processes']
windows = d['network']['windows']
waits = sorted(h['wait_seconds'] / windows * 1e6 for h in hosts)
print('%-16s %5d %14d %8d %9d %8.3f %8.3f %7.2f %11d %12d %6.1f-%-6.1f' % (
    'mpi_' + prog, nodes, d['instructions'], d['network']['packets_delivered'], windows, one, two,
    one / two, sum(h['cross_host_packets'] for h in hosts), sum(h['bytes_sent'] for h in hosts),
    waits[0], waits[-1]))
PY
  done
done
