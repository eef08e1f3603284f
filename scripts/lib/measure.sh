# Sourced by the benchmarks. run NAME COMMAND... : appends the wall seconds, peak RSS (KB) and CPU
# seconds (user + system, steadier than wall time on a shared machine) of one run of COMMAND to
# $work/NAME.times (GNU time); its stderr goes to $work/NAME.stderr.
# Dirty pages are flushed first, so no run pays for the writes of the one before.
run() {
  local name=$1; shift
  sync
  /usr/bin/time -f "%e %M %U %S" -o "$work/time.txt" "$@" >/dev/null 2>"$work/$name.stderr" || true
  tail -1 "$work/time.txt" >> "$work/$name.times"
}
