# Sourced by the wrk benchmarks (serve, proxy). Needs $work with urls.txt (one target per line),
# $seconds and $connections. Writes wrk's script, which asks for every target in turn (spread by
# a stride, so that neighbours are not asked together), and defines:
#   wait_for PORT               until http://127.0.0.1:PORT/ answers
#   measure NAME PORT PID       2 s of warm-up, then the measured run; keeps wrk's output and PID's peak RSS
#   report KIND NAME=LABEL...   the table of every NAME measured, with ratios to the first
cat > "$work/urls.lua" <<LUA
local paths = {}
for line in io.lines("$work/urls.txt") do paths[#paths + 1] = line end
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", paths[(counter * 7919) % #paths + 1])
end
LUA

wait_for() {
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$1/" -o /dev/null && return 0; sleep 0.1; done
  echo "nothing answers on $1" >&2; return 1
}

measure() {
  wrk -t2 -c"$connections" -d2s -s "$work/urls.lua" "http://127.0.0.1:$2" >/dev/null
  wrk -t2 -c"$connections" -d"${seconds}s" --latency -s "$work/urls.lua" "http://127.0.0.1:$2" > "$work/$1.wrk"
  awk '/VmHWM/ {print $2}' "/proc/$3/status" > "$work/$1.rss"
}

report() {
  python3 - "$work" "$connections" "$@" <<'PY'
import re, sys
work, connections, kind, named = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
def parse(name):
    text = open(f"{work}/{name}.wrk").read()
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    value, unit = re.search(r"99%\s+([\d.]+)(us|ms|s)", text).groups()
    p99 = float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    return rps, p99, int(open(f"{work}/{name}.rss").read()) / 1024, int(errors.group(1)) if errors else 0
entries = [entry.split("=", 1) for entry in named]
rows = [(label, parse(name)) for name, label in entries]
base_rps, base_p99 = rows[0][1][0], rows[0][1][1]
print(f"\nwrk, {connections} keep-alive connections, 2 threads")
print(f"| {kind} | requests/s | p99 ms | peak RSS MB | non-2xx | rps / {entries[0][0]} | p99 / {entries[0][0]} |")
print("|---|---:|---:|---:|---:|---:|---:|")
for label, (rps, p99, rss, errors) in rows:
    print(f"| {label} | {rps:.0f} | {p99:.2f} | {rss:.0f} | {errors} | {rps / base_rps:.2f} | {p99 / base_p99:.2f} |")
PY
}
