#!/usr/bin/env bash
# Checks mirror's WARC and WACZ files with the web archivists' own tools — warcio, cdxj-indexer
# and py-wacz from PyPI, in a virtual environment made here — on a real site: the Python 3.11
# documentation (python3.11-doc, 555 responses, 55 MB) served by nginx on 127.0.0.1.
#   1. `warcio check` passes on `mirror export --warc` of the crawl;
#   2. `cdxj-indexer --sort` on the WARC inside `mirror export --wacz` gives exactly the WACZ's
#      index (the same SURT keys, timestamps and fields, byte for byte);
#   3. `wacz validate` passes on that WACZ;
#   4. a WARC written by `wget --warc-file` of the site imports (`mirror cache import`), and
#      `mirror crawl --offline` from it rebuilds the folder with 0 broken links (`mirror check`);
#   5. the export takes at most the time `warcio recompress` takes on the same WARC (medians of 3).
#   scripts/check-warc.sh [debug|release]    (default debug: the build scripts/test makes)
set -euo pipefail
cd "$(dirname "$0")/.."
config=${1:-debug}
scripts/setup nginx python3.11-doc wget curl python3-venv
swift build -c "$config" --product mirror >/dev/null
mirror="$(swift build -c "$config" --show-bin-path)/mirror"
work=$(mktemp -d "${TMPDIR:-/tmp}/mirror-check-warc.XXXXXX")
source scripts/lib/docs-origin.sh

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check warcio cdxj-indexer wacz
tools="$work/venv/bin"
step() { printf '\n== %s\n' "$*"; }

step "crawl $origin/ (exit 8 is expected: the documentation has a few broken links of its own)"
"$mirror" crawl "$origin/" -o "$work/site" --cache "$work/cache" --quiet || [ $? -eq 8 ]

step "1. warcio check on mirror export --warc"
"$mirror" export --warc "$work/site.warc.gz" --cache "$work/cache"
"$tools/warcio" check "$work/site.warc.gz"
echo "warcio check: $("$tools/warcio" check -v "$work/site.warc.gz" | grep -c 'digest pass') digests pass"

step "2. cdxj-indexer on the WACZ's WARC against the WACZ's index"
"$mirror" export --wacz "$work/site.wacz" --from "$work/site"
mkdir "$work/wacz" && (cd "$work/wacz" && python3 -m zipfile -e "$work/site.wacz" .)
"$tools/cdxj-indexer" --sort "$work/wacz/archive/data.warc.gz" > "$work/theirs.cdx"
cmp "$work/theirs.cdx" "$work/wacz/indexes/index.cdx"
echo "identical: $(wc -l < "$work/theirs.cdx") lines"

step "3. wacz validate"
"$tools/wacz" validate -f "$work/site.wacz"

step "4. wget --warc-file, mirror cache import, mirror crawl --offline, mirror check"
(cd "$work" && mkdir wget && cd wget && wget -q -m -p -e robots=off --warc-file="$work/wget" "$origin/" 2>/dev/null) || true
"$mirror" cache import "$work/wget.warc.gz" --cache "$work/from-wget-cache"
"$mirror" crawl "$origin/" --offline -o "$work/from-wget" --cache "$work/from-wget-cache" --quiet || [ $? -eq 8 ]
"$mirror" check "$work/from-wget"

step "5. export time against warcio recompress of the same WARC (wall seconds, medians of 3)"
for i in 1 2 3; do
  /usr/bin/time -f "%e" -a -o "$work/mirror.times" "$mirror" export --warc "$work/again.warc.gz" --cache "$work/cache" --quiet
  /usr/bin/time -f "%e" -a -o "$work/warcio.times" "$tools/warcio" recompress "$work/site.warc.gz" "$work/re.warc.gz" >/dev/null
done
python3 - "$work" <<'PY'
import statistics, sys
work = sys.argv[1]
median = lambda name: statistics.median(float(line) for line in open(f"{work}/{name}.times"))
mirror, warcio = median("mirror"), median("warcio")
print(f"mirror export {mirror:.2f} s, warcio recompress {warcio:.2f} s: {mirror / warcio:.2f}x")
sys.exit(0 if mirror <= warcio else 1)
PY
step "all checks passed"
