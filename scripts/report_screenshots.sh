#!/usr/bin/env bash
# The screenshots of docs/report.md: each kind of hpmsim report (a profile run, stat with
# intervals and regions, a sweep) of amg, made and photographed in Debian's headless Chromium.
#   scripts/report_screenshots.sh [BUILD_DIR]      (default: build; `ninja report_screenshots`)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
hpmsim=$build/tools/hpmsim/hpmsim
docs=$(pwd)/docs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$build/guest/bin/amg" "$tmp/"
cd "$tmp"
export PATH=/usr/bin:/bin LANG=C
"$hpmsim" run --env-clear --mode profile --profile-interval 50000 --profile-prefix p \
  --report run.html -- ./amg 12 1 >/dev/null
# Intervals and regions take two runs (stat refuses them together).
events=instructions,cycles,cache-misses,branch-misses
"$hpmsim" stat --env-clear -I 0.1 -e $events --json -o intervals.json -- ./amg 12 1 >/dev/null
"$hpmsim" stat --env-clear --per-region -e $events --json -o regions.json -- ./amg 12 1 >/dev/null
"$hpmsim" report intervals.json regions.json --title "hpmsim stat" -o stat.html
"$hpmsim" sweep --json --set core.store_queue_entries=2,4,16 -- ./amg 12 1 >sweep.json
"$hpmsim" report sweep.json --title "hpmsim sweep: core.store_queue_entries" -o sweep.html
for kind in run stat sweep; do
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$tmp/profile" --hide-scrollbars --window-size=1280,1800 \
    --screenshot="$docs/report-$kind.png" "file://$tmp/$kind.html" 2>/dev/null
  echo "docs/report-$kind.png"
done
