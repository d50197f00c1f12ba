#!/usr/bin/env bash
# The NAS Parallel Benchmarks 3.4's MPI suite (NPB3.4-MPI) on many simulated nodes against Open
# MPI on the host (issue 40). Copies the checkout twice into a temporary folder, writes NPB's
# config/make.def for the guest (the SDK's mpif90 and mpicc) and for the host (Debian's mpif90
# and mpicc, Open MPI), builds each benchmark named (all eight by default) of CLASS (S by
# default) in both, runs the guest build under `hpmsim run --nodes N` (bgq, one simulation at
# a time, under nice) and the host build under Open MPI's mpirun with N processes, and prints a
# row per benchmark and node count: NPB's verification, whether the answers rank 0 prints (every
# line before NPB's "Benchmark Completed", its iterations' norms and residuals and the
# verification's computed values, with the lines that hold times left out) are the host's,
# byte for byte, the simulated time and Mop/s NPB reports, and the host seconds of the
# simulation. NPB's sources are not the project's: fetch them first (docs/network.md, "NPB
# 3.4-MPI on many nodes", says from where) and give the checkout (its NPB3.4-MPI folder).
#
# Usage: bench/npb.sh [--doc FILE [--marker NAME] [--origin TEXT]] [--nodes "1 2 4 8"]
#                     [--square-nodes "1 4 9"] [--fflags FLAGS] [--mode MODE]
#                     NPB_CHECKOUT [BUILD_DIR] [CLASS] [BENCH...]
#   e.g. bench/npb.sh /tmp/npb/NPB3.4-MPI build S cg ep
# --nodes: the node counts of CG, EP, FT, IS, LU and MG (NPB 3.4 wants a power of two for all but
# EP); --square-nodes: those of BT and SP (a square). NPB 3.4 takes the process count at run
# time (a single build serves every count). --fflags: the compile flags of both builds (FFLAGS
# and CFLAGS; default -O2). --mode: hpmsim's mode (default timing; in another mode NPB's
# simulated times are not shown). --doc FILE writes the table, with the command, the date and
# the lines that differ from the host's, between FILE's lines `<!-- NAME:begin -->` and
# `<!-- NAME:end -->` (NAME: --marker's, npb by default); --origin names where the checkout came
# from there (the commit of a git checkout is found by itself). Each run's output is kept in
# BUILD_DIR/npb/.
#
# The copy of NPB 3.4 in github:mahyarsamani/workloads calls gem5's region-of-interest hooks
# (annotate_init_, annotate_term_, annotate_synchronize_, roi_begin_, roi_end_; IS includes
# "annotate.h"): this script compiles empty ones of its own for each build, which an NPB without
# the hooks never calls.
set -euo pipefail
doc='' marker=npb origin='' nodes_list='1 2 4 8' square_list='1 4 9' fflags='-O2' mode=timing
command_line=bench/npb.sh
for a in "$@"; do [[ $a == *[[:space:]]* ]] && command_line+=" \"$a\"" || command_line+=" $a"; done
while [[ $# -gt 0 ]]; do
  case $1 in
    --doc) doc=$(realpath "$2") && shift 2 ;;
    --marker) marker=$2 && shift 2 ;;
    --origin) origin=$2 && shift 2 ;;
    --nodes) nodes_list=$2 && shift 2 ;;
    --square-nodes) square_list=$2 && shift 2 ;;
    --fflags) fflags=$2 && shift 2 ;;
    --mode) mode=$2 && shift 2 ;;
    --) shift && break ;;
    -*) echo "npb.sh: unknown option $1" >&2 && exit 2 ;;
    *) break ;;
  esac
done
[[ $# -ge 1 ]] || {
  sed -n '/^# Usage/,/^# --nodes/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
npb=$(realpath "$1")
build=$(realpath "${2:-build}")
class=${3:-S}
shift $(($# < 3 ? $# : 3))
benches=("$@")
[[ ${#benches[@]} -gt 0 ]] || benches=(bt cg ep ft is lu mg sp)
hpmsim=$build/tools/hpmsim/hpmsim
[[ -x $hpmsim && -x $build/sdk/bin/mpif90 ]] || {
  echo "npb.sh: no hpmsim or SDK in $build (build the targets hpmsim and sdk)" >&2
  exit 2
}
[[ -f $npb/Makefile && -d $npb/CG ]] || {
  echo "npb.sh: $npb is not an NPB3.4-MPI folder" >&2
  exit 2
}
tmp=$(mktemp -d /tmp/npb.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
results=$build/npb
mkdir -p "$results"

# The region-of-interest hooks, empty, and the header IS includes.
mkdir -p "$tmp/stub"
cat >"$tmp/stub/annotate.h" <<'EOF'
#include <stdint.h>
void annotate_init_(void);
void annotate_term_(void);
void annotate_synchronize_(int64_t expected);
void roi_begin_(void);
void roi_end_(void);
EOF
cat >"$tmp/stub/annotate_stub.c" <<'EOF'
#include "annotate.h"
void annotate_init_(void) {}
void annotate_term_(void) {}
void annotate_synchronize_(int64_t expected) { (void)expected; }
void roi_begin_(void) {}
void roi_end_(void) {}
EOF

# setup SIDE MPIFC MPICC: a copy of the checkout with its make.def for one side.
setup() {
  local side=$1 fc=$2 cc=$3
  cp -r "$npb" "$tmp/$side"
  make -s -C "$tmp/$side" veryclean >/dev/null 2>&1 || true
  mkdir -p "$tmp/$side/bin"
  # shellcheck disable=SC2086 # the flags are words
  "$cc" $fflags -I"$tmp/stub" -c "$tmp/stub/annotate_stub.c" -o "$tmp/stub/$side.o"
  cat >"$tmp/$side/config/make.def" <<EOF
MPIFC = $fc
FLINK = \$(MPIFC)
FMPI_LIB = $tmp/stub/$side.o
FMPI_INC =
FFLAGS = $fflags
FLINKFLAGS = \$(FFLAGS)
MPICC = $cc
CLINK = \$(MPICC)
CMPI_LIB = $tmp/stub/$side.o
CMPI_INC = -I$tmp/stub
CFLAGS = $fflags
CLINKFLAGS = \$(CFLAGS)
CC = cc -g
BINDIR = ../bin
RAND = randi8
EOF
}
setup guest "$build/sdk/bin/mpif90" "$build/sdk/bin/mpicc"
setup host "$(command -v mpif90)" "$(command -v mpicc)"

# make_bench SIDE BENCH: 0 if bin/BENCH.CLASS.x was made (the log in the results folder).
make_bench() {
  local side=$1 b=$2
  # (The copy's Makefile adds gem5's, PAPI's or a native annotation library through ROI_*: none.)
  make -C "$tmp/$side" "$b" CLASS="$class" ROI_BIN= ROI_OBJ= ROI_LIB= ROI_INC=-I"$tmp/stub" \
    >"$results/$b.$class.$side.build.log" 2>&1 && [[ -x $tmp/$side/bin/$b.$class.x ]]
}

# answers FILE: the lines of a run's output that hold its answers (those before "Benchmark
# Completed", without the ones that hold times) and NPB's verification line.
answers() {
  sed -n '/Benchmark Completed/q;p' "$1" |
    grep -v -E 'CPU Time|Initialization time|^ *timer |^ *$' || true
  grep -E '^ *Verification *=' "$1" || true
}
field() { grep -m1 -E "^ *$2 *=" "$1" | sed 's/.*= *//' || true; }

rows=() notes=()
row() {
  rows+=("$(printf '| %s | %s | %s | %s | %s | %s | %s | %s |' "$@")")
  printf '%-3s %4s  %-12s %-12s %-34s %10s %10s %8s\n' "$@"
}
printf '%-3s %4s  %-12s %-12s %-34s %10s %10s %8s\n' bench nodes 'guest' 'host' \
  'answers vs host' 'sim time' 'sim Mop/s' 'host s'
for b in "${benches[@]}"; do
  b=${b,,}
  B=${b^^}
  if ! make_bench guest "$b"; then
    row "$B" - "not built" - "$(grep -m1 -E 'Error|error|undefined' "$results/$b.$class.guest.build.log" | cut -c1-120)" - - -
    continue
  fi
  host_ok=1
  make_bench host "$b" || host_ok=0
  case $b in bt | sp) counts=$square_list ;; *) counts=$nodes_list ;; esac
  for n in $counts; do
    sim=$results/$b.$class.$n.sim.txt host=$results/$b.$class.$n.host.txt
    rm -rf "$results/nodes" && mkdir -p "$results/nodes"
    start=$EPOCHREALTIME
    status=0
    (cd "$results/nodes" && nice "$hpmsim" run --quiet --mode "$mode" --nodes "$n" \
      --node-output . -- "$tmp/guest/bin/$b.$class.x") >"$results/$b.$class.$n.sim.log" 2>&1 ||
      status=$?
    secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
    cp "$results/nodes/node-0.stdout" "$sim" 2>/dev/null || : >"$sim"
    verdict=$(field "$sim" Verification)
    [[ $status -eq 0 ]] || verdict="exit $status${verdict:+ ($verdict)}"
    hverdict='not built' same='-'
    if [[ $host_ok -eq 1 ]]; then
      hstatus=0
      (cd "$tmp/host/bin" && OMPI_MCA_plm_rsh_agent='' nice mpirun --allow-run-as-root \
        --oversubscribe -n "$n" "./$b.$class.x") >"$host" 2>&1 || hstatus=$?
      hverdict=$(field "$host" Verification)
      [[ $hstatus -eq 0 ]] || hverdict="exit $hstatus${hverdict:+ ($hverdict)}"
      total=$(answers "$host" | wc -l)
      differ=$(diff <(answers "$sim") <(answers "$host") | grep -c '^>' || true)
      if [[ $total -eq 0 ]]; then
        same='no answers'
      elif [[ $differ -eq 0 ]] && diff -q <(answers "$sim") <(answers "$host") >/dev/null; then
        same="identical ($total lines)"
      else
        same="differ: $differ of $total lines"
        first=$(diff <(answers "$sim") <(answers "$host") | grep -m1 '^<' | sed 's/^< *//' || true)
        hfirst=$(diff <(answers "$sim") <(answers "$host") | grep -m1 '^>' | sed 's/^> *//' || true)
        notes+=("- $B on $n: \`$first\` (hpmsim), \`$hfirst\` (Open MPI)")
      fi
    fi
    simtime=- simmops=-
    if [[ $mode == timing ]]; then
      simtime=$(field "$sim" 'Time in seconds') simmops=$(field "$sim" 'Mop/s total')
    fi
    row "$B" "$n" "${verdict:-none}" "${hverdict:-none}" "$same" "$simtime" "$simmops" "$secs"
  done
done

if [[ -n $doc ]]; then
  if [[ -z $origin ]] && git -C "$npb" rev-parse HEAD >/dev/null 2>&1; then
    origin="commit $(git -C "$npb" rev-parse HEAD)"
  fi
  {
    echo "<!-- $marker:begin -->"
    echo "<!-- generated by bench/npb.sh --doc: do not edit -->"
    echo
    echo "\`$command_line\`, $(date -u +%Y-%m-%d), hpmsim $(git -C "$(dirname "$0")" rev-parse --short HEAD): NPB3.4-MPI"
    echo "${origin:-of unknown origin}, class $class, \`$fflags\` on both sides; hpmsim's $mode"
    echo "mode on bgq; $(mpirun --version | head -1), $(mpif90 --version | head -1)."
    echo
    echo "| benchmark | nodes | hpmsim: verification | Open MPI: verification | answers vs Open MPI | simulated time (s) | simulated Mop/s | host seconds |"
    echo "|---|---:|---|---|---|---:|---:|---:|"
    printf '%s\n' "${rows[@]}"
    if [[ ${#notes[@]} -gt 0 ]]; then
      echo
      echo "The first line that differs, for each run whose answers differ:"
      echo
      printf '%s\n' "${notes[@]}"
    fi
    echo
    echo "<!-- $marker:end -->"
  } >"$tmp/table.md"
  if ! grep -q "^<!-- $marker:begin -->\$" "$doc" || ! grep -q "^<!-- $marker:end -->\$" "$doc"; then
    echo "npb.sh: $doc has no <!-- $marker:begin --> and <!-- $marker:end --> lines" >&2
    exit 1
  fi
  awk -v table="$tmp/table.md" -v begin="<!-- $marker:begin -->" -v end="<!-- $marker:end -->" '
    $0 == begin { while ((getline line < table) > 0) print line; skip = 1; next }
    $0 == end { skip = 0; next }
    !skip' "$doc" >"$tmp/doc" && cat "$tmp/doc" >"$doc"
  echo "wrote the table into $doc"
fi
