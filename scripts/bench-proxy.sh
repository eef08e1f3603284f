#!/usr/bin/env bash
# Proxy benchmark: wrk over keep-alive connections asks for every page and file of the Python
# 3.11 documentation (python3.11-doc, served by nginx on 127.0.0.1) through two reverse proxies
# with a warm cache, in one run on one machine: mirror proxy --upstream, and nginx (2 workers,
# no access log) with proxy_cache. Both are checked first to give the origin's bytes for a
# sample of the URLs, and every request of the measurement must be a hit.
# Reports requests/s, p99 latency and the proxy's peak RSS, and the ratios to nginx.
#   scripts/bench-proxy.sh [SECONDS=10] [CONNECTIONS=32]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
connections=${2:-32}
scripts/setup nginx python3.11-doc wrk curl
source scripts/lib/release-mirror.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/mirror-proxy-bench.XXXXXX")
source scripts/lib/docs-origin.sh
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; nginx -c "$work/nginx.conf" -s stop 2>/dev/null || true; nginx -c "$work/nginx-proxy.conf" -s stop 2>/dev/null || true; rm -rf "$work"' EXIT

(cd "$docs" && find . -type f | sed 's|^\.||' | python3 -c '
import sys, urllib.parse
for line in sys.stdin: print(urllib.parse.quote(line.rstrip("\n")))') | sort > "$work/urls.txt"
echo "$(wc -l < "$work/urls.txt") URLs, $(du -sh "$docs" | cut -f1)"
source scripts/lib/wrk-bench.sh

declare -A ports proxy_pid
ports[mirror]=$(free_port)
"$mirror" proxy --upstream "$origin" --port "${ports[mirror]}" --cache "$work/cache" --max-age 1d --quiet & proxy_pid[mirror]=$!
pids=("${proxy_pid[mirror]}")
ports[nginx]=$(free_port)
# Its workers write the cache, in our scratch folder: they run as this user.
cat > "$work/nginx-proxy.conf" <<CONF
user $(id -un);
worker_processes 2;
pid $work/nginx-proxy.pid;
error_log $work/nginx-proxy-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  proxy_cache_path $work/nginx-cache levels=1:2 keys_zone=docs:64m max_size=4g inactive=1d use_temp_path=off;
  upstream origin { server 127.0.0.1:$port; keepalive 32; }
  server {
    listen 127.0.0.1:${ports[nginx]};
    location / {
      proxy_pass http://origin;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_cache docs;
      proxy_cache_valid 200 1d;
      add_header X-Cache \$upstream_cache_status;
    }
  }
}
CONF
nginx -c "$work/nginx-proxy.conf"
for name in mirror nginx; do wait_for "${ports[$name]}"; done
proxy_pid[nginx]=$(pgrep -P "$(cat "$work/nginx-proxy.pid")" | head -1)

# Warm both caches with every URL (keep-alive), then check a sample against the origin and that it hits.
for name in mirror nginx; do
  python3 - "${ports[$name]}" "$work/urls.txt" <<'PY'
import http.client, sys
connection = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]))
for path in open(sys.argv[2]).read().split():
    connection.request("GET", path)
    response = connection.getresponse()
    response.read()
    if response.status != 200: sys.exit(f"{path}: {response.status}")
PY
done
while read -r path; do
  reference=$(curl -sf "$origin$path" | sha256sum)
  for name in mirror nginx; do
    [ "$(curl -sf "http://127.0.0.1:${ports[$name]}$path" | sha256sum)" = "$reference" ] || { echo "$name differs on $path" >&2; exit 1; }
  done
  curl -sf -o /dev/null -D - "http://127.0.0.1:${ports[mirror]}$path" | grep -qi '^cache-status: mirror; hit' \
    || { echo "mirror proxy missed $path when warm" >&2; exit 1; }
done < <(awk 'NR % 20 == 1' "$work/urls.txt")
echo "both proxies give the origin's bytes, from their caches"
requests_before=$(wc -l < "$work/access.log")

for name in nginx mirror; do measure "$name" "${ports[$name]}" "${proxy_pid[$name]}"; done
echo "the origin saw $(( $(wc -l < "$work/access.log") - requests_before )) requests during the measurements"

report proxy "nginx=nginx proxy_cache (2 workers)" "mirror=mirror proxy --upstream"
