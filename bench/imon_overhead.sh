#!/usr/bin/env bash
# The cost of the interconnect monitor (docs/PERFORMANCE.md, "Interconnect monitor").
#
#   bench/imon_overhead.sh [BUILD_DIR] [BEFORE_HPMSIM]     (default: build)
#
# Host wall time of the timing mode on MACHINE (default bgq; sunfire: its Fireplane bus) running
# WORKLOAD (default "amg 30 1", 16 OpenMP threads), the median of REPEAT (default 5) rounds that run every configuration once each,
# alternated:
#   off     hpmsim run: the interconnect monitor attached, nothing counted (no transaction is
#           published; the memory system only counts them by type)
#   all     hpmsim busstat with all four counters (bgq: sfi_hstgrm_all_trans, ic_write,
#           sfi_hstgm_cohrnt, ic_read; sunfire: ic_read_to_own and ic_read_to_share for the
#           last) and both FIFOs active, the counters and FIFOs sampled
#           from the host every 10,000 cycles (--fifo)
#   before  with BEFORE_HPMSIM, an hpmsim built before the transaction stream existed (git
#           worktree of the commit before it): what the stream's bookkeeping costs a run that
#           monitors nothing
# Prints the medians and their ratios, and fails when "all" costs more than 1.10 x "off".
# Run it on an otherwise quiet machine.
set -euo pipefail
build=${1:-build}
before=${2:-}
repeat=${REPEAT:-5}
machine=${MACHINE:-bgq}
events=sfi_hstgrm_all_trans,ic_write,sfi_hstgm_cohrnt,ic_read
if [ "$machine" = sunfire ]; then
  events=sfi_hstgrm_all_trans,ic_read_to_own,sfi_hstgm_cohrnt,ic_read_to_share
fi
hpmsim=$(realpath "$build/tools/hpmsim/hpmsim")
bin=$(realpath "$build/guest/bin")
read -r -a workload <<<"${WORKLOAD:-amg 30 1}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$bin/${workload[0]}" "$tmp/"
workload[0]=./${workload[0]}
# A fixed environment and program path: the guest's stack, and so its run, is the same in every
# configuration.
env=(env -i PATH=/usr/bin:/bin OMP_NUM_THREADS=16)

# wall SECONDS of one command, run in $tmp.
wall() {
  local start end
  start=$(date +%s.%N)
  (cd "$tmp" && "${env[@]}" "$@" >/dev/null 2>&1)
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.3f}')"
}

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

off=() all=() old=()
for ((r = 0; r < repeat; ++r)); do
  off+=("$(wall "$hpmsim" run --machine "$machine" -- "${workload[@]}")")
  all+=("$(wall "$hpmsim" busstat --machine "$machine" --interval-cycles 10000 --fifo -e "$events" -- \
    "${workload[@]}")")
  if [ -n "$before" ]; then
    old+=("$(wall "$before" run --machine "$machine" -- "${workload[@]}")")
  fi
done
m_off=$(median "${off[@]}")
m_all=$(median "${all[@]}")
echo "workload: ${workload[*]} ($machine, 16 threads), median of $repeat alternated rounds"
echo "off:    ${off[*]} -> $m_off s"
echo "all:    ${all[*]} -> $m_all s"
ratio=$(python3 -c "print(f'{$m_all / $m_off:.3f}')")
echo "all / off = $ratio (goal: at most 1.10)"
if [ -n "$before" ]; then
  m_old=$(median "${old[@]}")
  echo "before: ${old[*]} -> $m_old s"
  echo "off / before = $(python3 -c "print(f'{$m_off / $m_old:.3f}')")"
fi
python3 -c "import sys; sys.exit(0 if $ratio <= 1.10 else 1)"
