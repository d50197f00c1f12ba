#!/usr/bin/env bash
# The cost of monitoring (docs/PERFORMANCE.md, "Monitoring").
#
#   bench/monitor_overhead.sh [BUILD_DIR]      (default: build)
#
# 1. Host time of the timing mode on guest/workloads/bt.c (WORKLOAD="bt N STEPS", default
#    "bt 12 3"; two OpenMP threads), the best of REPEAT (default 3) rounds that run every
#    configuration once each, alternated; the simulation's own time (--stats-json / stat --json
#    "host_seconds"):
#      bgp  --set monitor.unit=none; the UPC-P unit present but idle; all 256 UPC-P counters
#           counting (--upc-config bench/upc-select0.txt: cores 0 and 1's 256 events)
#      bgq  --set monitor.unit=none; the units present, idle but for the CNK unit; every counter
#           of the machine's units that has an event to count, via hpmsim stat: 24 events on
#           each of the 16 PUnits, 6 on the L2 unit, the 7 I/O events, the 17 CNK events
#      and the monitored configurations again with monitor.counting=events (every event
#      published and delivered, the path before counting from statistics)
# 2. The simulated cost of a guest counter read against an L1-hit and an uncached load
#    (guest/counters/ctr_read_cost.c: cycles per iteration of a chain of dependent loads).
# Run it on an otherwise quiet machine.
set -euo pipefail
build=${1:-build}
repeat=${REPEAT:-3}
here=$(cd "$(dirname "$0")" && pwd)
hpmsim=$build/tools/hpmsim/hpmsim
bin=$build/guest/bin
read -r -a workload <<<"${WORKLOAD:-bt 12 3}"
workload[0]=$bin/${workload[0]}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A fixed environment: the guest's stack, and so its run, does not depend on the caller's.
env=(env -i PATH=/usr/bin:/bin OMP_NUM_THREADS=2)

seconds() {
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["host_seconds"])' "$1"
}

# once run|stat ARGS... : the host_seconds of one run.
once() {
  local command=$1
  shift
  if [ "$command" = run ]; then
    "${env[@]}" "$hpmsim" run --stats-json "$tmp/s.json" "$@" -- "${workload[@]}" \
      >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  else
    "${env[@]}" "$hpmsim" stat --json -o "$tmp/s.json" "$@" -- "${workload[@]}" \
      >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  fi
  seconds "$tmp/s.json"
}

# shellcheck source=bench/monitor_events.sh
source "$here/monitor_events.sh"
bgq_events=$(bgq_all_events "$hpmsim")

# The configurations, each "label|command args...", run once per round in this order (the
# machine's speed drifts: alternating keeps each monitored run next to its baseline); the best
# (least) time of each over REPEAT rounds.
configs=(
  "bgp, monitor.unit=none|run --machine bgp --set monitor.unit=none"
  "bgp, UPC-P present, no counter programmed|run --machine bgp"
  "bgp, all 256 UPC-P counters (--upc-config upc-select0.txt)|run --machine bgp --upc-config $here/upc-select0.txt"
  "bgp, the same, monitor.counting=events|run --machine bgp --set monitor.counting=events --upc-config $here/upc-select0.txt"
  "bgq, monitor.unit=none|run --machine bgq --set monitor.unit=none"
  "bgq, UPC-Q present (the CNK unit counts from boot)|run --machine bgq"
  "bgq, 16 x 24 PUnit + 6 L2 + 7 I/O + 17 CNK counters (stat)|stat --machine bgq -e $bgq_events"
  "bgq, the same, monitor.counting=events|stat --machine bgq --set monitor.counting=events -e $bgq_events"
)
declare -A best ratios
for _ in $(seq "$repeat"); do
  base=""
  for c in "${configs[@]}"; do
    read -r -a args <<<"${c#*|}"
    s=$(once "${args[@]}")
    b=${best[$c]:-}
    best[$c]=$(awk -v a="$s" -v b="$b" 'BEGIN { print (b == "" || a < b) ? a : b }')
    # This round's ratio to the machine's baseline run just before it.
    case "${c%%|*}" in *monitor.unit=none*) base=$s ;; esac
    ratios[$c]="${ratios[$c]:-} $(awk -v s="$s" -v b="$base" 'BEGIN { print s / b }')"
  done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "Host time of the timing mode, ${workload[*]#"$bin/"}, best of $repeat alternated rounds (seconds)"
echo
echo "(overhead: best against best; median of the rounds' ratios to the baseline run just before)"
echo
echo "| machine and monitoring | host s | overhead | median ratio |"
echo "|---|---|---|---|"
base=""
for c in "${configs[@]}"; do
  label=${c%%|*}
  case "$label" in *monitor.unit=none*) base=${best[$c]} ;; esac
  m=$(echo "${ratios[$c]}" | median)
  awk -v l="$label" -v s="${best[$c]}" -v b="$base" -v m="$m" \
    'BEGIN { printf "| %-60s | %8.2f | %+7.1f%% | %+7.1f%% |\n", l, s, 100 * (s / b - 1), 100 * (m - 1) }'
done
echo
echo "Simulated cost of a counter read (ctr_read_cost: cycles per dependent-load iteration)"
echo
for machine in bgp bgq; do
  "${env[@]}" "$hpmsim" run --machine "$machine" -- "$bin/ctr_read_cost" | grep '^cost' |
    sed "s/^/$machine /"
done
