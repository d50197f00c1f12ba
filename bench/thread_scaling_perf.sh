#!/usr/bin/env bash
# Where the timing mode's host time per simulated instruction goes as guest threads are added
# (docs/PERFORMANCE.md, "Run modes"): the issue's goal is a flat cost per instruction.
#
#   bench/thread_scaling_perf.sh [BUILD_DIR]      (default: build; needs Debian's linux-perf)
#
# Runs guest/workloads/bench_omp.c (ROUNDS rounds, default 2) in the timing mode with each of
# THREADS (default "1 4 16 64") OpenMP threads, OMP_WAIT_POLICY=passive (waiting threads block
# in the kernel, so every thread count simulates the same computation), under
# `perf record -e cpu-clock`; REPEAT (default 3) rounds, the thread counts alternated within
# each round so that the machine's drifting speed spreads over all of them. For each thread
# count: the scheduler's picks per instruction (kernel statistics), how many of them go to
# another core than the pick before (what a core stepping its own threads would still pay), and
# the pooled samples per
# million simulated instructions, in all and by part of the simulator:
#   switching    the scheduler and the slice runner (Kernel::run, refreshSlot, TimedRunner,
#                the model's hartTime and prefetch): paid per pick, not per instruction
#   interpreter  Hart::run (the instructions, and its entry and exit at every non-empty pick)
#   planning     the timing model's issue plans (plan, issueTime)
#   issuing      the timing model's commits (issue, lmqAllocate)
#   memory       the memory system (caches, L1P, L2 slices, DDR, coherence)
# and each against the first thread count, with the total a scheduler of no cost would leave.
set -euo pipefail
build=${1:-build}
repeat=${REPEAT:-3}
rounds=${ROUNDS:-2}
read -r -a counts <<<"${THREADS:-1 4 16 64}"
hpmsim=$build/tools/hpmsim/hpmsim
bin=$build/guest/bin
if ! perf record -q -e cpu-clock -o /dev/null true >/dev/null 2>&1; then
  echo "perf cannot sample on this machine (install linux-perf; perf_event_paranoid <= 2)" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for r in $(seq "$repeat"); do
  for t in "${counts[@]}"; do
    env -i PATH=/usr/bin:/bin OMP_NUM_THREADS="$t" OMP_WAIT_POLICY=passive \
      perf record -q -e cpu-clock -F 2000 -o "$tmp/$t.$r.data" \
      "$hpmsim" run --mode timing --stats-json "$tmp/$t.$r.json" -- "$bin/bench_omp" "$rounds" \
      >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    perf report -i "$tmp/$t.$r.data" --stdio --no-children --sort symbol -F sample,sym \
      2>/dev/null |
      awk '!/^#/ && NF >= 3 { n = $1; $1 = ""; $2 = ""; sub(/^ +/, ""); sub(/( +-)+ *$/, ""); print n "\t" $0 }' \
        >"$tmp/$t.$r.txt"
  done
done

echo "bench_omp $rounds, OMP_WAIT_POLICY=passive, timing mode: $repeat alternated rounds, pooled"
echo
python3 - "$tmp" "$repeat" "${counts[@]}" <<'EOF'
import json, sys

tmp, repeat, counts = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
# (First match wins: issueTime is planning, not issuing.)
parts = [
    ("switching", ("Kernel::run", "Kernel::refreshSlot", "TimedRunner", "NodeTiming::hartTime",
                   "NodeTiming::prefetch", "MinTree")),
    ("interpreter", ("Hart::run",)),
    ("planning", ("NodeTiming::Impl::plan", "NodeTiming::issueTime", "planFetch")),
    ("issuing", ("NodeTiming::Impl::issue", "NodeTiming::issue", "lmqAllocate")),
    ("memory", ("mem::",)),
]
names = [p for p, _ in parts] + ["rest"]

def part_of(function):
    for name, keys in parts:
        if any(k in function for k in keys):
            return name
    return "rest"

rows = {}
for t in counts:
    samples = dict.fromkeys(names, 0)
    instructions = picks = empty = cross = 0
    for r in range(1, repeat + 1):
        with open(f"{tmp}/{t}.{r}.txt") as f:
            for line in f:
                count, function = line.rstrip("\n").split("\t", 1)
                samples[part_of(function)] += int(count)
        stats = json.load(open(f"{tmp}/{t}.{r}.json"))
        instructions += stats["instructions"]
        picks += stats["kernel"]["scheduler_slices"]
        empty += stats["kernel"]["scheduler_empty_slices"]
        cross += stats["kernel"]["scheduler_core_switches"]
    per_m = {k: v * 1e6 / instructions for k, v in samples.items()}
    per_m["total"] = sum(samples.values()) * 1e6 / instructions
    rows[t] = (instructions // repeat, picks / instructions, empty / instructions,
               cross / instructions, per_m)

print(f"{'threads':>8} {'instructions':>13} {'picks/instr':>12} {'empty/instr':>12}"
      f" {'other core/instr':>17}")
for t in counts:
    n, p, e, c, _ = rows[t]
    print(f"{t:>8} {n:>13,} {p:>12.3f} {e:>12.3f} {c:>17.3f}")
print()
print("samples per million instructions (x 0.5 ms: host time per instruction), and against"
      f" {counts[0]} thread(s):")
print(f"{'part':>12} " + " ".join(f"{t + ' thr':>16}" for t in counts))
base = rows[counts[0]][4]
for name in names + ["total"]:
    cells = []
    for t in counts:
        v = rows[t][4][name]
        ratio = f"{v / base[name]:.2f}x" if base[name] > 0 else "-"
        cells.append(f"{v:>9.1f} {ratio:>6}")
    print(f"{name:>12} " + " ".join(cells))
free = [rows[t][4]["total"] - rows[t][4]["switching"] for t in counts]
print(f"{'no switching':>12} " +
      " ".join(f"{v:>9.1f} {v / free[0]:>5.2f}x" for v in free))
EOF
