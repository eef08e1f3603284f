#!/usr/bin/env bash
# mirror search on real documentation: the Python 3.11 manual (python3.11-doc) and the doxygen
# manual (doxygen-doc), each served by nginx on 127.0.0.1 and crawled. Prints, per site: the
# crawl's cold time, the time to build the index (`mirror search` on the
# folder, first use) and its ratio (goal <= 0.2), the index's size against the pages' HTML and
# against their text, then for each query of a list the rank of the page a reader wants (goal:
# in the top 3 for at least 9 of 10) and the command's wall time (goal <= 50 ms per query).
#   scripts/check-search.sh        (KEEP=1 keeps the folders)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup nginx python3.11-doc doxygen-doc curl bc sqlite3
source scripts/lib/release-mirror.sh
results=$(mktemp -d "${TMPDIR:-/tmp}/mirror-check-search.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$results"' EXIT

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
    started=$(date +%s.%N)
    "$mirror" crawl "$origin/" -o "$work/site" --cache "$work/cache" --quiet || true
    crawl=$(echo "$(date +%s.%N) - $started" | bc)
    started=$(date +%s.%N)
    "$mirror" search "$work/site" "index" --limit 1 > /dev/null
    index=$(echo "$(date +%s.%N) - $started" | bc)
    host="127.0.0.1_$port"
    html=$(find "$work/site/$host" -name '*.html' -printf '%s\n' | awk '{s += $1} END {print s}')
    text=$(sqlite3 "$work/site/.mirror/search.sqlite" "SELECT sum(length(title) + length(headings) + length(body)) FROM pages" 2>/dev/null || echo 0)
    size=$(stat -c %s "$work/site/.mirror/search.sqlite")
    printf '%s: %s pages; crawl %.2f s, index %.2f s (%.3f of the crawl); index %s bytes = %.2f x the HTML, %.2f x the text\n' \
      "$name" "$(find "$work/site/$host" -name '*.html' | wc -l)" "$crawl" "$index" "$(echo "$index / $crawl" | bc -l)" "$size" \
      "$(echo "$size / $html" | bc -l)" "$(echo "$size / ($text + 1)" | bc -l)"
    found=0
    while IFS='|' read -r query wanted; do
      started=$(date +%s.%N)
      "$mirror" search "$work/site" "$query" --limit 10 --json > "$work/result.json"
      milliseconds=$(echo "($(date +%s.%N) - $started) * 1000" | bc)
      rank=$(python3 - "$work/result.json" "$host" "$wanted" <<'PY'
import json, sys
results, host, wanted = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3].split('|')
paths = [r["path"][len(host) + 1:] for r in results]
print(next((i + 1 for i, p in enumerate(paths) if p in wanted), "-"))
PY
)
      [ "$rank" != "-" ] && [ "$rank" -le 3 ] && found=$((found + 1))
      printf '  %-32s rank %-2s %6.1f ms   (%s)\n' "$query" "$rank" "$milliseconds" "${wanted//|/ or }"
    done <<< "$queries"
    echo "$name: the wanted page in the top 3 for $found of 10 queries"
  )
}
check_site python /usr/share/doc/python3.11/html "$python_queries"
check_site doxygen /usr/share/doc/doxygen/html "$doxygen_queries"
