#!/usr/bin/env bash
# Sets up (Debian packages), builds, and runs the bundled demo workload (guest/workloads/demo.c,
# a conjugate-gradient solver) on the default machine (bgq) in the timing mode, with the node's
# counter unit programmed from the host: the guest's output on stdout, then the counters, as
# perf stat prints them, on stderr. Extra arguments go to `hpmsim stat` (for example
# --machine bgp --cores 0,1).
#
# The demo needs only the build packages (scripts/deps.sh build): it configures without the
# tests and benchmarks, whose tools (qemu-user, clang, GoogleTest, Google Benchmark) only
# scripts/test.sh installs, and builds just hpmsim, the demo program, the PAPI utilities
# (`hpmsim run -- papi_avail` then works from anywhere) and the guest SDK ($build/sdk,
# docs/sdk.md: its Fortran wrappers need Debian's gfortran-riscv64-linux-gnu, which the demo
# does not).
# scripts/check-demo-deps.sh holds it to that.
# Environment: HPMSIM_BUILD_DIR (default build), HPMSIM_CMAKE_ARGS (extra configure arguments).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${HPMSIM_BUILD_DIR:-build}
scripts/deps.sh build
echo "== configuring $build (the demo's parts only)"
# shellcheck disable=SC2086 # HPMSIM_CMAKE_ARGS is a list of arguments
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPMSIM_TESTS=OFF \
  -DHPMSIM_BENCH=OFF ${HPMSIM_CMAKE_ARGS:-} >/dev/null
echo "== building hpmsim, the demo program, the PAPI utilities and the guest SDK (about 3 minutes on 2 cores the first time)"
cmake --build "$build" --target hpmsim guest_demo papi_tools sdk
echo "== running the demo"
# As many events as one run of UPC-Q's 24 counters per core takes (cycles: one per hardware
# thread); `hpmsim events` lists the rest.
events=instructions,cycles,branches,branch-misses,L1-dcache-loads,L1-dcache-load-misses
events+=,L1-dcache-stores,L1-icache-load-misses,LLC-loads,LLC-load-misses,FpOps,FpDouble
exec "$build/tools/hpmsim/hpmsim" stat -e "$events" "$@" -- "$build/guest/bin/demo"
