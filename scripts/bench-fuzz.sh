#!/usr/bin/env bash
# The long fuzzing runs: each target (or those named) for SECONDS of its own CPU time or until it
# has run RUNS inputs, whichever comes first, JOBS targets at a time, each through scripts/fuzz
# (its optimised libFuzzer + AddressSanitizer build, seeds, dictionary and work folder). Counting
# CPU rather than wall time lets the runs go niced beside other work and still each get their
# full time. Prints one Markdown row a target: wall and CPU time, inputs run, executions per
# second, coverage (libFuzzer's edges "cov" and features "ft"), corpus size at the end, and
# whether a crash or broken contract was found. Logs stay in
# ${MIRROR_FUZZ_WORK:-~/.cache/mirror-fuzz}/logs.
#   scripts/bench-fuzz.sh [SECONDS=3600] [RUNS=10000000] [JOBS=nproc] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup time
seconds=${1:-3600}; runs=${2:-10000000}; jobs=${3:-$(nproc)}
targets=("${@:4}")
work=${MIRROR_FUZZ_WORK:-$HOME/.cache/mirror-fuzz}
logs=$work/logs
mkdir -p "$logs"
((${#targets[@]})) || mapfile -t targets < <(scripts/fuzz --list 2>/dev/null)
# Run niced (`nice -n 19 scripts/bench-fuzz.sh`), the runs yield to other work; but with the
# kernel's autogroup scheduling, nice only ranks processes of one session, and a run started
# with setsid shares the CPU equally with the others: the session's group takes our nice too.
if (($(nice) > 0)) && [ -w /proc/self/autogroup ]; then echo "$(nice)" > /proc/self/autogroup; fi
scripts/fuzz --build
export MIRROR_FUZZ_BUILT=1 MIRROR_FUZZ_CPU=1
# A niced run can wait for the CPU in the middle of an input: a hang is a minute, not 10 s.
export MIRROR_FUZZ_TIMEOUT=${MIRROR_FUZZ_TIMEOUT:-60}
echo "# $(date -u +%FT%TZ) $(nproc) cores, $jobs targets at a time, each ${seconds} CPU-s or ${runs} inputs"
echo "| target | wall s | CPU s | inputs | exec/s | cov | ft | corpus (files, bytes) | result |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"

# One target's row, from its log.
row() {
  local target=$1 status=$2
  python3 - "$target" "$logs/$target.log" "$logs/$target.time" "$status" <<'PY'
import re, sys
target, log, timing, status = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
wall, user, system = (float(v) for v in open(timing).read().split()[-3:])
text = open(log, errors="replace").read()
stats = dict(re.findall(r"^stat::(\w+):\s+(\d+)", text, re.M))
status_lines = re.findall(r"^#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/(\S+)", text, re.M)
last = status_lines[-1] if status_lines else ("0", "?", "?", "?", "?")
executed = int(stats.get("number_of_executed_units", last[0]))
rate = stats.get("average_exec_per_sec", "?")
result = "clean" if status == "0" and "contract violated" not in text and "ERROR: " not in text else "FOUND (see log)"
print(f"| {target} | {wall:.0f} | {user + system:.0f} | {executed:,} | {rate} | {last[1]} | {last[2]} | {last[3]}, {last[4]} | {result} |")
PY
}

running=0
for target in "${targets[@]}"; do
  (
    status=0
    MIRROR_FUZZ_RUNS=$runs /usr/bin/time -f "%e %U %S" -o "$logs/$target.time" \
      scripts/fuzz "$target" "$seconds" >"$logs/$target.log" 2>&1 || status=$?
    row "$target" "$status"
  ) &
  running=$((running + 1))
  if ((running >= jobs)); then wait -n; running=$((running - 1)); fi
done
wait
