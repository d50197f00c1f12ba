#!/usr/bin/env bash
# What the guest's address space as a parameter, the code cache's capacity and stat's
# multiplexing cost (docs/PERFORMANCE.md, "Address space, code cache and multiplexing").
#
#   bench/host_limits.sh [BUILD_DIR] [BEFORE_HPMSIM]     (default: build)
#
# Medians of REPEAT (default 5) rounds, each running every configuration once, alternated:
#   timing        hpmsim run of "amg 24 2" (4 OpenMP threads), timing mode
#   before        the same with BEFORE_HPMSIM (an hpmsim whose guest space was a build constant)
#   code 64|1     big_code with kernel.code_cache_mib 64 (the default) and 1 (capacity flushes)
#   fit|mux       hpmsim stat of "amg 24 2": 20 PUnit events (they fit: exact) and 40 (two
#                 sets, multiplexed in 4 ms and 0.1 ms slices); the estimates of instructions
#                 and cycles against the exact counts
# Run it on an otherwise quiet machine.
set -euo pipefail
build=${1:-build}
before=${2:-}
repeat=${REPEAT:-5}
hpmsim=$(realpath "$build/tools/hpmsim/hpmsim")
bin=$(realpath "$build/guest/bin")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=4

events=$("$hpmsim" events --machine bgq --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(",".join(e["name"] for e in d["events"] if e["unit"] == "punit" and e.get("thread", -1) < 0))')
fit="instructions,cycles,$(echo "$events" | cut -d, -f1-18)"
mux="instructions,cycles,$(echo "$events" | cut -d, -f1-38)"

seconds() {  # wall seconds of the command
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  end=$(date +%s.%N)
  echo "$start $end" | awk '{print $2 - $1}'
}

declare -A times
run_round() {
  times[timing]+=" $(seconds "$hpmsim" run --quiet -- "$bin/amg" 24 2)"
  if [ -n "$before" ]; then times[before]+=" $(seconds "$before" run --quiet -- "$bin/amg" 24 2)"; fi
  times[code64]+=" $(seconds "$hpmsim" run --quiet -- "$bin/big_code")"
  times[code1]+=" $(seconds "$hpmsim" run --quiet --set kernel.code_cache_mib=1 -- "$bin/big_code")"
  times[fit]+=" $(seconds "$hpmsim" stat --quiet -e "$fit" -- "$bin/amg" 24 2)"
  times[mux4]+=" $(seconds "$hpmsim" stat --quiet -e "$mux" -- "$bin/amg" 24 2)"
  times[mux01]+=" $(seconds "$hpmsim" stat --quiet --mux-interval-ms 0.1 -e "$mux" -- "$bin/amg" 24 2)"
}
for _ in $(seq "$repeat"); do run_round; done

median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
declare -A med
for k in "${!times[@]}"; do med[$k]=$(echo "${times[$k]}" | median); done
printf '%-8s %8s s\n' timing "${med[timing]}"
if [ -n "$before" ]; then
  printf '%-8s %8s s   timing / before = %s\n' before "${med[before]}" \
    "$(awk -v a="${med[timing]}" -v b="${med[before]}" 'BEGIN {printf "%.3f", a / b}')"
fi
printf 'big_code: code_cache_mib 64 %s s, 1 %s s (ratio %s)\n' "${med[code64]}" "${med[code1]}" \
  "$(awk -v a="${med[code1]}" -v b="${med[code64]}" 'BEGIN {printf "%.3f", a / b}')"
for c in 64 1; do
  "$hpmsim" run --quiet --set kernel.code_cache_mib=$c --stats-json "$tmp/code$c.json" -- \
    "$bin/big_code" >/dev/null
  python3 -c "
import json; d = json.load(open('$tmp/code$c.json')); k = d['kernel']
print('  code_cache_mib $c: blocks built', k['code_blocks_built'], 'capacity flushes',
      k['code_cache_capacity_flushes'], 'peak RSS', d['host_peak_rss_kib'], 'KiB')"
done
printf 'stat amg: 20 events %s s, 40 in 4 ms slices %s s (%s), in 0.1 ms slices %s s (%s)\n' \
  "${med[fit]}" "${med[mux4]}" \
  "$(awk -v a="${med[mux4]}" -v b="${med[fit]}" 'BEGIN {printf "%.3f", a / b}')" "${med[mux01]}" \
  "$(awk -v a="${med[mux01]}" -v b="${med[fit]}" 'BEGIN {printf "%.3f", a / b}')"
"$hpmsim" stat --quiet --json -o "$tmp/exact.json" -e "$fit" -- "$bin/amg" 24 2 >/dev/null
for slice in 4 0.1; do
  "$hpmsim" stat --quiet --json -o "$tmp/mux.json" --mux-interval-ms $slice -e "$mux" -- \
    "$bin/amg" 24 2 >/dev/null
  python3 -c "
import json
e = json.load(open('$tmp/exact.json'))['counts']; m = json.load(open('$tmp/mux.json'))
for name in ('instructions', 'cycles'):
    print('  $slice ms: %s estimate %d, exact %d, error %+.2f %%, %d switches' % (name,
          m['counts'][name], e[name], 100 * (m['counts'][name] - e[name]) / e[name],
          m['multiplexing']['switches']))"
done
