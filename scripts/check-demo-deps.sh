#!/usr/bin/env bash
# Proves that the demo (scripts/demo.sh) needs only the build packages (scripts/deps.sh build):
# it runs the demo in a fresh build directory on a machine that, as far as CMake and the build
# can see, holds nothing of the test-only packages.
#   - PATH is one folder of links to every program of /usr/bin and /bin except those that a
#     test-only package installs (qemu-riscv64, clang, clang-format, ...), so neither
#     find_program nor a build step can reach them;
#   - CMake's system search paths are off (CMAKE_FIND_USE_CMAKE_SYSTEM_PATH=OFF), and the CMake
#     packages the build packages install are given by their directories, so find_package
#     finds those and no other (GoogleTest and Google Benchmark are test-only).
# It then checks that the demo ran to the end and printed its output and its counters.
# Environment: HPMSIM_COMPILER_LAUNCHER, a compiler cache's path (scripts/test.sh gives ccache's,
# with CCACHE_BASEDIR): the build compiles through it. Given by its path, it is not looked up;
# the compilers it runs are still the build packages'.
# Usage: scripts/check-demo-deps.sh [BUILD_DIR]   (default build-demo-check; reused if present;
# the hiding folder is BUILD_DIR-deps, made and removed by each run)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${1:-build-demo-check}
fake=$(realpath -m "$build")-deps
rm -rf "$fake"
mkdir -p "$fake"
trap 'rm -rf "$fake"' EXIT

mapfile -t build_pkgs < <(scripts/deps.sh list build)
mapfile -t all_pkgs < <(scripts/deps.sh list test)
test_only=()
for pkg in "${all_pkgs[@]}"; do
  case " ${build_pkgs[*]} " in *" $pkg "*) ;; *) test_only+=("$pkg") ;; esac
done

# Files of the test-only packages, with their alternatives' and versioned names (clang is a
# link to clang-14, which clang-14 installs): anything whose name starts like one of theirs, and
# anything that resolves to one of their files (mpicc is a link, through /etc/alternatives, to
# Open MPI's opal_wrapper: its name is nobody's).
declare -A hidden=() hidden_real=()
for pkg in "${test_only[@]}"; do
  while read -r f; do
    case "$f" in
      /usr/bin/* | /bin/*)
        hidden[$(basename "$f")]=1
        real=$(realpath -e "$f" 2>/dev/null) && hidden_real[$real]=1
        ;;
    esac
  done < <(dpkg -L "$pkg" 2>/dev/null || true)
done
is_hidden() {
  local name=$1 path=$2 h real
  [ -n "${hidden[$name]:-}" ] && return 0
  real=$(realpath -e "$path" 2>/dev/null) && [ -n "${hidden_real[$real]:-}" ] && return 0
  for h in "${!hidden[@]}"; do
    case "$name" in "$h"-[0-9]*) return 0 ;; esac
  done
  return 1
}

mkdir -p "$fake/bin"
for dir in /usr/bin /bin; do
  for f in "$dir"/*; do
    name=$(basename "$f")
    [ -e "$fake/bin/$name" ] && continue
    is_hidden "$name" "$f" && continue
    ln -s "$f" "$fake/bin/$name"
  done
done
for tool in qemu-riscv64 clang clang++ clang-format mpicc mpirun chromium; do
  if [ -e "$fake/bin/$tool" ]; then
    echo "check-demo-deps: $tool is still reachable; the hiding is broken" >&2
    exit 1
  fi
done

# The programs the configuration keeps in its cache (the compilers, ninja, the guest toolchain)
# are given by the real paths the folder's links point to: all are build packages' programs, and
# the build directory then outlives the folder, so that scripts/test.sh can go on to build the
# tests in it (on a fresh clone) instead of compiling the libraries twice.
link_of() { readlink "$fake/bin/$1"; }
cmake_args=(-DCMAKE_FIND_USE_CMAKE_SYSTEM_PATH=OFF "-DCMAKE_C_COMPILER=$(link_of cc)"
  "-DCMAKE_CXX_COMPILER=$(link_of c++)" "-DCMAKE_MAKE_PROGRAM=$(link_of ninja)"
  "-DHPM_RISCV_CC=$(link_of riscv64-linux-gnu-gcc)" "-DHPM_RISCV_CXX=$(link_of riscv64-linux-gnu-g++)"
  "-DHPM_RISCV_AR=$(link_of riscv64-linux-gnu-ar)")
launcher_env=()
if [ -n "${HPMSIM_COMPILER_LAUNCHER:-}" ]; then
  cmake_args+=("-DCMAKE_C_COMPILER_LAUNCHER=$HPMSIM_COMPILER_LAUNCHER"
    "-DCMAKE_CXX_COMPILER_LAUNCHER=$HPMSIM_COMPILER_LAUNCHER")
  launcher_env=("CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}")
fi
for pkg in "${build_pkgs[@]}"; do
  while read -r f; do
    case "$f" in
      */cmake/*/*Config.cmake | */cmake/*/*-config.cmake)
        dir=$(dirname "$f")
        cmake_args+=("-D$(basename "$dir")_DIR=$dir")
        ;;
    esac
  done < <(dpkg -L "$pkg")
done

echo "== the demo with the build packages alone (test-only packages hidden: ${test_only[*]})"
out=$fake/demo.out
status=0
env -i HOME="${HOME:-/tmp}" PATH="$fake/bin" HPMSIM_BUILD_DIR="$build" "${launcher_env[@]}" \
  HPMSIM_CMAKE_ARGS="${cmake_args[*]}" "$root/scripts/demo.sh" >"$out" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  cat "$out"
  echo "check-demo-deps: scripts/demo.sh failed (status $status) without the test packages" >&2
  exit 1
fi
# The guest's last line and perf stat's counter lines.
for want in "converged" "instructions" "cycles" "LLC-load-misses" "seconds simulated"; do
  if ! grep -q -- "$want" "$out"; then
    cat "$out"
    echo "check-demo-deps: the demo's output lacks '$want'" >&2
    exit 1
  fi
done
# The guest SDK was built too, and its Fortran wrapper, the Fortran cross compiler being a
# test-only package, says that it is missing.
for f in bin/mpicc include/bgpm_events.h lib/libpapi.a lib/libmpi.a lib/pkgconfig/papi.pc \
  share/cmake/hpmsim-guest.cmake; do
  if [ ! -e "$build/sdk/$f" ]; then
    echo "check-demo-deps: the demo's build lacks the guest SDK's $f" >&2
    exit 1
  fi
done
fortran_status=0
env -i PATH="$fake/bin" "$build/sdk/bin/hpm-f90" --version >"$out" 2>&1 || fortran_status=$?
if [ "$fortran_status" -ne 127 ] || ! grep -q "Fortran cross compiler .* is missing" "$out"; then
  cat "$out"
  echo "check-demo-deps: hpm-f90 without the Fortran cross compiler did not say it is missing" >&2
  exit 1
fi
# (Open MPI and the Fortran cross compiler are optional to hpmsim's build: hidden, FindMPI and
# find_program must not have found them.)
found='HPM_QEMU_RISCV64\|GTest\|benchmark_DIR\|MPI_C_COMPILER:FILEPATH=/\|HPM_RISCV_FC:FILEPATH=/'
if grep -q "$found" "$build/CMakeCache.txt"; then
  echo "check-demo-deps: the demo's configuration looked up a test-only tool:" >&2
  grep "$found" "$build/CMakeCache.txt" >&2
  exit 1
fi
echo "== the demo needs only the build packages: passed"
