#!/usr/bin/env bash
# Installs the Debian 12 packages hpmsim needs, only those missing (idempotent).
#   scripts/deps.sh build   what building and running the demo needs
#   scripts/deps.sh test    that, plus the test oracle (qemu-user) and the fuzzing toolchain
set -euo pipefail

build_packages=(
  cmake ninja-build g++ pkg-config
  libfmt-dev nlohmann-json3-dev libtomlplusplus-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  gcc-riscv64-linux-gnu g++-riscv64-linux-gnu
)
test_packages=(qemu-user clang libclang-rt-14-dev clang-format)

wanted=("${build_packages[@]}")
if [ "${1:-build}" = "test" ]; then
  wanted+=("${test_packages[@]}")
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

echo "Installing: ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
