#!/usr/bin/env bash
# Renders one page online (served on 127.0.0.1) and offline (the mirrored file, opened from
# file://) with headless Chromium, and compares the two screenshots pixel by pixel.
#   scripts/compare-screenshots.sh [SITE=fixtures/sites/links] [PAGE=index.html]
# Exit 0 when the screenshots differ in at most 0.5 % of their pixels.
set -euo pipefail
cd "$(dirname "$0")/.."
site=${1:-fixtures/sites/links}
page=${2:-index.html}
scripts/setup chromium imagemagick
source scripts/lib/release-mirror.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/mirror-shots.XXXXXX")
source scripts/lib/free-port.sh
port=$(free_port)
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$site" >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; true' EXIT
for _ in $(seq 50); do python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/')" 2>/dev/null && break; sleep 0.1; done

"$mirror" crawl "http://127.0.0.1:$port/" -o "$work/site" --cache "$work/cache" --quiet || true
offline=$(python3 -c "import json,sys; m=json.load(open('$work/site/.mirror/manifest.json')); print(m['resources']['http://127.0.0.1:$port/$page']['path'])" 2>/dev/null \
  || python3 -c "import json; m=json.load(open('$work/site/.mirror/manifest.json')); print(m['resources']['http://127.0.0.1:$port/']['path'])")
shoot() { chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1024,1400 \
  --virtual-time-budget=3000 --screenshot="$2" "$1" >/dev/null 2>&1; }
shoot "http://127.0.0.1:$port/$page" "$work/online.png"
kill $server   # offline means offline: the origin is gone before the second screenshot
shoot "file://$work/site/$offline" "$work/offline.png"
pixels=$(compare -metric AE "$work/online.png" "$work/offline.png" "$work/diff.png" 2>&1 >/dev/null || true)
total=$(identify -format '%[fx:w*h]' "$work/online.png")
echo "online:  $work/online.png"
echo "offline: $work/offline.png (file://$work/site/$offline)"
echo "differing pixels: $pixels of $total (diff: $work/diff.png)"
python3 -c "import sys; sys.exit(0 if float('$pixels') <= 0.005 * float('$total') else 1)"
