#!/usr/bin/env bash
# Crawl benchmark: the Python 3.11 documentation (python3.11-doc, ~530 pages) served by nginx
# on 127.0.0.1, mirrored by mirror, wget and wget2 in alternation, in one run on one machine.
# Reports medians of wall time, peak RSS and CPU time, ratios (to wget, wget2, and to T_lx:
# libxml2's own parse of the same pages), and offline-check results. The crawl's parts are timed
# too (mirror-fetch-bench over the URLs the cold crawl saved, 8 in flight): the transport alone,
# then through the cache engine (`+ cache`), then parsing each page with libxml2 too (`+ parse`).
#   scripts/bench-crawl.sh [RUNS=3]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
scripts/setup nginx python3.11-doc wget wget2 time curl
source scripts/lib/release-mirror.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/mirror-crawl-bench.XXXXXX")
source scripts/lib/docs-origin.sh

source scripts/lib/measure.sh
requests() { wc -l < "$work/access.log"; }

# The re-crawls go into the cold crawl's folder, as a nightly job updating its copy does;
# "mirror-maxage-new" re-crawls from the warm cache into a new, empty folder. Each round writes
# into folders of its own and nothing is deleted until the end: on ext4 without a journal, a run
# right after a deletion pays for it (BENCHMARKS.md, crawl cost at scale).
for i in $(seq "$runs"); do
  out=$work/round-$i
  mkdir -p "$out"
  run mirror-cold "$mirror" crawl "$origin/" -o "$out/m-cold" --cache "$out/cache" --quiet
  : > "$work/access.log"
  run mirror-maxage "$mirror" crawl "$origin/" -o "$out/m-cold" --cache "$out/cache" --quiet --max-age 3600
  echo "$(requests)" >> "$work/maxage.requests"
  run mirror-maxage-new "$mirror" crawl "$origin/" -o "$out/m-new" --cache "$out/cache" --quiet --max-age 3600
  : > "$work/access.log"
  run mirror-refresh "$mirror" crawl "$origin/" -o "$out/m-cold" --cache "$out/cache" --quiet --refresh
  grep -c '" 304 ' "$work/access.log" >> "$work/refresh.304s" || true
  run wget bash -c "cd '$out' && mkdir -p wget && cd wget && wget -q -m -k -p -E -e robots=off '$origin/'"
  run wget2 bash -c "cd '$out' && mkdir -p wget2 && cd wget2 && wget2 -q --max-threads=8 -m -k -p -E --robots=off '$origin/'"
done

# T_lx: libxml2's own parse, on one thread with callbacks that do nothing, of exactly
# the HTML pages the cold crawl fetched (each page's kept original, or its saved file when it
# needed no rewriting), best of 3 passes.
mkdir -p "$work/pages"
python3 - "$out/m-cold" "$work/pages" <<'PY'
import json, os, sys
folder, pages = sys.argv[1], sys.argv[2]
resources = json.load(open(f"{folder}/.mirror/manifest.json"))["resources"].values()
paths = sorted({r["path"]: r for r in resources if (r.get("contentType") or "").startswith("text/html")}.items())
for n, (path, resource) in enumerate(paths):
    original = f"{folder}/.mirror/originals/{resource['sha256']}"
    os.link(original if os.path.exists(original) else f"{folder}/{path}", f"{pages}/{n}.html")
PY
swift build -c release --product mirror-html-bench --scratch-path "${scratch:-.build}" >/dev/null 2>&1
"$(swift build -c release --scratch-path "${scratch:-.build}" --show-bin-path)/mirror-html-bench" "$work/pages" 3 floor | tee "$work/floor.txt"
source scripts/lib/crawl-parts.sh
saved_urls "$out/m-cold" > "$work/urls"
for i in $(seq "$runs"); do time_parts "$work/urls" "$work/parts-$i"; done

python3 - "$work" <<'PY'
import re, statistics, sys, os
work = sys.argv[1]
def load(name):
    rows = [line.split() for line in open(f"{work}/{name}.times")]
    return (statistics.median(float(r[0]) for r in rows), statistics.median(int(r[1]) for r in rows) / 1024,
            statistics.median(float(r[2]) + float(r[3]) for r in rows))
results = {name: load(name) for name in ["mirror-cold", "mirror-maxage", "mirror-maxage-new", "mirror-refresh", "wget", "wget2",
                                         "transport", "cache", "parse"]}
cold = results["mirror-cold"][0]
print("| run | median wall s | ratio | peak RSS MB | CPU s (user+sys) |")
print("|---|---:|---:|---:|---:|")
for name, (wall, rss, cpu) in results.items():
    print(f"| {name} | {wall:.2f} | {wall / cold:.2f}× mirror cold | {rss:.0f} | {cpu:.2f} |")
print(f"\nmirror cold / wget2: {cold / results['wget2'][0]:.2f}; mirror cold / wget: {cold / results['wget'][0]:.2f}")
floor = float(re.search(r"\(([0-9.]+) s,", open(f"{work}/floor.txt").read()).group(1))
print(f"T_lx {floor:.2f} s: mirror cold wall / T_lx {cold / floor:.2f} (goal 0.8), "
      f"CPU / T_lx {results['mirror-cold'][2] / floor:.2f} (goal 1.3)")
print(f"mirror cold / its parts (transport + cache + parse): {cold / results['parse'][0]:.2f} in wall time, "
      f"{results['mirror-cold'][2] / results['parse'][2]:.2f} in CPU "
      f"(the crawl's own work against the parts it is built on; nearest meaningful goal <= 2)")
parts = results["parse"][2]
print(f"transport + cache + parse alone: CPU / T_lx {parts / floor:.2f}; spread over {os.cpu_count()} cores "
      f"{parts / os.cpu_count() / floor:.2f} x T_lx (the least wall time those parts allow, nginx's CPU aside)")
print(f"--max-age re-crawl origin requests: {open(f'{work}/maxage.requests').read().split()}")
print(f"--refresh re-crawl 304 responses: {open(f'{work}/refresh.304s').read().split()}")
PY
echo
# mirror writes one folder per host (host_port); wget keeps host:port; wget2 drops the port.
for pair in "mirror:m-cold/127.0.0.1_$port" "wget:wget/127.0.0.1:$port" "wget2:wget2/127.0.0.1"; do
  printf '%s: ' "${pair%%:*}"
  python3 ../shared/tools/offline-check.py "$out/${pair#*:}" --origin "$origin" 2>/dev/null | tail -1 || true
done
printf 'origin itself (--http): '
python3 ../shared/tools/offline-check.py "$docs" --http 2>/dev/null | tail -1 || true
