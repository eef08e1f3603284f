#!/usr/bin/env bash
# Two builds of mirror on one generated site (scripts/gen-site.py) served by nginx on 127.0.0.1,
# alternating, so that the machine's drift falls on both alike: the way to tell whether a change
# to the crawl's per-page cost is worth keeping. Prints each run's wall s, peak RSS KB, user s,
# system s and how many files the cache holds.
#   scripts/bench-ab.sh OLD_MIRROR NEW_MIRROR [PAGES=10000] [ROUNDS=3]
# A build of an earlier commit: git worktree add /tmp/old REV && (cd /tmp/old &&
#   swift build -c release --product mirror --scratch-path /tmp/old-build)
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1 new=$2 pages=${3:-10000} rounds=${4:-3}
scripts/setup nginx time curl
work=$(mktemp -d "${TMPDIR:-/tmp}/mirror-ab-bench.XXXXXX")
chmod 755 "$work"  # nginx's workers read the site from it
python3 scripts/gen-site.py "$work/site" "$pages"
docs=$work/site
source scripts/lib/docs-origin.sh
source scripts/lib/measure.sh
for round in $(seq "$rounds"); do
  for build in old new; do
    binary=$old; [ "$build" = new ] && binary=$new
    run "$build" "$binary" crawl "$origin/" --quiet --concurrency 8 --per-host 8 -o "$work/$build-$round" --cache "$work/$build-$round-cache"
    echo "$build, round $round: $(tail -1 "$work/$build.times"), $(find "$work/$build-$round-cache" -type f | wc -l) files in the cache"
  done
done
