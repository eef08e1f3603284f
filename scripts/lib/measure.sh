# Sourced by the benchmarks. run NAME COMMAND... : appends the wall seconds, peak RSS (KB), CPU
# seconds (user, system: steadier than wall time on a shared machine) and the seconds the whole
# machine's cores stood idle (idle + iowait, summed over cores, from /proc/stat) during one run of
# COMMAND to $work/NAME.times (GNU time); its stderr goes to $work/NAME.stderr. The idle time says
# whether a run was bound by CPU: near zero, its wall time is the CPU of everything running
# (the tool, the origin, the kernel's writeback) divided by the cores.
# Dirty pages are flushed first, so no run pays for the writes of the one before.
run() {
  local name=$1; shift
  sync
  local before after
  before=$(idle_seconds)
  /usr/bin/time -f "%e %M %U %S" -o "$work/time.txt" "$@" >/dev/null 2>"$work/$name.stderr" || true
  after=$(idle_seconds)
  echo "$(tail -1 "$work/time.txt") $(python3 -c "print(f'{$after - $before:.2f}')")" >> "$work/$name.times"
}

# Seconds all cores have spent idle or waiting for I/O since boot.
idle_seconds() {
  awk -v hz="$(getconf CLK_TCK)" '/^cpu /{printf "%.2f", ($5 + $6) / hz}' /proc/stat
}
