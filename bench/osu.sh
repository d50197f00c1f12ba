#!/usr/bin/env bash
# OSU micro-benchmarks 5.3's MPI programs against hpmsim's libmpi (issue 40): builds every one of
# them (collective, one-sided, point-to-point, start-up) with the guest SDK's mpicc and prints
# how many link; then runs each program named after the checkout on NODES simulated nodes (bgq)
# with ARGS, printing its output (rank 0's) and exit status. OSU's sources are not the
# project's: fetch them first (the search tool's fetch of github:forresti/osu-micro-benchmarks,
# or a copy of the 5.3 release) and give the checkout.
#
# Usage: bench/osu.sh OSU_CHECKOUT [BUILD_DIR] [NODES] [PROGRAM [ARGS...]]
#   e.g. bench/osu.sh ~/osu build 2 osu_put_latency -i 10 -x 2 -s lock -w create
# Sizes up to 4 MiB and OSU's fixed counts for large messages (1000) make one program a run of
# a minute or more of host time: a benchmark, not a test.
set -euo pipefail
osu=$(realpath "$1")
build=$(realpath "${2:-build}")
nodes=${3:-2}
shift $(($# < 3 ? $# : 3))
mpicc=$build/sdk/bin/mpicc
out=$(mktemp -d /tmp/osu.XXXXXX)
trap 'rm -rf "$out"' EXIT

# (configure's config.h gives FIELD_WIDTH and FLOAT_PRECISION; osu_mbw_mr and
# osu_get_acc_latency carry their own copies of the shared helpers, so they build alone.)
flags=(-O2 -pthread -DPACKAGE_VERSION=\"5.3\" -DFIELD_WIDTH=20 -DFLOAT_PRECISION=2)
built=0 failed=0
for src in "$osu"/mpi/{collective,one-sided,pt2pt,startup}/osu_*.c; do
  name=$(basename "$src" .c)
  dir=$(dirname "$src")
  case $name in osu_coll | osu_1sc | osu_pt2pt) continue ;; esac
  helper=()
  case $name in
    osu_mbw_mr | osu_get_acc_latency | osu_hello | osu_init) ;;
    *) for h in osu_coll osu_1sc osu_pt2pt; do [[ -f $dir/$h.c ]] && helper=("$dir/$h.c"); done ;;
  esac
  if "$mpicc" "${flags[@]}" -I"$dir" "$src" "${helper[@]}" -o "$out/$name" >"$out/$name.log" 2>&1; then
    built=$((built + 1))
  else
    failed=$((failed + 1))
    echo "does not build: $name ($(grep -m1 -E 'error|undefined' "$out/$name.log"))"
  fi
done
echo "built $built of $((built + failed)) OSU MPI programs with $mpicc"

if [[ $# -gt 0 ]]; then
  program=$1
  shift
  status=0
  (cd "$out" && "$build/tools/hpmsim/hpmsim" run --nodes "$nodes" -- "./$program" "$@") \
    >"$out/run.txt" 2>&1 || status=$?
  grep -E '^\[0\]|libmpi|hpmsim' "$out/run.txt" || true
  echo "exit status $status"
fi
