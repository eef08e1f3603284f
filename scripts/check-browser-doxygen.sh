#!/usr/bin/env bash
# `mirror crawl --browser` on a manual whose navigation is built by scripts: the doxygen manual
# (Debian's doxygen-doc) served by nginx on 127.0.0.1. Its tree comes from navtree.js, which loads
# navtreeindex0.js by a computed name. Five pages are shot in headless Chromium at two window
# sizes: online from nginx, then with nginx stopped from the folder (file://), from
# `mirror serve DIR` and `mirror serve BUNDLE`, and live through `mirror proxy --mode replay`
# against the crawl's cache. Every shot must match nginx's but for Chromium's own noise (NOISE,
# scripts/lib/screenshots.sh). A crawl without --browser is shot from file:// too, for contrast.
#   scripts/check-browser-doxygen.sh        (KEEP=1 keeps the screenshots and logs)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup nginx doxygen-doc chromium imagemagick curl
source scripts/lib/release-mirror.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/mirror-browser-doxygen.XXXXXX")
docs=/usr/share/doc/doxygen/html
source scripts/lib/docs-origin.sh
source scripts/lib/screenshots.sh
servers=()
trap 'kill "${servers[@]}" 2>/dev/null || true; nginx -c "$work/nginx.conf" -s stop 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

pages=(index.html starting.html commands.html config.html faq.html)
sizes=(1280,800 1000,700)
"$mirror" crawl "$origin/" -o "$work/site" --cache "$work/cache" --browser --bundle "$work/site.tar.gz" --report "$work/report.json" --quiet || true
"$mirror" crawl "$origin/" -o "$work/plain" --cache "$work/plain-cache" --quiet || true
for size in "${sizes[@]}"; do
  for page in "${pages[@]}"; do WINDOW=$size screenshot "$origin/$page" "online-$size-$page"; done
done
nginx -c "$work/nginx.conf" -s stop
sleep 0.5
curl -s -o /dev/null "$origin/" && { echo "the origin is still up" >&2; exit 1; }

host_folder="127.0.0.1_$port"
start() { # start NAME COMMAND...: runs a mirror server in the background, sets $address
  local name=$1 server_port
  shift
  server_port=$(free_port)
  "$@" --port "$server_port" > "$work/$name.log" 2>&1 &
  servers+=($!)
  address="http://127.0.0.1:$server_port"
  for _ in $(seq 100); do curl -s -o /dev/null "$address/" && break; sleep 0.1; done
}
start serve-site "$mirror" serve "$work/site"; serve_site=$address
start serve-bundle "$mirror" serve "$work/site.tar.gz"; serve_bundle=$address
start replay "$mirror" proxy --mode replay --cache "$work/cache"; replay=$address

failed=0
compare_shot() { # compare_shot SIZE PAGE NAME URL [CHROMIUM-ARGS...]
  local size=$1 page=$2 name=$3 url=$4
  shift 4
  WINDOW=$size screenshot "$url" "$name-$size-$page" "$@"
  pixels=$(differing_pixels "online-$size-$page" "$name-$size-$page")
  printf '%-10s %-16s %-14s %s differing pixels\n' "$size" "$page" "$name" "$pixels"
  [ "$name" = plain-file ] || within_noise "$pixels" || failed=1
}
for size in "${sizes[@]}"; do
  for page in "${pages[@]}"; do
    compare_shot "$size" "$page" file "file://$work/site/$host_folder/$page"
    compare_shot "$size" "$page" serve-dir "$serve_site/$page"
    compare_shot "$size" "$page" serve-bundle "$serve_bundle/$page"
    compare_shot "$size" "$page" proxy-replay "$origin/$page" --proxy-server="$replay" --proxy-bypass-list="<-loopback>"
    compare_shot "$size" "$page" plain-file "file://$work/plain/$host_folder/$page"
  done
done
for log in serve-site serve-bundle replay; do
  misses=$(grep -cE " (404|504) " "$work/$log.log" || true)
  echo "$log: $(grep -c ' GET ' "$work/$log.log" || true) requests, $misses answered 404 or 504"
done
[ "$failed" = 0 ] && echo "every page looks as nginx served it, from file://, mirror serve (folder and bundle) and mirror proxy --mode replay"
exit "$failed"
