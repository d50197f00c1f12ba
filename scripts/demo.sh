#!/usr/bin/env bash
# Sets up (Debian packages), builds, and runs the bundled demo workload on the default machine.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh build
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build
exec build/tools/hpmsim/hpmsim run --summary -- build/guest/bin/demo "$@"
