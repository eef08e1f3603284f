#!/usr/bin/env bash
# mirror search on real documentation: the Python 3.11 manual (python3.11-doc) and the doxygen
# manual (doxygen-doc), each served by nginx on 127.0.0.1 and crawled. Prints, per site: the
# crawl's cold time with the index and without (--no-index), median of RUNS alternated runs,
# and what the index adds (goal <= 0.2 of the crawl); the index's size against the pages'
# text (goal <= 0.5) and HTML; then for each query of a list the rank of the page a reader
# wants (goal: in the top 3 for at least 9 of 10) and the command's wall time, process start
# included, from the folder and from a bundle of it (goal <= 50 ms).
# The crawls write to /dev/shm when it is there: on ext4, creating files right after a
# run deleted thousands of them costs more than the crawl's own work, and varies by seconds.
#   scripts/check-search.sh [RUNS=5]        (KEEP=1 keeps the folders)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup nginx python3.11-doc doxygen-doc curl bc sqlite3
source scripts/lib/release-mirror.sh
runs=${1:-5}
scratch=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && scratch=/dev/shm
results=$(mktemp -d "$scratch/mirror-check-search.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$results"' EXIT

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
seconds() { local started; started=$(date +%s.%N); "$@" > /dev/null 2>&1 || true; echo "$(date +%s.%N) - $started" | bc; }

# QUERY|WANTED[|WANTED…] per line: a reader's query and the pages (paths on the site) that answer it.
python_queries='os.walk|library/os.html
list comprehension|tutorial/datastructures.html
json.dumps|library/json.html
regular expression|library/re.html|howto/regex.html
subprocess.run|library/subprocess.html
formatted string literals|reference/lexical_analysis.html|tutorial/inputoutput.html
virtual environment|library/venv.html|tutorial/venv.html
asyncio.gather|library/asyncio-task.html
dataclass|library/dataclasses.html
unittest mock|library/unittest.mock.html'
doxygen_queries='EXTRACT_ALL|config.html
markdown|markdown.html
\brief|commands.html
grouping|grouping.html
formulas|formulas.html
external documentation linking|external.html
preprocessing|preprocessing.html
installation|install.html
custom commands|custcmd.html
frequently asked questions|faq.html'

check_site() { # check_site NAME DOCS QUERIES
  local name=$1 queries=$3
  (
    work="$results/$name"
    mkdir -p "$work"
    docs=$2
    source scripts/lib/docs-origin.sh
    trap 'nginx -c "$work/nginx.conf" -s stop 2>/dev/null || true' EXIT
    for run in $(seq "$runs"); do
      rm -rf "$work/plain" "$work/site" "$work/cache-plain" "$work/cache"
      seconds "$mirror" crawl "$origin/" -o "$work/plain" --cache "$work/cache-plain" --quiet --no-index >> "$work/plain.times"
      seconds "$mirror" crawl "$origin/" -o "$work/site" --cache "$work/cache" --quiet >> "$work/site.times"
    done
    plain=$(median < "$work/plain.times")
    crawl=$(median < "$work/site.times")
    "$mirror" pack "$work/site" -o "$work/site.tar.gz" --quiet
    host="127.0.0.1_$port"
    html=$(find "$work/site/$host" -name '*.html' -printf '%s\n' | awk '{s += $1} END {print s}')
    text=$(sqlite3 "$work/site/.mirror/journal.sqlite" "SELECT sum(length(text)) FROM pages")
    size=$(stat -c %s "$work/site/.mirror/search.sqlite")
    printf '%s: %s pages; crawl %.3f s, with --no-index %.3f s: the index adds %.3f s (%.3f of the crawl); index %s bytes = %.2f x the text, %.2f x the HTML\n' \
      "$name" "$(find "$work/site/$host" -name '*.html' | wc -l)" "$crawl" "$plain" "$(echo "$crawl - $plain" | bc)" \
      "$(echo "($crawl - $plain) / $plain" | bc -l)" "$size" "$(echo "$size / $text" | bc -l)" "$(echo "$size / $html" | bc -l)"
    found=0
    while IFS='|' read -r query wanted; do
      "$mirror" search "$work/site" "$query" --limit 10 --json > "$work/result.json"
      folder_ms=$(echo "$(seconds "$mirror" search "$work/site" "$query" --limit 10 --json) * 1000" | bc)
      bundle_ms=$(echo "$(seconds "$mirror" search "$work/site.tar.gz" "$query" --limit 10 --json) * 1000" | bc)
      rank=$(python3 - "$work/result.json" "$host" "$wanted" <<'PY'
import json, sys
results, host, wanted = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3].split('|')
paths = [r["path"][len(host) + 1:] for r in results]
print(next((i + 1 for i, p in enumerate(paths) if p in wanted), "-"))
PY
)
      [ "$rank" != "-" ] && [ "$rank" -le 3 ] && found=$((found + 1))
      printf '  %-32s rank %-2s  folder %5.1f ms  bundle %5.1f ms  (%s)\n' "$query" "$rank" "$folder_ms" "$bundle_ms" "${wanted//|/ or }"
    done <<< "$queries"
    echo "$name: the wanted page in the top 3 for $found of 10 queries"
  )
}
check_site python /usr/share/doc/python3.11/html "$python_queries"
check_site doxygen /usr/share/doc/doxygen/html "$doxygen_queries"
