#!/usr/bin/env bash
# The cost of monitoring (docs/PERFORMANCE.md, "Monitoring").
#
#   bench/monitor_overhead.sh [BUILD_DIR]      (default: build)
#
# 1. Host time of the timing mode on guest/workloads/bt.c (WORKLOAD="bt N STEPS", default
#    "bt 12 3"; two OpenMP threads, cores 0 and 1), best of REPEAT (default 3) runs, the
#    simulation's own time (--stats-json / stat --json "host_seconds"):
#      bgp  --set monitor.unit=none; the UPC-P unit present but idle; all 256 UPC-P counters
#           counting (--upc-config bench/upc-select0.txt: cores 0 and 1's 256 events)
#      bgq  --set monitor.unit=none; the units present, idle but for the CNK unit; every counter
#           of the machine's units that has an event to count, via hpmsim stat: 24 events on
#           each of the 16 PUnits, 6 on the L2 unit, the 7 I/O events, the 17 CNK events
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

# best run|stat ARGS... : the best host_seconds of REPEAT runs.
best() {
  local command=$1 best_s=""
  shift
  for _ in $(seq "$repeat"); do
    if [ "$command" = run ]; then
      "${env[@]}" "$hpmsim" run --stats-json "$tmp/s.json" "$@" -- "${workload[@]}" \
        >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    else
      "${env[@]}" "$hpmsim" stat --json -o "$tmp/s.json" "$@" -- "${workload[@]}" \
        >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    fi
    local s
    s=$(seconds "$tmp/s.json")
    best_s=$(awk -v a="$s" -v b="$best_s" 'BEGIN { print (b == "" || a < b) ? a : b }')
  done
  echo "$best_s"
}

row() {  # label seconds baseline
  awk -v l="$1" -v s="$2" -v b="$3" \
    'BEGIN { printf "| %-58s | %8.2f | %+7.1f%% |\n", l, s, 100 * (s / b - 1) }'
}

# shellcheck source=bench/monitor_events.sh
source "$here/monitor_events.sh"
bgq_events=$(bgq_all_events "$hpmsim")

echo "Host time of the timing mode, ${workload[*]#"$bin/"}, best of $repeat (seconds)"
echo
echo "| machine and monitoring | host s | overhead |"
echo "|---|---|---|"
base=$(best run --machine bgp --set monitor.unit=none)
row "bgp, monitor.unit=none" "$base" "$base"
row "bgp, UPC-P present, no counter programmed" "$(best run --machine bgp)" "$base"
row "bgp, all 256 UPC-P counters (--upc-config upc-select0.txt)" \
  "$(best run --machine bgp --upc-config "$here/upc-select0.txt")" "$base"
base=$(best run --machine bgq --set monitor.unit=none)
row "bgq, monitor.unit=none" "$base" "$base"
row "bgq, UPC-Q present (the CNK unit counts from boot)" "$(best run --machine bgq)" "$base"
row "bgq, 16 x 24 PUnit + 6 L2 + 7 I/O + 17 CNK counters (stat)" \
  "$(best stat --machine bgq -e "$bgq_events")" "$base"

echo
echo "Simulated cost of a counter read (ctr_read_cost: cycles per dependent-load iteration)"
echo
for machine in bgp bgq; do
  "${env[@]}" "$hpmsim" run --machine "$machine" -- "$bin/ctr_read_cost" | grep '^cost' |
    sed "s/^/$machine /"
done
