#!/usr/bin/env bash
# The cost model of a crawled page: where a plain cold crawl's CPU goes, stage by stage, and what
# each stage costs alone. The site is python3.11-doc (530 pages, 50 MB) or a generated site of N
# small pages (scripts/gen-site.py), served by nginx on 127.0.0.1.
#   scripts/bench-cost.sh [SITE=python|N] [RUNS=3]
# 1. The crawl, RUNS times without a profiler (`mirror crawl --concurrency 8 --per-host 8` into
#    an empty folder and cache): median wall, CPU (user + system) and peak RSS; each run
#    alternated with one without the search index (`--no-index`), for what the index adds.
# 2. One more crawl under `perf record` (call chains unwound with DWARF); each sample goes to the
#    stage of its leaf-most frame that names one (scripts/lib/cost-stages.py), and the shares are
#    applied to the median CPU: CPU seconds and microseconds per page by stage.
# 3. The floors, each measured alone on the same pages, best of RUNS: libxml2's parse with
#    callbacks that do nothing (mirror-html-bench, which also times the link locator as the crawl
#    runs it, without and with the page's text: the index's text capture is the difference),
#    SHA-256 of every body (OpenSSL through Python's hashlib), writing every body to a new file
#    (Python: open, write, close, rename), the transport alone, then through the cache engine
#    (mirror-fetch-bench: every URL the crawl saved, 8 in flight), FTS5 alone taking the texts the crawl kept for its
#    index (scripts/lib/fts5-floor.py), and SQLite alone keeping those texts in a journal and
#    reading them back (scripts/lib/journal-text-floor.py): with the capture, the index's parts.
# Nothing else should run on the machine meanwhile. MIRROR_COST_PROFILE=FILE (absolute, or from
# the repository's root) keeps the profile (perf script's text) there, for
# `cost-stages.py --detail`; MIRROR_COST_HZ sets the sampling rate (999).
set -euo pipefail
cd "$(dirname "$0")/.."
site=${1:-python}; runs=${2:-3}
scripts/setup nginx python3.11-doc time curl linux-perf
source scripts/lib/release-mirror.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/mirror-cost.XXXXXX")
trap 'rm -rf "$work"' EXIT  # docs-origin.sh replaces it with one that also stops nginx
chmod 755 "$work"  # nginx's workers read a generated site from it
if [ "$site" != python ]; then
  python3 scripts/gen-site.py "$work/site" "$site"
  docs=$work/site
fi
source scripts/lib/docs-origin.sh
source scripts/lib/measure.sh
source scripts/lib/crawl-parts.sh
crawl=("$mirror" crawl "$origin/" --quiet --concurrency 8 --per-host 8)

for i in $(seq "$runs"); do
  run crawl "${crawl[@]}" -o "$work/out-$i" --cache "$work/cache-$i"
  run crawl-no-index "${crawl[@]}" -o "$work/out-no-index-$i" --cache "$work/cache-no-index-$i" --no-index
done
perf record -q -F "${MIRROR_COST_HZ:-999}" --call-graph dwarf,16384 -o "$work/perf.data" -- \
  "${crawl[@]}" -o "$work/out-profiled" --cache "$work/cache-profiled" >/dev/null 2>"$work/perf-record.stderr" || true
if [ ! -s "$work/perf.data" ]; then
  echo "bench-cost: perf record made no profile: $(tail -3 "$work/perf-record.stderr")" >&2
  exit 1
fi
perf script -i "$work/perf.data" -F comm,tid,ip,sym,dso 2>/dev/null > "$work/perf.txt"
if [ -n "${MIRROR_COST_PROFILE:-}" ]; then cp "$work/perf.txt" "$MIRROR_COST_PROFILE"; fi

# The pages (HTML) and all resources the crawl saved, and their bodies for the floors: each
# resource's original when the folder keeps one, else its saved file.
mkdir -p "$work/pages" "$work/bodies"
read -r pages resources < <(python3 - "$work/out-1" "$work/pages" "$work/bodies" <<'PY'
import json, os, sys
folder, pages, bodies = sys.argv[1:4]
resources = json.load(open(f"{folder}/.mirror/manifest.json"))["resources"].values()
html = 0
for n, r in enumerate(sorted(resources, key=lambda r: r["path"])):
    original = f"{folder}/.mirror/originals/{r.get('sha256')}"
    source = original if os.path.exists(original) else f"{folder}/{r['path']}"
    os.link(source, f"{bodies}/{n}")
    if (r.get("contentType") or "").startswith("text/html"):
        os.link(source, f"{pages}/{n}.html")
        html += 1
print(html, len(resources))
PY
)

swift build -c release --product mirror-html-bench --scratch-path "${scratch:-.build}" >/dev/null 2>&1
"$(swift build -c release --scratch-path "${scratch:-.build}" --show-bin-path)/mirror-html-bench" "$work/pages" "$runs" Locator \
  > "$work/floor.txt"
python3 - "$work/bodies" "$runs" > "$work/floors.txt" <<'PY'
import hashlib, os, sys, time
folder, runs = sys.argv[1], int(sys.argv[2])
bodies = [open(f"{folder}/{name}", "rb").read() for name in sorted(os.listdir(folder))]
def best(work):
    times = []
    for _ in range(runs):
        start = time.process_time(); work(); times.append(time.process_time() - start)
    return min(times)
def write_all():
    target = folder + "-written"
    os.makedirs(target, exist_ok=True)
    for n, body in enumerate(bodies):
        with open(f"{target}/{n}.tmp", "wb") as f: f.write(body)
        os.rename(f"{target}/{n}.tmp", f"{target}/{n}")
print(f"sha256 {best(lambda: [hashlib.sha256(b).digest() for b in bodies]):.3f}")
print(f"write {best(write_all):.3f}")
print(f"bytes {sum(map(len, bodies))}")
PY
saved_urls "$work/out-1" > "$work/urls"
for i in $(seq "$runs"); do
  run transport "$fetch_bench" "$work/urls" 8
  run cache "$fetch_bench" "$work/urls" 8 --cache "$work/parts-cache-$i"
done

# median COLUMN FILE: the median of a .times column (0 wall, 1 peak RSS KB, 2 CPU: user + system).
median() {
  python3 - "$1" "$2" <<'PY'
import statistics, sys
column, path = int(sys.argv[1]), sys.argv[2]
def value(fields):
    return float(fields[2]) + float(fields[3]) if column == 2 else float(fields[column])
print(f"{statistics.median(value(line.split()) for line in open(path)):.3f}")
PY
}
cpu=$(median 2 "$work/crawl.times")
echo "# Cost model: $site, $pages pages, $resources resources, $(date -u +%FT%TZ), $(nproc) cores"
echo
wall=$(median 0 "$work/crawl.times")
echo "Crawl, median of $runs: wall $wall s, CPU $cpu s ($(python3 -c "print(f'{$cpu / $wall:.2f}')") cores busy on average)," \
  "peak RSS $(python3 -c "print(round($(median 1 "$work/crawl.times") / 1024))") MB"
echo
python3 scripts/lib/cost-stages.py "$work/perf.txt" "$cpu" "$pages" "$resources"
echo
lx=$(sed -n 's/.*(\([0-9.]*\) s,.*/\1/p' "$work/floor.txt" | head -1)
if [ -z "$lx" ]; then echo "bench-cost: mirror-html-bench gave no floor: $(cat "$work/floor.txt")" >&2; exit 1; fi
echo "Floors, each alone (CPU s; best of $runs):"
echo "- libxml2 parse, no-op callbacks (T_lx): $lx s — the crawl's CPU is $(python3 -c "print(f'{$cpu / $lx:.2f}')") × T_lx"
echo "- SHA-256 of every body: $(awk '/^sha256/{print $2}' "$work/floors.txt") s; writing every body to a file: $(awk '/^write/{print $2}' "$work/floors.txt") s ($(awk '/^bytes/{printf "%.1f", $2 / 1e6}' "$work/floors.txt") MB)"
echo "- transport alone: $(median 2 "$work/transport.times") s CPU; transport + cache engine: $(median 2 "$work/cache.times") s CPU"
read -r _ fts5 _ texts _ text_bytes < <(python3 scripts/lib/fts5-floor.py "$work/out-1/.mirror/journal.sqlite" "$runs")
bare=$(median 2 "$work/crawl-no-index.times")
echo "- FTS5 alone on the $texts texts the crawl kept ($(python3 -c "print(f'{$text_bytes / 1e6:.1f}')") MB): $fts5 s," \
  "$(python3 -c "print(f'{100 * $fts5 / $bare:.1f}')") % of the crawl without the index"
read -r _ journal_write _ journal_read _ < <(python3 scripts/lib/journal-text-floor.py "$work/out-1/.mirror/journal.sqlite" "$runs")
journal=$(python3 -c "print(f'{$journal_write + $journal_read:.3f}')")
echo "- the journal keeping those texts and reading them back (SQLite alone): $journal s ($journal_write written, $journal_read read)," \
  "$(python3 -c "print(f'{100 * $journal / $bare:.1f}')") % of the crawl without the index"
locator=$(sed -n 's/^HTMLReferenceLocator  .*(\([0-9.]*\) s,.*/\1/p' "$work/floor.txt")
with_text=$(sed -n 's/^HTMLReferenceLocator + text .*(\([0-9.]*\) s,.*/\1/p' "$work/floor.txt")
capture=$(python3 -c "print(f'{$with_text - $locator:.3f}')")
echo "- the text's capture alone (the link locator as the crawl runs it, with the page's text, less without; one thread):" \
  "$capture s, $(python3 -c "print(f'{100 * $capture / $bare:.1f}')") % of the crawl without the index"
echo
echo "The search index: the crawl without it (--no-index, median of $runs) takes $bare CPU s;" \
  "with it the crawl takes $(python3 -c "print(f'{100 * ($cpu - $bare) / $bare:.1f}')") % more CPU" \
  "(wall $(median 0 "$work/crawl-no-index.times") s against $wall s); its parts, each alone (FTS5, SQLite keeping the texts," \
  "the capture), add up to $(python3 -c "print(f'{100 * ($fts5 + $journal + $capture) / $bare:.1f}')") %"
