#!/usr/bin/env bash
# Kill -9 series on a real site: python3.11-doc served by nginx on 127.0.0.1. One uninterrupted
# crawl (with --bundle) is the reference; then a crawl into another folder and cache is killed
# with SIGKILL KILLS times at random moments (a seeded share of the reference's wall time, so
# every phase can be hit), resumed with --resume each time, and finished. Reports the kills,
# the files that differ from the reference outside .mirror/, and the requests nginx saw twice.
#   scripts/bench-kill.sh [KILLS=5] [SEED=1]      MIRROR_BUILD=debug to use the debug build
set -euo pipefail
cd "$(dirname "$0")/.."
kills=${1:-5}
RANDOM=${2:-1}
build=${MIRROR_BUILD:-release}
scripts/setup nginx python3.11-doc curl
if [ "$build" = release ]; then
  source scripts/lib/release-mirror.sh  # MIRROR_RELEASE_SCRATCH names its build folder
else
  swift build -c "$build" --product mirror >/dev/null 2>&1
  mirror="$(swift build -c "$build" --show-bin-path)/mirror"
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/mirror-kill-bench.XXXXXX")
source scripts/lib/docs-origin.sh

started=$(date +%s.%N)
# Exit 8 (some pages failed) is expected: the docs link to a few pages they do not ship.
crawl() { "$mirror" crawl "$origin/" --quiet "$@" || [ $? -eq 8 ]; }
crawl -o "$work/reference" --cache "$work/reference-cache" --bundle "$work/reference.tar.gz"
reference_seconds=$(echo "$(date +%s.%N) - $started" | bc)
reference_requests=$(wc -l < "$work/access.log")
: > "$work/access.log"

landed=0; runs=0; flags=()
while (( landed < kills && runs < 4 * kills )); do
  # A moment between 5 % and 100 % of the reference's wall time.
  percent=$((5 + RANDOM % 96))  # drawn here: $RANDOM in a subshell would not advance
  delay=$(echo "scale=3; $reference_seconds * $percent / 100" | bc)
  "$mirror" crawl "$origin/" -o "$work/out" --cache "$work/cache" --bundle "$work/out.tar.gz" --quiet "${flags[@]}" \
    2>>"$work/series.log" &
  pid=$!
  sleep "$delay"
  if kill -9 "$pid" 2>/dev/null; then landed=$((landed + 1)); echo "kill $landed at ${delay}s"; fi
  wait "$pid" 2>/dev/null || true
  flags=(--resume); runs=$((runs + 1))
done
crawl -o "$work/out" --cache "$work/cache" --bundle "$work/out.tar.gz" --resume

series_requests=$(wc -l < "$work/access.log")
repeated=$(awk '{print $7}' "$work/access.log" | sort | uniq -d -c | awk '{s += $1 - 1} END {print s + 0}')
differing=$(diff -rq -x .mirror "$work/reference" "$work/out" | wc -l || true)
"$mirror" unpack --check "$work/out.tar.gz" >/dev/null && bundle=whole || bundle=DAMAGED
"$mirror" cache verify --cache "$work/cache" >/dev/null && cache=healthy || cache=DAMAGED
echo
echo "| measure | value |"
echo "|---|---:|"
echo "| reference crawl | ${reference_seconds} s, ${reference_requests} requests |"
echo "| kills landed | $landed in $runs runs |"
echo "| requests in the series | $series_requests |"
echo "| repeated requests | $repeated ($(echo "scale=2; 100 * $repeated / $reference_requests" | bc) % of the reference) |"
echo "| files differing outside .mirror/ | $differing |"
echo "| bundle / cache | $bundle / $cache |"
