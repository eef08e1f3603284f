#!/usr/bin/env bash
# Bundle benchmark: packs and unpacks a mirror of the Python 3.11 documentation (python3.11-doc,
# served by nginx on 127.0.0.1) with mirror and with GNU tar + gzip at level 6, in alternation,
# in one run on one machine; then the same for a mirror four times as large (four copies of the
# docs), to show whether peak memory grows with the bundle.
# Reports medians of wall time and peak RSS, ratios, and sizes.
#   scripts/bench-bundle.sh [RUNS=5]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
scripts/setup nginx python3.11-doc time curl tar gzip
source scripts/lib/release-mirror.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/mirror-bundle-bench.XXXXXX")
source scripts/lib/docs-origin.sh
source scripts/lib/measure.sh

"$mirror" crawl "$origin/" -o "$work/site1" --cache "$work/cache" --quiet || true
"$mirror" crawl "$origin/copy1/" "$origin/copy2/" "$origin/copy3/" "$origin/copy4/" -o "$work/site4" \
  --cache "$work/cache" --quiet || true

for i in $(seq "$runs"); do
  for size in 1 4; do
    site="$work/site$size"
    rm -rf "$work/m$size.tar.gz" "$work/t$size.tar.gz" "$work/m-out" "$work/t-out"
    run "mirror-pack-$size" "$mirror" pack "$site" -o "$work/m$size.tar.gz" --quiet
    run "tar-czf-$size" env GZIP=-6 tar -czf "$work/t$size.tar.gz" -C "$site" --exclude=./.mirror/journal.sqlite --exclude=./.mirror/tmp .
    run "mirror-unpack-$size" "$mirror" unpack "$work/m$size.tar.gz" -o "$work/m-out" --quiet
    mkdir -p "$work/t-out"
    run "tar-xzf-$size" tar -xzf "$work/m$size.tar.gz" -C "$work/t-out"
  done
done
diff -r "$work/m-out" "$work/t-out" >/dev/null && echo "mirror unpack and tar -xzf give the same tree"
"$mirror" unpack --check "$work/m1.tar.gz"

python3 - "$work" <<'PY'
import os, statistics, sys
work = sys.argv[1]
def load(name):
    rows = [line.split() for line in open(f"{work}/{name}.times")]
    return statistics.median(float(r[0]) for r in rows), statistics.median(int(r[1]) for r in rows) / 1024
for size in (1, 4):
    r = {name: load(f"{name}-{size}") for name in ["mirror-pack", "tar-czf", "mirror-unpack", "tar-xzf"]}
    ours, theirs = os.path.getsize(f"{work}/m{size}.tar.gz"), os.path.getsize(f"{work}/t{size}.tar.gz")
    print(f"\n### {size}× the docs: bundle {ours / 1e6:.1f} MB, tar -czf {theirs / 1e6:.1f} MB, size ratio {ours / theirs:.3f}")
    print("| run | median wall s | peak RSS MB |")
    print("|---|---:|---:|")
    for name, (wall, rss) in r.items():
        print(f"| {name} | {wall:.2f} | {rss:.0f} |")
    print(f"pack / tar -czf: {r['mirror-pack'][0] / r['tar-czf'][0]:.2f}; unpack / tar -xzf: {r['mirror-unpack'][0] / r['tar-xzf'][0]:.2f}")
PY
