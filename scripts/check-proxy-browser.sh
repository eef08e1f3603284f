#!/usr/bin/env bash
# A real browser through mirror proxy: headless Chromium opens five pages of the Python 3.11
# documentation (python3.11-doc, nginx on 127.0.0.1) through `mirror proxy` (a forward proxy)
# in record mode, then again in replay mode with nginx stopped, each time with a fresh profile
# (so Chromium's own cache plays no part). Each page's two screenshots must be identical pixel
# for pixel, and the replaying proxy must have answered everything the recording one did.
#   scripts/check-proxy-browser.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup nginx python3.11-doc chromium imagemagick curl
scratch=${MIRROR_RELEASE_SCRATCH:-.build}
swift build -c release --product mirror --scratch-path "$scratch" >/dev/null 2>&1
mirror="$(swift build -c release --scratch-path "$scratch" --show-bin-path)/mirror"
work=$(mktemp -d "${TMPDIR:-/tmp}/mirror-proxy-browser.XXXXXX")
source scripts/lib/docs-origin.sh
proxy=""
trap 'kill $proxy 2>/dev/null; nginx -c "$work/nginx.conf" -s stop 2>/dev/null; rm -rf "$work"' EXIT
pages=(index.html library/os.html tutorial/index.html reference/datamodel.html library/functions.html)
proxy_port=$(free_port)

run_proxy() {
  "$mirror" proxy --port "$proxy_port" --cache "$work/cache" --mode "$1" > "$work/$1.log" 2>&1 &
  proxy=$!
  for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$proxy_port/" && return 0; sleep 0.1; done
  echo "mirror proxy did not start" >&2; exit 1
}
# Loopback is proxied only when the bypass list says so ("<-loopback>").
browse() {
  local mode=$1 index=0
  for page in "${pages[@]}"; do
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1024,1400 \
      --virtual-time-budget=5000 --user-data-dir="$work/profile-$mode-$index" \
      --proxy-server="http://127.0.0.1:$proxy_port" --proxy-bypass-list="<-loopback>" \
      --screenshot="$work/$mode-$index.png" "$origin/$page" >/dev/null 2>&1
    index=$((index + 1))
  done
}

run_proxy record
browse record
kill -INT $proxy; wait $proxy || true
nginx -c "$work/nginx.conf" -s stop
sleep 0.5
curl -s -o /dev/null "$origin/" && { echo "the origin is still up" >&2; exit 1; }
run_proxy replay
browse replay
kill -INT $proxy; wait $proxy || true

recorded=$(grep -c '^[0-9a-f:.\[\]]* GET ' "$work/record.log" || true)
replayed=$(grep -c '^[0-9a-f:.\[\]]* GET ' "$work/replay.log" || true)
misses=$(grep -c 'replay-miss' "$work/replay.log" || true)
recorded_misses=$(grep -c ' GET [^ ]* [45][0-9][0-9] ' "$work/record.log" || true)
echo "record: $recorded requests ($recorded_misses answered 4xx/5xx); replay with the origin stopped: $replayed requests, $misses not recorded"
failed=0
for index in "${!pages[@]}"; do
  pixels=$(compare -metric AE "$work/record-$index.png" "$work/replay-$index.png" "$work/diff-$index.png" 2>&1 >/dev/null || true)
  total=$(identify -format '%[fx:w*h]' "$work/record-$index.png")
  echo "${pages[$index]}: $pixels of $total pixels differ"
  [ "$pixels" = "0" ] || failed=1
done
[ "$misses" = "0" ] || { echo "replay missed what record had fetched:" >&2; grep 'replay-miss' "$work/replay.log" >&2; failed=1; }
exit $failed
