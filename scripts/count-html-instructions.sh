#!/usr/bin/env bash
# The instructions each measure of mirror-html-bench executes in one pass over the pages, counted
# by valgrind's callgrind: a count that holds from run to run, where this machine's speed moves by
# half within minutes, so that a change to the parse's handlers is measured by a number that
# only the change moves. Each measure runs alone after the floor (ONLY="=NAME"); its count is
# that run's less a run of the floor alone, and the floor's is that less a run that only reads
# the pages. Callgrind runs a program about fifty times slower: a folder of a fifth of
# python3.11-doc's pages takes about two minutes a measure.
#   scripts/count-html-instructions.sh [FOLDER=/usr/share/doc/python3.11/html] [MEASURE...]
# MEASURE: a measure's full name; by default libxml2 with no-op callbacks, with start tags only,
# with the text copied, and the link locator as the crawl runs it, without and with the text.
set -euo pipefail
cd "$(dirname "$0")/.."
folder=${1:-/usr/share/doc/python3.11/html}
shift || true
measures=("$@")
if [ ${#measures[@]} -eq 0 ]; then
  measures=("libxml2 SAX, start tags only" "libxml2 SAX, text copied" "HTMLReferenceLocator" "HTMLReferenceLocator + text")
fi
scripts/setup valgrind python3.11-doc
swift build -c release --product mirror-html-bench >/dev/null 2>&1
work=$(mktemp -d "${TMPDIR:-/tmp}/mirror-instructions.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Valgrind 3.19 cannot read the debug information Swift writes; the symbols are enough.
objcopy --strip-debug "$(swift build -c release --show-bin-path)/mirror-html-bench" "$work/bench"
# count PASSES ONLY: the instructions of the run (reading the pages included).
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$work/bench" "$folder" "$1" "$2" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
# The pages read and nothing measured, then the floor alone, then each measure after the floor.
start=$(count 0 floor)
floor=$(($(count 1 floor) - start))
echo "# $(date -u +%FT%TZ) $folder: instructions of one pass (callgrind)"
line() { python3 -c "import sys; print(f'{sys.argv[1]:<30} {int(sys.argv[2]):>15,} {int(sys.argv[2]) / int(sys.argv[3]):>8.3f}')" "$@"; }
printf '%-30s %15s %8s\n' "measure" "instructions" "× floor"
line "libxml2 SAX, no-op (floor)" "$floor" "$floor"
for measure in "${measures[@]}"; do
  line "$measure" $(($(count 1 "=$measure") - start - floor)) "$floor"
done
