#!/usr/bin/env bash
# Sets up (Debian packages), builds and runs every test:
#   0. the demo built and run with the build packages alone (scripts/check-demo-deps.sh);
#   1. the Release build: unit tests, guest-program tests against qemu-riscv64, validation tests;
#   2. the unit tests again under AddressSanitizer and UndefinedBehaviorSanitizer;
#   3. the libFuzzer targets (ELF loader, decoder, report's result files) for a bounded time;
#   4. the formatting check (every C/C++ file follows .clang-format).
# Environment: HPMSIM_FUZZ_SECONDS (default 60): the fuzzers together run for twice that, split
# evenly among them (40 s each by default).
# Every build compiles through ccache (a test package): a run after an earlier one, in this
# checkout or in another clone on the machine (CCACHE_BASEDIR makes the paths relative),
# compiles only what changed. It caches the compilers' outputs and changes nothing they do.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test
jobs=$(nproc)
# Each phase's wall time, so that the suite's cost (CI allows 45 minutes) can be seen by part.
start=$SECONDS
phase() { echo "== [$((SECONDS - start)) s] $*"; }

# (By its path, the one the demo's check is given: the Release build's compile lines are then the
# check's, and ninja does not compile its objects again.)
# CCACHE_NOHASHDIR: the sanitizer and fuzzer builds' line tables do not make the checkout's path
# part of the key (their compile folder may then name another clone's: only debuggers read it).
export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
HPMSIM_COMPILER_LAUNCHER=$(command -v ccache)
export HPMSIM_COMPILER_LAUNCHER
launcher=(-DCMAKE_C_COMPILER_LAUNCHER="$HPMSIM_COMPILER_LAUNCHER"
  -DCMAKE_CXX_COMPILER_LAUNCHER="$HPMSIM_COMPILER_LAUNCHER")

phase "format check"
scripts/check-format.sh

phase "the demo with the build packages alone"
# On a fresh clone the check builds the demo in `build` itself, and the Release build below goes
# on in it: the libraries, hpmsim and the demo's guest programs it compiled (same compiler, same
# flags) are not compiled twice. An existing `build` is left to the developer's configuration.
# (It compiles through ccache too, given by its path: the compiler is still the build packages'.)
if [ -e build/CMakeCache.txt ]; then
  scripts/check-demo-deps.sh
else
  scripts/check-demo-deps.sh build
fi

phase "Release build and tests"
# (The system search paths back on, and Open MPI looked for afresh: the demo's check turned the
# paths off and hid Open MPI, and FindMPI does not look again for what it once did not find.)
cmake -S . -B build -U 'MPI_*' -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPMSIM_TESTS=ON \
  -DHPMSIM_BENCH=ON -DCMAKE_FIND_USE_CMAKE_SYSTEM_PATH=ON "${launcher[@]}" >/dev/null
cmake --build build
phase "Release tests"
ctest --test-dir build --output-on-failure -j"$jobs" --timeout 900

phase "unit tests under ASan + UBSan: build"
# (-O1 and line tables only, as the sanitizers' documentation advises: the stack traces keep
# their files and lines, and the build takes half the time of -O2 -g: 33 s against 71 s for
# tests/hart/hart_test.cpp on this machine.)
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHPMSIM_SANITIZE=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DHPMSIM_GUESTS=OFF -DHPMSIM_BENCH=OFF "${launcher[@]}" >/dev/null
cmake --build build-asan --target unit_tests
phase "unit tests under ASan + UBSan: tests"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan -L unit --output-on-failure -j"$jobs" --timeout 900

phase "fuzzers: build"
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
  -DHPMSIM_FUZZ=ON -DHPMSIM_TESTS=OFF -DHPMSIM_GUESTS=OFF -DHPMSIM_BENCH=OFF "${launcher[@]}" \
  >/dev/null
cmake --build build-fuzz --target fuzz_elf fuzz_decode fuzz_report fuzz_mu elf_seeds
# The ELF fuzzer also starts from malformed variants of a real static binary (elf_seeds.h).
rm -rf build-fuzz/seeds-elf
build-fuzz/tests/fuzz/elf_seeds tests/fuzz/corpus/elf/tiny_static build-fuzz/seeds-elf
fuzzers=(elf decode report mu)
seconds=$((2 * ${HPMSIM_FUZZ_SECONDS:-60} / ${#fuzzers[@]}))
phase "fuzzers: ${seconds} s each"
for target in "${fuzzers[@]}"; do
  corpus=build-fuzz/corpus-$target
  mkdir -p "$corpus"
  seeds=(tests/fuzz/corpus/$target)
  [[ $target == elf ]] && seeds+=(build-fuzz/seeds-elf)
  # -timeout=1: an input that takes longer than a second is a failure (a hang). The message
  # unit's fuzzer holds the host memory to a fixed bound: no allocation over 64 MiB, no more
  # than 2 GiB resident (issue 39: no host allocation grows with a size the guest gives).
  limits=()
  [[ $target == mu ]] && limits=(-malloc_limit_mb=64 -rss_limit_mb=2048)
  build-fuzz/tests/fuzz/fuzz_$target -max_total_time="$seconds" -timeout=1 -print_final_stats=1 \
    "${limits[@]}" -artifact_prefix=build-fuzz/ "$corpus" "${seeds[@]}"
done
phase "all tests passed"
