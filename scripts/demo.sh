#!/usr/bin/env bash
# Sets up (Debian packages), builds, and runs the bundled demo workload (guest/workloads/demo.c,
# a conjugate-gradient solver) on the default machine (bgq) in the timing mode, with the node's
# counter unit programmed from the host: the guest's output on stdout, then the counters, as
# perf stat prints them, on stderr. Extra arguments go to `hpmsim stat` (for example
# --machine bgp --cores 0,1).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh build
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build
# As many events as one run of UPC-Q's 24 counters per core takes (cycles: one per hardware
# thread); `hpmsim events` lists the rest.
events=instructions,cycles,branches,branch-misses,L1-dcache-loads,L1-dcache-load-misses
events+=,L1-dcache-stores,L1-icache-load-misses,LLC-loads,LLC-load-misses,FpOps,FpDouble
exec build/tools/hpmsim/hpmsim stat -e "$events" "$@" -- build/guest/bin/demo
