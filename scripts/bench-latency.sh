#!/usr/bin/env bash
# Crawl under latency: python3.11-doc from nginx on 127.0.0.1 behind scripts/lib/delay-proxy.py,
# which answers every request 20 ms late, crawled in alternation by mirror (--concurrency 8
# --per-host 8), wget2 --max-threads=8 and wget. Prints median wall times, the ratios to the
# peers and the most requests each tool kept in flight at once (counted by the proxy). The
# crawl's parts are timed behind the same proxy too (mirror-fetch-bench over the URLs mirror
# saved, 8 in flight): the transport alone, + the cache engine, + libxml2's parse — no
# discovery to wait for.
#   scripts/bench-latency.sh [RUNS=3] [DELAY=0.02]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
delay=${2:-0.02}
scripts/setup nginx python3.11-doc wget wget2 time curl
source scripts/lib/release-mirror.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/mirror-latency-bench.XXXXXX")
source scripts/lib/docs-origin.sh
source scripts/lib/measure.sh
source scripts/lib/delay-origin.sh
trap 'kill "$proxy" 2>/dev/null || true; nginx -c "$work/nginx.conf" -s stop 2>/dev/null || true; rm -rf "$work"' EXIT
# run_peak NAME COMMAND...: run, then note the most requests in flight during it.
run_peak() { kill -USR1 "$proxy"; sleep 0.2; run "$@"; cat "$work/peak" >> "$work/$1.peak"; }

echo "load before: $(uptime)"
for _ in $(seq "$runs"); do
  rm -rf "$work/m" "$work/cache" "$work/wget" "$work/wget2"
  run_peak mirror "$mirror" crawl "$slow/" -o "$work/m" --cache "$work/cache" --quiet --concurrency 8 --per-host 8
  run_peak wget2 bash -c "mkdir -p '$work/wget2' && cd '$work/wget2' && wget2 -q --max-threads=8 -m -k -p -E --robots=off '$slow/'"
  run_peak wget bash -c "mkdir -p '$work/wget' && cd '$work/wget' && wget -q -m -k -p -E -e robots=off '$slow/'"
done
source scripts/lib/crawl-parts.sh
saved_urls "$work/m" > "$work/urls"
for i in $(seq "$runs"); do time_parts "$work/urls" "$work/parts-$i"; done
echo "load after: $(uptime)"
python3 - "$work" <<'PY'
import os, statistics, sys
work = sys.argv[1]
cores = os.cpu_count()
def median(name, column):
    return statistics.median(float(line.split()[column]) for line in open(f"{work}/{name}.times"))
walls = {name: median(name, 0) for name in ("mirror", "wget2", "wget")}
print("| tool | median wall s | CPU s (user + sys) | machine idle | peak requests in flight |")
print("|---|---:|---:|---:|---:|")
for name, wall in walls.items():
    cpu = median(name, 2) + median(name, 3)
    print(f"| {name} | {wall:.2f} | {cpu:.2f} | {median(name, 4) / (wall * cores):.0%} | "
          f"{max(int(p) for p in open(f'{work}/{name}.peak').read().split())} |")
print(f"\nmirror / wget2: {walls['mirror'] / walls['wget2']:.2f} (goal <= 0.9); "
      f"mirror / wget: {walls['mirror'] / walls['wget']:.2f} (goal <= 0.2)")
floor = (median("mirror", 2) + median("mirror", 3)) / cores
print(f"mirror's CPU spread over {cores} cores: {floor:.2f} s, {floor / walls['wget2']:.2f} x wget2's wall "
      f"(the least wall time that CPU allows, the proxy's and nginx's CPU aside)")
print(f"mirror / its parts (transport + cache + parse): {walls['mirror'] / median('parse', 0):.2f} "
      f"(the crawl's own work against the parts it is built on; nearest meaningful goal <= 2)")
for part, name in (("transport alone", "transport"), ("+ cache", "cache"), ("+ cache + parse", "parse")):
    print(f"{part}, without a crawl's discovery: {median(name, 0):.2f} s, {median(name, 0) / walls['wget2']:.2f} x wget2's wall, "
          f"CPU {median(name, 2) + median(name, 3):.2f} s")
PY
