#!/usr/bin/env bash
# `mirror crawl --browser` against its floor, measured in the same run: the same Chromium, tabs,
# proxies and page loop (load, idle, settle, scroll, idle, settle) loading the same pages (those
# the crawl loaded in its browser), every response served from memory, read beforehand from the
# crawl's cache (mirror-browser-bench). The crawl runs twice: with its offline check of each page
# (the default) and with --no-page-check; the floor twice too: alone, and with the least the
# check can cost (each page shot as it opens, then its copy in the checked crawl's folder opened
# from file:// and compared, once per file). Two sites served by nginx on 127.0.0.1: the scripted
# fixture (five copies, 30 pages) and the doxygen manual (doxygen-doc, whose navigation is built by
# scripts). Prints per run: pages, wall times and their ratios: the crawl without its check to
# the floor, the crawl with its check to the floor with the check (goal: <= 1.25) and to the
# floor alone (what the check adds), mirror's own peak RSS (VmHWM of its process alone; goal:
# <= 100 MB) and the browser's peak (the sum of the RSS of its process group, shared pages
# counted in each process).
#   scripts/bench-browser.sh        (RUNS=N runs per site, 2 by default; TABS=N, 2 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup nginx doxygen-doc chromium curl bc
source scripts/lib/release-mirror.sh
swift build -c release --product mirror-browser-bench --scratch-path "${scratch:-.build}" >/dev/null 2>&1
floor="$(dirname "$mirror")/mirror-browser-bench"
runs=${RUNS:-2}
tabs=${TABS:-2}
results=$(mktemp -d "${TMPDIR:-/tmp}/mirror-bench-browser.XXXXXX")
trap 'rm -rf "$results"' EXIT

# measure NAME COMMAND...: runs COMMAND, sampling every 50 ms its own peak RSS and the summed RSS
# of the browser's process group; appends "NAME seconds own-MB browser-MB" to $results/rows.
measure() {
  local name=$1
  shift
  local started own=0 browser=0 sum leader pid
  started=$(date +%s.%N)
  "$@" > "$results/$name.out" 2> "$results/$name.err" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    own=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo "$own")
    leader=$(pgrep -f -- '--remote-debugging-pipe' | head -1 || true)
    if [ -n "$leader" ]; then
      sum=$(for member in $(pgrep -g "$leader"); do awk '/^VmRSS/ {print $2}' "/proc/$member/status" 2>/dev/null || true; done |
        awk '{s += $1} END {print s + 0}')
      if [ "$sum" -gt "$browser" ]; then browser=$sum; fi
    fi
    sleep 0.05
  done
  wait "$pid" || true
  printf '%s %.2f %d %d\n' "$name" "$(echo "$(date +%s.%N) - $started" | bc)" $((own / 1024)) $((browser / 1024)) >> "$results/rows"
}

# bench_site NAME DOCS SEED-PATH...: serves DOCS from nginx and measures $runs crawls and floors.
bench_site() {
  local name=$1 docs=$2
  shift 2
  (
    work="$results/$name"
    mkdir -p "$work"
    source scripts/lib/docs-origin.sh
    seeds=()
    for path in "$@"; do seeds+=("$origin$path"); done
    for run in $(seq "$runs"); do
      measure "$name-mirror-$run" "$mirror" crawl "${seeds[@]}" -o "$work/out-$run" --cache "$work/cache-$run" \
        --browser --browser-tabs "$tabs" --verbose
      measure "$name-unchecked-$run" "$mirror" crawl "${seeds[@]}" -o "$work/unchecked-$run" --cache "$work/unchecked-cache-$run" \
        --browser --browser-tabs "$tabs" --no-page-check
      grep '^mirror: BROWSER ' "$results/$name-mirror-$run.err" | awk '{print $3}' > "$work/pages-$run"
      grep -h 'copies offline against' "$results/$name-mirror-$run.err" >&2 || true
      measure "$name-floor-$run" "$floor" "$work/pages-$run" --cache "$work/cache-$run" --tabs "$tabs"
      measure "$name-floorcheck-$run" "$floor" "$work/pages-$run" --cache "$work/cache-$run" --tabs "$tabs" --check "$work/out-$run"
      grep -h "copies checked" "$results/$name-floorcheck-$run.out" >&2 || true
      echo "$name $run $(wc -l < "$work/pages-$run")" >> "$results/pages"
      grep -h "with notes" "$results/$name-floor-$run.out" >&2 || true
    done
  )
}

bench_site fixture "$PWD/fixtures/sites/scripted" / /copy1/ /copy2/ /copy3/ /copy4/
bench_site doxygen /usr/share/doc/doxygen/html /
echo "Chromium $(chromium --version 2>/dev/null | awk '{print $2}'), $tabs tabs, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %3s %6s %9s %11s %8s %10s %9s %9s %9s %9s %13s %13s\n' site run pages "mirror s" "unchecked s" "floor s" "floor+chk s" \
  "chk/f+c" "chk/floor" "unchk/f" "mirror MB" "browser MB m" "browser MB f"
while read -r site run pages; do
  read -r _ mirror_s own mirror_browser < <(grep "^$site-mirror-$run " "$results/rows")
  read -r _ unchecked_s _ _ < <(grep "^$site-unchecked-$run " "$results/rows")
  read -r _ floor_s _ floor_browser < <(grep "^$site-floor-$run " "$results/rows")
  read -r _ floorcheck_s _ _ < <(grep "^$site-floorcheck-$run " "$results/rows")
  printf '%-8s %3s %6s %9s %11s %8s %10s %9.2f %9.2f %9.2f %9s %13s %13s\n' "$site" "$run" "$pages" "$mirror_s" "$unchecked_s" "$floor_s" \
    "$floorcheck_s" "$(echo "$mirror_s / $floorcheck_s" | bc -l)" "$(echo "$mirror_s / $floor_s" | bc -l)" \
    "$(echo "$unchecked_s / $floor_s" | bc -l)" "$own" "$mirror_browser" "$floor_browser"
done < "$results/pages"
