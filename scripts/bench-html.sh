#!/usr/bin/env bash
# HTML benchmark: link extraction and rewriting on the Python 3.11 documentation (python3.11-doc,
# ~530 pages, 50 MB), on one thread, best of PASSES passes, against libxml2's parser alone.
# Prints MB/s per core for libxml2 with no-op callbacks (the floor), HTMLLinkExtractor,
# HTMLReferenceLocator and LinkRewriter.rewriteHTML, and each time as a multiple of the floor's.
#   scripts/bench-html.sh [PASSES=5] [FOLDER=/usr/share/doc/python3.11/html]
set -euo pipefail
cd "$(dirname "$0")/.."
passes=${1:-5}
folder=${2:-/usr/share/doc/python3.11/html}
scripts/setup python3.11-doc
swift build -c release --product mirror-html-bench >/dev/null 2>&1
bench="$(swift build -c release --show-bin-path)/mirror-html-bench"
echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$bench" "$folder" "$passes"
