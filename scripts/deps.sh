#!/usr/bin/env bash
# Installs the Debian 12 packages hpmsim needs, only those missing (idempotent).
#   scripts/deps.sh build          what building and running the demo needs
#   scripts/deps.sh test           that, plus what the tests need: GoogleTest, Google Benchmark,
#                                  the test oracle (qemu-user), the fuzzing toolchain and the
#                                  reference PAPI (libpapi-dev, for the host build of a PAPI
#                                  example), Chromium (the reports' browser test),
#                                  Open MPI (the host builds of the guest MPI programs),
#                                  python3 (bench/whatif.py, docs/whatif.md's generator)
#                                  and the Fortran cross compiler (the guest SDK's hpm-f90 and
#                                  mpif90, and the Fortran guest programs), and ccache (the
#                                  suite's builds keep their compiler outputs between runs)
#   scripts/deps.sh list build|test   prints the packages, one a line, and installs nothing
set -euo pipefail

build_packages=(
  cmake ninja-build g++ pkg-config
  libfmt-dev nlohmann-json3-dev libtomlplusplus-dev libcli11-dev libjs-chart.js
  gcc-riscv64-linux-gnu g++-riscv64-linux-gnu
)
test_packages=(libgtest-dev libgmock-dev libbenchmark-dev qemu-user clang libclang-rt-14-dev
               clang-format libpapi-dev chromium openmpi-bin libopenmpi-dev python3
               gfortran-riscv64-linux-gnu ccache)

list_only=0
if [ "${1:-}" = "list" ]; then
  list_only=1
  shift
fi
case "${1:-build}" in
  build) wanted=("${build_packages[@]}") ;;
  test) wanted=("${build_packages[@]}" "${test_packages[@]}") ;;
  *) echo "deps.sh: unknown set '$1' (build or test)" >&2; exit 2 ;;
esac
if [ "$list_only" -eq 1 ]; then
  printf '%s\n' "${wanted[@]}"
  exit 0
fi

missing=()
for pkg in "${wanted[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

echo "== installing Debian packages: ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
