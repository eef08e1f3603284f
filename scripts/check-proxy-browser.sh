#!/usr/bin/env bash
# A real browser through mirror proxy: headless Chromium opens five pages of the Python 3.11
# documentation (python3.11-doc, nginx on 127.0.0.1) through `mirror proxy` (a forward proxy)
# in record mode, then again in replay mode with nginx stopped, each time with a fresh profile
# (so Chromium's own cache plays no part). Each page's two screenshots must be the same pixel
# for pixel but for Chromium's own noise (NOISE, in scripts/lib/screenshots.sh), and the
# replaying proxy must have answered everything the recording one did.
#   scripts/check-proxy-browser.sh        (KEEP=1 keeps the screenshots and logs)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup nginx python3.11-doc chromium imagemagick curl
source scripts/lib/release-mirror.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/mirror-proxy-browser.XXXXXX")
source scripts/lib/docs-origin.sh
source scripts/lib/screenshots.sh
proxy=""
trap 'kill $proxy 2>/dev/null || true; nginx -c "$work/nginx.conf" -s stop 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
proxy_port=$(free_port)

run_proxy() {
  "$mirror" proxy --port "$proxy_port" --cache "$work/cache" --mode "$1" > "$work/$1.log" 2>&1 &
  proxy=$!
  for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$proxy_port/" && return 0; sleep 0.1; done
  echo "mirror proxy did not start" >&2; exit 1
}
# Screenshots of each PAGE as MODE-INDEX.png. Loopback is proxied only when the bypass list says
# so ("<-loopback>").
browse() {
  local mode=$1 index=0
  shift
  for page in "$@"; do
    screenshot "$origin/$page" "$mode-$index" \
      --proxy-server="http://127.0.0.1:$proxy_port" --proxy-bypass-list="<-loopback>"
    index=$((index + 1))
  done
}

run_proxy record
browse record "${pages[@]}"
kill -INT $proxy; wait $proxy || true
nginx -c "$work/nginx.conf" -s stop
sleep 0.5
curl -s -o /dev/null "$origin/" && { echo "the origin is still up" >&2; exit 1; }
run_proxy replay
browse replay "${pages[@]}"

# The same bytes: every URL of the origin has the same status and size in both logs.
same_bytes() { grep -E "^[^ ]+ GET $origin/" "$work/$1.log" | awk '{print $3, $4, $5}' | sort -u; }
if ! diff <(same_bytes record) <(same_bytes replay) > "$work/bytes.diff"; then
  echo "replay answered differently from record:" >&2; cat "$work/bytes.diff" >&2; exit 1
fi
recorded=$(grep -cE "^[^ ]+ GET $origin/" "$work/record.log" || true)
replayed=$(grep -cE "^[^ ]+ GET $origin/" "$work/replay.log" || true)
misses=$(grep -c " $origin/.*replay-miss" "$work/replay.log" || true)  # the browser's own background requests aside
echo "record: $recorded requests; replay with the origin stopped: $replayed requests, $misses not recorded, the same status and size for every URL"
failed=0
for index in "${!pages[@]}"; do
  pixels=$(differing_pixels "record-$index" "replay-$index")
  total=$(identify -format '%[fx:w*h]' "$work/record-$index.png")
  echo "${pages[$index]}: $pixels of $total pixels differ"
  within_noise "$pixels" || failed=1
done
kill -INT $proxy; wait $proxy || true
[ "$misses" = "0" ] || { echo "replay missed what record had fetched:" >&2; grep " $origin/.*replay-miss" "$work/replay.log" >&2; failed=1; }
exit $failed
