#!/usr/bin/env bash
# Large-file check for `mirror serve`: nginx serves a 2 GiB file, mirror crawls it into a folder
# and packs it, then `mirror serve` (folder and bundle) sends it whole to curl, and to a curl
# that hangs up after 1 MB. Reports time, throughput and the server's peak RSS, which must stay
# flat (not grow with the file).
#   scripts/bench-serve-large.sh [SIZE=2G]
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-2G}
scripts/setup nginx curl bc
source scripts/lib/release-mirror.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/mirror-serve-large.XXXXXX")
mkdir -p "$work/www"
source scripts/lib/free-port.sh
head -c "$size" /dev/urandom > "$work/www/big.bin" 2>/dev/null || dd if=/dev/urandom of="$work/www/big.bin" bs=1M count=2048 status=none
port=$(free_port)
cat > "$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 64; }
http { access_log off; sendfile on; types { application/octet-stream bin; }
  server { listen 127.0.0.1:$port; root $work/www; } }
CONF
chmod -R a+rX "$work"  # nginx's workers run as another user
nginx -c "$work/nginx.conf"
pid=""
trap 'kill $pid 2>/dev/null || true; nginx -c "$work/nginx.conf" -s stop 2>/dev/null || true; rm -rf "$work"' EXIT
"$mirror" crawl "http://127.0.0.1:$port/big.bin" -o "$work/site" --cache "$work/cache" --max-file-size 3G --quiet
rm -rf "$work/cache"
"$mirror" pack "$work/site" -o "$work/site.tar.gz" --level 1 --quiet
bytes=$(stat -c %s "$work/www/big.bin")
for source in site site.tar.gz; do
  serve_port=$(free_port)
  "$mirror" serve "$work/$source" --port "$serve_port" --quiet & pid=$!
  for _ in $(seq 600); do curl -sf "http://127.0.0.1:$serve_port/big.bin" -r 0-0 -o /dev/null && break; sleep 0.1; done
  start=$(date +%s.%N)
  curl -sf "http://127.0.0.1:$serve_port/big.bin" -o "$work/got.bin"
  end=$(date +%s.%N)
  cmp -s "$work/got.bin" "$work/www/big.bin" && same=yes || same=NO
  rm -f "$work/got.bin"
  for _ in 1 2 3; do curl -sf "http://127.0.0.1:$serve_port/big.bin" 2>/dev/null | head -c 1000000 > /dev/null || true; done
  sleep 1
  rss=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
  fds=$(ls "/proc/$pid/fd" | wc -l)
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  python3 -c "import sys; b, t, r = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]); print(f'mirror serve {sys.argv[4]}: {b / 2**30:.1f} GiB in {t:.1f} s ({b / t / 1e6:.0f} MB/s), same bytes: {sys.argv[5]}, peak RSS {r / 1024:.0f} MB, open descriptors after 3 hang-ups: {sys.argv[6]}')" \
    "$bytes" "$(echo "$end - $start" | bc)" "$rss" "$source" "$same" "$fds"
done
