#!/usr/bin/env bash
# Where the cost of monitoring goes (docs/PERFORMANCE.md, "Monitoring", "The floor").
#
#   bench/monitor_floor.sh [BUILD_DIR]      (default: build; its guest programs are used)
#
# Builds hpmsim once more, in a temporary worktree of HEAD with bench/monitor_floor.patch
# applied: three environment switches that take parts of the monitoring away (the counts are
# then wrong; the switches exist only in that build):
#   HPMSIM_EXPERIMENT_NO_INSTRUCTION_EVENTS  the driver and the timing model publish no
#                                            per-instruction events (publishIssue, publishMix)
#   HPMSIM_EXPERIMENT_NO_MODEL_EVENTS        the timing and memory models get no probe bus
#   HPMSIM_EXPERIMENT_ADD_ONLY               every event the bus delivers is one add into a flat
#                                            array: no batch, no window, no counter unit
# and runs the timing mode on WORKLOAD (default "bt 10 2", two OpenMP threads) with each, the
# runs of one round alternated, REPEAT rounds (default 3); prints the user CPU seconds of each
# run and the best (least) of each column. Run it on an otherwise quiet machine.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
repeat=${REPEAT:-3}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
bin=$build/guest/bin
read -r -a workload <<<"${WORKLOAD:-bt 10 2}"
workload[0]=$bin/${workload[0]}
tree=$(mktemp -d)
trap 'git -C "$top" worktree remove --force "$tree" >/dev/null 2>&1 || true; rm -rf "$tree"' EXIT
git -C "$top" worktree add --detach --force "$tree" HEAD >/dev/null 2>&1
git -C "$tree" apply "$here/monitor_floor.patch"
cmake -S "$tree" -B "$tree/build" -G Ninja -DHPMSIM_GUESTS=OFF >/dev/null
ninja -C "$tree/build" hpmsim >/dev/null
hpmsim=$tree/build/tools/hpmsim/hpmsim

user_seconds() {  # ENV... -- ARGS...: user CPU seconds of one run
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  /usr/bin/time -f %U -o "$tree/t" env -i PATH=/usr/bin:/bin OMP_NUM_THREADS=2 "${envs[@]}" \
    "$hpmsim" "$@" -- "${workload[@]}" >/dev/null 2>"$tree/err" || { cat "$tree/err" >&2; exit 1; }
  tail -n 1 "$tree/t"
}

# shellcheck source=bench/monitor_events.sh
source "$here/monitor_events.sh"
bgq_events=$(bgq_all_events "$hpmsim")

for machine in bgp bgq; do
  if [ "$machine" = bgp ]; then
    monitored=(run --machine bgp --upc-config "$here/upc-select0.txt")
  else
    monitored=(stat --machine bgq -e "$bgq_events")
  fi
  off=(run --machine "$machine" --set monitor.unit=none)
  echo "$machine, ${workload[*]#"$bin/"}: user CPU seconds, $repeat alternated rounds"
  echo "off all add-only no-instruction-events no-instruction-no-model"
  for _ in $(seq "$repeat"); do
    echo "$(user_seconds -- "${off[@]}")" \
      "$(user_seconds -- "${monitored[@]}")" \
      "$(user_seconds HPMSIM_EXPERIMENT_ADD_ONLY=1 -- "${monitored[@]}")" \
      "$(user_seconds HPMSIM_EXPERIMENT_NO_INSTRUCTION_EVENTS=1 -- "${monitored[@]}")" \
      "$(user_seconds HPMSIM_EXPERIMENT_NO_INSTRUCTION_EVENTS=1 HPMSIM_EXPERIMENT_NO_MODEL_EVENTS=1 \
        -- "${monitored[@]}")"
  done | tee "$tree/rows"
  python3 - "$tree/rows" <<'PY'
import sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
# The best of each column: the VM's neighbours only ever add time.
best = [min(c) for c in zip(*rows)]
print("best   " + " ".join(f"{m:.2f}" for m in best))
print("vs off " + " ".join(f"{100 * (m / best[0] - 1):+.1f}%" for m in best))
PY
  echo
done
