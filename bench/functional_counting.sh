#!/usr/bin/env bash
# The functional mode's speed with and without its counter units in use (issue 40;
# docs/PERFORMANCE.md, "Counting in the functional mode").
#
#   bench/functional_counting.sh OLD_HPMSIM NEW_HPMSIM [GUEST_BIN_DIR]   (default: build/guest/bin)
#
# 1. No counter in use: `run --mode functional` under both binaries, runs alternating A B B A
#    (PAIRS pairs, default 3) so that the machine's drift falls on both alike; each binary's
#    median host seconds (the simulation's own, --stats-json "host_seconds") and their ratio.
# 2. Counters in use from the start: NEW's `stat --mode functional -e EVENTS` (EVENTS, default
#    instructions,branches,PEVT_LSU_COMMIT_STS) and, for comparison, `stat --mode warmup` and
#    NEW's plain `run --mode functional`, alternating; medians, MIPS and the slowdown against
#    the plain run.
# Workloads: amg (grid 30, one round, one OpenMP thread) and bench_omp (4 rounds) at 4 OpenMP
# threads.
set -euo pipefail
old=$1
new=$2
bin=${3:-build/guest/bin}
pairs=${PAIRS:-3}
events=${EVENTS:-instructions,branches,PEVT_LSU_COMMIT_STS}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run HPMSIM ARGS...: prints "instructions host_seconds" of a plain run.
run() {
  local hpmsim=$1
  shift
  "$hpmsim" run --quiet --env-clear --stats-json "$tmp/s.json" "$@" >/dev/null 2>"$tmp/err" || {
    cat "$tmp/err" >&2
    exit 1
  }
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["instructions"], d["host_seconds"])' "$tmp/s.json"
}

# stat MODE ARGS...: prints "instructions host_seconds" of NEW's stat run.
stat() {
  local mode=$1
  shift
  "$new" stat --quiet --env-clear --mode "$mode" -e "$events" --json -o "$tmp/c.json" "$@" \
    >/dev/null 2>"$tmp/err" || {
    cat "$tmp/err" >&2
    exit 1
  }
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["counts"]["instructions"] == d["instructions"], "the count is not the run'"'"'s"
print(d["instructions"], d["host_seconds"])' "$tmp/c.json"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '%-24s %-34s %14s %10s %9s %8s\n' workload what instructions median_s MIPS ratio
workload() {  # name, env assignment, program and args
  local name=$1 env=$2
  shift 2
  local args=(--env "$env" -- "$bin/$1")
  args+=("${@:2}")
  : >"$tmp/old" >"$tmp/new" >"$tmp/fstat" >"$tmp/wstat"
  local n=0 s
  for _ in $(seq "$pairs"); do
    read -r n s < <(run "$old" --mode functional "${args[@]}") && echo "$s" >>"$tmp/old"
    read -r n s < <(run "$new" --mode functional "${args[@]}") && echo "$s" >>"$tmp/new"
    read -r _ s < <(stat functional "${args[@]}") && echo "$s" >>"$tmp/fstat"
    read -r _ s < <(stat warmup "${args[@]}") && echo "$s" >>"$tmp/wstat"
    read -r _ s < <(stat warmup "${args[@]}") && echo "$s" >>"$tmp/wstat"
    read -r _ s < <(stat functional "${args[@]}") && echo "$s" >>"$tmp/fstat"
    read -r n s < <(run "$new" --mode functional "${args[@]}") && echo "$s" >>"$tmp/new"
    read -r n s < <(run "$old" --mode functional "${args[@]}") && echo "$s" >>"$tmp/old"
  done
  local mo mn mf mw
  mo=$(median <"$tmp/old")
  mn=$(median <"$tmp/new")
  mf=$(median <"$tmp/fstat")
  mw=$(median <"$tmp/wstat")
  # (stat's runs retire as many instructions as plain ones for a single thread; with several,
  # their counts differ: cycle order interleaves the threads otherwise. MIPS use each run's own.)
  local nf nw
  read -r nf _ < <(stat functional "${args[@]}")
  read -r nw _ < <(stat warmup "${args[@]}")
  awk -v w="$name" -v n="$n" -v nf="$nf" -v nw="$nw" -v o="$mo" -v m="$mn" -v f="$mf" -v x="$mw" 'BEGIN {
    printf "%-24s %-34s %14d %10.3f %9.1f %8s\n", w, "old: run, no counter", n, o, n / o / 1e6, "1.000"
    printf "%-24s %-34s %14d %10.3f %9.1f %8.3f\n", w, "new: run, no counter", n, m, n / m / 1e6, m / o
    printf "%-24s %-34s %14d %10.3f %9.1f %8.3f\n", w, "new: stat --mode functional", nf, f,
      nf / f / 1e6, (f / nf) / (m / n)
    printf "%-24s %-34s %14d %10.3f %9.1f %8.3f\n", w, "new: stat --mode warmup", nw, x,
      nw / x / 1e6, (x / nw) / (m / n) }'
}
workload amg_30_1 OMP_NUM_THREADS=1 amg 30 1
workload bench_omp_4_4threads OMP_NUM_THREADS=4 bench_omp 4
echo "(ratio: old and new plain runs: new's median over old's; stat rows: host seconds per"
echo " instruction over the new plain run's)"
