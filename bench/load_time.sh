#!/usr/bin/env bash
# Loading large segments (docs/PERFORMANCE.md, "Loading"): host wall time from start to exit of
#   big_bss   guest/workloads/big_bss.c, a 1.5 GiB .bss (the largest a static program links),
#             under hpmsim run --mode functional and qemu-riscv64;
#   small     tests/fuzz/corpus/elf/tiny_static, which exits at once, under hpmsim;
#   large     the same with its text segment's p_memsz set to SIZE_MIB (default 8192: an 8 GiB
#             zero-filled tail, as the hardening report's 8 GiB .bss), under hpmsim (qemu-riscv64
#             7.2 itself crashes with SIGSEGV loading it);
# the median of REPEAT (default 5) alternated rounds.
#
#   bench/load_time.sh [BUILD_DIR] [BEFORE_HPMSIM]     (default: build)
#
# With BEFORE_HPMSIM, an hpmsim built before segments were mapped in one host call each, for the
# same runs. Fails when "large" takes hpmsim more than twice "small" plus 10 ms: the load must not
# grow with a segment's size.
set -euo pipefail
build=${1:-build}
before=${2:-}
repeat=${REPEAT:-5}
size_mib=${SIZE_MIB:-8192}
hpmsim=$(realpath "$build/tools/hpmsim/hpmsim")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$build/guest/bin/big_bss" "$tmp/big_bss"
cp tests/fuzz/corpus/elf/tiny_static "$tmp/small"
cp tests/fuzz/corpus/elf/tiny_static "$tmp/large"
# The second program header (the LOAD) starts at 64 + 56; its p_memsz is 40 bytes in.
python3 - "$tmp/large" "$size_mib" <<'PY'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(64 + 56 + 40)
    f.write(struct.pack("<Q", int(sys.argv[2]) << 20))
PY

wall() {
  local start end
  start=$(date +%s.%N)
  (cd "$tmp" && env -i PATH=/usr/bin:/bin "$@" >/dev/null 2>&1) || true
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.3f}')"
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

declare -A t
names=(qemu_big_bss hpmsim_big_bss hpmsim_small hpmsim_large)
[ -n "$before" ] && names+=(before_big_bss before_small before_large)
run_hpmsim() { wall "$1" run --mode functional -- "./$2"; }
for ((r = 0; r < repeat; ++r)); do
  t[qemu_big_bss]+=" $(wall qemu-riscv64 ./big_bss)"
  for p in big_bss small large; do
    t[hpmsim_$p]+=" $(run_hpmsim "$hpmsim" $p)"
    [ -n "$before" ] && t[before_$p]+=" $(run_hpmsim "$before" $p)"
  done
done
declare -A m
echo "median of $repeat alternated rounds (large: p_memsz = $size_mib MiB)"
for n in "${names[@]}"; do
  # shellcheck disable=SC2086
  m[$n]=$(median ${t[$n]})
  printf '%-15s %s -> %s s\n' "$n" "${t[$n]# }" "${m[$n]}"
done
python3 - "${m[hpmsim_small]}" "${m[hpmsim_large]}" <<'PY'
import sys
small, large = map(float, sys.argv[1:])
print(f"hpmsim large - small = {1000 * (large - small):.0f} ms")
sys.exit(0 if large <= 2 * small + 0.010 else 1)
PY
