#!/usr/bin/env bash
# The timing model against CVA6's RTL (docs/fidelity.md): builds the reference micro-kernels of
# ../shared/fidelity exactly as its README says, checks that each kernel retires the README's
# instruction count, runs them on the cva6 preset and prints per kernel CVA6's cycles, hpmsim's
# and the error, then the mean and largest absolute error. Exit status 1 if an instruction count
# differs (the reference does not apply), 2 if the goal (every kernel within 3 %, mean within
# 1.5 %) is missed.
#
#   bench/fidelity_cva6.sh [BUILD_DIR] [FIDELITY_DIR] [-- EXTRA hpmsim run OPTIONS...]
#   (paths from the current directory; the defaults, build and ../shared/fidelity, are for
#   running it from the repository's root)
#
# With WRITE_DOC=1 it also replaces the table of docs/fidelity.md (between its "generated"
# markers) with this run's.
#
# A benchmark, not a test: the reference files live outside the repository. It needs Debian's
# bare-metal cross compiler (gcc-riscv64-unknown-elf), which it installs when missing.
set -euo pipefail
build=${1:-build}
fidelity=${2:-../shared/fidelity}
shift $(($# >= 2 ? 2 : $#))
[[ ${1:-} == -- ]] && shift
extra=("$@")
# (Paths are the caller's; the script then works from the repository's root.)
hpmsim=$(realpath "$build/tools/hpmsim/hpmsim")
fidelity=$(realpath "$fidelity")
cd "$(dirname "$0")/.."
if ! command -v riscv64-unknown-elf-gcc >/dev/null; then
  sudo=$([[ $(id -u) == 0 ]] || echo sudo)
  $sudo apt-get install -y -qq gcc-riscv64-unknown-elf >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The README's commands, verbatim.
(cd "$tmp" &&
  riscv64-unknown-elf-gcc -O2 -march=rv64gc -mabi=lp64d -mcmodel=medany -ffreestanding \
    -fno-builtin -fno-tree-loop-distribute-patterns -falign-functions=64 -fno-pic -mno-relax \
    -c "$fidelity/kernels.c" &&
  riscv64-linux-gnu-gcc -static -O2 "$fidelity/main_linux.c" kernels.o -o kernels)

# (An empty guest environment: the caller's would shift the stack and with it the chase kernels'
# cache sets from one shell to another.)
(cd "$tmp" && "$hpmsim" run --machine cva6 --env-clear "${extra[@]}" -- ./kernels) >"$tmp/out.txt"
echo "# hpmsim run --machine cva6 --env-clear ${extra[*]} -- kernels ($(git rev-parse --short HEAD))"
python3 - "$fidelity/README.md" "$tmp/out.txt" "${WRITE_DOC:+docs/fidelity.md}" <<'EOF'
import re, sys
# The README's table: | kernel | what | instructions | CVA6 cycles |
ref = {}
for line in open(sys.argv[1]):
    m = re.match(r"\|\s*(\w+)\s*\|.*\|\s*([\d,]+)\s*\|\s*([\d,]+)\s*\|\s*$", line)
    if m:
        ref[m.group(1)] = (int(m.group(2).replace(",", "")), int(m.group(3).replace(",", "")))
errors, bad = [], []
table = ["| kernel | instructions | CVA6 cycles | hpmsim cycles | error |",
         "| --- | ---: | ---: | ---: | ---: |"]
for line in open(sys.argv[2]):
    _, name, cycles, insts, _ = line.split()
    want_insts, want_cycles = ref[name]
    if int(insts) != want_insts:
        bad.append(f"{name}: {insts} instructions, the reference's {want_insts}")
    e = (int(cycles) - want_cycles) / want_cycles * 100
    errors.append(abs(e))
    table.append(f"| {name} | {int(insts):,} | {want_cycles:,} | {int(cycles):,} | {e:+.2f} % |")
if len(errors) != len(ref):
    bad.append(f"{len(errors)} kernels ran, the reference has {len(ref)}")
mean = sum(errors) / len(errors)
summary = (f"mean absolute error {mean:.2f} %, largest {max(errors):.2f} % "
           f"(goal: each within 3 %, mean within 1.5 %)")
print("\n".join(table) + "\n\n" + summary)
if len(sys.argv) > 3 and sys.argv[3] and not bad:
    doc = open(sys.argv[3]).read()
    begin, end = "<!-- generated: bench/fidelity_cva6.sh -->\n", "<!-- end generated -->"
    head, rest = doc.split(begin)
    tail = rest.split(end)[1]
    open(sys.argv[3], "w").write(head + begin + "\n".join(table) + "\n\n" + summary[0].upper()
                                 + summary[1:] + ".\n" + end + tail)
if bad:
    print("instruction counts differ, the reference does not apply:", "; ".join(bad))
    sys.exit(1)
sys.exit(0 if max(errors) <= 3 and mean <= 1.5 else 2)
EOF
