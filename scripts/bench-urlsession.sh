#!/usr/bin/env bash
# Cache hits through a program's HTTP clients (mirror-urlsession-bench), in one run on one
# machine, against nginx on 127.0.0.1 serving a page of the Python documentation with
# `Cache-Control: max-age=3600`: URLSession through MirrorURLProtocol against URLSession with
# Foundation's own URLCache (the same response, the same machine), and CachingHTTPClient
# against a bare async-http-client HTTPClient, whose every request goes to nginx. Each client
# runs ROUNDS times, the clients interleaved; prints each client's median requests/s and p99,
# the requests nginx saw while it ran (a client answering from its cache makes one: the first),
# and the two ratios. Then one download of 256 MB through each cached client, in a process of its
# own: how much its resident memory grew.
#   scripts/bench-urlsession.sh [SECONDS=5] [CONCURRENCY=8] [ROUNDS=3]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-5}
concurrency=${2:-8}
rounds=${3:-3}
scripts/setup nginx python3.11-doc curl
swift build -c release --product mirror-urlsession-bench >/dev/null
bench="$(swift build -c release --show-bin-path)/mirror-urlsession-bench"
work=$(mktemp -d "${TMPDIR:-/tmp}/mirror-urlsession-bench.XXXXXX")
source scripts/lib/free-port.sh
port=$(free_port)
mkdir -p "$work/site"
cp /usr/share/doc/python3.11/html/tutorial/index.html "$work/site/page.html"
truncate -s 256M "$work/site/large.bin"
# Its worker reads our scratch folder: it runs as this user.
cat > "$work/nginx.conf" <<CONF
user $(id -un);
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  access_log $work/access.log;
  server { listen 127.0.0.1:$port; root $work/site; etag on; expires 1h; }
}
CONF
nginx -c "$work/nginx.conf"
trap 'nginx -c "$work/nginx.conf" -s stop 2>/dev/null || true; rm -rf "$work"' EXIT
url="http://127.0.0.1:$port/page.html"
for _ in $(seq 50); do curl -sf "$url" >/dev/null 2>&1 && break; sleep 0.1; done
curl -sf -o /dev/null "$url" || { echo "bench-urlsession: nginx does not serve $url" >&2; exit 1; }
echo "# $(date -u +%FT%TZ) $(nproc) cores; $(stat -c %s "$work/site/page.html") bytes, max-age=3600; ${seconds} s a run, $concurrency tasks, $rounds rounds"

clients=(urlsession-mirror urlsession-urlcache ahc-mirror ahc-bare)
for round in $(seq "$rounds"); do
  for client in "${clients[@]}"; do
    rm -rf "$work/cache"
    before=$(wc -l < "$work/access.log")
    result=$("$bench" "$client" "$url" "$seconds" "$concurrency" "$work/cache")
    after=$(wc -l < "$work/access.log")
    echo "$result" | python3 -c 'import json, sys; r = json.load(sys.stdin); r["origin"] = int(sys.argv[1]); print(json.dumps(r))' \
      "$((after - before))" >> "$work/results.jsonl"
  done
done

python3 - "$work/results.jsonl" <<'PY'
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
rows = {}
for run in runs: rows.setdefault(run["client"], []).append(run)
def median(client, key): return statistics.median(run[key] for run in rows[client])
print("| client | requests/s | p50 µs | p99 µs | requests nginx saw (median) |")
print("| --- | ---: | ---: | ---: | ---: |")
for client, runs in rows.items():
    print(f"| {client} | {median(client, 'rps'):,.0f} | {median(client, 'p50_us'):,.0f} | {median(client, 'p99_us'):,.0f} | {median(client, 'origin'):,.0f} |")
print()
print(f"URLSession: MirrorURLProtocol / Foundation's URLCache: {median('urlsession-mirror', 'rps') / median('urlsession-urlcache', 'rps'):.2f}× the requests/s, "
      f"{median('urlsession-mirror', 'p99_us') / median('urlsession-urlcache', 'p99_us'):.2f}× the p99")
print(f"async-http-client: CachingHTTPClient hits / bare requests to nginx: {median('ahc-mirror', 'rps') / median('ahc-bare', 'rps'):.2f}× the requests/s, "
      f"{median('ahc-mirror', 'p99_us') / median('ahc-bare', 'p99_us'):.2f}× the p99")
PY

echo
echo "| one 256 MB download | resident memory before | peak | growth |"
echo "| --- | ---: | ---: | ---: |"
for client in urlsession ahc; do
  rm -rf "$work/cache"
  "$bench" stream "$client" "http://127.0.0.1:$port/large.bin" "$work/cache" | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["bytes"] == 256 << 20, r
before, peak = r["rss_before"] >> 20, r["rss_peak"] >> 20
print(f"| {sys.argv[1]} | {before} MB | {peak} MB | {peak - before} MB |")' "$client"
done
