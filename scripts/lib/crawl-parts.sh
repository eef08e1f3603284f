# Sourced by the benchmarks, after measure.sh and release-mirror.sh. time_parts URL-LIST FOLDER
# [SUFFIX]: times a crawl's parts over the URLs of URL-LIST with mirror-fetch-bench, 8 requests
# in flight — the transport alone (async-http-client), then also through the cache engine as
# `mirror crawl` stores each response, then also parsing each HTML page with libxml2 — as runs
# named transport, cache and parse (each followed by SUFFIX). Caches go into FOLDER.
# This checkout's build (also when MIRROR_BINARY names another commit's mirror).
swift build -c release --product mirror-fetch-bench --scratch-path "${scratch:-.build}" >/dev/null 2>&1
fetch_bench="$(swift build -c release --scratch-path "${scratch:-.build}" --show-bin-path)/mirror-fetch-bench"
# saved_urls FOLDER: the URLs a crawl saved into FOLDER (its manifest's resources), one a line.
saved_urls() {
  python3 -c 'import json, sys; print("\n".join(sorted(json.load(open(sys.argv[1]))["resources"])))' "$1/.mirror/manifest.json"
}
time_parts() {
  local urls=$1 folder=$2 suffix=${3:-}
  mkdir -p "$folder"
  run "transport$suffix" "$fetch_bench" "$urls" 8
  run "cache$suffix" "$fetch_bench" "$urls" 8 --cache "$folder/cache"
  run "parse$suffix" "$fetch_bench" "$urls" 8 --cache "$folder/parse" --parse
  local part
  for part in transport cache parse; do
    # Failed requests make a part's time measure less than the whole list: say so.
    if [ -s "$work/$part$suffix.stderr" ]; then echo "warning: $part$suffix: $(tail -1 "$work/$part$suffix.stderr")" >&2; fi
  done
}
