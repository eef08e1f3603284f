#!/usr/bin/env bash
# `mirror crawl --browser` on real JavaScript documentation tools, online against offline. Six
# sites, each served by nginx on a port of its own on 127.0.0.1: Material for MkDocs (instant
# navigation, tabs, search, content tabs; built by mkdocs), Swagger UI and ReDoc (the dist files
# of drf-spectacular-sidecar over a local OpenAPI document), Javadoc (a small library documented
# by openjdk-17's javadoc, with its search), the doxygen manual (doxygen-doc, whose tree
# navtree.js builds) and Sphinx with sphinx-book-theme. For each site: RUNS timed crawls with
# --browser, kept small; each saved HTML page shot by headless Chromium at 1280x800 and 390x844,
# live from nginx (twice), then with nginx stopped from file:// with the network blocked (every
# crawl's copy) and through `mirror serve` (the first crawl's), compared pixel by pixel with the
# closer live shot; one interaction per app over the DevTools protocol, live then offline (from
# file://). Prints a line per page, the results folder (the shots of differing pages) and a
# Markdown summary.
# Failures of the copies are reported, not asserted: it exits 0 unless the script itself broke.
#   scripts/browser-apps.sh     (MIRROR=path/to/mirror uses that binary instead of building;
#                                SITES="material javadoc" picks sites; RUNS=10 crawls each that
#                                many times; RESULTS=DIR names the results folder; KEEP=1 keeps
#                                the sites, crawls and all shots)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup nginx chromium curl doxygen-doc openjdk-17-jdk-headless
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
read -ra sites <<< "${SITES:-material swagger redoc javadoc doxygen sphinx}"
runs=${RUNS:-1}
declare -A port root
for site in "${sites[@]}"; do port[$site]=$(free_port); done
for site in "${sites[@]}"; do
  case $site in
    material) "$python" "$helper" material "$work/material" "http://127.0.0.1:${port[material]}" ;;
    swagger) "$python" "$helper" openapi "$work/swagger" swagger "$sidecar/swagger-ui-dist" ;;
    redoc) "$python" "$helper" openapi "$work/redoc" redoc "$sidecar/redoc" ;;
    javadoc) "$python" "$helper" javadoc "$work/javadoc" ;;
    sphinx) "$python" "$helper" sphinx "$work/sphinx" ;;
    doxygen) ;;
    *) echo "unknown site $site" >&2; exit 2 ;;
  esac
done
root=([material]=$work/material/site [swagger]=$work/swagger [redoc]=$work/redoc [javadoc]=$work/javadoc/site
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

# Each crawl kept well under a minute: the small sites whole (with a ceiling), the first eight
# pages of the doxygen manual.
declare -A limits
limits=([material]="--max-pages 15" [swagger]="--max-pages 5" [redoc]="--max-pages 5" [javadoc]="--max-pages 30"
  [doxygen]="--max-pages 8" [sphinx]="--max-pages 12")
declare -A wall saved status own
for run in $(seq "$runs"); do
  for site in "${sites[@]}"; do
    out=$work/out-$site-$run
    started=$(date +%s.%N)
    status[$site,$run]=0
    # shellcheck disable=SC2086 # the limits are two words
    "$mirror" crawl "$(origin "$site")/" -o "$out" --cache "$work/cache-$site-$run" --browser --browser-path "$browser" \
      ${limits[$site]} > "$results/crawl-$site-$run.log" 2>&1 || status[$site,$run]=$?
    wall[$site,$run]=$(python3 -c "print(f'{$(date +%s.%N) - $started:.1f}')")
    # The time on mirror's "saved" line: its fetching phase alone; finishing the folder, the search
    # index and mirror's own offline check of the copies come after it, within the wall time.
    own[$site,$run]=$(sed -n 's/^saved .* in \([0-9.]* s\) to .*/\1/p' "$results/crawl-$site-$run.log" | head -1)
    "$python" "$helper" pages "$out" > "$work/pages-$site-$run"
    saved[$site,$run]=$(wc -l < "$work/pages-$site-$run")
    echo "$site (crawl $run): ${saved[$site,$run]} HTML pages in ${wall[$site,$run]} s, exit ${status[$site,$run]} ($(grep -m1 '^saved' "$results/crawl-$site-$run.log" || echo 'no summary'))"
  done
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
start=([material]=/ [swagger]=/ [redoc]=/ [javadoc]=/lighthouse/package-summary.html [doxygen]=/ [sphinx]=/)
file_of() { awk -F'\t' -v url="$1" '$1 == url {print $2}' "$work/pages-$2-1"; }
# The live shots of a page are named by its line in the first crawl's list.
live_index() { awk -F'\t' -v url="$1" '$1 == url {print NR; exit}' "$work/pages-$2-1"; }

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
  done < "$work/pages-$site-1"
  interaction[$site]="live: $(timeout -k 5 120 "$python" "$helper" interact "$site" "$(origin "$site")${start[$site]}" || echo "fail (timed out)")"
done

# Offline: the network blocked for the browser (every request, loopback too, to a proxy that
# is not there), checked against the live origin first, then nginx stopped as well.
block=(--proxy-server=127.0.0.1:9 --proxy-bypass-list='<-loopback>')
probe=${sites[0]}
control=$(chromium --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" --dump-dom "$(origin "$probe")/" 2>/dev/null || true)
rm -rf "$work/profile"
grep -qi "<body" <<< "$control" || { echo "chromium --dump-dom does not load the live page" >&2; exit 1; }
requests=$(wc -l < "$work/access.log")
dom=$(chromium --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" "${block[@]}" --dump-dom "$(origin "$probe")/" 2>/dev/null || true)
rm -rf "$work/profile"
if [ "$(wc -l < "$work/access.log")" != "$requests" ] || [ "$dom" = "$control" ]; then
  echo "the network block does not hold: nginx was reached" >&2
  exit 1
fi
nginx -c "$work/nginx.conf" -s stop 2>/dev/null
sleep 0.5
for site in "${sites[@]}"; do
  if curl -s -o /dev/null "$(origin "$site")/"; then echo "the origin of $site is still up" >&2; exit 1; fi
done
echo "network block checked: a page of the live origin did not load through it (no request reached nginx); nginx stopped"

# compare SITE URL HOW OFFLINE-URL [CHROMIUM-ARGS...]: one offline shot at each size against the
# live ones; counts the identical ones per site, size and way of opening.
declare -A identical shots_taken
compare() {
  local site=$1 url=$2 how=$3 offline=$4 index size name verdict
  shift 4
  index=$(live_index "$url" "$site")
  for size in "${sizes[@]}"; do
    name="$site-${index:-new}-${size/,/x}-$how"
    shots_taken[$site,$size,$how]=$((${shots_taken[$site,$size,$how]:-0} + 1))
    shot "$offline" "$work/shots/$name.png" "$size" "$@"
    verdict=$("$python" "$helper" compare "$work/shots/$name.png" "$results/$name-diff.png" \
      "$work/shots/$site-$index-${size/,/x}-live1.png" "$work/shots/$site-$index-${size/,/x}-live2.png" 2>&1 || true)
    if [[ "$verdict" = identical* ]]; then
      identical[$site,$size,$how]=$((${identical[$site,$size,$how]:-0} + 1))
    else
      cp "$work/shots/$name.png" "$work/shots/$site-$index-${size/,/x}-"live{1,2}.png "$results/" 2>/dev/null || true
    fi
    printf '%-8s %-8s %-8s %-3s %-50s %s\n' "$site" "${size/,/x}" "$how" "$index" "/${url#http://127.0.0.1:*/}" "$verdict" | tee -a "$results/pages.txt"
  done
}

servers=()
trap 'kill "${servers[@]}" 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
for site in "${sites[@]}"; do
  for run in $(seq "$runs"); do
    while IFS=$'\t' read -r url file; do
      compare "$site" "$url" "file$run" "$file" "${block[@]}"
    done < "$work/pages-$site-$run"
  done
  # The first crawl's folder through `mirror serve`: the same pages at the server's paths.
  serve_port=$(free_port)
  "$mirror" serve "$work/out-$site-1" --port "$serve_port" > "$work/serve-$site.log" 2>&1 &
  servers+=($!)
  for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$serve_port/" && break; sleep 0.1; done
  while IFS=$'\t' read -r url file; do
    path=${file#file://"$work/out-$site-1"/*/}
    compare "$site" "$url" serve "http://127.0.0.1:$serve_port/$path"
  done < "$work/pages-$site-1"
  kill "${servers[-1]}" 2>/dev/null || true
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
  echo "| site | pages | crawls | identical from file:// at 1280×800 | at 390×844 | through mirror serve (1280×800; 390×844) | interaction (live; offline from file://) | crawl wall, median (fetching; exits) |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |"
  for site in "${sites[@]}"; do
    files=(0 0 0 0)  # identical and taken, at each size, over every crawl
    walls=() exits=()
    for run in $(seq "$runs"); do
      files[0]=$((files[0] + ${identical[$site,1280,800,file$run]:-0})); files[1]=$((files[1] + ${shots_taken[$site,1280,800,file$run]:-0}))
      files[2]=$((files[2] + ${identical[$site,390,844,file$run]:-0})); files[3]=$((files[3] + ${shots_taken[$site,390,844,file$run]:-0}))
      walls+=("${wall[$site,$run]}"); exits+=("${status[$site,$run]}")
    done
    median=$(printf '%s\n' "${walls[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}')
    printf '| %s | %s | %s | %s of %s | %s of %s | %s of %s; %s of %s | %s | %s s (%s; %s) |\n' "$site" "${saved[$site,1]}" "$runs" \
      "${files[0]}" "${files[1]}" "${files[2]}" "${files[3]}" \
      "${identical[$site,1280,800,serve]:-0}" "${shots_taken[$site,1280,800,serve]:-0}" \
      "${identical[$site,390,844,serve]:-0}" "${shots_taken[$site,390,844,serve]:-0}" \
      "${interaction[$site]}" "$median" "${own[$site,1]:-?}" "$(printf '%s\n' "${exits[@]}" | sort -u | paste -sd/)"
  done
} | tee "$results/summary.md"
