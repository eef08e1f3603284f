#!/usr/bin/env bash
# Crawl cost at scale: a generated site of N small linked pages (scripts/gen-site.py: a tree of
# fan-out 5, 3 cross links a page, one shared stylesheet and image) served by nginx on 127.0.0.1,
# crawled by mirror (--concurrency 8 --per-host 8) and by wget2 -r -k --max-threads=8 at each size,
# in one run (each size three times, mirror and wget2 alternated, and their medians). Prints wall
# time, peak RSS, time per page, the ratios to wget2 (of the medians, and each round's pair), the
# time `--resume` takes to its first request after a kill -9 half way through the largest crawl, and
# how long each tool works after the origin's last response (rewriting links, mirror's index).
# The crawl's parts are timed too, layer by layer (mirror-fetch-bench: every URL of the site, 8 in
# flight): the transport alone (async-http-client), then through the cache engine as a crawl
# stores (`+ cache`), then parsing each page with libxml2 too (`+ parse`). What mirror takes
# beyond the last is its frontier, folder and journal; the floors of those (the journal's SQLite,
# the folder's file operations, FTS5: scripts/lib/*-floor.py, each alone on the largest crawl's
# output) give the least CPU and wall time the design allows.
#   scripts/bench-scale.sh [SIZES="10000 100000"]
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${1:-10000 100000}
scripts/setup nginx wget2 time curl
source scripts/lib/release-mirror.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/mirror-scale-bench.XXXXXX")
chmod 755 "$work"  # nginx's workers read the site from it
# Every site is written first and nothing is deleted until the end: on ext4 without a journal,
# each new inode skips those deleted in the last minutes, so a run right after a deletion pays
# for it (BENCHMARKS.md). nginx serves $work/site, a link to the site being measured.
for n in $sizes; do python3 scripts/gen-site.py "$work/site-$n" "$n"; done
docs=$work/site
ln -sfn "site-${sizes%% *}" "$docs"
source scripts/lib/docs-origin.sh
source scripts/lib/measure.sh
source scripts/lib/crawl-parts.sh
crawl=("$mirror" crawl "$origin/" --quiet --concurrency 8 --per-host 8)
pages() { find "$1" -name '*.html' -not -path '*/.mirror/*' | wc -l; }
# Seconds from the origin's last response (nginx's access log, emptied before the run) to now, the
# end of the run: what a crawl does after fetching (rewriting links, the index, the manifest).
after_last_response() {
  python3 -c "import sys; print(f'{float(sys.argv[2]) - max(float(l.split()[-1]) for l in open(sys.argv[1])):.2f}')" \
    "$work/access.log" "$(date +%s.%N)"
}

echo "load before: $(uptime)"
for n in $sizes; do
  ln -sfn "site-$n" "$docs"
  (cd "$work/site-$n" && find . -type f | sed "s#^\.#$origin#") > "$work/urls-$n"
  # Every size is crawled three times and its medians taken: on this machine one pair of crawls at
  # 100,000 pages can put mirror / wget2 anywhere from 1.0 to 2.4 within an hour, and one run's
  # spread at 10,000 pages decides the time-per-page ratio. Each round times the parts right
  # after the crawls, so that mirror / its parts compares runs minutes apart at most: on this
  # machine the same run moved by 15–25 % in half an hour.
  for round in 1 2 3; do
    : > "$work/access.log"
    run "mirror-$n" "${crawl[@]}" -o "$work/mirror-$n-$round" --cache "$work/mirror-$n-$round-cache"
    after_last_response >> "$work/mirror-$n.after"
    echo "mirror $n: $(pages "$work/mirror-$n-$round") pages, $(tail -1 "$work/mirror-$n.times")"
    : > "$work/access.log"
    run "wget2-$n" bash -c "mkdir -p '$work/wget2-$n-$round' && cd '$work/wget2-$n-$round' && wget2 -q -r -l 0 -k -p --max-threads=8 '$origin/'"
    after_last_response >> "$work/wget2-$n.after"
    echo "wget2 $n: $(pages "$work/wget2-$n-$round") pages, $(tail -1 "$work/wget2-$n.times")"
    time_parts "$work/urls-$n" "$work/parts-$n-$round" "-$n"
    for part in transport cache parse; do echo "$part $n: $(tail -1 "$work/$part-$n.times")"; done
  done
done
echo "load after: $(uptime)"

# --resume after a kill -9 at half the largest site's pages: seconds until its first request.
half=$(( ${sizes##* } / 2 ))
: > "$work/access.log"
"${crawl[@]}" -o "$work/kill" --cache "$work/kill-cache" & pid=$!
until [ "$(wc -l < "$work/access.log")" -ge "$half" ] || ! kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
kill -9 "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
before=$(wc -l < "$work/access.log")
start=$(date +%s.%N)
"${crawl[@]}" -o "$work/kill" --cache "$work/kill-cache" --resume & pid=$!
until [ "$(wc -l < "$work/access.log")" -gt "$before" ] || ! kill -0 "$pid" 2>/dev/null; do sleep 0.01; done
first=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$start" "$(date +%s.%N)")
kill -9 "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
echo "--resume after a kill at $before of ${sizes##* } requests: first request after $first s"

# The floors of what mirror does beyond its parts, from the largest site's last crawl, each alone:
# the journal's SQLite work, the folder's file operations, and FTS5 taking the pages' texts.
large=${sizes##* }
last=$work/mirror-$large-3
{
  python3 scripts/lib/journal-floor.py "$last/.mirror/journal.sqlite" 1
  python3 scripts/lib/folder-floor.py "$last" "$last-cache" "$work"
  python3 scripts/lib/fts5-floor.py "$last/.mirror/journal.sqlite" 1
} > "$work/floors-$large"
cat "$work/floors-$large"

python3 - "$work" $sizes <<'PY'
import os, statistics, sys
work, sizes = sys.argv[1], [int(n) for n in sys.argv[2:]]
cores = os.cpu_count()
def runs(name):
    """Each run of `name`: wall s, peak RSS KB, user s, system s, the machine's idle s."""
    return [[float(field) for field in line.split()] for line in open(f"{work}/{name}.times")]
def load(name):
    """The median of each measure over the runs of `name`."""
    wall, rss, user, system, idle = (statistics.median(measure) for measure in zip(*runs(name)))
    return wall, rss / 1024, user + system, idle / (wall * cores)
print("| pages | tool | wall s | ms/page | peak RSS MB | CPU s | machine idle | mirror/wget2 wall |")
print("|---:|---|---:|---:|---:|---:|---:|---:|")
for n in sizes:
    m, w = load(f"mirror-{n}"), load(f"wget2-{n}")
    for part, name in (("transport alone", "transport"), ("+ cache", "cache"), ("+ cache + parse", "parse")):
        f = load(f"{name}-{n}")
        print(f"| {n:,} | {part} | {f[0]:.1f} | {f[0] / n * 1000:.2f} | {f[1]:.0f} | {f[2]:.1f} | {f[3]:.0%} | ({f[0] / w[0]:.2f}) |")
    for tool, (wall, rss, cpu, idle) in (("mirror", m), ("wget2", w)):
        print(f"| {n:,} | {tool} | {wall:.1f} | {wall / n * 1000:.2f} | {rss:.0f} | {cpu:.1f} | {idle:.0%} | {m[0] / w[0]:.2f} |")
print()
for n in sizes:
    after = {tool: statistics.median(float(line) for line in open(f"{work}/{tool}-{n}.after")) for tool in ("mirror", "wget2")}
    print(f"after the last response at {n:,}: mirror {after['mirror']:.2f} s, wget2 {after['wget2']:.2f} s "
          f"(mirror's fetching phase {load(f'mirror-{n}')[0] - after['mirror']:.1f} s)")
for n in sizes:
    pairs = [m[0] / w[0] for m, w in zip(runs(f"mirror-{n}"), runs(f"wget2-{n}"))]
    print(f"mirror / wget2 at {n:,}, each round's pair: {', '.join(f'{r:.2f}' for r in pairs)} "
          f"(median {statistics.median(pairs):.2f})")
for n in sizes:
    # Each round's mirror against the parts timed right after it, in wall time and in CPU.
    pairs = list(zip(runs(f"mirror-{n}"), runs(f"parse-{n}")))
    rounds = [m[0] / p[0] for m, p in pairs]
    in_cpu = [(m[2] + m[3]) / (p[2] + p[3]) for m, p in pairs]
    print(f"mirror / its parts (transport + cache + parse) at {n:,}: {statistics.median(rounds):.2f} in wall time, "
          f"{statistics.median(in_cpu):.2f} in CPU, medians of {len(rounds)} rounds "
          f"({', '.join(f'{r:.2f}' for r in rounds)}; {', '.join(f'{r:.2f}' for r in in_cpu)}) "
          f"(the crawl's own work against the parts it is built on; nearest meaningful goal <= 2)")
if len(sizes) > 1:
    small, large = sizes[0], sizes[-1]
    (ws, rs, _, _), (wl, rl, cl, il) = load(f"mirror-{small}"), load(f"mirror-{large}")
    print(f"mirror time per page at {large:,} / at {small:,}: {(wl / large) / (ws / small):.2f} (goal <= 1.2)")
    print(f"mirror RSS growth per URL: {(rl - rs) * 1024 / (large - small):.2f} KB (goal <= 0.5)")
    print(f"mirror's CPU at {large:,} spread over {cores} cores: {cl / cores:.1f} s, {cl / cores / load(f'wget2-{large}')[0]:.2f} x "
          f"wget2's wall (the least wall time that CPU allows; the machine stood idle {il:.0%} of mirror's run)")
large = sizes[-1]
# Each floor script prints names and numbers in turn: journal-floor.py, folder-floor.py, fts5-floor.py.
journal, folder, fts5 = ({words[i]: float(words[i + 1]) for i in range(0, len(words), 2)}
                         for words in (line.split() for line in open(f"{work}/floors-{large}")))
own = {
    "the journal (SQLite)": journal["fetching"] + journal["rewrite"] + journal["passes"],
    "the folder's links": folder["links"],
    "the rewritten pages' files": folder["rewrite"],
    "the manifest's bytes": folder["manifest"],
    "FTS5": fts5["fts5"],
}
parts, crawl, wget2 = load(f"parse-{large}")[2], load(f"mirror-{large}")[2], load(f"wget2-{large}")[0]
floor = parts + sum(own.values())
print(f"floors at {large:,}, CPU s each alone: " + ", ".join(f"{name} {seconds:.2f}" for name, seconds in own.items())
      + f"; with the parts ({parts:.1f}), {floor:.1f} CPU s: mirror's CPU is {crawl / floor:.2f} x that; spread over "
      f"{cores} cores, {floor / cores:.1f} s, {floor / cores / wget2:.2f} x wget2's wall (the least this design allows)")
PY
