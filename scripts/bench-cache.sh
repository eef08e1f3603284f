#!/usr/bin/env bash
# Cache engine benchmark: store throughput, open time, hit rate and latency, peak memory.
# Each phase runs in its own process (its own peak RSS); results are JSON lines.
# The "baseline" line writes the same files with plain open/write/close/rename from Python
# on the same disk in the same run: the floor of any one-file-per-body store here, so the
# store's MB/s is also reported as a ratio to it (absolute numbers on shared VMs are noise).
#   scripts/bench-cache.sh [ENTRIES=100000] [STORE_COUNT=10000] [STORE_SIZE=20000]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup
entries=${1:-100000}; store_count=${2:-10000}; store_size=${3:-20000}
# MIRROR_CACHE_BENCH names a build to use as it is (another commit's, to compare two).
bench=${MIRROR_CACHE_BENCH:-}
if [ -z "$bench" ]; then
  swift build -c release --product mirror-cache-bench >/dev/null 2>&1
  bench="$(swift build -c release --show-bin-path)/mirror-cache-bench"
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/mirror-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "# $(date -u +%FT%TZ) $(nproc) cores, kernel $(uname -r), $(df -T "$work" | awk 'NR==2{print $2}') on $(df "$work" | awk 'NR==2{print $1}')"
baseline=$(python3 - "$work/baseline" "$store_count" "$store_size" <<'PY'
import os, sys, time, json
folder, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(folder)
body = bytearray(os.urandom(size))
start = time.time()
for i in range(count):
    body[0:8] = i.to_bytes(8, "little")
    with open(f"{folder}/t{i}", "wb") as f:
        f.write(body)
    os.rename(f"{folder}/t{i}", f"{folder}/f{i}")
os.sync()
elapsed = time.time() - start
print(json.dumps({"phase": "baseline-write-rename", "seconds": elapsed, "megabytesPerSecond": count * size / elapsed / 1e6}))
PY
)
echo "$baseline"
sync
store=$("$bench" store "$work/store" "$store_count" "$store_size")
echo "$store"
python3 -c 'import json,sys; b=json.loads(sys.argv[1]); s=json.loads(sys.argv[2]); print(json.dumps({"phase":"store-vs-baseline","ratio":round(s["megabytesPerSecond"]/b["megabytesPerSecond"],2)}))' "$baseline" "$store"
"$bench" fill "$work/big" "$entries"
sync
for _ in 1 2 3; do "$bench" open "$work/big"; done
"$bench" hits "$work/big" "$entries" 5
