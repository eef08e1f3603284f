# Sourced by the benchmarks. run NAME COMMAND... : appends the wall seconds and peak RSS (KB) of
# one run of COMMAND to $work/NAME.times (GNU time); its stderr goes to $work/NAME.stderr.
# Dirty pages are flushed first, so no run pays for the writes of the one before.
run() {
  local name=$1; shift
  sync
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" >/dev/null 2>"$work/$name.stderr" || true
  tail -1 "$work/time.txt" >> "$work/$name.times"
}
