#!/usr/bin/env bash
# PAPI 7's own tests against hpmsim's libpapi (issue 40): builds each test of PAPI's
# validation_tests and ctests Makefiles with the guest SDK's hpm-cc, runs it under hpmsim on bgq
# (timing mode) as PAPI's run_tests.sh does (TESTS_QUIET, validation tests first) and prints one
# line per test: passed, skipped, failed or timeout, its host seconds and a note (PAPI's reason
# for a skip, the line a failure names). PAPI's sources are not the project's: fetch them first
# (the search tool's fetch of github:icl-utk-edu/papi, or a git clone, at a papi-7-* tag) and
# give the checkout.
#
# Usage: bench/papi_ctests.sh [--markdown DOC] [--keep DIR] [--mode MODE] [--jobs N] PAPI_CHECKOUT
#                             [BUILD_DIR] [SECONDS_PER_TEST] [TEST...]
#   defaults: build, 600 s, every test of the lists below. A TEST is ctests/NAME or
#   validation_tests/NAME (a bare NAME is a ctest).
#   --markdown DOC  writes the results as a Markdown table into DOC, between the lines
#                   <!-- papi-ctests:begin --> and <!-- papi-ctests:end -->, with this command, the
#                   PAPI tag and commit and the date (only for a run of every test: the table is
#                   checked against the lists below, PapiCtestsDoc.* in tests/docs).
#   --keep DIR      keeps the programs and each test's output in DIR (else a temporary folder).
#   --mode MODE[,MODE...]  hpmsim's run mode (default timing; warmup is several times faster,
#                   but counts no pipeline events, functional faster still, and counts no cache
#                   events either: docs/papi.md, "Run modes"); a test that finds an event it adds
#                   missing in a mode (PAPI_ENOEVNT) runs again in the next one of the list, and
#                   its note says in which it ran.
#   --jobs N        runs N tests at a time (default 1; a simulation takes a host core, so at
#                   most the host's cores: each test's host seconds then include the others'
#                   contention for the memory system).
# Each test runs under `nice`.
#
# Flags follow PAPI's Makefiles: the test library -O1 (TOPTFLAGS) but do_loops.c -O0 ("Compile me
# with -O0 or else you'll get none": its work is what the tests check the counts against), ctests
# -O1, validation tests and their work code -O2 (OPTFLAGS), matrix_multiply.c -O1.
set -euo pipefail

# The tests, in the order of PAPI's Makefiles (src/validation_tests/Makefile.recipies' ALL;
# src/ctests/Makefile.recipies' serial, fork/exec, overflow, profile, attach, multiplex and pthread
# lists). Left out: ctests' OpenMP tests (no OpenMP runtime in the SDK's C wrapper's default link),
# MPI tests (PAPI's MPI tests), shlib (needs dynamic linking), the architecture-specific ones
# (p4_lst_ins, earprofile, data_range), and what run_tests.sh leaves out as no test:
# validation_tests/memleak_check (a utility), ctests/burn and ctests/attach_target (programs other
# tests start).
validation_tests=(fp_validation_hl cycles_validation flops_validation
  papi_br_cn papi_br_ins papi_br_msp papi_br_ntk papi_br_prc papi_br_tkn papi_br_ucn
  papi_dp_ops papi_fp_ops papi_sp_ops papi_hw_int papi_l1_dca papi_l1_dcm
  papi_l2_dca papi_l2_dcm papi_l2_dcr papi_l2_dcw papi_ld_ins papi_sr_ins
  papi_ref_cyc papi_tot_cyc papi_tot_ins)
ctests=(serial_hl serial_hl_ll_comb all_events all_native_events branches calibrate case1 case2
  cmpinfo code2name derived describe destroy disable_component dmem_info eventname exeinfo
  failed_events first get_event_component inherit hwinfo johnmay2 low-level memory realtime
  remove_events reset second tenth version virttime zero zero_flip zero_named
  fork fork2 exec exec2 forkexec forkexec2 forkexec3 forkexec4 fork_overflow exec_overflow
  child_overflow system_child_overflow system_overflow zero_fork
  overflow overflow_force_software overflow_single_event overflow_twoevents timer_overflow
  overflow2 overflow_index overflow_one_and_read overflow_allcounters
  profile profile_force_software sprofile profile_twoevents byte_profile
  multiattach multiattach2 zero_attach attach3 attach2 attach_validate
  attach_cpu attach_cpu_validate attach_cpu_sys_validate
  max_multiplex multiplex1 multiplex2 mendes-alt sdsc-mpx sdsc2-mpx sdsc2-mpx-noreset sdsc4-mpx
  reset_multiplex multiplex1_pthreads multiplex3_pthreads kufrin
  pthread_hl pthrtough pthrtough2 thrspecific profile_pthreads overflow_pthreads zero_pthreads
  clockres_pthreads overflow3_pthreads locks_pthreads krentel_pthreads zero_smp zero_shmem)

# Why a test cannot pass on this platform, written beside its result when it does not pass (the
# result itself is always the run's, and PAPI's reason follows). hpmsim's kernel, like Blue Gene's CNK, runs one process:
# fork, vfork, execve, wait4 (so posix_spawn and system) fail with ENOSYS (docs/kernel.md,
# "Deviations from Linux"), and libpapi counts only the threads that start its sets (docs/papi.md,
# "Deviations").
declare -A platform=()
for t in fork fork2 forkexec forkexec2 forkexec3 forkexec4 fork_overflow exec_overflow \
  child_overflow zero_fork inherit; do
  platform[ctests/$t]="forks a child: the node runs one process, fork() fails with ENOSYS, as on CNK"
done
for t in exec exec2; do
  platform[ctests/$t]="execs itself again: the node runs one program, execve() fails with ENOSYS"
done
for t in system_child_overflow system_overflow; do
  platform[ctests/$t]="runs a command with system(): the node runs one process (ENOSYS)"
done
for t in multiattach multiattach2 zero_attach attach3 attach2 attach_validate; do
  platform[ctests/$t]="attaches to a child it forks and traces: the node runs one process (ENOSYS)"
done
for t in attach_cpu attach_cpu_validate attach_cpu_sys_validate; do
  platform[ctests/$t]="counts a CPU (PAPI_CPU_ATTACH): BGPM's software-thread mode counts threads"
done
# And why the node has no event a test needs: PAPI's own preset table for Blue Gene/Q
# (papi_events.csv, "CPU,BGQ"), which libpapi's follows, has no such preset.
for t in papi_dp_ops papi_sp_ops papi_l1_dca papi_l2_dca papi_l2_dcm papi_l2_dcr papi_l2_dcw \
  papi_ref_cyc; do
  platform[validation_tests/$t]="no such preset on bgq: PAPI's own BG/Q preset table has none"
done
platform[validation_tests/papi_hw_int]="PAPI_HW_INT is left out: its BG/Q native never counts on hpmsim's node"
# PAPI's work code for these (validation_tests' branches_testcode.c, instructions_testcode.c) is
# assembly for x86, ARM, AArch64, POWER (and some others), none for RISC-V: the test skips itself.
for t in cycles_validation papi_br_cn papi_br_ins papi_br_msp papi_br_ntk papi_br_prc papi_br_tkn \
  papi_br_ucn papi_fp_ops papi_tot_ins; do
  platform[validation_tests/$t]="PAPI's work code for the test has no RISC-V version"
done

doc="" keep="" mode=timing jobs=1
args=("$@")
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --markdown) doc=$(realpath "$2") && shift 2 ;;
    --keep) keep=$2 && shift 2 ;;
    --mode) mode=$2 && shift 2 ;;
    --jobs) jobs=$2 && shift 2 ;;
    *) echo "papi_ctests.sh: unknown option $1" >&2 && exit 2 ;;
  esac
done
if [[ $# -lt 1 ]]; then
  sed -n '/^# Usage/,/^# Each test/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
papi=$(realpath "$1")
build=$(realpath "${2:-build}")
limit=${3:-600}
shift $(($# < 3 ? $# : 3))
hpmsim=$build/tools/hpmsim/hpmsim
[[ -x $hpmsim && -x $build/sdk/bin/hpm-cc ]] || {
  echo "papi_ctests.sh: no hpmsim or SDK in $build (build the hpmsim and sdk targets)" >&2
  exit 2
}
tests=()
for t in "$@"; do
  [[ $t == */* ]] || t=ctests/$t
  tests+=("$t")
done
if [[ ${#tests[@]} == 0 ]]; then
  for t in "${validation_tests[@]}"; do tests+=("validation_tests/$t"); done
  for t in "${ctests[@]}"; do tests+=("ctests/$t"); done
elif [[ -n $doc ]]; then
  echo "papi_ctests.sh: --markdown writes the table of a run of every test: give no TEST" >&2
  exit 2
fi
if [[ -n $keep ]]; then
  mkdir -p "$keep"
  work=$(realpath "$keep")
else
  work=$(mktemp -d /tmp/papi-ctests.XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi

cc="$build/sdk/bin/hpm-cc -D_GNU_SOURCE -pthread -I $papi/src/testlib -I $papi/src/ctests"
cc="$cc -I $papi/src/validation_tests"

# PAPI's test_skip prints "SKIPPED" alone, dropping the call and error its caller gives it: this
# wrapper (linked with --wrap) prints them first, so that the table can say why a test skipped.
cat >"$work/skip_reason.c" <<'EOF'
#include <papi.h>
#include <stdio.h>
#include <stdlib.h>
void __real_test_skip(const char* file, int line, const char* call, int retval);
void __wrap_test_skip(const char* file, int line, const char* call, int retval) {
  printf("skip-reason: %s:%d: %s", file, line, call ? call : "");
  if (retval < 0) printf(" (%s)", PAPI_strerror(retval));
  printf("\n");
  __real_test_skip(file, line, call, retval);
  exit(0); /* not reached: test_skip exits */
}
EOF

# The test library, as archives (a test takes only what it calls: the testcode files define
# some of do_loops.c's functions again). vector_testcode.c, a program of x86 SSE assembly that no
# test uses, is left out.
for f in "$papi"/src/testlib/{test_utils,do_loops,clockcore}.c "$papi"/src/ctests/prof_utils.c \
  "$papi"/src/validation_tests/{branches,cache,flops,instructions,load_store}_testcode.c \
  "$papi"/src/validation_tests/{display_error,cache_helper,busy_work,matrix_multiply}.c \
  "$work/skip_reason.c"; do
  opt=-O1
  case $f in
    */do_loops.c) opt=-O0 ;;
    */validation_tests/matrix_multiply.c) opt=-O1 ;;
    */validation_tests/*) opt=-O2 ;;
  esac
  o=$work/$(basename "$f" .c).o
  $cc $opt -c "$f" -o "$o"
done
(cd "$work" && riscv64-linux-gnu-ar rcs libtl.a test_utils.o do_loops.o clockcore.o prof_utils.o &&
  riscv64-linux-gnu-ar rcs libtc.a ./*_testcode.o display_error.o cache_helper.o busy_work.o \
    matrix_multiply.o)

results=$work/results.tsv
: >"$results"
# run_in MODE: runs $exe (of run_one) under hpmsim in MODE and sets run_one's result, note and
# seconds from its output ($exe.out).
run_in() {
  start=$(date +%s.%N)
  status=0
  note=""
  (cd "$work" && nice timeout "$limit" "$hpmsim" run --machine bgq --mode "$1" -- "./$dir.$name" \
    TESTS_QUIET) >"$exe.out" 2>&1 </dev/null || status=$?
  seconds=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
  if [[ $status == 124 ]]; then
    result=timeout note="ran out of the budget of $limit s"
    cycle=$(sed -n 's/^hpmsim: interrupted by .* at cycle \([0-9]*\):.*/\1/p' "$exe.out")
    if [[ -n $cycle ]]; then note="$note (stopped at simulated cycle $cycle)"; fi
  elif grep -q 'FAILED' "$exe.out"; then
    # test_fail prints "Line # N" and the call, or, for PAPI_ESYS, perror's line (on stderr,
    # so before it) and then PAPI's boilerplate.
    result=failed note=$(grep -m1 -A1 FAILED "$exe.out" | tail -1)
    if [[ $note == *"Some tests require"* ]]; then
      note="${note%% Some tests require*}: $(grep -m1 '^System error in' "$exe.out" || true)"
    fi
  elif [[ $status == 0 ]] && grep -q 'PASSED' "$exe.out"; then
    result=passed
    if grep -q 'PASSED with WARNING' "$exe.out"; then
      note="with a warning: $(grep -m1 '^WARNING' "$exe.out" || true)"
    fi
  elif [[ $status == 0 ]] && grep -q 'SKIPPED' "$exe.out"; then
    result=skipped note=$(grep -m1 '^skip-reason: ' "$exe.out" | sed 's/^skip-reason: //' || true)
    # A test that skips by itself (timer_overflow under TESTS_QUIET) prints its reason.
    [[ -n $note ]] || note=$(grep -v -e SKIPPED -e '^Line #' -e '^$' "$exe.out" | tail -1 || true)
  else
    result=failed note="exit status $status: $(grep -v '^$' "$exe.out" | tail -1)"
  fi
}

# run_one TEST: builds and runs one test, writes its row to $work/TEST.row (dir.name.row) and
# prints it.
run_one() {
  local t=$1
  local dir=${t%%/*} name=${t#*/}
  local src=$papi/src/$t.c opt=-O1 defs=()
  [[ $dir == validation_tests ]] && opt=-O2
  case $t in
    ctests/sdsc-mpx | ctests/sdsc4-mpx) defs=(-DMPX) ;;
    ctests/sdsc2-mpx) src=$papi/src/ctests/sdsc2.c defs=(-DMPX) ;;
    ctests/sdsc2-mpx-noreset) src=$papi/src/ctests/sdsc2.c defs=(-DMPX -DSTARTSTOP) ;;
    ctests/mendes-alt) defs=(-DMULTIPLEX) ;;
    ctests/profile_force_software) src=$papi/src/ctests/profile.c defs=(-DSWPROFILE) ;;
    ctests/exec_overflow) defs=(-DPEXEC) ;;
    ctests/child_overflow) defs=(-DPCHILD) ;;
    ctests/system_child_overflow) defs=(-DSYSTEM) ;;
    ctests/system_overflow) defs=(-DSYSTEM2) ;;
  esac
  local exe=$work/$dir.$name
  local result="" note="" seconds=0 start status cycle
  if ! $cc $opt "${defs[@]}" "$src" -Wl,--wrap=test_skip "$work/skip_reason.o" "$work/libtl.a" \
    "$work/libtc.a" -lpapi -lm -o "$exe" >"$exe.build" 2>&1; then
    result=failed note="does not build: $(grep -m1 error "$exe.build" || true)"
  else
    # In each mode of the list until one counts every event the test adds (PAPI_ENOEVNT: "Event
    # does not exist", docs/papi.md "Run modes").
    local first=${mode%%,*} used m
    for m in ${mode//,/ }; do
      used=$m
      run_in "$m"
      [[ $result == skipped || $result == failed ]] && grep -q 'Event does not exist' "$exe.out" ||
        break
    done
    if [[ $used != "$first" ]] && ! grep -q 'Event does not exist' "$exe.out"; then
      note="in the $used mode: the $first mode has no event it adds${note:+; $note}"
    fi
  fi
  if [[ -n ${platform[$t]:-} ]]; then
    if [[ $result == passed ]]; then
      # The fork tests treat fork()'s -1 as the parent's side and wait for no child.
      note="passed without testing it: ${platform[$t]}; the test does not check that"
    else
      note="${platform[$t]}; ${note}"
    fi
  fi
  note=${note//"$papi/src/"/}
  note=${note//|/\\|}
  note=${note//$'\t'/ }
  printf '%s\t%s\t%s\t%s\n' "$t" "$result" "$seconds" "$note" >"$exe.row"
  printf '%-36s %-8s %7s  %s\n' "$t" "$result" "$seconds" "$note"
}

# (A test's row is its own business: a job's status never stops the others, set -e or not.)
for t in "${tests[@]}"; do
  while [[ $(jobs -rp | wc -l) -ge $jobs ]]; do wait -n || true; done
  { run_one "$t" || true; } &
done
wait
# The rows in the lists' order, whatever order the tests ended in.
for t in "${tests[@]}"; do
  row=$work/${t%%/*}.${t#*/}.row
  [[ -f $row ]] || printf '%s\tfailed\t0\tthe script wrote no row for it (see %s.out)\n' "$t" "${row%.row}" >"$row"
  cat "$row" >>"$results"
done

if [[ -n $doc ]]; then
  tag=$(git -C "$papi" describe --tags --always 2>/dev/null || echo unknown)
  commit=$(git -C "$papi" rev-parse HEAD 2>/dev/null || echo unknown)
  hpm=$(git -C "$(dirname "$doc")" rev-parse --short HEAD 2>/dev/null || echo unknown)
  count() { awk -F'\t' -v r="$1" '$2 == r' "$results" | wc -l; }
  {
    echo "<!-- papi-ctests:begin -->"
    echo "Generated by \`bench/papi_ctests.sh ${args[*]}\` on $(date -u +%Y-%m-%d), PAPI $tag"
    echo "($commit), hpmsim $hpm, bgq, the ${mode//,/ mode, else the } mode, $jobs test(s) at a time on a host of $(nproc) cores."
    echo
    echo "| test | result | host s | note |"
    echo "|---|---|---|---|"
    awk -F'\t' '{ printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4 }' "$results"
    echo
    echo "Summary: $(wc -l <"$results") tests: $(count passed) passed, $(count skipped) skipped," \
      "$(count failed) failed, $(count timeout) ran out of the budget of $limit s."
    echo "<!-- papi-ctests:end -->"
  } >"$work/table.md"
  grep -q '^<!-- papi-ctests:begin -->$' "$doc" && grep -q '^<!-- papi-ctests:end -->$' "$doc" || {
    echo "papi_ctests.sh: $doc has no <!-- papi-ctests:begin/end --> lines" >&2
    exit 1
  }
  awk -v table="$work/table.md" '
    /^<!-- papi-ctests:begin -->$/ { while ((getline line < table) > 0) print line; skip = 1; next }
    /^<!-- papi-ctests:end -->$/ { skip = 0; next }
    !skip' "$doc" >"$work/doc.md"
  cat "$work/doc.md" >"$doc"
fi
