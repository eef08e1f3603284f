#!/usr/bin/env bash
# Serve benchmark: wrk over keep-alive connections asks for every page and requisite of a
# mirror of the Python 3.11 documentation (python3.11-doc, crawled from nginx on 127.0.0.1),
# by its path in the folder, from four servers in one run on one machine:
#   mirror serve DIR, mirror serve BUNDLE (not unpacked), nginx (2 workers, sendfile, no access
#   log) serving the same folder, and python3 -m http.server serving it; and mirror serve BUNDLE
#   --inflated-cache 0, which inflates every file for every request (no copies).
# Every server is checked first to give the same bytes for a sample of the URLs.
# Reports requests/s, p99 latency and the server's peak RSS, and the ratios to nginx.
#   scripts/bench-serve.sh [SECONDS=10] [CONNECTIONS=32]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
connections=${2:-32}
scripts/setup nginx python3.11-doc wrk curl
source scripts/lib/release-mirror.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/mirror-serve-bench.XXXXXX")
source scripts/lib/docs-origin.sh
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; nginx -c "$work/nginx.conf" -s stop 2>/dev/null || true; nginx -c "$work/nginx-site.conf" -s stop 2>/dev/null || true; rm -rf "$work"' EXIT

"$mirror" crawl "$origin/" -o "$work/site" --cache "$work/cache" --quiet || true
"$mirror" pack "$work/site" -o "$work/site.tar.gz" --quiet
# Every saved file with a 200, by its folder path as a link spells it.
python3 - "$work" <<'PY'
import json, sys, urllib.parse
work = sys.argv[1]
manifest = json.load(open(f"{work}/site/.mirror/manifest.json"))
paths = sorted({r["path"] for r in manifest["resources"].values() if r["status"] == 200})
with open(f"{work}/urls.txt", "w") as out:
    for path in paths:
        out.write("/" + urllib.parse.quote(path) + "\n")
PY
echo "$(wc -l < "$work/urls.txt") URLs, $(du -sh "$work/site" | cut -f1) folder, $(du -h "$work/site.tar.gz" | cut -f1) bundle"
source scripts/lib/wrk-bench.sh

declare -A ports server_pid
ports[folder]=$(free_port); "$mirror" serve "$work/site" --port "${ports[folder]}" --quiet & server_pid[folder]=$!
ports[bundle]=$(free_port); "$mirror" serve "$work/site.tar.gz" --port "${ports[bundle]}" --quiet & server_pid[bundle]=$!
ports[inflating]=$(free_port)
"$mirror" serve "$work/site.tar.gz" --port "${ports[inflating]}" --quiet --inflated-cache 0 & server_pid[inflating]=$!
ports[python]=$(free_port); python3 -m http.server "${ports[python]}" --bind 127.0.0.1 --directory "$work/site" >/dev/null 2>&1 & server_pid[python]=$!
ports[nginx]=$(free_port)
cat > "$work/nginx-site.conf" <<CONF
worker_processes 2;
pid $work/nginx-site.pid;
error_log $work/nginx-site-error.log;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  access_log off;
  sendfile on;
  server { listen 127.0.0.1:${ports[nginx]}; root $work/site; etag on; }
}
CONF
chmod -R a+rX "$work"  # nginx's workers run as another user
nginx -c "$work/nginx-site.conf"
pids=("${server_pid[folder]}" "${server_pid[bundle]}" "${server_pid[inflating]}" "${server_pid[python]}")
for name in folder bundle inflating python nginx; do wait_for "${ports[$name]}"; done
server_pid[nginx]=$(pgrep -P "$(cat "$work/nginx-site.pid")" | head -1)

# Same bytes from every server, for every 10th URL.
while read -r path; do
  reference=$(curl -sf "http://127.0.0.1:${ports[nginx]}$path" | sha256sum)
  for name in folder bundle inflating python; do
    [ "$(curl -sf "http://127.0.0.1:${ports[$name]}$path" | sha256sum)" = "$reference" ] || { echo "$name differs on $path" >&2; exit 1; }
  done
done < <(awk 'NR % 10 == 1' "$work/urls.txt")
echo "all five servers give the same bytes"

for name in nginx folder bundle inflating python; do measure "$name" "${ports[$name]}" "${server_pid[$name]}"; done
report server "nginx=nginx (2 workers)" "folder=mirror serve DIR" "bundle=mirror serve BUNDLE" \
  "inflating=mirror serve BUNDLE --inflated-cache 0" "python=python3 -m http.server"
