#!/usr/bin/env bash
# One crawl on many workers. A generated site of PAGES pages (scripts/gen-site.py) served by nginx
# on 127.0.0.1 behind scripts/lib/delay-proxy.py (every response DELAY s late, sent in one write)
# is crawled with --concurrency 8 --per-host 24: by one process without --shared (the reference
# folder), by one worker of a shared crawl, and by three workers at once (PostgreSQL started for
# the run, with its defaults). Then three workers again, one of them killed with SIGKILL at 40 %
# of the three workers' wall time (--lease 5, so its claims return soon). One worker and three
# workers run RUNS times in turn (the machine's drift falls on both alike); the table gives the
# median of each, and the speed-ups of the medians. Reports wall times,
# the time to the last request nginx answered (fetching; each worker then makes its folder),
# the speed-ups, the cores' idle share, the requests nginx saw more than once, whether every
# worker's folder is the reference's outside .mirror/, the database's size per URL, and the
# claims per second the database sustains without fetching (mirror-shared-bench: 3 workers of
# 8 tasks, 20,000 URLs).
#   scripts/bench-shared.sh [PAGES=3000] [DELAY=0.05] [RUNS=3]
set -euo pipefail
cd "$(dirname "$0")/.."
pages=${1:-3000}
delay=${2:-0.05}
runs=${3:-3}
scripts/setup nginx postgresql time curl
source scripts/lib/release-mirror.sh
swift build -c release --product mirror-shared-bench --scratch-path "${scratch:-.build}" >/dev/null 2>&1
claims_bench="$(dirname "$mirror")/mirror-shared-bench"
# The folders, caches and database go to /dev/shm when it is there: three workers on one machine
# write three caches and folders and the database to one virtual disk, which here varies by
# seconds from run to run (on three machines each worker has a disk of its own).
files=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && files=/dev/shm
pg_parent=$files  # where scripts/lib/postgres.sh puts the database
work=$(mktemp -d "$files/mirror-shared-bench.XXXXXX")
chmod 755 "$work"  # nginx's workers read the site from it
python3 scripts/gen-site.py "$work/site" "$pages"
docs=$work/site source scripts/lib/docs-origin.sh
source scripts/lib/measure.sh
source scripts/lib/postgres.sh
source scripts/lib/delay-origin.sh
trap 'kill "$proxy" 2>/dev/null || true; pg_stop; nginx -c "$work/nginx.conf" -s stop 2>/dev/null || true; rm -rf "$work"' EXIT
now() { date +%s.%N; }
options=(--concurrency 8 --per-host 24 --quiet)

# fetching: seconds from $start to the last request nginx answered (the frontier's end; then
# each worker makes its folder).
fetching() { awk -v start="$start" '$NF > last {last = $NF} END {printf "%.2f", last - start}' "$work/access.log"; }
# repeated: requests nginx logged more than once for one path since the log was emptied.
repeated() { awk '{print $7}' "$work/access.log" | sort | uniq -d -c | awk '{n += $1 - 1} END {print n + 0}'; }
# empty_tables: the crawls so far forgotten, so that each measured crawl starts on empty tables
# (the rows of the crawls before, and autovacuum cleaning them, would weigh on the later ones).
empty_tables() {
  psql_shared "DO \$\$ BEGIN IF to_regclass('mirror_crawls') IS NOT NULL THEN
               TRUNCATE mirror_crawls, mirror_workers, mirror_hosts, mirror_budgets, mirror_urls, mirror_bodies,
                        mirror_responses, mirror_renders; END IF; END \$\$" >/dev/null
}
# median N…: the middle value (the lower middle of an even count).
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
# same FOLDER: whether FOLDER holds what the reference holds, outside .mirror/.
same() { diff -rq -x .mirror "$work/reference" "$1" >/dev/null && echo identical || echo DIFFERENT; }
# workers NAME N [extra options]: N workers of the shared crawl NAME at once, each with its own
# folder and cache; their pids in $pids.
workers() {
  local name=$1 count=$2; shift 2
  pids=()
  for i in $(seq "$count"); do
    "$mirror" crawl "$slow/" --shared "$shared" --crawl-name "$name" -o "$work/$name-$i" --cache "$work/$name-cache-$i" \
      "${options[@]}" "$@" 2>>"$work/$name.log" &
    pids+=($!)
  done
}

empty_bytes=$(psql_shared "SELECT pg_database_size('postgres')")
echo "load before: $(uptime)"
start=$(now)
"$mirror" crawl "$slow/" -o "$work/reference" --cache "$work/reference-cache" "${options[@]}"
alone=$(echo "$(now) - $start" | bc)
alone_fetching=$(fetching)
urls=$(wc -l < "$work/access.log")
: > "$work/access.log"

ones=() ones_fetching=() threes=() threes_fetching=() threes_idle=() one_repeated=0 three_repeated=0 folders=()
for run in $(seq "$runs"); do
  empty_tables
  start=$(now)
  workers "one-$run" 1; wait "${pids[@]}"
  ones+=("$(echo "$(now) - $start" | bc)")
  ones_fetching+=("$(fetching)")
  one_repeated=$((one_repeated + $(repeated))); : > "$work/access.log"
  folders+=("$(same "$work/one-$run-1")")
  if [ "$run" = 1 ]; then
    psql_shared "CHECKPOINT" >/dev/null
    database_bytes=$(( $(psql_shared "SELECT pg_database_size('postgres')") - empty_bytes ))
    url_rows=$(psql_shared "SELECT count(*) FROM mirror_urls")
  fi

  empty_tables
  idle_before=$(idle_seconds)
  start=$(now)
  workers "three-$run" 3; wait "${pids[@]}"
  three=$(echo "$(now) - $start" | bc)
  threes+=("$three")
  threes_idle+=("$(echo "scale=2; 100 * ($(idle_seconds) - $idle_before) / ($three * $(nproc))" | bc)")
  threes_fetching+=("$(fetching)")
  three_repeated=$((three_repeated + $(repeated))); : > "$work/access.log"
  for i in 1 2 3; do folders+=("$(same "$work/three-$run-$i")"); done
  rm -rf "$work"/one-"$run"* "$work"/three-"$run"*
done
one=$(median "${ones[@]}") one_fetching=$(median "${ones_fetching[@]}")
three=$(median "${threes[@]}") three_fetching=$(median "${threes_fetching[@]}") three_idle=$(median "${threes_idle[@]}")
folders=$(printf '%s\n' "${folders[@]}" | sort | uniq -c | xargs)

kill_at=$(echo "scale=2; $three * 0.4" | bc)
empty_tables
workers killed 3 --lease 5
sleep "$kill_at"; kill -9 "${pids[0]}"
wait "${pids[1]}" "${pids[2]}"
killed_repeated=$(repeated)
killed_folders=$(for i in 2 3; do same "$work/killed-$i"; done | sort | uniq -c | xargs)

claims=$("$claims_bench" "$shared" --urls 20000 --hosts 1 --workers 3)
claims_hosts=$("$claims_bench" "$shared" --urls 20000 --hosts 1000 --workers 3)
echo "load after: $(uptime)"

cat <<REPORT

$pages pages behind ${delay} s of latency, $urls requests; --concurrency 8 --per-host 24; medians of $runs runs in turn
one worker: $(printf '%.2f ' "${ones[@]}")s; three workers: $(printf '%.2f ' "${threes[@]}")s
worker folders against the reference (all runs): $folders

| crawl | wall s | speed-up over one worker | fetching s (to the last request) | speed-up | requests repeated (all runs) |
|---|---:|---:|---:|---:|---:|
| one process, no --shared | $(printf %.2f "$alone") | | $alone_fetching | | |
| one worker | $(printf %.2f "$one") | 1.00 | $one_fetching | 1.00 | $one_repeated |
| three workers | $(printf %.2f "$three") | $(echo "scale=2; $one / $three" | bc) | $three_fetching | $(echo "scale=2; $one_fetching / $three_fetching" | bc) | $three_repeated |
| three workers, one SIGKILLed at $(printf %.2f "$kill_at") s (--lease 5) | | | | | $killed_repeated |

the survivors' folders against the reference: $killed_folders
machine idle while the three workers ran (median): ${three_idle} % of $(nproc) cores
goals: three workers >= 2.4 x one, 0 repeated; after the SIGKILL <= 8 repeated, the survivors' folders identical
the one-worker crawl's database: $((database_bytes / 1024)) KiB for $url_rows URLs, $((database_bytes / url_rows)) bytes per URL (frontier, responses, bodies, indexes)
claims, 1 host: $claims
claims, 1,000 hosts: $claims_hosts (goal >= 2,000/s)
REPORT
