#!/usr/bin/env bash
# A real browser on mirror serve: headless Chromium opens five pages of the Python 3.11
# documentation (python3.11-doc) from nginx, then, with nginx stopped, from `mirror serve DIR`
# and `mirror serve BUNDLE` (not unpacked), each by the page's site path (/library/os.html) and
# by its path in the folder (/127.0.0.1_PORT/library/os.html), each time with a fresh profile.
# Every screenshot must match nginx's, pixel for pixel but for Chromium's own noise (NOISE, in
# scripts/lib/screenshots.sh); no request may get a 404.
#   scripts/check-serve-browser.sh        (KEEP=1 keeps the screenshots and logs)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup nginx python3.11-doc chromium imagemagick curl
source scripts/lib/release-mirror.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/mirror-serve-browser.XXXXXX")
source scripts/lib/docs-origin.sh
source scripts/lib/screenshots.sh
servers=()
trap 'kill "${servers[@]}" 2>/dev/null || true; nginx -c "$work/nginx.conf" -s stop 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

"$mirror" crawl "$origin/" -o "$work/site" --cache "$work/cache" --quiet || true
"$mirror" pack "$work/site" -o "$work/site.tar.gz" --quiet
for index in "${!pages[@]}"; do screenshot "$origin/${pages[$index]}" "online-$index"; done
nginx -c "$work/nginx.conf" -s stop
sleep 0.5
curl -s -o /dev/null "$origin/" && { echo "the origin is still up" >&2; exit 1; }

host_folder="127.0.0.1_$port"
failed=0
for source in site site.tar.gz; do
  serve_port=$(free_port)
  "$mirror" serve "$work/$source" --port "$serve_port" > "$work/$source.log" 2>&1 &
  servers+=($!)
  for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$serve_port/" && break; sleep 0.1; done
  for index in "${!pages[@]}"; do
    for form in site folder; do
      path=${pages[$index]}
      [ "$form" = folder ] && path="$host_folder/$path"
      name="$source-$form-$index"
      screenshot "http://127.0.0.1:$serve_port/$path" "$name"
      pixels=$(differing_pixels "online-$index" "$name")
      printf '%-12s %-6s %-28s %s differing pixels\n' "$source" "$form" "${pages[$index]}" "$pixels"
      within_noise "$pixels" || failed=1
    done
  done
  missing=$(grep -c " 404 " "$work/$source.log" || true)
  echo "$source: $(grep -c ' GET ' "$work/$source.log") requests, $missing answered 404"
  [ "$missing" = 0 ] || { grep " 404 " "$work/$source.log" | head -5; failed=1; }
done
[ "$failed" = 0 ] && echo "every page looks as nginx served it, from the folder and the bundle, by both addresses"
exit "$failed"
