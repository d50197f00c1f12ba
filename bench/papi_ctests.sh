#!/usr/bin/env bash
# PAPI 7's own ctests against hpmsim's libpapi (issue 40): builds each test of PAPI's ctests
# Makefile with the guest SDK's hpm-cc, runs it under hpmsim on bgq as PAPI's run_tests.sh does
# (TESTS_QUIET) and prints one line per test: PASSED, SKIPPED, FAILED, TIMEOUT or EXIT<status>,
# with its host seconds. PAPI's sources are not the project's: fetch them first (the search
# tool's fetch of github:icl-utk-edu/papi, or a git clone) and give the checkout.
#
# Usage: bench/papi_ctests.sh PAPI_CHECKOUT [BUILD_DIR] [SECONDS_PER_TEST] [TEST...]
#        (defaults: build, 600 s, every test below)
# PAPI's testlib loops are compiled -O0, as its Makefile does ("Compile me with -O0 or else you'll
# get none"): their work is what the tests check the counts against.
set -euo pipefail
papi=$(realpath "$1")
build=$(realpath "${2:-build}")
limit=${3:-600}
shift $(($# < 3 ? $# : 3))
hpmsim=$build/tools/hpmsim/hpmsim
cc="$build/sdk/bin/hpm-cc -D_GNU_SOURCE -pthread -I $papi/src/testlib -I $papi/src/ctests"
cc="$cc -I $papi/src/validation_tests"
work=$(mktemp -d /tmp/papi-ctests.XXXXXX)
trap 'rm -rf "$work"' EXIT

# PAPI's ctests Makefile's lists (src/ctests/Makefile.recipies): serial, fork/exec, overflow,
# profile, attach, multiplex and pthread tests. (Its OpenMP, MPI, shared-library and
# architecture-specific tests are left out: no OpenMP runtime in the SDK's C wrapper's default
# link, MPI's are PAPI's MPI tests, shlib needs dynamic linking.)
tests=("$@")
if [[ ${#tests[@]} == 0 ]]; then
  tests=(serial_hl serial_hl_ll_comb all_events all_native_events branches calibrate case1 case2
    cmpinfo code2name derived describe destroy disable_component dmem_info eventname exeinfo
    failed_events first get_event_component inherit hwinfo johnmay2 low-level memory realtime
    remove_events reset second tenth version virttime zero zero_flip zero_named
    fork fork2 exec exec2 forkexec forkexec2 forkexec3 forkexec4 fork_overflow exec_overflow
    child_overflow system_child_overflow system_overflow burn zero_fork
    overflow overflow_force_software overflow_single_event overflow_twoevents timer_overflow
    overflow2 overflow_index overflow_one_and_read overflow_allcounters
    profile profile_force_software sprofile profile_twoevents byte_profile
    multiattach multiattach2 zero_attach attach3 attach2 attach_target attach_cpu attach_validate
    attach_cpu_validate attach_cpu_sys_validate
    max_multiplex multiplex1 multiplex2 mendes-alt sdsc-mpx sdsc2-mpx sdsc2-mpx-noreset sdsc4-mpx
    reset_multiplex multiplex1_pthreads multiplex3_pthreads kufrin
    pthread_hl pthrtough pthrtough2 thrspecific profile_pthreads overflow_pthreads zero_pthreads
    clockres_pthreads overflow3_pthreads locks_pthreads krentel_pthreads zero_smp zero_shmem)
fi

# The test library, as archives (a test takes only what it calls: the testcode files define
# some of do_loops.c's functions again).
for f in "$papi"/src/testlib/{test_utils,do_loops,clockcore}.c "$papi"/src/ctests/prof_utils.c \
  "$papi"/src/validation_tests/{*_testcode,display_error,cache_helper,busy_work}.c; do
  opt=-O1
  case $f in */do_loops.c | *_testcode.c | */busy_work.c) opt=-O0 ;; esac
  $cc $opt -c "$f" -o "$work/$(basename "$f" .c).o" 2>/dev/null || true
done
(cd "$work" && riscv64-linux-gnu-ar rcs libtl.a test_utils.o do_loops.o clockcore.o prof_utils.o &&
  riscv64-linux-gnu-ar rcs libtc.a $(ls ./*_testcode.o display_error.o cache_helper.o busy_work.o \
    2>/dev/null))

for t in "${tests[@]}"; do
  src=$papi/src/ctests/$t.c
  defs=()
  case $t in
    sdsc-mpx | sdsc4-mpx) defs=(-DMPX) ;;
    sdsc2-mpx) src=$papi/src/ctests/sdsc2.c defs=(-DMPX) ;;
    sdsc2-mpx-noreset) src=$papi/src/ctests/sdsc2.c defs=(-DMPX -DSTARTSTOP) ;;
    profile_force_software) src=$papi/src/ctests/profile.c defs=(-DSWPROFILE) ;;
  esac
  if ! $cc -O1 "${defs[@]}" "$src" "$work/libtl.a" "$work/libtc.a" -lpapi -lm -o "$work/$t" \
    >"$work/$t.build" 2>&1; then
    printf '%-28s %-8s\n' "$t" BUILD
    continue
  fi
  start=$(date +%s.%N)
  status=0
  (cd "$work" && timeout "$limit" "$hpmsim" run --machine bgq -- "./$t" TESTS_QUIET) \
    >"$work/$t.out" 2>&1 || status=$?
  seconds=$(echo "$(date +%s.%N) - $start" | bc)
  if [[ $status == 124 ]]; then
    result=TIMEOUT
  elif grep -q PASSED "$work/$t.out"; then
    result=PASSED
  elif grep -q SKIPPED "$work/$t.out"; then
    result=SKIPPED
  elif grep -q FAILED "$work/$t.out"; then
    result=FAILED
  else
    result=EXIT$status
  fi
  printf '%-28s %-8s %7.1f\n' "$t" "$result" "$seconds"
done
