#!/usr/bin/env bash
# The cost of monitoring measured by where the host's time goes, for machines whose speed
# drifts too much for wall-clock ratios (docs/PERFORMANCE.md, "Monitoring").
#
#   bench/monitor_overhead_perf.sh [BUILD_DIR]      (default: build; needs Debian's linux-perf)
#
# PAIRS (default 8) alternated pairs of timing-mode runs of guest/workloads/bt.c (WORKLOAD,
# default "bt 10 2", two OpenMP threads) on MACHINE (default bgq): monitor.unit=none, and every
# counter of the machine's units (bgq: via hpmsim stat, bench/monitor_events.sh; bgp: the 256
# UPC-P counters of bench/upc-select0.txt), each under `perf record -e cpu-clock`. A run's cost is its samples relative to the samples of the model code both runs
# execute alike (the timing model's plan and issue, the scheduler's loop and tree): the ratio of
# the two runs' relative costs is the monitored run's overhead, whatever the machine's speed
# while each ran. (It leaves out what the monitor's cache footprint costs that shared code;
# the callgrind figures of docs/PERFORMANCE.md bound that.) Prints each pair's ratio, their
# median and the ratio of the pooled samples, and the functions whose share grew most.
set -euo pipefail
build=${1:-build}
pairs=${PAIRS:-8}
machine=${MACHINE:-bgq}
here=$(cd "$(dirname "$0")" && pwd)
hpmsim=$build/tools/hpmsim/hpmsim
bin=$build/guest/bin
read -r -a workload <<<"${WORKLOAD:-bt 10 2}"
workload[0]=$bin/${workload[0]}
if ! perf record -q -e cpu-clock -o /dev/null true >/dev/null 2>&1; then
  echo "perf cannot sample on this machine (install linux-perf; perf_event_paranoid <= 2)" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
env=(env -i PATH=/usr/bin:/bin OMP_NUM_THREADS=2)

case "$machine" in
  bgq)
    # shellcheck source=bench/monitor_events.sh
    source "$here/monitor_events.sh"
    monitored=(stat --machine bgq -e "$(bgq_all_events "$hpmsim")")
    ;;
  bgp) monitored=(run --machine bgp --upc-config "$here/upc-select0.txt") ;;
  *) echo "MACHINE must be bgq or bgp, not $machine" >&2 && exit 2 ;;
esac

# profile NAME COMMAND ARGS...: the run's samples by function, "samples<TAB>function" lines.
profile() {
  local name=$1
  shift
  "${env[@]}" perf record -q -e cpu-clock -F 2000 -o "$tmp/$name.data" "$hpmsim" "$@" \
    -- "${workload[@]}" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  perf report -i "$tmp/$name.data" --stdio --no-children --sort symbol -F sample,sym 2>/dev/null |
    awk '!/^#/ && NF >= 3 { n = $1; $1 = ""; $2 = ""; sub(/^ +/, ""); sub(/( +-)+ *$/, ""); print n "\t" $0 }' \
      >"$tmp/$name.txt"
}

for i in $(seq "$pairs"); do
  profile "none.$i" run --machine "$machine" --set monitor.unit=none
  profile "all.$i" "${monitored[@]}"
done

echo "$machine, ${workload[*]#"$bin/"}: every counter against monitor.unit=none, $pairs alternated pairs"
echo "(samples relative to the shared model code: plan, issue, Kernel::run, refreshSlot)"
echo
python3 - "$tmp" "$pairs" <<'EOF'
import collections, statistics, sys

tmp, pairs = sys.argv[1], int(sys.argv[2])
shared = ("NodeTiming::Impl::plan", "NodeTiming::Impl::issue", "hpm::Kernel::run",
          "Kernel::refreshSlot")

def load(name):
    samples = collections.Counter()
    with open(f"{tmp}/{name}.txt") as f:
        for line in f:
            count, function = line.rstrip("\n").split("\t", 1)
            samples[function] += int(count)
    base = sum(v for k, v in samples.items() if any(s in k for s in shared))
    return samples, base

ratios, pooled = [], [collections.Counter(), collections.Counter()]
for i in range(1, pairs + 1):
    (a, base_a), (b, base_b) = load(f"none.{i}"), load(f"all.{i}")
    ratios.append((sum(b.values()) / base_b) / (sum(a.values()) / base_a))
    for k, v in a.items():
        pooled[0][k] += v / base_a
    for k, v in b.items():
        pooled[1][k] += v / base_b
print("pairs: " + " ".join(f"{100 * (r - 1):+.1f}%" for r in ratios))
print(f"median {100 * (statistics.median(ratios) - 1):+.1f}%, pooled "
      f"{100 * (sum(pooled[1].values()) / sum(pooled[0].values()) - 1):+.1f}%")
print("\nwhere it goes (share of the shared code's time, per run):")
growth = sorted(((pooled[1][k] - pooled[0][k]) / pairs, k) for k in set(pooled[0]) | set(pooled[1]))
for delta, function in reversed(growth[-8:]):
    print(f"  {100 * delta:+6.2f}%  {function[:90]}")
EOF
