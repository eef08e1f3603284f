#!/usr/bin/env bash
# Reading bundles in place (BundleArchive, behind `mirror serve FILE.tar.gz`): crawls
# python3.11-doc from nginx, packs it with `mirror pack` and with `tar -czf` (one gzip member),
# compares gzip member rules on the bundle's own tar stream (scripts/bundle-cuts.py), then
# measures opening each bundle and reading its files (mirror-archive-bench: CPU per read, cold
# and with the LRU of CACHE bytes, and peak RSS).
#   scripts/bench-archive.sh [SECONDS=5] [CACHE=16777216]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-5}
cache=${2:-16777216}
scripts/setup nginx python3.11-doc curl tar gzip
swift build -c release --product mirror >/dev/null 2>&1
swift build -c release --product mirror-archive-bench >/dev/null 2>&1
bin="$(swift build -c release --show-bin-path)"
work=$(mktemp -d "${TMPDIR:-/tmp}/mirror-archive-bench.XXXXXX")
source scripts/lib/docs-origin.sh

"$bin/mirror" crawl "$origin/" -o "$work/site" --cache "$work/cache" --quiet || true
"$bin/mirror" pack "$work/site" -o "$work/mirror.tar.gz" --quiet
tar -czf "$work/gnu.tar.gz" -C "$work/site" --exclude=./.mirror/journal.sqlite --exclude=./.mirror/journal.lock \
  --exclude=./.mirror/tmp .
echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "mirror pack: $(stat -c %s "$work/mirror.tar.gz") bytes; tar -czf: $(stat -c %s "$work/gnu.tar.gz") bytes"
python3 scripts/bundle-cuts.py "$work/mirror.tar.gz" 32 64 128 256
for bundle in mirror gnu; do
  echo "## $bundle.tar.gz"
  "$bin/mirror-archive-bench" "$work/$bundle.tar.gz" "$seconds" "$cache"
done
