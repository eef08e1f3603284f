#!/usr/bin/env bash
# Serve benchmark: wrk over keep-alive connections asks for every page and requisite of a
# mirror of the Python 3.11 documentation (python3.11-doc, crawled from nginx on 127.0.0.1),
# by its path in the folder, from four servers in one run on one machine:
#   mirror serve DIR, mirror serve BUNDLE (not unpacked), nginx (2 workers, sendfile, no access
#   log) serving the same folder, and python3 -m http.server serving it.
# Every server is checked first to give the same bytes for a sample of the URLs.
# Reports requests/s, p99 latency and the server's peak RSS, and the ratios to nginx.
#   scripts/bench-serve.sh [SECONDS=10] [CONNECTIONS=32]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
connections=${2:-32}
scripts/setup nginx python3.11-doc wrk curl
scratch=${MIRROR_RELEASE_SCRATCH:-.build}
swift build -c release --product mirror --scratch-path "$scratch" >/dev/null 2>&1
mirror="$(swift build -c release --scratch-path "$scratch" --show-bin-path)/mirror"
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
cat > "$work/urls.lua" <<LUA
local paths = {}
for line in io.lines("$work/urls.txt") do paths[#paths + 1] = line end
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", paths[(counter * 7919) % #paths + 1])
end
LUA

wait_for() { for _ in $(seq 100); do curl -sf "http://127.0.0.1:$1/" -o /dev/null && return 0; sleep 0.1; done; echo "server on $1 did not start" >&2; return 1; }

declare -A ports server_pid
ports[folder]=$(free_port); "$mirror" serve "$work/site" --port "${ports[folder]}" --quiet & server_pid[folder]=$!
ports[bundle]=$(free_port); "$mirror" serve "$work/site.tar.gz" --port "${ports[bundle]}" --quiet & server_pid[bundle]=$!
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
pids=("${server_pid[folder]}" "${server_pid[bundle]}" "${server_pid[python]}")
for name in folder bundle python nginx; do wait_for "${ports[$name]}"; done
server_pid[nginx]=$(pgrep -P "$(cat "$work/nginx-site.pid")" | head -1)

# Same bytes from every server, for every 10th URL.
while read -r path; do
  reference=$(curl -sf "http://127.0.0.1:${ports[nginx]}$path" | sha256sum)
  for name in folder bundle python; do
    [ "$(curl -sf "http://127.0.0.1:${ports[$name]}$path" | sha256sum)" = "$reference" ] || { echo "$name differs on $path" >&2; exit 1; }
  done
done < <(awk 'NR % 10 == 1' "$work/urls.txt")
echo "all four servers give the same bytes"

for name in nginx folder bundle python; do
  wrk -t2 -c"$connections" -d2s -s "$work/urls.lua" "http://127.0.0.1:${ports[$name]}" >/dev/null  # warm-up
  wrk -t2 -c"$connections" -d"${seconds}s" --latency -s "$work/urls.lua" "http://127.0.0.1:${ports[$name]}" > "$work/$name.wrk"
  rss=$(awk '/VmHWM/ {print $2}' "/proc/${server_pid[$name]}/status")
  echo "$rss" > "$work/$name.rss"
done

python3 - "$work" "$connections" <<'PY'
import re, sys
work, connections = sys.argv[1], sys.argv[2]
def parse(name):
    text = open(f"{work}/{name}.wrk").read()
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    value, unit = re.search(r"99%\s+([\d.]+)(us|ms|s)", text).groups()
    p99 = float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    return rps, p99, int(open(f"{work}/{name}.rss").read()) / 1024, int(errors.group(1)) if errors else 0
rows = {name: parse(name) for name in ["nginx", "folder", "bundle", "python"]}
print(f"\nwrk, {connections} keep-alive connections, 2 threads")
print("| server | requests/s | p99 ms | peak RSS MB | non-2xx | rps / nginx | p99 / nginx |")
print("|---|---:|---:|---:|---:|---:|---:|")
labels = {"nginx": "nginx (2 workers)", "folder": "mirror serve DIR", "bundle": "mirror serve BUNDLE", "python": "python3 -m http.server"}
for name, (rps, p99, rss, errors) in rows.items():
    print(f"| {labels[name]} | {rps:.0f} | {p99:.2f} | {rss:.0f} | {errors} | {rps / rows['nginx'][0]:.2f} | {p99 / rows['nginx'][1]:.2f} |")
PY
