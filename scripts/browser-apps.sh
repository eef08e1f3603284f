#!/usr/bin/env bash
# `mirror crawl --browser` on real JavaScript documentation tools, online against offline. Six
# sites, each served by nginx on a port of its own on 127.0.0.1: Material for MkDocs (instant
# navigation, tabs, search, content tabs; built by mkdocs), Swagger UI and ReDoc (the dist files
# of drf-spectacular-sidecar over a local OpenAPI document), Javadoc (java.util of
# openjdk-17-doc, with the API root's search scripts), the doxygen manual (doxygen-doc, whose tree
# navtree.js builds) and Sphinx with sphinx-book-theme. For each site: one timed crawl with
# --browser, kept small; each saved HTML page shot by headless Chromium at 1280x800 and 390x844,
# live from nginx (twice), then with nginx stopped from file:// with the network blocked,
# compared pixel by pixel with the closer live shot; one interaction per app over the DevTools
# protocol, live then offline. Prints a line per page, the results folder (the shots of
# differing pages) and a Markdown summary.
# Failures of the copies are reported, not asserted: it exits 0 unless the script itself broke.
#   scripts/browser-apps.sh     (MIRROR=path/to/mirror uses that binary instead of building;
#                                RESULTS=DIR names the results folder; KEEP=1 keeps the sites,
#                                crawls and all shots)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup nginx chromium curl doxygen-doc openjdk-17-doc
if [ -n "${MIRROR:-}" ]; then mirror=$(realpath "$MIRROR"); else source scripts/lib/release-mirror.sh; fi
source scripts/lib/free-port.sh
browser=$(command -v chromium)
helper=$PWD/scripts/lib/browser-apps.py

# The Python packages in a virtual environment of their own, kept between runs (pip only when
# one is missing). The sidecar without its dependencies: only its static files are used.
venv=${XDG_CACHE_HOME:-$HOME/.cache}/mirror/browser-apps-venv
# (Found, not imported: the sidecar's __init__ imports Django.)
find_spec='import importlib.util, sys; print(importlib.util.find_spec(sys.argv[1]).submodule_search_locations[0])'
installed() {
  local module
  for module in material drf_spectacular_sidecar sphinx_book_theme PIL websocket; do
    "$venv/bin/python" -c "$find_spec" "$module" >/dev/null 2>&1 || return 1
  done
}
if ! installed; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q mkdocs-material sphinx-book-theme pillow websocket-client
  "$venv/bin/pip" install -q --no-deps drf-spectacular-sidecar
fi
python="$venv/bin/python"
sidecar=$("$python" -c "$find_spec" drf_spectacular_sidecar)/static/drf_spectacular_sidecar
export NO_MKDOCS_2_WARNING=1

work=$(mktemp -d "${TMPDIR:-/tmp}/mirror-browser-apps.XXXXXX")
results=${RESULTS:-${TMPDIR:-/tmp}/mirror-browser-apps-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$results"
chmod 755 "$work"  # nginx's workers read the sites made in it
trap 'nginx -c "$work/nginx.conf" -s stop 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

# The sites and their ports; Material needs its origin at build time (site_url, for instant
# navigation), so the ports come first.
sites=(material swagger redoc javadoc doxygen sphinx)
declare -A port root
for site in "${sites[@]}"; do port[$site]=$(free_port); done
"$python" "$helper" material "$work/material" "http://127.0.0.1:${port[material]}"
"$python" "$helper" openapi "$work/swagger" swagger "$sidecar/swagger-ui-dist"
"$python" "$helper" openapi "$work/redoc" redoc "$sidecar/redoc"
"$python" "$helper" javadoc "$work/javadoc" /usr/share/doc/openjdk-17-doc/api
"$python" "$helper" sphinx "$work/sphinx"
root=([material]=$work/material/site [swagger]=$work/swagger [redoc]=$work/redoc [javadoc]=$work/javadoc
  [doxygen]=/usr/share/doc/doxygen/html [sphinx]=$work/sphinx/site)

{
  echo "worker_processes 1; pid $work/nginx.pid; error_log $work/nginx-error.log;"
  echo "events { worker_connections 1024; }"
  echo "http { include /etc/nginx/mime.types; access_log $work/access.log; sendfile on;"
  for site in "${sites[@]}"; do
    echo "  server { listen 127.0.0.1:${port[$site]}; root ${root[$site]}; index index.html; }"
  done
  echo "}"
} > "$work/nginx.conf"
nginx -c "$work/nginx.conf"
origin() { echo "http://127.0.0.1:${port[$1]}"; }
for site in "${sites[@]}"; do
  for _ in $(seq 50); do curl -sf "$(origin "$site")/" >/dev/null 2>&1 && break; sleep 0.1; done
done

# Each crawl kept well under a minute: the small sites whole (with a ceiling), five pages of
# java.util as seeds alone (--depth 0: its pages link to the whole JDK, 404 here), the first
# eight pages of the doxygen manual.
declare -A limits seeds
limits=([material]="--max-pages 15" [swagger]="--max-pages 5" [redoc]="--max-pages 5" [javadoc]="--depth 0"
  [doxygen]="--max-pages 8" [sphinx]="--max-pages 12")
util=java.base/java/util
seeds=([javadoc]="/$util/package-summary.html /$util/ArrayList.html /$util/HashMap.html /$util/Optional.html /$util/Collections.html")
declare -A wall saved status own
for site in "${sites[@]}"; do
  urls=()
  for path in ${seeds[$site]:-/}; do urls+=("$(origin "$site")$path"); done
  started=$(date +%s.%N)
  status[$site]=0
  # shellcheck disable=SC2086 # the limits are two words
  "$mirror" crawl "${urls[@]}" -o "$work/out-$site" --cache "$work/cache-$site" --browser --browser-path "$browser" \
    ${limits[$site]} > "$results/crawl-$site.log" 2>&1 || status[$site]=$?
  wall[$site]=$(python3 -c "print(f'{$(date +%s.%N) - $started:.1f}')")
  # The time on mirror's "saved" line: its fetching phase alone; finishing the folder, the search
  # index and mirror's own offline check of the copies come after it, within the wall time.
  own[$site]=$(sed -n 's/^saved .* in \([0-9.]* s\) to .*/\1/p' "$results/crawl-$site.log" | head -1)
  "$python" "$helper" pages "$work/out-$site" > "$work/pages-$site"
  saved[$site]=$(wc -l < "$work/pages-$site")
  echo "$site: ${saved[$site]} HTML pages in ${wall[$site]} s, exit ${status[$site]} ($(grep -m1 '^saved' "$results/crawl-$site.log" || echo 'no summary'))"
done

sizes=(1280,800 390,844)
# shot URL FILE SIZE [CHROMIUM-ARGS...]: a screenshot of the page just opened, at the top, with a
# fresh profile (removed after). Tried twice under a time limit: on this loaded machine one such
# Chromium in a few hundred once never ended (its virtual time budget never ran out).
shot() {
  local url=$1 file=$2 size=$3 try
  shift 3
  for try in 1 2; do
    timeout -k 5 45 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size="$size" \
      --disable-background-networking --disable-component-update --run-all-compositor-stages-before-draw \
      --virtual-time-budget=5000 --user-data-dir="$work/profile" "$@" --screenshot="$file" "$url" >/dev/null 2>&1 || true
    rm -rf "$work/profile"
    [ -s "$file" ] && return
    echo "no screenshot of $url at $size (try $try)" >&2
  done
}
# The page each interaction starts on (its saved copy offline).
declare -A start interaction
start=([material]=/ [swagger]=/ [redoc]=/ [javadoc]=/$util/package-summary.html [doxygen]=/ [sphinx]=/)
file_of() { awk -F'\t' -v url="$1" '$1 == url {print $2}' "$work/pages-$2"; }

# Live: every page at both sizes, twice (a load may differ from the next: offline is compared
# with the closer), and each interaction (the control: it must pass here for an offline failure
# to mean anything).
mkdir -p "$work/shots"
for site in "${sites[@]}"; do
  index=0
  while IFS=$'\t' read -r url _; do
    index=$((index + 1))
    for size in "${sizes[@]}"; do
      for take in 1 2; do shot "$url" "$work/shots/$site-$index-${size/,/x}-live$take.png" "$size"; done
    done
  done < "$work/pages-$site"
  interaction[$site]="live: $(timeout -k 5 120 "$python" "$helper" interact "$site" "$(origin "$site")${start[$site]}" || echo "fail (timed out)")"
done

# Offline: the network blocked for the browser (every request, loopback too, to a proxy that
# is not there), checked against the live origin first, then nginx stopped as well.
block=(--proxy-server=127.0.0.1:9 --proxy-bypass-list='<-loopback>')
control=$(chromium --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" --dump-dom "$(origin doxygen)/" 2>/dev/null || true)
rm -rf "$work/profile"
grep -q navtree <<< "$control" || { echo "chromium --dump-dom does not load the live page" >&2; exit 1; }
requests=$(wc -l < "$work/access.log")
dom=$(chromium --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" "${block[@]}" --dump-dom "$(origin doxygen)/" 2>/dev/null || true)
rm -rf "$work/profile"
if [ "$(wc -l < "$work/access.log")" != "$requests" ] || grep -q navtree <<< "$dom"; then
  echo "the network block does not hold: nginx was reached" >&2
  exit 1
fi
nginx -c "$work/nginx.conf" -s stop 2>/dev/null
sleep 0.5
for site in "${sites[@]}"; do
  if curl -s -o /dev/null "$(origin "$site")/"; then echo "the origin of $site is still up" >&2; exit 1; fi
done
echo "network block checked: a page of the live origin did not load through it (no request reached nginx); nginx stopped"

declare -A identical
for site in "${sites[@]}"; do
  index=0
  while IFS=$'\t' read -r url file; do
    index=$((index + 1))
    for size in "${sizes[@]}"; do
      name="$site-$index-${size/,/x}"
      shot "$file" "$work/shots/$name-offline.png" "$size" "${block[@]}"
      verdict=$("$python" "$helper" compare "$work/shots/$name-offline.png" "$results/$name-diff.png" \
        "$work/shots/$name-live1.png" "$work/shots/$name-live2.png" 2>&1 || true)
      if [[ "$verdict" = identical* ]]; then
        identical[$site,$size]=$((${identical[$site,$size]:-0} + 1))
      else
        cp "$work/shots/$name-"{live1,live2,offline}.png "$results/" 2>/dev/null || true
      fi
      printf '%-8s %-8s %-3s %-58s %s\n' "$site" "${size/,/x}" "$index" "/${url#http://127.0.0.1:*/}" "$verdict" | tee -a "$results/pages.txt"
    done
  done < "$work/pages-$site"
  offline=$(file_of "$(origin "$site")${start[$site]}" "$site")
  if [ -n "$offline" ]; then
    interaction[$site]+="; offline: $(timeout -k 5 120 "$python" "$helper" interact "$site" "$offline" "${block[@]}" || echo "fail (timed out)")"
  else
    interaction[$site]+="; offline: fail (its page was not saved)"
  fi
done

echo
echo "results: $results (the live and offline shots of each differing page, and a diff image: red where they differ)"
echo "$("$mirror" --version 2>/dev/null | head -1), Chromium $(chromium --version 2>/dev/null | awk '{print $2}'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
{
  echo "| site | pages | identical at 1280×800 | identical at 390×844 | interaction (live; offline from file://) | crawl wall (fetching phase; exit) |"
  echo "| --- | ---: | ---: | ---: | --- | ---: |"
  for site in "${sites[@]}"; do
    printf '| %s | %s | %s of %s | %s of %s | %s | %s s (%s; %s) |\n' "$site" "${saved[$site]}" \
      "${identical[$site,1280,800]:-0}" "${saved[$site]}" "${identical[$site,390,844]:-0}" "${saved[$site]}" \
      "${interaction[$site]}" "${wall[$site]}" "${own[$site]:-?}" "${status[$site]}"
  done
} | tee "$results/summary.md"
